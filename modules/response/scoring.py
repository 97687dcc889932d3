"""The one scoring rule: accuracy and completeness from the claim verdicts and the wrong facts.

The offline judge (:class:`~modules.response.analyzer.ResponseAnalyzer`) and the LM judge
(:class:`~modules.response.judge.LMJudge`) both call :func:`completeness_of` and
:func:`accuracy_of`, so the same verdicts always give the same scores, whoever gave them.

Where an answer has claims (its own, or sentences cut from its expected answer, see
:func:`claims_for`), the verdicts set the band and the closeness of wording (the calibrated
similarity to the expected answer, ``components.similarity_score``) places the answer inside it:

- nothing wrong: from ``100 x (0.55 + 0.45 x share of scored claims found)`` up to 100, so a
  complete, correct answer is 100 (excellent) and an answer that states one of three claims and
  nothing wrong is at least 70 (good);
- a wrong fact that breaks no scored claim: fair, 50 up to ``50 + 19.99 / wrong facts``;
- a contradicted scored claim: poor, 0 up to ``49.99 / contradicted scored claims``.

With no claims and no expected answer there are no verdicts to score: accuracy is the answer's
closeness to the site's pages (``components.basis = "similarity"``), held below good by a wrong
fact the pages show.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..text import split_sentences
from .config import AnalyzerConfig, TierConfig
from .schema import (
    AccuracyComponents,
    AccuracyResult,
    AIResponse,
    ClaimMatch,
    CompletenessResult,
    Contradiction,
    ExpectedClaim,
)
from .tiers import tier_for

#: Accuracy floor of an answer whose stated expected facts all check out: ``100 x (BASE + SPAN x
#: share verified)``. BASE is about where MiniLM rates a clear paraphrase; all verified is 100.
VERIFIED_FLOOR_BASE, VERIFIED_FLOOR_SPAN = 0.55, 0.45
#: The id prefix of a claim cut from the expected answer (never stored back as a given claim).
DERIVED_PREFIX = "expected-"


def verified_floor(verified: float) -> float:
    """The accuracy an answer earns at least when a ``verified`` share (0-1) of its facts check out."""
    return round(100 * (VERIFIED_FLOOR_BASE + VERIFIED_FLOOR_SPAN * verified), 2)


def is_derived(claim: ExpectedClaim) -> bool:
    """A claim cut from the expected answer rather than given with the record."""
    return claim.id.startswith(DERIVED_PREFIX)


def claims_for(record: AIResponse) -> list[ExpectedClaim]:
    """The record's claims or, when it has none, each sentence of its expected answer: the same
    in ``analyze``, ``reanalyze`` and ``monitor``."""
    if record.claims:
        return record.claims
    if record.expected_answer:
        return [
            ExpectedClaim(id=f"{DERIVED_PREFIX}{i}", text=s.text)
            for i, s in enumerate(split_sentences(record.expected_answer), 1)
        ]
    return []


def given_claims(claims: Iterable[ExpectedClaim]) -> list[ExpectedClaim]:
    """The claims a record was given (those cut from its expected answer left out)."""
    return [c for c in claims if not is_derived(c)]


def scored_claims(claims: Sequence[ExpectedClaim]) -> list[ExpectedClaim]:
    """The claims a score counts: the required ones, else the expected ones (seed: optional claims
    are reported, never scored)."""
    for level in ("required", "expected"):
        scored = [c for c in claims if c.importance == level]
        if scored:
            return scored
    return []


def completeness_of(
    claims: Sequence[ExpectedClaim],
    found: list[ClaimMatch],
    not_found: list[ExpectedClaim],
    config: AnalyzerConfig,
) -> CompletenessResult | None:
    """Seed: found / scored claims; 0 when a required claim is missing and
    ``completeness.require_all_required`` is set. None without claims."""
    if not claims:
        return None
    scored = scored_claims(claims)
    found_ids = {m.claim.id for m in found}
    n_found = sum(c.id in found_ids for c in scored)
    score = round(100 * n_found / len(scored), 2) if scored else 100.0
    if config.completeness.require_all_required and any(c.importance == "required" for c in not_found):
        score = 0.0
    return CompletenessResult(
        score=score,
        tier=tier_for(score, config.tiers),
        claims_found=found,
        claims_missing=list(not_found),
        total_required=len(scored),
        total_found=n_found,
    )


def accuracy_of(
    closeness: AccuracyResult,
    claims: Sequence[ExpectedClaim],
    found_ids: set[str],
    contradicted_ids: set[str],
    wrong: Sequence[Contradiction],
    tiers: TierConfig,
    *,
    wrong_count: int | None = None,
    judge: str = "",
) -> AccuracyResult:
    """Accuracy of an answer from its verdicts (see the module docstring).

    ``closeness``: the accuracy of wording alone (its ``components.similarity_score`` when it
    has one, else its score), which places the answer inside its band. ``wrong_count``: wrong
    facts when some have no span in ``wrong`` (the LM judge's); ``judge``: a label for
    ``capped_by``."""
    components = closeness.components or AccuracyComponents()
    similarity = components.similarity_score
    if similarity is None:
        similarity = closeness.score
    q = min(max(similarity / 100, 0.0), 1.0)
    n_wrong = len(wrong) if wrong_count is None else wrong_count
    scored = scored_claims(claims) or list(claims)
    reasons = "; ".join(c.detail or c.statement for c in wrong[:3]) or "contradicted claims"
    reasons += "; ..." if len(wrong) > 3 else ""
    suffix = f" ({judge})" if judge else ""
    verified, capped_by = None, None
    if scored:
        basis = "claims"
        broken = sum(c.id in contradicted_ids for c in scored)
        verified = round(sum(c.id in found_ids for c in scored) / len(scored), 4)
        if broken:
            score = round((tiers.fair - 0.01) / broken * q, 2)
            more = f", {n_wrong} wrong fact(s) in all" if n_wrong > broken else ""
            capped_by = f"{broken} contradicted claim(s){suffix}{more}: {reasons}"
        elif n_wrong:
            score = round(tiers.fair + (tiers.good - 0.01 - tiers.fair) / n_wrong * q, 2)
            capped_by = f"{n_wrong} wrong fact(s){suffix}: {reasons}"
        else:
            low = verified_floor(verified)
            score = round(low + (100 - low) * q, 2)
    else:
        basis = "similarity"
        score = round(100 * q, 2)
        if n_wrong and score > tiers.good - 0.01:
            score = round(tiers.good - 0.01, 2)
            capped_by = f"{n_wrong} wrong fact(s){suffix}: {reasons}"
    components = components.model_copy(
        update={
            "similarity_score": round(similarity, 2),
            "basis": basis,
            "verified_facts": verified,
            "wrong_facts": n_wrong,
            "capped_by": capped_by,
        }
    )
    return closeness.model_copy(
        update={"score": score, "tier": tier_for(score, tiers), "components": components}
    )


__all__ = [
    "DERIVED_PREFIX",
    "accuracy_of",
    "claims_for",
    "completeness_of",
    "given_claims",
    "is_derived",
    "scored_claims",
    "verified_floor",
]
