"""Who or what a statement holds for, where it names it: "only on the Scale plan", "at the Easton
and Linden branches only", "on any plan", "at every branch".

Assistants widen and narrow scope without changing a value or adding a negation: "SSO is
available on every plan" where the site says "Single sign-on is only available on Enterprise";
"only allowed on Fibre 500 and Fibre 900" where it says "You can use your own router on any
plan"; "Alberta and the Pearl" where it says "available only at Alberta and Sellwood". The
value, negation and name checks see nothing there. A :class:`Scope` is the restriction a text
states (``only``: to these names) or its universal (``all``: any, every or all of a kind of
thing), and :func:`scope_conflict` says where two of them, in sentences about the same thing,
cannot both hold. Only named restrictions count: "by appointment only" and "collection only"
restrict a manner, not to whom or where. :func:`exclusions` reads the other way round: the
things a sentence says something does not hold for ("The concession does not apply to Day
Passes").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from ..text import STOPWORDS

#: a word of a name: capitalised; after it, a number or a unit with a capital too ("Fibre 500",
#: "Home 4.3 kW"); a name starts with a capital ("12+" is an age, not a name)
_CAPITAL_WORD = r"[A-Z][\w&'+-]*"
_NAME_WORD = rf"(?:{_CAPITAL_WORD}|\d[\d,]*(?:\.\d+)?|[a-z]{{1,3}}[A-Z]\w*)"
_NAME = rf"(?:the\s+)?{_CAPITAL_WORD}(?:\s+{_NAME_WORD})*"
_SEPARATOR = r"(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+)"
_LIST = rf"(?P<names>{_NAME}(?:{_SEPARATOR}{_NAME})*)"
_NOUN = r"(?:\s+(?P<noun>[a-z]{3,}))?"
_PREPOSITION = r"(?:on|at|for|in|with|to|from|through|via|under)"
#: "only on the Scale plan", "available only at Alberta and Sellwood", "exclusive to Pro"
_ONLY_BEFORE = re.compile(
    rf"\b(?:only\s+(?:(?:available|offered|sold|open|allowed|included)\s+)?{_PREPOSITION}|exclusive\s+to)\s+{_LIST}{_NOUN}"
)
#: "at the Easton Main Street and Linden branches only", "(Ride and Pro only)", "Pro plan only"
_ONLY_AFTER = re.compile(
    rf"(?:\b{_PREPOSITION}\s+|[(:—–,]\s*|\s-\s+|\*\*\s*|\b(?=the\s+[A-Z])){_LIST}{_NOUN}\s+only\b(?!\s+(?:if|when|after|before|for|to|on|at|in|with|by)\b)"
)
#: "on any plan", "at every branch", "on all three plans", "for any Brightwell branch"
_ALL = re.compile(
    rf"\b{_PREPOSITION}\s+(?:any|every|all(?:\s+of)?(?:\s+(?:the|our|its|their))?(?:\s+(?:two|three|four|five|six|\d))?)"
    rf"\s+(?:{_CAPITAL_WORD}\s+)*(?P<noun>[a-z]{{3,}})\b"
)
#: words after a list that are no noun of it ("only at Alberta and Sellwood on weekdays")
_NOT_NOUNS = STOPWORDS | frozenset(
    "only also too are is was were can cannot will would may must has have had and or but not "
    "which who that this these those from with".split()
)
#: what a universal ranges over that no name restricts: "at any time", "for any reason"
_NOT_KINDS = frozenset(
    "time times reason reasons point moment stage way kind sort type amount questions question "
    "other others one more additional extra cost charge fee fees".split()
)


def _singular(noun: str) -> str:
    """A kind of thing without its plural: "branches" -> "branch", "plans" -> "plan"."""
    if noun.endswith(("ches", "shes", "sses", "xes")):
        return noun[:-2]
    if noun.endswith("ies") and len(noun) > 4:
        return noun[:-3] + "y"
    if noun.endswith("s") and not noun.endswith("ss"):
        return noun[:-1]
    return noun


def _name_keys(names: str) -> frozenset[str]:
    """The names of a list, each lowercased without its article: "the Easton Main Street and
    Linden" -> {"easton main street", "linden"}."""
    parts = re.split(_SEPARATOR, names)
    keys = (re.sub(r"^the\s+", "", p.strip(), flags=re.I).lower() for p in parts if p.strip())
    # the days of the week are when, not who or where (:func:`day_sets` reads them)
    return frozenset(k for k in keys if not re.fullmatch(_DAY, k, re.I))


