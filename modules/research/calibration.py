"""How likely a report's short answer is right: a small logistic model over what the evidence says
about the answer, trained on the train questions and checked on dev (``evals/train_calibrator.py``).

The answerer's own score says how much of the question a sentence states around a candidate; it
does not say whether the candidate is of the asked kind ("What gas ..." answered with a plant
genus), whether other sources state it, or whether the research reached the page the question's
bridge leads to. Each of those is a feature here, computed the same way for the offline
answerer's short answer and for a model's (the LM's answer gets no credit the offline checks do
not give it). The probability is the report's ``confidence``; :func:`qualified` withholds a
short answer more likely wrong than right and marks the rest as trusted or not.

The weights ship in ``calibrator.json`` beside this module, with what they were trained on.
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..embeddings import Embedder
from ..text import content_terms, words
from .answer import Answer, Evidence
from .question import plural_head, read_question
from .ranking import AnswerRankerWeights, candidate_features, norm, shipped_ranker, states, type_fits
from .schema import Report

WEIGHTS = Path(__file__).with_name("calibrator.json")
#: a short answer at or above this confidence is trusted: the report's status is "answered"
TRUSTED = 0.8
#: below this a short answer is more likely wrong than right: withheld, named as a lead only
WITHHELD_BELOW = 0.5
#: candidates beside the report's answer that the calibrator's training rates as negatives
CANDIDATES = 16

FEATURES = (
    "binary",  # a yes/no or a choice between two named options
    "typed",  # a date, year or number is asked
    "named",  # a person or a place is asked (else a thing: the widest kind)
    "offline_agrees",  # the offline answerer gives the same short answer from the same facts
    "binary_agrees",  # both: the answerer's own verdict on a yes/no or a choice (seldom wrong)
    "strength",  # how much of the question the answerer's sentence states around it (0-1)
    "bridged",  # the answer's page is past the question's bridge
    "anchored",  # a page about a thing the question names was read
    "sources_stating",  # distinct pages stating the answer (or each side of a comparison), 0-1
    "type_fit",  # the answer is of the asked kind (a date for "when", a gas for "what gas")
    "question_overlap",  # share of the question's words (its names aside) in the best sentence
    "names_in_support",  # share of the question's named things the supporting sentences name
    "handover_agrees",  # the answer the research stopped on is this one
    "conflicts",  # memory holds statements from different sources that disagree
    "answer_words",  # the answer's length (long spans are seldom exactly right), 0-1
    "local_relation",  # share of the question's words next to the answer where a fact states it
    "hop_page",  # a fact stating it is on a page reached through another page, not named by the question
    "ranker_share",  # its share of the answer ranker's softmax over the candidates the facts give
)


@dataclass(frozen=True)
class AnswerContext:
    """What a short answer is checked against: the facts the report drew on, the offline
    answerer's answer from them, the answer the research stopped on, and whether memory holds
    statements that disagree."""

    question: str
    found: Answer
    facts: Sequence[Evidence]
    handover: str = ""
    conflicts: bool = False


@dataclass(frozen=True)
class Assessment:
    """A short answer's probability of being right and the features it was computed from."""

    confidence: float
    features: dict[str, float]
    context: AnswerContext


@dataclass(frozen=True)
class Calibrator:
    """A logistic model: ``weights`` over :data:`FEATURES`, plus ``bias``."""

    weights: tuple[float, ...]
    bias: float

    def probability(self, features: dict[str, float]) -> float:
        z = self.bias + sum(w * features[name] for w, name in zip(self.weights, FEATURES))
        return 1.0 / (1.0 + math.exp(-z))


@cache
def shipped() -> Calibrator:
    """The calibrator trained by ``evals/train_calibrator.py`` (``calibrator.json``)."""
    data = json.loads(WEIGHTS.read_text())
    if tuple(data["features"]) != FEATURES:
        raise ValueError(f"{WEIGHTS.name} was trained on other features; rerun evals/train_calibrator.py")
    return Calibrator(tuple(float(w) for w in data["weights"]), float(data["bias"]))


class AnswerRanker:
    """The likeliest short answer of a wh-question: the candidate the facts give that the answer
    ranker (:mod:`.ranking`) gives the largest share, the answerer's pick among them (a yes/no or
    a choice is the answerer's alone)."""

    def __init__(self, embedder: Embedder, weights: Callable[[], AnswerRankerWeights] = shipped_ranker):
        self.embedder, self.weights = embedder, weights

    def __call__(self, context: AnswerContext) -> Answer:
        found = context.found
        if found.answer_type in ("yes_no", "choice") or (
            found.answer_type == "person" and plural_head(context.question)
        ):
            return found  # a choice, or several people ("what other writers"): no single candidate
        ranked = ranked_candidates(context, self.embedder, self.weights())
        if not ranked:
            return found
        text = max(ranked, key=lambda c: ranked[c])
        if found.complete and norm(text) == norm(found.text):
            return found
        support = [f for f in context.facts if states(f.text, norm(text))][:1]
        return Answer(text, found.answer_type, support=support, anchored=found.anchored)


