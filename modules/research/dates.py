"""Dates as short answers: the dates, years, spans and centuries a sentence states, and the year
of the event a comparison asks about. A "when" question is answered with a date as written ("12
March 1088", "from 1512 to 1520", "the 4th century AD"), an "in what year" one with its year
alone; "Which was founded earlier?" compares the years each thing's sentences give its founding.
Dates and years are read by the response analyzer's typed-value parser
(:func:`modules.response.facts.values`), the one reader of dates in sleuth; the date counterpart
of :mod:`.measures`."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..response.facts import values
from ..text import stem, words

_MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December|"
    "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)
#: month names and their abbreviations: no part of a person's or a place's name ("May 23")
MONTH_WORDS = frozenset(_MONTHS.split("|"))
_YEAR = r"(?:1[0-9]{3}|20[0-9]{2})"
_DATE = re.compile(rf"\b(?:(?:\d{{1,2}}\s+)?(?:{_MONTHS})\.?(?:\s+\d{{1,2}})?,?\s+{_YEAR}|{_YEAR}s?)\b")
_SPAN = re.compile(
    rf"\b(?:from\s+|between\s+)?{_YEAR}\s*(?:–|-|to|until|till|and|through)\s*(?:{_YEAR}|present)\b", re.I
)
#: a century as a date: "the 4th century AD", "the fifth century BC"
_CENTURY = re.compile(
    r"\b(?:\d{1,2}(?:st|nd|rd|th)|(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
    r"eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|"
    r"twentieth|twenty-first))[\s-]+century(?:\s+(?:AD|BC|BCE|CE))?\b",
    re.I,
)


def date_candidates(text: str, year_only: bool = False) -> list[tuple[str, int, int]]:
    """The dates ``text`` states as answers (the answer, start, end): spans and centuries, then
    dates and years as written; with ``year_only``, each date's year alone."""
    if year_only:
        return [(re.search(_YEAR, m.group()).group(), m.start(), m.end()) for m in _DATE.finditer(text)]
    spans = [
        (m.group().strip(), m.start(), m.end()) for m in (*_SPAN.finditer(text), *_CENTURY.finditer(text))
    ]
    return spans + [(m.group(), m.start(), m.end()) for m in _DATE.finditer(text)]


#: a year as a comparison reads it: "5th century CE", "the 1740s", "331 BC", "c. 1190", "in 970"
_ERA_YEAR = re.compile(
    r"\b(?:(?P<century>\d{1,2})(?:st|nd|rd|th)[\s-]+century|(?P<decade>1[0-9]{2}0|20[0-9]0)s"
    r"|(?P<before>\d{1,4})\s+(?:BC|BCE)|(?:\bc\.|\bcirca)\s*(?P<circa>\d{3,4})|(?:AD\s+|(?<=\bin )|(?<=\bof ))(?P<plain>[1-9]\d{1,2})(?!\s+[a-z]+s\b))"
    r"(?P<era>\s+(?:AD|BC|BCE|CE))?\b"
)
#: event words that ask for the same date as one another ("established" is asked, "founded" or
#: "foundation" states it), as written: "found" is also what a census did
_EVENTS = tuple(
    frozenset(group.split())
    for group in (
        "founded founding foundation established establishment formed formation created creation "
        "launched opened started began begun inaugurated incorporated",
        "finished completed completion ended closed",
        "released release published publication premiered premiere appeared performed issued debuted aired",
    )
)
_EVENT_STEMS = tuple(frozenset(stem(w) for w in group) for group in _EVENTS)


def years(text: str) -> list[tuple[float, int]]:
    """The years ``text`` states, each with where it starts: dates and years as the typed-value
    parser reads them (a date as its year plus a fraction), centuries and decades at their middle,
    years before Christ below zero, a bare "in 970"."""
    out = [
        (v.amount // 10_000 + (v.amount % 10_000) / 1300 if v.kind == "date" else v.amount, v.start)
        for v in values(text)
        if v.kind in ("date", "year")
    ]
    for m in _ERA_YEAR.finditer(text):
        bc = m.group("before") is not None or (m.group("era") or "").strip() in ("BC", "BCE")
        if m.group("century"):
            year = (int(m.group("century")) - 1) * 100 + 50
        else:
            year = int(
                m.group("decade") or m.group("before") or m.group("circa") or m.group("plain")
            ) + 5 * bool(m.group("decade"))
        out.append((-year if bc else float(year), m.start()))
    return sorted(out, key=lambda y: y[1])


def asked_year(texts: Sequence[str], asked: set[str], own: Sequence[bool]) -> tuple[float, int] | None:
    """The year of the event ``asked`` (stemmed question words: "founded", "published") in one
    thing's sentences ``texts``, with the index of the sentence stating it: the year with most
    asked words among the six before it and the eight from it (first the words of the asked
    event: "established" or "founded" for "founded"; then the others: "city"), on the thing's
    ``own`` page before another's. A year with none of them counts only on its own page (the
    earliest of its first dated sentence: a person's birth). None when no sentence states one."""
    events = set().union(*(group for group, stems in zip(_EVENTS, _EVENT_STEMS) if stems & asked))
    rest = set(asked).difference(*_EVENT_STEMS)
    best = None
    for index, (text, on_its_page) in enumerate(zip(texts, own)):
        for year, start in years(text):
            context = words(text[:start])[-6:] + words(text[start:])[:8]
            said = set(context)
            hits = (len(said & events), sum(stem(w) in rest for w in said))  # the event's words first
            if not any(hits) and not on_its_page:
                continue
            key = (hits, on_its_page, -index, -year if not any(hits) else 0)
            if best is None or key > best[0]:
                best = (key, year, index)
    return (best[1], best[2]) if best else None
