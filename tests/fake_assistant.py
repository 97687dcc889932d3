"""A fake AI assistant behind an OpenAI-compatible chat API on 127.0.0.1.

The requested model name picks the behaviour, so one server plays several providers:
``good`` / ``good-*`` answers from ``answers`` (query text -> answer), ``rival`` from
``rival_answers`` (answers that recommend a competitor instead of the site), ``ratelimited`` answers
HTTP 429 with ``Retry-After`` to the first ``limit_first`` requests, ``slow`` answers after
``delay_s``, ``refuse`` declines, ``empty`` returns an empty message, ``denied`` answers 401,
``broken`` answers 500 every time, ``drip`` sends its answer one byte every ``drip_s`` seconds
(each read is quick, the whole body is not: only a deadline on the whole call bounds it),
``flaky`` / ``flaky-*`` answers 500 to ``error_rate`` and 429 (``Retry-After: retry_after``) to
``rate_limit_rate`` of requests, at random (seeded), and the rest after ``latency_s`` +- 50%.
Every request is recorded with the status it got.
"""

from __future__ import annotations

import json
import random
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


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
    ):
        self.answers = dict(answers or {})
        self.rival_answers = dict(rival_answers or {})
        self.limit_first, self.retry_after, self.delay_s = limit_first, retry_after, delay_s
        self.latency_s = latency_s  # every answer takes this long, as a real model's would
        self.drip_s = drip_s
        self.error_rate, self.rate_limit_rate, self.keep_bodies = error_rate, rate_limit_rate, keep_bodies
        self._random = random.Random(seed)
        self.requests: list[dict] = []  # {model, query, at, body, status}
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                status, headers, payload = fake.reply(body)
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    for k, v in {
                        "Content-Type": "application/json",
                        "Content-Length": str(len(data)),
                        **headers,
                    }.items():
                        self.send_header(k, v)
                    self.end_headers()
                    if body.get("model") == "drip":
                        for i in range(len(data)):
                            self.wfile.write(data[i : i + 1])
                            self.wfile.flush()
                            time.sleep(fake.drip_s)
                    else:
                        self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def reply(self, body: dict) -> tuple[int, dict, dict]:
        model = str(body.get("model", ""))
        query = next(
            (m.get("content") for m in reversed(body.get("messages", [])) if m.get("role") == "user"), ""
        )
        record = {
            "model": model,
            "query": query,
            "at": time.monotonic(),
            "body": body if self.keep_bodies else None,
        }
        with self._lock:
            seen = sum(r["model"] == model for r in self.requests) if model == "ratelimited" else 0
            self.requests.append(record)
            draw = self._random.random()
            jitter = 0.5 + self._random.random()
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
            (self.rival_answers if model == "rival" else self.answers).get(
                query, f"I am not sure about: {query}"
            ),
        )
        return (
            200,
            {},
            {
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": 12,
                    "completion_tokens": max(1, len(content.split())),
                    "total_tokens": 12 + max(1, len(content.split())),
                },
            },
        )

    def times(self, model: str) -> list[float]:
        return [r["at"] for r in self.requests if r["model"] == model]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


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
    for trying `sleuth collect` / `sleuth monitor` offline (see README, "A weekly audit")."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--answers",
        default="datasets/samples/queries.jsonl",
        help="query set whose expected answers it gives",
    )
    parser.add_argument("--port", type=int, default=8099)
    args = parser.parse_args()
    from modules.queries import load_query_set

    queries = load_query_set(args.answers).queries
    answers = {q.query: q.expected_answer or "" for q in queries}
    fake = FakeAssistant(answers, rival_answers=rival_answers(queries), port=args.port)
    print(
        f"fake assistant on {fake.base_url} (models: good, rival, refuse, empty, ratelimited, slow, denied, broken)",
        flush=True,
    )
    threading.Event().wait()


if __name__ == "__main__":
    main()
