"""A BERT sentence encoder in plain torch, for sentence-transformers models of the usual layout
(BERT, mean pooling, unit vectors: all-MiniLM-L6-v2, the bundled model).

Why: importing sentence-transformers pulls transformers, scikit-learn and scipy, about 6 s of a
command that needs 2 s of encoding; this loads the same weights with ``tokenizers`` and
``safetensors`` and computes the same vectors (``tests/test_encoder.py`` compares them) in about
1.5 s, torch included. Models of any other layout are left to sentence-transformers
(:func:`load_bert_encoder` returns None for them).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

_MODULES = [
    "sentence_transformers.models.Transformer",
    "sentence_transformers.models.Pooling",
    "sentence_transformers.models.Normalize",
]


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def load_bert_encoder(path: str | Path) -> BertEncoder | None:
    """The encoder of the model folder ``path``, or None when it is not a local BERT
    sentence-transformers model with mean pooling and normalisation (or lacks a ``tokenizer.json``
    or ``model.safetensors``)."""
    root = Path(path)
    modules = _read_json(root / "modules.json") if (root / "modules.json").is_file() else None
    if not isinstance(modules, list) or [m.get("type") for m in modules] != _MODULES:
        return None
    config = _read_json(root / "config.json")
    pooling = _read_json(root / (modules[1].get("path") or "1_Pooling") / "config.json")
    mean_only = pooling.get("pooling_mode_mean_tokens") and not any(
        v for k, v in pooling.items() if k.startswith("pooling_mode_") and k != "pooling_mode_mean_tokens"
    )
    if (
        config.get("model_type") != "bert"
        or config.get("hidden_act") != "gelu"
        or config.get("position_embedding_type", "absolute") != "absolute"
        or not mean_only
        or not (root / "tokenizer.json").is_file()
        or not (root / "model.safetensors").is_file()
    ):
        return None
    return BertEncoder(root, config, _read_json(root / "sentence_bert_config.json").get("max_seq_length"))


class BertEncoder:
    """Tokenise (truncated to the model's ``max_seq_length``), run BERT, mean-pool the tokens,
    normalise. CPU, inference only."""

    def __init__(self, root: Path, config: dict, max_seq_length: int | None):
        import torch
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        self.max_length = int(max_seq_length or config.get("max_position_embeddings", 512))
        self.tokenizer = Tokenizer.from_file(str(root / "tokenizer.json"))
        self.tokenizer.enable_truncation(self.max_length)
        pad_id = int(config.get("pad_token_id") or 0)
        self.tokenizer.enable_padding(pad_id=pad_id, pad_token=self.tokenizer.id_to_token(pad_id) or "[PAD]")
        weights = load_file(str(root / "model.safetensors"))
        self.w = {k.removeprefix("bert."): v.float() for k, v in weights.items()}
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.torch = torch

    def _layer_norm(self, x, name: str):
        f = self.torch.nn.functional
        return f.layer_norm(x, x.shape[-1:], self.w[name + ".weight"], self.w[name + ".bias"], self.eps)

    def _linear(self, x, name: str):
        return self.torch.nn.functional.linear(x, self.w[name + ".weight"], self.w[name + ".bias"])

    def _forward(self, ids, types, mask):
        torch, f, w = self.torch, self.torch.nn.functional, self.w
        n, length = ids.shape
        positions = torch.arange(length).unsqueeze(0)
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][positions]
            + w["embeddings.token_type_embeddings.weight"][types]
        )
        x = self._layer_norm(x, "embeddings.LayerNorm")
        head_dim = x.shape[-1] // self.heads
        attend = mask[:, None, None, :].bool()
        for i in range(self.layers):
            p = f"encoder.layer.{i}."

            def split(t):
                return t.view(n, length, self.heads, head_dim).transpose(1, 2)

            q, k, v = (split(self._linear(x, p + f"attention.self.{m}")) for m in ("query", "key", "value"))
            context = f.scaled_dot_product_attention(q, k, v, attn_mask=attend)
            context = context.transpose(1, 2).reshape(n, length, -1)
            x = self._layer_norm(
                x + self._linear(context, p + "attention.output.dense"), p + "attention.output.LayerNorm"
            )
            hidden = f.gelu(self._linear(x, p + "intermediate.dense"))
            x = self._layer_norm(x + self._linear(hidden, p + "output.dense"), p + "output.LayerNorm")
        m = mask.unsqueeze(-1).to(x.dtype)
        pooled = (x * m).sum(1) / m.sum(1).clamp(min=1e-9)
        return f.normalize(pooled, p=2, dim=1)

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """Unit vectors, ``(len(texts), hidden size)`` float32; batches of similar lengths (less
        padding), returned in the order given."""
        torch = self.torch
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out = np.zeros((len(texts), self.w["embeddings.word_embeddings.weight"].shape[1]), np.float32)
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                chunk = order[start : start + batch_size]
                enc = self.tokenizer.encode_batch([texts[i] for i in chunk])
                ids = torch.tensor([e.ids for e in enc])
                types = torch.tensor([e.type_ids for e in enc])
                mask = torch.tensor([e.attention_mask for e in enc])
                out[chunk] = self._forward(ids, types, mask).numpy()
        return out
