"""A fake AI assistant behind an OpenAI-compatible chat API on 127.0.0.1.

The requested model name picks the behaviour, so one server plays several providers:
``good`` / ``good-*`` answers from ``answers`` (query text -> answer), ``rival`` from
``rival_answers`` (answers that recommend a competitor instead of the site), ``ratelimited`` answers
HTTP 429 with ``Retry-After`` to the first ``limit_first`` requests, ``slow`` answers after
``delay_s``, ``refuse`` declines, ``empty`` returns an empty message, ``denied`` answers 401,
``broken`` answers 500 every time, ``drip`` sends its answer one byte every ``drip_s`` seconds
(each read is quick, the whole body is not: only a deadline on the whole call bounds it),
``flaky`` / ``flaky-*`` answers 500 to ``error_rate`` and 429 (``Retry-After: retry_after``) to
``rate_limit_rate`` of requests, at random (seeded), and the rest after ``latency_s`` +- 50%;
``sometimes`` / ``sometimes-*`` varies from call to call as real assistants do: the ``answers``
answer with probability ``answer_rate``, else the ``rival_answers`` one (seeded per model, query and
ask: the same answers whatever order concurrent calls arrive in).
Every request is recorded with the status it got.

It also speaks the web-searching assistants' own formats, returning ``sources`` (query text ->
[(url, title)]) as each of them does: Perplexity (a ``sonar*`` model: top-level ``citations``
and ``search_results``), OpenAI web search (any other chat model: ``url_citation`` message
annotations), Anthropic Messages (``POST .../v1/messages``: text blocks whose citations are
``web_search_result_location``s, after the ``web_search_tool_result``) and Gemini
(``POST .../models/MODEL:generateContent``: ``groundingMetadata.groundingChunks[].web``, whose
``uri`` is Google's redirect and ``title`` the source's domain, as Gemini gives them). As the
real ones, Anthropic and Gemini search only when the request carries their search tool.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections import Counter
from collections.abc import Iterator
from urllib.parse import urlsplit

from ..queries import load_query_set
from .loopback import LoopbackServer, Reply, Request


class FakeAssistant:
    def __init__(
        self,
        answers: dict[str, str] | None = None,
        *,
        rival_answers: dict[str, str] | None = None,
        limit_first: int = 1,
        retry_after: float = 1,
        delay_s: float = 3.0,
        port: int = 0,
        latency_s: float = 0.0,
        drip_s: float = 0.5,
        error_rate: float = 0.0,
        rate_limit_rate: float = 0.0,
        seed: int = 0,
        keep_bodies: bool = True,
        sources: dict[str, list[tuple[str, str]]] | None = None,
        answer_rate: float = 0.5,
    ):
        self.answers = dict(answers or {})
        self.sources = dict(sources or {})
        self.rival_answers = dict(rival_answers or {})
        self.limit_first, self.retry_after, self.delay_s = limit_first, retry_after, delay_s
        self.latency_s = latency_s  # every answer takes this long, as a real model's would
        self.drip_s = drip_s
        self.error_rate, self.rate_limit_rate, self.keep_bodies = error_rate, rate_limit_rate, keep_bodies
        self.answer_rate = answer_rate
        self.seed, self._random = seed, random.Random(seed)
        self.requests: list[dict] = []  # {model, path, query, at, body, status}
        self._asks: Counter[tuple[str, str]] = Counter()  # requests so far per (model, query)
        self._lock = threading.Lock()
        self.server = LoopbackServer(self.respond, port=port, methods=("POST",))
        self.base_url = f"{self.server.url}/v1"

    def respond(self, request: Request) -> Reply:
        """The HTTP answer to one request; the ``drip`` model's comes one byte at a time."""
        body = json.loads(request.body or b"{}")
        status, headers, payload = self.reply(body, request.path)
        data = json.dumps(payload).encode()
        headers = {"Content-Type": "application/json", "Content-Length": str(len(data)), **headers}
        return status, headers, self._drip(data) if body.get("model") == "drip" else data

    def _drip(self, data: bytes) -> Iterator[bytes]:
        for i in range(len(data)):
            yield data[i : i + 1]
            time.sleep(self.drip_s)

    def reply(self, body: dict, path: str = "") -> tuple[int, dict, dict]:
        if path.endswith("/messages"):
            return self._anthropic(body, path)
        if ":generateContent" in path:
            return self._gemini(path.rsplit("/", 1)[-1].split(":")[0], body, path)
        model = str(body.get("model", ""))
        query = next(
            (m.get("content") for m in reversed(body.get("messages", [])) if m.get("role") == "user"), ""
        )
        record = {
            "model": model,
            "path": path,
            "query": query,
            "at": time.monotonic(),
            "body": body if self.keep_bodies else None,
        }
        with self._lock:
            seen = sum(r["model"] == model for r in self.requests) if model == "ratelimited" else 0
            asked, self._asks[model, query] = self._asks[model, query], self._asks[model, query] + 1
            self.requests.append(record)
            draw = self._random.random()
            jitter = 0.5 + self._random.random()
        if model.startswith("sometimes"):  # the same answers whatever order concurrent calls arrive in
            draw = random.Random(f"{self.seed}|{model}|{query}|{asked}").random()
        record["status"], headers, payload = self._reply(model, query, seen, draw, jitter)
        return record["status"], headers, payload

    def _reply(self, model: str, query: str, seen: int, draw: float, jitter: float) -> tuple[int, dict, dict]:
        if model.startswith("flaky"):
            if draw < self.error_rate:
                return 500, {}, {"error": {"message": "upstream overloaded", "type": "server_error"}}
            if draw < self.error_rate + self.rate_limit_rate:
                return (
                    429,
                    {"Retry-After": str(self.retry_after)},
                    {"error": {"message": "Rate limit reached", "type": "rate_limit_error"}},
                )
            time.sleep(self.latency_s * jitter)
        if model == "denied":
            return (
                401,
                {},
                {
                    "error": {
                        "message": "Incorrect API key provided",
                        "type": "invalid_request_error",
                        "code": "invalid_api_key",
                    }
                },
            )
        if model == "broken":
            return 500, {}, {"error": {"message": "upstream exploded", "type": "server_error"}}
        if model == "ratelimited" and seen < self.limit_first:
            return (
                429,
                {"Retry-After": str(self.retry_after)},
                {"error": {"message": "Rate limit reached", "type": "rate_limit_error"}},
            )
        if model == "slow":
            time.sleep(self.delay_s)
        elif self.latency_s and not model.startswith("flaky"):
            time.sleep(self.latency_s)
        content = {"refuse": "I'm sorry, but I can't help with that request.", "empty": ""}.get(
            model,
            (
                self.rival_answers.get(query, f"I am not sure about: {query}")
                if model == "rival" or (model.startswith("sometimes") and draw >= self.answer_rate)
                else self._answer(query)
            ),
        )
        message: dict = {"role": "assistant", "content": content}
        payload: dict = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {
                "prompt_tokens": 12,
                "completion_tokens": max(1, len(content.split())),
                "total_tokens": 12 + max(1, len(content.split())),
            },
        }
        sources = self.sources.get(query, [])
        if sources and model.startswith("sonar"):  # Perplexity: the list beside the choices
            payload["citations"] = [url for url, _ in sources]
            payload["search_results"] = [{"title": t, "url": u, "date": None} for u, t in sources]
        elif sources:  # OpenAI web search: each source an annotation over the text it supports
            message["annotations"] = [
                {
                    "type": "url_citation",
                    "url_citation": {"url": u, "title": t, "start_index": 0, "end_index": len(content)},
                }
                for u, t in sources
            ]
        return 200, {}, payload

    def _answer(self, query: str) -> str:
        return self.answers.get(query, f"I am not sure about: {query}")

    def _record(self, model: str, query: str, body: dict, path: str) -> None:
        with self._lock:
            self.requests.append(
                {
                    "model": model,
                    "path": path,
                    "query": query,
                    "at": time.monotonic(),
                    "body": body if self.keep_bodies else None,
                    "status": 200,
                }
            )

    def _anthropic(self, body: dict, path: str) -> tuple[int, dict, dict]:
        """An Anthropic Messages answer after a web search: the text in two blocks, each citing
        the sources it rests on (the first cites the first two, the second all but the first)."""
        model = str(body.get("model", ""))
        content = body["messages"][-1]["content"]
        query = content if isinstance(content, str) else " ".join(b.get("text", "") for b in content)
        self._record(model, query, body, path)
        searched = any(t.get("type", "").startswith("web_search") for t in body.get("tools", []))
        answer, sources = self._answer(query), self.sources.get(query, []) if searched else []
        cut = answer.find(" ", len(answer) // 2) + 1 or len(answer)

        def cite(part: list[tuple[str, str]], text: str) -> list[dict]:
            return [
                {
                    "type": "web_search_result_location",
                    "url": u,
                    "title": t,
                    "encrypted_index": "Eo8BCioIAhgBIiQ",
                    "cited_text": text[:80],
                }
                for u, t in part
            ]

        blocks: list[dict] = []
        if sources:
            blocks += [
                {
                    "type": "server_tool_use",
                    "id": "srvtoolu_01",
                    "name": "web_search",
                    "input": {"query": query},
                },
                {
                    "type": "web_search_tool_result",
                    "tool_use_id": "srvtoolu_01",
                    "content": [
                        {
                            "type": "web_search_result",
                            "url": u,
                            "title": t,
                            "encrypted_content": "EqgfCi",
                            "page_age": None,
                        }
                        for u, t in sources
                    ],
                },
            ]
        for text, part in ((answer[:cut], sources[:2]), (answer[cut:], sources[1:])):
            if text:
                blocks.append(
                    {"type": "text", "text": text, **({"citations": cite(part, text)} if part else {})}
                )
        return (
            200,
            {},
            {
                "id": f"msg_{len(self.requests)}",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": blocks,
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {
                    "input_tokens": 12,
                    "output_tokens": max(1, len(answer.split())),
                    "server_tool_use": {"web_search_requests": 1 if sources else 0},
                },
            },
        )

    def _gemini(self, model: str, body: dict, path: str) -> tuple[int, dict, dict]:
        """A Gemini generateContent answer grounded in Google Search."""
        query = " ".join(p.get("text", "") for p in body["contents"][-1]["parts"])
        self._record(model, query, body, path)
        searched = any("googleSearch" in t or "google_search" in t for t in body.get("tools", []))
        answer, sources = self._answer(query), self.sources.get(query, []) if searched else []
        candidate: dict = {
            "content": {"parts": [{"text": answer}], "role": "model"},
            "finishReason": "STOP",
            "index": 0,
        }
        if sources:
            candidate["groundingMetadata"] = {
                "webSearchQueries": [query],
                "groundingChunks": [
                    {
                        "web": {
                            "uri": f"https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ{i}",
                            "title": urlsplit(u).hostname,
                        }
                    }
                    for i, (u, _) in enumerate(sources)
                ],
                "groundingSupports": [
                    {
                        "segment": {"startIndex": 0, "endIndex": len(answer), "text": answer},
                        "groundingChunkIndices": list(range(len(sources))),
                    }
                ],
            }
        return (
            200,
            {},
            {
                "candidates": [candidate],
                "usageMetadata": {
                    "promptTokenCount": 12,
                    "candidatesTokenCount": max(1, len(answer.split())),
                    "totalTokenCount": 12 + max(1, len(answer.split())),
                },
                "modelVersion": model,
                "responseId": f"resp-{len(self.requests)}",
            },
        )

    def times(self, model: str) -> list[float]:
        return [r["at"] for r in self.requests if r["model"] == model]

    def close(self) -> None:
        self.server.close()


def rival_answers(queries) -> dict[str, str]:
    """What an assistant that prefers the competitors might say: the query set's first competitor
    recommended (linked on its domain), the others named after it; the site never named."""
    out = {}
    for q in queries:
        if q.competitors:
            first, *others = q.competitors
            link = f" (https://{first.domains[0]})" if first.domains else ""
            also = f" {' and '.join(c.name for c in others)} are good alternatives." if others else ""
            out[q.query] = f"Most people use {first.name}{link} for that.{also}"
    return out


def main() -> None:
    """Serve the fake assistant, answering a query set's expected answers: a stand-in provider
    for trying `sleuth collect` / `sleuth monitor` offline (docs/guide/audit.md)."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--answers",
        default="datasets/samples/queries.jsonl",
        help="query set whose expected answers it gives",
    )
    parser.add_argument("--port", type=int, default=8099)
    args = parser.parse_args()
    queries = load_query_set(args.answers).queries
    answers = {q.query: q.expected_answer or "" for q in queries}
    fake = FakeAssistant(answers, rival_answers=rival_answers(queries), port=args.port)
    print(
        f"fake assistant on {fake.base_url} (models: good, rival, refuse, empty, ratelimited, slow, denied, broken)",
        flush=True,
    )
    threading.Event().wait()
