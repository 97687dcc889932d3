"""Which candidate span answers the question: a small logistic model over what the answerer
reads around each candidate, trained on research questions' train parts (``evals/train_spans.py``).

The answerer (:mod:`modules.research.answer`) finds the candidates of the asked kind in the facts
and reads, for each, how much of the question its sentence states, the question's words next to
it, whether its page is on the question's path (named by the question, or reached from such a
page), whether it is the object of the question's verb, names the asked class or counts the
asked thing, and more (:data:`FEATURES`). A hand-set sum of those readings picked the answer
before; this model weighs them as the training questions show, and the answerer takes the
candidate it rates highest. The readings do not name any question.

The weights ship in ``spans.json`` beside this module, with what they were trained on; without
that file the hand-set sum decides.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path

import numpy as np

WEIGHTS = Path(__file__).with_name("spans.json")

FEATURES = (
    "score",  # the hand-set sum of the readings below (0.1 per point)
    "shared",  # the question's words the sentence (and its page's title) states
    "local",  # the question's words next to the candidate
    "on_path",  # its page is on the question's path (named by the question or reached from one)
    "anchor",  # its page is about a thing the question names
    "hop",  # its page is reached through a page the question names
    "stated",  # the object of the question's own verb
    "asked_class",  # it names the asked class or counts the asked thing ("Bass Strait" for "which strait")
    "page_subject",  # it is its page's own subject
    "typed_subject",  # its page's subject is of the asked class ("... is a British ... bomber")
    "order",  # the fact's place among the facts (kept facts first), 0-1
    "question_words",  # share of its words the question writes
    "pages_stating",  # distinct pages whose facts state it, 0-1 (3 or more: 1)
    "focus_near",  # closeness of the nearest word of the question's wh-phrase in its sentence, 0-1
    "length",  # its words, 0-1 (6 or more: 1)
)


class SpanModel:
    """The fitted model: standardised features, one weight each and a bias."""

    def __init__(self, spec: Mapping):
        if tuple(spec["features"]) != FEATURES:
            raise ValueError(
                f"{WEIGHTS.name} was trained on other features; rerun python -m evals.train_spans"
            )
        self.version: str = spec["version"]
        self.mean = np.asarray(spec["mean"], dtype=float)
        self.scale = np.asarray(spec["scale"], dtype=float)
        self.weights = np.asarray(spec["weights"], dtype=float)
        self.bias = float(spec["bias"])

    def scores(self, rows: Sequence[Mapping[str, float]]) -> np.ndarray:
        """Each candidate's log-odds of being the answer."""
        if not rows:
            return np.zeros(0)
        x = np.asarray([[row[name] for name in FEATURES] for row in rows], dtype=float)
        return ((x - self.mean) / self.scale) @ self.weights + self.bias


@cache
def shipped() -> SpanModel | None:
    """The model trained by ``evals/train_spans.py``, or None where none ships."""
    return SpanModel(json.loads(WEIGHTS.read_text())) if WEIGHTS.exists() else None
