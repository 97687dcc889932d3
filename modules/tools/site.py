"""An offline web: a corpus served as linked HTML pages on 127.0.0.1, and a search over it.

``CorpusSite`` renders each document of a corpus as one HTML page (title, paragraphs), with
an inline link wherever its text names another article's title (the first mention of each,
case-sensitive, qualifiers such as "(1945 film)" dropped), and serves ``/robots.txt``.
``SiteSearch`` is the local engine on that site: titles, page URLs and snippets only. A
research loop on the pair therefore reads full text only by crawling a page through the real
crawler (robots.txt, politeness, extraction; loopback must be allowed explicitly), and can
follow links from page to page as on the web. A page's path is its document URL without the
scheme (``/en.wikipedia.org/wiki/Ed_Wood``), so ``original`` maps a page back to its document.
"""

from __future__ import annotations

import dataclasses
import html
import re
import threading
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote, unquote, urlsplit

from .crawl import Page
from .local_index import Document, LocalSearch
from .search import SearchResults, make_results

ROBOTS = "User-agent: *\nAllow: /\n"
MIN_TITLE_CHARS = 4  # "Art", "War": short titles match too many capitalised words to be links
_TOKEN = re.compile(r"\w+")
_QUALIFIER = re.compile(r"\s*\([^)]*\)\s*$")


