"""Search tool nodes behind one interface, with outcomes a Decision node can act on.

``search(query, max_results, engine=...)`` returns ``SearchResults``: a list of
``SearchResult`` that also says how the search went (``ok``, ``no_results``,
``rate_limited``, ``blocked``, ``timeout``, ``error``), so an empty list is never silent.
Backends: ``duckduckgo`` (the ddgs package), ``google`` (Custom Search JSON API), ``serper``
(Serper's Google results API), ``searxng`` (a self-hosted instance), ``local`` (the hybrid
corpus index, the offline default) and ``auto`` (configured backends in order, falling through
on failures).
"""

from __future__ import annotations

import random
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

import httpx

from .settings import setting

Outcome = Literal["ok", "no_results", "rate_limited", "blocked", "timeout", "error"]
RETRYABLE: frozenset[str] = frozenset({"rate_limited", "timeout"})
FALL_THROUGH: frozenset[str] = frozenset({"rate_limited", "blocked", "timeout", "error"})
USER_AGENT = "sleuth/0.1 (+https://github.com/sleuth-research/sleuth; research agent)"


@dataclass(frozen=True, slots=True)
class SearchResult:
    title: str
    url: str
    snippet: str
    engine: str
    rank: int  # 1-based position in this engine's results
    retrieved_at: datetime


class SearchResults(list):
    """The results (a list) plus the outcome of the search that produced them."""

    def __init__(
        self,
        results: Sequence[SearchResult] = (),
        *,
        query: str,
        engine: str,
        outcome: Outcome | None = None,
        error: str | None = None,
        attempts: int = 1,
    ):
        super().__init__(results)
        self.query, self.engine, self.error, self.attempts = query, engine, error, attempts
        self.outcome: Outcome = outcome or ("ok" if results else "no_results")

    def __repr__(self) -> str:
        return f"SearchResults({self.engine!r}, {self.outcome}, {len(self)} results{', ' + self.error if self.error else ''})"


class SearchBackend(Protocol):
    name: str

    def search(self, query: str, max_results: int = 10) -> SearchResults: ...


def _now() -> datetime:
    return datetime.now(UTC)


def make_results(
    engine: str, rows: Sequence[tuple[str, str, str]], query: str, max_results: int
) -> SearchResults:
    now = _now()
    seen, out = set(), []
    for title, url, snippet in rows:
        if url and url not in seen:
            seen.add(url)
            out.append(
                SearchResult(
                    title=title or url,
                    url=url,
                    snippet=snippet or "",
                    engine=engine,
                    rank=len(out) + 1,
                    retrieved_at=now,
                )
            )
    return SearchResults(out[:max_results], query=query, engine=engine)


@dataclass
class RetryPolicy:
    """Bounded retries with exponential backoff and jitter, on retryable outcomes only."""

    retries: int = 2
    backoff_s: float = 1.0
    max_backoff_s: float = 30.0
    sleep: Callable[[float], None] = time.sleep

    def run(self, attempt: Callable[[], SearchResults]) -> SearchResults:
        for n in range(self.retries + 1):
            result = attempt()
            result.attempts = n + 1
            if result.outcome not in RETRYABLE or n == self.retries:
                return result
            self.sleep(min(self.max_backoff_s, self.backoff_s * 2**n) * random.uniform(0.75, 1.25))
        raise AssertionError("unreachable")


@dataclass
class Spacing:
    """Sequential queries at least ``min_interval_s`` apart (jittered), process-wide per engine."""

    min_interval_s: float = 0.0
    jitter_s: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _last: float = field(default=0.0, repr=False)

    def __call__(self, fn: Callable[[], SearchResults]) -> SearchResults:
        with self._lock:  # one query at a time: that is what "sequential" means to the engine
            wait = self._last + self.min_interval_s + random.uniform(0, self.jitter_s) - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            try:
                return fn()
            finally:
                self._last = time.monotonic()


