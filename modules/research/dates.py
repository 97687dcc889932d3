"""Dates as short answers: the dates, years, spans and centuries a sentence states, and the
earliest of them. A "when" question is answered with a date as written ("12 March 1088", "from
1512 to 1520", "the 4th century AD"), an "in what year" one with its year alone. How early a date
is comes from the response analyzer's typed-value parser (:func:`modules.response.facts.values`),
the one reader of dates in sleuth; the date counterpart of :mod:`.measures`."""

from __future__ import annotations

import re

from ..response.facts import values

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


def earliest(text: str) -> float | None:
    """The earliest date or year a sentence states, as YYYYMMDD (a bare year counts from its
    start): "born August 14, 1965" is earlier than "born October 8, 1970", and than a bare
    "1966"."""
    days = [
        v.amount if v.kind == "date" else v.amount * 10_000
        for v in values(text)
        if v.kind in ("date", "year")
    ]
    return min(days, default=None)
