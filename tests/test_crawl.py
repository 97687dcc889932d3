"""The crawler against real HTTP servers on 127.0.0.1 (loopback allowed explicitly)."""

import time

import pytest

from modules.testing import LoopbackServer
from modules.tools.crawl import CrawlConfig, fetch, fetch_all

ARTICLE = """<!doctype html><html><head><title>Glaciers of the Alps | Mountain Atlas</title>
<meta property="article:published_time" content="2024-05-17"></head><body>
<nav><a href="/">Home</a></nav><article><h1>Glaciers of the Alps</h1>
<p>The Alps hold about 4,000 glaciers, which together cover roughly 1,800 square kilometres. The largest,
the Aletsch Glacier in Switzerland, is about 20 kilometres long and has been retreating since 1850.</p>
<p>Glaciologists measure the mass balance of each glacier every year; most lose more than a metre of ice
thickness annually. Read the <a href="/data/aletsch.html#latest">Aletsch measurements</a> or the
<a href="https://other.example/report">international report</a>.</p></article></body></html>"""

CHALLENGE = "<html><head><title>Just a moment...</title></head><body><div id='cf-browser-verification'>Checking your browser</div></body></html>"
CAPTCHA = "<html><head><title>Verify</title></head><body><p>Please verify you are a human.</p><div class='g-recaptcha'></div></body></html>"
JS_SHELL = "<html><head><title>App</title><script src='/bundle.js'></script></head><body><div id='root'></div><noscript>You need to enable JavaScript to run this app.</noscript></body></html>"
MALFORMED = "<html><body><p>Unclosed paragraph about <b>volcanoes <i>and lava flows that reach the sea<p>Second <div>broken</span> content about basalt"


def make_pdf(text: str) -> bytes:
    """A minimal valid one-page PDF showing ``text`` (objects, xref table, trailer)."""
    stream = f"BT /F1 18 Tf 20 80 Td ({text}) Tj ET".encode()
    objects = [
        b"<</Type/Catalog/Pages 2 0 R>>",
        b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
        b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 300 144]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>",
        b"<</Length %d>>stream\n" % len(stream) + stream + b"\nendstream",
        b"<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for n, obj in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj" % n + obj + b"endobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer<</Size %d/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF" % (len(objects) + 1, xref)
    return bytes(out)


PDF = make_pdf("Basalt columns form")


class Site:
    """Routes: path -> (status, headers, body, delay_s); ``hits``: (path, time, User-Agent, Host)."""

    def __init__(self, routes):
        self.routes, self.hits = routes, []
        self.server = LoopbackServer(self.respond, methods=("GET",))
        self.base = self.server.url

    def respond(self, request):
        sent = request.headers
        self.hits.append((request.path, time.monotonic(), sent.get("User-Agent"), sent.get("Host")))
        status, headers, body, delay = self.routes.get(request.path, (404, {}, b"not found", 0))
        if delay:
            time.sleep(delay)
        return status, {"Content-Type": "text/html; charset=utf-8", **headers}, body

    def close(self):
        self.server.close()


def page(body, status=200, headers=None, delay=0):
    return (status, headers or {}, body, delay)


ROUTES = {
    "/robots.txt": page("User-agent: *\nDisallow: /private\n", headers={"Content-Type": "text/plain"}),
    "/article.html": page(ARTICLE),
    "/moved": page("", 301, {"Location": "/article.html"}),
    "/to-private": page("", 302, {"Location": "http://10.0.0.7/admin"}),
    "/to-metadata": page("", 302, {"Location": "http://169.254.169.254/latest/meta-data/"}),
    "/loop": page("", 302, {"Location": "/loop"}),
    "/private/secret.html": page(ARTICLE),
    "/slow": page(ARTICLE, delay=1.0),
    "/huge": page("x" * 300_000),
    "/huge-chunked": page("x" * 300_000, headers={"Content-Length": "10"}),
    "/image.png": page(b"\x89PNG\r\n\x1a\n" + bytes(200), headers={"Content-Type": "image/png"}),
    "/doc.pdf": page(PDF, headers={"Content-Type": "application/pdf"}),
    "/malformed": page(MALFORMED),
    "/challenge": page(CHALLENGE, 503, {"Server": "cloudflare"}),
    "/captcha": page(CAPTCHA),
    "/app": page(JS_SHELL),
    "/empty": page("<html><body></body></html>"),
    "/article-with-captcha-form": page(
        ARTICLE.replace(
            "</article>",
            "</article><form><div class='g-recaptcha'></div><textarea name='comment'></textarea></form>",
        )
    ),
    "/gone": page("gone", 404),
    "/down": page("try later", 503),
}
LOOPBACK = CrawlConfig(
    allow_networks=("127.0.0.0/8",), per_host_delay_s=0, read_timeout_s=0.3, max_bytes=100_000
)


