"""The trained claim checker: does a page sentence support, contradict or say nothing of an answer
sentence?

A small network on frozen MiniLM pair features (``u * v`` and ``|u - v|`` of the two sentence
vectors) and the offline checks' own readings of the pair (the typed values agree or conflict,
one side is negated, the answer hedges, declines, speaks of the market in general or is a
citation line, names the page does not). It reads what cosine misses (a sentence about another
variant of the same thing; a hedge that is no denial) and leaves exact values to the rules,
which it takes as features. Trained by ``python -m evals.train_checker`` (fixed seed, ~2 min on
2 cores; the model card is ``checker/MODEL_CARD.md``); runs in numpy, offline, in microseconds a
pair once the sentences are encoded.

With ``feedback.checker`` on, the analyzer asks it about each wrong fact the rules find against
the pages: the probability that the page contradicts the answer is the fact's ``confidence``,
and a fact below ``feedback.checker_threshold`` is not reported. It is off by default: on the
realistic dev sets it separates the rules' true wrong facts from their false ones barely better
than chance (AUC 0.60) and, as a filter, drops more true ones than false ones (docs/evaluation-history.md, "The claim checker").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..embeddings import BUNDLED
from ..mlp import SmallMLP
from ..text import content_terms
from .facts import compare_values
from .refusal import is_refusal
from .verdicts import HEADING, UNSURE, WEB_ADDRESS, is_negated

HOME = Path(__file__).resolve().parent / "checker"
WEIGHTS = HOME / "claim-checker.safetensors"
LABELS = ("supports", "contradicts", "neither")

#: "Most password managers offer a free tier", "A lot of island ferries discount returns", "UK
#: practice plans range from £10 to £30", "Climbing walls in the UK typically charge £10 to £16":
#: a statement about the market, not the site
_GENERAL = re.compile(
    r"^\W*(?:most|many|several|other|some|a\s+lot\s+of|lots\s+of|plenty\s+of)\s+(?!of\b)[a-z]"
    r"|\b(?:in|across) the industry\b|\bon the market\b"
    r"|(?:^\W*(?-i:UK|US|British|American|European)\s+(?:[a-z]+\s+){0,2}[a-z]+s\s|\b(?:in|across) the (?-i:UK|US|USA)\b)"
    r"[^.;]*\b(?:range|ranges|typically|usually|generally|tend to|often|on average)\b",
    re.I,
)
#: "[1] https://...", "Sources: pricing page": a citation line states nothing
_CITATION = re.compile(r"^\W*(?:\[\d+\]\s*(?:https?://|[\w-]+\.\w+/)|sources?\s*:|references?\s*:)", re.I)
_NAME = re.compile(r"\b[A-Z][a-zA-Z0-9]+(?:-\d\w*)?\b")
N_RULE_FEATURES = 14


def is_general(text: str, brands: Sequence[str] = ()) -> bool:
    """A statement about the market or products in general ("Most note apps ..."), naming none
    of the site's ``brands``."""
    low = text.lower()
    return _GENERAL.search(text) is not None and not any(b.lower() in low for b in brands if b)


def is_citation(text: str) -> bool:
    """A citation line ("[1] https://...", "Sources: ...") or a bare URL."""
    if _CITATION.search(text):
        return True
    return bool(WEB_ADDRESS.search(text)) and len(re.findall(r"[A-Za-z]{3,}", WEB_ADDRESS.sub("", text))) < 2


def not_a_statement(text: str, brands: Sequence[str] = ()) -> bool:
    """A sentence that states nothing about the site: a hedge that declines ("I can't confirm
    ..."), a refusal, a general statement about the market, a citation line or a heading; never a
    wrong fact."""
    return (
        is_citation(text)
        or is_general(text, brands)
        or is_refusal(text)
        or UNSURE.search(text) is not None
        or HEADING.match(text) is not None
    )


def rule_features(premise: str, hypothesis: str) -> np.ndarray:
    """The offline checks' readings of the pair (page sentence, answer sentence)."""
    verdict, _ = compare_values(premise, hypothesis)
    back, _ = compare_values(hypothesis, premise)
    p_terms, h_terms = content_terms(premise), content_terms(hypothesis)
    common = len(p_terms & h_terms)
    p_names = {m.group() for m in _NAME.finditer(premise)}
    h_names = {m.group() for m in _NAME.finditer(hypothesis[1:])}  # the first word is capitalised anyway
    return np.array(
        [
            verdict == "agree" and back == "agree",
            "conflict" in (verdict, back),
            verdict == "absent" and back == "absent",
            is_negated(premise) != is_negated(hypothesis),
            UNSURE.search(hypothesis) is not None,
            is_refusal(hypothesis),
            is_general(hypothesis),
            is_citation(hypothesis),
            common / len(h_terms) if h_terms else 0.0,
            common / len(p_terms) if p_terms else 0.0,
            len(h_names - p_names) / len(h_names) if h_names else 0.0,
            min(len(hypothesis), 400) / 400,
            min(len(premise), 400) / 400,
            1.0,  # bias of the rule block
        ],
        dtype=np.float32,
    )


def pair_features(u: np.ndarray, v: np.ndarray, premises, hypotheses) -> np.ndarray:
    """Rows of [u * v, |u - v|, cos, rule features] for unit vectors ``u`` (premises) and ``v``."""
    u, v = np.atleast_2d(u).astype(np.float32), np.atleast_2d(v).astype(np.float32)
    rules = np.stack([rule_features(p, h) for p, h in zip(premises, hypotheses)]) if len(u) else None
    cos = np.sum(u * v, axis=1, keepdims=True)
    if rules is None:
        return np.zeros((0, 2 * u.shape[1] + 1 + N_RULE_FEATURES), np.float32)
    return np.concatenate([u * v, np.abs(u - v), cos, rules], axis=1)


class ClaimChecker(SmallMLP):
    """The shipped checker: :meth:`probabilities` of supports / contradicts / neither per pair."""

    def __init__(self, path: Path = WEIGHTS):
        super().__init__(path)

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """(n, 3) calibrated probabilities in :data:`LABELS` order."""
        if not len(features):
            return np.zeros((0, 3), np.float32)
        z = self.logits(features)
        z = np.exp(z - z.max(axis=1, keepdims=True))
        return z / z.sum(axis=1, keepdims=True)

    def contradicts(self, u: np.ndarray, v: np.ndarray, premises, hypotheses) -> np.ndarray:
        """P(the premise contradicts the hypothesis), per pair."""
        return self.probabilities(pair_features(u, v, premises, hypotheses))[:, 1]


#: the embedding the checker's features were trained on
EMBEDDING = BUNDLED


@lru_cache(maxsize=1)
def shipped_checker() -> ClaimChecker | None:
    """The checker shipped with sleuth, or None where its weights are absent (then the rules
    alone decide)."""
    return ClaimChecker() if WEIGHTS.exists() else None


def checker_for(enabled: bool, embedding_model: str) -> ClaimChecker | None:
    """The checker a run uses: the shipped one when ``feedback.checker`` is on and the answers
    are encoded with the embedding it was trained on; else none (the rules alone decide)."""
    return shipped_checker() if enabled and embedding_model == EMBEDDING else None


__all__ = [
    "EMBEDDING",
    "LABELS",
    "ClaimChecker",
    "checker_for",
    "is_citation",
    "is_general",
    "not_a_statement",
    "pair_features",
    "shipped_checker",
]
