"""Numbers as short answers: the values a sentence states, with their units, and what a question
asks of them.

A measure question asks for a dimension ("how long is the river": a length) and is answered with
its unit ("1,047 kilometres"); a question that names the unit ("how many metres below sea level",
"how long, in kilometres") is answered in that unit, with the number alone, as the question
already says what it counts. A count ("how many inhabitants") is any number, its scale kept
("25 million"). A comparison ("Which river is longer?") reads each option's measure of the asked
dimension from its own sentences (:func:`measured_pair`). Values are read by the response analyzer's typed-value parser
(:func:`modules.response.facts.values`), the one reader of numbers and units in sleuth.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..response.facts import is_word_one, unit_of, values
from ..text import content_terms, stem, words

#: a question that asks for a measure or a count, not a time: "how long is the river", "at what
#: age", "what is the maximum depth of ..." ("how long did it reign" asks for a time)
_MEASURE_ASKED = re.compile(
    r"\bhow (?:long|high|deep|tall|far|wide|heavy|thick)\b(?!\s+(?:did|does|do|has|have|had|will|ago)\b)"
    r"|\bat what age\b|\b(?:what|which) (?:is|was|are|were) the (?:\w+ )?"
    r"(?:depth|height|length|elevation|altitude|population|width|distance|weight|diameter|thickness|area)\b"
    r"|\b(?:what|which) (?:percentage|proportion|share|fraction)\b",
)
#: the dimension (as the value parser names it) a measure question asks for, by its words
_DIMENSIONS = (
    ("metres", re.compile(r"\b(?:how (?:long|high|deep|tall|far|wide|thick)|length|height|depth|elevation|"
                          r"altitude|width|distance|diameter|thickness)\b")),
    ("grams", re.compile(r"\b(?:how heavy|weight|mass)\b")),
    ("square metres", re.compile(r"\b(?:area|surface)\b")),
)  # fmt: skip
#: a unit a question names as what it counts or measures in: "how many metres", "in kilometres"
_UNIT_NAMED = re.compile(r"\b(?:how many|how much|in|number of)\s+((?:square\s+|cubic\s+)?[a-z]{3,})\b")
#: what "how many X" counts: the words up to its verb
_COUNTED = re.compile(
    r"\bhow many\s+((?:[\w'-]+\s+){0,3}?[\w'-]+?)\s+(?:did|does|do|is|was|were|are|has|have|had|can|could|will|would)\b"
)
#: value kinds a number answer may be (a year is a date's answer, not a number's)
_NUMBER_KINDS = ("number", "quantity", "percent", "money")
#: the unit a quantity ends with: "kilometres" of "1,047 kilometres", "metres" of "thirty metres",
#: "square kilometres" of "482,286 square kilometres"
_UNIT_WORD = re.compile(r"(?:[\s-]*(?:square|cubic))?[\s-]*[^\s\d,.-]+$")


@dataclass(frozen=True)
class Asked:
    """What a number question asks for: a dimension ("metres" for a length, "" for any number)
    and the size of the unit the question names (1000 for "kilometres"; None when it names none)."""

    dimension: str = ""
    unit: float | None = None
    counted: frozenset[str] = frozenset()  # stems of what "how many X" counts: {individu, olymp, medal}


#: a number question that asks for no dimension nor unit
ANY_NUMBER = Asked()


def asks_measure(question: str) -> bool:
    """Whether ``question`` asks for a measure or a count where its words could read as a time
    ("how long is the river", "at what age")."""
    return _MEASURE_ASKED.search(question.lower()) is not None


def asked(question: str) -> Asked:
    """The dimension and the unit a number question asks for."""
    low = question.lower()
    for named in _UNIT_NAMED.findall(low):
        if unit := unit_of(named):
            return Asked(unit[0], unit[1])
    if asks_measure(low):
        return Asked(next((d for d, pattern in _DIMENSIONS if pattern.search(low)), ""))
    counted = _COUNTED.search(low)
    return Asked(counted=frozenset(content_terms(counted.group(1)))) if counted else ANY_NUMBER


def counts(text: str, end: int, want: Asked, start: int = -1) -> bool:
    """Whether the number ending at ``end`` in ``text`` is followed by what the question counts
    ("742 performances" for "how many performances"), or, in brackets from ``start``, follows it
    ("nominations (59)")."""
    if start > 0 and text[:start].rstrip().endswith("("):  # what follows the bracket is another's
        return bool(want.counted & content_terms(" ".join(text[:start].rstrip(" (").split()[-2:])))
    return bool(want.counted & content_terms(" ".join(text[end:].split()[:4])))


def number_candidates(text: str, want: Asked = ANY_NUMBER) -> list[tuple[str, int, int]]:
    """The numbers ``text`` states that answer a question asking ``want``: (the answer as it is
    to be given, start, end). Years are no numbers here."""
    out = []
    for v in values(text):
        if (
            v.kind not in _NUMBER_KINDS
            or is_word_one(v)
            or (v.kind == "number" and re.fullmatch(r"1[0-9]{3}|20[0-9]{2}", v.text))
        ):
            continue
        if (v.kind == "quantity") != bool(want.dimension) or (want.dimension and v.unit != want.dimension):
            continue  # a measure of the dimension asked; a count is no measure
        if want.unit is not None and abs(v.factor - want.unit) > 1e-9 * want.unit:
            continue  # "how many kilometres": a value written in miles is not stated in the unit asked
        shown = (_UNIT_WORD.sub("", v.text) or v.text) if want.unit is not None else v.text
        out.append((shown.replace("\xa0", " "), v.start, v.start + len(shown)))
    return out


#: what a comparison can measure: the dimension of the response analyzer's typed values and the
#: words that ask for it ("longer", "covers more territory") and state it next to a value (an area
#: is seldom anything else: its words are asked for, not needed next to it)
_MEASURES = (
    ("square metres", frozenset("area cover covers covering covered territory spans".split())),
    (
        "metres",
        frozenset(
            "long longer longest length flows runs running extends extending travels stretches".split()
        ),
    ),
    (
        "metres",
        frozenset("high higher highest tall taller tallest height elevation altitude summit above".split()),
    ),
    ("metres", frozenset("deep deeper deepest depth".split())),
    ("grams", frozenset("heavy heavier heaviest mass weight weighs".split())),
)
#: size alone ("Which moon is larger?"): an area, else a diameter
_SIZE = frozenset("large larger largest big bigger biggest small smaller smallest size".split())
_BY_SIZE = (_MEASURES[0], ("metres", frozenset("diameter radius across wide width".split())))
_MEASURE_WORDS = frozenset().union(*(words for _, words in _MEASURES))


def measured_pair(
    question: str, attribute: set[str], per: dict[str, list[str]]
) -> dict[str, tuple[float, int]]:
    """Each option's measure of what a "which is longer / has more ..." question compares (its
    ``attribute``: stemmed words) in the option's sentences ``per`` option, with the index of the
    sentence that states it, when both options have one of the same kind; else empty.

    The measure is a value of the dimension the question's words ask for, stated next to one of
    that dimension's words ("4,409 metres" after "the highest point is", not "150 km north of");
    else a number next to one of the question's own words ("310 weeks", "atomic number 41", "a
    population of 2.1 million"); else, for a question of size alone, an area, then a diameter. A
    number the question itself writes ("ranked No. 1") is no measure."""
    asked = set(words(question))
    written = {v.amount for v in values(question)}
    dims = [m for m in _MEASURES if m[1] & asked]
    nouns = {t for t in attribute if t not in _SIZE | _MEASURE_WORDS}
    tries = dims + [("", frozenset(nouns))] * bool(nouns)
    if _SIZE & asked and not dims:
        tries += list(_BY_SIZE)
    for unit, near in tries:
        near = frozenset(stem(w) for w in near)
        needed = unit != "square metres"
        found = {o: m for o, texts in per.items() if (m := _measure(texts, unit, near, written, needed))}
        if len(found) == 2:
            (a, _, ka), (b, _, kb) = found.values()
            if ka == kb and a != b:
                return {o: (amount, index) for o, (amount, index, _) in found.items()}
    return {}


def _measure(
    texts: Sequence[str], unit: str, near: frozenset[str], written: set[float], needed: bool = True
) -> tuple[float, int, str] | None:
    """The value in ``texts`` (of ``unit``, or any plain number or quantity where ``unit`` is
    empty) with most of the stemmed ``near`` words among the six words before it and the eight
    from it (its own unit's words too: "310 weeks", "1,400 kilometres (870 mi) long"), the first
    of those (with none of them only where they are not ``needed``); its sentence's index and kind."""
    best = None
    for index, text in enumerate(texts):
        for v in values(text):
            if v.amount in written or v.kind in ("date", "year", "time", "money", "percent"):
                continue
            if unit and not (v.kind == "quantity" and v.unit == unit):
                continue
            context = words(text[: v.start])[-6:] + words(text[v.start :])[:8]
            hits = len(near & {stem(w) for w in context})
            if (hits or not needed) and (best is None or hits > best[0]):
                best = (hits, (v.amount, index, v.unit or v.kind))
    return best[1] if best else None


def asks_size(question: str) -> bool:
    """Whether a comparison asks for a size or a measure ("larger", "longer"), not a count."""
    return bool((_SIZE | _MEASURE_WORDS) & set(words(question)))