@dataclass(frozen=True)
class Scope:
    """A restriction to named things (``only``) or a universal over a kind of thing (``all``)."""

    kind: str  # only | all | list (names listed, no restriction said)
    names: frozenset[str]  # for only: the names it is restricted to, lowercased
    noun: str  # the kind of thing, singular ("plan", "branch"); "" where the text does not say
    start: int
    end: int


def _noun(m: re.Match) -> str:
    noun = m.group("noun") or ""
    return "" if noun in _NOT_NOUNS else _singular(noun)


@lru_cache(maxsize=65536)
def scopes(text: str) -> tuple[Scope, ...]:
    """The named restrictions and universals that ``text`` states, in order."""
    out: list[Scope] = []
    for pattern in (_ONLY_BEFORE, _ONLY_AFTER):
        for m in pattern.finditer(text):
            start, listed = m.start("names"), m.group("names")
            if not re.search(r"\s(?:and|or|&)\s", listed) and "," in listed:
                # no list without "and" or "or": "Junior Summer Course, July only" is restricted to July
                start += listed.rindex(",") + 1
                listed = listed[listed.rindex(",") + 1 :]
            names = _name_keys(listed)
            if pattern is _ONLY_AFTER and (m.group("noun") or "") in _NOT_NOUNS:
                continue  # "texts in the US are only included on ...": the "only" is the verb's
            if names and not any(s.start < m.end() and m.start() < s.end for s in out):
                out.append(Scope("only", names, _noun(m), start, m.end()))
    for m in _ALL.finditer(text):
        noun = _singular(m.group("noun"))
        # "on every plan that includes Zone 1 roaming" is restricted, not universal
        qualified = re.match(r"\s+(?:that|which|who|where|whose|with)\b", text[m.end() :]) is not None
        if noun not in _NOT_KINDS and m.group("noun") not in _NOT_NOUNS and not qualified:
            out.append(Scope("all", frozenset(), noun, m.start(), m.end()))
    return tuple(sorted(out, key=lambda s: s.start))


@lru_cache(maxsize=65536)
def listed_names(text: str) -> tuple[Scope, ...]:
    """The lists of two or more names that ``text`` states ("the Growth and Scale plans",
    "Alberta and the Pearl"), as scopes of kind ``list``."""
    out = []
    for m in re.finditer(rf"(?<![\w-]){_LIST}", text):
        names = _name_keys(m.group("names"))
        # a list ends in "and" or "or": "your RV, Grove City" is two clauses
        if len(names) >= 2 and re.search(r"\s(?:and|or|&)\s", m.group("names")):
            out.append(Scope("list", names, "", m.start(), m.end()))
    return tuple(out)


def around(text: str, at: int, alone: bool) -> tuple[int, int]:
    """The stretch of ``text`` that what stands at ``at`` is said of: up to the semicolons
    around it, or where the text states more than one scope (``alone`` false), up to the commas
    too ("inner tubes, brake pads (Ride and Pro only), chains ...")."""
    marks = ";" if alone else ";,"
    start = max(text.rfind(c, 0, at) for c in marks) + 1
    ends = [i for c in marks if (i := text.find(c, at)) >= 0]
    return start, min(ends) if ends else len(text)


