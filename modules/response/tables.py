"""The response analyzer's Parquet tables: ``analyses``, ``summaries``, ``provider_summaries`` and
``competitor_summaries`` (a run's ``runs`` row is :mod:`modules.store.runs`'s).

Schemas are explicit so that every run writes the same column types (documented in
datasets/README.md); ``run_id`` is the hive partition, not a column inside the files.
"""

from __future__ import annotations

import json
from datetime import datetime

import polars as pl

from ..store import ParquetStore, frame
from ..store.runs import RUNS_TABLE, RunKind, rescored_run
from .intervals import cluster_bootstrap_mean, cluster_rate_interval, significant_change
from .overrides import ANALYST_FLAG
from .records import RecordError
from .schema import DISAGREEMENT_FLAG, AnalysisResult

TIERS = ("excellent", "good", "fair", "poor")
METRICS = ("accuracy", "completeness", "attribution")
# 0-1 shares of scored answers, with a ``*_delta`` against the previous run
VISIBILITY = ("mention_rate", "citation_rate", "first_position_rate", "share_of_voice")
RATES = ("wrong_fact_rate", *VISIBILITY)

#: the columns that say how sure a summary's figures are: the rows the rates and means are over
#: (``scored_count``; ``voice_count`` for share of voice), 95% intervals of every mean and rate,
#: and whether each change since the previous run exceeds the noise of both runs
INTERVAL_SCHEMA = {
    "scored_count": pl.Int64,
    "voice_count": pl.Int64,
    **{f"{m}_mean_{end}": pl.Float64 for m in METRICS for end in ("low", "high")},
    **{f"{r}_{end}": pl.Float64 for r in RATES for end in ("low", "high")},
    **{f"{m}_delta_significant": pl.Boolean for m in METRICS},
    **{f"{r}_delta_significant": pl.Boolean for r in RATES},
}

