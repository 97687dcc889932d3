"""Query sets: the file format's validation, drafting from a site's pages, review before use."""

import json

import dspy
import pytest
from hypothesis import given, settings, strategies as st

from flows.cli import main
from modules.queries import QuerySetError, load_query_set, write_query_set
from modules.queries.generate import draft_query_set, question_for
from tests.conftest import SAMPLES, write_jsonl

GOOD = {"query_set_id": "s1", "query_id": "q1", "query": "How much does Plus cost?", "domain": "nimbusnotes.example",
        "expected_answer": "$6 a month.", "claims": [{"id": "p", "text": "Plus costs $6 per month", "importance": "required"}],
        "brand_names": ["Nimbus Notes"]}


def test_sample_query_set_loads_and_its_version_ignores_review(tmp_path):
    qs = load_query_set(SAMPLES / "queries.jsonl", allow_drafts=False)
    assert qs.query_set_id == "nimbus-2026-11" and len(qs.queries) == 5 and qs.version.startswith("sha256:")
    drafts = [q.model_copy(update={"review": "draft"}) for q in qs.queries]
    assert load_query_set(write_query_set(tmp_path / "d.jsonl", drafts)).version == qs.version
    edited = [qs.queries[0].model_copy(update={"query": "How much is Plus?"}), *qs.queries[1:]]
    assert load_query_set(write_query_set(tmp_path / "e.parquet", edited)).version != qs.version


def test_every_problem_is_reported_by_line(tmp_path):
    path = write_jsonl(tmp_path / "bad.jsonl", [
        GOOD,
        "{not json",
        {**GOOD, "query_id": "q2", "query": ""},
        {**GOOD, "query_id": "q1"},
        {**GOOD, "query_id": "q3", "query_set_id": "other"},
        {**GOOD, "query_id": "q4", "expected_anwser": "typo"},
        {**GOOD, "query_id": "q5", "claims": [{"id": "a", "text": "x", "importance": "vital"}]},
        {**GOOD, "query_id": "q6", "claims": [{"id": "a", "text": "x"}, {"id": "a", "text": "y"}]},
        [1, 2],
    ])
    with pytest.raises(QuerySetError) as err:
        load_query_set(path)
    msg = str(err.value)
    for expected in ("line 2: not valid JSON", "line 3: query:", "line 4: duplicate query_id 'q1' (first on line 1)",
                     "line 5: query_set_id 'other' differs", "line 6: expected_anwser: unknown field",
                     "line 7: claims.0.importance", "line 8: claim ids repeat", "line 9: expected a JSON object"):
        assert expected in msg, expected
    with pytest.raises(QuerySetError, match="no queries"):
        load_query_set(write_jsonl(tmp_path / "empty.jsonl", []))
    with pytest.raises(FileNotFoundError):
        load_query_set(tmp_path / "missing.jsonl")


def test_drafts_are_never_used_silently(tmp_path):
    path = write_jsonl(tmp_path / "drafts.jsonl", [{**GOOD, "review": "draft"}, {**GOOD, "query_id": "q2"}])
    with pytest.raises(QuerySetError, match=r"1 of 2 queries are unreviewed drafts.*sleuth queries approve"):
        load_query_set(path, allow_drafts=False)
    assert len(load_query_set(path, allow_drafts=True).drafts) == 1


@pytest.fixture(scope="module")
def pages():
    from modules.response import load_pages

    return load_pages(SAMPLES / "pages.jsonl")


def test_baseline_drafts_come_from_the_pages(pages, tmp_path):
    drafts = draft_query_set(pages, "nimbusnotes.example", n=6, query_set_id="nimbus-draft")
    queries = drafts.queries
    assert 4 <= len(queries) <= 6 and len({q.query_id for q in queries}) == len(queries)
    by_url = {p.url: p.text for p in pages}
    for q in queries:
        assert q.review == "draft" and q.query.endswith("?") and q.domain == "nimbusnotes.example"
        assert q.brand_names == ["Nimbus Notes"] and len(q.source_urls) == 1
        assert q.claims and q.claims[0].importance == "required"
        for claim in q.claims:  # verbatim from the page the query came from
            assert claim.text in by_url[q.source_urls[0]], claim.text
    # every page of the site (subdomains included) is covered before any page gets a second query
    assert {q.source_urls[0] for q in queries[:3]} == {u for u in by_url if "nimbusnotes" in u}
    assert "How much does the Team plan in Nimbus Notes cost?" in [q.query for q in queries]
    reloaded = load_query_set(write_query_set(tmp_path / "d.jsonl", queries))
    assert reloaded.query_set_id == "nimbus-draft" and len(reloaded.drafts) == len(queries)


