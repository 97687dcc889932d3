"""Asking one provider every query: concurrency, rate limit, timeouts, retries, accounting.

Each provider gets its own limits. A transient failure (HTTP 429, a timeout, a dropped
connection, a 5xx) is retried with exponential backoff and jitter; a 429's ``Retry-After`` is
honoured and pauses the whole provider, not just that call. A permanent failure (bad key,
unknown model, a rejected request) is not retried, and after ``abort_after`` of them with no
success the remaining queries are recorded as skipped: a provider that fails entirely is
reported in the tables, never silently missing.

A collection can stop early (a signal, or the run's deadline; see :class:`Cancellation`): calls
in flight are abandoned, nothing new is started, and every query without an answer is recorded
as ``cancelled``. Each answer is handed to ``on_answer`` as it arrives (the checkpoint), and
answers carried from an earlier run are kept without asking again (``--resume``).

A query may be asked several times (``samples``): assistants answer one question differently
from call to call, so a share measured over repeated asks says more than one answer does. Each
ask is its own call with its own answer, keyed by (query id, sample).
"""

from __future__ import annotations

import json
import logging
import random
import re
import statistics
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..queries import Query
from ..response.refusal import is_refusal
from ..text import valid_unicode
from .citations import provider_citations
from .spec import ProviderSpec

log = logging.getLogger(__name__)


@dataclass
class Answer:
    """One query asked of one provider: the answer, or why there is none."""

    query: Query
    status: str  # answered | refusal | empty | error
    response: str = ""
    error: str | None = None
    error_type: str | None = (
        None  # rate_limited | timeout | connection | server_error | auth | not_found | bad_request | skipped | error
    )
    finish_reason: str | None = None
    attempts: int = 0
    rate_limited: int = 0  # 429 answers seen on the way
    latency_s: float | None = None  # the successful call's duration
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None  # None when LiteLLM has no price for the model
    responded_at: datetime | None = None
    asked_at: datetime | None = None  # the first attempt's start (carried over by --resume)
    citations: list[dict] = field(default_factory=list)  # the sources it returned: {url, title, rank}
    sample: int = 1  # which ask of the query this is, 1-based (``--samples``)

    @property
    def key(self) -> AskKey:
        return self.query.query_id, self.sample

    def to_record(self) -> dict[str, Any]:
        """The answer as a JSON object (the checkpoint's format; the query is kept by id)."""
        record = {k: getattr(self, k) for k in _ANSWER_FIELDS}
        for k in ("responded_at", "asked_at"):
            record[k] = record[k] and record[k].isoformat()
        return {"query_id": self.query.query_id, **record}

    @classmethod
    def from_record(cls, query: Query, record: dict[str, Any]) -> Answer:
        """An answer from :meth:`to_record` output or a ``responses`` row of ``query``."""
        values = {k: valid_unicode(record.get(k)) for k in _ANSWER_FIELDS}  # (an older checkpoint's too)
        for k in ("responded_at", "asked_at"):
            if isinstance(values[k], str):
                values[k] = datetime.fromisoformat(values[k])
        return cls(query=query, **{k: v for k, v in values.items() if v is not None})


_ANSWER_FIELDS = (
    "status",
    "response",
    "error",
    "error_type",
    "finish_reason",
    "attempts",
    "rate_limited",
    "latency_s",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
    "responded_at",
    "asked_at",
    "citations",
    "sample",
)

#: One ask of a provider: the query's id and the sample number (1-based).
AskKey = tuple[str, int]

#: Answers a resumed collection keeps; any other (an error of any kind, ``cancelled``,
#: ``skipped``) is asked again.
KEPT_STATUSES = ("answered", "refusal", "empty")


