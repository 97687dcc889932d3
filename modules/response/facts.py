"""Typed values in text, and whether two texts agree on them: what an embedding cannot see.

MiniLM rates "costs $9.99" close to "costs $6" and "1 TB" close to "100 GB". Here numbers are
read with what they measure (money with its currency and period, a percentage, a data size, a
length, a year, a count) into comparable amounts: "$6/mo", "6 dollars a month" and "USD 6 per
month" are the same value; "three" is 3; "1 TB" is 1,000 GB. :func:`compare_values` says
whether a text states the values of a claim (``agree``), states other values of the same
kind (``conflict``), speaks of another numbered variant of its subject ("Band 3" for a claim
about "Band 2", ``other``), or says nothing about them (``absent``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from functools import lru_cache

_SMALL = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen".split()
    )
}
_TENS = {
    w: 10 * i
    for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split())
    if w != "_"
}
_SCALE = {
    "hundred": 1e2,
    "thousand": 1e3,
    "million": 1e6,
    "billion": 1e9,
    "trillion": 1e12,
    "k": 1e3,
    "m": 1e6,
    "mn": 1e6,
    "bn": 1e9,
}
#: "twenty-five", "thirty one": tens and units written out
_UNITS_WORD = "(?:one|two|three|four|five|six|seven|eight|nine)"
_TENS_UNITS = (  # not "twenty five-year-olds": twenty children of five
    rf"(?:{'|'.join(t for t in _TENS)})(?:-{_UNITS_WORD}\b|\s{_UNITS_WORD}\b(?!-))"
)
_WORD_NUMBER = (
    _TENS_UNITS
    + "|"
    + "|".join(
        sorted(
            [
                *_SMALL,
                *_TENS,
                "a dozen",
                "dozen",
                "a hundred",
                "a thousand",
                "a million",
                "half a million",
                "a billion",
            ],
            key=len,
            reverse=True,
        )
    )
)

_CURRENCY = {
    "$": "USD",
    "usd": "USD",
    "dollar": "USD",
    "dollars": "USD",
    "us$": "USD",
    "€": "EUR",
    "eur": "EUR",
    "euro": "EUR",
    "euros": "EUR",
    "£": "GBP",
    "gbp": "GBP",
    "pound": "GBP",
    "pounds": "GBP",
    "¥": "JPY",
    "jpy": "JPY",
    "yen": "JPY",
    "₹": "INR",
    "inr": "INR",
    "r": "ZAR",
    "zar": "ZAR",
    "rand": "ZAR",
    "chf": "CHF",
    "czk": "CZK",
    "dkk": "DKK",
    "sek": "SEK",
    "nok": "NOK",
    "pln": "PLN",
    "huf": "HUF",
    "isk": "ISK",
    "mxn": "MXN",
    "brl": "BRL",
    "cny": "CNY",
    "krw": "KRW",
    "thb": "THB",
    "try": "TRY",
    # a dollar of any country is a dollar: an answer drops the "NZ" of the page's "NZ$160"
    "aud": "USD",
    "cad": "USD",
    "nzd": "USD",
    "sgd": "USD",
    "hkd": "USD",
}
#: the currency codes written before or after an amount ("CHF 2,900", "790 CZK")
_CODES = "USD|EUR|GBP|JPY|INR|ZAR|CHF|CZK|DKK|SEK|NOK|PLN|HUF|ISK|MXN|BRL|CNY|KRW|THB|TRY|AUD|CAD|NZD|SGD|HKD"
#: a hundredth of a currency, written after the amount: "40p", "25 cents"
_SUBUNITS = {"p": "GBP", "pence": "GBP", "cent": "USD", "cents": "USD", "¢": "USD"}
_PERIOD = {
    "month": "month",
    "mo": "month",
    "monthly": "month",
    "year": "year",
    "yr": "year",
    "annually": "year",
    "annual": "year",
    "yearly": "year",
    "week": "week",
    "wk": "week",
    "weekly": "week",
    "day": "day",
    "daily": "day",
    "hour": "hour",
    "hr": "hour",
    "hourly": "hour",
    "one-time": "once",
    "one-off": "once",
}
#: a price's amount per year; a one-time price ("$299 one-time") is paid once, no rival of a rate
_PER_YEAR = {"year": 1, "month": 12, "week": 52, "day": 365, "hour": 8760, "once": 1}
#: unit -> (dimension, factor to the dimension's base unit)
_UNITS = {
    "byte": ("bytes", 1),
    "bytes": ("bytes", 1),
    "kb": ("bytes", 1e3),
    "mb": ("bytes", 1e6),
    "gb": ("bytes", 1e9),
    "tb": ("bytes", 1e12),
    "pb": ("bytes", 1e15),
    "gigabyte": ("bytes", 1e9),
    "gigabytes": ("bytes", 1e9),
    "terabyte": ("bytes", 1e12),
    "terabytes": ("bytes", 1e12),
    "megabyte": ("bytes", 1e6),
    "megabytes": ("bytes", 1e6),
    "mm": ("metres", 1e-3),
    "cm": ("metres", 1e-2),
    "m": ("metres", 1),
    "metre": ("metres", 1),
    "metres": ("metres", 1),
    "meter": ("metres", 1),
    "meters": ("metres", 1),
    "km": ("metres", 1e3),
    "kilometre": ("metres", 1e3),
    "kilometres": ("metres", 1e3),
    "kilometer": ("metres", 1e3),
    "kilometers": ("metres", 1e3),
    "ft": ("metres", 0.3048),
    "foot": ("metres", 0.3048),
    "feet": ("metres", 0.3048),
    "mile": ("metres", 1609.344),
    "miles": ("metres", 1609.344),
    "inches": ("metres", 0.0254),
    "km2": ("square metres", 1e6),
    "km²": ("square metres", 1e6),
    "sq km": ("square metres", 1e6),
    "square kilometres": ("square metres", 1e6),
    "square kilometers": ("square metres", 1e6),
    "sq mi": ("square metres", 2.59e6),
    "square miles": ("square metres", 2.59e6),
    "m2": ("square metres", 1),
    "m²": ("square metres", 1),
    "square metres": ("square metres", 1),
    "square meters": ("square metres", 1),
    "hectares": ("square metres", 1e4),
    "acres": ("square metres", 4046.86),
    "kg": ("grams", 1e3),
    "grams": ("grams", 1),
    "kilograms": ("grams", 1e3),
    "lb": ("grams", 453.6),
    "lbs": ("grams", 453.6),
    "pounds_mass": ("grams", 453.6),
    "tonnes": ("grams", 1e6),
    "tons": ("grams", 9.07e5),
    "seconds": ("seconds", 1),
    "second": ("seconds", 1),
    "minutes": ("seconds", 60),
    "minute": ("seconds", 60),
    "min": ("seconds", 60),
    "hours": ("seconds", 3600),
    "hour": ("seconds", 3600),
    "days": ("seconds", 86400),
    "day": ("seconds", 86400),
    "weeks": ("seconds", 604800),
    "week": ("seconds", 604800),
    "months": ("seconds", 2.63e6),
    "month": ("seconds", 2.63e6),
    "years": ("seconds", 3.156e7),
    "year": ("seconds", 3.156e7),
    "users": ("users", 1),
    "user": ("users", 1),
    "seats": ("users", 1),
    "seat": ("users", 1),
    "devices": ("devices", 1),
    "device": ("devices", 1),
    "w": ("watts", 1),
    "watt": ("watts", 1),
    "watts": ("watts", 1),
    "kw": ("watts", 1e3),
    "kilowatts": ("watts", 1e3),
    "wh": ("watt-hours", 1),
    "watt-hours": ("watt-hours", 1),
    "watt-hour": ("watt-hours", 1),
    "kwh": ("watt-hours", 1e3),
    "kilowatt-hours": ("watt-hours", 1e3),
    "kilowatt-hour": ("watt-hours", 1e3),
    "v": ("volts", 1),
    "volts": ("volts", 1),
    "volt": ("volts", 1),
    "req/s": ("requests/s", 1),
    "requests/s": ("requests/s", 1),
    "requests/second": ("requests/s", 1),
    "requests per second": ("requests/s", 1),
    "rps": ("requests/s", 1),
}
_MONTHS = {
    m: i
    for i, m in enumerate(
        "january february march april may june july august september october november december".split(), 1
    )
}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
#: a month however written in a day of the year ("30 September", "Sept. 5")
_MONTH_WORDS = "|".join([*_MONTHS, "sept"])

_NUM = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_AMOUNT = (
    rf"(?P<num>{_NUM}|{_WORD_NUMBER})(?:[ -]?(?P<scale>hundred|thousand|million|billion|trillion|bn|k)\b)?"
    r"(?:[ -]?(?P<scale2>thousand|million|billion)\b)?"
)  # "one hundred thousand"
_UNIT_WORDS = "|".join(sorted((re.escape(u) for u in _UNITS), key=len, reverse=True))
_PERIOD_TAIL = r"(?:\s*(?:/|per|a|an|each|every)\s*(?P<period>month|mo|year|yr|week|wk|day|hour|hr)\b|\s+(?P<period2>monthly|annually|yearly|weekly|daily|hourly)\b)?"
_PATTERNS = [
    (
        "skip",
        re.compile(
            r"\b24/7\b|\[\d{1,3}\]|^\s*\d{1,2}[.)](?=\s|$)|(?<=\s)\d{1,2}\.(?=\s+[A-Z*])|(?<=[A-Za-z])(?<!km)(?<!\sm)(?<!\bR)(?<!noon)(?<!midday)-?\d[\d.]*|"
            r"\S+\.(?:example|com|org|net|io|dev|co|uk|de|fr)\S*|https?://\S+",
            re.M,
        ),
    ),
    # the first day of "25 and 26 December": a day whose month is written once, after the last
    (
        "skip",
        re.compile(
            rf"\b\d{{1,2}}(?:st|nd|rd|th)?(?=(?:\s*(?:,|and|or|to|-|–)\s*\d{{1,2}}(?:st|nd|rd|th)?)+\s+(?:{_MONTH_WORDS})\b)",
            re.I,
        ),
    ),
    # a span of years in a title ("Herring Fleets 1850–1950"): no date; "(1762–1763)" stays two years
    ("skip", re.compile(r"\b[A-Z][a-z]+\s1[0-9]{3}\s?[–-]\s?(?:1[0-9]{3}|20[0-9]{2})\b")),
    (
        "time",
        re.compile(
            r"\b(?P<hour>[01]?\d|2[0-3])(?:[:.](?P<minute>[0-5]\d))?\s*(?P<ampm>[ap])\.?\s?m\b\.?|"
            r"\b(?P<hour2>[01]?\d|2[0-3]):(?P<minute2>[0-5]\d)\b|"
            # "8 in the morning", "seven in the morning", "5.30 in the evening", "nine at night"
            r"\b(?P<hour3>1[0-2]|[1-9]|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
            r"(?:[:.](?P<minute3>[0-5]\d))?\s+(?:in\s+the\s+(?P<part>morning|afternoon|evening)|at\s+(?P<night>night))\b|"
            r"\b(?P<noon>noon|midday)\b",
            re.I,
        ),
    ),
    (
        "duration",
        re.compile(
            rf"\b(?P<hours>an|one|two|three|\d+)\s+hours?\s+and\s+(?P<num>\d+|{_WORD_NUMBER})\s+minutes?\b",
            re.I,
        ),
    ),  # "an hour and ten minutes"
    (
        "date",
        re.compile(
            rf"\b(?P<month>{'|'.join(_MONTHS)})\.?\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<year>\d{{4}})\b",
            re.I,
        ),
    ),
    (
        "date",
        re.compile(
            rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?P<month>{'|'.join(_MONTHS)})\.?,?\s+(?P<year>\d{{4}})\b",
            re.I,
        ),
    ),
    ("date", re.compile(r"\b(?P<year>\d{4})-(?P<monthn>\d{2})-(?P<day>\d{2})\b")),
    # a day of the year without its year: "30 September", "1st of March", "March 1" (with a year,
    # a date above)
    (
        "day",
        re.compile(
            rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month>{_MONTH_WORDS})\b|"
            rf"\b(?P<month2>{_MONTH_WORDS})\.?\s+(?P<day2>\d{{1,2}})(?:st|nd|rd|th)?\b(?![\d:.,]\d)",
            re.I,
        ),
    ),
    # a price of nothing, in any currency ("free of charge" is £0, not a £5 fee); the value is the
    # word "free", "nothing" or "no" alone, so "application fee" stays a word of the statement
    (
        "free",
        re.compile(
            r"\b(?P<v1>free)\s+of\s+charge\b|\bfor\s+(?P<v2>free)(?=\s*(?:[.,;!?)]|$|(?:with|if|when|once|and|as)\b))|"
            r"\bships?\s+(?:\w+\s+)?(?P<v3>free)\b|"
            r"\b(?:is|are|go|goes|it's|stays?)\s+(?:completely\s+|entirely\s+)?(?P<v4>free)\b(?!\s+(?:to|of)\b)|"
            r"\bcosts?\s+(?P<v5>nothing)\b|\bat\s+(?P<v6>no)\s+(?:extra\s+|additional\s+)?(?:cost|charge)\b|"
            r"\b(?P<v7>no)\s+charge\b|"
            r"\b(?P<v8>no)\s+(?:application\s+|entry\s+|extra\s+|additional\s+|booking\s+)?fee\b|"
            r"\b(?P<v9>complimentary)\b",
            re.I,
        ),
    ),
    (
        "money",
        re.compile(
            rf"(?P<cur>US\$|\b[A-Z]{{1,2}}\$|\$|€|£|¥|₹|\b(?-i:R)(?=\d[\d,.]*(?![\w-]))|\b(?-i:{_CODES})\s?)\s?"
            rf"{_AMOUNT.replace('bn|k)', 'bn|k|m|mn)')}"
            rf"{_PERIOD_TAIL}",
            re.I,
        ),
    ),  # "$1M"
    (
        "money",
        re.compile(
            rf"\b{_AMOUNT}\s?(?P<cur>dollars?|euros?|pounds?|yen|rand|(?-i:{_CODES}))\b{_PERIOD_TAIL}", re.I
        ),
    ),
    # pence and cents: "40p a mile", "25 cents" (not "10 p.m.", nor "1080p" video)
    (
        "money",
        re.compile(
            rf"(?<![\w.,£$€])(?P<num>\d{{1,2}}(?:\.\d)?)(?P<cur>p|\s?pence|\s?cents?|¢)\b(?!\.?\s?m\b){_PERIOD_TAIL}",
            re.I,
        ),
    ),
    ("percent", re.compile(rf"\b{_AMOUNT}\s?(?:%|percent\b|per cent\b)", re.I)),
    ("quantity", re.compile(rf"\b{_AMOUNT}[\s-]?(?P<unit>{_UNIT_WORDS})\b", re.I)),
    (
        "year",
        re.compile(
            r"\b(?:in|since|from|until|by|of|year)\s+(?P<year>1[0-9]{3}|20[0-9]{2})\b|\b(?P<year2>1[5-9][0-9]{2}|20[0-9]{2})\b"
        ),
    ),
    # not the thousands of a number the skip above took ("A2,600" is no 600)
    ("number", re.compile(rf"(?<![\w.])(?!(?<=\d,)\d{{3}}(?!\d)){_AMOUNT}(?![\w])", re.I)),
]
#: what each pattern cannot match without (None: it may match any text): most sentences state
#: no number, and trying every pattern at every position is most of the cost of :func:`values`
_DIGIT = re.compile(r"\d")
_COUNT = re.compile(
    r"\d|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|teen|twenty|thirty|forty|"
    r"fifty|sixty|seventy|eighty|ninety|dozen|hundred|thousand|million|billion",
    re.I,
)
_CLOCK = re.compile(r"\d|noon|midday|\bin\s+the\s+(?:morning|afternoon|evening)\b|\bat\s+night\b", re.I)
_NEEDS = [
    None,
    _DIGIT,
    _DIGIT,
    _CLOCK,
    _COUNT,
    _DIGIT,
    _DIGIT,
    _DIGIT,
    _DIGIT,
    None,
    _COUNT,
    _COUNT,
    _DIGIT,
    _COUNT,
    _COUNT,
    _DIGIT,
    _COUNT,
]


#: thresholds ("orders over $250", "$75 or more"); a cap ("covers up to $2 million") is an amount
_BOUND_BEFORE = re.compile(
    r"\b(?:over|above|under|below|at least|more than|less than|upwards of|"
    r"minimum of|min\.?)\s*$",
    re.I,
)
#: a period written before a price: "Monthly: $7.99", "annual plan — $59.99", "a one-time $999"
_PERIOD_BEFORE = re.compile(
    r"\b(?P<word>monthly|annual|annually|yearly|weekly|daily|per month|per year|a month|a year|one-time|one-off)"
    r"\b(?: (?:plan|billing|price|subscription|fee))?[\s:*=–—-]{0,6}$",
    re.I,
)
#: ... or after it: "$66 if you pay yearly", "$60, billed annually", "$999 one-time"
_PERIOD_AFTER = re.compile(
    r",?\s*(?:if|when)?\s*(?:you\s+)?(?:pay|paid|billed|charged)\s+"
    r"(?P<word>monthly|annually|yearly|weekly|daily)\b|\s+(?P<once>one-time|one-off)\b",
    re.I,
)
#: what a price is charged for, written after it: "£3.99 per box", "€62 a night", "$8/user"
_PER_AFTER = re.compile(r"\s*(?:per\s+|each\s+|/\s*|an?\s+)(?P<noun>[a-z]+)\b", re.I)
#: words after "a" or "per" that are no thing a price is charged for, and the people a price is
#: charged to, which sites and answers name with many words ("per person", "per traveller")
_NOT_PER = frozenset(_PERIOD) | frozenset(
    """minute min mins minutes hours days weeks months years the a an and or of in on to for from up
    person persons people head heads traveller travellers traveler travelers adult adults user users
    seat seats guest guests member members passenger passengers rider riders employee employees
    student students child children customer customers participant participants""".split()
)
#: the capitalised word a plain number completes into a name ("Band 2", "Zone 1", "Fibre 500")
_NAMED_BY = re.compile(r"(?<![\w$£€])([A-Z][a-z]+)\s$")
#: a number that opens a range or a threshold counts people or things ("Children 5 and under")
_RANGE_AFTER = re.compile(r"\s*(?:[-–+]|(?:and|or)\s+(?:under|younger|over|older|up|more|less)\b|to\s+\d)")
#: a month, a weekday or a sentence's light first word ("Over 170", "Friday 7") names nothing
_NOT_NAMES = frozenset(
    """over under up to from after before between about around only just each per all any for
    in on at by with and or but the a an of if every some age ages aged roughly nearly almost
    approximately another these those top first last next total both sleeps seats monday tuesday
    wednesday thursday friday saturday sunday""".split()
) | frozenset(_MONTHS)
_BOUND_AFTER = re.compile(r"\s*(?:\+|or (?:more|less|above|over|under)\b|and (?:up|above|over)\b)", re.I)


@dataclass(frozen=True)
class Value:
    """One typed value as it appears in a text: ``kind`` and ``unit`` say what it measures, and
    ``amount`` is in the unit's base (bytes, metres, a currency per year for a price with a period)."""

    kind: str  # money (free: 0 in any currency) | percent | quantity | date | year | day | time | number
    amount: float  # in the unit's base; a price with a period: per year
    unit: str  # currency, dimension (bytes, metres, ...), "%", "" for plain numbers and dates
    start: int
    end: int
    text: str
    raw: float | None = None  # a price's amount as written, before its period is applied
    period: str | None = None  # month | year | week | day | hour | once ("one-time"), for a price
    factor: float = 1.0  # the written unit's size in the base unit (a GB: 1e9 bytes)
    bound: bool = False  # a threshold ("over $250", "$75 or more"), not an amount
    names: str = ""  # the name a plain number belongs to, lowercased: "band" in "Band 2"
    per: str = ""  # what a price is charged for, singular: "box" in "£3.99 per box"
    either_half: bool = False  # a clock time without "am" or "pm" ("once it's 6:40"): either half of the day

    def same_kind(self, other: Value) -> bool:
        """Values that can contradict each other: the same kind and unit (a date and a year too),
        both amounts or both thresholds ("$75 or more" is no rival of a $7.95 fee)."""
        if self.kind in ("date", "year") and other.kind in ("date", "year"):
            return True
        if {self.kind, other.kind} == {"date", "day"}:  # "7 April" and "14 March 2025"
            return True
        if self.period and other.period and self.period != other.period:
            return False  # "$7.99 a month" is no rival of "$59.99 a year"
        if self.per and other.per and self.per != other.per:
            return False  # "£3.99 per box" is no rival of "£4.95 per serving"
        # a duration's "at least" is what any duration of notice or of a stay says: "at least 48
        # hours' notice" and "24 hours' notice" are rivals
        durations = self.kind == other.kind == "quantity" and self.unit == other.unit == "seconds"
        return (
            self.kind == other.kind and _same_unit(self, other) and (self.bound == other.bound or durations)
        )

    def equals(self, other: Value) -> bool:
        """The same value, however written: "$6/mo" and "6 dollars a month", "3" and "three
        devices", "1 TB" and "1,000 GB", "2021" and "March 5, 2021"."""
        kinds = {self.kind, other.kind}
        if kinds == {"date", "day"}:  # "14 March" is "14 March 2025"
            date, day = (self, other) if self.kind == "date" else (other, self)
            return int(date.amount) % 10000 == int(day.amount)
        if kinds <= {"date", "year"}:
            if kinds == {"date"}:
                return self.amount == other.amount
            if kinds == {"year"}:
                return self.amount == other.amount
            date, year = (self, other) if self.kind == "date" else (other, self)
            return int(date.amount) // 10000 == int(year.amount)
        if "date" in kinds or "year" in kinds:
            return False
        if self.kind == other.kind == "money":
            if not _same_unit(self, other):
                return False
            if self.period and other.period:
                return _close(self.amount, other.amount, 0.0005)
            return _close(self.raw, other.raw, 0.0005)  # one without a period: as written
        if self.kind == other.kind and self.unit != other.unit:
            return False
        if "number" not in kinds and self.kind != other.kind:
            return False
        if "money" in kinds:  # "6" alone is not "$6" in a claim about a price; but the number is there
            amounts = [v.raw if v.kind == "money" else v.amount for v in (self, other)]
            return _close(amounts[0], amounts[1], 0.0005)
        if "number" in kinds and "quantity" in kinds:  # "seventy" is "70 minutes" as written
            q, n = (self, other) if self.kind == "quantity" else (other, self)
            return _close(q.amount / q.factor, n.amount, 0.0005)
        if self.unit == other.unit == "bytes" and self.factor != other.factor:  # 1 TB is 1,000 GB, or 1,024
            steps = round(math.log(max(self.factor, other.factor) / min(self.factor, other.factor), 1000))
            return any(_close(self.amount * 1.024**k, other.amount, 0.0005) for k in (-steps, 0, steps))
        if (
            self.kind == "time"
            and (self.either_half or other.either_half)
            and not (_CLOCK_24.fullmatch(self.text) or _CLOCK_24.fullmatch(other.text))
        ):
            return any(_close(self.amount + half, other.amount, 0.0005) for half in (0, 720, -720))
        converted = self.factor != other.factor  # conversions round: 29,032 ft = 8,849 m
        return _close(self.amount, other.amount, 0.002 if converted else 0.0005)


