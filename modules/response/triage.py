"""Which analysed answers a site owner should look at first. One home, so that `sleuth runs show`
(the markdown summary) and the HTML report list the same answers and agree on every count.
"""

from __future__ import annotations

import polars as pl

from .tables import names_site


def answers_to_fix(analyses: pl.DataFrame, weakest: int = 5) -> tuple[list[dict], list[dict]]:
    """Every scored answer with a wrong fact, and then the ``weakest`` other answers.

    Wrong facts first, since they are what a reader acts on: an answer that cites the site and
    states something the site says otherwise leads (it puts the site's name on the error), then
    more wrong facts, then lower accuracy. The weakest others by their verdicts: the smallest
    share of expected claims found, then the lowest accuracy."""
    if "result_json" not in analyses.columns:  # a run without analyses (a monitor stopped early)
        return [], []
    scored = analyses.filter((pl.col("status") != "error") & pl.col("result_json").is_not_null())
    if scored.is_empty():
        return [], []
    rows = scored.to_dicts()
    wrong = sorted(
        (r for r in rows if r.get("has_wrong_fact")),
        key=lambda r: (
            not _cites_site(r),
            -(r.get("contradiction_count") or 0),
            r.get("accuracy_score") or 0,
        ),
    )
    others = sorted(
        (r for r in rows if not r.get("has_wrong_fact")),
        key=lambda r: (_found_share(r), r.get("accuracy_score") or 0, r.get("query_id") or ""),
    )
    return wrong, others[:weakest]


def named_instead(analyses: pl.DataFrame) -> list[dict]:
    """The scored answers that name a tracked competitor and not the site (in the answer's text:
    a source the assistant only listed does not name it)."""
    if "competitors_mentioned" not in analyses.columns:
        return []
    named = analyses.filter((pl.col("status") != "error") & (pl.col("competitors_mentioned") > 0))
    return [r for r in named.to_dicts() if not names_site(r)]


def _cites_site(row: dict) -> bool:
    return bool(row.get("site_cited") or row.get("has_url_citation"))


def _found_share(row: dict) -> float:
    total = row.get("claims_total") or 0
    return (row.get("claims_found") or 0) / total if total else 1.0


__all__ = ["answers_to_fix", "named_instead"]
