"""Claim verdicts and wrong facts: the offline judge (the baseline program of ``JudgeClaims``).

A claim is checked against windows of the response (sentences, their clauses, and pairs of
adjacent sentences, so that "Plus costs $6 a month. It includes 100 GB." finds "Plus includes
100 GB"). Three signals decide, because each alone fails on real answers:

- *frame*: how much of the claim's wording the window states, term by term, a term matching a
  paraphrase too (a small lexicon of web-copy synonyms, then MiniLM's vector of each word:
  "yearly" ~ "annually"); the question's terms and the brand may stay implicit ("It works
  offline" for "Nimbus Notes works offline");
- *values* (:mod:`.facts`): prices, quantities, dates, counts however written; a claim with a
  value is found only where that value is stated, and contradicted where another value of the
  same kind stands in a window about the same thing;
- *polarity*: the negation in the clause about the claim.

The encoder's sentence cosine is a fourth, weak signal (~0.55 for clear paraphrases). Thresholds
are fitted on the train splits of ``evals/sets/verdicts-*`` (``evals.verdicts_eval``).

Wrong facts against the site's pages run the same parts the other way: a response statement's
value or polarity is wrong when no page sentence about the same thing agrees and one states it
otherwise; a name the site never uses is wrong where such a sentence has another name instead.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..embeddings import Embedder
from ..tables_io import atomic_path
from ..text import POSSESSIVE, STOPWORDS, Span, has_negation, split_clauses, split_sentences, stem
from .facts import FREE, Value, compare_values, is_word_one, values
from .scope import (
    MONTHLY,
    DaysSaid,
    around,
    day_names,
    day_sets,
    days_bound,
    days_elsewhere,
    days_open,
    days_otherwise,
    days_said,
    exclusions,
    listed_names,
    open_days,
    scope_conflict,
    scopes,
    weekday,
)

_NEGATORS = frozenset("not no never nothing none nobody nowhere cannot neither nor without".split())

#: plurals no suffix stripping meets: "children" is what "a child ticket" is for ("people" is
#: no plural of the "person" a price is charged per)
_IRREGULAR = {"children": "child", "women": "woman", "men": "man", "lost": "lose"}


@lru_cache(maxsize=65536)
def _key(word: str) -> str:
    """A word's stem, with a final "e" dropped so that "change" and "changes" meet."""
    word = word.lower()
    if word.endswith("ees") or (
        len(word) == 4 and word[-1] == "s" and word[-2] not in "aiosu" and word != "news"
    ):
        word = word[:-1]  # "matinees" is a "matinee", "cats" a "cat" (the stemmer spares four letters)
    elif len(word) > 4 and word.endswith(("ies", "ie")):
        word = word[: -3 if word.endswith("s") else -2] + "y"  # "dailies" meet "daily", "movies" "movie"
    k = stem(_IRREGULAR.get(word, word))
    if k != word and (k in STOPWORDS or k in _NEGATORS):  # "notes" is no "not"
        k = word[:-1] if word.endswith("s") else word
    if len(k) > 7 and k.endswith("able"):  # "refundable" meets "refund"
        k = k[:-4]
    # "enable" meets "enabled" ("enabl"); "note" stays "note", not the "not" of a denial
    return k[:-1] if len(k) > 3 and k.endswith("e") and k[:-1] not in STOPWORDS | _NEGATORS else k


_WORD = re.compile(r"[A-Za-z]+-\d[\w-]*|[A-Za-z][A-Za-z0-9]*(?:['’][A-Za-z]+)?|\d[\d,.]*")
#: words that carry little of a claim's fact: what an answer may phrase any way it likes
_LIGHT = frozenset(
    _key(w)
    for w in """include includes included offer offers offered provide provides
    provided come comes get gets available feature features plan plans option options allow allows
    allowed let lets use uses used support supports supported make makes made give gives able work works
    automatically also just currently still well really actually typically usually generally receive receives
    has have having""".split()
)
#: paraphrases common in answers about sites, as stems; each group is one meaning
_SYNONYMS = [
    "cost price priced pay charge fee costs prices",
    "annual annually yearly year",
    "monthly month",
    "daily day",
    "weekly week",
    "edit change modification update",
    "reconnect online connection",
    "sync synchron synced",
    "free nothing zero gratis",
    "staff employee team personnel",
    "start begin launch found establish open",
    "end finish close",
    "buy purchase",
    "help support assist",
    "storage space",
    "device gadget",
    "user seat member",
    "cancel terminate",
    "refund reimburse",
    "ship deliver delivery shipping",
    "sso single sign-on",
    "encrypt encryption",
    "locate located situate base lie lies",
    "tall high height",
    "large big",
    "small little",
    "fast quick",
    "require need",
    "offline",
]
_GROUP = {_key(w): i for i, g in enumerate(_SYNONYMS) for w in g.split()}
#: negations that do not deny a fact: what the assistant does not know, and "at no cost"
_NOT_DENIAL = re.compile(
    r"\b(?:I|we)\s+(?:do\s*n[o']t|don['’]t|can['’]?not|can['’]t|couldn['’]t|am\s+not|'m\s+not)\s+"
    r"(?:know|have|remember|recall|find|confirm|verify|see|sure|certain|access)\b|\bnot\s+(?:sure|certain)\b|"
    r"\b(?:at\s+)?no\s+(?:extra\s+|additional\s+)?(?:cost|charge)\b|"
    r"\bno\s+(?:application\s+|entry\s+|extra\s+|additional\s+|booking\s+)?fee\b|\bwithout\s+(?:a\s+)?charge\b|"
    r"\bno\s+(?:later|more)\s+than\b|\bnot\s+only\b|\bcosts?\s+nothing\b|\bfor\s+nothing\b|"
    r"\b(?:does\s*n[o']t|doesn['’]t|won['’]t|will\s+not)\s+cost\s+(?:anything|a\s+penny|extra)\b|"
    r"\bI['’]m\s+not\s+(?:able|sure|certain|aware)\b|\bnot\s+(?:able|in\s+a\s+position)\s+to\s+(?:confirm|verify|say|find)\b|"
    r"(?:^|(?<=[.!?\n]))\W*no\s*[.,!—–-]",
    re.I,
)
#: what the assistant cannot say: no statement of the fact either way
UNSURE = re.compile(
    r"\b(?:I|we)\s+(?:do\s*n[o']t|don['’]t|can['’]?not|can['’]t|couldn['’]t|am\s+not|'m\s+not)\s+"
    r"(?:know|have|remember|recall|find|confirm|verify|see|sure|certain|access)\b|\bnot\s+(?:sure|certain)\b|"
    r"\bI['’]m\s+not\s+(?:able|sure|certain|aware)\b|\bnot\s+(?:able|in\s+a\s+position)\s+to\s+(?:confirm|verify|say|find)\b",
    re.I,
)
#: a hedge that leads a statement in: none of its words is the statement's ("As far as I know
#: you can pause for up to 6 months" is about pausing, not knowing)
_HEDGE_LEAD = re.compile(
    r"\b(?:as\s+far\s+as\s+(?:I|we)\s+(?:know|can\s+tell|recall)|(?:I|we)\s+(?:believe|think|recall)|"
    r"it\s+(?:seems|looks\s+like)|if\s+I\s+(?:remember|recall)\s+(?:correctly|rightly))\b",
    re.I,
)
#: words of hedging and attribution: never the other fact of an answer
_HEDGES = frozenset(
    _key(w)
    for w in """believe think recall remember know sure certain looks like seems
    according page site says said states mentions listed lists check confirm information reliable update
    sorry unfortunately probably likely maybe perhaps possibly""".split()
)


#: the words that deny a relation without a "not" ("independent of X", "a separate business from
#: X", "unrelated"): they state what "not part of X" states
_RELATION_DENIERS = ("independent", "separate", "unrelated", "unconnected", "unaffiliated")
_DENIED_RELATION = (
    r"independent(?:ly)?\s+(?:of|from)|separate\s+(?:\w+\s+)?from|unrelated|unconnected|unaffiliated"
)
#: a denied relation denied again affirms it: "not independent of the government"
_UNDENIED_RELATION = re.compile(rf"\b(?:not|never)\s+(?:\w+\s+)?(?:{'|'.join(_RELATION_DENIERS)})\b", re.I)

_NEGATOR = re.compile(
    r"\b(?:not|no|never|cannot|without|non-|exclud(?:e|es|ed|ing)|exclusions?|lack(?:s|ing)?|unable|"
    rf"{_DENIED_RELATION})\b|n['’]t\b",
    re.I,
)


def _negation_about(text: str, terms: Sequence[tuple[str, str]]) -> bool:
    """Whether a negation in ``text`` bears on the claim: one of the claim's words follows it
    closely ("was not the fourth", "doesn't support Fitbit"), not another predicate ("Fitbit -
    not supported (integration paused in May 2024)" for "paused its Fitbit integration")."""
    return _cached_negation_about(text, tuple(terms))


@lru_cache(maxsize=65536)
def _cached_negation_about(text: str, terms: tuple[tuple[str, str], ...]) -> bool:
    """:func:`_negation_about`, memoised: each claim asks it of every window of its answer."""
    keys = {k for k, _ in terms}
    groups = {_GROUP[k] for k in keys if k in _GROUP}
    for m in _NEGATOR.finditer(_NOT_DENIAL.sub(lambda d: " " * len(d.group()), text)):
        scope = re.split(r"[(),;:\u2013\u2014]|\s-\s", text[m.end() : m.end() + 60])[
            0
        ]  # up to the next break
        following = [k for k, _ in _terms(scope)][:3]
        if _PASSIVE.match(scope):  # "normal wear and tear isn't included": what comes before is denied
            head = re.split(r"[(),;:.!?\u2013\u2014]|\s-\s", text[max(0, m.start() - 60) : m.start()])[-1]
            following += [k for k, _ in _terms(head)][-4:]
        if any(k in keys or _GROUP.get(k) in groups for k in following):
            return True
    return False


#: predicates whose denial falls on their subject: "X isn't covered", "X is not supported"
_PASSIVE = re.compile(
    r"\s*(?:be\s+)?(?:included|covered|supported|available|accepted|allowed|permitted|"
    r"refundable|refunded|offered|provided|possible|required|needed|eligible)\b",
    re.I,
)


_DENIAL_WORDS = re.compile(
    r"\bnon-[a-z]+|\bexclud(?:e|es|ed|ing)\b|\bexclusions?\b|\black(?:s|ing)?\b|\bunable\b|"
    rf"\bexempt(?:ed|s)?\b|\b(?:{_DENIED_RELATION})\b",
    re.I,
)


_DENIAL_STEMS = ("non-", "exclu", "lack", "unable", "exempt", *_RELATION_DENIERS)
#: a denial that sets a condition: "you can't rent an SUV until you're 25" states what "requires
#: drivers to be 25" states, so it contradicts no affirmed requirement
_CONDITION = re.compile(
    r"\b(?:not|never|n't|cannot|can't|won't|no)\b[^.;:!?]{0,60}?\b(?:until|unless|before|except)\b", re.I
)


#: a part of a sentence that is a statement of its own: a relative clause ("a subsidiary of X,
#: which does not underwrite"); or none, a condition ("free if not all the wax was removed")
_SUBORDINATE = re.compile(
    r"(?:,\s*|\s)(?:(?P<relative>which|who|whose|whom)|if|unless|when|whenever|where|provided|as long as)\b[^,;.!?]*",
    re.I,
)
#: where a sentence turns to another statement: "accepts debit cards but not credit cards", "at
#: the field station, not on the main campus", "run from A1 to B2, with no C1 groups"; "not a
#: chemical element; it has symbol Pr"
_TURN = re.compile(
    r"\s+but\s+|;|,\s*(?=not\b|never\b|no\b)|\s+and\s+(?=not\b|never\b|no\b)|\s+(?:whereas|while)\s+"
    r"|\s+(?=with\s+no\b|without\b)|\s[—–]\s|—",
    re.I,
)
#: a statement with its opposite in it: "only at X" (not "the only filmmaker", "one of only
#: four", "second only to")
_ONLY = re.compile(r"(?<!\bthe )(?<!\bof )\bonly\b(?!\s+to\b)", re.I)
#: an exception to what a text denies: "isn't open to the public apart from two Open Days" restricts as
#: "only" does (it states for the Open Days and denies for the rest)
_EXCEPTION = re.compile(r"\b(?:apart|aside)\s+from\b|\bexcept\b|\bother\s+than\b|\bsave\s+for\b", re.I)


def _denied_but_for(text: str) -> bool:
    """``text`` denies all but an exception: a negation, then "apart from", "except" ("isn't open
    to the public apart from two Open Days"). "Open every day except Monday" is no such text."""
    m = _EXCEPTION.search(text)
    return m is not None and has_negation(text[: m.start()])


#: "X rather than Y" states X and denies Y
_RATHER = re.compile(r"\s+(?:rather than|instead of)\s+", re.I)
#: what says a thing is not open: "closed on Sundays" is "doesn't open on Sundays"
_CLOSED = re.compile(r"\b(?:closed|closes|shut|shuts)\b", re.I)
#: an answer's yes or no before its statement ("No. The service area is ..."): no part of it
_ANSWER_WORD = re.compile(r"^\W*(?:yes|no)\s*[.,;:!—–-]\W*", re.I)


@lru_cache(maxsize=65536)
def polar_parts(text: str) -> tuple[tuple[frozenset[str], bool | None], ...]:
    """The statements ``text`` makes, each with its words (keys) and whether it denies (True) or
    states (False): each side of a turn ("but", ";", ", not", "with no"), each relative clause.
    None for a condition ("free if not all was removed"), and for every statement of a text that
    restricts ("only at X": it states for X and denies for the rest). "X rather than Y" denies Y;
    an answer's "No." before its statement is none of it; "closed" denies that something is
    open."""
    text = _RATHER.sub("; not ", _ANSWER_WORD.sub("", text))
    restricts = _ONLY.search(text) is not None or _denied_but_for(text)
    pieces: list[tuple[str, bool]] = []  # (text, whether it can have a polarity)
    at = 0
    for m in _SUBORDINATE.finditer(text):
        pieces += [(text[at : m.start()], True), (m.group(), m.group("relative") is not None)]
        at = m.end()
    pieces.append((text[at:], True))
    out = []
    for piece, polar in pieces:
        for part in _TURN.split(piece):
            if not part or not part.strip(" ,.()"):
                continue
            said = is_negated(part) or _CLOSED.search(part) is not None
            out.append((frozenset(k for k, _ in _terms(part)), said if polar and not restricts else None))
    return tuple(out)


def opposite_polarity(claim: str, text: str) -> bool:
    """Whether ``text`` denies what ``claim`` states or states what it denies: a statement of
    each, the closest to each other by their words, of opposite polarity (with one statement a
    side, those two; else sharing more than half their words). "Debit cards are accepted" is not the
    opposite of "does not accept credit cards but accepts debit cards"."""
    mine, theirs = polar_parts(claim), polar_parts(text)
    if not mine or not theirs:
        return False

    def overlap(a: frozenset[str], b: frozenset[str]) -> float:
        return len(a & b) / min(len(a), len(b)) if a and b else 0.0

    def best(part: frozenset[str], among: tuple[tuple[frozenset[str], bool | None], ...]) -> int:
        return max(range(len(among)), key=lambda i: overlap(part, among[i][0]))

    alone = len(mine) == len(theirs) == 1
    for i, (words, said) in enumerate(mine):
        j = best(words, theirs)
        other_words, other_said = theirs[j]
        if (
            best(other_words, mine) == i
            and said is not None
            and other_said is not None
            and said != other_said
            and (alone or overlap(words, other_words) > 0.5)
        ):
            return True
    return False


@lru_cache(maxsize=65536)
def is_negated(text: str) -> bool:
    """Whether ``text`` denies something (not "I don't know", not "at no cost"); "non-refundable",
    "excludes" and "lacks" deny too, and so does a relation denied in other words ("independent of
    X"). Most texts have no negation at all: that is checked first
    (taking out the non-denials only removes negations, never makes one)."""
    if not has_negation(text) and (text.isascii() and not any(d in text.lower() for d in _DENIAL_STEMS)):
        return False
    kept = _UNDENIED_RELATION.sub(" ", _NOT_DENIAL.sub(" ", text))
    return has_negation(kept) or _DENIAL_WORDS.search(kept) is not None


#: a capitalised word that does not start the text or a sentence; the capital is matched first and
#: the lookbehinds checked after it (the same matches as lookbehinds tried at every position, 3x faster)
_NAME = re.compile(r"[A-Z](?<!\w[A-Z])(?<![.!?]\s[A-Z])(?<!^[A-Z])[a-zA-Z0-9]*(?:-\d[\w-]*|[a-zA-Z0-9]+)")
#: a word with a capital inside ("QuickBooks", "NetSuite") is a name even where a sentence starts
_INNER_CAPITAL = re.compile(r"\b[A-Z][a-z]+[A-Z][A-Za-z]*\b")