#: the currency of "free", "at no cost": nothing is nothing in every currency
FREE = "any"


def unit_of(word: str) -> tuple[str, float] | None:
    """A unit of measure's dimension and its size in the dimension's base unit ("kilometres":
    metres, 1000), or None for a word that is no unit."""
    return _UNITS.get(word.lower())


def _same_unit(a: Value, b: Value) -> bool:
    return a.unit == b.unit or (a.kind == b.kind == "money" and FREE in (a.unit, b.unit))


def _names_the_same_charge(claim: str, free: Value, text: str) -> bool:
    """The words right after "no" in "no application fee" are in ``text``."""
    following = re.findall(r"[a-z]+", claim[free.end : free.end + 40].lower())[:2]
    return len(following) == 2 and " ".join(following) in text.lower()


def _close(a: float | None, b: float | None, tolerance: float) -> bool:
    if a is None or b is None:
        return False
    return abs(a - b) <= tolerance * max(abs(a), abs(b), 1e-9)


def _amount(m: re.Match) -> float | None:
    raw = (m.group("num") or "").lower().strip()
    if raw in ("a dozen", "dozen"):
        value = 12.0
    elif raw in ("a hundred", "a thousand", "a million", "half a million", "a billion"):
        value = {
            "a hundred": 1e2,
            "a thousand": 1e3,
            "a million": 1e6,
            "half a million": 5e5,
            "a billion": 1e9,
        }[raw]
    elif raw in _SMALL:
        value = float(_SMALL[raw])
    elif raw in _TENS:
        value = float(_TENS[raw])
    elif (parts := re.split(r"[- ]", raw)) and len(parts) == 2 and parts[0] in _TENS and parts[1] in _SMALL:
        value = float(_TENS[parts[0]] + _SMALL[parts[1]])  # "twenty-five"
    else:
        try:
            value = float(raw.replace(",", ""))
        except ValueError:
            return None
    groups = m.groupdict()
    for scale in ((groups.get("scale") or "").lower(), (groups.get("scale2") or "").lower()):
        value *= _SCALE.get(scale, 1.0)
    return value