def _path(url: str) -> str:
    """``https://en.wikipedia.org/wiki/Ed_Wood`` -> ``/en.wikipedia.org/wiki/Ed_Wood``."""
    parts = urlsplit(url)
    rest = parts.netloc + (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return "/" + quote(rest, safe="/:,()'_-.~!*;=&+@")


class CorpusSite:
    """The corpus on an HTTP server at ``base`` (127.0.0.1, a free port), until ``close()``."""

    def __init__(self, docs: Sequence[Document], *, robots: str = ROBOTS, port: int = 0):
        self.docs = list(docs)
        self.robots = robots
        self._by_path = {_path(d.url): i for i, d in enumerate(self.docs)}
        self._mentions = self._title_keys()
        self._lengths: dict[str, list[int]] = {}  # first word -> word counts of titles, longest first
        for key in self._mentions:
            self._lengths.setdefault(key[0], []).append(len(key))
        for first, counts in self._lengths.items():
            self._lengths[first] = sorted(set(counts), reverse=True)
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                status, ctype, body = site.respond(self.path)
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self._server.server_port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def __enter__(self) -> CorpusSite:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    # ----- URLs ----------------------------------------------------------------------------
    def url_for(self, doc_url: str) -> str:
        """The page of the document stored under ``doc_url``."""
        return self.base + _path(doc_url)

    def original(self, page_url: str) -> str | None:
        """The document URL a page of this site shows (None for any other URL)."""
        if not page_url.startswith(self.base + "/"):
            return None
        i = self._by_path.get(page_url[len(self.base) :])
        return self.docs[i].url if i is not None else None

    def fetcher(self, fetch: Callable[[list[str], list[str | None]], list[Page]]):
        """``fetch`` over this site under the documents' own URLs: each URL is fetched from its
        page here, and the page comes back under the document's URL with its links mapped the
        same way, so that what research stores and cites outlives this process's loopback port."""

        def fetch_originals(urls: list[str], snippets: list[str | None]) -> list[Page]:
            pages = fetch([self.url_for(u) if self.holds(u) else u for u in urls], snippets)
            return [self._as_original(page, url) for page, url in zip(pages, urls)]

        return fetch_originals

    def holds(self, doc_url: str) -> bool:
        return _path(doc_url) in self._by_path

    def _as_original(self, page: Page, asked: str) -> Page:
        links = [(self.original(link) or link, anchor) for link, anchor in page.links]
        final = self.original(page.final_url) or page.final_url
        return dataclasses.replace(page, url=self.original(page.url) or asked, final_url=final, links=links)

    # ----- pages ---------------------------------------------------------------------------
    def respond(self, path: str) -> tuple[int, str, str]:
        """(status, content type, body) for a request path."""
        if path == "/robots.txt":
            return 200, "text/plain; charset=utf-8", self.robots
        i = self._by_path.get(path)
        if i is None:
            i = self._by_path.get(quote(unquote(path), safe="/:,()'_-.~!*;=&+@"))
        if i is None:
            return 404, "text/html; charset=utf-8", "<html><body><p>No such article.</p></body></html>"
        return 200, "text/html; charset=utf-8", self.render(i)

    def render(self, i: int) -> str:
        """One article: its title, its paragraphs with links to the articles they name."""
        doc = self.docs[i]
        paragraphs = [p.strip() for p in re.split(r"\n\s*\n|\n", doc.text) if p.strip()]
        seen: set[int] = {i}
        body = "\n".join(f"<p>{self._linked(p, seen)}</p>" for p in paragraphs)
        title = html.escape(doc.title or doc.url)
        return (
            f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
            f'<link rel="canonical" href="{html.escape(doc.url)}"></head>\n'
            f"<body><header><h1>{title}</h1></header>\n<main><article>\n{body}\n</article></main></body></html>\n"
        )

    def _title_keys(self) -> dict[tuple[str, ...], int]:
        """Title words (qualifier dropped, case kept) -> the article they name; a title without a
        qualifier wins over "X (film)", otherwise the first article with the name."""
        keys: dict[tuple[str, ...], int] = {}
        for i, d in enumerate(self.docs):
            name = _QUALIFIER.sub("", d.title).strip()
            key = tuple(_TOKEN.findall(name))
            if len(name) < MIN_TITLE_CHARS or not key or not key[0][:1].isupper():
                continue
            if key not in keys or (name == d.title and self.docs[keys[key]].title != name):
                keys[key] = i
        return keys

    def _linked(self, text: str, seen: set[int]) -> str:
        """``text`` as HTML, the first mention of each other article's name made a link to it."""
        tokens = list(_TOKEN.finditer(text))
        out, at, k = [], 0, 0
        while k < len(tokens):
            for n in self._lengths.get(tokens[k].group(), ()):
                if k + n > len(tokens):
                    continue
                j = self._mentions.get(tuple(t.group() for t in tokens[k : k + n]))
                if j is None:
                    continue
                start, end = tokens[k].start(), tokens[k + n - 1].end()
                if j not in seen and _is_span(text, tokens[k : k + n]):
                    seen.add(j)
                    href = html.escape(_path(self.docs[j].url))
                    out.append(html.escape(text[at:start]))
                    out.append(f'<a href="{href}">{html.escape(text[start:end])}</a>')
                    at = end
                k += n - 1
                break
            k += 1
        out.append(html.escape(text[at:]))
        return "".join(out)


def _is_span(text: str, tokens: list[re.Match]) -> bool:
    """Words separated only by spaces or light punctuation, as a title is written."""
    return all(re.fullmatch(r"[\s\-'’.,&:]*", text[a.end() : b.start()]) for a, b in zip(tokens, tokens[1:]))


class SiteSearch:
    """The ``local`` engine over a ``CorpusSite``: each result is a title, the document's own URL
    and a snippet, never the document itself; the page is read by crawling it
    (:meth:`CorpusSite.fetcher` fetches it from the site)."""

    name = "local"

    def __init__(self, local: LocalSearch, site: CorpusSite):
        self.local, self.site = local, site

    def search(self, query: str, max_results: int = 10) -> SearchResults:
        results = self.local.search(query, max_results)
        if results.outcome != "ok":
            return results
        rows = [(r.title, r.url, r.snippet) for r in results]
        return make_results(self.name, rows, query, max_results)


_SITES: dict[str, CorpusSite] = {}
_SITES_LOCK = threading.Lock()


def site_for(local: LocalSearch) -> CorpusSite:
    """One site per corpus and process, started on first use (it serves until the process ends)."""
    with _SITES_LOCK:
        key = local.index.key
        if key not in _SITES:
            _SITES[key] = CorpusSite(local.index.docs)
        return _SITES[key]
