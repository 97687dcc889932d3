"""Which of the candidates the facts give answers a wh-question: a small listwise model over what
each candidate's sentences say of the question, trained on the research sets' train questions
(``evals/train_answer_ranker.py``) and shipped as ``answer_ranker.json`` beside this module.

The answerer (:mod:`.answer`) picks one candidate by rules; the gold answer is among the
candidates the facts give far more often than it is the pick (bridge questions above all: the
answer sits on the page the bridge leads to, in the sentence that states the question's last
clause). The ranker reads every candidate the same general way (the answerer's pick is one
feature among them): how close its best sentence is in meaning to the part of the question that
asks, whether it is of the asked kind, which page states it (one the question names, or one
reached through another), how many pages state it and how many of the question's words sit next
to it. A softmax over the candidates gives each a share; the calibrator (:mod:`.calibration`)
reads the share of the answer it rates as one of its features.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from ..embeddings import Embedder
from ..text import content_terms, stem, words
from .answer import Answer, Evidence, candidates, what_it_is
from .question import clause_start, read_question, wh_phrase
from .titles import plain_text, title_name

WEIGHTS = Path(__file__).with_name("answer_ranker.json")
#: candidates read per question, in the order the facts state them
LIMIT = 40

FEATURES = (
    "pick",  # the offline answerer's pick
    "pick_strength",  # the pick's strength: how much of the question its sentence states around it (0-1)
    "pick_bridged",  # the pick's page is past the question's bridge
    "cos_asked",  # MiniLM cosine of its best sentence with the sentence of the question that asks
    "best_sentence",  # that sentence is the closest of all the facts to the asking sentence
    "cos_described",  # the closest cosine of a sentence stating it with what the question describes
    "type_fit",  # of the asked kind (see :func:`type_fits`)
    "class_word",  # states the head of a "which X" phrase ("European Central Bank" for "which central bank")
    "in_question",  # share of its words the question writes
    "page_title",  # it is the title of a page read
    "own_subject",  # it is the subject of the page that states it
    "named_page",  # a page the question names states it
    "hop_page",  # a page reached through another (named in another page's facts, not the question)
    "pages",  # pages stating it (0-1, three or more = 1)
    "near_terms",  # share of the question's words within 60 characters of it
    "sentence_terms",  # share of the question's words in its sentence
    "first_fact",  # where its first stating fact is among the facts (0 first, 1 last)
    "sentence_start",  # it opens its sentence (a sentence's subject is seldom the answer)
    "listed",  # its place among the candidates (0 first)
    "cos_gap",  # how far its sentence's cosine is below the closest sentence's
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
_SENTENCES = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def norm(text: str) -> str:
    """An answer as answers are compared: its lower-case words."""
    return " ".join(words(text.lower()))


def states(text: str, short: str) -> bool:
    """``text`` states the normalised answer ``short`` as whole words."""
    return bool(short) and re.search(rf"(?<!\w){re.escape(short)}(?!\w)", norm(text)) is not None


def type_fits(
    question: str, kind: str, answers: Sequence[str], embedder: Embedder, facts: Sequence[Evidence] = ()
) -> list[float]:
    """Whether each answer is of the asked kind: a date or a number by its form; yes / no or one
    of the options for a binary question; else the cosine of the words that type it ("what gas"
    -> "gas"; "who" -> "a person") with the answer, or with what its own page says it is
    ("Volta ... was an Italian physicist" for "which learned academy"). One encoding for all."""
    lows = [a.lower().strip() for a in answers]
    if kind == "yes_no":
        return [float(low in ("yes", "no")) for low in lows]
    if kind == "choice":
        options = {norm(o) for o in read_question(question).subjects}
        return [float(norm(low) in options) for low in lows]
    if kind in ("date", "year"):
        return [float(bool(_DATE_LIKE.search(low))) for low in lows]
    if kind == "number":
        return [float(bool(_NUMBER_LIKE.search(low))) for low in lows]
    if not answers:
        return []
    phrase = " ".join(wh_phrase(question)) or _KIND_PHRASE.get(kind, "a thing")
    described = [what_it_is(a, facts) for a in answers]
    texts = [phrase, *answers, *(d for d in described if d)]
    vectors = embedder.encode(texts)
    asked, own = vectors[0], vectors[1 : len(answers) + 1]
    extra = iter(vectors[len(answers) + 1 :])
    out = []
    for i, d in enumerate(described):
        best = float(np.dot(asked, own[i]))
        if d:
            best = max(best, float(np.dot(asked, next(extra))))
        out.append(round(float(np.clip(best, 0.0, 1.0)), 4))
    return out


def question_parts(question: str) -> tuple[str, str]:
    """What a question asks and what it describes on the way there: its last sentence and the
    ones before ("The Rothschild family comes from a German city. | Which central bank is based in
    that city?"), or its main clause and the relative clause after the wh-word ("What position
    was held by the woman | who portrayed Corliss Archer ...?"); else all of it and nothing."""
    parts = _SENTENCES.split(question.strip())
    if len(parts) > 1:
        return parts[-1], " ".join(parts[:-1])
    at = clause_start(question)
    if at > 0 and len(question[:at].split()) >= 3 and len(question[at:].split()) >= 3:
        return question[:at], question[at:]
    return question, ""


def candidate_features(
    question: str, facts: Sequence[Evidence], pick: Answer | None, embedder: Embedder
) -> list[tuple[str, dict[str, float]]]:
    """Each candidate the facts give (the answerer's ``pick`` first when the list lacks it, if
    it is complete) with its :data:`FEATURES`."""
    chosen = pick.text if pick is not None and pick.complete else ""
    shape = read_question(question)
    listed = candidates(question, facts, limit=LIMIT)
    if chosen and all(norm(c) != norm(chosen) for c in listed):
        listed = [chosen, *listed]
    if not listed or not facts:
        return []
    asked_part, described_part = question_parts(question)
    vectors = embedder.encode([asked_part, described_part or asked_part, *(f.text for f in facts)])
    cos_asked = vectors[2:] @ vectors[0]
    cos_described = vectors[2:] @ vectors[1] if described_part else np.zeros(len(facts))
    closest = float(cos_asked.max())
    names = {t for s in shape.subjects for t in content_terms(s)}
    q_terms = content_terms(question) - names
    q_words = set(words(plain_text(question)))
    low_question = plain_text(question).lower()
    phrase = wh_phrase(question)
    head = {stem(w) for w in words(phrase[-1])} if phrase else set()
    titles = {title_name(f.title) for f in facts if f.title}
    named_pages = {f.url for f in facts if f.title and title_name(f.title) in low_question}
    hop_pages = {
        f.url
        for f in facts
        if f.title
        and f.url not in named_pages
        and any(g.url != f.url and title_name(f.title) in g.text.lower() for g in facts)
    }
    fits = type_fits(question, shape.kind, listed, embedder, facts)
    out = []
    for i, cand in enumerate(listed):
        short, c_words = norm(cand), words(cand.lower())
        stating = [j for j, f in enumerate(facts) if states(f.text, short)]
        x = dict.fromkeys(FEATURES, 0.0)
        x.update(
            pick=float(bool(chosen) and short == norm(chosen)),
            type_fit=fits[i],
            class_word=float(bool(head & {stem(w) for w in c_words})),
            in_question=sum(w in q_words for w in c_words) / max(len(c_words), 1),
            page_title=float(cand.lower() in titles),
            listed=i / len(listed),
            first_fact=1.0,
            cos_gap=closest,
        )
        if stating:
            best = max(stating, key=lambda j: cos_asked[j])
            text = facts[best].text
            at = text.lower().find(cand.lower())
            near = (
                text[max(0, at - 60) : at] + " " + text[at + len(cand) : at + len(cand) + 60]
                if at >= 0
                else ""
            )
            x.update(
                cos_asked=float(cos_asked[best]),
                best_sentence=float(cos_asked[best] >= closest - 1e-6),
                cos_described=float(max(cos_described[j] for j in stating)),
                own_subject=float(any(title_name(facts[j].title) == cand.lower() for j in stating)),
                named_page=float(any(facts[j].url in named_pages for j in stating)),
                hop_page=float(any(facts[j].url in hop_pages for j in stating)),
                pages=min(len({facts[j].url for j in stating}), 3) / 3,
                near_terms=len(content_terms(near) & q_terms) / max(len(q_terms), 1),
                sentence_terms=len(content_terms(text) & q_terms) / max(len(q_terms), 1),
                first_fact=stating[0] / len(facts),
                sentence_start=float(0 <= at < 3),
                cos_gap=closest - float(cos_asked[best]),
            )
        if x["pick"] and pick is not None:
            x.update(pick_strength=min(max(pick.strength, 0.0), 12.0) / 12, pick_bridged=float(pick.bridged))
        out.append((cand, x))
    return out


@dataclass(frozen=True)
class AnswerRankerWeights:
    """A linear score over :data:`FEATURES`; a softmax over a question's candidates."""

    weights: tuple[float, ...]
    version: str = ""

    def shares(self, rows: Sequence[tuple[str, dict[str, float]]]) -> list[float]:
        if not rows:
            return []
        w = np.asarray(self.weights)
        scores = np.array([[x[name] for name in FEATURES] for _, x in rows]) @ w
        p = np.exp(scores - scores.max())
        return list(p / p.sum())


@cache
def shipped_ranker() -> AnswerRankerWeights:
    """The ranker trained by ``evals/train_answer_ranker.py`` (``answer_ranker.json``)."""
    data = json.loads(WEIGHTS.read_text())
    if tuple(data["features"]) != FEATURES:
        raise ValueError(f"{WEIGHTS.name} was trained on other features; rerun evals/train_answer_ranker.py")
    return AnswerRankerWeights(tuple(float(w) for w in data["weights"]), data.get("version", ""))


__all__ = [
    "FEATURES",
    "AnswerRankerWeights",
    "question_parts",
    "candidate_features",
    "norm",
    "shipped_ranker",
    "states",
    "type_fits",
]
