"""Scored ``analyses`` rows with only what the summaries read, for simulations and tests of the
summary code (``summarize``, ``summarize_providers``): whether each answer names the site, and
its accuracy; the other scores and flags fixed."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl


def scored_answers(
    named: Sequence[bool],
    accuracy: Sequence[float],
    *,
    provider: str = "p",
    query_ids: Sequence[str] | None = None,
    samples: Sequence[int] | None = None,
) -> pl.DataFrame:
    """One ``ok`` row per answer; ``query_ids`` / ``samples`` add those columns when given."""
    n = len(named)
    columns = {
        **({"query_id": list(query_ids)} if query_ids is not None else {}),
        **({"sample": list(samples)} if samples is not None else {}),
        "domain": "site.example",
        "query_set_id": "qs",
        "provider": provider,
        "model": "m",
        "status": "ok",
        "flags": [[] for _ in range(n)],
        "accuracy_score": [float(a) for a in accuracy],
        "accuracy_tier": "good",
        "completeness_score": 50.0,
        "completeness_tier": "fair",
        "attribution_score": 50.0,
        "attribution_tier": "fair",
        "has_url_citation": False,
        "has_domain_mention": False,
        "has_brand_mention": [bool(x) for x in named],
        "has_wrong_fact": False,
        "site_cited": False,
        "site_named_first": [bool(x) for x in named],
    }
    return pl.DataFrame(columns, schema_overrides={"flags": pl.List(pl.String)})
