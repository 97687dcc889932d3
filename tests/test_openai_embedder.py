"""OpenAI embeddings through the real client against a fake server on loopback."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from modules.embeddings import EmbeddingError, OpenAIEmbedder, encode_with_retry


class _Handler(BaseHTTPRequestHandler):
    requests: list = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.requests.append((self.path, body))
        data = [
            {"object": "embedding", "index": i, "embedding": [float(len(t)), 1.0, 0.0]}
            for i, t in enumerate(body["input"])
        ]
        payload = json.dumps(
            {
                "object": "list",
                "data": list(reversed(data)),
                "model": body["model"],
                "usage": {"prompt_tokens": 1, "total_tokens": 1},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


@pytest.fixture
def server(monkeypatch):
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{httpd.server_port}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    yield _Handler.requests
    httpd.shutdown()


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