def _period(m: re.Match) -> str | None:
    groups = m.groupdict()
    word = (groups.get("period") or groups.get("period2") or "").lower()
    return _PERIOD.get(word)


_HOUR = r"(?:1[0-2]|0?[1-9])(?:[:.][0-5]\d)?"
_AM_PM = r"\s?[ap]\.?\s?m\b\.?"
_DAYS = (
    r"(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?s?\b|week(?:day|end)s?\b|daily\b|"
    r"every day\b|(?:bank |public )?holidays?\b"
)
#: opening hours written as a range of hours: "9-4 on weekdays", "8:30-4", "4-9 p.m.", "Sundays
#: 10-4". A bare "9-4" is hours only where days are named next to it (else a score, a count)
_HOURS_RANGE = re.compile(
    rf"(?<![\w.:/-])(?P<a>{_HOUR})(?P<a_ampm>{_AM_PM})?\s?(?:-|–|—|to|until|till)\s?"
    rf"(?P<b>{_HOUR})(?P<b_ampm>{_AM_PM})?(?![\w:/-]|\.\d)",
    re.I,
)
_DAYS_AFTER = re.compile(rf"\W{{0,4}}(?:on\s+|every\s+)?(?:{_DAYS})", re.I)
_DAYS_BEFORE = re.compile(rf"(?:{_DAYS}|\bopen\b|\bhours\b)[\W]{{0,5}}(?:from\s+)?$", re.I)


