"""Search and crawl Prefect tasks: retried on transient outcomes only, redoing only those items."""

import threading
import time

import pytest
from prefect import flow

from flows.tools import crawl_batch, search_batch
from modules.tools.crawl import CrawlConfig
from modules.tools.search import RetryPolicy
from tests.test_crawl import ARTICLE, Site, page
from tests.test_search import FakeAPI

pytestmark = pytest.mark.usefixtures("prefect_harness")
LOOPBACK = CrawlConfig(allow_networks=("127.0.0.0/8",), per_host_delay_s=0)


def test_crawl_task_retry_flow():
    s = Site(
        {
            "/robots.txt": page("", 404),
            "/ok": page(ARTICLE),
            "/gone": page("no", 404),
            "/flaky": page("busy", 503),
        }
    )  # answers 503 until its first hit is seen, then the article

    @flow
    def crawl():
        pages = crawl_batch.with_options(retry_delay_seconds=0)(
            [s.base + "/ok", s.base + "/flaky", s.base + "/gone"], LOOPBACK
        )
        return pages

    try:

        def flip():
            s.routes["/flaky"] = page(ARTICLE)

        watcher = threading.Thread(target=lambda: [_wait_for(s, "/flaky"), flip()], daemon=True)
        watcher.start()
        ok, flaky, gone = crawl()
        assert (ok.outcome, flaky.outcome, gone.outcome) == ("ok", "ok", "http_error")
        paths = [h[0] for h in s.hits]
        assert paths.count("/ok") == 1 and paths.count("/gone") == 1 and paths.count("/flaky") == 2
    finally:
        s.close()


def _wait_for(site, path, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end and not any(h[0] == path for h in site.hits):
        time.sleep(0.005)


def test_search_task_gives_up_after_retries_and_returns_outcomes(monkeypatch):
    api = FakeAPI(
        lambda m, p, q, b: (
            (429, {"error": "slow down"})
            if q["q"] == "busy"
            else (
                200,
                {
                    "results": [{"url": "https://x.example/" + q["q"], "title": q["q"], "content": ""}]
                    if q["pageno"] == "1"
                    else []
                },
            )
        )
    )
    monkeypatch.setenv("SEARXNG_URL", api.url)

    @flow
    def run():
        return search_batch.with_options(retry_delay_seconds=0)(
            ["alpha", "busy", "beta"],
            engine="searxng",
            options={"retry": RetryPolicy(retries=2, backoff_s=0)},
        )

    try:
        alpha, busy, beta = run()
        assert (alpha.outcome, busy.outcome, beta.outcome) == ("ok", "rate_limited", "ok")
        queried = [c[2]["q"] for c in api.calls if c[2]["pageno"] == "1"]
        assert queried.count("alpha") == 1 and queried.count("beta") == 1
        assert queried.count("busy") == 3 * 3  # 3 task attempts x (1 try + 2 backend retries)
    finally:
        api.close()