@pytest.fixture(scope="module")
def site():
    s = Site(ROUTES)
    yield s
    s.close()


def test_article_extracted_to_markdown_with_metadata(site):
    p = fetch(site.base + "/article.html", LOOPBACK)
    assert p.outcome == "ok" and p.status == 200 and p.extraction == "trafilatura"
    assert p.title == "Glaciers of the Alps | Mountain Atlas" and p.published == "2024-05-17"
    assert "Aletsch Glacier" in p.text and "Home" not in p.text.split("\n")[0]
    assert (site.base + "/data/aletsch.html", "Aletsch measurements") in p.links
    assert ("https://other.example/report", "international report") in p.links
    assert len(p.content_sha256) == 64 and p.content_type == "text/html"
    assert any(h[2].startswith("sleuth/") for h in site.hits)


def test_redirects_followed_and_host_preserved(site):
    p = fetch(site.base + "/moved", LOOPBACK)
    assert p.outcome == "ok" and p.final_url == site.base + "/article.html" and p.url == site.base + "/moved"
    assert fetch(site.base + "/loop", LOOPBACK).outcome == "redirect_limit"


@pytest.mark.parametrize("path, address", [("/to-private", "10.0.0.7"), ("/to-metadata", "169.254.169.254")])
def test_redirect_to_private_or_metadata_address_is_refused(site, path, address):
    p = fetch(site.base + path, LOOPBACK)
    assert p.outcome == "refused" and address in p.error


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/x",
        "http://localhost:9/",
        "http://[::1]:9/",
        "http://169.254.169.254/",
        "http://10.1.2.3/",
        "http://192.168.0.1/",
        "http://[::ffff:127.0.0.1]:9/",
        "file:///etc/passwd",
        "ftp://example.com/x",
    ],
)
def test_non_public_addresses_refused_by_default(url):
    p = fetch(url, CrawlConfig(per_host_delay_s=0))
    assert p.outcome == "refused"


def test_robots_disallow_and_override(site):
    assert fetch(site.base + "/private/secret.html", LOOPBACK).outcome == "robots_disallowed"
    owned = CrawlConfig(**{**LOOPBACK.__dict__, "robots_override_hosts": frozenset({"127.0.0.1"})})
    assert fetch(site.base + "/private/secret.html", owned).outcome == "ok"


def test_crawl_delay_spaces_requests():
    s = Site(
        {
            "/robots.txt": page(
                "User-agent: *\nCrawl-delay: 0.4\nDisallow: /nothing\n",
                headers={"Content-Type": "text/plain"},
            ),
            "/a": page(ARTICLE),
            "/b": page(ARTICLE),
            "/c": page(ARTICLE),
        }
    )
    try:
        pages = fetch_all([s.base + p for p in ("/a", "/b", "/c")], LOOPBACK)
        assert [p.outcome for p in pages] == ["ok"] * 3
        starts = sorted(t for path, t, *_ in s.hits if path != "/robots.txt")
        assert all(b - a >= 0.35 for a, b in zip(starts, starts[1:]))
    finally:
        s.close()


def test_robots_server_error_means_disallow():
    s = Site({"/robots.txt": page("oops", 500), "/a": page(ARTICLE)})
    try:
        assert fetch(s.base + "/a", LOOPBACK).outcome == "robots_disallowed"
    finally:
        s.close()


