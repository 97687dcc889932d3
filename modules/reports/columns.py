"""The columns of the tables that more than one view shows (per-domain scores, visibility, the
providers side by side, share of voice per brand, the collection per provider), defined once:
the terminal (``sleuth analyze``, ``monitor``, ``collect``), the markdown artifact and the HTML
report render the same columns, each formatting a cell by its column's kind (the HTML colours
changes; the terminal and markdown print them as text)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..response.tables import METRICS

Kind = Literal["value", "delta", "percent", "points", "voice_points", "state", "usd"]


@dataclass(frozen=True)
class Column:
    """``key``: the row's field; ``kind``: ``delta`` a change of a 0-100 score, ``percent`` a 0-1
    share, ``points`` the change of a share in percentage points (a rise is bad news),
    ``voice_points`` the change of a brand's share of voice (good news when it is the site's own),
    ``state`` a failed flag, ``usd`` a cost (calls cost fractions of a cent). ``short``: the terminal's narrower label; ``terminal``: whether the
    terminal shows the column at all (the widest ones it leaves to the reports)."""

    key: str
    label: str
    kind: Kind = "value"
    short: str = ""
    terminal: bool = True
    #: the row holds the figure's 95% interval as ``<key>_low`` and ``<key>_high``
    interval: bool = False

    @property
    def is_change(self) -> bool:
        return self.kind in ("delta", "points", "voice_points")

    def cell(self, row: dict) -> str:
        """The row's cell as plain text: the figure, its interval ("43% (31-56)") and, for a
        change within the noise of the two runs, "n.s." (not significant at 95%)."""
        return self.text(row.get(self.key)) + self.bounds(row) + (" n.s." if self.within_noise(row) else "")

    def within_noise(self, row: dict) -> bool:
        """A change, not zero, that the noise of the two runs explains (``<key>_significant``
        false: not significant at 95%)."""
        value = row.get(self.key)
        return (
            self.is_change
            and value is not None
            and self.text(value) not in ("0", "0.0", "0 pt")
            and row.get(f"{self.key}_significant") is False
        )

    def bounds(self, row: dict) -> str:
        """The figure's 95% interval as " (31-56)" (percentages, or whole scores); "" when the
        column has none or the row does not hold it."""
        low, high = row.get(f"{self.key}_low"), row.get(f"{self.key}_high")
        if not self.interval or low is None or high is None or row.get(self.key) is None:
            return ""
        scale = 100 if self.kind == "percent" else 1
        return f" ({scale * low:.0f}-{scale * high:.0f})"

    def text(self, value: Any) -> str:
        """The cell as plain text (terminal and markdown): a missing value is "-", a change has
        its sign, a share is a whole percentage."""
        if value is None:
            return "-"
        if self.kind == "state":
            return "FAILED" if value else "ok"
        if self.kind == "delta":
            return _signed(f"{value:+.1f}")
        if self.kind == "percent":
            return _signed(f"{100 * value:.0f}") + "%"
        if self.kind == "usd":
            return f"{value:.4f}"
        if self.kind in ("points", "voice_points"):
            return _signed(f"{100 * value:+.0f}") + " pt"
        if isinstance(value, float):
            return _signed(f"{value:.1f}")
        return str(value)


def _signed(text: str) -> str:
    """A change that rounds to zero has no sign."""
    return text.lstrip("+-") if text.lstrip("+-").strip("0.") == "" else text


def terminal_table(rows: Sequence[dict], columns: Sequence[Column]) -> tuple[list[str], list[list[str]]]:
    """The header and the text cells of the columns the terminal shows."""
    shown = [c for c in columns if c.terminal]
    return [c.short or c.label for c in shown], [[c.cell(r) for c in shown] for r in rows]


_SHORT = {"accuracy": "acc", "completeness": "comp", "attribution": "attr"}
_MEAN_SHORT = {"accuracy": "accuracy", "completeness": "complete", "attribution": "attrib"}

DOMAIN_COLUMNS = (
    Column("domain", "domain"),
    Column("query_set_id", "query set"),
    Column("query_count", "answers", short="n"),
    Column("flagged_count", "flagged"),
    Column("error_count", "errors"),
    *(Column(f"{m}_mean", m, short=_MEAN_SHORT[m], interval=True) for m in METRICS),
    *(Column(f"{m}_delta", f"Δ {m}", "delta", short=f"Δ{_SHORT[m]}") for m in METRICS),
    Column("wrong_fact_rate", "wrong facts", "percent", interval=True),
    Column("wrong_fact_rate_delta", "Δ wrong facts", "points", short="Δwrong"),
    Column("previous_run_id", "compared with", terminal=False),
)
DOMAIN_NOTE = (
    "wrong facts: share of the scored answers with at least one fact the site states otherwise; "
    "(a-b): 95% interval; n.s.: a change within the noise of the two runs (not significant at 95%)"
)

#: the site's visibility in the answers, beside the tracked competitors (shares of answers)
VISIBILITY_COLUMNS = (
    Column("mention_rate", "mentioned", "percent", interval=True),
    Column("citation_rate", "cited", "percent", interval=True),
    Column("first_position_rate", "named first", "percent", interval=True),
    Column("share_of_voice", "share of voice", "percent", interval=True),
    Column("mention_rate_delta", "Δ mentioned", "voice_points", short="Δmentioned"),
    Column("citation_rate_delta", "Δ cited", "voice_points", short="Δcited"),
    Column("first_position_rate_delta", "Δ named first", "voice_points", short="Δnamed first"),
    Column("share_of_voice_delta", "Δ share of voice", "voice_points", short="Δshare of voice"),
)
VISIBILITY_NOTE = (
    "mentioned: by URL, domain or brand name; cited: a URL of its domain in the answer, or among "
    "the assistant's sources; named first: before every other tracked brand; share of voice: answers "
    "naming the brand / answers naming each tracked brand (the site included)"
)

PROVIDER_COLUMNS = (
    Column("domain", "domain"),
    Column("who", "provider / model"),
    Column("failed", "state", "state"),
    Column("accuracy_rank", "rank"),
    # the terminal keeps the measure providers are ranked by; the reports show all three
    *(Column(f"{m}_mean", m, short=_MEAN_SHORT[m], interval=True, terminal=m == "accuracy") for m in METRICS),
    *(
        Column(f"{m}_delta", f"Δ {m}", "delta", short=f"Δ{_SHORT[m]}", terminal=m == "accuracy")
        for m in METRICS
    ),
    Column("correct_mention_rate", "mentioned & correct", "percent", interval=True),
    Column("wrong_fact_rate", "wrong facts", "percent", interval=True),
    Column("share_of_voice", "share of voice", "percent", interval=True),
    Column("refusal_count", "refusals"),
    Column("empty_count", "empty"),
    Column("error_count", "errors"),
    Column("cost_usd", "cost (USD)", "usd", short="cost"),
)
PROVIDER_NOTE = (
    "mentioned & correct: share of the scored answers that name the site (URL, domain or brand) "
    "and state no wrong fact; wrong facts: share with at least one"
)

#: each tracked brand per provider (``brand_rows``), the site's row first
BRAND_COLUMNS = (
    Column("domain", "domain"),
    Column("who", "provider / model"),
    Column("name", "brand"),
    Column("share_of_voice", "share of voice", "percent", interval=True),
    Column("share_of_voice_delta", "Δ share of voice", "voice_points"),
    Column("mention_rate", "mentioned", "percent", interval=True),
    Column("citation_rate", "cited", "percent", interval=True),
    Column("first_position_rate", "named first", "percent", interval=True),
    Column("answer_count", "answers"),
    Column("previous_run_id", "compared with", terminal=False),
)

COLLECTION_COLUMNS = (
    Column("provider", "provider"),
    Column("model", "model"),
    Column("status", "status"),
    Column("queries", "queries"),
    Column("answered", "answered"),
    Column("refusals", "refusals"),
    Column("empty", "empty"),
    Column("errors", "errors"),
    Column("rate_limited", "429s"),
    Column("tokens", "tokens"),
    Column("cost_usd", "cost (USD)", "usd", short="cost"),
    Column("latency_median_s", "median s"),
    Column("error", "error", terminal=False),
)


#: the domains the assistants cite (``source_rows``), most cited first
SOURCE_COLUMNS = (
    Column("domain", "site"),
    Column("cited_domain", "cited domain"),
    Column("whose", "whose"),
    Column("answer_count", "answers citing it", short="answers"),
    Column("share", "share of answers", "percent", short="share"),
    Column("mean_rank", "mean rank", short="rank"),
    Column("wrong_fact_count", "of those, with a wrong fact", short="wrong"),
)
SOURCE_NOTE = (
    "a source an assistant listed beside its answer, or a URL in its text; mean rank: where its "
    "first source stood in the assistant's list (1 = first); a third-party domain many answers "
    "cite is where the site's pages, or a mention of the site, are missing"
)


def source_rows(sources: list[dict], top: int = 10) -> list[dict]:
    """The ``top`` most cited domains of each site and query set, with whose they are."""
    shown: dict[tuple, int] = {}
    rows = []
    for r in sources:  # stored most cited first
        group = (r["domain"], r.get("query_set_id"))
        shown[group] = shown.get(group, 0) + 1
        if shown[group] <= top:
            whose = f"competitor ({r['competitor']})" if r["owner"] == "competitor" else r["owner"]
            rows.append({**r, "whose": "the site" if r["owner"] == "site" else whose})
    return rows


def provider_rows(providers: list[dict], collections: list[dict]) -> list[dict]:
    """The provider summaries with what the providers table shows beside them (provider / model
    and what the collection cost), best first within each domain and query set (a failed
    provider, unranked, last)."""
    cost = {(c["provider"], c["model"]): c.get("cost_usd") for c in collections}
    rows = [{**r, "who": _who(r), "cost_usd": cost.get((r["provider"], r["model"]))} for r in providers]
    return sorted(
        rows,
        key=lambda r: (
            r["domain"] or "",
            r.get("query_set_id") or "",
            r["accuracy_rank"] is None,
            r["accuracy_rank"] or 0,
        ),
    )


def brand_rows(brands: list[dict]) -> list[dict]:
    """The competitor summaries as the share-of-voice table shows them: the site's row first
    within each provider, named "(us)"."""
    rows = [
        {**r, "who": _who(r), "name": f"{r['brand']} (us)" if r["is_site"] else r["brand"]} for r in brands
    ]
    return sorted(rows, key=lambda r: (r["domain"] or "", r["who"], not r["is_site"]))


def collection_rows(collections: list[dict]) -> list[dict]:
    """The collections with the tokens each provider used (prompt and completion)."""
    return [
        {**c, "tokens": (c.get("prompt_tokens") or 0) + (c.get("completion_tokens") or 0)}
        for c in collections
    ]


#: The columns of an analyst's verdicts (``verdict_overrides``), as both reports show them.
VERDICT_COLUMNS = [
    ("answer", "answer"),
    ("query_id", "query"),
    ("who", "provider / model"),
    ("target", "claim or wrong fact"),
    ("change", "judge → analyst"),
    ("note", "note"),
    ("analyst", "analyst"),
]


def verdict_rows(overrides: list[dict]) -> list[dict]:
    """The recorded verdicts as the reports list them."""
    return [
        {
            **r,
            "answer": (r["answer_id"] or "")[:10],
            "who": _who(r),
            "target": f"claim {r['claim_id']}: {r['claim_text']}"
            if r["claim_id"]
            else f'"{r["wrong_fact"]}"',
            "change": f"{r['previous_verdict'] or '-'} → {r['verdict']}",
        }
        for r in overrides
    ]


def score_parts(row: dict) -> list[tuple[str, str, str | None, str | None]]:
    """An answer's scores as a reader sees them: (metric, value, tier, credit) for each metric,
    the credit being attribution's two kinds, "named 0, cited 75" (None for the other metrics
    and for rows written before those columns)."""
    parts = []
    for m in METRICS:
        credit = None
        if m == "attribution" and row.get("mention_score") is not None:
            credit = f"named {row['mention_score']:.0f}, cited {row.get('citation_score') or 0:.0f}"
        parts.append((m, _number(row.get(f"{m}_score")), row.get(f"{m}_tier"), credit))
    return parts


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _who(row: dict) -> str:
    return f"{row.get('provider') or '-'}/{row.get('model') or '-'}"


__all__ = [
    "BRAND_COLUMNS",
    "COLLECTION_COLUMNS",
    "DOMAIN_COLUMNS",
    "DOMAIN_NOTE",
    "METRICS",
    "PROVIDER_COLUMNS",
    "PROVIDER_NOTE",
    "SOURCE_COLUMNS",
    "SOURCE_NOTE",
    "VISIBILITY_COLUMNS",
    "VISIBILITY_NOTE",
    "Column",
    "brand_rows",
    "collection_rows",
    "provider_rows",
    "VERDICT_COLUMNS",
    "score_parts",
    "verdict_rows",
    "source_rows",
    "terminal_table",
]