def _terms(text: str, skip: Iterable[tuple[int, int]] = ()) -> list[tuple[str, str]]:
    """(stem, surface word) of the content words of ``text`` outside the ``skip`` ranges."""
    return list(_cached_terms(text, tuple(skip)))


@lru_cache(maxsize=65536)
def _cached_terms(text: str, skip: tuple[tuple[int, int], ...]) -> tuple[tuple[str, str], ...]:
    out = []
    for m in _WORD.finditer(text):
        if skip and any(s <= m.start() < e for s, e in skip):
            continue
        if (day := weekday(m.group())) is not None:  # "Tue", "Thurs": the day's name ("Tuesday")
            out.append((_key(_WEEKDAYS[day]), m.group().lower()))
            continue
        w = m.group().lower().replace("’", "'").rstrip(".,")
        if w in STOPWORDS or w in _NEGATORS or w.endswith("n't") or not w or w[0].isdigit():
            continue
        w = POSSESSIVE.sub("", w)  # "Mobile's" is the word "Mobile" (for its vector too)
        if w in STOPWORDS:  # "it's", "that's"
            continue
        out.append((_key(w), w))
    return tuple(out)


_TRAILING_WORD = re.compile(r"([A-Za-z']+)\W+$")


@lru_cache(maxsize=65536)
def _phrase(text: str, word: str) -> str:
    """``word`` with the content words that follow it in ``text``: the whole name a claim's fact
    is replaced by ("carbon dioxide", not "carbon")."""
    m = re.search(rf"\b{re.escape(word)}((?:[ -][A-Za-z][\w'-]*){{0,3}})", text)
    if m is None:
        return word
    out = [word]
    for w in re.findall(r"[A-Za-z][\w'-]*", m.group(1)):
        if w.lower() in STOPWORDS or _key(w) in _LIGHT:
            break
        out.append(w)
    return " ".join(out)


def _word_before(text: str, word: str) -> str | None:
    """The word just before the first occurrence of ``word`` in ``text`` that has one
    (lower-cased); found without compiling a pattern per word."""
    low, target = text.lower(), word.lower()
    at = low.find(target)
    while at != -1:
        end = at + len(target)
        if end == len(low) or not (low[end].isalnum() or low[end] == "_"):
            m = _TRAILING_WORD.search(text, max(0, at - 80), at)
            if m:
                return m.group(1).lower()
        at = low.find(target, at + 1)
    return None


_NAME_WORD = re.compile(r"\b[A-Z][a-z]+(?:[A-Z][a-z]+)*\b")


_LABEL_GAP = re.compile(
    r"(?:[\s:=*_()|,–—-]|\([^()\n]{1,40}\)|\b(?:is|are|costs?|runs?|at|for|of|up to|only|just|about|around|"
    r"roughly|approximately|pays?|from|gets?|gives?|covers?|includes?|offers?|has|have|goes)\b)*$",
    re.I,
)
_LABEL_WORD = re.compile(r"\b([A-Z][a-zA-Z]+)$")
#: the start of a range whose end follows: the end is bound to the start's name
_RANGE_START = re.compile(
    r"([£$€¥]?\d[\d:.,]*\s?(?:[ap]\.?\s?m\.?)?)\s*(?:to|until|till|through|-|–|—)\s*$", re.I
)
#: a price written right before a name, which then names that price ("£48 Stalls", "£48 in the Stalls")
_VALUE_BEFORE_LABEL = re.compile(
    r"[£$€¥]\s?\d(?:[\d,.]*\d)?[kKmM]?\s+(?:(?:in|for|on|at)\s+)?(?:the\s+)?(?:[A-Z][a-zA-Z]+\s+)*$"
)


def _label(text: str, start: int) -> str | None:
    """The name a value is bound to by being written right after it ("Saturday £60", "Premier:
    up to $2,000,000", "Plus is $6"), lower-cased; None when the word before is no name."""
    head = text[max(0, start - 40) : start]
    if (before := _RANGE_START.search(head)) is not None:  # "Friday: 8:00 am to 5:30 pm": both Friday's
        return _label(text, max(0, start - 40) + before.start(1))
    gap = _LABEL_GAP.search(head)
    m = _LABEL_WORD.search(head[: gap.start()] if gap else head)
    if m is None or _VALUE_BEFORE_LABEL.search(head[: m.start()]):
        return None  # "£48 in the Stalls, £42 ...": the name belongs to the price before it
    if (day := weekday(m.group(1))) is not None:  # "Mon–Fri 8am" and "Friday: 8am" name one day
        return _WEEKDAYS[day]
    return _key(m.group(1))


#: the whole name before a value's label: "Puppy Starter" of "Puppy Starter: £79"
_LABEL_NAME = re.compile(r"\b((?:[A-Z][a-zA-Z]+\s+){0,2}[A-Z][a-zA-Z]+)$")


def _label_name(text: str, start: int) -> frozenset[str]:
    """The keys of the whole name a value is bound to ("Puppy Starter: £79": puppy, starter),
    whose last word is its :func:`_label`: a site's "Kitten Starter costs £79" binds its price to
    another name ending in the same word."""
    head = text[max(0, start - 60) : start]
    gap = _LABEL_GAP.search(head)
    m = _LABEL_NAME.search(head[: gap.start()] if gap else head)
    return frozenset(_key(w) for w in m.group(1).split() if w.lower() not in STOPWORDS) if m else frozenset()


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def _clauses(sentence: Span, min_words: int = 2) -> list[Span]:
    """The sentence's clauses, none cutting through a value: "December 15, 2025" and "$1,024"
    stay whole (clauses that a value spans are joined)."""
    clauses = split_clauses(sentence, min_words=min_words)
    if not clauses:
        return clauses
    vals = [(sentence.start + v.start, sentence.start + v.end) for v in values(sentence.text)]
    out: list[Span] = []
    for c in clauses:
        if out and any(
            vs < out[-1].end < ve or (out[-1].start <= vs < out[-1].end and ve > out[-1].end)
            for vs, ve in vals
        ):
            start = out[-1].start
            out[-1] = Span(start, c.end, sentence.text[start - sentence.start : c.end - sentence.start])
        else:
            out.append(c)
    for vs, ve in vals:
        # a value in a piece too short to be a clause ("Band 3 (over 170 g/km): £95") belongs
        # to the clause before it, which names what it is the value of
        before = [i for i, c in enumerate(out) if c.end <= vs]
        if before and not any(c.start <= vs < c.end for c in out):
            i = before[-1]
            end = ve if i + 1 == len(out) else min(ve, out[i + 1].start)
            if end > out[i].end:
                start = out[i].start
                out[i] = Span(start, end, sentence.text[start - sentence.start : end - sentence.start])
        elif out and vs < out[0].start:
            # before every clause ("Helix: $70, titanium included."): the sentence's head, its
            # name and value, is a clause of its own
            out.insert(0, Span(sentence.start, ve, sentence.text[: ve - sentence.start]))
    return out if len(out) > 1 or out[0].text != sentence.text else []


_LIST_LABEL = re.compile(r"(?:^|\n)[\s*_#>|•–—-]*$")


@lru_cache(maxsize=65536)
def _statement_names(text: str) -> tuple[tuple[int, str], ...]:
    """(offset, key) of the names in ``text`` that are no list label ("**Deadline:**"), memoised:
    the page checks ask it of every clause of a sentence."""
    return tuple(
        (m.start(), _key(m.group()))
        for m in _NAME.finditer(text)
        if not _LIST_LABEL.search(text, 0, m.start())
    )


def _name_words_raw(text: str) -> list[str]:
    return [m.group() for m in _NAME_WORD.finditer(text)]


def _name_words(text: str, start: int = 0, end: int | None = None) -> list[tuple[str, str]]:
    """Capitalised words that are not a sentence's or a list item's first word: likely names
    (those between ``start`` and ``end`` of ``text``)."""
    return [(k, w) for s, e, k, w in _all_name_words(text) if s >= start and (end is None or e <= end)]


@lru_cache(maxsize=65536)
def _all_name_words(text: str) -> tuple[tuple[int, int, str, str], ...]:
    """:func:`_name_words` of the whole text with their offsets, memoised: asked of each clause."""
    out = []
    for m in _NAME_WORD.finditer(text):
        before = text[: m.start()].rstrip(" *_#>-–—•")
        if not before or before[-1] in ".!?:\n|" or m.group().lower() in STOPWORDS:
            continue
        out.append((m.start(), m.end(), _key(m.group()), m.group()))
    return tuple(out)


@lru_cache(maxsize=65536)
def _indexed(
    terms: tuple[tuple[str, str], ...],
) -> tuple[dict[str, str], frozenset[int], tuple[str, ...]]:
    """A window's terms by key, the synonym groups they belong to, and its distinct words."""
    others = dict(terms)
    return others, frozenset(_GROUP[k] for k in others if k in _GROUP), tuple(others.values())


@lru_cache(maxsize=65536)
def _has_digit(word: str) -> bool:
    return any(ch.isdigit() for ch in word)


#: where a claim's subject ends: its first auxiliary or common predicate verb
_VERB = re.compile(
    r"\b(?:is|are|was|were|has|have|had|does|do|did|can|cannot|will|may|must|costs?|includes?|"
    r"offers?|requires?|supports?|covers?|provides?|comes?|lets?|allows?|needs?|gives?|won|became|lies)\b",
    re.I,
)
_NT_VERB = re.compile(r"\b\w+n['’]t\b")
#: a list item or table row: a bullet, a number, a check mark or a cell bar first
LIST_ITEM = re.compile(r"^\s*(?:[-*•+–—]\s|\d{1,2}[.)]\s|[|✘✗✓✔❌✅])")
_DETERMINERS = frozenset("a an the our your their its each every this that per one".split())
_PHRASE_WORD = re.compile(r"[A-Za-z][\w-]*(?:['’]s)?")


@lru_cache(maxsize=16384)
def _modifiers(text: str) -> tuple[tuple[str, str], ...]:
    """(modifier, noun) keys of the noun phrases ``text`` opens: "a family ticket", "the Team
    plan", "children's cards", "**Child fare:**", "Debit cards ..." (a capitalised opening)."""
    found = list(_PHRASE_WORD.finditer(text))
    out = []
    for i, (m, n) in enumerate(zip(found, found[1:])):
        first, second = m.group(), n.group()
        owner = first[:-2] if first.endswith(("'s", "’s")) else None
        if (
            (owner or first).lower() in STOPWORDS
            or second.lower() in STOPWORDS
            or not text[m.end() : n.start()].isspace()
        ):
            continue
        if owner:  # "children's cards": the owner is the variant
            out.append((_key(owner), _key(second)))
            continue
        before = found[i - 1].group() if i else ""
        gap = text[found[i - 1].end() : m.start()] if i else text[: m.start()]
        opens = (
            (not i and first[0].isupper())
            or before.lower() in _DETERMINERS
            or before.endswith(("'s", "’s"))
            or any(not ch.isspace() and ch != "," for ch in gap)
        )
        if opens and not _AFTER_NUMBER.search(gap):  # "30 minutes before": the unit of a value
            out.append((_key(first), _key(second)))
    return tuple(out)


#: a gap that ends in a number: the word after it is the number's unit or what it counts
_AFTER_NUMBER = re.compile(r"\d\s*$")


def _states(text: str) -> bool:
    """Whether ``text`` is a statement with a polarity of its own, not a bare list item or label
    ("- Into England or Wales", "Not for Premium/Minibus."): a verb (:data:`_VERB`, or a negated
    auxiliary: "isn't"), or, outside a list item or table row, three content words. A list item
    takes its polarity from its heading ("Not accepted: - Unneutered males older than 12 months"),
    so without a verb of its own it affirms nothing, however long."""
    if _VERB.search(text) is not None or _NT_VERB.search(text) is not None:
        return True
    return not _bare_item(text) and len(_terms(text)) >= 3


def _bare_item(text: str) -> bool:
    """A list item or table row with no verb of its own: its heading, not the item, says yes or no."""
    return LIST_ITEM.match(text) is not None and _VERB.search(text) is None and _NT_VERB.search(text) is None


#: a denial that bears on what follows it: "we do not use BorrowBox, Hoopla or cloudLibrary",
#: "there is no Android app"; "excluding VAT" and "non-refundable" deny no thing's existence
_DENY = re.compile(r"\b(?:not|no|never|cannot|neither|nor)\b|n['’]t\b", re.I)
#: where a denial's reach ends: its clause ("If you haven't paid, we issue a Charge Certificate"),
#: or an exception to it ("no Sunday service, except before Christmas")
_DENIAL_END = re.compile(
    r"[;.!?:()]|,\s+(?:and|but|so|while|which|we|you|it|they|this|that|the|when|if|as|because)\b|"
    r"\s(?:but|although|though|whereas|except|unless|apart\s+from|other\s+than|(?:as|so)\s+long\s+as)\s|\s[–—]\s"
)
#: words that deny a link without a negation: "an independent hospital", "instead of Regus",
#: "out of network for Meridian", a list's cross mark
_DISOWNS = re.compile(
    r"\b(?:independent|unaffiliated|unrelated|unconnected|separate|instead|rather\s+than|unlike|"
    r"other\s+than|apart\s+from|except|excluding|besides|out\s+of|outside|unavailable|unsupported|"
    r"ineligible|discontinued|no\s+longer)\b|[❌✘✗✖]",
    re.I,
)
#: a sentence that states nothing of the site: an introduction to a list, a supposition or
#: advice ("you'd need a specialist")
_STATES_NOTHING = re.compile(r":\W*$|\b\w+['’]d\b|\b(?:should|may)\b", re.I)
#: words that rule things out without a negation: "Also banned: food, plants", "off the list"
_EXCLUDED = re.compile(r"\b(?:banned|prohibited|forbidden|off\s+(?:the|their|our|its)\s+list)\b", re.I)
#: words that leave a thing out or disown it, narrower than :data:`_DISOWNS` ("instead",
#: "except", "outside" also qualify what an answer affirms): "they skip it", "a separate club"
_LEAVES_OUT = re.compile(
    r"\b(?:skips?|skipped|exclusively|solely|separate|independent|unaffiliated|unconnected|unrelated)\b", re.I
)


def _rules_out(text: str) -> bool:
    """Whether ``text`` rules something out or disowns it without a negation ("a separate club",
    "banned", "off the list", "they skip"; not "not independent")."""
    return not _DENY.search(text) and any(p.search(text) for p in (_EXCLUDED, _LEAVES_OUT))


#: a heading, which states nothing: a markdown one, or a line in bold alone ("**Who can join**")
HEADING = re.compile(r"^\s*(?:#{1,6}\s[^\n]*|\*\*[^*\n]+\*\*:?\s*)$")
#: a word written as a value's unit or period ("$7.99/month", "30 days", "per month"); not
#: what a price is for ("a £25 admin fee")
_UNIT_BEFORE = re.compile(r"(?:(?:^|[^£$€\d.,])\d[\d,.]*\s*|/\s*|\bper\s+)$")
#: a row of a markdown table
_TABLE_ROW = re.compile(r"^\s*\|")
#: what a clause supposes states nothing: "if you're in Sheffield", "you could build a bridge"
_SUPPOSES = re.compile(r"^\W*(?:if|when|whether|unless|in\s+case)\b|\b(?:could|would|might)\b", re.I)
#: a name that labels what follows ("**HIPAA:** ..."): the statement is after it
_LABEL_END = re.compile(r"[*_]*\s*:")
#: a run of written names: "Harlow Vet Group", "North America", "IWG"
_NAME_RUN = re.compile(r"\b[A-Z][A-Za-z0-9]*(?:['’]s)?(?:\s+[A-Z][A-Za-z0-9]*(?:['’]s)?)*\b")
#: the calendar's names: when something happens, never a thing a site has or denies
_CALENDAR = frozenset(
    _key(w)
    for w in """january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays
    fridays saturdays sundays christmas easter new year eve day bank holiday holidays""".split()
)


#: the calendar's short names ("Mon–Sat", "Feb 15"): the site's own days and months, written short
_CALENDAR_SHORT = frozenset(
    _key(w)
    for w in "mon tue tues wed thu thur thurs fri sat sun jan feb mar apr jun jul aug sep sept oct nov dec".split()
)


def _runs(text: str) -> list[tuple[int, int, frozenset[str]]]:
    """(start, end, keys) of each run of capitalised words of ``text``."""
    return [
        (m.start(), m.end(), frozenset(_key(POSSESSIVE.sub("", w)) for w in m.group().split()))
        for m in _NAME_RUN.finditer(text)
    ]


