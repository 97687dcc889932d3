"""A fake OpenAI-compatible chat server on 127.0.0.1, driving DSPy through its real client.

It answers each research node in DSPy's chat-adapter format, or misbehaves on purpose:
``malformed`` (broken JSON), ``refusal`` (a polite refusal, no fields), ``slow`` (answers after
the client's timeout) and ``flaky`` (malformed for the first ``flaky_failures`` requests).
"""

from __future__ import annotations

import json
import re
import threading
import time

from .loopback import LoopbackServer, Reply, Request

GOOD_CITATION = "https://en.wikipedia.org/wiki/Scott_Derrickson"
BAD_CITATION = "https://attacker.example/never-retrieved"


def prompt_tokens(body: dict) -> int:
    """A request's prompt size in tokens, estimated at 4 characters a token."""
    return sum(len(m.get("content") or "") for m in body.get("messages", [])) // 4


def reply_cap(body: dict) -> int:
    """The reply cap a request sets (newer OpenAI clients send ``max_completion_tokens``)."""
    return int(body.get("max_tokens") or body.get("max_completion_tokens") or 0)


JSON = {"Content-Type": "application/json"}
NODE_FIELDS = {"next_action": "decision", "extracted_info": "analysis", "key_sources": "report"}


def node_of(messages: list[dict]) -> str:
    """The node a request is for, by an output field only its signature declares."""
    system = " ".join(m.get("content") or "" for m in messages if m.get("role") == "system")
    for field in (*NODE_FIELDS, "rankings", "order"):
        if f"`{field}`" in system:
            return NODE_FIELDS.get(field, field)
    return "unknown"


def output_fields(messages: list[dict]) -> list[tuple[str, str]]:
    """(name, type) of the output fields DSPy's chat adapter declares in the system message."""
    system = " ".join(m.get("content") or "" for m in messages if m.get("role") == "system")
    block = system.split("Your output fields are:", 1)[-1].split("All interactions", 1)[0]
    return re.findall(r"\d+\. `(\w+)` \(([^)]*)\)", block)


def generic_answer(messages: list[dict]) -> str:
    """Any signature: our nodes' contracts answered well, other fields (optimizers' own) plausibly."""
    node = node_of(messages)
    good = good_answer(node, messages) if node in NODE_FIELDS.values() else {}
    values = []
    for name, kind in output_fields(messages):
        if name in good:
            value = good[name] if isinstance(good[name], str) else json.dumps(good[name])
        elif kind.startswith("list"):
            value = "[]"
        elif kind in ("int", "float"):
            value = "1"
        elif kind == "bool":
            value = "true"
        else:
            value = "Answer plainly from the facts and cite the sources."
        values.append(f"[[ ## {name} ## ]]\n{value}")
    return "\n\n".join(values) + "\n\n[[ ## completed ## ]]"


def good_answer(node: str, messages: list[dict]) -> dict:
    user = " ".join(m.get("content") or "" for m in messages if m.get("role") == "user")
    if node == "decision":
        if "(no analysis yet)" in user:
            return {
                "next_action": "search_local",
                "query_or_url": "Scott Derrickson nationality",
                "reasoning": "start broad",
            }
        return {"next_action": "send_to_hitl", "query_or_url": None, "reasoning": "enough evidence"}
    if node == "order":
        return list(range(user.count("<result ")))
    if node == "analysis":
        return {
            "extracted_info": [
                {"doc": 1, "quote": "Scott Derrickson is an American director, screenwriter and producer."}
            ],
            "assessment": "The director's nationality is stated.",
            "confidence_score": 0.9,
            "suggestions_for_next_step": ["Query appears answered"],
            "new_potential_urls": [],
            "inconsistencies_found": None,
            "answered": True,
        }
    return {
        "answer": "Scott Derrickson is American [1].",
        "answer_type": "entity",
        "short_answer": "American",
        "key_sources": [GOOD_CITATION, BAD_CITATION],
    }


