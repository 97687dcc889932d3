"""Whether an answer states a claim that the offline checks call missing: boosted trees
over how much of the claim the answer says, trained on the verdict sets' gold claim verdicts
(``evals/train_claim_found.py``).

The checks call a claim found only when one window of the answer states most of its words, or
its values with enough of them. Answers word things their own way: "£15 every 30 days" for "£15
per 30 days", a table row for a sentence, "its independent out-of-hours partner" for "is
independent and not owned by ...". On answers about sites nobody tuned for, a fifth of the claims
an answer states were called missing, so correct answers scored fair. The model reads, for a
claim the checks did not find and did not see contradicted, features that name no site
(:data:`FEATURES`): MiniLM's cosine of the claim with the answer's sentences, the share of the
claim's words, names and values the answer states (in its closest window and anywhere), what
conflicts (a value stated otherwise, the other polarity), whether the answer hedges or declines.

Above a threshold chosen for the precision of "found" when the model is trained, the claim is
found, with the closest window as its evidence and the probability as its confidence; below it,
the checks' "missing" stands. It never overrules a contradiction and never makes a claim
contradicted. The weights and the threshold ship in ``checker/claim-found.json`` with what they
were trained and measured on.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .boosted import BoostedTrees
from .facts import Value, compare_values
from .scope import days_bound, days_elsewhere, days_said
from .verdicts import UNSURE, OfflineJudge, Window, is_negated, opposite_polarity

WEIGHTS = Path(__file__).resolve().parent / "checker" / "claim-found.json"
#: the kinds of value that are a claim's measure (a plain count or a numbered name may be
#: written in words the value reader does not parse: "ten e-books", "Zone 1 (the EU)")
_MEASURES = frozenset({"money", "quantity", "percent", "date", "year", "time", "duration", "free"})

FEATURES = (
    "cosine_best",  # MiniLM cosine of the claim and the answer's closest sentence
    "cosine_second",  # ... and of the next closest window (a claim stated across two sentences)
    "frame_best",  # share of the claim's words the closest window (by cosine) states, as the checks weigh them
    "frame_max",  # the best such share over every window
    "fact_frame_max",  # ... of the claim's own fact words (not the question's, not light words)
    "answer_cover",  # share of the claim's word keys the answer states anywhere
    "names_cover",  # share of the claim's names the answer states anywhere
    "values",  # log2 of 1 + the claim's typed values
    "values_stated",  # share of the claim's values the answer states (however written)
    "values_conflict",  # the closest window states one of them otherwise
    "values_other",  # ... states them as another variant's
    "values_conflict_anywhere",  # the answer as a whole states one of them otherwise
    "claim_negated",  # the claim denies something
    "polarity_differs",  # the closest window's polarity differs from the claim's
    "polarity_differs_framed",  # ... the polarity of the window stating most of the claim's words
    "answer_unsure",  # the answer hedges or says it does not know
    "declined",  # the answer is a refusal
    "claim_words",  # log2 of 1 + the claim's content words
    "answer_length",  # log10 of the answer's characters
    "required",  # the claim is required (else expected or optional)
)


@dataclass(frozen=True)
class ClaimRead:
    """A claim the checks call missing, as the model reads it: its features and the window
    closest to it (the evidence, where the model finds the claim)."""

    features: list[float]
    window: Window | None
    #: the model is not asked: the checks prove something against the claim, or it has no words
    #: of its own to look for (all the question's: "Nothing happens if you touch ...")
    barred: bool


def claim_features(
    judge: OfflineJudge,
    claim: str,
    importance: str,
    answer: str,
    windows: Sequence[Window],
    cosines: Sequence[float],
    implicit: set[str],
    declined: bool,
) -> ClaimRead:
    """The model's features of ``claim`` against the answer's ``windows`` (``cosines``: each
    window's closeness to the claim, that of its closest sentence)."""
    words = judge.claim_words(claim, implicit)
    claim_values, terms, fact_terms, names = (
        list(words.values),
        list(words.terms),
        words.fact_terms,
        words.names,
    )
    frames = [judge.frame(terms, w.terms, implicit) for w in windows]
    # a window's cosine is its closest sentence's: of a sentence's clauses, the one stating most
    order = sorted(
        range(len(windows)), key=lambda i: (-float(cosines[i]), -frames[i], len(windows[i].span.text))
    )
    best = windows[order[0]] if order else None
    framed = max(range(len(windows)), key=lambda i: (frames[i], float(cosines[i]))) if windows else None
    cos = [float(cosines[i]) for i in order[:2]] + [0.0, 0.0]
    answer_keys = {k for w in windows for k, _ in w.terms}
    keys = {k for k, _ in terms}
    verdict, _ = compare_values(claim, best.span.text) if best is not None else ("absent", [])
    overall, anywhere = compare_values(claim, answer) if claim_values else ("absent", [])
    negated = is_negated(claim)
    near = [w for w in (best, windows[framed] if framed is not None else None) if w is not None]
    barred = not fact_terms or _proved_against(
        claim,
        claim_values,
        overall,
        anywhere,
        near,
        framed_text=(windows[framed].span.text if framed is not None else ""),
    )
    return ClaimRead(
        [
            cos[0],
            cos[1],
            frames[order[0]] if order else 0.0,
            max(frames, default=0.0),
            max((judge.frame(fact_terms, w.terms) for w in windows), default=0.0) if fact_terms else 1.0,
            len(keys & answer_keys) / len(keys) if keys else 0.0,
            len(names & answer_keys) / len(names) if names else 1.0,
            math.log2(1 + len(claim_values)),
            sum(b is not None and b.equals(a) for a, b in anywhere) / len(claim_values)
            if claim_values
            else 1.0,
            float(verdict == "conflict"),
            float(verdict == "other"),
            float(overall == "conflict"),
            float(negated),
            float(best is not None and best.negated != negated),
            float(framed is not None and windows[framed].negated != negated),
            float(UNSURE.search(answer) is not None),
            float(declined),
            math.log2(1 + len(keys)),
            math.log10(1 + len(answer)),
            float(importance == "required"),
        ],
        best,
        barred,
    )


def _proved_against(
    claim: str,
    claim_values: Sequence[Value],
    overall: str,
    anywhere: Sequence[tuple[Value, Value | None]],
    near: Sequence[Window],
    framed_text: str,
) -> bool:
    """What the checks prove against a claim, which no probability overrules (``overall`` and
    ``anywhere``: :func:`compare_values` of the claim and the whole answer; ``near``: the windows
    closest to it by cosine and by words; ``framed_text``: the one stating most of its words):

    - the answer states one of its values otherwise;
    - a measure of it (a price, a size, a date) is unstated: the values decide a claim that has
      them ("the pro plan costs $30" is not stated by "the starter plan costs $10");
    - a value of it is unstated where the closest windows state one that is none of the claim's
      ("the 1557 chapters" for "the 519 chapters", read as a year: no rival the value checks
      weigh, but no statement of the claim either);
    - the window stating most of it denies what it states, part for part
      (:func:`opposite_polarity`; a sentence's polarity alone is no proof: "its independent
      partner" states "is independent and not owned by").
    - the window stating most of it gives other days than all of the claim's ("first Saturday of
      June" for "the first Sunday of June": :func:`days_elsewhere`).

    The closest sentence's own rival value is no proof (it may be another line's, the claim's
    value stated in the next); it is a feature."""
    unstated = [a for a, b in anywhere if b is None]
    return (
        overall == "conflict"
        or any(a.kind in _MEASURES for a in unstated)
        or (bool(unstated) and any(_beyond_claim(w.values, claim_values) for w in near))
        or (bool(framed_text) and opposite_polarity(claim, framed_text))
        or (bool(framed_text) and days_elsewhere(days_said(claim), days_bound(framed_text, [])))
    )


def _beyond_claim(stated: Sequence[Value], claim_values: Sequence[Value]) -> bool:
    """Whether ``stated`` holds a value that is none of the claim's, each of the claim's values
    standing for one stated value: "42 pages in 42 chapters" states a 42 beyond "1 page in 42
    chapters"."""
    left = list(claim_values)
    for v in stated:
        match = next((c for c in left if v.equals(c)), None)
        if match is None:
            return True
        left.remove(match)
    return False


class ClaimFound:
    """The fitted model: boosted trees over the features (:mod:`.boosted`), and the threshold."""

    features: tuple[str, ...] = FEATURES
    trainer = "evals.train_claim_found"

    def __init__(self, path: Path = WEIGHTS):
        spec = json.loads(path.read_text())
        if tuple(spec["features"]) != self.features or "trees" not in spec:
            raise ValueError(
                f"{path}: trained on other features or another model; rerun python -m {self.trainer}"
            )
        self.version: str = spec["version"]
        self.model = BoostedTrees.from_spec(spec, len(self.features))
        #: at or above this probability a missing claim is found (chosen for precision)
        self.threshold = float(spec["threshold"])

    def probability(self, features: Sequence[float]) -> float:
        return self.model.probability(features)


@cache
def shipped_claim_found() -> ClaimFound | None:
    """The model shipped beside the checker, or None where it is absent (the checks' verdicts stand)."""
    return ClaimFound() if WEIGHTS.exists() else None


__all__ = ["FEATURES", "ClaimFound", "ClaimRead", "claim_features", "shipped_claim_found"]
