"""The columns of the report tables that more than one view shows (the per-domain scores, the
providers side by side), defined once: the markdown artifact and the HTML report render the same
columns, each formatting a column by its kind (the HTML colours changes; the markdown prints
them as text)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..response.tables import METRICS

Kind = Literal["value", "delta", "percent", "points", "state"]


@dataclass(frozen=True)
class Column:
    """``key``: the row's field; ``kind``: ``delta`` a change of a 0-100 score, ``percent`` a 0-1
    share, ``points`` the change of a share in percentage points (a rise is bad news), ``state``
    a failed flag."""

    key: str
    label: str
    kind: Kind = "value"


DOMAIN_COLUMNS = (
    Column("domain", "domain"),
    Column("query_set_id", "query set"),
    Column("query_count", "answers"),
    Column("flagged_count", "flagged"),
    Column("error_count", "errors"),
    *(Column(f"{m}_mean", m) for m in METRICS),
    *(Column(f"{m}_delta", f"Δ {m}", "delta") for m in METRICS),
    Column("wrong_fact_rate", "wrong facts", "percent"),
    Column("wrong_fact_rate_delta", "Δ wrong facts", "points"),
    Column("previous_run_id", "compared with"),
)
DOMAIN_NOTE = "wrong facts: share of the scored answers with at least one fact the site states otherwise"

PROVIDER_COLUMNS = (
    Column("domain", "domain"),
    Column("who", "provider / model"),
    Column("failed", "state", "state"),
    Column("accuracy_rank", "rank"),
    *(Column(f"{m}_mean", m) for m in METRICS),
    Column("accuracy_delta", "Δ accuracy", "delta"),
    Column("correct_mention_rate", "mentioned & correct", "percent"),
    Column("wrong_fact_rate", "wrong facts", "percent"),
    Column("share_of_voice", "share of voice", "percent"),
    Column("refusal_count", "refusals"),
    Column("empty_count", "empty"),
    Column("error_count", "errors"),
    Column("cost_usd", "cost (USD)"),
)
PROVIDER_NOTE = (
    "mentioned & correct: share of the scored answers that name the site (URL, domain or brand) "
    "and state no wrong fact; wrong facts: share with at least one"
)


def provider_rows(providers: list[dict], collections: list[dict]) -> list[dict]:
    """The provider summaries with what the providers table shows beside them: provider / model
    and what the collection cost."""
    cost = {(c["provider"], c["model"]): c.get("cost_usd") for c in collections}
    return [
        {**r, "who": f"{r['provider']}/{r['model']}", "cost_usd": cost.get((r["provider"], r["model"]))}
        for r in providers
    ]


__all__ = [
    "DOMAIN_COLUMNS",
    "DOMAIN_NOTE",
    "METRICS",
    "PROVIDER_COLUMNS",
    "PROVIDER_NOTE",
    "Column",
    "provider_rows",
]