#: "does not apply to Day Passes or pay-as-you-ride", "is not available on Personal", "isn't
#: included with the Basic plan", "cannot be used for group classes": what a thing is said not to
#: hold for
_EXCLUDED = re.compile(
    r"\b(?:(?:does|do|is|are|will|can|was|were)\s+not|doesn['’]t|don['’]t|isn['’]t|aren['’]t|won['’]t"
    r"|cannot|can['’]t|not)\s+(?:be\s+)?(?:apply|applies|available|included|offered|valid|used|usable"
    r"|covered|extend|extended|eligible|allowed|permitted)\s+(?:(?:to|on|for|in|with|at|against)\s+)(?P<items>[^.;:!?()—–]+)"
)
#: "There is no excess on HomeCare Boiler": a named thing without something
_NONE_ON = re.compile(rf"\bno\s+(?:[a-z][\w-]*\s+){{1,3}}?(?:on|at|for|with|in)\s+(?P<items>{_LIST})")
#: where a list of excluded things ends: a new clause
_ITEMS_END = re.compile(
    r",\s*(?:so|but|which|where|because|as|since|unless|although|while|and\s+(?:the|it|we|you|they|there))\b"
    r"|\s(?:because|unless|since|as\s+they|which|where|when|if|so\s+that)\b|\s+-\s"
)
#: a stated subject of an exclusion: some word besides a pronoun ("This does not apply to
#: Business, where ..." says of what only in the sentence before)
_SUBJECT = re.compile(r"\b(?!(?:this|that|these|those|it|they|there|which|we|you)\b)[A-Za-z]{3,}", re.I)
_ITEM_SEPARATOR = re.compile(
    r"\s*,\s*(?:and\s+|or\s+|nor\s+)?(?:to\s+|on\s+|for\s+|in\s+)?|\s+(?:and|or|nor)\s+(?:to\s+|on\s+|for\s+|in\s+)?"
)


class Excluded(NamedTuple):
    """A thing a text says something does not hold for, where it stands, and where the denial
    that excludes it starts ("does not apply to")."""

    item: str
    start: int
    end: int
    denial: int


@lru_cache(maxsize=65536)
def exclusions(text: str) -> tuple[Excluded, ...]:
    """The things ``text`` says something does not hold for: "The concession does not apply to
    Day Passes or pay-as-you-ride" -> "Day Passes", "pay-as-you-ride"; "There is no excess on
    HomeCare Boiler" -> "HomeCare Boiler". Each a few words at most (a longer stretch is a
    reason, not a thing), with no value or day in it, said of a subject the sentence names
    ("This does not apply to ..." names none)."""
    out: list[Excluded] = []
    for pattern in (_EXCLUDED, _NONE_ON):
        for m in pattern.finditer(text):
            start, items = m.start("items"), m.group("items")
            if cut := _ITEMS_END.search(items):
                items = items[: cut.start()]
            at = 0
            for part in _ITEM_SEPARATOR.split(items):
                at = items.index(part, at) if part else at
                item = re.sub(r"^(?:the|a|an|our|your|its|their)\s+", "", part.strip(), flags=re.I)
                if (
                    item
                    and not re.match(r"(?:any|all|every)\b", item, re.I)  # "not in any licence" denies all
                    and len(item.split()) <= 4
                    and not re.search(r"\d", item)  # "and cost £4": a value goes on, no thing does
                    and not re.fullmatch(_DAY, item)  # days are when (:func:`day_sets`)
                    and (pattern is _NONE_ON or _SUBJECT.search(text[: m.start()]))
                    # "adults who are not eligible on the NHS": the relative clause's, not the sentence's
                    and not re.search(r"\b(?:who|which|that)\s+(?:\w+\s+)?$", text[: m.start()], re.I)
                ):
                    begin = start + items.index(item, at)
                    out.append(Excluded(item, begin, begin + len(item), m.start()))
                at += len(part)
    return tuple(out)


def _names_in(names: frozenset[str], text: str) -> frozenset[str]:
    """Those of ``names`` that ``text`` states."""
    low = text.lower()
    return frozenset(n for n in names if re.search(rf"(?<!\w){re.escape(n)}(?!\w)", low))


def _same_kind(a: str, b: str) -> bool:
    return not a or not b or a == b


