"""The sources assistants cite: which domains their answers about a site link to, and whose they
are (the site's own, a tracked competitor's, or another's). A marketer's "source opportunities":
the third-party pages an assistant trusts on the site's questions are where the site's own
pages, or mentions of it, are missing.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from datetime import datetime

import polars as pl

from ..store import frame
from .attribution import host_matches, normalize_domain

CITATION_DOMAINS_SCHEMA = {
    "domain": pl.String,
    "query_set_id": pl.String,
    "cited_domain": pl.String,
    "owner": pl.String,
    "competitor": pl.String,
    "run_at": pl.Datetime("us", "UTC"),
    "answer_count": pl.Int64,
    "scored_count": pl.Int64,
    "share": pl.Float64,
    "mean_rank": pl.Float64,
    "wrong_fact_count": pl.Int64,
}
_URL = re.compile(r"https?://[^\s<>()\[\]\"'`]+", re.IGNORECASE)


def summarize_citation_domains(analyses: pl.DataFrame, run_at: datetime) -> pl.DataFrame:
    """One row per (site, query set, cited domain): how many scored answers cite it (a source the
    assistant listed, or a URL in its text), their share of the scored answers, the mean rank of
    its first listed source, and how many of those answers state a wrong fact. ``owner``:
    ``site``, ``competitor`` (named in ``competitor``) or ``other``."""
    scored = analyses.filter(pl.col("status") != "error") if "status" in analyses.columns else analyses
    if scored.is_empty() or "result_json" not in scored.columns:
        return frame([], CITATION_DOMAINS_SCHEMA)
    totals: dict[tuple, int] = defaultdict(int)
    cited: dict[tuple, dict] = {}
    for row in scored.to_dicts():
        group = (row["domain"], row.get("query_set_id"))
        totals[group] += 1
        result = json.loads(row["result_json"] or "{}")
        first: dict[str, tuple] = {}  # each cited domain once per answer, at its best rank
        for host, rank in _cited_hosts(result).items():
            owner, competitor, domain = _owner(host, row, result)
            best = first.get(domain)
            if best is None or (rank is not None and (best[2] is None or rank < best[2])):
                first[domain] = (owner, competitor, rank)
        for domain, (owner, competitor, rank) in first.items():
            entry = cited.setdefault(
                (*group, domain), {"answers": 0, "ranks": [], "wrong": 0, "owner": (owner, competitor)}
            )
            entry["answers"] += 1
            entry["wrong"] += bool(row.get("has_wrong_fact"))
            if rank is not None:
                entry["ranks"].append(rank)
    rows = [
        {
            "domain": domain,
            "query_set_id": query_set,
            "cited_domain": host,
            "owner": entry["owner"][0],
            "competitor": entry["owner"][1],
            "run_at": run_at,
            "answer_count": entry["answers"],
            "scored_count": totals[(domain, query_set)],
            "share": round(entry["answers"] / totals[(domain, query_set)], 4),
            "mean_rank": round(sum(entry["ranks"]) / len(entry["ranks"]), 2) if entry["ranks"] else None,
            "wrong_fact_count": entry["wrong"],
        }
        for (domain, query_set, host), entry in cited.items()
    ]
    return frame(rows, CITATION_DOMAINS_SCHEMA).sort(
        ["domain", "query_set_id", "answer_count", "cited_domain"],
        descending=[False, False, True, False],
        nulls_last=True,
    )


def _cited_hosts(result: dict) -> dict[str, int | None]:
    """Each domain the answer cites, with the rank of its first listed source (None: only a URL
    in the text)."""
    hosts: dict[str, int | None] = {}
    for c in sorted(result.get("citations") or [], key=lambda c: c.get("rank") or 0):
        host = normalize_domain(c.get("url") or "")
        if host and host not in hosts:
            hosts[host] = c.get("rank")
    for m in _URL.finditer(result.get("response") or ""):
        host = normalize_domain(m.group().rstrip(".,;:!?"))
        if host:
            hosts.setdefault(host, None)
    return hosts


def _owner(host: str, row: dict, result: dict) -> tuple[str, str | None, str]:
    """Whose ``host`` is, and the domain it counts under: the site's or a competitor's declared
    domain for their subdomains (``help.site.example`` is the site), else the host itself."""
    site = result.get("site") or {}
    for d in [row["domain"], *(site.get("domains") or [])]:
        if d and host_matches(host, normalize_domain(d)):
            return "site", None, normalize_domain(row["domain"])
    for c in result.get("competitors") or []:
        for d in c.get("domains") or []:
            if d and host_matches(host, normalize_domain(d)):
                return "competitor", c.get("name"), normalize_domain(d)
    return "other", None, host


__all__ = ["CITATION_DOMAINS_SCHEMA", "summarize_citation_domains"]