class Cancellation:
    """Why a collection stops early: :meth:`cancel` (from a signal handler) or the run's deadline.

    Shared by every provider's calls; waits go through :meth:`sleep` so a stop cuts them short.
    """

    def __init__(self, max_seconds: float | None = None):
        if max_seconds is not None and max_seconds <= 0:
            raise ValueError(f"max seconds must be > 0, got {max_seconds}")
        self.max_seconds = max_seconds
        self._deadline = time.monotonic() + max_seconds if max_seconds else None
        self._event = threading.Event()
        self.reason: str | None = None
        self.signal: int | None = None  # the signal number, when a signal stopped it

    def cancel(self, reason: str, signal: int | None = None) -> None:
        if not self._event.is_set():
            self.reason, self.signal = reason, signal
            self._event.set()

    @property
    def cancelled(self) -> bool:
        if not self._event.is_set() and self._deadline is not None and time.monotonic() >= self._deadline:
            self.cancel(f"the run's deadline of {self.max_seconds:g} s passed")
        return self._event.is_set()

    def sleep(self, seconds: float) -> bool:
        """Wait ``seconds`` unless cancelled first; True when cancelled."""
        end = time.monotonic() + seconds
        while not self.cancelled:
            left = end - time.monotonic()
            if left <= 0:
                return False
            if self._deadline is not None:
                left = min(left, max(0.0, self._deadline - time.monotonic()) + 0.001)
            self._event.wait(left)
        return True


class _Cancelled(Exception):
    pass


@dataclass
class ProviderRun:
    spec: ProviderSpec
    answers: list[Answer]
    started_at: datetime
    completed_at: datetime
    aborted: str | None = None  # why the remaining queries were skipped

    @property
    def status(self) -> str:
        errors = sum(a.status == "error" for a in self.answers)
        if self.cancelled:
            return "cancelled"
        return "ok" if errors == 0 else ("failed" if errors == len(self.answers) else "partial")

    @property
    def cancelled(self) -> int:
        return sum(a.error_type == "cancelled" for a in self.answers)

    def stats(self) -> dict[str, Any]:
        a = self.answers
        count = Counter(x.status for x in a)
        latencies = sorted(x.latency_s for x in a if x.latency_s is not None)
        costs = [x.cost_usd for x in a if x.cost_usd is not None]
        errors = Counter(x.error_type for x in a if x.status == "error")
        first_error = next(
            (x.error for x in a if x.status == "error" and x.error_type not in ("skipped", "cancelled")),
            next((x.error for x in a if x.error_type == "cancelled"), None),
        )
        return {
            "queries": len(a),
            "answered": count["answered"],
            "refusals": count["refusal"],
            "empty": count["empty"],
            "errors": count["error"],
            "error_types": json.dumps(dict(errors)) if errors else None,
            "attempts": sum(x.attempts for x in a),
            "rate_limited": sum(x.rate_limited for x in a),
            "prompt_tokens": sum(x.prompt_tokens or 0 for x in a),
            "completion_tokens": sum(x.completion_tokens or 0 for x in a),
            "cost_usd": round(sum(costs), 6) if costs else None,
            "latency_median_s": round(statistics.median(latencies), 3) if latencies else None,
            "latency_p95_s": round(latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))], 3)
            if latencies
            else None,
            "status": self.status,
            "error": self.aborted or first_error,
        }