class _HttpBackend(ABC):
    """Shared httpx plumbing: status codes and transport failures become outcomes."""

    name = "http"

    def __init__(
        self, *, timeout_s: float = 10.0, retry: RetryPolicy | None = None, client: httpx.Client | None = None
    ):
        self.client = client or httpx.Client(
            timeout=httpx.Timeout(timeout_s, connect=min(5.0, timeout_s)),
            headers={"User-Agent": USER_AGENT},
            follow_redirects=True,
        )
        self.retry = retry or RetryPolicy()

    def search(self, query: str, max_results: int = 10) -> SearchResults:
        if not query.strip():
            return SearchResults(query=query, engine=self.name, outcome="error", error="empty query")
        return self.retry.run(lambda: self._guarded(query, max_results))

    def _guarded(self, query: str, max_results: int) -> SearchResults:
        try:
            return self._search(query, max_results)
        except httpx.TimeoutException as exc:
            return SearchResults(
                query=query, engine=self.name, outcome="timeout", error=f"{type(exc).__name__}: {exc}"
            )
        except httpx.HTTPError as exc:
            return SearchResults(
                query=query, engine=self.name, outcome="error", error=f"{type(exc).__name__}: {exc}"
            )
        except ValueError as exc:  # malformed JSON from the service
            return SearchResults(query=query, engine=self.name, outcome="error", error=f"bad response: {exc}")

    def _status_outcome(self, resp: httpx.Response, query: str) -> SearchResults | None:
        if resp.status_code == 429:
            return SearchResults(
                query=query, engine=self.name, outcome="rate_limited", error=f"HTTP 429: {resp.text[:200]}"
            )
        if resp.status_code in (401, 403):
            return SearchResults(
                query=query,
                engine=self.name,
                outcome="blocked",
                error=f"HTTP {resp.status_code}: {resp.text[:200]}",
            )
        if resp.status_code >= 400:
            return SearchResults(
                query=query,
                engine=self.name,
                outcome="error",
                error=f"HTTP {resp.status_code}: {resp.text[:200]}",
            )
        return None

    @abstractmethod
    def _search(self, query: str, max_results: int) -> SearchResults:
        """One search against the service's API (each backend speaks its own)."""


class GoogleCustomSearch(_HttpBackend):
    """Google's Custom Search JSON API (``GOOGLE_API_KEY``, ``GOOGLE_CSE_ID``); 10 results a page.

    Closed to new customers by Google; new users should take ``serper``.
    """

    name = "google"
    ENDPOINT = "https://www.googleapis.com/customsearch/v1"

    def __init__(
        self, api_key: str | None = None, cx: str | None = None, *, endpoint: str | None = None, **kw: Any
    ):
        super().__init__(**kw)
        self.api_key = api_key or setting("GOOGLE_API_KEY", "search.google", "api_key")
        self.cx = cx or setting("GOOGLE_CSE_ID", "search.google", "cx")
        self.endpoint = endpoint or self.ENDPOINT

    def _search(self, query: str, max_results: int) -> SearchResults:
        rows: list[tuple[str, str, str]] = []
        start = 1
        while len(rows) < max_results and start <= 91:  # the API serves at most 100 results
            resp = self.client.get(
                self.endpoint,
                params={
                    "key": self.api_key,
                    "cx": self.cx,
                    "q": query,
                    "num": min(10, max_results - len(rows)),
                    "start": start,
                },
            )
            if resp.status_code == 403 and _google_reason(resp) in {
                "rateLimitExceeded",
                "dailyLimitExceeded",
                "userRateLimitExceeded",
            }:
                return SearchResults(
                    query=query,
                    engine=self.name,
                    outcome="rate_limited",
                    error=f"HTTP 403: {_google_reason(resp)}",
                )
            if (failed := self._status_outcome(resp, query)) is not None:
                if rows:  # keep the pages already fetched
                    return make_results(self.name, rows, query, max_results)
                return failed
            items = resp.json().get("items") or []
            rows += [(i.get("title", ""), i.get("link", ""), i.get("snippet", "")) for i in items]
            if len(items) < 10:
                break
            start += 10
        return make_results(self.name, rows, query, max_results)


def _google_reason(resp: httpx.Response) -> str:
    try:
        return resp.json()["error"]["errors"][0]["reason"]
    except (ValueError, KeyError, IndexError, TypeError):
        return ""


class Serper(_HttpBackend):
    """Serper's Google results API (``SERPER_API_KEY``): the Google backend for new users."""

    name = "serper"
    ENDPOINT = "https://google.serper.dev/search"

    def __init__(
        self,
        api_key: str | None = None,
        *,
        endpoint: str | None = None,
        gl: str | None = None,
        hl: str | None = None,
        **kw: Any,
    ):
        super().__init__(**kw)
        self.api_key = api_key or setting("SERPER_API_KEY", "search.serper", "api_key")
        self.endpoint, self.gl, self.hl = endpoint or self.ENDPOINT, gl, hl

    def _search(self, query: str, max_results: int) -> SearchResults:
        rows: list[tuple[str, str, str]] = []
        page = 1
        while len(rows) < max_results and page <= 10:
            body = {"q": query, "num": min(100, max_results), "page": page}
            body.update({k: v for k, v in (("gl", self.gl), ("hl", self.hl)) if v})
            resp = self.client.post(self.endpoint, json=body, headers={"X-API-KEY": self.api_key})
            if (failed := self._status_outcome(resp, query)) is not None:
                return make_results(self.name, rows, query, max_results) if rows else failed
            organic = resp.json().get("organic") or []
            rows += [(o.get("title", ""), o.get("link", ""), o.get("snippet", "")) for o in organic]
            if len(organic) < body["num"]:
                break
            page += 1
        return make_results(self.name, rows, query, max_results)


