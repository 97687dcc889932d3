"""Search backends at their HTTP boundary: fake Custom Search, Serper and SearXNG servers on
127.0.0.1 driven through the real httpx code, and ddgs through its public API with its
network layer (primp) replaced."""

import json
import time
from urllib.parse import parse_qs, urlsplit

import pytest

from modules.testing import LoopbackServer
from modules.tools.engines import make_backend, search
from modules.tools.search import (
    AutoSearch,
    DuckDuckGo,
    GoogleCustomSearch,
    RetryPolicy,
    SearchResults,
    SearXNG,
    Serper,
    Spacing,
)
from modules.tools.settings import MissingSetting

NO_WAIT = RetryPolicy(retries=2, backoff_s=0, sleep=lambda s: None)


class FakeAPI(LoopbackServer):
    """A loopback JSON API; ``route(method, path, query, body) -> (status, payload)``."""

    def __init__(self, route):
        self.route, self.calls = route, []
        super().__init__(self.respond)

    def respond(self, request):
        url = urlsplit(request.path)
        body = json.loads(request.body) if request.body else None
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        self.calls.append((request.method, url.path, query, body, dict(request.headers)))
        status, payload = self.route(request.method, url.path, query, body)
        if status == "sleep":
            time.sleep(payload)
            status, payload = 200, {}
        data = payload if isinstance(payload, str) else json.dumps(payload)
        return status, {"Content-Type": "application/json"}, data


@pytest.fixture
def fake_api():
    servers = []

    def start(route):
        servers.append(FakeAPI(route))
        return servers[-1]

    yield start
    for s in servers:
        s.close()


def google_route(total):
    def route(method, path, q, body):
        start, num = int(q["start"]), int(q["num"])
        items = [
            {"title": f"T{i}", "link": f"https://e.example/{i}", "snippet": f"s{i}"}
            for i in range(start, min(start + num, total + 1))
        ]
        return 200, ({"items": items} if items else {})

    return route


def test_google_pages_and_ranks(fake_api):
    api = fake_api(google_route(25))
    r = GoogleCustomSearch("k", "cx1", endpoint=api.url + "/customsearch/v1", retry=NO_WAIT).search("q", 23)
    assert r.outcome == "ok" and len(r) == 23 and [x.rank for x in r][:3] == [1, 2, 3]
    assert [c[2]["start"] for c in api.calls] == ["1", "11", "21"] and api.calls[0][2]["cx"] == "cx1"
    assert r[0].engine == "google" and r[0].url == "https://e.example/1" and r[0].retrieved_at.tzinfo


@pytest.mark.parametrize(
    "status, reason, outcome",
    [
        (429, "rateLimitExceeded", "rate_limited"),
        (403, "dailyLimitExceeded", "rate_limited"),
        (403, "accessNotConfigured", "blocked"),
        (400, "invalid", "error"),
        (500, "backendError", "error"),
    ],
)
def test_google_errors_map_to_outcomes(fake_api, status, reason, outcome):
    api = fake_api(lambda *a: (status, {"error": {"code": status, "errors": [{"reason": reason}]}}))
    r = GoogleCustomSearch("k", "cx", endpoint=api.url, retry=NO_WAIT).search("q")
    assert r.outcome == outcome and r == [] and r.error
    assert len(api.calls) == (3 if outcome == "rate_limited" else 1)  # retried only when it can help


def test_no_results_is_not_an_error(fake_api):
    api = fake_api(lambda *a: (200, {"searchInformation": {"totalResults": "0"}}))
    r = GoogleCustomSearch("k", "cx", endpoint=api.url, retry=NO_WAIT).search("zzz")
    assert r.outcome == "no_results" and r.error is None


def test_timeout_is_retried_then_reported(fake_api):
    api = fake_api(lambda *a: ("sleep", 0.5))
    r = Serper("key", endpoint=api.url, timeout_s=0.1, retry=NO_WAIT).search("q")
    assert r.outcome == "timeout" and r.attempts == 3


def test_serper_request_and_paging(fake_api):
    def route(method, path, q, body):
        start = (body["page"] - 1) * body["num"]
        return 200, {
            "organic": [
                {"title": f"T{i}", "link": f"https://s.example/{i}", "snippet": "x", "position": i}
                for i in range(start, min(start + body["num"], 15))
            ]
        }

    api = fake_api(route)
    r = Serper("secret", endpoint=api.url + "/search", gl="us", retry=NO_WAIT).search("who", 10)
    assert r.outcome == "ok" and len(r) == 10
    method, path, _, body, headers = api.calls[0]
    assert (method, body["q"], body["gl"], headers["X-API-KEY"]) == ("POST", "who", "us", "secret")
    assert "sleuth" in headers["User-Agent"]


def test_searxng_options_and_json_disabled(fake_api):
    api = fake_api(
        lambda m, p, q, b: (
            200,
            {
                "results": [
                    {"url": "https://x.example/a", "title": "A", "content": "c", "engine": "brave"},
                    {"url": "https://x.example/a", "title": "dup", "content": ""},
                ]
            },
        )
    )
    r = SearXNG(
        api.url + "/", engines=["brave", "mojeek"], categories=["general"], time_range="year", retry=NO_WAIT
    ).search("q", 1)
    assert r.outcome == "ok" and [x.url for x in r] == ["https://x.example/a"]
    q = api.calls[0][2]
    assert (q["format"], q["engines"], q["categories"], q["time_range"]) == (
        "json",
        "brave,mojeek",
        "general",
        "year",
    )

    refused = fake_api(lambda *a: (403, "Forbidden"))
    r = SearXNG(refused.url, retry=NO_WAIT).search("q")
    assert r.outcome == "error" and "settings.yml" in r.error and "json" in r.error