class _Transient(Exception):
    def __init__(self, kind: str, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.kind, self.retry_after = kind, retry_after


class _Permanent(Exception):
    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def _retry_after(exc: BaseException) -> float | None:
    """Seconds from a 429's Retry-After header (LiteLLM keeps the provider's headers)."""
    for headers in (
        getattr(exc, "litellm_response_headers", None),
        getattr(getattr(exc, "response", None), "headers", None),
    ):
        if not headers:
            continue
        value = headers.get("retry-after") or headers.get("Retry-After")
        if value is None:
            ms = headers.get("retry-after-ms")
            return float(ms) / 1000 if ms else None
        try:
            return max(0.0, float(value))
        except ValueError:
            from email.utils import parsedate_to_datetime

            try:
                return max(0.0, (parsedate_to_datetime(value) - datetime.now(UTC)).total_seconds())
            except (TypeError, ValueError):
                return None
    return None


_NOISE = re.compile(r"^(?:(?:litellm\.)?\w*(?:Error|Exception|Timeout):\s*|\w+(?:Error|Exception) - )+")


def _message(exc: BaseException) -> str:
    """``AuthenticationError: Incorrect API key provided`` from LiteLLM's layered wording."""
    text = valid_unicode((str(exc).strip().splitlines() or [""])[0])
    return f"{type(exc).__name__}: {_NOISE.sub('', text)[:300]}".rstrip(": ")


#: A missing or unset key, whatever status the client wraps it in (OpenAI's client reports it
#: as a 500 "Missing credentials" before any request is sent).
_MISSING_KEY = re.compile(
    r"missing (credentials|[\w ]*api[ _-]?key)|api[ _-]?key[\w ]* must be set|no api[ _-]?key"
    r"|(set|pass) (the |an )?`?[\w]*api[ _-]?key",
    re.I,
)


def _connection_failure(exc: BaseException) -> bool:
    """A refused or dropped connection under LiteLLM's wrapping (it reports one as a 500
    "Connection error." whose cause is the transport's error)."""
    import httpx

    seen, current = 0, exc
    while current is not None and seen < 8:
        if isinstance(current, (httpx.TransportError, ConnectionError)) and not isinstance(
            current, httpx.TimeoutException
        ):
            return True
        if type(current).__name__ == "APIConnectionError":
            return True
        current, seen = current.__cause__ or current.__context__, seen + 1
    return str(exc).rstrip().endswith("Connection error.")


def classify(exc: BaseException) -> _Transient | _Permanent:
    """A provider exception as transient (retry) or permanent (do not), with a short kind."""
    import litellm

    message = _message(exc)
    if _MISSING_KEY.search(str(exc)):
        return _Permanent("auth", message)
    if isinstance(exc, (TimeoutError, litellm.Timeout)):
        return _Transient("timeout", message)
    status = getattr(exc, "status_code", None)
    if isinstance(exc, litellm.RateLimitError) or status == 429:
        return _Transient("rate_limited", message, _retry_after(exc))
    if isinstance(exc, litellm.ContentPolicyViolationError):
        return _Permanent("content_policy", message)
    if isinstance(exc, litellm.AuthenticationError) or status in (401, 403):
        return _Permanent("auth", message)
    if isinstance(exc, litellm.NotFoundError) or status == 404:
        return _Permanent("not_found", message)
    if (
        isinstance(exc, litellm.APIConnectionError)
        or isinstance(exc, (ConnectionError, OSError))
        or _connection_failure(exc)
    ):
        return _Transient("connection", message)
    if isinstance(status, int) and (status >= 500 or status in (408, 409)):
        return _Transient("server_error", message)
    if isinstance(status, int) and 400 <= status < 500:
        return _Permanent("bad_request", message)
    if isinstance(exc, (litellm.InternalServerError, litellm.ServiceUnavailableError)):
        return _Transient("server_error", message)
    return _Permanent("error", message)


class _Pacer:
    """A provider's shared clock: at most ``rpm`` starts a minute, and a pause on Retry-After."""

    def __init__(self, rpm: float | None, cancellation: Cancellation):
        self.interval = 60.0 / rpm if rpm else 0.0
        self.next_at = 0.0
        self.lock = threading.Lock()
        self.cancellation = cancellation

    def wait(self) -> None:
        with self.lock:
            now = time.monotonic()
            start = max(now, self.next_at)
            self.next_at = start + self.interval
        if start > now:
            self.cancellation.sleep(start - now)

    def pause(self, seconds: float) -> None:
        with self.lock:
            self.next_at = max(self.next_at, time.monotonic() + seconds)


def _cost(response: Any) -> float | None:
    import litellm

    try:
        return float(litellm.completion_cost(completion_response=response))
    except Exception:  # a model LiteLLM has no price for (local servers, new models)
        return None


class _CallConnections:
    """The sockets one call opens, so that abandoning the call can shut them down: its thread's
    blocked read ends at once, and with it the thread and the socket (a call left to run would
    hold both for as long as the provider keeps sending, forever for one that drips bytes).

    An httpcore network backend (httpcore's documented extension point) that records every
    socket it connects; used through a client made for this call alone and closed after it."""

    def __init__(self):
        import httpcore

        self._backend = httpcore.SyncBackend()
        self._sockets: list[Any] = []
        self._lock = threading.Lock()
        self.abandoned = False

    def connect_tcp(self, *args, **kwargs):
        import socket

        stream = self._backend.connect_tcp(*args, **kwargs)
        sock = stream.get_extra_info("socket")
        with self._lock:
            self._sockets.append(sock)
            if self.abandoned:
                sock.shutdown(socket.SHUT_RDWR)
        return stream

    def connect_unix_socket(self, *args, **kwargs):
        return self._backend.connect_unix_socket(*args, **kwargs)

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)

    def abandon(self) -> None:
        """Shut every socket down (a read blocked in the call's thread returns at once)."""
        import socket

        with self._lock:
            self.abandoned = True
            for sock in self._sockets:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def openai_client(self, spec: ProviderSpec, api_key: str | None):
        """An OpenAI client of its own for this call, its connections made by this object."""
        import httpx
        import openai

        transport = httpx.HTTPTransport()
        transport._pool._network_backend = self  # httpx has no public setting for it (pinned)
        return openai.OpenAI(
            api_key=api_key,
            base_url=spec.base_url,
            max_retries=0,
            timeout=spec.timeout_s,
            http_client=httpx.Client(transport=transport, timeout=spec.timeout_s),
        )