def ranked_candidates(
    context: AnswerContext, embedder: Embedder, weights: AnswerRankerWeights
) -> dict[str, float]:
    """Each candidate of a wh-question's facts with its share of the ranker's softmax (empty for
    a yes/no or a choice); computed once per context (the report and its assessment share it)."""
    found = context.found
    key = (context.question, tuple(context.facts), found.text, found.complete, found.strength, found.bridged)
    key += (id(embedder), weights)
    with _RANKED_LOCK:
        if key in _RANKED:
            return _RANKED[key]
    rows = []
    if read_question(context.question).kind not in ("yes_no", "choice"):
        rows = candidate_features(context.question, context.facts, found, embedder)
    ranked = dict(zip((c for c, _ in rows), (float(p) for p in weights.shares(rows))))
    with _RANKED_LOCK:  # research-batch threads share it: the last few contexts only
        _RANKED[key] = ranked
        while len(_RANKED) > 8:
            _RANKED.pop(next(iter(_RANKED)))
    return ranked


_RANKED: dict[tuple, dict[str, float]] = {}
_RANKED_LOCK = threading.Lock()


def answer_features(
    short_answer: str, context: AnswerContext, embedder: Embedder, ranker: AnswerRankerWeights | None = None
) -> dict[str, float]:
    """The features of ``short_answer`` (anyone's: the offline answerer's, a model's, a
    candidate's) against ``context``; its ranker share from ``ranker`` (the shipped one)."""
    question, found, facts = context.question, context.found, context.facts
    shape = read_question(question)
    short = norm(short_answer)
    binary = shape.kind in ("yes_no", "choice")
    agrees = bool(short) and found.complete and short == norm(found.text)
    if binary:
        support = found.support if agrees else []
        stating = len({f.url for f in support}) / 2
    else:
        support = (found.support if agrees else []) + [f for f in facts if states(f.text, short)]
        stating = len({f.url for f in facts if states(f.text, short)}) / 3
    names = [n for n in shape.subjects if n]
    q_terms = content_terms(question) - {t for n in names for t in content_terms(n)}
    overlap = max((len(content_terms(f.text) & q_terms) / max(len(q_terms), 1) for f in support), default=0.0)
    stated = " ".join(f"{f.title} {f.text}" for f in support).lower()
    named = sum(all(w in stated for w in words(n.lower())) for n in names) / max(len(names), 1)
    stating_facts = [f for f in facts if states(f.text, short)] if not binary else []
    # the words around the answer: a sentence lists many names, the asked one sits by the
    # question's own words ("... was born in Lyon" for "born")
    local = max((_around(f.text, short, q_terms) for f in stating_facts), default=0.0)
    # a page the research reached through another (its subject named in another page's facts,
    # not in the question): a bridge question's answer is on such a page
    plain_question = question.lower()
    hop = any(
        f.title
        and f.title.lower() not in plain_question
        and any(g.url != f.url and f.title.lower() in g.text.lower() for g in facts)
        for f in stating_facts
    )
    if binary:  # no candidates to rank: the answerer's verdict holds the whole share
        share = float(agrees)
    else:
        ranked = ranked_candidates(context, embedder, ranker or shipped_ranker()) if short else {}
        share = sum(p for c, p in ranked.items() if norm(c) == short)
    return {
        "binary": float(binary),
        "typed": float(shape.kind in ("date", "year", "number")),
        "named": float(shape.kind in ("person", "place")),
        "offline_agrees": float(agrees),
        "binary_agrees": float(binary and agrees),
        "strength": 1.0 if agrees and binary else min(max(found.strength, 0.0), 12.0) / 12 if agrees else 0.0,
        "bridged": float(agrees and found.bridged),
        "anchored": float(found.anchored),
        "sources_stating": min(stating, 1.0),
        "type_fit": type_fits(question, shape.kind, [short_answer], embedder, facts)[0] if short else 0.0,
        "question_overlap": round(overlap, 4),
        "names_in_support": round(named, 4) if support else 0.0,
        "handover_agrees": float(bool(context.handover) and norm(context.handover) == short),
        "conflicts": float(context.conflicts),
        "answer_words": min(len(short.split()), 8) / 8,
        "local_relation": round(local, 4),
        "hop_page": float(hop),
        "ranker_share": round(share, 4),
    }


def _around(text: str, short: str, q_terms: set[str], width: int = 60) -> float:
    """The share of ``q_terms`` within ``width`` characters of ``short`` in ``text``."""
    plain = norm(text)
    m = re.search(rf"(?<!\w){re.escape(short)}(?!\w)", plain)
    if not m or not q_terms:
        return 0.0
    near = plain[max(0, m.start() - width) : m.start()] + " " + plain[m.end() : m.end() + width]
    return len(content_terms(near) & q_terms) / len(q_terms)


def qualified(report: Report, confidence: float) -> Report:
    """The report as its confidence allows: a short answer more likely wrong than right is
    withheld (the answer says so and names it as a lead only); one not yet trusted says so."""
    short = report.short_answer
    if not short:
        return report
    if confidence < WITHHELD_BELOW:
        note = (
            f'Not established: the likeliest answer in the sources read, "{short}", is more likely '
            f"wrong than right (confidence {confidence:.2f}); a person should check it."
        )
        # the body must not open with it: "Canna." before its fact would read as the answer
        # (a model's whole answer may be the bare word: "No")
        body = re.sub(rf"^\s*{re.escape(short)}(?!\w)\s*[.!]?\s*", "", report.answer, count=1, flags=re.I)
        return report.model_copy(update={"short_answer": "", "answer": f"{note} {body}".strip()})
    if confidence < TRUSTED:
        note = f"Confidence in this answer is medium ({confidence:.2f}): check it against the sources."
        return report.model_copy(update={"answer": f"{report.answer} {note}"})
    return report
