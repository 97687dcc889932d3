"""An analyst's verdicts: corrections of what the judge said about an answer's claims and wrong
facts (``sleuth verdicts override``).

A verdict is recorded against an answer of a run, by the answer's ``id``, which is stable across
runs for the same answer text from the same provider. So a correction holds wherever that
answer is scored again: ``reanalyze`` of the run, and any later ``analyze`` or ``monitor`` that
meets the same answer apply it (:func:`.batch.apply_to_rows`), rescore the answer by the one scoring
rule, and count it in the summaries (``overridden_count``). The latest verdict on a claim or a
wrong fact stands. They are also labeled examples for the judge (:func:`verdict_set`).

A claim takes ``found``, ``missing`` or ``contradicted``; a wrong fact (words of the answer)
takes ``wrong`` or ``not_wrong``. The analyst's word overrules both judges: that is its point.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Literal

import polars as pl
from pydantic import BaseModel, ConfigDict, model_validator

from ..relevance.anchor import locate_quote
from ..store import ParquetStore
from .attribution import normalize_domain
from .config import AnalyzerConfig
from .groundtruth import load_pages
from .schema import (
    AnalysisResult,
    AnalystVerdict,
    ClaimFeedback,
    ClaimMatch,
    ContradictedClaim,
    Contradiction,
    FoundClaim,
    TextPosition,
)
from .scoring import accuracy_of, completeness_of

Verdict = Literal["found", "missing", "contradicted", "wrong", "not_wrong"]
CLAIM_VERDICTS = ("found", "missing", "contradicted")
FACT_VERDICTS = ("wrong", "not_wrong")
OVERRIDES_TABLE = "verdict_overrides"
#: the flag of an answer rescored with an analyst's verdicts
ANALYST_FLAG = "analyst_verdicts"

OVERRIDES_SCHEMA = {
    "answer_id": pl.String,
    "target_run_id": pl.String,
    "domain": pl.String,
    "query_set_id": pl.String,
    "query_id": pl.String,
    "provider": pl.String,
    "model": pl.String,
    "sample": pl.Int64,
    "claim_id": pl.String,
    "claim_text": pl.String,
    "wrong_fact": pl.String,
    "verdict": pl.String,
    "previous_verdict": pl.String,
    "note": pl.String,
    "analyst": pl.String,
    "recorded_at": pl.Datetime("us", "UTC"),
}


class VerdictOverride(BaseModel):
    """One correction as an analyst gives it (the CLI's options, or a line of a JSONL file).
    ``answer``: the answer's id or a prefix of it that names one answer of the run."""

    model_config = ConfigDict(extra="forbid")

    answer: str
    claim: str | None = None
    wrong_fact: str | None = None
    verdict: Verdict
    note: str | None = None
    analyst: str | None = None

    @model_validator(mode="after")
    def _one_target(self) -> VerdictOverride:
        if (self.claim is None) == (self.wrong_fact is None):
            raise ValueError("give either a claim id or a wrong fact (words of the answer), not both")
        allowed = CLAIM_VERDICTS if self.claim is not None else FACT_VERDICTS
        if self.verdict not in allowed:
            target = "a claim" if self.claim is not None else "a wrong fact"
            raise ValueError(f"{target} takes {' | '.join(allowed)}, not {self.verdict}")
        return self


def verdict_of(result: AnalysisResult, claim_id: str) -> str | None:
    """The judge's verdict on one of the answer's claims (None: not one of its claims)."""
    claims = result.feedback.claims
    for verdict, items in (("found", claims.found), ("contradicted", claims.contradicted)):
        if any(c.claim.id == claim_id for c in items):
            return verdict
    if any(c.id == claim_id for c in result.expected_claims):
        return "missing"
    return None


def override_rows(
    overrides: Sequence[VerdictOverride], analyses: pl.DataFrame, target_run_id: str, at: datetime
) -> list[dict]:
    """The ``verdict_overrides`` rows of ``overrides`` on run ``target_run_id``, each checked
    against the answer it names (raises ValueError, one line naming the correction)."""
    scored = (
        analyses.filter(pl.col("result_json").is_not_null())
        if "result_json" in analyses.columns
        else analyses
    )
    ids = scored["id"].to_list() if "id" in scored.columns else []
    rows = []
    for n, o in enumerate(overrides, 1):
        where = f"correction {n} ({o.answer})" if len(overrides) > 1 else f"answer {o.answer}"
        matches = [i for i in ids if i.startswith(o.answer)] if len(o.answer) >= 6 else []
        if len(set(matches)) != 1:
            found = "no scored answer" if not matches else f"{len(set(matches))} answers"
            raise ValueError(
                f"{where}: {found} of run {target_run_id} has that id (give 6 or more of its characters)"
            )
        row = scored.filter(pl.col("id") == matches[0]).row(0, named=True)
        result = AnalysisResult.model_validate_json(row["result_json"])
        claim_text = previous = None
        if o.claim is not None:
            previous = verdict_of(result, o.claim)
            if previous is None:
                known = ", ".join(c.id for c in result.expected_claims) or "none"
                raise ValueError(f"{where}: no claim {o.claim!r} (its claims: {known})")
            claim_text = next(c.text for c in result.expected_claims if c.id == o.claim)
        else:
            if locate_quote(result.response, o.wrong_fact) is None:
                raise ValueError(f"{where}: the answer does not say {o.wrong_fact!r}")
            previous = "wrong" if _flagged(result, o.wrong_fact) else "not_wrong"
        rows.append(
            {
                "answer_id": result.id,
                "target_run_id": target_run_id,
                "domain": result.domain,
                "query_set_id": result.query_set_id,
                "query_id": result.query_id,
                "provider": result.ai_provider,
                "model": result.model,
                "sample": result.sample,
                "claim_id": o.claim,
                "claim_text": claim_text,
                "wrong_fact": o.wrong_fact,
                "verdict": o.verdict,
                "previous_verdict": previous,
                "note": o.note,
                "analyst": o.analyst,
                "recorded_at": at,
            }
        )
    return rows


def standing(overrides: pl.DataFrame) -> dict[str, list[dict]]:
    """Answer id -> the verdicts that stand on it: the latest on each claim and wrong fact."""
    if overrides.is_empty():
        return {}
    latest: dict[tuple, dict] = {}
    for row in overrides.sort("recorded_at").to_dicts():
        latest[(row["answer_id"], row["claim_id"], row["wrong_fact"])] = row
    out: dict[str, list[dict]] = {}
    for row in latest.values():
        out.setdefault(row["answer_id"], []).append(row)
    return out


def apply_overrides(
    result: AnalysisResult, verdicts: Iterable[dict], config: AnalyzerConfig
) -> AnalysisResult:
    """``result`` with an analyst's ``verdicts`` in place of the judge's, rescored by the one
    scoring rule (:mod:`.scoring`), flagged ``analyst_verdicts`` and listing them."""
    if result.status == "error":
        return result
    verdicts = list(verdicts)
    text, claims = result.response, result.feedback.claims
    wrong = list(result.feedback.contradictions)
    found = {c.claim.id: c for c in claims.found}
    contradicted = {c.claim.id: c for c in claims.contradicted}
    matches = (
        {m.claim.id: m for m in result.scores.completeness.claims_found} if result.scores.completeness else {}
    )
    applied = []
    for v in verdicts:
        if v["claim_id"] is not None:
            claim = next((c for c in result.expected_claims if c.id == v["claim_id"]), None)
            if claim is None:
                continue
            if claim.id in contradicted and v["verdict"] != "contradicted":
                gone = contradicted.pop(claim.id)
                wrong = [w for w in wrong if not _of_claim(w, gone)]
            if claim.id in found and v["verdict"] != "found":
                found.pop(claim.id)
                matches.pop(claim.id, None)
            note = v.get("note") or "an analyst's verdict"
            if v["verdict"] == "found" and claim.id not in found:
                found[claim.id] = FoundClaim(claim=claim, evidence=note, confidence=1.0)
                matches[claim.id] = ClaimMatch(
                    claim=claim, matched_text="", similarity=1.0, position=TextPosition(start=0, end=0)
                )
            elif v["verdict"] == "contradicted" and claim.id not in contradicted:
                contradicted[claim.id] = ContradictedClaim(
                    claim=claim,
                    statement="",
                    position=TextPosition(start=0, end=0),
                    evidence=f"an analyst: the answer states otherwise ({note})",
                )
        else:
            at = locate_quote(text, v["wrong_fact"])
            if at is None:
                continue
            span = TextPosition(start=at[0], end=at[1])
            if v["verdict"] == "not_wrong":
                wrong = [w for w in wrong if not w.position.overlaps(span)]
                for claim_id, c in list(contradicted.items()):
                    if c.position.overlaps(span):
                        contradicted.pop(claim_id)
            elif not any(w.position.overlaps(span) for w in wrong):
                wrong.append(
                    Contradiction(
                        statement=text[span.start : span.end],
                        position=span,
                        kind="other",
                        evidence=v.get("note") or "an analyst marked it wrong",
                        source="analyst",
                        confidence=1.0,
                    )
                )
        fields = ("claim_id", "wrong_fact", "verdict", "previous_verdict", "note", "analyst")
        applied.append(AnalystVerdict(**{k: v.get(k) for k in fields}))
    wrong.sort(key=lambda w: w.position.start)
    found_list = [found[c.id] for c in result.expected_claims if c.id in found]
    match_list = [matches[c.id] for c in result.expected_claims if c.id in matches]
    refuted = [contradicted[c.id] for c in result.expected_claims if c.id in contradicted]
    not_found = [c for c in result.expected_claims if c.id not in found]
    completeness = completeness_of(result.expected_claims, match_list, not_found, config)
    accuracy = result.scores.accuracy
    if accuracy is not None:
        accuracy = accuracy_of(
            accuracy,
            result.expected_claims,
            set(found),
            set(contradicted),
            wrong,
            config.tiers,
            wrong_count=len(wrong) + sum(c.position.end <= c.position.start for c in refuted),
            judge="an analyst",
        )
    feedback = result.feedback.model_copy(
        update={
            "claims": ClaimFeedback.of(found_list, not_found, refuted, claims.not_in_ground_truth),
            "contradictions": wrong,
            "highlights": result.feedback.highlights.without([w.position for w in wrong]),
        }
    )
    scores = result.scores.model_copy(update={"accuracy": accuracy, "completeness": completeness})
    flags = result.flags if ANALYST_FLAG in result.flags else [*result.flags, ANALYST_FLAG]
    return result.model_copy(
        update={"scores": scores, "feedback": feedback, "flags": flags, "analyst_verdicts": applied}
    )


def verdict_set(store: ParquetStore, config: AnalyzerConfig) -> tuple[list[dict], list[dict]]:
    """Every answer an analyst gave verdicts on, as labeled examples in the judge's verdict-set
    format (``evals/sets/verdicts-*.jsonl``: the claims with their verdicts, the wrong facts with
    their spans), and the site pages they are judged on (``verdicts-*-pages.jsonl`` lines).

    An answer is taken whole: the analyst's verdicts where given, the judge's others as the
    analyst left them (reviewing an answer is accepting what one did not change)."""
    by_answer = standing(store.read(OVERRIDES_TABLE))
    runs: dict[str, set[str]] = {}
    for answer_id, verdicts in by_answer.items():
        runs.setdefault(verdicts[0]["target_run_id"], set()).add(answer_id)
    rows, pages, seen = [], {}, set()
    for run_id, answer_ids in sorted(runs.items()):
        analyses = store.read("analyses", run_id).filter(pl.col("id").is_in(sorted(answer_ids)))
        for row in analyses.to_dicts():
            if row["id"] in seen or not row.get("result_json"):
                continue
            seen.add(row["id"])
            result = apply_overrides(
                AnalysisResult.model_validate_json(row["result_json"]), by_answer[row["id"]], config
            )
            rows.append(_labeled(result))
        ground_truth = store.read("runs", run_id)["ground_truth_path"].to_list()
        domains = {r["domain"] for r in analyses.to_dicts()}
        if ground_truth and ground_truth[0]:
            for page in load_pages(ground_truth[0]):
                host = normalize_domain(page.domain or page.url)
                site = next((d for d in domains if host == d or host.endswith("." + d)), None)
                if site is not None:  # a subdomain's page is the site's, as in the analysis
                    pages[page.url] = {
                        "domain": site,
                        "url": page.url,
                        "title": page.title,
                        "text": page.text,
                    }
    return rows, list(pages.values())


def _labeled(result: AnalysisResult) -> dict:
    return {
        "question_id": result.query_id,
        "domain": result.domain,
        "query": result.query,
        "expected_answer": result.expected_answer,
        "claims": [c.model_dump() for c in result.expected_claims],
        "response": result.response,
        "verdicts": {c.id: verdict_of(result, c.id) for c in result.expected_claims},
        "wrong_facts": [
            {"start": w.position.start, "end": w.position.end, "kind": w.kind, "evidence": w.evidence}
            for w in result.feedback.contradictions
            if w.position.end > w.position.start
        ],
        "note": "; ".join(v.note or v.verdict for v in result.analyst_verdicts),
        "answer_id": result.id,
    }


def _flagged(result: AnalysisResult, words: str) -> bool:
    at = locate_quote(result.response, words)
    if at is None:
        return False
    span = TextPosition(start=at[0], end=at[1])
    return any(w.position.overlaps(span) for w in result.feedback.contradictions)


def _of_claim(wrong: Contradiction, claim: ContradictedClaim) -> bool:
    """The wrong fact a contradicted claim made (its statement, against the claim's text)."""
    return wrong.source in ("claim", "expected_answer") and (
        wrong.evidence == claim.claim.text or wrong.position.overlaps(claim.position)
    )


__all__ = [
    "CLAIM_VERDICTS",
    "FACT_VERDICTS",
    "ANALYST_FLAG",
    "OVERRIDES_SCHEMA",
    "OVERRIDES_TABLE",
    "VerdictOverride",
    "apply_overrides",
    "override_rows",
    "standing",
    "verdict_of",
    "verdict_set",
]