#: a time only a 24-hour clock writes ("18:40", "06:40"): a text that has one uses that clock
_CLOCK_24 = re.compile(r"\b(?:0\d|1[3-9]|2[0-3]):[0-5]\d\b")


def _twelve_hour(hour: str | None) -> bool:
    """Whether a clock time's hour as written ("6", "6:40") reads on a 12-hour clock: 1 to 12 with
    no leading zero ("06:40" and "18:40" are a 24-hour clock's)."""
    digits = (hour or "").replace(".", ":").partition(":")[0]
    return digits.isdigit() and not digits.startswith("0") and 1 <= int(digits) <= 12


def _hours_ranges(text: str) -> list[Value]:
    """The two times of each range of opening hours, in minutes after midnight: the end is the
    first time after the start ("9-4": 9:00 to 16:00), and an "a.m."/"p.m." written once holds for
    the side without one where it can ("4-9 p.m.": 16:00 to 21:00, "10-4 p.m.": 10:00 to 16:00)."""
    out = []
    for m in _HOURS_RANGE.finditer(text):
        a, b, a_ampm, b_ampm = m["a"], m["b"], m["a_ampm"], m["b_ampm"]
        if not (
            a_ampm
            or b_ampm
            or ":" in a + b
            or _DAYS_AFTER.match(text, m.end())
            or _DAYS_BEFORE.search(text[max(0, m.start() - 24) : m.start()])
        ):
            continue
        (ah, am), (bh, bm) = (
            (int(x), int(y or 0)) for x, _, y in (t.replace(".", ":").partition(":") for t in (a, b))
        )
        a_pm = "p" in a_ampm.lower() if a_ampm else None
        b_pm = "p" in b_ampm.lower() if b_ampm else None
        if a_pm is None and b_pm is not None:
            a_pm = b_pm and ah % 12 <= bh % 12  # "4-9 p.m." both evening, "10-4 p.m." from the morning
        if a_pm is None:
            a_pm = ah % 12 < 7  # nobody opens at 4 a.m.: "4-9" is the evening
        start = (ah % 12 + (12 if a_pm else 0)) * 60 + am
        if b_pm is None:
            end = (bh % 12) * 60 + bm
            end = end if end > start else end + 12 * 60
        else:
            end = (bh % 12 + (12 if b_pm else 0)) * 60 + bm
        if end <= start:
            continue  # "3-2 on Sunday" is a score
        # with no "am" or "pm" on either side, "8:30-4" is read as the day's; either half may be meant
        either = not (a_ampm or b_ampm or _CLOCK_24.search(text)) and _twelve_hour(a) and _twelve_hour(b)
        for side, minutes in (("a", start), ("b", end)):
            s0, e0 = m.start(side), m.end(f"{side}_ampm") if m[f"{side}_ampm"] else m.end(side)
            out.append(Value("time", float(minutes), "", s0, e0, text[s0:e0], either_half=either))
    return out


