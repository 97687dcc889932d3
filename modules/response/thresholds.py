"""Pass/fail thresholds on a run's per-domain summaries, for a CI job or a scheduled audit that
should page someone: ``wrong_fact_rate>0.1`` fails the run when any domain's share of answers
with a wrong fact is above 10%; ``accuracy<70`` when any domain's mean accuracy is below 70.

A threshold names a ``summaries`` measure (the mean scores by their metric's name, the rates by
their column) and compares it as stored: scores 0-100, rates 0-1. A domain whose measure is
unknown (no scored answer; no competitor tracked for share of voice) is not judged on it.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterable
from dataclasses import dataclass

from .tables import METRICS, RATES

#: each measure a threshold may name, and the ``summaries`` column it reads
MEASURES = {**{m: f"{m}_mean" for m in METRICS}, **{r: r for r in RATES}}
_OPERATORS = {"<=": operator.le, ">=": operator.ge, "<": operator.lt, ">": operator.gt}
_SYNTAX = re.compile(r"^\s*([a-z_]+)\s*(<=|>=|<|>)\s*(-?\d+(?:\.\d+)?)\s*$")


@dataclass(frozen=True)
class Threshold:
    """``measure op value``: the run fails when a domain's measure satisfies it."""

    measure: str
    op: str
    value: float

    @classmethod
    def parse(cls, text: str) -> Threshold:
        """``"wrong_fact_rate>0.1"`` -> Threshold; ValueError names what is wrong with it."""
        m = _SYNTAX.match(text)
        if not m:
            raise ValueError(f"{text!r} is not MEASURE<VALUE, MEASURE>VALUE, <= or >= (e.g. accuracy<70)")
        measure, op, value = m.group(1), m.group(2), float(m.group(3))
        if measure not in MEASURES:
            raise ValueError(f"unknown measure {measure!r} in {text!r}; one of: {', '.join(MEASURES)}")
        if measure in RATES and not 0 <= value <= 1:
            raise ValueError(f"{measure} is a share from 0 to 1 ({text!r}); e.g. {measure}{op}0.1")
        return cls(measure, op, value)

    def breaches(self, summaries: Iterable[dict]) -> list[str]:
        """One phrase per domain whose measure crosses the threshold."""
        column, test = MEASURES[self.measure], _OPERATORS[self.op]
        shown = "{:.3f}" if self.measure in RATES else "{:.1f}"
        return [
            f"{row['domain']} / {row.get('query_set_id') or '-'}: "
            f"{self.measure} {shown.format(row[column])} {self.op} {self.value:g}"
            for row in summaries
            if row.get(column) is not None and test(row[column], self.value)
        ]

    def __str__(self) -> str:
        return f"{self.measure}{self.op}{self.value:g}"


def failed_thresholds(thresholds: Iterable[Threshold], summaries: list[dict]) -> str | None:
    """The one line that says which thresholds the run breaks (None when it breaks none)."""
    breaches = [b for t in thresholds for b in t.breaches(summaries)]
    return f"thresholds failed: {'; '.join(breaches)}" if breaches else None


__all__ = ["MEASURES", "Threshold", "failed_thresholds"]
