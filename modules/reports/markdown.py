"""The run report's summary as markdown: the Prefect artifact every flow run publishes, so the
Prefect UI shows the same figures as the HTML report."""

from __future__ import annotations

import json
from collections.abc import Sequence

import polars as pl

from ..links import markdown_text
from ..research.render import report_markdown
from ..response.tables import read_with_trends
from ..response.triage import answers_to_fix, named_instead
from ..store import ParquetStore
from ..store.runs import RunKind
from .columns import (
    BRAND_COLUMNS,
    COLLECTION_COLUMNS,
    DOMAIN_COLUMNS,
    DOMAIN_NOTE,
    PROVIDER_COLUMNS,
    PROVIDER_NOTE,
    SOURCE_COLUMNS,
    SOURCE_NOTE,
    VERDICT_COLUMNS,
    VISIBILITY_NOTE,
    Column,
    brand_rows,
    collection_rows,
    provider_rows,
    score_parts,
    source_rows,
    verdict_rows,
)


def _cell(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.1f}"
    return markdown_text(v).replace("|", "\\|").replace("\n", " ")


def md_table(rows: list[dict], columns: list[tuple[str, str]]) -> str:
    if not rows:
        return "(none)\n"
    head = "| " + " | ".join(label for _, label in columns) + " |\n|" + "---|" * len(columns) + "\n"
    return head + "".join("| " + " | ".join(_cell(r.get(k)) for k, _ in columns) + " |\n" for r in rows)


def columns_table(rows: list[dict], columns: Sequence[Column]) -> str:
    """A table of :mod:`.columns`, each cell formatted by its column's kind."""
    cells = [{c.key: c.cell(r) for c in columns} for r in rows]
    return md_table(cells, [(c.key, c.label) for c in columns])


def response_markdown(store: ParquetStore, run_id: str) -> str:
    analyses = store.read("analyses", run_id)
    summaries = read_with_trends(store, "summaries", run_id).to_dicts()
    out = "## Per-domain scores\n\n" + columns_table(summaries, DOMAIN_COLUMNS)
    if summaries:
        out += f"\n{DOMAIN_NOTE}.\n"
    providers = read_with_trends(store, "provider_summaries", run_id).to_dicts()
    if providers:
        collections = store.read("collections", run_id)
        rows = provider_rows(providers, collections.to_dicts())
        out += "\n## Providers side by side\n\n" + columns_table(rows, PROVIDER_COLUMNS)
        out += f"\n{PROVIDER_NOTE}.\n"
        for c in collections.filter(pl.col("status") == "failed").to_dicts():
            out += f"\n**{_cell(c['provider'])}/{_cell(c['model'])} failed entirely:** {_cell(c['error'])}\n"
    brands = read_with_trends(store, "competitor_summaries", run_id)
    if not brands.is_empty():
        out += _share_of_voice(brands, analyses)
    sources = store.read("citation_domains", run_id).to_dicts()
    if sources:
        out += "\n## Sources the assistants cite\n\n" + columns_table(source_rows(sources), SOURCE_COLUMNS)
        out += f"\n{SOURCE_NOTE}.\n"
    wrong, weakest = answers_to_fix(analyses)
    out += f"\n## Answers with a wrong fact ({len(wrong)}; those citing the site first)\n\n"
    out += "".join(_answer_line(r) for r in wrong) or "(none)\n"
    out += f"\n## The {len(weakest)} weakest other answers\n\n" + "".join(_answer_line(r) for r in weakest)
    bad = analyses.filter(pl.col("status") != "ok")
    out += f"\n{bad.filter(pl.col('status') == 'flagged').height} flagged and {bad.filter(pl.col('status') == 'error').height} error rows.\n"
    return out


def _answer_line(r: dict) -> str:
    """One answer: who gave it, its scores, its wrong facts and the claims it misses."""
    feedback = json.loads(r["result_json"]).get("feedback") or {}
    missing = [c["claim"]["text"] for c in feedback.get("claims", {}).get("missing", [])]
    wrong = [
        f"{w['statement']} ({w.get('detail') or w['evidence']})" for w in feedback.get("contradictions") or []
    ]
    return (
        f"- **{_cell(r['query_id'])}** ({_cell(r['provider'])}/{_cell(r['model'])}{_sample(r)}, answer {_cell((r.get('id') or '')[:10])}): "
        + ", ".join(
            f"{m} {value} ({tier}{f'; {credit}' if credit else ''})"
            for m, value, tier, credit in score_parts(r)
        )
        + (f"; wrong: {'; '.join(_cell(w) for w in wrong)}" if wrong else "")
        + (f"; missing: {'; '.join(_cell(m) for m in missing)}" if missing else "")
        + "\n"
    )


