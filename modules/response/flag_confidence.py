"""How likely a flagged wrong fact is really wrong: a small logistic model over what the flag is,
trained on the verdict sets' train splits and retired tests and checked on dev
(``evals/train_flag_confidence.py``).

The offline checks give each wrong fact a fixed confidence by the rule that found it (0.9 for a
claim stated otherwise, 0.8 for a value a page binds otherwise, ...). Measured, those figures
hold on the sets the rules were written on and not elsewhere: on answers about sites nobody tuned
for, a third of the flags are false alarms, mostly a value or a denial of another variant of the
same thing (another plan, another customer, the other clause of a compound sentence).
``feedback.contradictions[].confidence`` is the probability this model gives instead, from
features that do not name any site (:data:`FEATURES`):

- which check found the flag (its source, kind and sub-rule, the rule's own confidence);
- how much the statement and the evidence state of each other, in words and in MiniLM's cosine,
  and how much of the question each states;
- whether another sentence of the site states the statement better than the evidence does, with
  its polarity and no value against it (a value of another variant is usually stated somewhere);
- what the statement is: hedged, a list item or table row, negated, how long, how many values;
  whether it shares a value with the evidence;
- how long the answer is and how many other flags it has.

Below a threshold chosen for precision when the model is trained, a flag is not reported: a site
owner acts on each one. The weights and the threshold ship in ``checker/flag-confidence.json``
with what they were trained and measured on. The cosines read the MiniLM vectors the analysis
already holds (the answer's sentences, the claims, the question, the page chunks: nothing more is
encoded); with another encoder, or in the keyword fallback, they take their training mean, so
the other features decide.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from pathlib import Path

import numpy as np

from ..text import content_terms, split_sentences
from .facts import Value, compare_values, values
from .groundtruth import GroundTruth
from .schema import Contradiction
from .verdicts import LIST_ITEM, OPPOSITE_DETAIL, is_negated

WEIGHTS = Path(__file__).resolve().parent / "checker" / "flag-confidence.json"

_KINDS = ("money", "quantity", "number", "date", "entity", "negation", "scope")
FEATURES = (
    "from_claim",  # a claim or the expected answer states it otherwise (else a page sentence)
    *(f"kind_{k}" for k in _KINDS),  # what differs ("other" is none of these)
    "rule_confidence",  # the fixed confidence of the rule that found it
    "evidence_cover",  # share of the statement's content words that the evidence states
    "answer_length",  # log10 of the answer's characters
    "flags",  # how many wrong facts the answer has in all (log2 of 1 + n)
    "statement_cover",  # share of the evidence's content words that the statement states
    "site_support",  # the best share of the statement's words another page sentence states (same polarity, no rival value)
    "rule_affirmed",  # the sub-rule: the response affirms what the evidence denies
    "rule_negated",  # ... the response denies what the evidence affirms
    "rule_denied_name",  # ... the response affirms a name the site mentions only to deny it
    "rule_opposite",  # ... the closest page sentence denies what the response states (the last resort)
    "hedged",  # the statement hedges ("I think", "typically", "around")
    "list_item",  # the statement is a list item or a table row
    "statement_negated",  # the statement denies something
    "statement_words",  # log2 of 1 + the statement's content words
    "statement_values",  # log2 of 1 + the values the statement states
    "evidence_values",  # log2 of 1 + the values the evidence states
    "shared_value",  # the statement and the evidence state one value alike
    "unstated_value",  # share of the statement's values that no sentence of the site states (invented, not another variant's)
    "derived_value",  # the statement states a value worked out from others the answer states (a total, a sum)
    "query_in_statement",  # share of the question's content words the statement states
    "query_in_evidence",  # share of the question's content words the evidence states
    "cosine_evidence",  # MiniLM cosine of the statement's sentence and the evidence (claim or page chunk)
    "cosine_query",  # ... of the statement's sentence and the question
    "cosine_evidence_query",  # ... of the evidence and the question
)
#: the features that read MiniLM's vectors (their training mean without it)
COSINES = ("cosine_evidence", "cosine_query", "cosine_evidence_query")

_HEDGE = re.compile(
    r"\b(?:I\s+think|I\s+believe|typically|usually|generally|seems?|probably|likely|roughly|around|about|"
    r"approximately|may|might|could)\b",
    re.I,
)


@dataclass(frozen=True)
class SiteSentence:
    """A sentence of the site's pages as the support feature reads it."""

    text: str
    terms: frozenset[str]
    negated: bool
    chunk: int  # its chunk of the site's pages (``GroundTruth.chunks``)
    values: tuple[Value, ...] = ()