def values(text: str) -> list[Value]:
    """Every typed value in ``text``, left to right; each character belongs to one value at most
    (a date's year is not also a year, a price's number not also a number)."""
    return list(_values(text))


@lru_cache(maxsize=65536)
def _values(text: str) -> tuple[Value, ...]:
    found: list[Value] = _hours_ranges(text) if _DIGIT.search(text) else []
    taken: list[tuple[int, int]] = [(v.start, v.end) for v in found]
    has = {need: need is None or need.search(text) is not None for need in (None, _DIGIT, _CLOCK, _COUNT)}
    for (kind, pattern), need in zip(_PATTERNS, _NEEDS, strict=True):
        if not has[need]:
            continue  # it cannot match here
        for m in pattern.finditer(text):
            start, end = m.span()
            if kind == "free":  # the value word only
                start, end = next(m.span(g) for g, v in m.groupdict().items() if g.startswith("v") and v)
            if any(start < e and s < end for s, e in taken):
                continue
            if kind == "skip":  # citation marks, list numbers, model names (not "km2"), URLs: not values
                taken.append((start, end))
                continue
            value = _typed(kind, m)
            if value is None:
                continue
            taken.append((start, end))
            value = Value(*value[:3], start, end, text[start:end], *value[3:])
            if (
                value.kind == "time"
                and _twelve_hour(m.groupdict().get("hour2"))
                and not _CLOCK_24.search(text)
            ):
                value = replace(value, either_half=True)
            if _BOUND_BEFORE.search(text, max(0, start - 16), start) or _BOUND_AFTER.match(text, end):
                value = replace(value, bound=True)
            elif (
                value.kind == "number"
                and (named := _NAMED_BY.search(text, max(0, start - 20), start))
                and named.group(1).lower() not in _NOT_NAMES
                and not _RANGE_AFTER.match(text, end)
            ):
                value = replace(value, names=named.group(1).lower())
            if (
                value.kind == "money"
                and value.period is None
                and (
                    written := _PERIOD_BEFORE.search(text, max(0, start - 30), start)
                    or _PERIOD_AFTER.match(text, end)
                )
            ):
                period = _PERIOD[(written.group("word") or written.group("once")).lower().split()[-1]]
                value = replace(value, period=period, amount=value.raw * _PER_YEAR[period])
            if (
                value.kind == "money"
                and (per := _PER_AFTER.match(text, end))
                and (noun := per.group("noun").lower()) not in _NOT_PER
            ):
                value = replace(value, per=noun[:-1] if noun.endswith("s") and len(noun) > 3 else noun)
            found.append(value)
    return tuple(sorted(found, key=lambda v: v.start))


