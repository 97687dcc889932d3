"""The runtime of sleuth's small trained heads (the claim checker, the relevance ranker): one
hidden ReLU layer over standardised features, in numpy, loaded from safetensors with no torch and
no hub access. Their training scripts (``evals.train_checker``, ``evals.train_ranker``) write the
same tensors: ``w1 b1 w2 b2 mean scale temperature``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


class SmallMLP:
    """features -> (x - mean) / scale -> ReLU(x w1 + b1) -> w2 + b2, logits divided by the
    fitted temperature. ``card`` is the ``card.json`` written beside the weights (data, metrics)."""

    def __init__(self, path: Path):
        from safetensors.numpy import load_file

        weights = load_file(str(path))
        self.w1, self.b1 = weights["w1"], weights["b1"]
        self.w2, self.b2 = weights["w2"], weights["b2"]
        self.mean, self.scale = weights["mean"], weights["scale"]
        self.temperature = float(weights["temperature"][0])
        card = Path(path).parent / "card.json"
        self.card = json.loads(card.read_text()) if card.exists() else {}
        self.version = self.card.get("version", Path(path).stem)

    def logits(self, features: np.ndarray) -> np.ndarray:
        """Calibrated logits: (n, outputs)."""
        x = (np.asarray(features, np.float32) - self.mean) / self.scale
        h = np.maximum(x @ self.w1 + self.b1, 0.0)
        return (h @ self.w2 + self.b2) / self.temperature
