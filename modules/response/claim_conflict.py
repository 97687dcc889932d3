"""Whether an answer states a claim's value otherwise where the offline checks do not dare say so:
boosted trees over the window that gives the value otherwise, trained on the verdict
sets' gold claim verdicts (``evals/train_claim_conflict.py``).

The checks call a claim contradicted by a value only when the window that states it otherwise
also states most of the claim's own words (``fact_frame``): a price in a list of another plan's
prices is no misstatement of this plan's. Answers name a claim's thing in fewer words than the
claim does: "£2,500 booking fee (non-refundable)" for "A £2,000 booking fee secures a date",
"**Grand piano tuning:** £85.00" for "charges £105.00 for a standard tuning of a grand piano".
On answers about sites nobody tuned for, such windows were a third of the claims gold calls
contradicted that the checks called missing. The model reads, for a claim the checks call missing
and some window states one of its values otherwise, features that name no site
(:data:`FEATURES`): how much of the claim the window states (as the checks weigh it, and of the
claim's own words), what the words beside each value are, whether the answer states the claim's
value elsewhere, whether the site's pages state the answer's value at all (a value of another variant usually
is on the site; an invented one is not), and MiniLM's cosine of the claim with the window.

Above a threshold chosen for the precision of "contradicted" when the model is trained, the claim
is contradicted by that window (a wrong fact, weighed like every other by the flag-confidence
model); below it, the checks' "missing" stands. It is asked only of claims the checks call
missing (never one they find), and never of a window the checks prove is about another thing
(:func:`proves_another`). The weights and the threshold ship in
``checker/claim-conflict.json`` with what they were trained and measured on.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..text import split_sentences
from .claim_found import ClaimFound
from .facts import Value, compare_values
from .verdicts import (
    LIST_ITEM,
    UNSURE,
    ClaimWords,
    OfflineJudge,
    Window,
    days_apart,
    is_negated,
    misstates,
    names_another,
    other_variant,
    value_clause_terms,
    value_kind,
)

#: "I think", "we think": a guess, not a statement (the word alone: "rethink" is none)
_THINK = re.compile(r"\bthink\b", re.IGNORECASE)
WEIGHTS = Path(__file__).resolve().parent / "checker" / "claim-conflict.json"
#: the least share of a claim's words (the question's counted) a window states for the model to
#: weigh the value it gives otherwise: below it the window is about something else
MIN_FRAME = 0.34

FEATURES = (
    "frame",  # share of the claim's words the window states, the question's counted (as the checks weigh them)
    "fact_frame",  # ... of the claim's own words (not the question's, not light words)
    "beside",  # ... of the claim's own words, leaving out those naming the value's kind, counting values alike
    "implied_share",  # share of the claim's words that are the question's or the site's name
    "fact_words",  # log2 of 1 + the claim's own words
    "single_sentence",  # the window is one sentence (else two)
    "window_length",  # log10 of the window's characters
    "names_another",  # the window names a thing of its own before the value it gives otherwise
    "kind_money",  # the value stated otherwise is a price
    "kind_time",  # ... a clock time, a day or a date
    "kind_quantity",  # ... a measure with a unit (a length of time, a weight, a distance)
    "kind_percent",  # ... a percentage
    "claim_value_elsewhere",  # the answer states that value of the claim alike somewhere
    "rival_on_site",  # the site's pages state the answer's value (another variant's, perhaps)
    "hedged",  # the window hedges or says it is unsure
    "list_item",  # the window is a list item or a table row
    "conflict_windows",  # log2 of 1 + the answer's windows that give one of the claim's values otherwise
    "cosine",  # MiniLM cosine of the claim and the window's closest sentence
    "cosine_margin",  # ... minus the answer's closest window's
    "claim_negated",  # the claim denies something
    "claim_values",  # log2 of 1 + the claim's typed values
    "values_alike",  # the window's values stated as the claim states them (share of the claim's)
    "required",  # the claim is required (else expected or optional)
    "bound_in_claim",  # share of the words beside the answer's value (its clause) that the claim or the question says
    "bound_in_window",  # share of the words beside the claim's value that the clause of the answer's value says
    "window_extra",  # share of the window's words that neither the claim nor the question says
    "value_ratio",  # how far the answer's value is from the claim's (|log| of their ratio, at most 3)
)


@dataclass(frozen=True)
class ConflictRead:
    """A claim the checks call missing that some window states a value of otherwise: the
    model's features, the window, and what it states otherwise (the wrong fact's detail and
    kind)."""

    features: list[float]
    window: Window
    detail: str
    kind: str


def proves_another(
    judge: OfflineJudge,
    words: ClaimWords,
    win: Window,
    pairs: Sequence[tuple[Value, Value | None]],
    claim: str,
    implicit: set[str],
    site_names: set[str],
) -> bool:
    """What the checks prove of a window that gives a claim's value otherwise, which no
    probability overrules: it is about another named thing (:meth:`OfflineJudge.about_another`),
    names a variant the claim does not (:func:`other_variant`: of the windows the model would
    read, four in five such are not the claim misstated), gives the value for other days, or
    names before the value a thing that neither the claim, the question nor the site names ("a
    Samsung Galaxy S23 screen is £119" beside a repair shop's iPhone 14 price). A name the site
    knows is no such proof ("Tomas Reyes founded Driftnote in 2017" misstates a founding year):
    it is a feature."""
    text = win.span.text
    return (
        judge.about_another(words, win, implicit)
        or other_variant(claim, text)
        or days_apart(claim, text)
        or names_another(text, pairs, words.names | implicit | site_names)
    )


def _log_ratio(a: Value, b: Value) -> float:
    if not a.amount or not b.amount or (a.amount < 0) != (b.amount < 0):
        return 3.0
    return min(abs(math.log(abs(a.amount) / abs(b.amount))), 3.0)


def _rival(claim: str, pairs: Sequence[tuple[Value, Value | None]], text: str) -> tuple[Value, Value] | None:
    return next(((a, b) for a, b in pairs if b is not None and misstates(claim, a, b, text)), None)


def conflict_features(
    judge: OfflineJudge,
    claim: str,
    importance: str,
    windows: Sequence[Window],
    cosines: Sequence[float],
    implicit: set[str],
    site_values: Sequence[Value],
    site_names: set[str] = frozenset(),
) -> ConflictRead | None:
    """The model's features of ``claim`` against the answer window that states one of its values
    otherwise and most of its words (``cosines``: each window's closeness to the claim), or None
    where no window of the answer states one otherwise with at least :data:`MIN_FRAME` of the
    claim's words."""
    words = judge.claim_words(claim, implicit)
    if not words.values:
        return None
    terms, fact_terms = list(words.terms), list(words.fact_terms)
    read = []
    for i, win in enumerate(windows):
        verdict, pairs = compare_values(claim, win.span.text)
        rival = _rival(claim, pairs, win.span.text) if verdict == "conflict" else None
        if rival is None or proves_another(judge, words, win, pairs, claim, implicit, site_names):
            continue
        frame = judge.frame(terms, win.terms, implicit)
        if frame >= MIN_FRAME:
            # as the checks rank the windows that state a claim otherwise: most of the claim,
            # closest, tightest (of a list's items, the one about the claim's thing)
            score = frame + 0.25 * float(cosines[i]) - len(win.span.text) / 150
            read.append((score, frame, i, pairs, rival))
    if not read:
        return None
    _, frame, i, pairs, (wanted, stated) = max(read, key=lambda r: r[0])
    win = windows[i]
    text = win.span.text
    single = len(split_sentences(text)) == 1
    keys = {k for k, _ in terms}
    best_cosine = max((float(c) for c in cosines), default=0.0)
    said = (*terms, *((k, k) for k in implicit))
    extra = [t for t in win.terms if t[0] not in keys and not judge._implied(t[0], implicit)]
    near_stated, near_wanted = value_clause_terms(text, stated), value_clause_terms(claim, wanted)
    alike = sum(b is not None and b.equals(a) for a, b in pairs)
    features = {
        "names_another": float(names_another(text, pairs, words.names | implicit)),
        "kind_money": float(wanted.kind == "money"),
        "kind_time": float(wanted.kind in ("time", "day", "date", "year")),
        "kind_quantity": float(wanted.kind == "quantity"),
        "kind_percent": float(wanted.kind == "percent"),
        # the answer states the claim's value elsewhere: this window's is perhaps another variant's
        "claim_value_elsewhere": float(
            any(
                v.equals(wanted)
                for w in windows
                if w.span.end <= win.span.start or w.span.start >= win.span.end
                for v in w.values
            )
        ),
        "rival_on_site": float(any(v.equals(stated) for v in site_values)),
        "frame": frame,
        "fact_frame": judge.frame(fact_terms, win.terms) if fact_terms else 1.0,
        "beside": judge._frame_beside(fact_terms, win.terms, pairs, single) if fact_terms else 1.0,
        "implied_share": sum(1 for k in keys if judge._implied(k, implicit)) / len(keys) if keys else 0.0,
        "fact_words": math.log2(1 + len(fact_terms)),
        "single_sentence": float(single),
        "window_length": math.log10(1 + len(text)),
        "hedged": float(UNSURE.search(text) is not None or _THINK.search(text) is not None),
        "list_item": float(LIST_ITEM.match(text) is not None or "|" in text),
        "conflict_windows": math.log2(1 + len(read)),
        "cosine": float(cosines[i]),
        "cosine_margin": float(cosines[i]) - best_cosine,
        "claim_negated": float(is_negated(claim)),
        "claim_values": math.log2(1 + len(words.values)),
        "values_alike": alike / len(words.values),
        "required": float(importance == "required"),
        "bound_in_claim": judge.frame(near_stated, said) if near_stated else 0.0,
        "bound_in_window": judge.frame(near_wanted, near_stated, implicit) if near_wanted else 1.0,
        "window_extra": len(extra) / len(win.terms) if win.terms else 0.0,
        "value_ratio": _log_ratio(wanted, stated),
    }
    detail = f"{wanted.text} (claim) vs {stated.text} (response)"
    return ConflictRead([features[f] for f in FEATURES], win, detail, value_kind(wanted))


class ClaimConflict(ClaimFound):
    """The fitted model, read as the claim-found model is: boosted trees over the features, and
    the threshold at or above which a missing claim is contradicted."""

    features = FEATURES
    trainer = "evals.train_claim_conflict"

    def __init__(self, path: Path = WEIGHTS):
        super().__init__(path)


@cache
def shipped_claim_conflict() -> ClaimConflict | None:
    """The model shipped beside the checker, or None where it is absent (the checks' verdicts stand)."""
    return ClaimConflict() if WEIGHTS.exists() else None


__all__ = ["FEATURES", "ClaimConflict", "ConflictRead", "conflict_features", "shipped_claim_conflict"]
