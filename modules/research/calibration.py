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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from ..embeddings import Embedder
from ..text import content_terms, words
from .answer import Answer, Evidence, candidates, what_it_is
from .question import read_question, wh_phrase
from .schema import Report

WEIGHTS = Path(__file__).with_name("calibrator.json")
#: a short answer at or above this confidence is trusted: the report's status is "answered"
TRUSTED = 0.8
#: below this a short answer is more likely wrong than right: withheld, named as a lead only
WITHHELD_BELOW = 0.5
#: candidates beside the answerer's pick that the ranker rates (and training learns from)
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
)
_KIND_PHRASE = {"person": "a person", "place": "a place", "entity": "a thing", "date": "a date"}
_DATE_LIKE = re.compile(
    r"\b(?:1[0-9]{3}|20[0-9]{2})s?\b|\b(?:january|february|march|april|may|june|july|august|"
    r"september|october|november|december)\b|\bcentury\b",
    re.I,
)
_NUMBER_LIKE = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
    r"forty|fifty|hundred|thousand|million|billion)\b",
    re.I,
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
    """The likeliest short answer: the answerer's pick, or another candidate the facts give
    that the calibrator rates higher (a yes/no or a choice is the answerer's alone)."""

    def __init__(self, embedder: Embedder, calibrator: Callable[[], Calibrator] = shipped):
        self.embedder, self.calibrator = embedder, calibrator

    def __call__(self, context: AnswerContext) -> Answer:
        found = context.found
        if not found.complete or found.answer_type in ("yes_no", "choice"):
            return found
        model = self.calibrator()
        others = [
            c
            for c in candidates(context.question, context.facts, limit=CANDIDATES + 1)
            if _norm(c) != _norm(found.text)
        ][:CANDIDATES]
        rated = [
            (model.probability(answer_features(c, context, self.embedder)), c) for c in [found.text, *others]
        ]
        best = max(range(len(rated)), key=lambda i: (rated[i][0], -i))  # a tie keeps the pick
        if best == 0:
            return found
        text = rated[best][1]
        support = [f for f in context.facts if _contains(f.text, _norm(text))][:1]
        return Answer(text, found.answer_type, support=support, anchored=found.anchored)


def _norm(text: str) -> str:
    return " ".join(words(text.lower()))


def _contains(text: str, short: str) -> bool:
    return bool(short) and re.search(rf"(?<!\w){re.escape(short)}(?!\w)", _norm(text)) is not None


def answer_features(short_answer: str, context: AnswerContext, embedder: Embedder) -> dict[str, float]:
    """The features of ``short_answer`` (anyone's: the offline answerer's, a model's, a
    candidate's) against ``context``."""
    question, found, facts = context.question, context.found, context.facts
    shape = read_question(question)
    short = _norm(short_answer)
    binary = shape.kind in ("yes_no", "choice")
    agrees = bool(short) and found.complete and short == _norm(found.text)
    if binary:
        support = found.support if agrees else []
        stating = len({f.url for f in support}) / 2
    else:
        support = (found.support if agrees else []) + [f for f in facts if _contains(f.text, short)]
        stating = len({f.url for f in facts if _contains(f.text, short)}) / 3
    names = [n for n in shape.subjects if n]
    q_terms = content_terms(question) - {t for n in names for t in content_terms(n)}
    overlap = max((len(content_terms(f.text) & q_terms) / max(len(q_terms), 1) for f in support), default=0.0)
    stated = " ".join(f"{f.title} {f.text}" for f in support).lower()
    named = sum(all(w in stated for w in words(n.lower())) for n in names) / max(len(names), 1)
    stating_facts = [f for f in facts if _contains(f.text, short)] if not binary else []
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
        "type_fit": type_fit(question, shape.kind, short_answer, embedder, facts) if short else 0.0,
        "question_overlap": round(overlap, 4),
        "names_in_support": round(named, 4) if support else 0.0,
        "handover_agrees": float(bool(context.handover) and _norm(context.handover) == short),
        "conflicts": float(context.conflicts),
        "answer_words": min(len(short.split()), 8) / 8,
        "local_relation": round(local, 4),
        "hop_page": float(hop),
    }


def _around(text: str, short: str, q_terms: set[str], width: int = 60) -> float:
    """The share of ``q_terms`` within ``width`` characters of ``short`` in ``text``."""
    norm = _norm(text)
    m = re.search(rf"(?<!\w){re.escape(short)}(?!\w)", norm)
    if not m or not q_terms:
        return 0.0
    near = norm[max(0, m.start() - width) : m.start()] + " " + norm[m.end() : m.end() + width]
    return len(content_terms(near) & q_terms) / len(q_terms)


def type_fit(
    question: str, kind: str, short_answer: str, embedder: Embedder, facts: Sequence[Evidence] = ()
) -> float:
    """Whether the answer is of the asked kind: a date or a number by its form; yes / no or one
    of the options for a binary question; else the cosine of the words that type it ("what gas"
    -> "gas"; "who" -> "a person") with the answer, or with what its own page says it is
    ("Volta ... was an Italian physicist" for "which learned academy")."""
    low = short_answer.lower().strip()
    if kind == "yes_no":
        return float(low in ("yes", "no"))
    if kind == "choice":
        return float(any(_norm(o) == _norm(low) for o in read_question(question).subjects))
    if kind in ("date", "year"):
        return float(bool(_DATE_LIKE.search(low)))
    if kind == "number":
        return float(bool(_NUMBER_LIKE.search(low)))
    phrase = " ".join(wh_phrase(question)) or _KIND_PHRASE.get(kind, "a thing")
    texts = [phrase, short_answer] + ([described] if (described := what_it_is(short_answer, facts)) else [])
    asked, *answers = embedder.encode(texts)
    return round(float(np.clip(max(np.dot(asked, a) for a in answers), 0.0, 1.0)), 4)


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