def _call(
    spec: ProviderSpec, query: Query, connections: _CallConnections | None = None
) -> tuple[str, str | None, Any]:
    """One call. Through the OpenAI client (``openai/`` models, local servers), its connections
    are this call's own (``connections``); other providers use LiteLLM's shared clients."""
    import litellm

    messages = [{"role": "system", "content": spec.system_prompt}] if spec.system_prompt else []
    messages.append({"role": "user", "content": query.query})
    kwargs: dict[str, Any] = {
        "model": spec.model,
        "messages": messages,
        "max_tokens": spec.max_tokens,
        "timeout": spec.timeout_s,
        "num_retries": 0,
        "max_retries": 0,
    }
    if spec.temperature is not None:
        kwargs["temperature"] = spec.temperature
    if spec.web_search:
        kwargs["web_search_options"] = {}
    if spec.base_url:
        kwargs["api_base"] = spec.base_url
    key = spec.api_key()
    if key:
        kwargs["api_key"] = key
    client = None
    if connections is not None and spec.model.split("/", 1)[0] == "openai":
        client = kwargs["client"] = connections.openai_client(spec, key)
    try:
        response = litellm.completion(**kwargs)
    finally:
        if client is not None:
            client.close()
    choice = response.choices[0]
    return choice.message.content or "", choice.finish_reason, response


def _call_within(
    spec: ProviderSpec,
    query: Query,
    cancellation: Cancellation,
    on_abandoned: Callable[[threading.Thread], None],
) -> tuple[str, str | None, Any]:
    """``_call`` bounded as a whole by ``spec.timeout_s``: LiteLLM's timeout bounds each read, so
    a provider that drips its answer a byte at a time would hold a call for minutes. Past the
    deadline, or on cancellation, the call is abandoned: its connections are shut down (its
    thread then ends), and a thread that still runs (a provider outside the OpenAI client) is
    handed to ``on_abandoned``. A timeout, or ``_Cancelled``."""
    outcome: dict[str, Any] = {}
    done = threading.Event()
    connections = _CallConnections()

    def run() -> None:
        try:
            outcome["value"] = _call(spec, query, connections)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller below
            outcome["error"] = exc
        finally:
            done.set()

    thread = threading.Thread(target=run, name=f"call-{spec.provider}", daemon=True)
    thread.start()
    deadline = time.monotonic() + spec.timeout_s
    while not done.wait(min(0.1, max(0.0, deadline - time.monotonic()))):
        stop: BaseException | None = None
        if cancellation.cancelled:
            stop = _Cancelled()
        elif time.monotonic() >= deadline:
            stop = TimeoutError(
                f"no complete answer within {spec.timeout_s:g} s (deadline on the whole call)"
            )
        if stop is not None:
            connections.abandon()
            if not done.wait(1.0):
                on_abandoned(thread)
            raise stop
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