def site_sentences(gt: GroundTruth) -> tuple[SiteSentence, ...]:
    """Every sentence of a site's pages, with its chunk (the caller keeps it per version of them)."""
    return tuple(
        SiteSentence(s.text, frozenset(content_terms(s.text)), is_negated(s.text), i, tuple(values(s.text)))
        for i, chunk in enumerate(gt.chunks)
        for s in split_sentences(chunk.text)
    )


#: a flag's unit vectors: of the answer's sentence that holds it, of its evidence (the claim, or
#: the page chunk that holds the page sentence) and of the question; each None where unknown
FlagVectors = Callable[[Contradiction], tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]]


@dataclass(frozen=True)
class FlagContext:
    """What a flag is weighed against: its answer, the question, the site's sentences, and the
    MiniLM vectors the analysis already holds (None: the cosines take their training mean)."""

    response: str
    query: str = ""
    site: Sequence[SiteSentence] = ()
    vectors: FlagVectors | None = None


def _share(part: set[str], whole: set[str]) -> float:
    return len(part & whole) / len(whole) if whole else 0.0


def _site_support(statement: str, said: set[str], evidence: str, site: Sequence[SiteSentence]) -> float:
    negated = is_negated(statement)
    best = 0.0
    for s in site:
        if s.negated != negated or s.text == evidence:
            continue
        share = _share(said, s.terms)
        if share > best and compare_values(s.text, statement)[0] != "conflict":
            best = share
    return best


def _unstated(stated: Sequence[Value], site: Sequence[SiteSentence]) -> float:
    """The share of ``stated`` that no sentence of the site states: a value of another variant
    is on the site somewhere, an invented one is not (0 for a statement without values)."""
    if not stated or not site:
        return 0.0
    return sum(not any(u.equals(v) for s in site for u in s.values) for v in stated) / len(stated)


def _measure(value: Value) -> float | None:
    """A price as written (not per year), a quantity in its base unit."""
    return value.raw if value.kind == "money" and value.raw is not None else value.amount


def _derived(statement: str, response: str) -> float:
    """Whether a price or quantity of ``statement`` is worked out from others ``response``
    states: a sum of two or three, one times a count the statement gives, or that plus another
    ("£90.00 total (£40 adult + 2 × £25)", "€231 for 7 nights" after "€33 a night"). The
    answer's own arithmetic is no value the site states otherwise, whatever page sentence its
    total lands beside."""
    own = values(statement)
    stated = [v for v in own if v.kind in ("money", "quantity") and _measure(v)]
    if not stated:
        return 0.0
    counts = [
        n
        for v in own
        if v.kind in ("number", "quantity") and v.amount
        for n in ((v.amount if v.kind == "number" else v.amount / (v.factor or 1.0)),)
        if 1 < n <= 60 and n == int(n)
    ]
    answer = values(response)
    for v in stated:
        total = _measure(v)
        parts = [
            m
            for u in answer
            if u.same_kind(v) and u.unit == v.unit and not u.equals(v) and (m := _measure(u))
        ]
        parts = parts[:12]  # a long price list: the first dozen (the working sits beside the total)

        def near(x: float, total: float = total) -> bool:
            return abs(x - total) <= 0.005 * abs(total)

        if any(near(sum(c)) for r in (2, 3) for c in combinations(parts, r)):
            return 1.0
        if any(near(a * n) or any(near(a * n + b) for b in parts) for a in parts for n in counts):
            return 1.0
    return 0.0