def test_encyclopedia_questions_are_about_the_topic_not_the_site(pages):
    queries = [q.query for q in draft_query_set(pages, "en.wikipedia.org", n=8).queries]
    assert "What is photosynthesis?" in queries and "Who was Marie Curie?" in queries
    assert not any("Wikipedia" in q for q in queries)


def test_unknown_domain_is_a_clear_error(pages):
    with pytest.raises(ValueError, match="no ground-truth pages for domain 'example.org'.*nimbusnotes.example"):
        draft_query_set(pages, "example.org")


def test_lm_drafts_keep_only_claims_the_page_supports(pages):
    good = {"query": "What does Nimbus Notes Plus cost?", "expected_answer": "$6 per month, billed annually.",
            "claims": [{"text": "The Plus plan costs $6 per month", "importance": "required"},
                       {"text": "Plus includes a free pony with every subscription", "importance": "optional"}]}
    invented = {"query": "Does Nimbus Notes run on the Moon?", "expected_answer": "Yes.",
                "claims": [{"text": "Nimbus Notes has a data centre on the Moon"}]}
    lm = dspy.utils.DummyLM([{"reasoning": "r", "queries": json.dumps([good, invented])}] * 3)
    pricing = [p for p in pages if p.url.endswith("/pricing")]
    drafts = draft_query_set(pricing, "nimbusnotes.example", n=2, lm=lm)
    assert [q.query for q in drafts.queries] == ["What does Nimbus Notes Plus cost?"]
    assert [c.text for c in drafts.queries[0].claims] == ["The Plus plan costs $6 per month"]
    assert any("free pony" in n for n in drafts.notes) and any("the Moon" in n for n in drafts.notes)


def test_unparseable_lm_output_falls_back_to_the_baseline(pages):
    lm = dspy.utils.DummyLM([{"reasoning": "r", "queries": "not a list at all"}] * 10)
    drafts = draft_query_set([p for p in pages if p.url.endswith("/pricing")], "nimbusnotes.example", n=2, lm=lm)
    assert drafts.fallback_pages == ["https://nimbusnotes.example/pricing"] and drafts.queries
    assert "baseline drafts used" in drafts.notes[0]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", categories=["L", "N", "P", "Zs"]), max_size=200),
       st.text(min_size=1, max_size=30), st.sampled_from([None, "Nimbus Notes"]), st.booleans())
def test_question_rules_never_crash_and_always_ask(sentence, topic, site, person):
    q = question_for(sentence, topic, site, person, sentence)
    assert q is None or (q.endswith("?") and len(q.split()) >= 2)


def test_cli_generate_check_approve(tmp_path, capsys):
    out = tmp_path / "drafts.jsonl"
    args = ["queries", "generate", "--ground-truth", str(SAMPLES / "pages.jsonl"), "--domain", "nimbusnotes.example",
            "--n", "4", "--out", str(out)]
    assert main(args) == 0 and "sleuth queries approve" in capsys.readouterr().out
    assert main(args) == 2 and "exists" in capsys.readouterr().err  # reviewed work is never overwritten
    assert main(["queries", "check", str(out)]) == 0 and "4 drafts" in capsys.readouterr().out
    first = load_query_set(out).queries[0].query_id
    assert main(["queries", "approve", str(out), "--query-id", first]) == 0
    assert "1 drafts approved, 3 still drafts" in capsys.readouterr().out
    assert main(["queries", "approve", str(out)]) == 0
    assert load_query_set(out, allow_drafts=False).drafts == []
    bad = write_jsonl(tmp_path / "bad.jsonl", [{**GOOD, "query": None}])
    assert main(["queries", "check", str(bad)]) == 2 and "line 1: query" in capsys.readouterr().err
