"""The collector's Parquet tables: ``responses`` (one row per query x sample x provider) and
``collections`` (one row per provider, including one that failed entirely).

``responses`` starts with exactly the input columns of ``sleuth analyze``, so a collect run's
partition is an analyze input as it is; the collection columns follow.
"""

from __future__ import annotations

import json

import polars as pl

from ..queries import QuerySet
from ..queries.queryset import QUERY_SET_SCHEMA
from .collect import ProviderRun

RESPONSES_SCHEMA = {
    # the `sleuth analyze` input format
    "query_id": pl.String,
    "query_set_id": pl.String,
    "domain": pl.String,
    "query": pl.String,
    "expected_answer": pl.String,
    "claims": QUERY_SET_SCHEMA["claims"],
    "brand_names": pl.List(pl.String),
    "competitors": QUERY_SET_SCHEMA["competitors"],
    "provider": pl.String,
    "model": pl.String,
    "response": pl.String,
    "responded_at": pl.Datetime("us", "UTC"),
    "error": pl.String,
    # how the answer was collected
    "status": pl.String,
    "error_type": pl.String,
    "finish_reason": pl.String,
    "attempts": pl.Int64,
    "rate_limited": pl.Int64,
    "latency_s": pl.Float64,
    "prompt_tokens": pl.Int64,
    "completion_tokens": pl.Int64,
    "cost_usd": pl.Float64,
    "parameters": pl.String,
    "query_set_version": pl.String,
    "asked_at": pl.Datetime("us", "UTC"),
    # appended after the first columns, so that each of them keeps its position: an `analyze` input too
    "citations": pl.List(pl.Struct({"url": pl.String, "title": pl.String, "rank": pl.Int64})),
    # appended: which ask of the query this is, 1-based (``--samples``); an `analyze` input too
    "sample": pl.Int64,
}

COLLECTIONS_SCHEMA = {
    "provider": pl.String,
    "model": pl.String,
    "query_set_id": pl.String,
    "query_set_version": pl.String,
    "parameters": pl.String,
    "status": pl.String,
    "error": pl.String,
    "queries": pl.Int64,
    "answered": pl.Int64,
    "refusals": pl.Int64,
    "empty": pl.Int64,
    "errors": pl.Int64,
    "error_types": pl.String,
    "attempts": pl.Int64,
    "rate_limited": pl.Int64,
    "prompt_tokens": pl.Int64,
    "completion_tokens": pl.Int64,
    "cost_usd": pl.Float64,
    "latency_median_s": pl.Float64,
    "latency_p95_s": pl.Float64,
    "started_at": pl.Datetime("us", "UTC"),
    "completed_at": pl.Datetime("us", "UTC"),
    # appended: asks of each query (``--samples``); ``queries`` counts every ask
    "samples": pl.Int64,
}


def response_rows(run: ProviderRun, query_set: QuerySet) -> list[dict]:
    spec = run.spec
    parameters = json.dumps(spec.parameters(), sort_keys=True)
    rows = []
    for a in run.answers:
        q = a.query
        rows.append(
            {
                "query_id": q.query_id,
                "query_set_id": q.query_set_id,
                "domain": q.domain,
                "query": q.query,
                "expected_answer": q.expected_answer,
                "claims": [c.model_dump() for c in q.claims],
                "brand_names": q.brand_names,
                "competitors": [c.model_dump() for c in q.competitors],
                "provider": spec.provider,
                "model": spec.model_name,
                "response": a.response,
                "responded_at": a.responded_at,
                "error": a.error if a.status == "error" else None,
                "status": a.status,
                "error_type": a.error_type,
                "finish_reason": a.finish_reason,
                "attempts": a.attempts,
                "rate_limited": a.rate_limited,
                "latency_s": a.latency_s,
                "prompt_tokens": a.prompt_tokens,
                "completion_tokens": a.completion_tokens,
                "cost_usd": a.cost_usd,
                "parameters": parameters,
                "query_set_version": query_set.version,
                "asked_at": a.asked_at or run.started_at,
                "citations": a.citations,
                "sample": a.sample,
            }
        )
    return rows


def collection_row(run: ProviderRun, query_set: QuerySet, samples: int = 1) -> dict:
    return {
        "provider": run.spec.provider,
        "model": run.spec.model_name,
        "query_set_id": query_set.query_set_id,
        "query_set_version": query_set.version,
        "parameters": json.dumps(run.spec.parameters(), sort_keys=True),
        "started_at": run.started_at,
        "completed_at": run.completed_at,
        **run.stats(),
        "samples": samples,
    }


__all__ = ["COLLECTIONS_SCHEMA", "RESPONSES_SCHEMA", "collection_row", "response_rows"]