COMPETITOR_STRUCT = pl.Struct(
    {
        "name": pl.String,
        "mentioned": pl.Boolean,
        "cited": pl.Boolean,
        "mentions": pl.Int64,
        "first_start": pl.Int64,
        "first_mention_in": pl.String,
        "cited_rank": pl.Int64,
        "named_first": pl.Boolean,
    }
)

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
    # appended after the first columns, so that each of them keeps its position: wrong facts
    "claims_contradicted": pl.Int64,
    "contradiction_count": pl.Int64,
    "has_wrong_fact": pl.Boolean,
    # appended: prominence and the assistant's own cited sources
    "first_mention_in": pl.String,
    "list_rank": pl.Int64,
    "citation_count": pl.Int64,
    "cited_rank": pl.Int64,
    # appended: the site and its tracked competitors in the answer
    "site_cited": pl.Boolean,
    "site_named_first": pl.Boolean,
    "competitors_mentioned": pl.Int64,
    "competitors": pl.List(COMPETITOR_STRUCT),
    # appended: attribution's two kinds of credit, 0-100 (named in the text, linked or cited)
    "mention_score": pl.Float64,
    "citation_score": pl.Float64,
    # appended: which ask of the query this answer is (1-based, from ``responses.sample``; null
    # when the input has none)
    "sample": pl.Int64,
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
    # appended: share of scored answers with a wrong fact, 0-1, and its trend
    "wrong_fact_rate": pl.Float64,
    "wrong_fact_rate_delta": pl.Float64,
    # appended: the site's visibility beside its tracked competitors, 0-1, and trends
    **{f"{v}{d}": pl.Float64 for v in VISIBILITY for d in ("", "_delta")},
    # appended: how sure the figures are (:mod:`.intervals`)
    **INTERVAL_SCHEMA,
    # appended: answers rescored with an analyst's verdicts (``sleuth verdicts override``)
    "overridden_count": pl.Int64,
    # appended: answers on which the LM judge and the offline checks disagree (``analyze --lm``)
    "judge_disagreement_count": pl.Int64,
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
        "site_cited": r.site.cited if r.site else None,
        "site_named_first": r.site.named_first if r.site else None,
        "competitors_mentioned": sum(c.mentioned for c in r.competitors) if r.site else None,
        "competitors": [
            {
                "name": c.name,
                "mentioned": c.mentioned,
                "cited": c.cited,
                "mentions": c.mentions,
                "first_start": c.first_position and c.first_position.start,
                "first_mention_in": c.first_mention_in,
                "cited_rank": c.cited_rank,
                "named_first": c.named_first,
            }
            for c in r.competitors
        ]
        if r.site
        else None,
        "mention_score": attr and attr.mention_score,
        "citation_score": attr and attr.citation_score,
        "sample": r.sample,
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
    **{
        k: v
        for k, v in SUMMARY_SCHEMA.items()
        if k.startswith(METRICS) and not k.endswith("_delta") and k not in INTERVAL_SCHEMA
    },
    "accuracy_rank": pl.Int64,
    "previous_run_id": pl.String,
    **{f"{m}_delta": pl.Float64 for m in METRICS},
    "wrong_fact_rate": pl.Float64,
    "wrong_fact_rate_delta": pl.Float64,
    # scored answers that name the site (URL, domain or brand) and state no wrong fact, 0-1
    "correct_mention_rate": pl.Float64,
    # appended, as in ``summaries``
    **{f"{v}{d}": pl.Float64 for v in VISIBILITY for d in ("", "_delta")},
    **INTERVAL_SCHEMA,
    "correct_mention_rate_low": pl.Float64,
    "correct_mention_rate_high": pl.Float64,
    "overridden_count": pl.Int64,
    "judge_disagreement_count": pl.Int64,
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
    extra = [flag("refusal").alias("refusal_count"), flag("empty_response").alias("empty_count")]
    correct = {"correct_mention_rate": (_MENTIONED & ~pl.col("has_wrong_fact"), "has_wrong_fact")}
    out = _summaries(analyses, run_at, previous, PROVIDER_KEYS, extra, PROVIDER_SUMMARY_SCHEMA, correct)
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
    extra_rates: dict[str, tuple[pl.Expr, str]] | None = None,
) -> pl.DataFrame:
    scored = pl.col("status") != "error"
    rates = {**_rates(analyses.columns), **(extra_rates or {})}
    aggs = [
        pl.len().alias("query_count"),
        (pl.col("status") == "ok").sum().alias("ok_count"),
        (pl.col("status") == "flagged").sum().alias("flagged_count"),
        (pl.col("status") == "error").sum().alias("error_count"),
        scored.sum().alias("scored_count"),
        *(
            (
                pl.col("flags").list.contains(flag).fill_null(False).sum()
                if "flags" in analyses.columns
                else pl.lit(0, pl.Int64)
            ).alias(column)
            for flag, column in (
                (ANALYST_FLAG, "overridden_count"),
                (DISAGREEMENT_FLAG, "judge_disagreement_count"),
            )
        ),
        *(_share(analyses, cond, needs).alias(rate) for rate, (cond, needs) in rates.items()),
        *_voice(analyses),
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
    summarised = analyses.filter(pl.col("domain").is_not_null())
    summary = (
        summarised.group_by(list(keys), maintain_order=True)
        .agg(aggs)
        .with_columns(pl.lit(run_at).cast(pl.Datetime("us", "UTC")).alias("run_at"))
        .sort(list(keys), nulls_last=True)
        .join(
            _cluster_tallies(summarised, keys, rates),
            on=list(keys),
            how="left",
            nulls_equal=True,
            maintain_order="left",
        )
    )
    rows = [_with_deltas(_with_intervals(row), previous, keys, _SCORE_DELTAS) for row in summary.to_dicts()]
    return frame(rows, schema)


#: what makes two answers one cluster, alike more than independent answers are: the same query
#: asked of the same provider and model (``_answer`` parts an answer with no query id from all)
_CLUSTER = ("query_id", "provider", "model", "_answer")


def _cluster_tallies(
    analyses: pl.DataFrame, keys: tuple[str, ...], rates: dict[str, tuple[pl.Expr, str]]
) -> pl.DataFrame:
    """Per summary row (``keys``), its clusters' tallies as lists, one entry per cluster: each
    rate's hits and trials (``_hits_<rate>``, ``_trials_<rate>``, share of voice's the site's
    named answers and the brands named), and each score's sum and count (``_sums_<metric>``,
    ``_counts_<metric>``). A frame written before ``query_id`` makes each answer its own cluster."""
    scored = pl.col("status") != "error"
    answer = pl.int_range(pl.len(), dtype=pl.Int64)
    if "query_id" in analyses.columns:
        answer = pl.when(pl.col("query_id").is_null()).then(answer)
    tallies = []
    for rate, (condition, needs) in rates.items():
        known = condition.filter(scored) if needs in analyses.columns else pl.lit(None, pl.Boolean)
        tallies += [
            known.sum().cast(pl.Int64).alias(f"_hits_{rate}"),
            known.count().cast(pl.Int64).alias(f"_trials_{rate}"),
        ]
    ours, voices = _voices(analyses)
    tallies += [ours.alias("_hits_share_of_voice"), voices.alias("_trials_share_of_voice")]
    for m in METRICS:
        s = pl.col(f"{m}_score").filter(scored)
        tallies += [s.sum().alias(f"_sums_{m}"), s.count().cast(pl.Int64).alias(f"_counts_{m}")]
    columns = [*analyses.columns, "_answer"]
    cluster = list(dict.fromkeys([*keys, *(c for c in _CLUSTER if c in columns)]))
    return (
        analyses.with_columns(answer.alias("_answer"))
        .group_by(cluster, maintain_order=True)  # in row order: one answer a cluster is as before
        .agg(tallies)
        .group_by(list(keys), maintain_order=True)
        .agg(pl.all().exclude(cluster))
    )


def _with_intervals(row: dict) -> dict:
    """``row`` with the 95% intervals of its rates and mean scores, from its clusters' tallies
    (:func:`_cluster_tallies`)."""
    for rate in (*RATES, "correct_mention_rate"):
        if f"_hits_{rate}" in row:
            hits, trials = row[f"_hits_{rate}"] or [], row[f"_trials_{rate}"] or []
            interval = cluster_rate_interval(hits, trials) if row.get(rate) is not None else (None, None)
            row[f"{rate}_low"], row[f"{rate}_high"] = interval
    for m in METRICS:
        sums, counts = row.get(f"_sums_{m}") or [], row.get(f"_counts_{m}") or []
        row[f"{m}_mean_low"], row[f"{m}_mean_high"] = cluster_bootstrap_mean(sums, counts)
    return row


#: Each measure of a summary row and the column holding its change since the previous run.
_SCORE_DELTAS = {**{f"{m}_mean": f"{m}_delta" for m in METRICS}, **{r: f"{r}_delta" for r in RATES}}


def _with_deltas(row: dict, previous: pl.DataFrame, keys: tuple[str, ...], deltas: dict[str, str]) -> dict:
    """``row`` with ``previous_run_id`` (the latest earlier run of the same keys in ``previous``)
    and each measure's change since it."""
    prev = _previous(previous, {k: row[k] for k in keys}, row["run_at"])
    row["previous_run_id"] = prev and prev["run_id"]
    for measure, delta in deltas.items():
        cur, old = row[measure], prev and prev.get(measure)
        row[delta] = None if cur is None or old is None else round(cur - old, 4)
        row[f"{delta}_significant"] = (
            significant_change(cur, _interval(row, measure), old, _interval(prev, measure)) if prev else None
        )
    return row


def _interval(row: dict, measure: str) -> tuple[float | None, float | None]:
    return row.get(f"{measure}_low"), row.get(f"{measure}_high")


_MENTIONED = pl.any_horizontal("has_url_citation", "has_domain_mention", "has_brand_mention").fill_null(False)


def names_site(row: dict) -> bool:
    """:func:`_named` for one ``analyses`` row."""
    if row.get("first_mention_in") is None:
        return any(row[f] for f in ("has_url_citation", "has_domain_mention", "has_brand_mention"))
    return row["first_mention_in"] != "none"


def _named(columns: list[str]) -> pl.Expr:
    """The answer's text names the site (URL, domain or brand), as a competitor counts as named:
    a source the assistant only listed beside its text is a citation, not a mention. Tables
    written before ``first_mention_in`` count any attribution."""
    if "first_mention_in" not in columns:
        return _MENTIONED
    return (
        pl.when(pl.col("first_mention_in").is_null())
        .then(_MENTIONED)
        .otherwise(pl.col("first_mention_in") != "none")
        .fill_null(False)
    )


def _rates(columns: list[str]) -> dict[str, tuple[pl.Expr, str]]:
    """Each rate of scored answers, its condition and the column it needs: a wrong fact, and the
    site's visibility: named at all (URL, domain or brand), cited (a URL in the text, or its
    domain among the assistant's sources), named before every tracked competitor."""
    return {
        "wrong_fact_rate": (pl.col("has_wrong_fact"), "has_wrong_fact"),
        "mention_rate": (_named(columns), "has_brand_mention"),
        "citation_rate": (pl.col("site_cited"), "site_cited"),
        "first_position_rate": (pl.col("site_named_first"), "site_named_first"),
    }


def _voices(analyses: pl.DataFrame) -> tuple[pl.Expr, pl.Expr]:
    """Share of voice's parts over the scored answers that track competitors: the answers naming
    the site, and the voices, the answers naming each tracked brand summed over brands (the site
    included); 0 and 0 in a table written before competitors were tracked."""
    if "competitors" not in analyses.columns:
        return pl.lit(0, pl.Int64), pl.lit(0, pl.Int64)
    scored = pl.col("status") != "error"
    tracks = pl.col("competitors").list.len().fill_null(0) > 0
    ours = (_named(analyses.columns) & tracks).filter(scored).cast(pl.Int64).sum()
    return ours, (ours + pl.col("competitors_mentioned").filter(scored).sum()).cast(pl.Int64)


def _voice(analyses: pl.DataFrame) -> list[pl.Expr]:
    """``share_of_voice`` (the site's named answers / the voices; null when no competitor is
    tracked, or no tracked brand is named) and ``voice_count``."""
    ours, voices = _voices(analyses)
    return [
        pl.when(voices > 0).then((ours / voices).round(4)).cast(pl.Float64).alias("share_of_voice"),
        voices.alias("voice_count"),
    ]


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


COMPETITOR_KEYS = ("domain", "query_set_id", "provider", "model", "brand")
COMPETITOR_RATES = ("mention_rate", "citation_rate", "first_position_rate", "share_of_voice")

COMPETITOR_SUMMARY_SCHEMA = {
    **{k: pl.String for k in COMPETITOR_KEYS},
    "is_site": pl.Boolean,
    "run_at": pl.Datetime("us", "UTC"),
    "answer_count": pl.Int64,
    "mention_count": pl.Int64,
    "cited_count": pl.Int64,
    **{r: pl.Float64 for r in COMPETITOR_RATES},
    "previous_run_id": pl.String,
    **{f"{r}_delta": pl.Float64 for r in COMPETITOR_RATES},
    # appended: how sure the figures are, as in ``summaries``
    "voice_count": pl.Int64,
    **{f"{r}_{end}": pl.Float64 for r in COMPETITOR_RATES for end in ("low", "high")},
    **{f"{r}_delta_significant": pl.Boolean for r in COMPETITOR_RATES},
}


def summarize_competitors(analyses: pl.DataFrame, run_at: datetime, previous: pl.DataFrame) -> pl.DataFrame:
    """Each tracked brand per (domain, query set, provider, model): the site's own row (``brand``
    its domain, ``is_site``) and one per competitor, over the scored answers that track
    competitors; a brand's share of voice is the answers naming it / the answers naming each
    brand, summed over the group's brands (so a group's shares add up to 1). Deltas compare the
    same brand, provider and model with the latest earlier row in ``previous``.

    Intervals count each query once, as in ``summaries``: a brand's answers to one query (its
    repeated samples) are a cluster, and so are the voices of those answers."""
    if "competitors" not in analyses.columns:
        return frame([], COMPETITOR_SUMMARY_SCHEMA)
    tracking = analyses.filter((pl.col("status") != "error") & (pl.col("competitors").list.len() > 0))
    groups: dict[tuple, dict[str, dict]] = {}
    group_voices: dict[tuple, dict[tuple, int]] = {}  # per group, the voices in each cluster
    for i, row in enumerate(tracking.to_dicts()):
        key = tuple(row[k] for k in COMPETITOR_KEYS[:-1])
        brands, voices_in = groups.setdefault(key, {}), group_voices.setdefault(key, {})
        query = row.get("query_id")
        cluster = (query, None if query is not None else i)  # provider and model are the group's
        seen = [
            (
                row["domain"],
                True,
                names_site(row),
                row["site_cited"],
                row["site_named_first"],
            ),
            *((c["name"], False, c["mentioned"], c["cited"], c["named_first"]) for c in row["competitors"]),
        ]
        voices_in.setdefault(cluster, 0)
        for name, is_site, mentioned, cited, first in seen:
            b = brands.setdefault(
                name, {"is_site": is_site, "n": 0, "mentioned": 0, "cited": 0, "first": 0, "clusters": {}}
            )
            b["n"] += 1
            b["mentioned"] += bool(mentioned)
            b["cited"] += bool(cited)
            b["first"] += bool(first)
            tally = b["clusters"].setdefault(cluster, [0, 0, 0, 0])  # answers, mentioned, cited, first
            tally[0] += 1
            tally[1] += bool(mentioned)
            tally[2] += bool(cited)
            tally[3] += bool(first)
            voices_in[cluster] += bool(mentioned)
    rows = []
    for key, brands in groups.items():
        voices = sum(b["mentioned"] for b in brands.values())
        clusters, voiced = list(group_voices[key]), list(group_voices[key].values())
        for name, b in brands.items():
            row = dict(zip(COMPETITOR_KEYS, (*key, name)))
            row |= {
                "is_site": b["is_site"],
                "run_at": run_at,
                "answer_count": b["n"],
                "mention_count": b["mentioned"],
                "cited_count": b["cited"],
                "mention_rate": round(b["mentioned"] / b["n"], 4),
                "citation_rate": round(b["cited"] / b["n"], 4),
                "first_position_rate": round(b["first"] / b["n"], 4),
                "share_of_voice": round(b["mentioned"] / voices, 4) if voices else None,
                "voice_count": voices,
            }
            answers, *counted = zip(*b["clusters"].values())
            for rate, hits in zip(("mention_rate", "citation_rate", "first_position_rate"), counted):
                row[f"{rate}_low"], row[f"{rate}_high"] = cluster_rate_interval(hits, answers)
            named = [b["clusters"].get(c, (0, 0))[1] for c in clusters]
            row["share_of_voice_low"], row["share_of_voice_high"] = cluster_rate_interval(named, voiced)
            rows.append(_with_deltas(row, previous, COMPETITOR_KEYS, _COMPETITOR_DELTAS))
    return frame(rows, COMPETITOR_SUMMARY_SCHEMA).sort(
        [*COMPETITOR_KEYS[:-1], "is_site", "mention_count"],
        descending=[False] * 4 + [True, True],
        nulls_last=True,
    )


_COMPETITOR_DELTAS = {r: f"{r}_delta" for r in COMPETITOR_RATES}

#: The summary tables that carry trend deltas: their keys and measures.
TREND_TABLES: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {
    "summaries": (SUMMARY_KEYS, _SCORE_DELTAS),
    "provider_summaries": (PROVIDER_KEYS, _SCORE_DELTAS),
    "competitor_summaries": (COMPETITOR_KEYS, _COMPETITOR_DELTAS),
}


def trend_baseline(
    store: ParquetStore,
    table: str,
    kind: RunKind | str | None,
    *,
    config_hash: str | None = None,
    input_path: str | None = None,
    providers: str | None = None,
) -> pl.DataFrame:
    """The committed rows a run is compared with: the same kind of measurement, so that a change
    is a change of the answers or the site, not of what was measured.

    A ``reanalyze`` compares with the run it re-scores (``input_path`` ``run_id=<id>``): the
    same answers, judged again. A ``monitor`` run compares with earlier monitor runs (fresh
    answers to the same query set, per provider); an ``analyze`` with earlier analyze and
    reanalyze runs, never with a monitor's answers. Given ``config_hash``, only runs analysed
    with the same analyzer configuration count; given ``providers`` (``runs.providers``), only
    runs that asked the same providers and models (a domain's figures mix them)."""
    runs, rows = store.read(RUNS_TABLE), store.read(table)
    if runs.is_empty() or rows.is_empty():
        return pl.DataFrame()
    rescored = rescored_run(kind, input_path)
    if rescored is not None:
        return rows.filter(pl.col("run_id") == rescored)
    family = [RunKind.MONITOR] if kind == RunKind.MONITOR else [RunKind.ANALYZE, RunKind.REANALYZE]
    comparable = runs.filter(pl.col("flow").is_in([str(k) for k in family]))
    if config_hash is not None and "config_hash" in comparable.columns:
        comparable = comparable.filter(pl.col("config_hash") == config_hash)
    if providers is not None and "providers" in comparable.columns:
        asked = _asked(providers)
        comparable = comparable.filter(
            pl.col("providers").map_elements(lambda p: _asked(p) == asked, return_dtype=pl.Boolean)
        )
    return rows.filter(pl.col("run_id").is_in(comparable["run_id"].to_list()))


def _asked(providers: str | None) -> frozenset[tuple]:
    """Who a ``runs.providers`` value asked, and how: provider, model, temperature and system
    prompt (its limits, retries and keys change no answer)."""
    specs = json.loads(providers or "[]")
    return frozenset(
        (s.get("provider"), s.get("model"), s.get("temperature"), s.get("system_prompt")) for s in specs
    )


def read_with_trends(store: ParquetStore, table: str, run_id: str) -> pl.DataFrame:
    """A committed run's rows of a summary table, its ``previous_run_id`` and deltas as of now.

    The stored deltas compare with the runs committed when the run was; a run that started
    earlier but finished later was not among them. Here every run compares with the latest
    comparable run that *started* before it, whatever the finishing order (the rows of any other
    table are read as stored)."""
    rows = store.read(table, run_id)
    if rows.is_empty() or table not in TREND_TABLES:
        return rows
    run = store.read(RUNS_TABLE, run_id).to_dicts()
    run = run[0] if run else {}
    previous = trend_baseline(
        store,
        table,
        run.get("flow"),
        config_hash=run.get("config_hash"),
        input_path=run.get("input_path"),
        providers=run.get("providers") if table == "summaries" else None,  # the others are per provider
    )
    if not previous.is_empty():
        previous = previous.filter(pl.col("run_id") != run_id)
    keys, deltas = TREND_TABLES[table]
    columns = rows.columns
    return pl.DataFrame(
        [_with_deltas(row, previous, keys, deltas) for row in rows.to_dicts()], schema=rows.schema
    ).select(columns)
