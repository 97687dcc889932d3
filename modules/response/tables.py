"""The response analyzer's Parquet tables: ``analyses``, ``summaries`` and ``provider_summaries``
(a run's ``runs`` row is :mod:`modules.store.runs`'s).

Schemas are explicit so that every run writes the same column types (documented in
datasets/README.md); ``run_id`` is the hive partition, not a column inside the files.
"""

from __future__ import annotations

from datetime import datetime

import polars as pl

from ..store import frame
from .records import RecordError
from .schema import AnalysisResult

TIERS = ("excellent", "good", "fair", "poor")
METRICS = ("accuracy", "completeness", "attribution")
RATES = ("wrong_fact_rate",)  # 0-1 shares of scored answers, with a ``*_delta`` against the previous run

ANALYSES_SCHEMA = {
    "id": pl.String,
    "query_id": pl.String,
    "query_set_id": pl.String,
    "domain": pl.String,
    "provider": pl.String,
    "model": pl.String,
    "source_line": pl.Int64,
    "status": pl.String,
    "error": pl.String,
    "flags": pl.List(pl.String),
    "accuracy_score": pl.Float64,
    "accuracy_tier": pl.String,
    "accuracy_similarity": pl.Float64,
    "accuracy_method": pl.String,
    "completeness_score": pl.Float64,
    "completeness_tier": pl.String,
    "claims_found": pl.Int64,
    "claims_total": pl.Int64,
    "attribution_score": pl.Float64,
    "attribution_tier": pl.String,
    "has_url_citation": pl.Boolean,
    "has_domain_mention": pl.Boolean,
    "has_brand_mention": pl.Boolean,
    "coverage_percent": pl.Float64,
    "fallback": pl.Boolean,
    "ground_truth_version": pl.String,
    "analyzer_version": pl.String,
    "analyzed_at": pl.Datetime("us", "UTC"),
    "result_json": pl.String,
    # appended (issue 15), so that every earlier column keeps its position: wrong facts
    "claims_contradicted": pl.Int64,
    "contradiction_count": pl.Int64,
    "has_wrong_fact": pl.Boolean,
    # appended (issue 19): prominence and the assistant's own cited sources
    "first_mention_in": pl.String,
    "list_rank": pl.Int64,
    "citation_count": pl.Int64,
    "cited_rank": pl.Int64,
}

SUMMARY_SCHEMA = {
    "domain": pl.String,
    "query_set_id": pl.String,
    "run_at": pl.Datetime("us", "UTC"),
    "query_count": pl.Int64,
    "ok_count": pl.Int64,
    "flagged_count": pl.Int64,
    "error_count": pl.Int64,
    **{
        f"{m}_{stat}": (pl.Float64 if stat in ("mean", "median", "min", "max") else pl.Int64)
        for m in METRICS
        for stat in ("mean", "median", "min", "max", *TIERS)
    },
    "previous_run_id": pl.String,
    **{f"{m}_delta": pl.Float64 for m in METRICS},
    # appended (issue 15): share of scored answers with a wrong fact, 0-1, and its trend
    "wrong_fact_rate": pl.Float64,
    "wrong_fact_rate_delta": pl.Float64,
}


