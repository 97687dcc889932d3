import pytest

from modules.response.groundtruth import (
    brands_from_titles,
    build_ground_truth,
    chunk_page,
    content_version,
    group_by_domain,
    load_pages,
    pages_for,
)
from modules.response.schema import StoredPage


def test_page_folder_html_md_txt(tmp_path):
    site = tmp_path / "acme.example"
    (site / "docs").mkdir(parents=True)
    (site / "index.html").write_text(
        "<html><head><title>Home | Acme Cloud</title><link rel='canonical' href='https://acme.example/'>"
        "<script>var x = 'not content';</script></head><body><nav>Menu</nav><main><p>Acme Cloud stores "
        "your files safely in three regions and keeps thirty days of version history for every plan.</p>"
        "</main></body></html>"
    )
    (site / "docs" / "limits.md").write_text("# Limits\n\nUploads are limited to 5 GB per file.")
    (site / "docs" / "notes.txt").write_text("Support answers within one business day.")
    pages = {p.url: p for p in load_pages(tmp_path)}
    assert set(pages) == {
        "https://acme.example/",
        "https://acme.example/docs/limits.md",
        "https://acme.example/docs/notes.txt",
    }
    home = pages["https://acme.example/"]
    assert home.title == "Home | Acme Cloud" and "thirty days" in home.text and "not content" not in home.text
    assert all(p.domain == "acme.example" for p in pages.values())


def test_page_folder_needs_domain_folders(tmp_path):
    (tmp_path / "page.html").write_text("<p>hi</p>")
    with pytest.raises(ValueError, match="folder named after their domain"):
        load_pages(tmp_path)


def test_bad_pages_file(tmp_path):
    (tmp_path / "p.jsonl").write_text('{"url": "https://a.example"}\n')
    with pytest.raises(ValueError, match="page 1"):
        load_pages(tmp_path / "p.jsonl")
    (tmp_path / "q.jsonl").write_text("{oops\n")
    with pytest.raises(ValueError, match="q.jsonl:1"):
        load_pages(tmp_path / "q.jsonl")


def test_version_is_content_hash_independent_of_order():
    a = StoredPage(url="https://a.example/1", text="one")
    b = StoredPage(url="https://a.example/2", text="two")
    assert content_version([a, b]) == content_version([b, a])
    assert content_version([a, b]) != content_version([a, b.model_copy(update={"text": "two!"})])


def test_chunks_are_sentence_groups_with_stable_ids():
    page = StoredPage(
        url="https://a.example", text=" ".join(f"Sentence number {i} is here." for i in range(60))
    )
    chunks = chunk_page(page)
    assert len(chunks) > 1 and all(len(c.text) <= 400 for c in chunks)
    assert [c.id for c in chunks] == [c.id for c in chunk_page(page)]
    assert " ".join(c.text for c in chunks) == page.text


def test_brands_and_subdomains():
    pages = [
        StoredPage(url="https://acme.example/a", title="Pricing | Acme Cloud", text="x"),
        StoredPage(url="https://docs.acme.example/b", title="Docs - Acme Cloud", text="y"),
        StoredPage(url="https://other.example/c", title="Other", text="z"),
    ]
    assert brands_from_titles(pages[:2]) == ["Acme Cloud"]
    assert brands_from_titles([pages[0]]) == ["Acme Cloud"]
    assert [p.url for p in pages_for("www.acme.example", group_by_domain(pages))] == [
        pages[0].url,
        pages[1].url,
    ]
    assert build_ground_truth("acme.example", pages[:2]).brand_names == ["Acme Cloud"]