def _affirmed_beside(text: str, key: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """The words of the clauses of ``text`` that deny nothing and of those that deny, where
    ``key`` is in both ("we are not part of the Tidemark group, although ...; tattoo bookings must
    be made directly with Tidemark")."""
    yes: set[str] = set()
    no: set[str] = set()
    at = 0
    for end in [*(m.end() for m in _DENIAL_END.finditer(text)), len(text)]:
        clause = text[at:end]
        at = end
        (no if _DENY.search(_NOT_DENIAL.sub(" ", clause)) else yes).update(k for k, _ in _terms(clause))
    return (frozenset(yes), frozenset(no)) if key in yes and key in no else None


def _denied_keys(text: str) -> set[str]:
    """Keys of the words a negation in ``text`` denies: from the negator to the end of its clause,
    and, for a denied predicate of the subject ("Cash is not accepted"), the clause before it."""
    kept = _NOT_DENIAL.sub(lambda d: " " * len(d.group()), text)
    out: set[str] = set()
    for m in _DENY.finditer(kept):
        end = _DENIAL_END.search(kept, m.end())
        out |= {k for k, _ in _terms(kept[m.end() : end.start() if end else len(kept)])}
        if _PASSIVE.match(kept, m.end()):
            head = re.split(r"[,;:.!?()\u2013\u2014]", kept[: m.start()])[-1]
            out |= {k for k, _ in _terms(head)}
    return out


#: where a denial's object ends for a common word: a preposition or condition after it ("no
#: appointment on weekday mornings" denies the appointment, not the weekday)
_OBJECT_END = re.compile(
    r"\s(?:on|over|in|at|during|before|after|if|when|until|for|with|without|to|from|between|by|per|"
    r"within|across|since|than|that|which|who|where|because|so)\s",
    re.I,
)
#: negators a verb follows ("does not accept e-bikes"): the verb is what is denied of the thing,
#: not the thing
_VERB_NEGATOR = re.compile(r"not|never|cannot|n['’]t", re.I)


#: where the subject of a denied predicate starts: "monthly plans are not refunded", not the
#: "which costs $49 per attempt and" before "is not included"
_SUBJECT_START = re.compile(r"[,;:.!?()\u2013\u2014]|\b(?:and|or|but|which|that|who|is|are|was|were)\b|\d")


#: "a not-for-profit charity" denies nothing
_NOT_FOR_PROFIT = re.compile(r"\bnot[-\s]for[-\s]profit\b", re.I)
#: the auxiliary a denied predicate's "not" follows ("are not refunded"): not the subject
_AUXILIARY_END = re.compile(
    r"\s*\b(?:is|are|was|were|be|been|can|could|will|would|must|should|may)\s*$", re.I
)


def _denied_objects(text: str) -> dict[str, frozenset[str]]:
    """Keys of the things a negation in ``text`` denies, narrowly: the words after a "no" or after
    the verb a "not" negates, up to the clause's end, a preposition or a relative clause ("We
    don't sell pesticides, weedkillers or slug pellets"; "There are no admin fees"), and the
    subject of a denied predicate ("Cash is not accepted"). Each with the keys of the name that
    qualifies the denial, if one does ("no integration with NetSuite" denies NetSuite's, not
    every integration)."""
    kept = _NOT_FOR_PROFIT.sub(
        lambda d: " " * len(d.group()), _NOT_DENIAL.sub(lambda d: " " * len(d.group()), text)
    )
    out: dict[str, frozenset[str]] = {}
    read = []  # the stretches the denials bear on
    for m in _DENY.finditer(kept):
        if _SUPPOSES.search(re.split(r"[;:.!?]", kept[: m.start()])[-1]):
            continue  # "If you are not a complete beginner, book a chat" denies nothing
        end = _DENIAL_END.search(kept, m.end())
        scope = kept[m.end() : end.start() if end else len(kept)]
        if _PASSIVE.match(kept, m.end()):
            before = _AUXILIARY_END.sub("", kept[: m.start()])
            head = _SUBJECT_START.split(before)[-1]
            read.append((len(before) - len(head), m.end()))
            for k, _ in _terms(head):
                out.setdefault(k, frozenset())
            continue
        stop = _OBJECT_END.search(scope)
        terms = [k for k, _ in _terms(scope[: stop.start()] if stop else scope)]
        read.append((m.start(), m.end() + (stop.start() if stop else len(scope))))
        if _VERB_NEGATOR.fullmatch(m.group()):
            terms = terms[1:]
        qualifier = _NAME_RUN.match(scope, stop.end()) if stop else None
        names = frozenset(_key(w) for w in qualifier.group().split()) if qualifier else frozenset()
        for k in terms:
            out.setdefault(k, names)
    # a word the sentence also uses outside its denials: "A block of 10 hours costs £380; there
    # is no block price for online lessons" affirms the block
    for k, _ in _terms(kept, tuple(read)):
        out.pop(k, None)
    return out


def list_heading(text: str, start: int) -> str:
    """The line that heads the list a line of ``text`` starting at ``start`` belongs to: the
    nearest line before it that is no list item ("" when there is none)."""
    for line in reversed(text[:start].splitlines()):
        if line.strip() and not LIST_ITEM.match(line):
            return line
    return ""


@dataclass(frozen=True)
class DeniedName:
    """A name the site mentions only to deny it, with the names written beside it there (a
    response's "North America" is not the page's "South America") and a sentence denying it;
    or, with ``name`` false, a common word the site uses only in denials ("we do not take
    cash", "there are no admin fees")."""

    runs: frozenset[str]
    page: PageSentence
    name: bool = True
    #: a common word's denial may hold only for a name ("no integration with NetSuite")
    qualifier: frozenset[str] = frozenset()
    #: where the denying sentence also states the name outside its denial, the words of each
    #: part: (affirmed, denied) ("not part of the Tidemark group; tattoo bookings must be made
    #: directly with Tidemark")
    affirmed: tuple[frozenset[str], frozenset[str]] | None = None

    def about_the_affirmed(self, said: set[str]) -> bool:
        """Whether a statement with the words ``said`` restates the part of the denying sentence
        that affirms the name more than the part that denies it."""
        if self.affirmed is None:
            return False
        yes, no = self.affirmed
        return len(said & yes) > len(said & no)


def denied_names(every: Sequence[PageSentence]) -> dict[str, DeniedName]:
    """The names the site mentions only to deny them (a platform, a partner, a country it says it
    does not use, belong to or serve): every sentence of the pages with the word in it denies it.
    By key. A word the pages use anywhere without denying it ("day", the "Day Pass"), and the
    calendar's names, are no such name. A common word counts too when the pages use it only as
    the thing a denial denies (:func:`_denied_objects`: "we do not take cash"), never as the verb
    or the circumstance of one ("does not accept e-bikes", "no appointment on weekdays")."""
    named: set[str] = set()
    denying: dict[str, PageSentence] = {}
    beside: dict[str, set[str]] = {}
    affirmed: set[str] = set()
    objects: dict[str, tuple[PageSentence, frozenset[str]]] = {}
    for page in every:
        named |= _names(page.text)
        denied = _denied_keys(page.text) if page.negated else set()
        narrow = _denied_objects(page.text) if page.negated else {}
        for k, _ in page.terms:
            if k in denied:
                denying.setdefault(k, page)
                if k in narrow:
                    objects.setdefault(k, (page, narrow[k]))
            else:
                affirmed.add(k)
        for _, _, run in _runs(page.text):
            for k in run:
                beside.setdefault(k, set()).update(run)
    out = {
        k: DeniedName(frozenset(beside.get(k, {k})), page, affirmed=_affirmed_beside(page.text, k))
        for k, page in denying.items()
        if k in named and k not in affirmed and k not in _CALENDAR
    }
    # a common word the pages use only as what a denial denies: "cash", "landline", "slug pellets"
    out |= {
        k: DeniedName(frozenset().union(*(run for _, _, run in _runs(page.text))), page, False, qualifier)
        for k, (page, qualifier) in objects.items()
        if k not in out and k not in affirmed and k not in _CALENDAR and k not in _LIGHT and k not in _HEDGES
    }
    return out


#: a relation between names that a site states one way: who owns a thing (or whose part it is),
#: who runs it, who underwrites it ("is owned by the Dunmallow Harbour Trust", "a subsidiary of
#: Arclight Compute Holdings", "operated under contract by Calloway Marine Ltd")
_AGENCY = re.compile(
    r"\b(?:(?P<owner>owned|bought|acquired|subsidiary|part)|(?P<operator>run|operated|managed)"
    r"|(?P<underwriter>underwritten))(?:\s+(?!by\b|of\b)[a-z]+){0,3}?\s+(?:by|of)\s+(?:the\s+)?(?=[A-Z])"
)
#: words that name a company's form, not which company ("Calloway Marine Ltd" is "Calloway Marine")
_COMPANY_FORM = frozenset(_key(w) for w in "ltd limited plc inc llc co company group holdings".split())


@dataclass(frozen=True)
class Agency:
    """A relation a page sentence states: ``subject`` (its name keys; empty where it is the site
    itself, "we" or "it") has ``agent`` as its owner, operator or underwriter (``role``)."""

    role: str
    subject: frozenset[str]
    agent: frozenset[str]
    agent_text: str
    page: PageSentence


def _agencies_of(text: str) -> list[tuple[str, frozenset[str], frozenset[str], str, int]]:
    """(role, subject keys, agent keys, agent, start) of each relation ``text`` affirms; a
    relation after another in the same sentence shares its subject ("owned by X and operated
    by Y"). A denied relation ("is not part of the Harlow Vet Group") is none."""
    out = []
    last_end, subject = 0, frozenset()
    for m in _AGENCY.finditer(text):
        agent = _NAME_RUN.match(text, m.end())
        if agent is None:
            continue
        if _DENY.search(text[last_end : m.start()]) or _DISOWNS.search(text[last_end : m.start()]):
            last_end = agent.end()
            continue
        names = frozenset(
            _key(POSSESSIVE.sub("", w))
            for w in _NAME_RUN.findall(text[last_end : m.start()])
            for w in w.split()
            if w.lower() not in STOPWORDS
        )
        subject = names or subject
        keys = frozenset(_key(POSSESSIVE.sub("", w)) for w in agent.group().split()) - _COMPANY_FORM
        if keys:
            out.append((m.lastgroup, subject, keys, agent.group(), m.start()))
        last_end = agent.end()
    return out


#: the site itself denying what it does: "We do not dye dresses", "we don't sweep gas fires"
_SITE_DENIES = re.compile(
    r"\bwe\s+(?:(?:do|does|did|can|will|could)\s*(?:not|n['’]t)|don['’]t|doesn['’]t|won['’]t|"
    r"can['’]?not|can['’]t|never)\s+(?:(?:currently|normally|usually|ever|yet)\s+)?",
    re.I,
)
#: a denial that holds only in some circumstance ("we do not refund lessons because of rain",
#: "we do not hire cruisers between November and February", "cannot accept a cat without it") or
#: past some limit ("do not travel more than 25 miles"): no denial of the action itself
_CIRCUMSTANCE = re.compile(
    r"\b(?:because|between|during|when|whenever|if|while|without|until|unless|after|before|"
    r"more|less|over|beyond|than|further|longer)\b",
    re.I,
)
#: a web address ("https://...", "truefitcycles.example/contact")
WEB_ADDRESS = re.compile(r"https?://\S+|\b[\w-]+\.(?:com|org|net|example|eval|io)(?:/\S*)?", re.I)
#: ... or an e-mail address: no words of a statement ("fit@truefitcycles.example")
_ADDRESS = re.compile(rf"\S+@\S+|{WEB_ADDRESS.pattern}", re.I)
#: verbs too light to name an action without two words of its object ("we do not offer X"): the
#: light words of a claim, and "do", "take" and "run"
_LIGHT_VERBS = _LIGHT | frozenset(_key(w) for w in ("do", "take", "run"))


@dataclass(frozen=True)
class DeniedAction:
    """Something the site says it does not do, as the key of its verb and of up to three words of
    its object ("We do not dye dresses or do dry cleaning": dye dresses, dye dry cleaning), with
    the sentence that says so."""

    verb: str
    objects: frozenset[str]
    page: PageSentence

    def affirmed_by(self, said: set[str]) -> bool:
        """Whether a statement with the word keys ``said`` names the action: its verb and every
        word of its object (a light verb with at least two of them)."""
        return (
            self.verb in said
            and self.objects <= said
            and (self.verb not in _LIGHT_VERBS or len(self.objects) >= 2)
        )


def denied_actions(every: Sequence[PageSentence]) -> list[DeniedAction]:
    """What the site says, in its own voice ("we"), that it does not do (:data:`_SITE_DENIES`): a
    verb and its object up to the denial's end or a preposition, with the first word after the
    preposition, each alternative of an "or" its own object ("We do not teach brass instruments or
    harp"). Not a denial that holds only in some circumstance (:data:`_CIRCUMSTANCE`) or under a
    supposition, nor an action another part of the pages states without a denial ("we refund
    missed lessons with a doctor's note")."""
    out: list[DeniedAction] = []
    for page in every:
        if not page.negated:
            continue
        for m in _SITE_DENIES.finditer(page.text):
            if _SUPPOSES.search(re.split(r"[;:.!?]", page.text[: m.start()])[-1]):
                continue
            end = _DENIAL_END.search(page.text, m.end())
            scope = page.text[m.end() : end.start() if end else len(page.text)]
            if _CIRCUMSTANCE.search(scope):
                continue
            verb, objects = None, []
            for alternative in re.split(r"\s+or\s+|,\s+", scope):
                stop = _OBJECT_END.search(f"{alternative} ")
                keys = [k for k, _ in _terms(alternative[: stop.start()] if stop else alternative)]
                if verb is None:
                    if not keys:
                        break
                    verb, keys = keys[0], keys[1:]
                # what qualifies the object is part of it: "debit cards for Premium" (debit cards
                # are accepted for the other classes)
                qualifier = [k for k, _ in _terms(alternative[stop.end() :])][:1] if stop else []
                if keys:
                    objects.append(frozenset(keys[:3] + qualifier))
            out += [DeniedAction(verb, o, page) for o in objects if verb is not None]
    # the parts of the pages, split at their turns, that deny nothing ("Debit cards are accepted
    # for Mini to SUV; we do not accept debit cards for Premium")
    affirmed = [
        {k for k, _ in _terms(part)}
        for p in every
        for part in (_TURN.split(p.text) if p.negated else [p.text])
        if not (p.negated and is_negated(part))
    ]
    return [a for a in out if not any(a.affirmed_by(said) for said in affirmed)]


def agencies(every: Sequence[PageSentence]) -> list[Agency]:
    """Every owner, operator and underwriter the site's pages name, with what of."""
    return [
        Agency(role, subject, agent, text, page)
        for page in every
        for role, subject, agent, text, _ in _agencies_of(page.text)
    ]


def other_variant(claim: str, text: str) -> bool:
    """``text`` speaks of another variant of what ``claim`` is about: a noun phrase of both with
    another word before the same noun, neither word used by the other side ("a family ticket"
    for "a child ticket", "the Team plan" for "the Plus plan", "the return fare" for "the
    outbound fare"), or numbers the claim's numbered name otherwise and states the rest of it
    otherwise too ("Band 3 costs £160" for "Band 2 costs £95"). A value is compared only within
    the same variant."""
    if compare_values(claim, text)[0] == "other":
        return True
    mine = _modifiers(claim)
    if not mine:
        return False
    theirs = _modifiers(text)
    claim_keys = {_key(w) for w in _WORD.findall(claim)}
    text_keys = {_key(w) for w in _WORD.findall(text)}
    return any(
        b == d and a != c and a not in text_keys and c not in claim_keys and c not in _LIGHT
        for a, b in mine
        for c, d in theirs
    )


#: a limit denied past ("cannot carry anything over 60 kg") and one stated up to ("up to 60 kg")
_DENIED_PAST = re.compile(
    r"\b(?:not|n['’]t|cannot|never)\b[^.;:]*?\b(?:more\s+than|over|beyond|further\s+than|longer\s+than|above)\s+$",
    re.I,
)
_UP_TO = re.compile(r"\b(?:up\s+to|within|at\s+most|no\s+more\s+than|a\s+maximum\s+of|maximum)\s+$", re.I)


def _same_limit(claim: str, text: str) -> bool:
    """``claim`` denies going past a value that ``text`` states as a limit: "does not travel more
    than 25 miles" and "stays within 25 miles", "cannot carry anything over 60 kg" and "takes
    items up to 60 kg" say the same."""
    past = [v for v in values(claim) if _DENIED_PAST.search(claim[: v.start])]
    limits = [v for v in values(text) if _UP_TO.search(text[: v.start])]
    return any(p.equals(u) for p in past for u in limits)


def _multiple(value: Value, of: Value) -> bool:
    """``value`` is a whole multiple (2 to 12 times) of ``of``, a value of its kind: a total or a
    return a row works out from its price ("| Adult | £6.40 | £12.80 |", "| $160 | $480 |")."""
    if not value.same_kind(of) or not of.amount or value.kind == "time":
        return False
    times = value.amount / of.amount
    return 2 <= round(times) <= 12 and abs(times - round(times)) < 1e-6


def days_apart(text: str, other: str) -> bool:
    """Both texts name days of the week and no day in common: their times and prices are of
    other days ("9am to 1pm on Saturdays" is no rival of "8am to 6pm Monday to Thursday")."""
    mine = frozenset().union(*(d.days for d in day_sets(text)))
    theirs = frozenset().union(*(d.days for d in day_sets(other)))
    return bool(mine) and bool(theirs) and not mine & theirs


def _states_unbound(every: Sequence[PageSentence], label: str, value: Value) -> bool:
    """A sentence of the site names ``label`` and states ``value`` bound to no other name: "An
    adult membership costs £49 a month" states the £49 of "Adult: £49" although "Adult: £115"
    (a pass) binds another price to the word; "Sunday £60" does not state a "Saturday £60". The
    sentence, not the clause: a list label ("Packet Club: 4 packets for £6.50 a month") names
    what follows its colon. A value of another kind states nothing here: "children under 12" is
    no price of £12."""
    return any(
        any(
            p.equals(value) and p.same_kind(value) and to is None
            for p, to in zip(page.values, page.labels, strict=True)
        )
        and any(k == label for k, _ in page.terms)
        for page in every
    )


#: where the clause naming a value ends: a line, a comma or semicolon, a joining word; not a
#: colon, which follows the name it gives ("Adult off-peak: £38 a month")
_VARIANT_BREAK = re.compile(r"\n|[,;]\s+(?:(?:and|but)\s+)?|\s+(?:and|but|while|whereas)\s+", re.I)


#: a sentence's subject and its verb before its first value: "Evening classes cost", "Prices are"
_SHARED_LEAD = re.compile(
    r"(?P<subject>.*\w)\s+(?:is|are|costs?|runs?|starts?|takes?|lasts?|opens?|pays?)\s+(?:from\s+|only\s+|just\s+)?$",
    re.I | re.S,
)


@lru_cache(maxsize=65536)
def _value_words(text: str) -> tuple[frozenset[str] | None, ...]:
    """Per value of ``text``, the words (keys) of the clause it is stated in ("30-minute
    lessons: £19 each for children under 18, £23 each for adults": "adults" for £23); None for a
    value whose clause holds another like it (a range, a pair: "£19 / £32")."""
    vals = values(text)
    cuts = [0, *(m.end() for m in _VARIANT_BREAK.finditer(text)), len(text)]
    pieces = [(a, b) for a, b in zip(cuts, cuts[1:]) if a < b]
    out: list[frozenset[str] | None] = []
    for v in vals:
        a, b = next(((a, b) for a, b in pieces if a <= v.start < b), (0, len(text)))
        alone = not any(u is not v and u.same_kind(v) and a <= u.start < b for u in vals)
        words = frozenset(k for k, _ in _terms(text[a:b])) if alone else None
        if words is not None and a > 0:
            # the sentence's subject, stated once before its verb, is every variant's
            # ("Sunday family mornings cost £40.00 per adult and £25.00 per child"), unless
            # the variant's clause has a subject and verb of its own ("each child costs £4")
            first = next((u for u in vals if u.same_kind(v)), v)
            lead = _SHARED_LEAD.match(text[: first.start])
            if lead and first.start < cuts[1] and not _SHARED_LEAD.match(text[a : v.start]):
                words |= {k for k, _ in _terms(lead.group("subject"))}
            elif first.start < cuts[1] and (heading := _colon_heading(text, first.start, cuts[1])):
                words |= heading
        out.append(words)
    return tuple(out)


#: a line's heading before its colon: "Crowns" of "Crowns: porcelain-bonded £595, all-ceramic £725"
_COLON_HEAD = re.compile(r"\s*(?P<head>[^:\n]{1,60}?)\s*:\s")


def _colon_heading(text: str, first: int, first_end: int) -> frozenset[str]:
    """The words of a heading that every variant of a line shares ("Crowns" of "Crowns:
    porcelain-bonded £595, all-ceramic £725"), when its first variant is named by words of its
    own beside it ("porcelain-bonded"); none when the heading names the first variant itself
    ("Saturday: £60, Sunday: £65": Saturday is not Sunday's)."""
    m = _COLON_HEAD.match(text)
    if m is None or m.end() > first:
        return frozenset()
    head = {k for k, _ in _terms(m.group("head"))}
    rest = {k for k, _ in _terms(text[m.end() : first_end])}
    return frozenset(head) if head and rest - head else frozenset()


def value_clause_terms(text: str, value: Value) -> list[tuple[str, str]]:
    """The words of the clause of ``text`` that states ``value`` (cut as :func:`_value_words`
    cuts): what the value is of ("booking fee" of "£2,500 booking fee (non-refundable); ...")."""
    cuts = [0, *(m.end() for m in _VARIANT_BREAK.finditer(text)), len(text)]
    a, b = next(((a, b) for a, b in zip(cuts, cuts[1:]) if a <= value.start < b), (0, len(text)))
    return _terms(text[a:b], [(value.start - a, value.end - a)])


def _bound_elsewhere(near: Sequence[str], text: str, index: int, kinds: Sequence[Value]) -> bool:
    """The ``index``-th value of page sentence ``text`` is another variant's than the value of
    a clause whose words around it are ``near`` (:meth:`_ClauseView.near`): the sentence states
    other values like it in clauses of their own, and a word of ``near`` that only one of those
    clauses has is in another's, not this one's ("£27 for adults" against "45-minute lessons:
    £27 each for children under 18, £32 each for adults": the £27 is the children's)."""
    words = _value_words(text)
    mine = words[index]
    if not near or mine is None:
        return False
    like = [
        w for i, w in enumerate(words) if i != index and w is not None and kinds[i].same_kind(kinds[index])
    ]
    clauses = (mine, *like)
    if not like or any(not w - frozenset().union(*(o for o in clauses if o is not w)) for w in clauses):
        return False  # clauses that are no variants of one another: each names one of its own
    telling = {k for k in near if sum(k in w for w in clauses) == 1}
    return not telling & mine and any(telling & w for w in like)


#: the bare first number of a range whose second carries the unit: "between 20 and", "8 to"
_RANGE_FIRST = re.compile(r"(?<![\d,.])(\d[\d,]*(?:\.\d+)?)\s*(?:and|to|-|–)\s*$", re.I)
_RANGE_SECOND = re.compile(r"\s*(?:and|to|-|–)\s*[£$€]?(\d[\d,]*(?:\.\d+)?)(?!\d|[.:]\d)", re.I)
_LEADING_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _within_range(v: Value, text: str, p: Value) -> bool:
    """``v`` lies within a range page sentence ``text`` states with ``p`` at one end, the other
    end's number read in ``p``'s unit: "10 days before" is within "between 20 and 7 days before",
    "aged 11" within "aged 8 to 15", no rival of either end. Only measures that scale with their
    number (a time of day does not)."""
    if p.kind not in ("quantity", "money", "percent", "number"):
        return False
    other = _RANGE_FIRST.search(text[max(0, p.start - 30) : p.start]) or _RANGE_SECOND.match(text, p.end)
    written = _LEADING_NUMBER.search(p.text)
    if other is None or written is None or v.amount is None or p.amount is None:
        return False
    number = float(written.group().replace(",", ""))
    if not number:
        return False
    end = float(other.group(1).replace(",", "")) * p.amount / number
    return min(end, p.amount) <= v.amount <= max(end, p.amount)


#: a value that bounds something rather than being a case of it: "from age 16", "until 13",
#: "at least 4 weeks", "up to three days"
_BOUND_WORD = re.compile(
    r"\b(?:from|over|under|until|till|after|before|above|below|than|least|to|minimum|maximum|min|max)"
    r"(?:\s+(?:age|ages|aged))?\s*$",
    re.I,
)


def misstates(claim: str, wanted: Value, stated: Value | None, text: str) -> bool:
    """``stated`` (of ``text``) gives the ``claim``'s value ``wanted`` otherwise: another value of
    a size it could be misstated as, and not one case within a range the claim states with
    ``wanted`` at an end ("a 2-year-old" is within "a toddler (1 to 3 years)", "seven days'
    notice" within "3 to 9 days"). A value that is itself a bound or a range's end ("from age
    16", "ages 8 to 14") moves the claim's range, within it or not."""
    if stated is None or stated.equals(wanted) or not plausible_misstatement(wanted, stated):
        return False
    a_case = not (
        _BOUND_WORD.search(text[max(0, stated.start - 20) : stated.start])
        or _RANGE_FIRST.search(text[max(0, stated.start - 30) : stated.start])
        or _RANGE_SECOND.match(text, stated.end)
    )
    return not (a_case and _within_range(stated, claim, wanted))


def _numbered_otherwise(mine: Sequence[Value], theirs: Sequence[Value]) -> bool:
    """``theirs`` numbers one of the numbered names of ``mine`` otherwise, and never as
    ``mine`` does ("Band 3" where the clause says "Band 2")."""
    return any(
        v.names
        and any(p.names == v.names for p in theirs)
        and not any(p.names == v.names and p.equals(v) for p in theirs)
        for v in mine
    )


@lru_cache(maxsize=65536)
def _names(text: str) -> frozenset[str]:
    """Capitalised words inside a sentence (names of plans, people, places), stemmed (memoised:
    asked of a claim and of each window's lead for every claim)."""
    return frozenset(_key(m.group()) for m in (*_NAME.finditer(text), *_INNER_CAPITAL.finditer(text)))


_COUNTED = re.compile(r"[\s-]*([A-Za-z][A-Za-z-]*)")


#: count words that count anything: "up to 15 items at a time" counts "15 books"
_ANY_THING = frozenset(stem(w) for w in ("items", "things", "pieces", "units", "ones"))


def _counted(text: str, value: Value) -> str | None:
    """What a plain number counts: the word after it, stemmed ("10 e-books" -> "e-book"; "27
    Quay Road" -> "quay"), None when a light word or nothing follows ("up to 15 at a time")."""
    m = _COUNTED.match(text, value.end)
    if m is None:
        return None
    word = m.group(1).lower()
    return None if word in STOPWORDS or word in _LIGHT else stem(word)


#: a page sentence that states something free beside its price ("first 30 miles included, then
#: 24p per mile", "free for members, £5 otherwise")
_FREE_PART = re.compile(r"\b(?:included|free|no charge|no cost|nothing)\b", re.I)


def _periods_alike(value: Value, page: Value) -> bool:
    """Prices both with a period or both without; or one without it whose amount as written is
    close to the other's: a list under "prices per month" ("Dedicated Desk: £295") against "£350
    a month". Not "$249/mo" against a "$0.40" overage."""
    if (value.period is None) == (page.period is None):
        return True
    if value.kind != "money" or page.kind != "money":
        return False
    mine, theirs = (v.raw if v.raw is not None else v.amount for v in (value, page))
    return bool(mine and theirs) and max(mine, theirs) / min(mine, theirs) < 3


def plausible_misstatement(stated: Value, page: Value) -> bool:
    """A misstated value keeps the unit it is written in, or at least its order of size: a
    "45-minute" lesson is no misstatement of a "4-week" block but a length of another thing,
    while "2 weeks" against "10 days" may be one."""
    if stated.factor == page.factor or not stated.amount or not page.amount:
        return True
    ratio = max(abs(stated.amount), abs(page.amount)) / min(abs(stated.amount), abs(page.amount))
    return ratio <= 10  # "1 TB" may misstate "100 GB"


def names_another(text: str, pairs: Sequence[tuple[Value, Value | None]], known: set[str]) -> bool:
    """``text`` names, in the stretch before a value it states otherwise (from the start of its
    clause), a thing that is none of ``known`` (the claim's names and the question's) nor a day
    or month: the subject of that value is another variant."""
    for wanted, stated in pairs:
        if stated is None or stated.equals(wanted):
            continue
        lead = re.split(r"[.;:!?\n|]", text[: stated.start])[-1]
        if _names(lead) - known - _CALENDAR:
            return True
    return False


def _counts_alike(text: str, value: Value, page_text: str, rival: Value) -> bool:
    """Two plain numbers are rivals only when they count the same thing, or one says not what:
    "10 e-books" is no rival of "renewed up to 3 times", nor "two spaces" of "27 Quay Road"."""
    if value.kind != "number" or rival.kind != "number":
        return True
    mine, theirs = _counted(text, value), _counted(page_text, rival)
    return mine is None or theirs is None or mine == theirs


class Lexicon:
    """Word vectors for paraphrase matching: every distinct word encoded once, on its own, and
    kept in ``store`` (an .npz per embedding model) for later runs: a site's vocabulary is small
    and repeats, so after the first run nearly every word is a lookup. The vectors are one matrix,
    so that a word's cosines to a window's words are one matrix-vector product."""

    MAX_STORED = 200_000
    _adding = threading.Lock()  # batches of one run may share a lexicon from several threads

    def __init__(self, embedder: Embedder | None, store: Path | None = None):
        self.embedder = embedder
        self.store = store
        self._rows: dict[str, int] = {}  # word -> its row of ``_matrix``
        self._matrix = np.zeros((0, 0), np.float32)
        self._closest: dict[tuple[str, ...], dict[str, float]] = {}  # others -> word -> cosine
        self._memoised = 0
        self._blocks: dict[tuple[str, ...], np.ndarray | None] = {}  # words -> their vectors' rows
        if store is not None and store.exists():
            try:
                with np.load(store, allow_pickle=False) as data:
                    words, matrix = data["words"].tolist(), np.asarray(data["vectors"], np.float32)
                if matrix.ndim == 2 and len(words) == len(matrix):
                    self._rows, self._matrix = {w: i for i, w in enumerate(words)}, matrix
            except (OSError, ValueError, KeyError):
                pass  # a damaged store is rebuilt

    def __contains__(self, word: str) -> bool:
        return word in self._rows

    def add(self, words: Iterable[str]) -> None:
        words = set(words)
        if self.embedder is None or words.issubset(self._rows):
            return
        with self._adding:
            new = sorted(w for w in words if w not in self._rows)
            if new:
                self._learn(new)

    def _learn(self, new: list[str]) -> None:
        try:
            vecs = np.asarray(self.embedder.encode(new), np.float32)
        except Exception:  # noqa: BLE001 - paraphrase by vectors is an aid, not a requirement
            return
        # the matrix first: a reader that finds a new word's row finds it in the matrix
        self._matrix = np.concatenate([self._matrix, vecs]) if self._rows else vecs
        self._rows.update({w: len(self._rows) + i for i, w in enumerate(new)})
        self._closest.clear()  # made without the new words' vectors
        self._memoised = 0
        self._blocks.clear()
        self._save()

    def _save(self) -> None:
        if self.store is None or not self._rows or len(self._rows) > self.MAX_STORED:
            return
        try:
            with atomic_path(self.store) as tmp, open(tmp, "wb") as f:
                np.savez(f, words=np.array(list(self._rows)), vectors=self._matrix)
        except OSError:
            pass  # a read-only cache only costs speed

    def near(self, others: tuple[str, ...]) -> dict[str, float]:
        """The memo of :meth:`closest` for ``others`` (word -> cosine): a caller that asks of
        several words against one window hashes the window once."""
        memo = self._closest.get(others)
        if memo is None:
            if self._memoised > 4_000_000:
                self._closest.clear()
                self._memoised = 0
            memo = self._closest[others] = {}
        return memo

    def closest(self, word: str, others: tuple[str, ...], memo: dict[str, float] | None = None) -> float:
        """The cosine of ``word`` and the closest of ``others`` (0 without vectors), memoised per
        (word, others): the judge's innermost loop meets the same claim word and window (or page
        sentence) again and again. A window's vectors are gathered once into a block, so a new word
        costs one small matrix-vector product (a list's ``max`` is cheaper than numpy's here)."""
        memo = self.near(others) if memo is None else memo
        best = memo.get(word)
        if best is not None:
            return best
        at = self._rows.get(word)
        best = 0.0
        if at is not None:
            block = self._blocks.get(others, False)
            if block is False:
                found = [r for o in others if (r := self._rows.get(o)) is not None]
                block = self._matrix[found] if found else None
                if len(self._blocks) > 200_000:
                    self._blocks.clear()
                self._blocks[others] = block
            if block is not None:
                best = max(0.0, max((block @ self._matrix[at]).tolist()))
        memo[word] = best
        self._memoised += 1
        return best


#: words that take what follows out of a statement: "every plan except Personal"
_EXCEPTING = re.compile(
    r"\b(?:except|excluding|exclusive of|apart from|other than|but not|besides|not|rather than|instead of)\b",
    re.I,
)


@dataclass(frozen=True)
class Window:
    """A stretch of the response a claim may be stated in."""

    span: Span
    terms: tuple[tuple[str, str], ...]
    values: tuple[Value, ...]
    negated: bool
    single: bool  # one clause: its polarity is the polarity of what it states
    lead: str = ""  # its sentence up to its end (a pair: its first sentence): where a clause's subject is


@dataclass(frozen=True)
class ClaimWords:
    """A claim as the checks read it: its typed values, its words (key, word) outside them, its
    own fact words (not the question's or the brand's, not light words such as "offers"), and
    the keys of its likely names."""

    values: tuple[Value, ...]
    terms: tuple[tuple[str, str], ...]
    fact_terms: tuple[tuple[str, str], ...]
    names: frozenset[str]


@dataclass(frozen=True)
class PageSentence:
    """A sentence of the site's pages, parsed for fact checks."""

    text: str
    url: str
    values: tuple[Value, ...]
    negated: bool
    terms: tuple[tuple[str, str], ...]
    single: bool  # one clause
    names: tuple[tuple[str, str], ...]  # its likely names (key, word)
    labels: tuple[str | None, ...]  # per value, the name it is bound to (see _label)


@dataclass(frozen=True)
class PageFinding:
    """A statement of the response that the site's pages state otherwise."""

    statement: Span  # the clause, in response coordinates
    kind: str  # number | date | money | quantity | entity | negation | scope
    evidence: str  # the page sentence
    url: str
    detail: str  # what differs: "$66 (response) vs $60 per year (page)"
    confidence: float
    replaced: tuple = ()  # what the page states instead (its value, or its names); or the names it denies


#: the name a line is led by: "Ancoats:", "**Grove City:**", "- Old Exchange:", "- Plus – buildings"
_LEAD_LABEL = re.compile(
    r"^[\s*_#>|•–—-]*([A-Z][\w'’&.-]*(?:\s+[A-Z][\w'’&.-]*){0,3})\s*\**\s*(?::|\s[–—-]\s)"
)


@lru_cache(maxsize=65536)
def _pairs(text: str) -> frozenset[tuple[str, str]]:
    """Adjacent content words of ``text`` (keys), outside values: "voluntary excess". Memoised:
    a page sentence is asked of every clause near it."""
    words = [m.group() for m in _WORD.finditer(text)]
    keys = [None if (w.lower() in STOPWORDS or any(c.isdigit() for c in w)) else _key(w) for w in words]
    return frozenset((a, b) for a, b in zip(keys, keys[1:]) if a and b and a != b)


def _shared_pair(text: str, page_text: str) -> bool:
    """Whether the two texts share two content words written side by side ("a voluntary excess of
    up to £500" and "up to £1,000 of voluntary excess"): the same thing, in other verbs."""
    return bool(_pairs(text) & _pairs(page_text))


@dataclass(frozen=True)
class _ClauseView:
    """A clause of an answer as the page checks read it (:meth:`OfflineJudge._view`)."""

    names: tuple[tuple[str, str], ...]
    values: tuple[Value, ...]
    terms: tuple[tuple[str, str], ...]
    own: tuple[tuple[str, str], ...]
    text: str = ""

    def near(self, value: Value) -> list[str]:
        """The clause's own words (keys) that name what ``value`` is the value of: those between
        the values around it ("£27 for adults and £19 for children": "adults" for £27), none
        where the clause states another value like it (a range or a pair: no one variant). A
        verb ("costs") names no variant."""
        if sum(value.same_kind(u) for u in self.values) != 1:
            return []
        lo = max((u.end for u in self.values if u.end <= value.start), default=0)
        hi = min((u.start for u in self.values if u.start >= value.end), default=len(self.text))
        around = {k for k, _ in _terms(self.text[lo:hi])}
        return [k for k, w in self.own if k in around and len(w) > 2 and not _VERB.fullmatch(w)]


@dataclass
class Verdict:
    verdict: str  # found | missing | contradicted
    window: Window | None = None
    support: float = 0.0
    evidence: str = ""
    kind: str = "other"  # for contradicted: number|date|money|quantity|entity|negation|other


@dataclass
class OfflineJudgeSettings:
    word_similarity: float = 0.72  # a word's vector this close to a claim word counts as stating it
    found_frame: float = 0.72  # frame (weighted share of the claim's words stated) to be found
    found_frame_with_value: float = 0.34  # ... when the window states the claim's values
    found_cosine: float = (
        0.75  # or a sentence this close with half the words (completeness.similarity_threshold)
    )
    conflict_frame: float = 0.5  # a rival value counts in a window this much about the claim
    name_frame: float = 0.75  # ... and, for a name the site never uses, this much of the rest
    page_frame: float = 0.6  # a page sentence is about a statement when it states this much of it
    fact_frame: float = 0.6  # ... stating this much of the claim's own words (beyond the question's)
    anchor_frame: float = 0.3  # ... or this much, where it states another value of the statement
    found_fact_frame: float = 0.5  # a claim without values is found where this much of its own words are
    restated_frame: float = 0.6  # ... or where this much of the words of a page sentence stating it are
    negation_frame: float = 0.72  # the opposite polarity counts in a clause this much about it
    denial_frame: float = 0.6  # an answer's denying clause is the claim's when this much of it is the claim's
    denied_margin: float = 0.3  # share of the claim the denying sentence states beyond the found clause
    otherwise_accuracy: float = 25.0  # an on-topic answer this far from the expected answer, stating
    otherwise_topic: float = 0.5  # ... this much of the question and none of its claims, answers otherwise
    entity_frame: float = 0.99  # the question's terms all there, the fact's missing: another fact
    entity_cosine: float = 0.6


def _subject_word(word: str) -> bool:
    """Whether a word can say what a statement is about: not a letter alone nor the "am" or "pm"
    of a time ("p.m." is read as "p" and "m", "10am" as "am")."""
    return len(word) > 1 and word not in ("am", "pm")


def _bare_schedule(text: str) -> bool:
    """A line of a schedule with no word of its own besides days and times: "Saturday: 10am to
    2pm", "Sun 11-3"."""
    days = [(d.start, d.end) for d in day_sets(text)]
    return bool(days) and not [w for _, w in _terms(text, days) if _subject_word(w)]


def _closed_schedule(text: str) -> bool:
    """A line of a schedule that says only which days something is not on: "Sunday: closed",
    "Closed on Sundays and Mondays"."""
    said = days_said(text)
    days = [(d.start, d.end) for d in said]
    return (
        bool(said)
        and not any(d.open for d in said)
        and not [w for k, w in _terms(text, days) if _subject_word(w) and k not in _CLOSED_WORDS]
    )


_CLOSED_WORDS = frozenset(_key(w) for w in ("closed", "shut", "none"))

#: kinds of value that, stated alike, tie a statement to a page sentence about the same thing
_SHARED_KINDS = frozenset({"money", "quantity", "percent", "date", "day", "time"})
#: kinds of value whose rival a page sentence may show by stating another value of the statement
_ANCHORED = frozenset({"money", "quantity", "date", "day", "time"})

_VALUE_KIND = {
    "money": "money",
    "percent": "number",
    "quantity": "quantity",
    "date": "date",
    "year": "date",
    "day": "date",
    "number": "number",
}


def value_kind(value: Value) -> str:
    """The wrong-fact kind of a value stated otherwise (``Contradiction.kind``)."""
    return _VALUE_KIND.get(value.kind, "number")


#: the detail of a statement a page sentence states with the other polarity
OPPOSITE_DETAIL = "the page states the opposite"


def _opposite_finding(clause: Span, page: PageSentence, frame: float) -> PageFinding:
    """A clause the page sentence states with the other polarity; surer the more it is about it."""
    return PageFinding(
        clause,
        "negation",
        page.text,
        page.url,
        OPPOSITE_DETAIL,
        round(min(0.9, 0.4 + frame / 2), 2),
    )


def _value_finding(
    clause: Span, stated: Value, page: PageSentence, instead: Value, confidence: float
) -> PageFinding:
    """A value of the response that a page sentence states otherwise."""
    detail = f"{stated.text} (response) vs {instead.text} (page)"
    kind = _VALUE_KIND.get(stated.kind, "number")
    return PageFinding(clause, kind, page.text, page.url, detail, confidence, (instead,))


def _sentence_of(win: Window, sentences: Sequence[Window]) -> Span:
    """The answer's sentence that holds ``win`` (the window itself where none does: a pair of
    sentences)."""
    return next(
        (w.span for w in sentences if w.span.start <= win.span.start and win.span.end <= w.span.end),
        win.span,
    )


def _given_for_other_days(claim_days: Sequence[DaysSaid], text: str, at: int) -> bool:
    """Whether the value of ``text`` at ``at`` is given for days of the week of which the claim
    says something is on none: in "Tuesday through Friday between ten in the morning and six in
    the evening, and on Saturdays from nine until five" the 10:00 is a Tuesday's, no rival of a
    claim's Saturday 09:00."""
    claim_on = frozenset().union(*(d.days for d in claim_days if d.open))
    (bound,) = days_bound(text, [at])
    given = frozenset().union(*(d.days for d in bound if d.open))
    if any(day >= MONTHLY for day in claim_on | given):
        return False  # days of a month are weighed only against days of a month
    return bool(claim_on) and bool(given) and not claim_on & given


def _together(win: Window, stated: Sequence[Value]) -> list[int]:
    """Where ``win`` states each of ``stated``: of a value stated more than once, the place
    nearest the value stated fewest times ("10:00-15:00" in "Tue-Fri 10:00-17:00; phones Mon-Fri
    10:00-15:00" for a claim of 10:00 to 15:00)."""
    places = [[v.start for v in win.values if v.equals(value)] for value in stated]
    places = [p for p in places if p]
    if not places:
        return []
    anchor = min(places, key=len)[0]
    return [min(p, key=lambda at: abs(at - anchor)) for p in places]


def _days_text(said: Sequence[DaysSaid]) -> str:
    """Days as a detail reads them: "Thursday to Monday", "not Tuesday and Wednesday"."""
    on = frozenset().union(*(d.days for d in said if d.open))
    off = frozenset().union(*(d.days for d in said if not d.open))
    parts = ([day_names(on - off)] if on - off else []) + ([f"not on {day_names(off)}"] if off else [])
    return ", ".join(parts)


#: the words that only say what kind of value follows: "costs £9" says no more than "£9"
_KIND_WORDS = {
    "money": frozenset(k for k, g in _GROUP.items() if g == _GROUP[_key("cost")]),
}


@dataclass
class OfflineJudge:
    """The offline judge: claim verdicts (``judge_claims``) and wrong facts against pages."""

    lexicon: Lexicon
    settings: OfflineJudgeSettings = field(default_factory=OfflineJudgeSettings)

    # ----- term matching ---------------------------------------------------------------------
    def _credit(
        self, term: tuple[str, str], window_terms: tuple[tuple[str, str], ...], threshold: float | None = None
    ) -> float:
        """1 for the same word or a listed synonym; else the closest word vector's cosine when it
        reaches ``threshold``. A model name counts only as itself: "BX-500" is not "BX-1000"."""
        s, w = term
        others, groups, words = _indexed(window_terms)
        if s in others:
            return 1.0
        group = _GROUP.get(s)
        if group is not None and group in groups:
            return 1.0
        if _has_digit(w):
            return 0.0
        threshold = self.settings.word_similarity if threshold is None else threshold
        best = self.lexicon.closest(w, words)
        return best if best >= threshold else 0.0

    @staticmethod
    def _implied(term: str, implicit: set[str]) -> bool:
        group = _GROUP.get(term)
        return term in implicit or (group is not None and any(_GROUP.get(i) == group for i in implicit))

    def _stated(self, fact_terms: Sequence[tuple[str, str]], window_terms: Sequence[tuple[str, str]]) -> bool:
        """At least one of the claim's own fact words is in the window (a close word vector
        counts only when very close: "oxygen" is 0.63 from "dioxide")."""
        window_terms = tuple(window_terms)
        return any(self._credit(t, window_terms, threshold=0.8) for t in fact_terms)

    def frame(
        self,
        terms: Sequence[tuple[str, str]],
        window_terms: Sequence[tuple[str, str]],
        implicit: set[str] = frozenset(),
    ) -> float:
        """Weighted share of ``terms`` the window states; light words weigh half, and terms in
        ``implicit`` (the question's, the brand's) count as stated when absent, provided the window
        states at least one word of the claim itself (a window that says nothing of it is not
        about it)."""
        others, groups, words = _indexed(tuple(window_terms))  # _credit, inline: the innermost loop
        threshold, memo = self.settings.word_similarity, None
        total = got = implied = 0.0
        for term in dict.fromkeys(terms):
            s, w = term
            weight = 0.5 if s in _LIGHT else 1.0
            total += weight
            if s in others:
                credit = 1.0
            elif (group := _GROUP.get(s)) is not None and group in groups:
                credit = 1.0
            elif _has_digit(w):
                credit = 0.0
            else:
                if memo is None:
                    memo = self.lexicon.near(words)
                best = memo.get(w)
                if best is None:
                    best = self.lexicon.closest(w, words, memo)
                credit = best if best >= threshold else 0.0
            if not credit and self._implied(s, implicit):
                implied += weight * 0.8
            got += weight * credit
        if not total:
            return 1.0
        return (got + implied) / total if got else 0.0

    # ----- windows ---------------------------------------------------------------------------
    @staticmethod
    def windows(text: str) -> list[Window]:
        """Sentences, their clauses and pairs of adjacent sentences of ``text``."""
        sentences = split_sentences(text)
        spans = [(s, s.start) for s in sentences]
        for s in sentences:
            spans += [(c, s.start) for c in _clauses(s)]
        for a, b in zip(sentences, sentences[1:]):
            spans.append((Span(a.start, b.end, text[a.start : b.end]), -a.end))
        out, seen = [], set()
        for sp, sentence_start in spans:
            if (sp.start, sp.end) in seen:
                continue
            seen.add((sp.start, sp.end))
            vals = values(sp.text)
            single = len(split_clauses(sp, min_words=2)) == 0
            out.append(
                Window(
                    sp,
                    tuple(_terms(sp.text, [(v.start, v.end) for v in vals])),
                    tuple(vals),
                    is_negated(sp.text),
                    single,
                    text[sentence_start : sp.end]
                    if sentence_start >= 0
                    else text[sp.start : -sentence_start],
                )
            )  # a pair: its first sentence
        return out

    @staticmethod
    def keys(texts: Iterable[str]) -> set[str]:
        """The term keys of ``texts``: what an answer may leave implicit (the question's words)."""
        return {k for t in texts for k, _ in _terms(t)}

    def vocabulary(self, texts: Iterable[str]) -> set[str]:
        return {w for t in texts for _, w in _terms(t)}

    # ----- claims ----------------------------------------------------------------------------
    def claim_words(self, claim: str, implicit: set[str]) -> ClaimWords:
        """A claim's values and words as the checks weigh them (see :class:`ClaimWords`)."""
        claim_values = tuple(values(claim))
        terms = tuple(_terms(claim, [(v.start, v.end) for v in claim_values]))
        fact_terms = tuple(t for t in terms if not self._implied(t[0], implicit) and t[0] not in _LIGHT)
        return ClaimWords(claim_values, terms, fact_terms, _names(claim))

    def _frame_beside(
        self,
        fact_terms: Sequence[tuple[str, str]],
        window_terms: Sequence[tuple[str, str]],
        pairs: Sequence[tuple[Value, Value | None]],
        single: bool,
    ) -> float:
        """How much of a claim's own words a window states that gives one of its values otherwise,
        leaving out the words that only name that value's kind ("late checkout £25" says what "Late
        checkout costs £20 at weekends" says it of, "costs" included); in a window of one sentence,
        each other number or price of the claim it states alike counts as a word stated ("Juniors
        (10-14) | £445" gives the "10-14" of "Juniors aged 10-14 pay £495"). A window of several
        sentences may state those of another variant."""
        rival_kinds = {a.kind for a, b in pairs if b is not None and not b.equals(a)}
        skip = frozenset().union(*(_KIND_WORDS.get(k, frozenset()) for k in rival_kinds))
        words = [t for t in fact_terms if t[0] not in skip]
        alike = (
            sum(
                1
                for a, b in pairs
                if b is not None
                and b.equals(a)
                and a.kind in ("number", "money", "percent")
                and not is_word_one(a)
            )
            if single
            else 0
        )
        total = len(words) + alike
        if not total:
            return 1.0
        return ((self.frame(words, window_terms) * len(words) if words else 0.0) + alike) / total

    def _denial_about(self, terms: Sequence[tuple[str, str]], window: Span) -> bool:
        """A clause of ``window`` that denies is one of the claim: two or more of the claim's
        words (``terms``) in it, and most of its words the claim's (``denial_frame``). "It is not
        the most populous city in Central Asia" denies a claim that says more; "can't be
        members" beside "membership is 18+" denies something else. A window of one clause is its
        own."""
        clauses = split_clauses(window, min_words=2) or [window]
        denials = [c for c in clauses if has_negation(c.text) or is_negated(c.text)]
        if not denials:
            return True  # the denial spans the clauses: the window's as a whole
        keys = {k for k, _ in terms}
        return any(
            len({k for k, _ in said} & keys) >= 2 and self.frame(said, terms) >= self.settings.denial_frame
            for said in (_terms(c.text) for c in denials)
        )

    def judge_claim(
        self, claim: str, windows: Sequence[Window], cosines: Sequence[float], implicit: set[str]
    ) -> Verdict:
        """found (the best supporting window), contradicted (the window that states it
        otherwise, and how), or missing."""
        st = self.settings
        words = self.claim_words(claim, implicit)
        claim_values, terms, fact_terms = list(words.values), list(words.terms), list(words.fact_terms)
        negated = is_negated(claim)
        best: Verdict | None = None
        against: Verdict | None = None
        named = _names(claim)
        own_names = named & implicit
        # what the claim says of its subject (the names the question gives it): a window that
        # states none of it is about the subject, not the claim ("it is the best note app" says
        # nothing of working offline)
        predicate = [t for t in terms if t[0] not in own_names]
        # each of the claim's own words weighs by how few windows state it: the word that tells
        # one list item from the others ("toric") outweighs those they share ("daily", "lenses")
        rarity = {
            k: 1.0 / n for k, _ in fact_terms if (n := sum(any(k == t for t, _ in w.terms) for w in windows))
        }

        def telling(win: Window) -> float:
            keys = {t for t, _ in win.terms}
            return sum(w for k, w in rarity.items() if k in keys) / sum(rarity.values()) if rarity else 0.0

        # the days the claim says something is on or not; a negated claim's only where its
        # negation is of the days ("does not open on Mondays")
        claim_days = days_said(claim)
        if negated and all(d.open for d in claim_days):
            claim_days = ()
        days_otherwise_at: list[Span] = []  # the sentences and clauses that give the claim other days
        sentences = [w for w in windows if w.lead == w.span.text]
        for win, cos in zip(windows, cosines):
            frame = self.frame(terms, win.terms, implicit)
            verdict, pairs = compare_values(claim, win.span.text)
            if claim_days and verdict != "conflict":
                if len(split_sentences(win.span.text)) > 1:
                    # a pair of sentences (the last windows) is judged by its sentences: one that
                    # gives the claim other days does not find it with the other's words
                    if any(win.span.start <= s.start and s.end <= win.span.end for s in days_otherwise_at):
                        continue
                else:
                    # the days the window gives the claim's values for (all it names if none)
                    # read in its sentence: "closed Monday and Tuesday" says what its clause
                    # "and Tuesday" means
                    whole = _sentence_of(win, sentences)
                    offset = win.span.start - whole.start
                    at = [
                        offset + p
                        for p in _together(win, [a for a, b in pairs if b is not None and b.equals(a)])
                    ]
                    stated = tuple(
                        group
                        for g in days_bound(whole.text, at)
                        if (group := tuple(d for d in g if offset <= d.start < offset + len(win.span.text)))
                    )
                    if stated and days_otherwise(claim_days, stated, bool(at)):
                        # the claim's times, prices or the thing itself on other days: the window
                        # does not state the claim; where it is about the claim, it contradicts it
                        days_otherwise_at.append(win.span)
                        if frame >= st.conflict_frame and not other_variant(claim, win.span.text):
                            score = frame + telling(win) + 0.25 * cos - len(win.span.text) / 150
                            if against is None or score > against.support:
                                given = [d for g in stated for d in g]
                                detail = f"{_days_text(claim_days)} (claim) vs {_days_text(given)} (response)"
                                against = Verdict("contradicted", win, score, detail, "scope")
                        continue
                    if stated and days_elsewhere(claim_days, stated):
                        days_otherwise_at.append(win.span)  # states other days: no statement of the claim's
                        continue
            if verdict == "conflict":
                whole = _sentence_of(win, sentences)
                offset = win.span.start - whole.start
                pairs = [
                    (a, b)
                    for a, b in pairs
                    if b is None or not _given_for_other_days(claim_days, whole.text, offset + b.start)
                ]
                if not any(misstates(claim, a, b, win.span.text) for a, b in pairs):
                    # "10 hours" is no misstatement of a "10-day pack", nor a Tuesday's "ten in
                    # the morning" of a Saturday's 09:00: another thing
                    verdict = "other"
            opposite = opposite_polarity(claim, win.span.text) and not UNSURE.search(win.span.text)
            same_polarity = win.negated == negated or (
                # "isn't open apart from two Open Days: the first Sunday of June ..." states when it is
                win.negated and not negated and not opposite and _denied_but_for(win.span.text)
            )
            if negated and same_polarity and not _negation_about(win.span.text, terms):
                same_polarity = False  # "can't measure blood pressure" does not state "does not detect AFib"
            if verdict != "conflict" and same_polarity and (verdict == "agree" or not claim_values):
                needed = st.found_frame_with_value if claim_values else st.found_frame
                fact_ok = (
                    not fact_terms
                    or bool(claim_values)
                    or self.frame(fact_terms, win.terms) >= st.found_fact_frame
                ) and (bool(claim_values) or not predicate or self.frame(predicate, win.terms) > 0)
                if fact_ok and (frame >= needed or (cos >= st.found_cosine and frame >= needed / 2)):
                    support = frame + 0.25 * cos + (0.5 if claim_values else 0)
                    if (
                        best is None
                        or support > best.support
                        or (support == best.support and len(win.span.text) < len(best.window.span.text))
                    ):
                        best = Verdict("found", win, support, win.span.text)
                continue
            if self.about_another(words, win, implicit):
                continue
            if (
                verdict == "conflict"
                and frame >= st.conflict_frame
                and (
                    not fact_terms
                    or self._frame_beside(
                        fact_terms, win.terms, pairs, len(split_sentences(win.span.text)) == 1
                    )
                    >= st.fact_frame
                )
                and not other_variant(claim, win.span.text)
                # a window that names a thing of its own before its value ("a Samsung Galaxy S23
                # screen is £119" against the iPhone 14's price) states another variant's value
                and not names_another(win.span.text, pairs, named | implicit)
                and not days_apart(claim, win.span.text)
            ):
                wanted, stated = next((a, b) for a, b in pairs if misstates(claim, a, b, win.span.text))
                # the window stating most of the claim's telling words, then the tightest: of a
                # list's items, "Toric dailies: £22" for a claim about toric lenses, not the first
                score = frame + telling(win) + 0.25 * cos - len(win.span.text) / 150
                if against is None or score > against.support:
                    against = Verdict(
                        "contradicted",
                        win,
                        score,
                        f"{wanted.text} (claim) vs {stated.text} (response)",
                        value_kind(wanted),
                    )
            elif (
                opposite
                and frame >= st.negation_frame
                and self.frame(terms, win.terms) >= 0.25  # said, not implied
                and _negation_about(claim if negated else win.span.text, terms)
                and _states(win.span.text)
                and not _CONDITION.search(claim if negated else win.span.text)
                and not other_variant(claim, win.span.text)
                # "e-bikes are off the list", "they skip Thai massage" deny in other words
                and not (negated and _rules_out(win.span.text))
                # one sentence: a denial in the next sentence is about another thing
                and len(split_sentences(win.span.text)) == 1
                and not (negated and _same_limit(claim, win.span.text))
                # an answer's denial is of the claim only in a clause about it: "can't be members
                # since membership is 18+" and "if you don't show up you pay the full price"
                # restate the claim beside a denial of something else
                and (negated or self._denial_about(terms, win.span))
            ):
                score = frame + 0.25 * cos - 0.1 - len(win.span.text) / 150
                if against is None or score > against.support:
                    word = "negated" if not negated else "affirmed"
                    against = Verdict(
                        "contradicted", win, score, f'{word} in the response: "{win.span.text}"', "negation"
                    )
        if best is not None and not self._denied_around(best, against, terms, implicit):
            return best
        if against is not None:
            return against
        if claim_values:  # the values decide a claim that has them
            return Verdict("missing")
        entity = self._other_entity(claim, terms, fact_terms, implicit, windows, cosines)
        return entity or Verdict("missing")

    def about_another(self, words: ClaimWords, win: Window, implicit: set[str]) -> bool:
        """Whether ``win`` is about another named thing than the claim of ``words``: it leaves
        out one of the claim's own names (another plan, person, place or prize), or its sentence
        names the other thing the question names (in "BX-500 vs BX-1000", a window about the
        BX-1000 alone says nothing of a BX-500 claim) with a word the claim never says, or in a
        sentence before the window's own ("- Evening gown: £28" is about an evening gown claim;
        "Evening" names no other thing)."""
        names = [t for t in words.terms if t[0] in words.names and not self._implied(t[0], implicit)]
        if names and self.frame(names, win.terms) < 1:
            return True
        own_names = words.names & implicit
        lead = _names(win.lead or win.span.text)
        other = (lead & implicit) - words.names if own_names - lead else None
        claim_keys = {k for k, _ in words.terms}
        return bool(other) and bool(other - claim_keys or len(split_sentences(win.span.text)) > 1)

    def _denied_around(
        self, found: Verdict, against: Verdict | None, terms: Sequence[tuple[str, str]], implicit: set[str]
    ) -> bool:
        """The clause that states a claim lies inside a sentence that denies it (a negation window
        is one sentence) and states ``denied_margin`` more of the claim ("X is not an element; it
        has atomic number 59")."""
        if against is None or against.kind != "negation" or found.window is None or against.window is None:
            return False
        inner, outer = found.window, against.window
        return (
            outer.span.start <= inner.span.start
            and inner.span.end <= outer.span.end
            and (outer.span.start, outer.span.end) != (inner.span.start, inner.span.end)
            and self.frame(terms, outer.terms, implicit)
            >= self.frame(terms, inner.terms, implicit) + self.settings.denied_margin
        )

    def stating_pages(
        self, claim: str, pages: Sequence[PageSentence], implicit: set[str]
    ) -> list[PageSentence]:
        """The page sentences that state a claim: its values (a claim with values), its polarity
        (one without), and most of its words (``found_frame``)."""
        claim_values = values(claim)
        terms = _terms(claim, [(v.start, v.end) for v in claim_values])
        negated = is_negated(claim)
        return [
            page
            for page in pages
            if (page.values if claim_values else page.negated == negated)
            and compare_values(claim, page.text)[0] == "agree"
            and self.frame(terms, page.terms, implicit) >= self.settings.found_frame
        ]

    def restated(
        self, claim: str, windows: Sequence[Window], stating: Sequence[PageSentence], implicit: set[str]
    ) -> Verdict | None:
        """found where the response restates, in its own words, a page sentence that states the
        claim (``stating_pages``): the window has the page sentence's polarity, states the claim's
        values, conflicts with none of the page sentence's, and states ``found_frame_with_value``
        of its other words (``restated_frame`` for a claim without values). The page
        supplies the vocabulary the claim's own words lack: "according to the 2020 joint survey"
        states "the height was measured in 2020" through "its height was measured in 2020 through
        a joint survey"."""
        st = self.settings
        needed = st.found_frame_with_value if values(claim) else st.restated_frame
        agreeing = [w for w in windows if compare_values(claim, w.span.text)[0] == "agree"]
        best: Verdict | None = None
        for page in stating:
            own = [t for t in page.terms if not self._implied(t[0], implicit) and t[0] not in _LIGHT]
            if not own:
                continue
            for win in agreeing:
                if win.negated != page.negated or compare_values(win.span.text, page.text)[0] == "conflict":
                    continue
                frame = self.frame(own, win.terms)
                if frame >= needed and (best is None or frame > best.support):
                    best = Verdict("found", win, frame, win.span.text)
        return best

    def _other_entity(self, claim, terms, fact_terms, implicit, windows, cosines) -> Verdict | None:
        """The claim's frame stated with another name in the fact's place: "releases carbon
        dioxide" for "releases oxygen", "in the Andes" for "in the Himalayas"."""
        st = self.settings
        framing = [t for t in terms if t not in fact_terms and t[0] not in _LIGHT]
        if not fact_terms or len(fact_terms) > 3 or len(framing) < 2:
            return None
        claim_names = _names(claim) | {s for s, _ in fact_terms}
        before = _word_before(claim, fact_terms[0][1])
        verb = _VERB.search(claim)
        if (
            verb
            and before is not None
            and _key(before) in implicit
            and re.search(rf"\b{re.escape(fact_terms[0][1])}\b", claim[: verb.start()], re.I)
        ):
            # the fact names the variant of the site's product the claim is about ("the Driftnote
            # Free plan does not include ..."): a window with another variant there speaks of
            # another thing, it does not contradict this one
            return None
        for win, cos in sorted(zip(windows, cosines), key=lambda x: -x[1]):
            if cos < st.entity_cosine or len(win.span.text) > 300 or not win.single or len(win.terms) < 3:
                continue
            if self.frame(framing, win.terms) >= st.entity_frame and not self._stated(fact_terms, win.terms):
                new = [
                    w
                    for s, w in win.terms
                    if s not in implicit
                    and s not in claim_names
                    and s not in _LIGHT
                    and s not in _HEDGES
                    and self.frame([(s, w)], [t for t in terms]) == 0
                ]
                # the other thing stands where the claim's fact stands: "located in the Andes" for
                # "located in the Himalayas", not "started in Lisbon" for "founded by Carvalho"
                new = [w for w in new if before is not None and _word_before(win.span.text, w) == before]
                if new:
                    return Verdict(
                        "contradicted",
                        win,
                        cos,
                        f"{', '.join(w for _, w in fact_terms)} (claim) vs {_phrase(win.span.text, new[0])} (response)",
                        "entity",
                    )
        return None

    # ----- an answer to the question that is not the expected one -----------------------------
    def answers_otherwise(
        self, query: str, text: str, sentences: Sequence[Span], accuracy: float
    ) -> Span | None:
        """The statement by which the response answers the question otherwise than the expected
        answer, or None. Where the expected answer is *the* answer, an answer to the same question
        (it states most of the question's words) that is far from it (accuracy below
        ``otherwise_accuracy``), and that states none of its claims, is a confident wrong answer:
        "Adam and Eve ate an apple" for "the Bible doesn't say which fruit". Labeled TruthfulQA
        answers (train): 36 wrong answers caught, no right or off-topic answer taken for one. A
        declined or unsure answer says nothing either way."""
        st = self.settings
        question = self.keys([query])
        if not question or accuracy >= st.otherwise_accuracy or UNSURE.search(text):
            return None
        if len(question & self.keys([text])) / len(question) < st.otherwise_topic:
            return None
        best = max(sentences, key=lambda s: (len(question & self.keys([s.text])), -s.start), default=None)
        return best if best is not None and question & self.keys([best.text]) else None

    # ----- wrong facts against the pages ------------------------------------------------------
    @staticmethod
    def page_facts(sentences: Iterable[tuple[str, str]]) -> list[PageSentence]:
        """Page sentences (text, URL) with their values, polarity and terms, parsed once."""
        out = []
        for text, url in sentences:
            vals = tuple(values(text))
            out.append(
                PageSentence(
                    text,
                    url,
                    vals,
                    is_negated(text),
                    tuple(_terms(text, [(v.start, v.end) for v in vals])),
                    not split_clauses(Span(0, len(text), text), min_words=2),
                    tuple(_name_words(text)),
                    tuple(_label(text, v.start) for v in vals),
                )
            )
        return out

    @staticmethod
    def site_names(every: Sequence[PageSentence]) -> set[str]:
        """Every word of the site's pages (keys), its names included: what the site ever says."""
        return {k for page in every for k, _ in page.names} | {k for page in every for k, _ in page.terms}

    def _own(self, terms: Sequence[tuple[str, str]], implicit: set[str]) -> tuple[tuple[str, str], ...]:
        """A statement's own fact words: not the question's or the brand's, no light word, no hedge."""
        return tuple(
            t
            for t in terms
            if not self._implied(t[0], implicit) and t[0] not in _LIGHT and t[0] not in _HEDGES
        )

    def _view(self, sentence: Span, clause: Span, implicit: set[str]) -> _ClauseView:
        """What the page checks read of a clause of ``sentence``: its own names (a list label,
        "**Deadline:**", or a month of a date is no name), values, terms and its own fact words."""
        in_values = [(sentence.start + v.start, sentence.start + v.end) for v in values(sentence.text)]
        names = [
            (k, k)
            for at, k in dict.fromkeys(_statement_names(sentence.text))
            if clause.start <= sentence.start + at < clause.end
            and k not in implicit
            and not any(a <= sentence.start + at < b for a, b in in_values)
        ]
        vals = tuple(values(clause.text))
        terms = tuple(_terms(clause.text, [(v.start, v.end) for v in vals]))
        if hedge := [m.span() for m in _HEDGE_LEAD.finditer(clause.text)]:
            said = tuple(_terms(clause.text, [(v.start, v.end) for v in vals] + hedge))
            terms = said if len(said) >= 2 else terms  # "I believe it's £45 extra" says too little
        return _ClauseView(tuple(dict.fromkeys(names)), vals, terms, self._own(terms, implicit), clause.text)

    def _about(
        self,
        view: _ClauseView,
        page: PageSentence,
        threshold: float,
        implicit: set[str],
        anchor: Value | None = None,
    ) -> float:
        """How much ``page`` is about the clause (its frame), 0 when it is not: the clause's names
        are there, and most of its own words, or (``anchor``) another of its values ties them.
        For a value (``anchor``), two words written side by side in both ("voluntary excess") say
        the same thing where the rest is said in other verbs ("add up to £1,000 of voluntary
        excess" and "choose a voluntary excess of up to £500")."""
        st = self.settings
        if view.names and self.frame(list(view.names), page.terms) < 1:
            return 0.0  # about another plan, person or place
        if not (anchor and anchor.names) and _numbered_otherwise(view.values, page.values):
            return 0.0  # about another band, zone or tier ("Band 3" for "Band 2")
        f = self.frame(view.terms, page.terms, implicit)
        # another value of the clause that the page sentence states ties them together:
        # "Deadline: December 15, 2025, 11:59 pm" and "close on 1 December 2025 at 11:59 pm"
        if (
            anchor is not None
            and anchor.kind in _ANCHORED
            and f >= st.anchor_frame
            and any(
                u is not anchor
                and not u.bound
                and u.kind != "number"
                and any(u.equals(p) for p in page.values)
                for u in view.values
            )
        ):
            return f
        if (
            view.own
            and self.frame(view.own, page.terms) < st.fact_frame
            and not (anchor is not None and _shared_pair(view.text, page.text))
        ):
            return 0.0
        return f if f >= threshold else 0.0

    def _counts_like(self, text: str, value: Value, page_text: str, page_value: Value) -> bool:
        """:func:`_counts_alike`, or the two count words that mean the same ("3 children" and
        "three kids")."""
        if _counts_alike(text, value, page_text, page_value):
            return True
        mine, theirs = _counted(text, value), _counted(page_text, page_value)
        if {mine, theirs} & _ANY_THING:
            return True  # "up to 15 items" counts the books
        # "15 centrepieces" and "up to 15 table centrepieces"; "two per pitch" and "2 dogs per pitch"
        if mine in {
            stem(w.lower()) for w in _WORD.findall(page_text[page_value.end : page_value.end + 50])[:5]
        }:
            return True
        return self.lexicon.closest(mine, (theirs,)) >= self.settings.word_similarity

    def _page_states(
        self, view: _ClauseView, value: Value, every: Sequence[PageSentence], implicit: set[str]
    ) -> bool:
        """Whether a sentence of the site about the clause states ``value`` (the site says so):
        not one about another variant ("£48" for "existing patients" is not "£48 for new
        patients")."""
        st = self.settings
        near = view.near(value)
        return any(
            any(
                p.equals(value)
                and not _bound_elsewhere(near, page.text, i, page.values)
                and self._counts_like(view.text, value, page.text, p)  # "three classes" is no "3 dogs"
                for i, p in enumerate(page.values)
            )
            and not other_variant(view.text, page.text)
            and (
                self._about(view, page, st.conflict_frame, implicit)
                or self._about(view, page, st.page_frame, implicit, value)
            )
            for page in every
            if page.values
        )

    def against_pages(
        self,
        sentence: Span,
        candidates: Sequence[PageSentence],
        every: Sequence[PageSentence],
        implicit: set[str],
        known_names: set[str],
        denied: dict[str, DeniedName] | None = None,
        heading: str = "",
        agents: Sequence[Agency] = (),
        scoped: Sequence[PageSentence] = (),
        brand: frozenset[str] = frozenset(),
        asked: Sequence[Value] = (),
        actions: Sequence[DeniedAction] = (),
    ) -> list[PageFinding]:
        """Statements of ``sentence`` that the pages state otherwise.

        A value is wrong when no sentence of the site about the same thing states it (``every``)
        and one of the ``candidates`` (the page sentences most like this one) about the same thing
        states another value of its kind. A one-clause statement is wrong when the candidates
        about the same thing all state the opposite polarity. "About the same thing": the
        statement's names are there, and most of its own words. A statement's scope is checked
        against the candidates and ``scoped``, the site's sentences that state one (few, and
        rarely among the sentences most like a statement that coordinates several things).
        ``brand``: the keys of the site's own name, which names none of its variants.
        ``asked``: the question's values, the asker's own case ("if I cancel 10 days before"):
        an answer that repeats one states nothing of the site's with it. ``actions``: what the
        site says it does not do (:func:`denied_actions`)."""
        st = self.settings
        out = []
        # a table row is read without its column header, which names each value's variant
        # ("| Adult | £6.40 | £12.80 |": single and return): a value the site states anywhere
        # is no wrong fact there
        row = _TABLE_ROW.match(sentence.text) is not None
        clauses = _clauses(sentence) or [sentence]
        opposites: list[PageFinding] = []
        # a line led by a name the site gives one of its things ("Ancoats: Mon–Fri 10am–10pm,
        # weekends 9am–6pm") is about it in every clause: "weekends 9am–6pm" is Ancoats', not the
        # other centre's. Not a name most of the site's sentences carry (the brand's)
        lead = _LEAD_LABEL.match(sentence.text)
        lead_names: tuple[tuple[str, str], ...] = ()
        if lead and every:
            named = {n for page in (*candidates, *every) for n, _ in page.names}
            # "Ancoats", not "Price"; not the brand ("Copperbeck: £95 for a combi, ..." is about
            # the site as a whole)
            keys = ({_key(w) for w in lead.group(1).split()} & named) - brand
            carried = {k: sum(any(k == t for t, _ in page.terms) for page in every) for k in keys}
            lead_names = tuple((k, k) for k, n in carried.items() if 0 < n <= len(every) / 3)
        for clause in clauses:
            view = self._view(sentence, clause, implicit)
            if lead_names and clause.start - sentence.start >= lead.end():
                names = view.names + tuple(n for n in lead_names if n not in view.names)
                view = _ClauseView(names, view.values, view.terms, view.own, view.text)
            vals, terms, own = view.values, view.terms, view.own

            def about(page: PageSentence, threshold: float, anchor: Value | None = None, view=view) -> float:
                return self._about(view, page, threshold, implicit, anchor)

            for v in vals:
                if row and any(p.equals(v) for page in every for p in page.values):
                    continue
                if any(v.same_kind(q) and v.equals(q) for q in asked):
                    continue  # "At 10 days before the start you're inside the 14-day window"
                if row and any(_multiple(v, u) for u in vals if u.start < v.start):
                    continue  # a later column derived from an earlier one ("| Adult | £6.40 | £12.80 |": a return)
                # a value bound to a name ("Saturday £60") is checked against the value the site
                # binds to that name ("Saturday £65"), even when the site states £60 elsewhere
                at = clause.start - sentence.start + v.start
                label = None if v.names else _label(sentence.text, at)
                # "Puppy Starter: £79" against the Puppy Starter's price, not the Kitten Starter's
                name = _label_name(sentence.text, at) if label and label not in _WEEKDAYS else frozenset()
                bound = (
                    [
                        (page, p)
                        for page in every
                        for p, bound_to in zip(page.values, page.labels, strict=True)
                        if bound_to == label and p.same_kind(v) and name <= {k for k, _ in page.terms}
                    ]
                    if label
                    else []
                )
                if bound:
                    if not any(p.equals(v) for _, p in bound) and not _states_unbound(every, label, v):
                        # the nearest: "6pm" against Friday's "8am to 2pm" is its 2pm
                        page, p = min(bound, key=lambda b: abs((b[1].amount or 0) - (v.amount or 0)))
                        out.append(_value_finding(clause, v, page, p, 0.8))
                    continue
                if self._page_states(view, v, every, implicit):
                    continue
                near = view.near(v)

                def rivals_in(pages, frame, v=v, near=near, label=label, clause=clause, about=about):
                    return [
                        (f, page, p)
                        for page in pages
                        for i, p in enumerate(page.values)
                        if p.same_kind(v)
                        and {v.kind, p.kind} != {"date", "year"}
                        and not p.equals(v)
                        and _periods_alike(v, p)
                        and not is_word_one(v)
                        and not is_word_one(p)
                        # a numbered name ("Band 2") is misnumbered only where the rest is stated alike
                        and (
                            not (v.names or p.names)
                            or (
                                v.names == p.names and compare_values(clause.text, page.text)[0] == "conflict"
                            )
                        )
                        and _counts_alike(clause.text, v, page.text, p)
                        and plausible_misstatement(v, p)
                        and not other_variant(clause.text, page.text)
                        and not days_apart(clause.text, page.text)
                        and not _bound_elsewhere(near, page.text, i, page.values)
                        and not _within_range(v, page.text, p)
                        # "first 30 miles included, then 24p per mile": the page's free part is it
                        and not (v.unit == FREE and _FREE_PART.search(page.text))
                        and (f := about(page, frame, v))
                        # a price with a period against one without: only a price the clause binds
                        # to a name ("Dedicated Desk £350 a month"), on a sentence wholly about it
                        # that names it too (a list under "prices per month": "Dedicated Desk: £295")
                        and (
                            (p.period is None) == (v.period is None)
                            or (f >= 1.0 and label is not None and any(k == label for k, _ in page.terms))
                        )
                    ]

                rivals = rivals_in(candidates, st.page_frame)
                if not rivals and (len(own) >= 2 or v.kind in ("year", "date", "day")):
                    # a short line ("- Founded in 2011") is like few page sentences: the site's
                    # others that state all of it are read too
                    near_ids = {id(page) for page in candidates}
                    rivals = [
                        r
                        for r in rivals_in([page for page in every if id(page) not in near_ids], 1.0)
                        # a plain number of a sentence further off: only one counting the same; no
                        # "free" (of what, a sentence further off need not say)
                        if (
                            v.kind != "number"
                            or _counted(clause.text, v) == _counted(r[1].text, r[2]) is not None
                        )
                        and FREE not in (v.unit, r[2].unit)
                    ]
                if rivals:  # the closest; of equals, one written with a period as the clause is, the nearest
                    f, page, p = max(
                        rivals,
                        key=lambda r: (
                            r[0],
                            (r[2].period is None) == (v.period is None),
                            -abs((r[2].amount or 0) - (v.amount or 0)),
                        ),
                    )
                    out.append(_value_finding(clause, v, page, p, round(min(0.95, 0.5 + f / 2), 2)))
            neg = is_negated(clause.text) if not vals and own else None
            if neg is False and _bare_item(clause.text):
                neg = None  # no affirmation of its own
            # only a page sentence of the other polarity can state the opposite: without one, the
            # frames need not be weighed (most sentences and pages state, not deny)
            if (
                neg is not None
                and any(page.single and page.negated != neg for page in candidates)
                and not split_clauses(clause, min_words=2)
            ):
                close = [
                    (f, page)
                    for page in candidates
                    if page.single
                    and (f := about(page, st.negation_frame))  # the cheaper half first
                    and (f := min(f, self.frame(page.terms, terms, implicit))) >= st.negation_frame
                ]
                if close and not any(page.negated == neg for _, page in close):
                    f, page = max(close, key=lambda c: c[0])
                    out.append(_opposite_finding(clause, page, f))
                    continue
            if (
                not vals
                and len(own) >= 2
                and _states(clause.text)
                and not _bare_item(sentence.text)  # a list item says yes or no by its heading
                and (opposite := self._opposite(clause, view, candidates, implicit))
            ):
                opposites.append(opposite)  # the last resort: after the checks that say more
        out += self._denied(sentence, denied or {}, implicit, [o.statement for o in out], heading)
        out += self._denied_action(sentence, actions, [o.statement for o in out], heading)
        out += self._other_agent(sentence, agents, implicit, [o.statement for o in out])
        if scoped:  # the closest sentences and the site's scoped ones, each once
            scoped = list({id(p): p for p in (*candidates, *scoped)}.values())
        out += self._scoped(sentence, scoped or candidates, implicit, [o.statement for o in out])
        out += self._other_days(sentence, scoped or candidates, implicit, [o.statement for o in out])
        out += self._excluded(sentence, scoped or candidates, implicit, [o.statement for o in out])
        out += self._unknown_names(sentence, candidates, implicit, known_names, [o.statement for o in out])
        return out + [
            o
            for o in opposites
            if not any(
                o.statement.start < f.statement.end and f.statement.start < o.statement.end for f in out
            )
        ]

    def _opposite(
        self, clause: Span, view: _ClauseView, candidates: Sequence[PageSentence], implicit: set[str]
    ) -> PageFinding | None:
        """A statement that the closest page sentence about it denies in one of its parts ("Unused
        data rolls over" against "Unused data does not roll over on any plan"; "is an Authorised
        Provider" against "is independent and is not an Authorised Provider"): each side's
        statements split at their turns and relative clauses (:func:`opposite_polarity`), the pair
        the closest by their words, at least two of the clause's own words shared, the page's
        denial bearing on the clause's words, the page sentence about the clause by its frame.
        Only a page's denial: an answer's denial against a page's affirmation of several things
        ("owned by X and operated by Y") too often denies what the page relates otherwise."""
        st = self.settings
        own = {k for k, _ in view.own}
        for page in candidates[:3]:
            if len(own & {k for k, _ in page.terms}) < 2 or not _states(page.text) or not page.negated:
                continue
            # the page's denial bears on the clause's words ("is not an Apple ... Provider" denies
            # being one, not being "an independent repairer")
            if not opposite_polarity(clause.text, page.text) or not _negation_about(page.text, view.terms):
                continue
            if (f := self._about(view, page, st.page_frame, implicit)) and not any(
                other.text != page.text
                and not opposite_polarity(clause.text, other.text)
                and self._about(view, other, st.found_frame, implicit) >= f
                for other in candidates[:3]
            ):
                return _opposite_finding(clause, page, f)
        return None

    @staticmethod
    def _denied(
        sentence: Span,
        denied: dict[str, DeniedName],
        implicit: set[str],
        taken: Sequence[Span],
        heading: str = "",
    ) -> list[PageFinding]:
        """A clause that affirms a name the site mentions only to deny it (:func:`denied_names`):
        "BorrowBox for audiobooks" where the site says "we do not use BorrowBox", "cash, card or
        bank transfer" where it says "we do not take cash". A common word counts only in a
        sentence that states something of the site (no heading, no introduction to a list, no
        advice or supposition: "you'd need a specialist") and not as a value's unit. A sentence
        that denies or disowns anything, says it is unsure, or asks, affirms nothing here; nor
        does a list item under a heading that does ("Not accepted:"). The name is written as a
        name (not the first word of a sentence, though it may be a list item's), is no label
        ("**HIPAA:**"), and the names beside it are the page's."""
        # a list item is read with the line that heads its list; a line's denials also with the
        # heading above it ("### Also not offered" over "Sedation."), not a question it asks
        said = f"{heading}\n{sentence.text}" if LIST_ITEM.match(sentence.text) else sentence.text
        framed = f"{heading}\n{sentence.text}" if HEADING.match(heading) else said
        # "there's no fee to join" denies too, though "no fee" is no denial of a fee elsewhere
        if (
            not denied
            or has_negation(framed)
            or is_negated(framed)
            or _DISOWNS.search(framed)
            or _EXCLUDED.search(framed)
            or UNSURE.search(said)
            or "?" in said
        ):
            return []
        names = {at for at, _ in _statement_names(sentence.text)}
        listed = LIST_ITEM.match(sentence.text) is not None  # an item's first word: a name too
        hits = [
            (sentence.start + start, k)
            for start, end, run in _runs(sentence.text)
            for k in run
            if k in denied
            and denied[k].name
            and run <= denied[k].runs | implicit
            and (listed or any(start <= n < end for n in names))
            and not _LABEL_END.match(sentence.text, end)
            and not denied[k].about_the_affirmed({t for t, _ in _terms(sentence.text)})
        ]
        if not _STATES_NOTHING.search(sentence.text) and not HEADING.match(sentence.text):
            runs = [run for _, _, run in _runs(sentence.text)]
            said_keys = {k for k, _ in _terms(sentence.text)}
            # a name of the answer that differs from the denial's ("North America" against the
            # page's "no region in South America") makes it another thing
            hits += [
                (sentence.start + m.start(), k)
                for m in _WORD.finditer(sentence.text)
                if len(m.group()) >= 4
                and (k := _key(POSSESSIVE.sub("", m.group().lower()))) in denied
                and not denied[k].name
                and not _LABEL_END.match(sentence.text, m.end())
                and not _UNIT_BEFORE.search(sentence.text[: m.start()])
                and not any(run & denied[k].runs and not run <= denied[k].runs | implicit for run in runs)
                and (not denied[k].qualifier or denied[k].qualifier & said_keys)
            ]
        hits.sort()
        out = []
        for clause in split_clauses(sentence, min_words=1) or [sentence]:
            if any(c.start < clause.end and clause.start < c.end for c in taken):
                continue
            if _SUPPOSES.search(clause.text):
                continue
            mine = [(at, k) for at, k in hits if clause.start <= at < clause.end]
            if mine:
                at, k = mine[0]
                word = (
                    _NAME_RUN.match(sentence.text, at - sentence.start)
                    or _WORD.match(sentence.text, at - sentence.start)
                ).group()
                page = denied[k].page
                out.append(
                    PageFinding(
                        clause,
                        "negation",
                        page.text,
                        page.url,
                        f"the page denies {word}",
                        0.7,
                        tuple(word.split()),
                    )
                )
        return out

    @staticmethod
    def _denied_action(
        sentence: Span,
        actions: Sequence[DeniedAction],
        taken: Sequence[Span],
        heading: str = "",
    ) -> list[PageFinding]:
        """A clause that says the site does what it says it does not (:func:`denied_actions`):
        "They can also dye dresses" where the site says "We do not dye dresses". Only a clause
        that states something without denying, disowning or doubting it ("rather than something
        the City runs", "I'm not sure they dye dresses"), outside a question or a supposition, and
        a list item only under a heading that denies nothing ("Not offered:"), and a label only
        with a value that denies nothing ("Restoring paintings: not offered"). Web and e-mail
        addresses are no words of it ("fit@truefitcycles.example")."""
        if not actions or "?" in sentence.text or UNSURE.search(sentence.text):
            return []
        if {a.verb for a in actions}.isdisjoint(k for k, _ in _terms(sentence.text)):
            return []  # no denied verb in the sentence: most sentences, read no further
        if LIST_ITEM.match(sentence.text) and (is_negated(heading) or _EXCLUDED.search(heading)):
            return []
        out = []
        for clause in split_clauses(sentence, min_words=1) or [sentence]:
            if any(c.start < clause.end and clause.start < c.end for c in taken):
                continue
            if is_negated(clause.text) or _DISOWNS.search(clause.text) or _SUPPOSES.search(clause.text):
                continue
            # a label and its value read together: "Restoring paintings: not offered", "No: restoring"
            before, after = (
                sentence.text[: clause.start - sentence.start],
                sentence.text[clause.end - sentence.start :],
            )
            if (re.match(r"\W*:", after) and is_negated(after)) or (
                re.search(r":\W*$", before) and is_negated(before)
            ):
                continue
            words = _terms(_ADDRESS.sub(" ", clause.text))
            said = {k for k, _ in words}
            action = next((a for a in actions if a.affirmed_by(said)), None)
            if action is None:
                continue
            named, unnamed = [], {action.verb, *action.objects}  # each word of the action once
            for k, w in words:
                if k in unnamed:
                    named.append(w)
                    unnamed.discard(k)
            out.append(
                PageFinding(
                    clause,
                    "negation",
                    action.page.text,
                    action.page.url,
                    f"the page denies {' '.join(named)}",
                    0.7,
                    tuple(named),
                )
            )
        return out

    @staticmethod
    def _other_agent(
        sentence: Span, agents: Sequence[Agency], implicit: set[str], taken: Sequence[Span]
    ) -> list[PageFinding]:
        """A clause that names an owner, operator or underwriter (:func:`agencies`) other than
        the one the site names for the same thing: "Skerrylink is owned by Calloway Marine" where
        the site says it "is owned by the Dunmallow Harbour Trust and operated under contract by
        Calloway Marine Ltd". The same thing: the names before the relation meet, or both are the
        site's own (its brand, the question's names, or none). A name the site gives that role
        for that thing anywhere is no wrong fact."""
        if not agents or "?" in sentence.text or UNSURE.search(sentence.text):
            return []
        out = []
        for role, subject, agent, text, start in _agencies_of(sentence.text):
            clause = next(
                (
                    c
                    for c in split_clauses(sentence, min_words=1)
                    if c.start <= sentence.start + start < c.end
                ),
                sentence,
            )
            if any(c.start < clause.end and clause.start < c.end for c in taken) or _SUPPOSES.search(
                clause.text
            ):
                continue
            own = subject <= implicit
            same = [
                a
                for a in agents
                if a.role == role and (a.subject & subject or (own and a.subject <= implicit))
            ]
            if not same or any(a.agent <= agent or agent <= a.agent for a in same):
                continue
            rival = same[0]
            out.append(
                PageFinding(
                    clause,
                    "entity",
                    rival.page.text,
                    rival.page.url,
                    f"{text} (response) vs {rival.agent_text} (page)",
                    0.6,
                    tuple(rival.agent_text.split()),
                )
            )
            taken = [*taken, clause]
        return out

    def _scoped(
        self,
        sentence: Span,
        candidates: Sequence[PageSentence],
        implicit: set[str],
        taken: Sequence[Span],
    ) -> list[PageFinding]:
        """A statement that widens what a page sentence about the same thing restricts to names,
        or restricts what the page says holds for any (:mod:`.scope`): "SSO is included on every
        plan" where the page says "Single sign-on is only available on Enterprise". "About the
        same thing": the page's stretch around its restriction states most of the statement's
        words besides the scope itself."""
        text = sentence.text

        def affirmed(at: int) -> bool:
            return not is_negated(text[slice(*around(text, at, False))])

        mine = [s for s in (*scopes(text), *listed_names(text)) if affirmed(s.start)]
        if not mine:
            return []
        skip = [(s.start, s.end) for s in mine]
        for page in candidates:
            theirs = scopes(page.text)
            for scope in theirs:
                a, b = around(page.text, scope.start, len(theirs) == 1)
                stretch = page.text[a:b]
                if is_negated(stretch):
                    continue
                hit = scope_conflict(mine, scope, stretch)
                if hit is None:
                    continue
                stated, detail = hit
                clause = self._spanned(sentence, stated.start, stated.end)
                # the clause, and the sentence unless it states another scope than this clause's
                units = [(clause.text, clause.start - sentence.start)]
                if sum(s.kind != "list" for s in mine) < 2:
                    units.append((text, 0))
                if not any(
                    self._same_subject(
                        unit,
                        [(x - start, y - start) for x, y in skip],
                        stretch,
                        [(scope.start - a, scope.end - a)],
                        implicit,
                        len(theirs) > 1,
                    )
                    for unit, start in units
                ):
                    continue
                if any(c.start < clause.end and clause.start < c.end for c in taken):
                    return []
                return [PageFinding(clause, "scope", page.text, page.url, detail, 0.6)]
        return []

    def _excluded(
        self,
        sentence: Span,
        candidates: Sequence[PageSentence],
        implicit: set[str],
        taken: Sequence[Span],
    ) -> list[PageFinding]:
        """A statement that something holds for what a page sentence about the same thing says it
        does not hold for (:func:`.scope.exclusions`): "20% off any treatment, including teeth
        whitening" where the page says "Plan discounts do not apply to whitening"; "available on
        all plans, including Personal" / "Emergency access is not available on Personal". The
        statement names the excluded thing (each of its words besides the kind of thing) where it
        denies nothing and excepts nothing."""
        text = sentence.text
        words = [(_key(m.group().lower().rstrip(".,")), m.start(), m.end()) for m in _WORD.finditer(text)]
        mine = {k for k, _, _ in words}
        for page in candidates:
            excluded = exclusions(page.text)
            for item, _, _, _ in excluded:
                keys = {k for k, _ in _terms(item) if k not in _LIGHT and k not in implicit}
                if not keys or not keys <= mine:
                    continue
                at = [(a, b) for k, a, b in words if k in keys]
                first, last = min(a for a, _ in at), max(b for _, b in at)
                if last - first > len(item) + 20:
                    continue  # the words apart, not the thing
                a, b = around(text, first, False)
                # the denial may stand before the list's commas: "There's no studio on Tuesdays, Wednesdays or ..."
                whole = max(text.rfind(";", 0, first), -1) + 1
                if is_negated(text[a:b]) or is_negated(text[whole:last]) or _EXCEPTING.search(text[a:first]):
                    continue
                clause = self._spanned(sentence, first, last)
                if is_negated(clause.text):
                    continue
                page_skip = [(e.denial, e.end) for e in excluded]  # the subject: what is excluded from what
                units = [(clause.text, clause.start - sentence.start), (text, 0)]
                if not any(
                    self._same_subject(unit, [(first - at0, last - at0)], page.text, page_skip, implicit)
                    for unit, at0 in units
                ):
                    continue
                if any(c.start < clause.end and clause.start < c.end for c in taken):
                    return []
                detail = f"holds for {item} (response) vs not for {item} (page)"
                return [PageFinding(clause, "scope", page.text, page.url, detail, 0.6)]
        return []

    def _other_days(
        self,
        sentence: Span,
        candidates: Sequence[PageSentence],
        implicit: set[str],
        taken: Sequence[Span],
    ) -> list[PageFinding]:
        """A statement that something is on days the site does not give it: "Installations are
        available seven days a week" where the page says "Monday to Saturday", "Matinees are on
        Wednesdays and Saturdays" where it says "Thursday and Saturday". The days the site gives
        are those of every sentence about the same thing that says when it is (not when it is
        closed), with the bare schedule lines of their pages ("Sunday: 11am to 3pm")."""
        out: list[PageFinding] = []
        text = sentence.text
        named = day_sets(text)
        for days in named:
            clause = self._spanned(sentence, days.start, days.end)
            local = clause.text
            # the days' stretch of the sentence, too, may say when it is not ("- Sun & Mon: closed")
            if (
                is_negated(local)
                or not days_open(local)
                or not days_open(text[slice(*around(text, days.start, False))])
            ):
                continue
            if any(
                c.start < clause.end and clause.start < c.end for c in (*taken, *(o.statement for o in out))
            ):
                continue
            # the clauses that name the days, or the sentence ("..., 8am to 6pm" ties it to the page's)
            skip = [(d.start, d.end) for d in named]
            units = [
                (
                    local,
                    [(a - clause.start + sentence.start, b - clause.start + sentence.start) for a, b in skip],
                )
            ]
            if local != text:
                units.append((text, skip))
            about = [
                page
                for page in candidates
                if (theirs := day_sets(page.text))
                # a day of every week and a day of a month ("the last Wednesday") are no rivals
                and any((min(d.days) >= MONTHLY) == (min(days.days) >= MONTHLY) for d in theirs)
                and not page.negated
                and open_days(page.text)
                and any(
                    self._same_subject(
                        unit, unit_skip, page.text, [(d.start, d.end) for d in theirs], implicit
                    )
                    for unit, unit_skip in units
                )
            ]
            # a time stated alike ties a schedule to the page's closer than words do
            timed = [
                page
                for page in about
                if any(
                    u.equals(p)
                    for u in values(text)
                    if u.kind == "time"
                    for p in page.values
                    if p.kind == "time"
                )
            ]
            about = timed or about
            if not about:
                continue
            urls = {page.url for page in about}
            given = frozenset().union(
                *(open_days(page.text) for page in about),
                *(
                    open_days(page.text)
                    for page in candidates
                    if page.url in urls and _bare_schedule(page.text)
                ),
            )
            # the days its pages say it is not on: of the sentences about it, and of the lines of
            # their schedules that say no more than that ("Sunday: closed" after "Monday to
            # Saturday: 9am to 5pm")
            shut = [
                (page, off)
                for page in (*about, *self._schedule_lines(about, candidates))
                if (
                    off := frozenset().union(*(d.days for d in days_said(page.text) if not d.open))
                    & days.days
                )
            ]
            if shut:
                page, off = shut[0]
                detail = f"{day_names(days.days)} (response) vs not on {day_names(off)} (page)"
                out.append(PageFinding(clause, "scope", page.text, page.url, detail, 0.6))
            elif days.days - given and (days.several or any(_ONLY.search(page.text) for page in about)):
                # one day beyond the site's is wrong where the site gives its days as the only ones
                out.append(
                    PageFinding(
                        clause,
                        "scope",
                        about[0].text,
                        about[0].url,
                        f"{day_names(days.days)} (response) vs {day_names(given)} (page)",
                        0.6,
                    )
                )
        return out

    @staticmethod
    def _schedule_lines(
        about: Sequence[PageSentence], candidates: Sequence[PageSentence]
    ) -> list[PageSentence]:
        """The lines that follow each of ``about`` on its page and say only which days something
        is or is not on ("Saturday: 10am to 2pm", "Sunday: closed"): the rest of its schedule."""
        out: list[PageSentence] = []
        for i, page in enumerate(candidates):
            if page not in about:
                continue
            for line in candidates[i + 1 :]:
                if line.url != page.url or not (_bare_schedule(line.text) or _closed_schedule(line.text)):
                    break
                out.append(line)
        return out

    @staticmethod
    def _spanned(sentence: Span, start: int, end: int) -> Span:
        """The clauses of ``sentence`` that its text from ``start`` to ``end`` spans, joined
        ("at Harbour Street and Dunmore" is cut at its "and")."""
        at, to = sentence.start + start, sentence.start + end
        spanned = [c for c in _clauses(sentence) if c.start < to and at < c.end] or [sentence]
        first, last = min(spanned[0].start, at), max(spanned[-1].end, to)
        return Span(first, last, sentence.text[first - sentence.start : last - sentence.start])

    def _same_subject(
        self,
        text: str,
        skip: Sequence[tuple[int, int]],
        page_text: str,
        page_skip: Sequence[tuple[int, int]],
        implicit: set[str],
        listed: bool = False,
    ) -> bool:
        """Whether a statement and a page stretch, each without its scope (``skip``), are about
        the same thing: the page states most of the statement's words; or the statement states
        the page stretch's, two at least ("Use your own router — only allowed on Fibre 500" / "You
        can use your own router on any plan", where the question asks about routers), one where
        the stretch is an item of a list of scopes ("chains (Ride and Pro only)"); or they share
        a value ("0% over 12 months on any system" / "0% finance over 12 months is available
        only on ...")."""
        st = self.settings
        terms = [t for t in _terms(text, skip) if _subject_word(t[1])]
        page_terms = [t for t in _terms(page_text, page_skip) if _subject_word(t[1])]
        own = self._own(terms, implicit)
        if (
            own
            and self.frame(own, page_terms) >= st.fact_frame
            and self.frame(terms, page_terms, implicit) >= st.page_frame
        ):
            return True
        heavy = [t for t in page_terms if t[0] not in _LIGHT]
        if (
            heavy
            and len(set(page_terms)) >= (1 if listed else 2)
            and self.frame(page_terms, terms) >= st.found_frame
        ):
            return True
        if not page_terms or (own and not self._stated(own, page_terms)):
            return False  # a line with no words of its own ("Saturday: 9am to 1pm") is about nothing alone
        return any(
            u.equals(p)
            for u in values(text)
            if u.kind in _SHARED_KINDS
            for p in values(page_text)
            if p.kind in _SHARED_KINDS
        )

    def _unknown_names(
        self,
        sentence: Span,
        candidates: Sequence[PageSentence],
        implicit: set[str],
        known_names: set[str],
        taken: Sequence[Span],
    ) -> list[PageFinding]:
        """A name the site never uses, where a page sentence about the same thing names another:
        "eu-central — Dublin" where the page says "eu-central (Frankfurt)". The statement is the
        name's clause, with the clause before it when it is a bare name ("Offices: Lisbon and
        Vancouver")."""
        st = self.settings
        out = []
        if all(
            k in known_names or k in implicit or k in _CALENDAR_SHORT
            for _, _, k, _ in _all_name_words(sentence.text)
        ):
            return out  # every name of the sentence is the site's own (or none)
        pieces = split_clauses(sentence, min_words=1) or [sentence]
        for i, piece in enumerate(pieces):
            unknown = [
                w
                for k, w in _name_words(
                    sentence.text, piece.start - sentence.start, piece.end - sentence.start
                )
                if k not in known_names and k not in implicit and k not in _CALENDAR_SHORT
            ]
            if not unknown:
                continue
            clause = piece
            if len(piece.text.split()) < 3 and i:
                clause = Span(
                    pieces[i - 1].start,
                    piece.end,
                    sentence.text[pieces[i - 1].start - sentence.start : piece.end - sentence.start],
                )
            if any(c.start < clause.end and clause.start < c.end for c in taken):
                continue
            mine = {_key(x) for x in _name_words_raw(clause.text)}
            rest = [t for t in _terms(clause.text) if t[1] not in {u.lower() for u in unknown}]
            others = []
            for page in candidates:
                f = self.frame(rest, page.terms, implicit) if rest else 0.0
                theirs = [w for k, w in page.names if k not in implicit and k not in mine]
                # the other name stands where ours does: "eu-central — Dublin" / "eu-central (Frankfurt)"
                slots = {_word_before(clause.text, u) for u in unknown} - {None}
                theirs = [w for w in theirs if _word_before(page.text, w) in slots]
                if f >= st.name_frame and theirs:
                    others.append((f, page, theirs))
            if others:
                f, page, theirs = max(others, key=lambda o: o[0])
                out.append(
                    PageFinding(
                        clause,
                        "entity",
                        page.text,
                        page.url,
                        f"{', '.join(unknown)} (response) vs {', '.join(theirs[:3])} (page)",
                        round(min(0.8, 0.3 + f / 2), 2),
                        tuple(theirs),
                    )
                )
        return out