def _sample(row: dict) -> str:
    """ ", sample 3" for an answer of a run that asked each query several times."""
    return f", sample {row['sample']}" if (row.get("sample") or 1) > 1 else ""


def _share_of_voice(brands: pl.DataFrame, analyses: pl.DataFrame) -> str:
    """Each tracked brand per provider (the site's row first), then the answers that name a
    competitor and not the site."""
    out = "\n## Share of voice\n\n" + columns_table(brand_rows(brands.to_dicts()), BRAND_COLUMNS)
    out += f"\n{VISIBILITY_NOTE}.\n\n### Competitors named instead of us\n\n"
    instead = named_instead(analyses)
    for r in instead:
        result = json.loads(r["result_json"])
        rivals = ", ".join(_cell(c["name"]) for c in result.get("competitors") or [] if c.get("mentioned"))
        out += f"- **{_cell(r['query_id'])}** ({_cell(r['provider'])}/{_cell(r['model'])}) names {rivals}: {_cell((result.get('response') or '')[:240])}\n"
    return out + ("" if instead else "(no answer names a competitor without the site)\n")


def research_markdown(store: ParquetStore, run_id: str) -> str:
    return "\n---\n".join(
        report_markdown(r) for r in store.read("reports", run_id).sort("question_id").to_dicts()
    )


def collect_markdown(store: ParquetStore, run_id: str) -> str:
    rows = collection_rows(store.read("collections", run_id).to_dicts())
    return "## Collection per provider\n\n" + columns_table(rows, COLLECTION_COLUMNS)


def verdicts_markdown(store: ParquetStore, run_id: str) -> str:
    rows = verdict_rows(store.read("verdict_overrides", run_id).to_dicts())
    target = rows[0]["target_run_id"] if rows else "-"
    return (
        f"## Analyst verdicts on run {target}\n\n"
        + md_table(rows, VERDICT_COLUMNS)
        + f"\nThey stand wherever these answers are scored again: `sleuth reanalyze {target} --ground-truth PAGES` applies them.\n"
    )


def rerank_markdown(store: ParquetStore, run_id: str) -> str:
    rows = store.read("rerankings", run_id).sort(["item_id", "rank"]).to_dicts()
    return "## Results\n\n" + md_table(
        rows,
        [
            ("item_id", "item"),
            ("rank", "rank"),
            ("score", "score"),
            ("kept", "kept"),
            ("title", "title"),
            ("direct_relevance", "relevance"),
            ("depth", "depth"),
            ("plan_alignment", "plan"),
            ("unexpectedness", "unexpected"),
            ("brief_answer", "brief answer"),
        ],
    )


# ----- the figures table (a Prefect table artifact): (frame, columns) per kind of run -----------
RESPONSE_FIGURES = set(
    "domain query_set_id provider model query_count error_count refusal_count accuracy_rank share_of_voice".split()
)


def response_figures(store: ParquetStore, run_id: str, kind: RunKind) -> tuple[pl.DataFrame, list[str]]:
    frame = read_with_trends(store, "provider_summaries" if kind == RunKind.MONITOR else "summaries", run_id)
    keys = [c for c in frame.columns if c in RESPONSE_FIGURES or c.endswith(("_mean", "_delta", "_rate"))]
    return frame, keys


def rows_of(table: str, columns: str):
    """A figures function: the run's rows of ``table``, these (space-separated) columns."""

    def figures(store: ParquetStore, run_id: str) -> tuple[pl.DataFrame, list[str]]:
        return store.read(table, run_id), columns.split()

    return figures


research_figures = rows_of("reports", "question_id question status confidence stop_reason duration_s")
collect_figures = rows_of(
    "collections", "provider model status answered refusals empty errors cost_usd error"
)
rerank_figures = rows_of(
    "rerankings", "item_id rank score kept title direct_relevance depth plan_alignment unexpectedness"
)


def evaluation_figures(store: ParquetStore, run_id: str) -> tuple[pl.DataFrame, list[str]]:
    frame = (
        store.read("evaluations", run_id)
        .group_by(["node", "program", "split"], maintain_order=True)
        .agg(pl.len().alias("examples"), pl.col("score").mean().round(4).alias("mean_score"))
    )
    return frame, frame.columns