def test_timeout_size_cap_and_content_types(site):
    slow = fetch(site.base + "/slow", LOOPBACK)
    assert slow.outcome == "timeout" and slow.transient
    assert fetch(site.base + "/huge", LOOPBACK).outcome == "too_large"
    assert (
        fetch(site.base + "/huge-chunked", CrawlConfig(**{**LOOPBACK.__dict__, "max_bytes": 5})).outcome
        == "too_large"
    )
    png = fetch(site.base + "/image.png", LOOPBACK)
    assert png.outcome == "unsupported_content" and "image/png" in png.error
    pdf = fetch(site.base + "/doc.pdf", LOOPBACK)
    assert pdf.outcome == "ok" and pdf.extraction == "pdf" and "Basalt columns form" in pdf.text


def test_malformed_html_still_yields_text(site):
    p = fetch(site.base + "/malformed", LOOPBACK)
    assert p.outcome == "ok" and "lava flows" in p.text and "basalt" in p.text


@pytest.mark.parametrize("path", ["/challenge", "/captcha", "/app"])
def test_challenges_and_js_shells_are_blocked_not_content(site, path):
    p = fetch(site.base + path, LOOPBACK)
    assert p.outcome == "blocked" and p.text == ""


def test_captcha_comment_form_does_not_hide_an_article(site):
    p = fetch(site.base + "/article-with-captcha-form", LOOPBACK)
    assert p.outcome == "ok" and "Aletsch Glacier" in p.text


def test_http_errors_and_snippet_fallback(site):
    gone, down = fetch_all([site.base + "/gone", site.base + "/down"], LOOPBACK)
    assert (gone.outcome, gone.status, gone.transient) == ("http_error", 404, False)
    assert (down.outcome, down.status, down.transient) == ("http_error", 503, True)
    empty = fetch(site.base + "/empty", LOOPBACK, snippet="From the search result.")
    assert empty.outcome == "ok" and empty.extraction == "snippet" and empty.text == "From the search result."


def test_offline_mirror_serves_corpus_urls_without_network():
    from modules.tools.local_index import LocalSearch

    index = LocalSearch().index
    p = fetch("https://en.wikipedia.org/wiki/Mount_Everest", CrawlConfig(), mirror=index)
    assert p.outcome == "ok" and p.extraction == "corpus" and "highest mountain" in p.text


def test_per_host_concurrency_limit():
    s = Site({f"/p{i}": page(ARTICLE, delay=0.2) for i in range(4)} | {"/robots.txt": page("", 404)})
    try:
        cfg = CrawlConfig(**{**LOOPBACK.__dict__, "per_host_concurrency": 2, "read_timeout_s": 5})
        t = time.monotonic()
        pages = fetch_all([s.base + f"/p{i}" for i in range(4)], cfg)
        assert [p.outcome for p in pages] == ["ok"] * 4
        assert time.monotonic() - t >= 0.38  # 4 requests of 0.2 s, two at a time
    finally:
        s.close()


def test_hosts_sharing_an_address_get_their_own_connections(site):
    """Two names on one IP (as behind a CDN) must not share connections made for the other."""
    import asyncio

    from modules.tools.crawl import Crawler

    port = site.base.rsplit(":", 1)[1]

    both = CrawlConfig(**{**LOOPBACK.__dict__, "allow_networks": ("127.0.0.0/8", "::1/128")})

    async def run():
        async with Crawler(both) as crawler:
            pages = await crawler.fetch_all(
                [f"http://127.0.0.1:{port}/article.html", f"http://localhost:{port}/article.html"]
            )
            return pages, sorted(crawler._clients)

    pages, clients = asyncio.run(run())
    assert [p.outcome for p in pages] == ["ok", "ok"] and clients == ["127.0.0.1", "localhost"]
    hosts = {h[3] for h in site.hits if h[0] == "/article.html"}
    assert {f"127.0.0.1:{port}", f"localhost:{port}"} <= hosts  # each request carried its own Host