def flag_features(flag: Contradiction, ctx: FlagContext, n_flags: int) -> list[float | None]:
    """The model's features of one wrong fact of ``ctx.response`` (which has ``n_flags`` in all);
    a cosine whose vectors are unknown is None (missing)."""
    statement, evidence, detail = flag.statement, flag.evidence, flag.detail or ""
    said, stated, asked = content_terms(statement), content_terms(evidence), content_terms(ctx.query)
    said_values, evidence_values = values(statement), values(evidence)
    v, e, q = ctx.vectors(flag) if ctx.vectors is not None else (None, None, None)
    cosines = [_cosine(v, e), _cosine(v, q), _cosine(e, q)]
    return [
        float(flag.source in ("claim", "expected_answer")),
        *(float(flag.kind == k) for k in _KINDS),
        float(flag.confidence),
        _share(said, stated),
        math.log10(1 + len(ctx.response)),
        math.log2(1 + n_flags),
        _share(stated, said),
        _site_support(statement, said, evidence, ctx.site),
        float(detail.startswith("affirmed")),
        float(detail.startswith("negated")),
        float(detail.startswith("the page denies")),
        float(detail == OPPOSITE_DETAIL),
        float(_HEDGE.search(statement) is not None),
        float(LIST_ITEM.match(statement) is not None),
        float(is_negated(statement)),
        math.log2(1 + len(said)),
        math.log2(1 + len(said_values)),
        math.log2(1 + len(evidence_values)),
        float(any(a.equals(b) for a in said_values for b in evidence_values)),
        _unstated(said_values, ctx.site),
        _derived(statement, ctx.response),
        _share(said, asked),
        _share(stated, asked),
        *cosines,
    ]


def flag_rows(flags: Sequence[Contradiction], ctx: FlagContext) -> list[list[float | None]]:
    """:func:`flag_features` of every flag of one answer."""
    return [flag_features(f, ctx, len(flags)) for f in flags]


def _cosine(a: np.ndarray | None, b: np.ndarray | None) -> float | None:
    return None if a is None or b is None else float(a @ b)


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

    def probabilities(self, rows: Sequence[Sequence[float | None]]) -> np.ndarray:
        """The probability of each row; a missing feature (None) takes its training mean."""
        if not len(rows):
            return np.zeros(0)
        x = np.array([[np.nan if f is None else f for f in r] for r in rows], dtype=float)
        x = np.where(np.isnan(x), self.mean, x)
        z = ((x - self.mean) / self.scale) @ self.weights + self.bias
        return 1.0 / (1.0 + np.exp(-z))

    def calibrated(self, flags: list[Contradiction], ctx: FlagContext) -> list[Contradiction]:
        """``flags`` with ``confidence`` the probability that each is right; analysts' own flags
        (source ``analyst``) keep theirs."""
        p = self.probabilities(flag_rows(flags, ctx))
        return [
            f if f.source == "analyst" else f.model_copy(update={"confidence": round(float(q), 3)})
            for f, q in zip(flags, p)
        ]

    def kept(
        self, flags: list[Contradiction], ctx: FlagContext, minimum: float | None = None
    ) -> list[Contradiction]:
        """:meth:`calibrated` ``flags`` at or above ``minimum`` (None: :attr:`threshold`); an
        analyst's flag is always kept. The probabilities are those of all ``flags``, as trained."""
        floor = self.threshold if minimum is None else minimum
        return [f for f in self.calibrated(flags, ctx) if f.source == "analyst" or f.confidence >= floor]


@cache
def shipped_flag_confidence() -> FlagConfidence | None:
    """The model shipped beside the checker, or None where it is absent (the rules' figures stand)."""
    return FlagConfidence() if WEIGHTS.exists() else None


__all__ = [
    "COSINES",
    "FEATURES",
    "FlagConfidence",
    "FlagContext",
    "FlagVectors",
    "SiteSentence",
    "flag_features",
    "flag_rows",
    "shipped_flag_confidence",
    "site_sentences",
]
