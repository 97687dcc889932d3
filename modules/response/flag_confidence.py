"""How likely a flagged wrong fact is really wrong: a small logistic model over what the flag is,
trained on the verdict sets' train splits and checked on dev (``evals/train_flag_confidence.py``).

The offline checks give each wrong fact a fixed confidence by the rule that found it (0.9 for a
claim stated otherwise, 0.8 for a value a page binds otherwise, ...). Measured, those figures
hold on the sets the rules were written on and not elsewhere: on answers about sites nobody tuned
for, fewer than half of the flags are right. ``feedback.contradictions[].confidence`` is the
probability this model gives instead, from features that do not name any site: which check found
the flag (its source and kind, the rule's own confidence), how much of the flagged statement the
evidence states, how long the answer is and how many other flags it has (a long, listy answer
compared sentence by sentence is where values of another variant are read as wrong).

Below a threshold chosen for precision when the model is trained, a flag is not reported:
on answers about sites nobody tuned for, a third or more of the rules' flags are false alarms,
and a site owner acts on each one. The weights and the threshold ship in
``checker/flag-confidence.json`` with what they were trained and measured on.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import numpy as np

from ..text import content_terms
from .schema import Contradiction

WEIGHTS = Path(__file__).resolve().parent / "checker" / "flag-confidence.json"

_KINDS = ("money", "quantity", "number", "date", "entity", "negation")
FEATURES = (
    "from_claim",  # a claim or the expected answer states it otherwise (else a page sentence)
    *(f"kind_{k}" for k in _KINDS),  # what differs ("other" is none of these)
    "rule_confidence",  # the fixed confidence of the rule that found it
    "evidence_cover",  # share of the statement's content words that the evidence states
    "answer_length",  # log10 of the answer's characters
    "flags",  # how many wrong facts the answer has in all (log2 of 1 + n)
)


def flag_features(flag: Contradiction, response: str, n_flags: int) -> list[float]:
    """The model's features of one wrong fact of ``response`` (which has ``n_flags`` in all)."""
    said = content_terms(flag.statement)
    cover = len(said & content_terms(flag.evidence)) / len(said) if said else 0.0
    return [
        float(flag.source in ("claim", "expected_answer")),
        *(float(flag.kind == k) for k in _KINDS),
        float(flag.confidence),
        cover,
        math.log10(1 + len(response)),
        math.log2(1 + n_flags),
    ]


class FlagConfidence:
    """The fitted model: standardised features, one weight each and a bias."""

    def __init__(self, path: Path = WEIGHTS):
        spec = json.loads(path.read_text())
        if tuple(spec["features"]) != FEATURES:
            raise ValueError(
                f"{path}: trained on other features; rerun python -m evals.train_flag_confidence"
            )
        self.version: str = spec["version"]
        self.mean = np.asarray(spec["mean"], dtype=float)
        self.scale = np.asarray(spec["scale"], dtype=float)
        self.weights = np.asarray(spec["weights"], dtype=float)
        self.bias = float(spec["bias"])
        #: below this probability a flag is not reported (chosen for precision by the trainer)
        self.threshold = float(spec.get("threshold", 0.0))

    def probabilities(self, rows: Sequence[Sequence[float]]) -> np.ndarray:
        if not len(rows):
            return np.zeros(0)
        z = ((np.asarray(rows, dtype=float) - self.mean) / self.scale) @ self.weights + self.bias
        return 1.0 / (1.0 + np.exp(-z))

    def calibrated(self, flags: list[Contradiction], response: str) -> list[Contradiction]:
        """``flags`` with ``confidence`` the probability that each is right; analysts' own flags
        (source ``analyst``) keep theirs."""
        rows = [flag_features(f, response, len(flags)) for f in flags]
        p = self.probabilities(rows)
        return [
            f if f.source == "analyst" else f.model_copy(update={"confidence": round(float(q), 3)})
            for f, q in zip(flags, p)
        ]

    def kept(
        self, flags: list[Contradiction], response: str, minimum: float | None = None
    ) -> list[Contradiction]:
        """:meth:`calibrated` ``flags`` at or above ``minimum`` (None: :attr:`threshold`); an
        analyst's flag is always kept. The probabilities are those of all ``flags``, as trained."""
        floor = self.threshold if minimum is None else minimum
        return [f for f in self.calibrated(flags, response) if f.source == "analyst" or f.confidence >= floor]


@cache
def shipped_flag_confidence() -> FlagConfidence | None:
    """The model shipped beside the checker, or None where it is absent (the rules' figures stand)."""
    return FlagConfidence() if WEIGHTS.exists() else None


__all__ = ["FEATURES", "FlagConfidence", "flag_features", "shipped_flag_confidence"]