def scope_conflict(stated: Sequence[Scope], page: Scope, page_text: str) -> tuple[Scope, str] | None:
    """The first of a statement's scopes (``stated``: its restrictions, universals and lists of
    names) that cannot hold with a page sentence's scope (``page``, in ``page_text``), both about
    the same thing, and what differs; None where all can:

    - a universal where the page restricts it to names: "on any system" / "only on the Home 4.3 kW
      and Plus 6 kW systems";
    - a restriction where the page states the universal: "only on Fibre 500" / "on any plan";
    - a restriction to other names than the page's: "Pro plan only" / "(Ride and Pro only)";
    - a list naming one of the page's restricted names and one the page does not name: "Alberta
      and the Pearl" / "only at Alberta and Sellwood".
    """
    only = _joined(page.names)
    for mine in stated:
        if not _same_kind(mine.noun, page.noun):
            continue
        if mine.kind == "all" and page.kind == "only":
            return mine, f"any {mine.noun} (response) vs only {only} (page)"
        if mine.kind == "only" and page.kind == "all":
            return mine, f"only {_joined(mine.names)} (response) vs any {page.noun} (page)"
        if mine.kind == page.kind == "only" and mine.names != page.names and mine.names & page.names:
            return mine, f"only {_joined(mine.names)} (response) vs only {only} (page)"
        if (
            mine.kind == "list"
            and page.kind == "only"
            and mine.names & page.names
            and mine.names - _names_in(mine.names, page_text)
        ):
            return mine, f"{_joined(mine.names)} (response) vs only {only} (page)"
    return None


def _joined(names: frozenset[str]) -> str:
    return " and ".join(sorted(names))