def test_missing_keys_name_the_variable(monkeypatch):
    for var in ("SERPER_API_KEY", "GOOGLE_API_KEY", "GOOGLE_CSE_ID", "SEARXNG_URL", "SLEUTH_CONFIG"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(MissingSetting, match="SERPER_API_KEY"):
        Serper()
    with pytest.raises(MissingSetting, match="GOOGLE_API_KEY"):
        make_backend("google")
    with pytest.raises(MissingSetting, match="SEARXNG_URL"):
        SearXNG()


def test_keys_from_config_file(tmp_path, monkeypatch):
    monkeypatch.delenv("SERPER_API_KEY", raising=False)
    (tmp_path / "s.toml").write_text('[search.serper]\napi_key = "from-file"\n')
    monkeypatch.setenv("SLEUTH_CONFIG", str(tmp_path / "s.toml"))
    assert Serper().api_key == "from-file"
    monkeypatch.setenv("SERPER_API_KEY", "from-env")
    assert Serper().api_key == "from-env"


class Stub:
    def __init__(self, name, outcome):
        self.name, self.outcome, self.calls = name, outcome, 0

    def search(self, query, max_results=10):
        self.calls += 1
        return SearchResults(
            [] if self.outcome != "ok" else ["r"],
            query=query,
            engine=self.name,
            outcome=self.outcome,
            error=None if self.outcome in ("ok", "no_results") else "boom",
        )


def test_auto_falls_through_failures_only():
    a, b, c = Stub("a", "rate_limited"), Stub("b", "no_results"), Stub("c", "ok")
    r = AutoSearch([a, b, c]).search("q")
    assert r.engine == "b" and r.outcome == "no_results" and c.calls == 0 and "a: rate_limited" in r.error
    r = AutoSearch([Stub("a", "timeout"), Stub("b", "blocked")]).search("q")
    assert r.engine == "auto" and r.outcome == "blocked" and "a: timeout" in r.error


def test_local_is_the_offline_default(monkeypatch):
    monkeypatch.delenv("SLEUTH_SEARCH_ORDER", raising=False)
    monkeypatch.delenv("SLEUTH_SEARCH_ENGINE", raising=False)
    monkeypatch.delenv("SLEUTH_CONFIG", raising=False)
    r = search("highest mountain on Earth above sea level", 3)
    assert (
        r.outcome == "ok"
        and r[0].url == "https://en.wikipedia.org/wiki/Mount_Everest"
        and r[0].engine == "local"
    )
    assert "highest mountain" in r[0].snippet


# ---- ddgs through its public API, with primp (its network layer) replaced ----

DDG_HTML = """<html><body>
<div class="result results_links web-result"><div class="links_main links_deep result__body">
<h2 class="result__title"><a href="https://a.example/1">First result</a></h2>
<a class="result__snippet" href="https://a.example/1">About the first result</a></div></div>
<div class="result"><div class="links_main result__body"><h2><a href="https://b.example/2">Second</a></h2>
<a class="result__snippet" href="https://b.example/2">Second snippet</a></div></div>
</body></html>"""


class FakePrimp:
    behaviour = ("ok", DDG_HTML)
    calls = 0

    def __init__(self, *a, **kw):
        pass

    def headers_update(self, headers):
        pass

    def request(self, method, url, **kw):
        import primp

        FakePrimp.calls += 1
        kind, value = FakePrimp.behaviour
        if kind == "timeout":
            raise primp.TimeoutError("operation timed out")
        if kind == "connect":
            raise ConnectionError("connection refused")

        class Resp:
            status_code = value[0] if kind == "status" else 200
            text = value[1] if kind == "status" else value
            content = text.encode()

        return Resp()


@pytest.fixture
def ddg(monkeypatch):
    import ddgs.http_client

    monkeypatch.setattr(ddgs.http_client.primp, "Client", FakePrimp)
    FakePrimp.calls = 0
    return DuckDuckGo(retry=NO_WAIT, spacing=Spacing(0, 0), timelimit="m", region="uk-en")


@pytest.mark.parametrize(
    "behaviour, outcome, calls",
    [
        (("ok", DDG_HTML), "ok", 1),
        (("ok", "<html><body>nothing</body></html>"), "no_results", 1),
        (("status", (202, "")), "no_results", 1),  # ddgs reports a non-200 page as "No results found."
        (("timeout", None), "timeout", 3),
        (("connect", None), "error", 1),
    ],
)
def test_ddgs_exceptions_map_to_outcomes(ddg, behaviour, outcome, calls):
    FakePrimp.behaviour = behaviour
    r = ddg.search("test query", 5)
    assert r.outcome == outcome and FakePrimp.calls == calls
    if outcome == "ok":
        assert [(x.title, x.url, x.rank) for x in r] == [
            ("First result", "https://a.example/1", 1),
            ("Second", "https://b.example/2", 2),
        ]
        assert r[0].snippet == "About the first result" and r[0].engine == "duckduckgo"


def test_ddgs_ratelimit_exception_maps(monkeypatch):
    import ddgs
    from ddgs.exceptions import RatelimitException

    def raise_ratelimit(self, query, **kw):
        raise RatelimitException("202 Ratelimit")

    monkeypatch.setattr(ddgs.DDGS, "text", raise_ratelimit)
    r = DuckDuckGo(retry=NO_WAIT, spacing=Spacing(0, 0)).search("q")
    assert r.outcome == "rate_limited" and r.attempts == 3


def test_spacing_keeps_queries_apart():
    spacing, stamps = Spacing(min_interval_s=0.05, jitter_s=0.0), []
    for _ in range(3):
        spacing(lambda: stamps.append(time.monotonic()) or SearchResults(query="q", engine="x"))
    assert all(b - a >= 0.045 for a, b in zip(stamps, stamps[1:]))
