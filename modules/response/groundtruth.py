"""Ground truth: a site's pages, chunked, versioned by content hash, embedded once and cached."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..tables_io import read_rows
from ..text import split_long, split_sentences
from .attribution import host_matches, normalize_domain
from .schema import StoredPage

CHUNK_CHARS = 400  # a few sentences: specific enough to highlight, long enough for context
TITLE_SEPARATORS = re.compile(r"\s+[|\-–—:·•]\s+")


@dataclass(frozen=True, slots=True)
class Chunk:
    id: str
    page_url: str
    text: str


@dataclass
class GroundTruth:
    """One domain's pages and their chunks; ``vectors`` are filled by the analyzer."""

    domain: str
    pages: list[StoredPage]
    chunks: list[Chunk]
    version: str
    brand_names: list[str]
    vectors: np.ndarray | None = field(default=None, repr=False)
    embedding_model: str | None = None


def page_domain(page: StoredPage) -> str:
    return normalize_domain(page.domain or page.url)


def content_version(pages: list[StoredPage]) -> str:
    """A hash of the pages' URLs and texts, independent of their order."""
    h = hashlib.sha256()
    for url, text in sorted((p.url, p.text) for p in pages):
        h.update(url.encode() + b"\x00" + hashlib.sha256(text.encode()).digest())
    return "sha256:" + h.hexdigest()[:16]


def chunk_page(page: StoredPage, max_chars: int = CHUNK_CHARS) -> list[Chunk]:
    """Greedy groups of whole sentences up to ``max_chars``; ids are stable per page content."""
    page_key = hashlib.sha256((page.url + "\x00" + page.text).encode()).hexdigest()[:10]
    groups: list[str] = []
    current = ""
    for sentence in split_sentences(page.text):
        for piece in split_long(sentence, max_chars):
            if current and len(current) + 1 + len(piece.text) > max_chars:
                groups.append(current)
                current = ""
            current = f"{current} {piece.text}" if current else piece.text
    if current:
        groups.append(current)
    return [Chunk(id=f"{page_key}:{i}", page_url=page.url, text=t) for i, t in enumerate(groups)]


def brands_from_titles(pages: list[StoredPage]) -> list[str]:
    """Site names from page titles: 'Pricing | Acme Cloud' -> 'Acme Cloud'.

    A title segment shared by at least two pages is the site's name; with a single titled
    page, its last segment after a separator is taken.
    """
    segments = [[s.strip() for s in TITLE_SEPARATORS.split(p.title) if s.strip()] for p in pages if p.title]
    counts = Counter(s for segs in segments for s in set(segs))
    shared = [s for s, n in counts.items() if n >= 2]
    if shared:
        return sorted(shared)
    if len(segments) == 1 and len(segments[0]) > 1:
        return [segments[0][-1]]
    return []


def build_ground_truth(domain: str, pages: list[StoredPage]) -> GroundTruth:
    pages = sorted(pages, key=lambda p: p.url)
    chunks = [c for p in pages for c in chunk_page(p)]
    return GroundTruth(
        domain=domain,
        pages=pages,
        chunks=chunks,
        version=content_version(pages),
        brand_names=brands_from_titles(pages),
    )


def group_by_domain(pages: list[StoredPage]) -> dict[str, list[StoredPage]]:
    grouped: dict[str, list[StoredPage]] = {}
    for page in pages:
        grouped.setdefault(page_domain(page), []).append(page)
    return grouped


def pages_for(domain: str, grouped: dict[str, list[StoredPage]]) -> list[StoredPage]:
    """Pages of ``domain`` and of its subdomains (docs.example.com belongs to example.com)."""
    domain = normalize_domain(domain)
    return [p for d, ps in grouped.items() if host_matches(d, domain) for p in ps]


def load_pages(path: str | Path) -> list[StoredPage]:
    """Pages from JSONL, Parquet, or a directory laid out as ``<dir>/<domain>/**/*.{html,md,txt}``."""
    path = Path(path)
    if path.is_dir():
        return _load_page_dir(path)
    rows = read_rows(path, "ground truth")
    pages = []
    for n, row in enumerate(rows, 1):
        try:
            pages.append(StoredPage.model_validate(row))
        except Exception as exc:
            raise ValueError(f"{path}: page {n} is not {{url, text, title?, domain?}}: {exc}") from None
    return pages


def _load_page_dir(root: Path) -> list[StoredPage]:
    pages = []
    for file in sorted(root.rglob("*")):
        if file.suffix.lower() not in {".html", ".htm", ".md", ".txt"} or not file.is_file():
            continue
        rel = file.relative_to(root)
        if len(rel.parts) < 2 or "." not in rel.parts[0]:
            raise ValueError(
                f"cannot tell the domain of {file}: put pages under a folder named after their "
                f"domain, e.g. {root}/example.com/{rel}"
            )
        raw = file.read_text(encoding="utf-8", errors="replace")
        title, text, url = None, raw, None
        if file.suffix.lower() in {".html", ".htm"}:
            title, text, url = _html_page(raw)
        path_part = "/".join(rel.parts[1:])
        path_part = re.sub(r"(^|/)index\.(html?|md|txt)$", r"\1", path_part)
        pages.append(
            StoredPage(
                url=url or f"https://{rel.parts[0]}/{path_part}",
                text=text,
                title=title,
                domain=rel.parts[0],
            )
        )
    if not pages:
        raise ValueError(f"no .html, .md or .txt pages under {root}")
    return pages


def _html_page(html: str) -> tuple[str | None, str, str | None]:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(strip=True) if soup.title else None
    canonical = soup.find("link", rel="canonical")
    url = canonical.get("href") if canonical else None
    import trafilatura  # a missing dependency must fail loudly, not degrade extraction

    try:
        text = trafilatura.extract(html, include_comments=False, favor_recall=True)
    except ImportError:
        raise
    except Exception:  # trafilatura fails on some malformed pages; plain text takes over
        text = None
    if not text:
        for tag in soup(["script", "style", "noscript", "nav", "footer", "header"]):
            tag.decompose()
        text = soup.get_text("\n", strip=True)
    return title, text, url