#: Abandoned calls still running, per concurrency slot, at which a provider is marked failed.
ABANDONED_PER_SLOT = 2


class _Asker:
    """One provider's calls: shared pacing, the abort switch, and the retry loop of each call.

    Calls run in a thread pool of ``spec.concurrency`` (LiteLLM's synchronous client: its async
    logging worker is process-global and breaks when several event loops use it).
    """

    def __init__(
        self,
        spec: ProviderSpec,
        cancellation: Cancellation,
        on_answer: Callable[[Answer], None] | None,
        on_asked: Callable[[Answer], None] | None = None,
    ):
        self.spec, self.cancellation, self.on_answer, self.on_asked = spec, cancellation, on_answer, on_asked
        self.pacer = _Pacer(spec.rpm, cancellation)
        self.lock = threading.Lock()
        self.successes = self.permanent = 0
        self.aborted: str | None = None
        self.abandoned: list[threading.Thread] = []  # calls past their deadline still running

    def _abandon(self, thread: threading.Thread) -> None:
        with self.lock:
            self.abandoned.append(thread)

    def _too_many_abandoned(self) -> bool:
        """Abandoned calls that still run are bounded (each holds a thread and a socket): at
        ``ABANDONED_PER_SLOT`` per concurrency slot the provider is marked failed."""
        with self.lock:
            self.abandoned[:] = [t for t in self.abandoned if t.is_alive()]
            bound = ABANDONED_PER_SLOT * self.spec.concurrency
            if len(self.abandoned) >= bound and not self.aborted:
                self.aborted = (
                    f"{len(self.abandoned)} calls still hold their connection past the deadline "
                    f"of {self.spec.timeout_s:g} s"
                )
            return self.aborted is not None

    def ask(self, job: tuple[Query, int]) -> Answer:
        query, sample = job
        answer = self._ask(query)
        answer.sample = sample
        if self.on_answer and answer.status in KEPT_STATUSES:
            self.on_answer(answer)
        if self.on_asked:
            self.on_asked(answer)
        return answer

    def _ask(self, query: Query) -> Answer:
        spec = self.spec
        answer = Answer(query=query, status="error")
        for attempt in range(1, spec.retries + 2):
            if self._too_many_abandoned():
                answer.error, answer.error_type = f"not asked: {self.aborted}", "skipped"
                return answer
            self.pacer.wait()
            if self.cancellation.cancelled:
                answer.error, answer.error_type = f"not asked: {self.cancellation.reason}", "cancelled"
                return answer
            answer.attempts = attempt
            answer.asked_at = answer.asked_at or datetime.now(UTC)
            t0 = time.perf_counter()
            try:
                text, finish, response = _call_within(spec, query, self.cancellation, self._abandon)
            except _Cancelled:
                answer.error, answer.error_type = (
                    f"abandoned in flight: {self.cancellation.reason}",
                    "cancelled",
                )
                return answer
            except Exception as exc:  # noqa: BLE001 - every failure is classified and recorded
                failure = classify(exc)
                answer.error, answer.error_type = str(failure), failure.kind
                if isinstance(failure, _Permanent):
                    with self.lock:
                        self.permanent += 1
                        if self.successes == 0 and self.permanent >= spec.abort_after and not self.aborted:
                            self.aborted = f"provider failed {self.permanent} times with no answer ({failure.kind}: {failure})"
                    if failure.kind == "content_policy":
                        answer.status = "refusal"
                    return answer
                if failure.kind == "rate_limited":
                    answer.rate_limited += 1
                if attempt > spec.retries:
                    return answer
                wait = spec.backoff_s * 2 ** (attempt - 1) * (0.5 + random.random())
                if failure.kind == "rate_limited" and failure.retry_after is not None:
                    wait = failure.retry_after
                    self.pacer.pause(wait)
                if wait > spec.max_wait_s:
                    answer.error += (
                        f" (asked to wait {wait:.0f} s, more than max_wait {spec.max_wait_s:.0f} s)"
                    )
                    return answer
                log.info(
                    "%s: %s on %r, retry %d in %.1f s",
                    spec.model,
                    failure.kind,
                    query.query_id,
                    attempt,
                    wait,
                )
                self.cancellation.sleep(wait)
                continue
            with self.lock:
                self.successes += 1
            usage = getattr(response, "usage", None)
            answer.latency_s = round(time.perf_counter() - t0, 3)
            answer.responded_at = datetime.now(UTC)
            answer.response, answer.finish_reason = valid_unicode(text), valid_unicode(finish)
            answer.prompt_tokens = getattr(usage, "prompt_tokens", None)
            answer.completion_tokens = getattr(usage, "completion_tokens", None)
            answer.cost_usd = _cost(response)
            answer.citations = valid_unicode(provider_citations(response))
            answer.error = answer.error_type = None
            answer.status = (
                "empty"
                if not text.strip()
                else "refusal"
                if is_refusal(answer.response, finish)
                else "answered"
            )
            return answer
        return answer


