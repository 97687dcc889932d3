"""Test doubles shipped with the package, as DSPy ships ``DummyLM``: local OpenAI-compatible
servers on 127.0.0.1 that tests, benchmarks and demos drive through the real clients.

``FakeLM`` answers sleuth's DSPy nodes (or misbehaves on purpose); ``FakeAssistant`` plays the AI
providers that ``collect`` and ``monitor`` ask, including their citation formats. Run the
assistant on its own with ``python -m modules.testing --port 8099``. ``LoopbackServer`` is the
HTTP server under both, for tests that stand up a site or an API of their own.
"""

from .analyses import scored_answers
from .fake_assistant import FakeAssistant, rival_answers
from .fake_lm import (
    BAD_CITATION,
    GOOD_CITATION,
    FakeLM,
    node_of,
    output_fields,
    prompt_tokens,
    reply_cap,
)
from .loopback import LoopbackServer, Reply, Request

__all__ = [
    "BAD_CITATION",
    "GOOD_CITATION",
    "FakeAssistant",
    "FakeLM",
    "LoopbackServer",
    "Reply",
    "Request",
    "node_of",
    "output_fields",
    "prompt_tokens",
    "reply_cap",
    "scored_answers",
    "rival_answers",
]