#: the days of the week, as written: "Mon", "Tues", "Thursday", "Saturdays" (capitalised: "sun"
#: and "wed" are words)
_DAY = r"(?:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)(?:day|nesday|sday|urday)?s?\b\.?"
_DAY_INDEX = {"mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6}
_EVERY_DAY = re.compile(r"\b(?:seven|7)\s+days\s+a\s+week\b|\b(?:every|each|any)\s+day\b|\bdaily\b", re.I)
_DAY_RANGE = re.compile(rf"(?P<a>{_DAY})\s*(?:to|through|thru|until|till|-|–|—)\s*(?P<b>{_DAY})")
_DAY_LIST = re.compile(rf"{_DAY}(?:\s*(?:,|and|&|or)\s*{_DAY})+")
_ONE_DAY = re.compile(_DAY)
_WEEK_PART = re.compile(r"\b(?P<part>weekday|weekend)s?\b", re.I)
#: an ordinal before a day names one day of a month or a season, not a day of every week: such
#: days are numbered from MONTHLY (the last Saturday of a month is MONTHLY + 5)
MONTHLY = 7
_ORDINAL_BEFORE = re.compile(r"\b(?:first|second|third|fourth|fifth|last|final|\d(?:st|nd|rd|th))\s+$", re.I)
#: a statement about when something is not: "closed on Sundays", "except Mondays"
_NOT_OPEN = re.compile(
    r"\b(?:clos(?:ed|es|ing)|shut(?:s|ting)?|except|excluding|other than|apart from)\b", re.I
)


def _day(word: str) -> int:
    return _DAY_INDEX[word[:3].lower()]


def weekday(word: str) -> int | None:
    """The day of the week ``word`` names, however written ("Fri", "Friday", "Fridays": 4);
    None for any other word."""
    return _day(word) if re.fullmatch(_DAY, word) else None


@dataclass(frozen=True)
class Days:
    """Days of the week a text names, and where: "Monday to Saturday", "Wednesdays and
    Saturdays", "seven days a week", "weekends"."""

    days: frozenset[int]  # 0 Monday .. 6 Sunday
    start: int
    end: int
    several: bool  # a range, a list, every day or a part of the week (not one day named)


@lru_cache(maxsize=65536)
def day_sets(text: str) -> tuple[Days, ...]:
    """The days ``text`` names, each range, list or day once, in order."""
    out: list[Days] = []

    def add(days: frozenset[int], m: re.Match, several: bool) -> None:
        if _ORDINAL_BEFORE.search(text, max(0, m.start() - 12), m.start()):
            # "the last Saturday of the month", "the first Saturday in October": a day of a month,
            # which rivals another of a month ("the last Friday") and no day of every week
            days = frozenset(d + MONTHLY for d in days)
        if not any(d.start < m.end() and m.start() < d.end for d in out):
            out.append(Days(days, m.start(), m.end(), several))

    for m in _EVERY_DAY.finditer(text):
        add(frozenset(range(7)), m, True)
    for m in _DAY_RANGE.finditer(text):
        a, b = _day(m["a"]), _day(m["b"])
        add(frozenset((a + i) % 7 for i in range((b - a) % 7 + 1)), m, True)
    for m in _DAY_LIST.finditer(text):
        add(frozenset(_day(w) for w in re.findall(_DAY, m.group())), m, True)
    for m in _WEEK_PART.finditer(text):
        add(frozenset(range(5) if m["part"].lower() == "weekday" else (5, 6)), m, True)
    for m in _ONE_DAY.finditer(text):
        add(frozenset({_day(m.group())}), m, False)
    return tuple(sorted(out, key=lambda d: d.start))


def open_days(text: str) -> frozenset[int]:
    """The days ``text`` says something is on: those of its stretches between semicolons that do
    not say when it is not ("Monday to Saturday, 7am to 7pm; closed on Sunday": Monday to
    Saturday)."""
    out: frozenset[int] = frozenset()
    for stretch in text.split(";"):
        if days_open(stretch):
            out = out.union(*(d.days for d in day_sets(stretch)))
    return out


#: words after which the days of a stretch are those something is not on, until "open" says
#: otherwise: "closed Sun-Mon", "except Mondays", "closed Monday, open Tuesday to Sunday" ("closed
#: between 12pm and 1pm" and "closes at 3.30pm on Sundays" close hours, not days)
_SHUT = re.compile(
    r"\b(?:closed|shut)\b(?!\s+(?:between|from|until|till|by)\b|\s+(?:at\s+)?\d)"
    r"|\b(?:except|excluding|other than|apart from)\b",
    re.I,
)
_REOPEN = re.compile(r"\bopen(?:s|ing)?\b", re.I)
#: a turn to another thing: "closed on Sundays, but call-outs run on Sundays from 9am"
_TURN = re.compile(r"\b(?:but|while|whereas|though|although)\b", re.I)
#: a negation that denies the days it stands just before: "no Sunday visits", "not on Mondays",
#: "we don't open on Tuesdays", "I don't think they open on Mondays", "none on Sundays" (no clause
#: between)
_DENIED_BEFORE = re.compile(r"(?:\b(?:no|not|never|without|none)|n't)(?:[\s(]+[\w'-]+){0,4}[\s(]+$", re.I)
#: months and seasons: "closed May to September" closes them, not the day named before
_MONTH_OR_SEASON = (
    "January|February|March|April|May|June|July|August|September|October|November|December|"
    "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|winter|spring|summer|autumn|fall"
)
#: what denies the days it follows at once in their clause: "Sunday: closed", "| Monday | Closed
#: |", "Sunday lessons aren't available", "Sun: no visits", "Sunday and bank holidays: none"
_DENIED_AFTER = re.compile(
    r"[\s:|*()\-–—]*(?:[\w'&-]+[\s:|*]+){0,3}?(?:(?:is|are)\s+)?(?:closed|shut|not|no|none|unavailable)\b"
    rf"(?!\s+(?:in\s+|from\s+|during\s+|over\s+|for\s+)?(?:the\s+)?(?:{_MONTH_OR_SEASON})\b)"
    r"|[\s:|*]*(?:is|are)\s+(?:out|off-limits)\b"
    r"|[\s:|*()\-–—]*(?:[\w'-]+\s+){0,2}?[\w]+n't\b",
    re.I,
)
_CLAUSE_END = re.compile(r"[,.;!?\n]")
_SHUT_BEFORE_NEXT = re.compile(r"\b(?:closed|shut)(?:\s+\w+){0,2}\s*$", re.I)
_HOURS_AFTER = re.compile(r"[\s:,]*(?:from\s+|between\s+)?\d")
_CLAUSE_END_LAST = re.compile(r".*[,.;!?\n:—–]", re.S)
#: where a stretch ends: a sentence, a semicolon, a line (a table's row)
_STRETCH_END = re.compile(r"(?<=[.!?])\s+|;|\n")


class DaysSaid(NamedTuple):
    """Days of the week a text says something is on (``open``) or is not, and where they stand."""

    days: frozenset[int]
    open: bool
    start: int
    end: int
    loose: bool = False  # "weekdays", "weekends": often said of the days something is open


@lru_cache(maxsize=65536)
def days_said(text: str) -> tuple[DaysSaid, ...]:
    """Each stretch of days ``text`` names, and whether it says something is on them or not: in
    "Tue-Fri 10:00-17:00, Sat 10:00-14:00, closed Sun-Mon" Tuesday to Friday and Saturday are
    open, Sunday and Monday closed. A stretch (a sentence, a clause between semicolons, a line)
    is open until a word says otherwise ("closed", "except") and open again after "open" or a
    turn ("but"); a
    negation denies the days just after it in its clause ("no Sunday visits"), and what follows
    the days in their clause may deny them ("Sunday: closed")."""
    ends = [m.start() for m in _STRETCH_END.finditer(text)]
    marks = sorted(
        [(m.start(), False) for m in _SHUT.finditer(text)]
        + [(m.start(), True) for m in _REOPEN.finditer(text)]
        + [(m.start(), True) for m in _TURN.finditer(text)]
        + [(e, True) for e in ends]
    )
    named = day_sets(text)
    out = []
    for i, d in enumerate(named):
        state = True
        for at, opens in marks:
            if at > d.start:
                break
            state = opens
        # the rest of its clause; where the next days named come first, what follows is theirs
        # ("open 10am to 3pm on Sundays and closed on Mondays", "Mon-Sat (no Sundays)")
        after = text[d.end - text[d.end - 1].count(".") : d.end + 40]  # "Sun." ends its sentence
        after = after[: m.start()] if (m := _CLAUSE_END.search(after)) else after
        if i + 1 < len(named) and named[i + 1].start < d.end + len(after):
            after = after[: named[i + 1].start - d.end]
            if _DENIED_BEFORE.search(after) or _SHUT_BEFORE_NEXT.search(after):
                after = ""
        before = text[max(0, d.start - 40) : d.start]
        before = before[m.end() :] if (m := _CLAUSE_END_LAST.search(before)) else before
        if not state and _HOURS_AFTER.match(after):
            state = True  # "Closed daily 12-1pm": hours it is closed, on days it is open
        if _DENIED_BEFORE.search(before) or _DENIED_AFTER.match(after):
            state = False
        loose = _WEEK_PART.fullmatch(text, d.start, d.end) is not None
        out.append(DaysSaid(d.days, state, d.start, d.end, loose))
    return tuple(out)


def days_bound(text: str, at: Sequence[int]) -> tuple[tuple[DaysSaid, ...], ...]:
    """For each value of ``text`` at ``at``, the stretch of days it is stated for: the last
    stretch of days before it in its sentence or clause, else the first after it ("10am to 5pm
    on Saturdays"); none where its sentence names no day. One group of every stretch of days
    where ``at`` is empty."""
    said = days_said(text)
    if not at:
        return (said,)
    bounds = [0, *(m.end() for m in _STRETCH_END.finditer(text)), len(text) + 1]
    out: list[tuple[DaysSaid, ...]] = []
    for pos in at:
        lo = max(b for b in bounds if b <= pos)
        hi = min(b for b in bounds if b > pos)
        local = [d for d in said if lo <= d.start < hi]
        before = [d for d in local if d.end <= pos]
        out.append(tuple(before[-1:] or [d for d in local if d.start >= pos][:1]))
    return tuple(out)


def _monthly_and_weekly(claim: Sequence[DaysSaid], stated: Sequence[Sequence[DaysSaid]]) -> bool:
    """One side names days of a month ("the last Friday"), the other days of the week: they are
    not weighed against each other ("the first and third Saturday of each month" and "Saturday
    mornings")."""
    monthly = {any(day >= MONTHLY for d in ds for day in d.days) for ds in (claim, *stated) if ds}
    return len(monthly) > 1


def days_otherwise(claim: Sequence[DaysSaid], stated: Sequence[Sequence[DaysSaid]], bound: bool) -> bool:
    """Whether the days ``stated`` (groups of stretches of days, as :func:`days_bound` gives
    them) cannot be the days ``claim`` says: a day the claim says something is on that the
    statement says it is not, or a day the claim says it is not that the statement says it is.
    Where ``bound`` (each group the days the statement gives one of the claim's own values for:
    "10am to 5pm"), none of the groups within the claim's days and one beyond them ("Mon-Fri
    8am-7pm" for "Monday to Thursday, 8am to 7pm"; "8am ... Monday to Thursday, 5:30pm on
    Fridays" states a Friday claim's 5:30pm on its day). Otherwise days that share some of the
    claim's, leave out others and add their own (another schedule: "Wednesday to Sunday" for
    "Thursday to Monday"). Fewer days than the claim's are a part of it; other days alone, with
    none of the claim's values, are about another day ("Sundays are shorter" says nothing of
    Saturdays); "weekdays" and "weekends" are said loosely of the days something is open, so
    they show no day it is on. Days of a month ("the last Friday") are weighed only against days
    of a month."""
    if _monthly_and_weekly(claim, stated):
        return False
    claim_on = frozenset().union(*(d.days for d in claim if d.open))
    claim_off = frozenset().union(*(d.days for d in claim if not d.open))
    claim_on -= claim_off  # "every day except Monday"

    def days(group: Sequence[DaysSaid]) -> tuple[frozenset[int], frozenset[int]]:
        off = frozenset().union(*(d.days for d in group if not d.open))
        on = frozenset().union(*(d.days for d in group if d.open and not d.loose)) - off
        return on, off

    read = [days(g) for g in stated]
    on = frozenset().union(*(o for o, _ in read))
    off = frozenset().union(*(f for _, f in read))
    if claim_on & off or claim_off & on:
        return True
    if not claim_on or not on - claim_on:
        return False
    if bound:
        return not any(o and o <= claim_on for o, _ in read)
    return bool(on & claim_on and claim_on - on)


def days_elsewhere(claim: Sequence[DaysSaid], stated: Sequence[Sequence[DaysSaid]]) -> bool:
    """Whether the days ``stated`` are other days than all the ``claim`` says something is on,
    none closed or said loosely on either side: "first Saturday of June" is no statement of "the
    first Sunday of June", though it contradicts nothing (:func:`days_otherwise`: another day may be another
    thing's). Days of a month are weighed only against days of a month."""
    said = [*claim, *(d for g in stated for d in g)]
    if _monthly_and_weekly(claim, stated) or any(not d.open or d.loose for d in said):
        return False  # "weekday afternoons" is said loosely: no day it is not
    claim_on = frozenset().union(*(d.days for d in claim))
    on = frozenset().union(*(d.days for g in stated for d in g))
    return bool(claim_on) and bool(on) and not on & claim_on


def days_open(text: str) -> bool:
    """Whether ``text`` can say on which days something is: not where it says when it is not
    ("closed on Sundays", "every day except Monday")."""
    return _NOT_OPEN.search(text) is None


def day_names(days: frozenset[int]) -> str:
    """``days`` written out: "Monday to Saturday", "Thursday to Monday" (a stretch across the
    weekend), "Wednesday and Saturday", "every day", "Saturday of a month"."""
    names = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
    if monthly := sorted(d - MONTHLY for d in days if d >= MONTHLY):
        weekly = frozenset(d for d in days if d < MONTHLY)
        of_month = " and ".join(names[d] for d in monthly) + " of a month"
        return f"{day_names(weekly)} and {of_month}" if weekly else of_month
    if len(days) == 7:
        return "every day"
    ordered = sorted(days)
    if len(ordered) > 2:
        # the week read from the day after the first day off: Thursday to Monday is one stretch
        first = next(d for d in range(7) if (d - 1) % 7 not in days and d in days)
        stretch = [(first + i) % 7 for i in range(len(ordered))]
        if set(stretch) == days:
            return f"{names[stretch[0]]} to {names[stretch[-1]]}"
    written = [names[d] for d in ordered]
    return " and ".join(written) if len(written) < 3 else ", ".join(written[:-1]) + " and " + written[-1]


__all__ = [
    "MONTHLY",
    "Days",
    "Excluded",
    "Scope",
    "around",
    "DaysSaid",
    "day_names",
    "day_sets",
    "days_bound",
    "days_elsewhere",
    "days_otherwise",
    "days_said",
    "days_open",
    "exclusions",
    "open_days",
    "listed_names",
    "scope_conflict",
    "scopes",
    "weekday",
]
