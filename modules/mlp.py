"""The runtime of sleuth's small trained heads (the claim checker, the relevance ranker): one
hidden ReLU layer over standardised features, in numpy, loaded from safetensors with no torch and
no hub access. Their training scripts (``evals.train_checker``, ``evals.train_ranker``) write the
same tensors: ``w1 b1 w2 b2 mean scale temperature``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def forward(params: dict, features: np.ndarray) -> np.ndarray:
    """Uncalibrated logits (n, outputs) of ``params`` (``w1 b1 w2 b2 mean scale``) on ``features``:
    the runtime and the training scripts' held-out scoring share it."""
    x = (np.asarray(features, np.float32) - params["mean"]) / params["scale"]
    return np.maximum(x @ params["w1"] + params["b1"], 0.0) @ params["w2"] + params["b2"]


class SmallMLP:
    """features -> (x - mean) / scale -> ReLU(x w1 + b1) -> w2 + b2, logits divided by the
    fitted temperature. ``card`` is the ``card.json`` written beside the weights (data, metrics)."""

    def __init__(self, path: Path):
        from safetensors.numpy import load_file

        self.params = load_file(str(path))
        self.temperature = float(self.params["temperature"][0])
        card = Path(path).parent / "card.json"
        self.card = json.loads(card.read_text()) if card.exists() else {}
        self.version = self.card.get("version", Path(path).stem)

    @property
    def n_features(self) -> int:
        return self.params["w1"].shape[0]

    @property
    def mean(self) -> np.ndarray:
        return self.params["mean"]

    @property
    def scale(self) -> np.ndarray:
        return self.params["scale"]

    def logits(self, features: np.ndarray) -> np.ndarray:
        """Calibrated logits: (n, outputs)."""
        return forward(self.params, features) / self.temperature
