"""Tool-node benchmark: crawl + extraction throughput, and local-index query latency.

1. Crawl: a local HTTP server on 127.0.0.1 serves realistic article pages (15-50 KB of HTML:
   navigation, sidebar, scripts, footer around an encyclopedia article); the crawler fetches
   and extracts them all (robots override for the owned host, no politeness delay), pages/s.
2. Local index: the encyclopedia (10,033 articles) plus the HotpotQA paragraphs; build time
   (from scratch with ``--rebuild``, else load from cache), then query latency, median and p95,
   over HotpotQA questions and article-title queries.

    .venv/bin/python -m evals.bench_tools [--pages 300] [--queries 300] [--rebuild]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import polars as pl

from evals.hotpot import ENCYCLOPEDIA, HOTPOT, write_corpus


def article_pages(n: int, seed: int = 7) -> dict[str, bytes]:
    rng = random.Random(seed)
    ency = pl.read_parquet(ENCYCLOPEDIA).to_dicts()
    pages = {}
    for i in range(n):
        main = ency[rng.randrange(len(ency))]
        body = [f"<p>{main['text']}</p>"]
        target = rng.randint(15_000, 50_000)
        while sum(map(len, body)) < target * 0.6:  # related sections from other articles
            other = ency[rng.randrange(len(ency))]
            body.append(f"<h2>{other['title']}</h2><p>{other['text']}</p>")
        nav = "".join(
            f"<li><a href='/p/{rng.randrange(n)}.html'>{ency[rng.randrange(len(ency))]['title']}</a></li>"
            for _ in range(40)
        )
        html = (
            f"<!doctype html><html><head><title>{main['title']} | Reference</title>"
            f"<meta name='description' content='{main.get('description') or ''}'>"
            f"<script>window.dataLayer=[];function t(){{return {i};}}</script><style>body{{font:16px serif}}</style></head>"
            f"<body><header><nav><ul>{nav}</ul></nav></header><main><article><h1>{main['title']}</h1>{''.join(body)}</article></main>"
            f"<aside><ul>{nav}</ul></aside><footer><p>Text under CC BY-SA. <a href='/about'>About</a></p></footer></body></html>"
        )
        pages[f"/p/{i}.html"] = html.encode()
    return pages


def _serve_forever(pages: dict[str, bytes], ports) -> None:
    httpd = serve(pages)
    ports.put(httpd.server_port)
    threading.Event().wait()


def serve_in_process(pages: dict[str, bytes]):
    """The site in its own process, as a real site would be: it must not share our GIL."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    ports = ctx.Queue()
    proc = ctx.Process(target=_serve_forever, args=(pages, ports), daemon=True)
    proc.start()
    return proc, ports.get(timeout=30)


def serve(pages: dict[str, bytes]) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            body = pages.get(self.path)
            status = 200 if body is not None else 404
            body = body or b"not found"
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def bench_crawl(n_pages: int) -> dict:
    from modules.tools.crawl import CrawlConfig, Crawler

    pages = article_pages(n_pages)
    server, port = serve_in_process(pages)
    base = f"http://127.0.0.1:{port}"
    config = CrawlConfig(
        allow_networks=("127.0.0.0/8",),
        per_host_delay_s=0,
        per_host_concurrency=16,
        robots_override_hosts=frozenset({"127.0.0.1"}),
    )
    urls = [base + p for p in pages]

    async def run():
        async with Crawler(config) as crawler:
            return await crawler.fetch_all(urls)

    asyncio.run(run())  # warm-up: imports, trafilatura's first call
    t = time.perf_counter()
    results = asyncio.run(run())
    elapsed = time.perf_counter() - t
    server.terminate()
    ok = sum(p.outcome == "ok" for p in results)
    sizes = [len(b) for b in pages.values()]
    return {
        "pages": len(urls),
        "ok": ok,
        "median_page_kb": round(statistics.median(sizes) / 1024, 1),
        "seconds": round(elapsed, 2),
        "pages_per_s": round(len(urls) / elapsed, 1),
        "mean_text_chars": round(statistics.mean(len(p.text) for p in results)),
    }


def bench_index(n_queries: int, rebuild: bool, cache_dir: str | None = None) -> dict:
    from modules.tools.local_index import LocalIndex

    folder = Path(tempfile.mkdtemp(prefix="sleuth-bench-index-"))
    corpus = write_corpus(folder)
    cache = folder / "cache" if rebuild else cache_dir
    t = time.perf_counter()
    index = LocalIndex.open(corpus, cache_dir=cache)
    open_s = time.perf_counter() - t
    hotpot = [q["question"] for q in json.loads(HOTPOT.read_text())]
    rng = random.Random(3)
    titles = [f"what is {d.title}" for d in rng.sample(index.docs, n_queries)]
    queries = (hotpot + titles)[:n_queries]
    index.search_ids("warm up the encoder")
    latencies = []
    for q in queries:
        t = time.perf_counter()
        index.search(q, 10)
        latencies.append((time.perf_counter() - t) * 1000)
    latencies.sort()
    return {
        "documents": len(index.docs),
        "open_s": round(open_s, 1),
        "built": rebuild or open_s > 20,
        "queries": len(queries),
        "median_ms": round(statistics.median(latencies), 2),
        "p95_ms": round(latencies[int(0.95 * (len(latencies) - 1))], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--rebuild", action="store_true", help="build the index from scratch (fresh cache)")
    parser.add_argument("--cache-dir", help="index cache to use (default: sleuth's cache, $SLEUTH_CACHE_DIR)")
    parser.add_argument("--skip-index", action="store_true")
    parser.add_argument("--skip-crawl", action="store_true")
    args = parser.parse_args()
    if not args.skip_crawl:
        crawl = bench_crawl(args.pages)
        print("crawl:", json.dumps(crawl))
        print(
            f"  crawl + extraction: {crawl['pages_per_s']} pages/s (target >= 50) over {crawl['pages']} pages, "
            f"median {crawl['median_page_kb']} KB"
        )
    if not args.skip_index:
        index = bench_index(args.queries, args.rebuild, args.cache_dir)
        print("index:", json.dumps(index))
        print(
            f"  local index over {index['documents']} documents: {'built' if index['built'] else 'loaded'} in "
            f"{index['open_s']} s; query median {index['median_ms']} ms, p95 {index['p95_ms']} ms (target median <= 20 ms)"
        )


if __name__ == "__main__":
    main()