#: the rest of a compound adjective after a word number ("one-way", "two-factor"), not "-five"
_COMPOUND = re.compile(rf"-(?!{_UNITS_WORD}\b)[a-z]", re.I)


#: the hours of a clock written out ("seven in the morning")
_CLOCK_WORDS = {
    w: i + 1 for i, w in enumerate("one two three four five six seven eight nine ten eleven twelve".split())
}


#: what comes before an hour written out that is a time: "from seven in the morning", "till nine"
_CLOCK_CUE = re.compile(
    r"(?:^|\b(?:at|from|until|till|to|by|and|or|between|before|after|around|about|opens?|closes?|starts?|"
    r"finish(?:es)?|ends?|runs?)|[-–—(])\s*$",
    re.I,
)


def _typed(kind: str, m: re.Match) -> tuple | None:
    groups = m.groupdict()
    if kind == "time":  # minutes after midnight: "5 p.m." is "17:00", "noon" "12:00"
        if groups.get("noon"):
            return "time", 720.0, ""
        written = groups.get("hour") or groups.get("hour2") or groups.get("hour3")
        if not written.isdigit() and not _CLOCK_CUE.search(m.string, max(0, m.start() - 16), m.start()):
            return None  # "two in the afternoon" after "there are" counts sessions, not the clock
        hour = int(written) if written.isdigit() else _CLOCK_WORDS[written.lower()]
        minute = int(groups.get("minute") or groups.get("minute2") or groups.get("minute3") or 0)
        if groups.get("night"):  # "nine at night" is 21:00, "twelve at night" midnight, "two at night" 2am
            return "time", float((0 if hour == 12 else hour + 12 if hour >= 6 else hour) * 60 + minute), ""
        ampm = (
            groups.get("ampm")
            or {"morning": "a", "afternoon": "p", "evening": "p"}.get((groups.get("part") or "").lower(), "")
        ).lower()
        if ampm and not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if ampm == "p" else 0) if ampm else hour
        return "time", float(hour * 60 + minute), ""
    if kind == "date":
        month = (
            int(groups["monthn"]) if groups.get("monthn") else _MONTHS[groups["month"].lower().rstrip(".")]
        )
        day, year = int(groups["day"]), int(groups["year"])
        if not (1 <= month <= 12 and 1 <= day <= 31):
            return None
        return "date", float(year * 10000 + month * 100 + day), ""
    if kind == "day":  # month and day: "30 September" is 930
        month = _MONTHS[(groups.get("month") or groups.get("month2")).lower().rstrip(".")[:3]]
        day = int(groups.get("day") or groups.get("day2"))
        return ("day", float(month * 100 + day), "") if 1 <= day <= 31 else None
    if kind == "year":
        return "year", float(groups.get("year") or groups.get("year2")), ""
    if kind == "free":
        return "money", 0.0, FREE, 0.0, None
    amount = _amount(m)
    if amount is None:
        return None
    if kind == "duration":
        hours = groups["hours"].lower()
        hours = 1 if hours in ("an", "one") else _SMALL.get(hours, None) or int(hours)
        return "quantity", hours * 3600 + amount * 60, "seconds", None, None, 60
    if kind == "money" and (cur := groups["cur"].strip().lower()) in _SUBUNITS:
        period, currency = _period(m), _SUBUNITS[cur]
        amount /= 100
        return "money", amount * _PER_YEAR[period] if period else amount, currency, amount, period
    if kind == "money":
        currency = _CURRENCY.get(
            groups["cur"].strip().lower().rstrip("s")
            if groups["cur"].strip().lower() not in _CURRENCY
            else groups["cur"].strip().lower(),
            "USD",
        )
        period = _period(m)  # a rate is compared per year: "$6 a month" equals "$72 a year"
        return "money", amount * _PER_YEAR[period] if period else amount, currency, amount, period
    if kind == "percent":
        return "percent", amount, "%"
    if kind == "quantity":
        if groups["unit"] == "M":  # "1M messages": a million, not a metre
            return "number", amount * 1e6, ""
        dimension, factor = _UNITS[groups["unit"].lower()]
        return "quantity", amount * factor, dimension, None, None, factor
    if m.group(0)[-1:].isalpha() and _COMPOUND.match(m.string, m.end()):
        return None  # "one-way", "two-factor": a word number in a compound adjective counts nothing
    return "number", amount, ""