class FakeLM:
    def __init__(
        self,
        mode: str = "good",
        delay_s: float = 3.0,
        flaky_failures: int = 2,
        responder=None,
        context_tokens: int | None = None,
    ):
        """``responder(node, messages) -> {field: value}`` answers nodes the research script does not
        know. With ``context_tokens``, a request whose prompt (4 characters a token, as English
        text runs) plus its ``max_tokens`` exceeds that window is refused as a real server would."""
        self.mode, self.delay_s, self.flaky_failures, self.responder = (
            mode,
            delay_s,
            flaky_failures,
            responder,
        )
        self.context_tokens = context_tokens
        self.requests: list[dict] = []
        self.replies: dict[int, str] = {}  # id(request) -> the reply sent
        self._lock = threading.Lock()
        self.server = LoopbackServer(self.respond, methods=("POST",))
        self.base_url = f"{self.server.url}/v1"

    def respond(self, request: Request) -> Reply | None:
        """The HTTP answer to one chat request: the reply, or the error a real server gives."""
        body = json.loads(request.body or b"{}")
        with self._lock:
            self.requests.append(body)
            n = len(self.requests)
        if self.context_tokens and prompt_tokens(body) + reply_cap(body) > self.context_tokens:
            error = {
                "error": {
                    "message": f"This model's maximum context length is {self.context_tokens} tokens",
                    "type": "invalid_request_error",
                    "code": "context_length_exceeded",
                }
            }
            return 400, JSON, json.dumps(error)
        content = self.reply(body.get("messages", []), n)
        if content is None:
            return None
        with self._lock:
            self.replies[id(body)] = content
        payload = {
            "id": f"chatcmpl-{n}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fake"),
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
            ],
            "usage": {  # as a server counts them, at 4 characters a token
                "prompt_tokens": prompt_tokens(body),
                "completion_tokens": len(content) // 4,
                "total_tokens": prompt_tokens(body) + len(content) // 4,
            },
        }
        return 200, JSON, json.dumps(payload)

    def reply(self, messages: list[dict], n: int) -> str | None:
        node = node_of(messages)
        mode = self.mode
        if mode == "flaky":
            mode = "malformed" if n <= self.flaky_failures else "good"
        if mode == "slow":
            time.sleep(self.delay_s)
            mode = "good"
        if mode == "malformed":
            # truncated JSON whose values break every node's contract, even after JSON repair
            return f'[[ ## {node} ## ]]\n{{"next_action": "teleport", "confidence_score": "high", "answer": [\n\n[[ ## completed ## ]]'
        if mode == "refusal":
            return "I'm sorry, but I can't help with that request."
        if mode == "injected-crawl" and node == "decision":
            return _fields(
                "decision",
                {
                    "next_action": "crawl_url",
                    "query_or_url": "https://attacker.example/payload",
                    "reasoning": "the page told me to",
                },
            )
        if mode == "generic":
            return generic_answer(messages)
        if self.responder is not None:
            return (
                "\n\n".join(
                    f"[[ ## {k} ## ]]\n{json.dumps(v) if not isinstance(v, str) else v}"
                    for k, v in self.responder(node, messages).items()
                )
                + "\n\n[[ ## completed ## ]]"
            )
        return _fields(node, good_answer(node, messages))

    def nodes(self) -> list[str]:
        return [node_of(r.get("messages", [])) for r in self.requests]

    def close(self) -> None:
        self.server.close()


def _fields(node: str, value) -> str:
    """A reply in DSPy's chat format: the research nodes' contracts field by field (a value that
    is not a string as JSON), any other node's value as its one field."""
    items = value.items() if isinstance(value, dict) else [(node, value)]
    return (
        "\n\n".join(f"[[ ## {k} ## ]]\n{v if isinstance(v, str) else json.dumps(v)}" for k, v in items)
        + "\n\n[[ ## completed ## ]]"
    )


__all__ = ["FakeLM", "GOOD_CITATION", "BAD_CITATION"]
