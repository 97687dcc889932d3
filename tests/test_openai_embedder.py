"""OpenAI embeddings through the real client against a fake server on loopback."""

import json

import numpy as np
import pytest

from modules.embeddings import EmbeddingError, OpenAIEmbedder, encode_with_retry
from modules.testing import LoopbackServer


def _embeddings(body):
    """An embeddings answer: each input's vector by its length, listed in reverse index order."""
    data = [
        {"object": "embedding", "index": i, "embedding": [float(len(t)), 1.0, 0.0]}
        for i, t in enumerate(body["input"])
    ]
    return {
        "object": "list",
        "data": list(reversed(data)),
        "model": body["model"],
        "usage": {"prompt_tokens": 1, "total_tokens": 1},
    }


@pytest.fixture
def server(monkeypatch):
    """The requests the fake embeddings server got: (path, body)."""
    requests = []

    def respond(request):
        body = json.loads(request.body)
        requests.append((request.path, body))
        return 200, {"Content-Type": "application/json"}, json.dumps(_embeddings(body))

    with LoopbackServer(respond, methods=("POST",)) as httpd:
        monkeypatch.setenv("OPENAI_BASE_URL", f"{httpd.url}/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        yield requests


def test_openai_embeddings_in_order_and_normalised(server):
    vectors = OpenAIEmbedder("text-embedding-3-small", batch_size=2).encode(["a", "bbb", "cc"])
    assert vectors.shape == (3, 3)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1)
    assert vectors[1, 0] > vectors[2, 0] > vectors[0, 0]  # index order restored
    assert [p for p, _ in server] == ["/v1/embeddings", "/v1/embeddings"]
    assert server[0][1]["model"] == "text-embedding-3-small"


def test_missing_key_is_clear(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(EmbeddingError, match="OPENAI_API_KEY"):
        encode_with_retry(OpenAIEmbedder(), ["x"], retries=0)