def analysis_row(r: AnalysisResult) -> dict:
    acc, comp, attr = r.scores.accuracy, r.scores.completeness, r.scores.attribution
    scored = r.status != "error"
    contradicted, wrong = r.feedback.claims.contradicted, r.feedback.contradictions
    return {
        "id": r.id,
        "query_id": r.query_id,
        "query_set_id": r.query_set_id,
        "domain": r.domain,
        "provider": r.ai_provider,
        "model": r.model,
        "source_line": r.source_line,
        "status": r.status,
        "error": r.error,
        "flags": r.flags,
        "accuracy_score": acc and acc.score,
        "accuracy_tier": acc and acc.tier,
        "accuracy_similarity": acc and acc.similarity,
        "accuracy_method": acc and acc.method,
        "completeness_score": comp and comp.score,
        "completeness_tier": comp and comp.tier,
        "claims_found": comp and comp.total_found,
        "claims_total": comp and comp.total_required,
        "attribution_score": attr and attr.score,
        "attribution_tier": attr and attr.tier,
        "has_url_citation": attr and attr.has_url_citation,
        "has_domain_mention": attr and attr.has_domain_mention,
        "has_brand_mention": attr and attr.has_brand_mention,
        "coverage_percent": None if r.status == "error" else r.feedback.highlights.coverage_percent,
        "fallback": r.fallback,
        "ground_truth_version": r.ground_truth_version,
        "analyzer_version": r.analyzer_version,
        "analyzed_at": r.analyzed_at,
        "result_json": r.model_dump_json(by_alias=True),
        "claims_contradicted": len(contradicted) if scored else None,
        "contradiction_count": len(wrong) if scored else None,
        "has_wrong_fact": bool(wrong or contradicted) if scored else None,
        "first_mention_in": attr and attr.components and attr.components.first_mention_in,
        "list_rank": attr and attr.components and attr.components.list_rank,
        "citation_count": len(r.citations) if scored else None,
        "cited_rank": attr and attr.components and attr.components.cited_rank,
    }


def error_row(e: RecordError, analyzer_version: str, at: datetime) -> dict:
    """A malformed input record, kept as an ``error`` row with its line number."""
    return {
        **{k: None for k in ANALYSES_SCHEMA},
        "query_id": e.query_id,
        "domain": e.domain,
        "source_line": e.line,
        "status": "error",
        "error": e.error,
        "flags": ["malformed_record"],
        "fallback": False,
        "analyzer_version": analyzer_version,
        "analyzed_at": at,
    }


def analyses_frame(rows: list[dict]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=ANALYSES_SCHEMA)


SUMMARY_KEYS = ("domain", "query_set_id")
PROVIDER_KEYS = ("domain", "query_set_id", "provider", "model")

PROVIDER_SUMMARY_SCHEMA = {
    "domain": pl.String,
    "query_set_id": pl.String,
    "provider": pl.String,
    "model": pl.String,
    "run_at": pl.Datetime("us", "UTC"),
    "query_count": pl.Int64,
    "ok_count": pl.Int64,
    "flagged_count": pl.Int64,
    "error_count": pl.Int64,
    "refusal_count": pl.Int64,
    "empty_count": pl.Int64,
    "failed": pl.Boolean,
    **{k: v for k, v in SUMMARY_SCHEMA.items() if k.startswith(METRICS) and not k.endswith("_delta")},
    "accuracy_rank": pl.Int64,
    "previous_run_id": pl.String,
    **{f"{m}_delta": pl.Float64 for m in METRICS},
    "wrong_fact_rate": pl.Float64,
    "wrong_fact_rate_delta": pl.Float64,
    # scored answers that name the site (URL, domain or brand) and state no wrong fact, 0-1
    "correct_mention_rate": pl.Float64,
}


def summarize(analyses: pl.DataFrame, run_at: datetime, previous: pl.DataFrame) -> pl.DataFrame:
    """The seed's DomainScoreSummary per (domain, query set), flattened, with trend deltas.

    Statistics cover scored rows (``ok`` and ``flagged``); error rows are only counted. The
    trend compares means with the latest earlier run of the same domain and query set in
    ``previous`` (the caller chooses which runs count: ``monitor`` compares monitor runs only);
    ``wrong_fact_rate`` is the share (0-1) of scored answers with at least one wrong fact.
    """
    return _summaries(analyses, run_at, previous, SUMMARY_KEYS, [], SUMMARY_SCHEMA)