class SearXNG(_HttpBackend):
    """A self-hosted SearXNG instance's JSON API (``SEARXNG_URL``)."""

    name = "searxng"

    def __init__(
        self,
        url: str | None = None,
        *,
        engines: Sequence[str] = (),
        categories: Sequence[str] = (),
        language: str | None = None,
        time_range: str | None = None,
        **kw: Any,
    ):
        super().__init__(**kw)
        self.url = (url or setting("SEARXNG_URL", "search.searxng", "url")).rstrip("/")
        self.engines, self.categories, self.language, self.time_range = (
            list(engines),
            list(categories),
            language,
            time_range,
        )

    def _search(self, query: str, max_results: int) -> SearchResults:
        rows: list[tuple[str, str, str]] = []
        for page in range(1, 6):
            params = {"q": query, "format": "json", "pageno": page}
            if self.engines:
                params["engines"] = ",".join(self.engines)
            if self.categories:
                params["categories"] = ",".join(self.categories)
            if self.language:
                params["language"] = self.language
            if self.time_range:
                params["time_range"] = self.time_range
            resp = self.client.get(f"{self.url}/search", params=params)
            if resp.status_code == 403:
                return SearchResults(
                    query=query,
                    engine=self.name,
                    outcome="error",
                    error=(
                        f"SearXNG at {self.url} refused JSON output (HTTP 403): enable it by adding 'json' to "
                        "search.formats in the instance's settings.yml"
                    ),
                )
            if (failed := self._status_outcome(resp, query)) is not None:
                return make_results(self.name, rows, query, max_results) if rows else failed
            found = resp.json().get("results") or []
            rows += [(r.get("title", ""), r.get("url", ""), r.get("content", "")) for r in found]
            if not found or len(rows) >= max_results:
                break
        return make_results(self.name, rows, query, max_results)


class DuckDuckGo:
    """DuckDuckGo through the ``ddgs`` package, one query at a time with jittered spacing.

    ddgs reports every failure as an exception: ``TimeoutException`` (timeout),
    ``RatelimitException`` (rate limited), ``DDGSException`` (no results, or a network or HTTP
    error, told apart by its message). ddgs turns a non-200 answer from DuckDuckGo into "No
    results found.", so a silent rate limit surfaces as ``no_results``.
    """

    name = "duckduckgo"
    _spacing = Spacing(min_interval_s=1.0, jitter_s=1.0)

    def __init__(
        self,
        *,
        region: str = "wt-wt",
        safesearch: Literal["on", "moderate", "off"] = "moderate",
        timelimit: Literal["d", "w", "m", "y"] | None = None,
        timeout_s: int = 10,
        retry: RetryPolicy | None = None,
        spacing: Spacing | None = None,
    ):
        self.region, self.safesearch, self.timelimit, self.timeout_s = (
            region,
            safesearch,
            timelimit,
            timeout_s,
        )
        self.retry = retry or RetryPolicy()
        self.spacing = spacing or self._spacing

    def search(self, query: str, max_results: int = 10) -> SearchResults:
        if not query.strip():
            return SearchResults(query=query, engine=self.name, outcome="error", error="empty query")
        return self.retry.run(lambda: self.spacing(lambda: self._once(query, max_results)))

    def _once(self, query: str, max_results: int) -> SearchResults:
        from ddgs import DDGS
        from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException

        try:
            rows = DDGS(timeout=self.timeout_s).text(
                query,
                region=self.region,
                safesearch=self.safesearch,
                timelimit=self.timelimit,
                max_results=max_results,
                backend="duckduckgo",
            )
        except TimeoutException as exc:
            return SearchResults(query=query, engine=self.name, outcome="timeout", error=str(exc))
        except RatelimitException as exc:
            return SearchResults(query=query, engine=self.name, outcome="rate_limited", error=str(exc))
        except DDGSException as exc:
            return SearchResults(
                query=query, engine=self.name, outcome=_ddgs_outcome(str(exc)), error=str(exc)
            )
        return make_results(
            self.name,
            [(r.get("title", ""), r.get("href", ""), r.get("body", "")) for r in rows],
            query,
            max_results,
        )


def _ddgs_outcome(message: str) -> Outcome:
    text = message.lower()
    if "no results found" in text:
        return "no_results"
    if "timed out" in text or "timeout" in text:
        return "timeout"
    if "ratelimit" in text or "429" in text or "202" in text:
        return "rate_limited"
    if "403" in text or "captcha" in text:
        return "blocked"
    return "error"


class AutoSearch:
    """Backends in order; the first that does not fail answers (``no_results`` is an answer)."""

    name = "auto"

    def __init__(self, backends: Sequence[SearchBackend]):
        if not backends:
            raise ValueError("auto search needs at least one configured backend")
        self.backends = list(backends)

    def search(self, query: str, max_results: int = 10) -> SearchResults:
        tried = []
        for backend in self.backends:
            result = backend.search(query, max_results)
            if result.outcome not in FALL_THROUGH:
                if tried and not result.error:
                    result.error = "fell through: " + "; ".join(tried)
                return result
            tried.append(f"{backend.name}: {result.outcome} ({result.error})")
        return SearchResults(
            query=query, engine=self.name, outcome=result.outcome, error="; ".join(tried), attempts=len(tried)
        )