def is_word_one(value: Value) -> bool:
    """A bare "one" is a word more often than a count ("one of the largest", "one credit buys an
    hour", "counts as one request"), so it contradicts no other number."""
    return value.text.lower() == "one"


def compare_values(claim: str, text: str) -> tuple[str, list[tuple[Value, Value | None]]]:
    """``agree`` when ``text`` states every typed value of ``claim`` (however written),
    ``conflict`` when, for one of them, it states instead a value of the same kind that is none
    of the claim's, ``other`` when it numbers the claim's numbered name otherwise ("Band 3" for
    "Band 2") and its other values are not the claim's, or states every one of the claim's values
    otherwise in two kinds or more, one a count or a size (the size and the price of another
    lesson), else ``absent``; with the pairs (claim value, the text's matching or conflicting
    value, or None).

    Another number of a numbered name is a conflict only where the text states a measure of the
    claim (a price, a size, "free") and no other value of it otherwise: "free with Fibre 500"
    misstates "free with Fibre 900", while "Band 3 costs £160" is no misstatement of "Band 2
    costs £95" but the price of another band."""
    wanted, stated = values(claim), values(text)
    pairs: list[tuple[Value, Value | None]] = []
    verdict = "agree"
    variant = False
    matched = 0  # the claim's measures (not plain numbers) that the text states
    for value in wanted:
        match = next(
            (
                v
                for v in stated
                if v.equals(value) and not (v.names and value.names and v.names != value.names)
            ),
            None,
        )
        if value.names and match is None:
            other = next((v for v in stated if v.names == value.names), None)
            pairs.append((value, other))
            variant = variant or other is not None
            if other is None and verdict == "agree":
                verdict = "absent"
            continue
        # a rival: a value of the same kind that is none of the claim's ("$10 a month" does not
        # contradict "the pro plan costs $30" in a claim that also says "starter costs $10")
        rivals = [
            v
            for v in stated
            if v.same_kind(value)
            and not any(v.equals(w) for w in wanted)
            # "free" rivals only a price of the thing it frees: "no application fee" vs "a $25
            # application fee"; "children go free" says nothing of the £145 adult ticket
            and v.unit != FREE
            and (value.unit != FREE or _names_the_same_charge(claim, value, text))
            and not (value.kind == "date" and v.kind == "year")
            and not is_word_one(value)
            and not is_word_one(v)
            and not v.names  # "Band 3" is a name, no rival of "up to 4 people"
        ]  # "1850-1950" is no date's rival
        if match is not None:
            pairs.append((value, match))
            matched += value.kind != "number"  # a plain number ("170") may end another range
        elif rivals:
            pairs.append((value, rivals[0]))
            verdict = "conflict"
        else:
            pairs.append((value, None))
            if verdict == "agree":
                verdict = "absent"
    if (
        verdict == "conflict"
        and len({v.kind for v in wanted}) >= 2
        and any(v.kind in ("number", "quantity") for v in wanted)
        and all(b is not None and not b.equals(a) for a, b in pairs)
    ):
        # every value otherwise, in two kinds or more, one a count or a size (what names a
        # variant): another variant ("A 30-minute lesson is £22" is the price of another lesson
        # than "A 60-minute lesson costs £40"), not a misstatement of each; a date and a fee
        # both otherwise ("up to 1 June for a £10 fee") are two misstatements
        return "other", pairs
    if variant:
        rest = sum(not v.names for v in wanted)
        verdict = "conflict" if not rest or (matched and verdict != "conflict") else "other"
        pairs.sort(key=lambda p: not p[0].names)  # the misnumbered name is what is stated otherwise
    return verdict, pairs


__all__ = ["Value", "compare_values", "is_word_one", "values"]