def summarize_providers(analyses: pl.DataFrame, run_at: datetime, previous: pl.DataFrame) -> pl.DataFrame:
    """The same statistics per provider and model, side by side on one query set.

    ``failed`` marks a provider with no scored answer at all (every call an error), which stays
    in the table; ``accuracy_rank`` orders providers within a domain and query set (1 = best
    mean accuracy); deltas compare the same provider and model with its previous run;
    ``correct_mention_rate`` is the share of scored answers that name the site (URL, domain or
    brand) and state no wrong fact.
    """
    flag = lambda f: pl.col("flags").list.contains(f).fill_null(False).sum()  # noqa: E731
    mentioned = pl.any_horizontal("has_url_citation", "has_domain_mention", "has_brand_mention").fill_null(
        False
    )
    correct = _share(analyses, mentioned & ~pl.col("has_wrong_fact"), "has_wrong_fact")
    extra = [
        flag("refusal").alias("refusal_count"),
        flag("empty_response").alias("empty_count"),
        correct.alias("correct_mention_rate"),
    ]
    out = _summaries(analyses, run_at, previous, PROVIDER_KEYS, extra, PROVIDER_SUMMARY_SCHEMA)
    if out.is_empty():
        return out
    return out.with_columns(
        (pl.col("error_count") == pl.col("query_count")).alias("failed"),
        pl.col("accuracy_mean")
        .rank("min", descending=True)
        .over(["domain", "query_set_id"])
        .cast(pl.Int64)
        .alias("accuracy_rank"),
    ).select(list(PROVIDER_SUMMARY_SCHEMA))


def _summaries(
    analyses: pl.DataFrame,
    run_at: datetime,
    previous: pl.DataFrame,
    keys: tuple[str, ...],
    extra: list[pl.Expr],
    schema: dict,
) -> pl.DataFrame:
    scored = pl.col("status") != "error"
    aggs = [
        pl.len().alias("query_count"),
        (pl.col("status") == "ok").sum().alias("ok_count"),
        (pl.col("status") == "flagged").sum().alias("flagged_count"),
        (pl.col("status") == "error").sum().alias("error_count"),
        _share(analyses, pl.col("has_wrong_fact"), "has_wrong_fact").alias("wrong_fact_rate"),
        *extra,
    ]
    for m in METRICS:
        s = pl.col(f"{m}_score").filter(scored)
        aggs += [
            s.mean().alias(f"{m}_mean"),
            s.median().alias(f"{m}_median"),
            s.min().alias(f"{m}_min"),
            s.max().alias(f"{m}_max"),
        ]
        aggs += [(pl.col(f"{m}_tier").filter(scored) == t).sum().alias(f"{m}_{t}") for t in TIERS]
    summary = (
        analyses.filter(pl.col("domain").is_not_null())
        .group_by(list(keys), maintain_order=True)
        .agg(aggs)
        .with_columns(pl.lit(run_at).cast(pl.Datetime("us", "UTC")).alias("run_at"))
        .sort(list(keys), nulls_last=True)
    )
    rows = []
    for row in summary.to_dicts():
        prev = _previous(previous, {k: row[k] for k in keys}, run_at)
        row["previous_run_id"] = prev and prev["run_id"]
        for m in METRICS:
            cur, old = row[f"{m}_mean"], prev and prev.get(f"{m}_mean")
            row[f"{m}_delta"] = None if cur is None or old is None else round(cur - old, 4)
        for rate in RATES:
            cur, old = row[rate], prev and prev.get(rate)
            row[f"{rate}_delta"] = None if cur is None or old is None else round(cur - old, 4)
        rows.append(row)
    return frame(rows, schema)


def _share(analyses: pl.DataFrame, condition: pl.Expr, needs: str) -> pl.Expr:
    """The share (0-1, 4 decimals) of scored rows meeting ``condition``; null when none is scored
    or when the rows predate the column it needs (an ``analyses`` table written before it)."""
    if needs not in analyses.columns:
        return pl.lit(None, pl.Float64)
    return condition.filter(pl.col("status") != "error").cast(pl.Float64).mean().round(4)


def _previous(previous: pl.DataFrame, match: dict[str, str | None], run_at: datetime) -> dict | None:
    """The latest earlier summary row with the same key values (a null key matches null)."""
    if previous.is_empty() or any(k not in previous.columns for k in match):
        return None
    cond = pl.col("run_at") < run_at
    for k, v in match.items():
        cond &= pl.col(k).is_null() if v is None else pl.col(k) == v
    earlier = previous.filter(cond)
    if earlier.is_empty():
        return None
    return earlier.sort("run_at").row(-1, named=True)