def ask_provider(
    spec: ProviderSpec,
    queries: Sequence[Query],
    *,
    samples: int = 1,
    cancellation: Cancellation | None = None,
    carried: dict[AskKey, Answer] | None = None,
    on_answer: Callable[[Answer], None] | None = None,
    on_asked: Callable[[Answer], None] | None = None,
) -> ProviderRun:
    """Ask ``spec`` every query ``samples`` times (at most ``spec.concurrency`` calls at once);
    answers in query order, each query's samples in turn.

    ``carried`` ((query id, sample) -> answer from an earlier run) are kept as they are, not
    asked; ``on_answer`` gets each new answer worth keeping as it arrives, ``on_asked`` every new
    answer (errors and cancelled calls too: progress)."""
    import litellm

    if samples < 1:
        raise ValueError(f"samples must be >= 1, got {samples}")
    litellm.suppress_debug_info = True
    started = datetime.now(UTC)
    carried = {k: a for k, a in (carried or {}).items() if a.status in KEPT_STATUSES}
    asker = _Asker(spec, cancellation or Cancellation(), on_answer, on_asked)
    jobs = [(q, s) for q in queries for s in range(1, samples + 1)]
    to_ask = [job for job in jobs if (job[0].query_id, job[1]) not in carried]
    with ThreadPoolExecutor(max_workers=spec.concurrency, thread_name_prefix=f"ask-{spec.provider}") as pool:
        asked = {a.key: a for a in pool.map(asker.ask, to_ask)}
    answers = [carried.get((q.query_id, s)) or asked[q.query_id, s] for q, s in jobs]
    return ProviderRun(spec, answers, started, datetime.now(UTC), asker.aborted)


def ask_providers(
    specs: Sequence[ProviderSpec],
    queries: Sequence[Query],
    *,
    samples: int = 1,
    cancellation: Cancellation | None = None,
    carried: dict[tuple[str, str], dict[AskKey, Answer]] | None = None,
    on_answer: Callable[[ProviderSpec, Answer], None] | None = None,
    on_asked: Callable[[ProviderSpec, Answer], None] | None = None,
) -> list[ProviderRun]:
    """Every provider at once, each under its own limits (``carried`` is keyed by ``spec.key``;
    the callbacks as :func:`ask_provider`'s, with the provider)."""
    cancellation = cancellation or Cancellation()
    carried = carried or {}

    def one(spec: ProviderSpec) -> ProviderRun:
        return ask_provider(
            spec,
            queries,
            samples=samples,
            cancellation=cancellation,
            carried=carried.get(spec.key),
            on_answer=(lambda answer: on_answer(spec, answer)) if on_answer else None,
            on_asked=(lambda answer: on_asked(spec, answer)) if on_asked else None,
        )

    with ThreadPoolExecutor(max_workers=max(1, len(specs)), thread_name_prefix="providers") as pool:
        return list(pool.map(one, specs))


__all__ = [
    "Answer",
    "AskKey",
    "Cancellation",
    "KEPT_STATUSES",
    "ProviderRun",
    "ask_provider",
    "ask_providers",
    "classify",
]
