"""Run reports: one self-contained HTML page per run, and the same summary as markdown for the
Prefect UI. The run's ``flow`` (in ``runs``) decides which sections it gets."""

from __future__ import annotations

import os
from pathlib import Path

from ..store import ParquetStore
from .html import esc, page, section, table
from .rerank import rerank_sections
from .research import research_sections
from .response import collect_sections, response_sections

RESPONSE_FLOWS = {"analyze", "reanalyze", "monitor"}
RESEARCH_FLOWS = {"research", "research-batch", "feedback"}
TABLES = ("runs", "analyses", "summaries", "provider_summaries", "responses", "collections", "reports", "steps",
          "sources", "memory", "feedback", "rerankings", "evaluations")


def _overview(run: dict) -> str:
    keep = ["flow", "started_at", "duration_s", "input_path", "ground_truth_path", "total", "succeeded", "failed",
            "flagged", "fallback", "query_set_id", "query_set_version", "analyzer_version", "embedding_model"]
    rows = [{"field": k, "value": run.get(k)} for k in keep if run.get(k) is not None]
    return section("Run", table(rows, [("field", "field"), ("value", "value")], css="kv"), "run")


def evaluation_section(store: ParquetStore, run_id: str) -> str:
    """Mean metric per node, program and split (``sleuth eval`` / ``sleuth optimize`` runs)."""
    import polars as pl

    rows = (store.read("evaluations", run_id)
            .group_by(["node", "program", "program_version", "split"], maintain_order=True)
            .agg(pl.len().alias("examples"), pl.col("score").mean().alias("mean_score"),
                 pl.col("error").is_not_null().sum().alias("errors")).to_dicts())
    for r in rows:
        r["mean_score"] = None if r["mean_score"] is None else f"{r['mean_score']:.3f}"
    return section("Scores", table(rows, [("node", "node"), ("program", "program"), ("program_version", "version"),
                                          ("split", "split"), ("examples", "examples"), ("mean_score", "mean score"),
                                          ("errors", "errors")]), "scores")


def render_run_report(run_id: str, data_dir: str | None = None) -> str:
    """The HTML report of a stored run (raises ValueError for a run id that is not there)."""
    store = ParquetStore(data_dir)
    runs = store.read("runs", run_id)
    if runs.is_empty():
        known = store.run_ids()
        hint = f"; runs there: {', '.join(known[-5:])}" if known else ""
        raise ValueError(f"no run {run_id!r} under {store.root}{hint}")
    run = runs.row(0, named=True)
    flow = run["flow"]
    if flow in RESPONSE_FLOWS:
        sections, kind = response_sections(store, run_id, flow), "response analysis"
    elif flow in RESEARCH_FLOWS:
        sections, kind = research_sections(store, run_id), "research"
    elif flow == "rerank-batch":
        sections, kind = rerank_sections(store, run_id), "reranking"
    elif flow == "collect":
        sections, kind = collect_sections(store, run_id), "answer collection"
    elif flow in ("optimize", "evaluate"):
        sections, kind = [evaluation_section(store, run_id)], "program evaluation"
    else:
        present = [{"table": t, "rows": store.read(t, run_id).height} for t in TABLES if store.run_exists(run_id, (t,))]
        sections, kind = [section("Tables", table(present, [("table", "table"), ("rows", "rows")]))], flow
    started = run["started_at"].strftime("%Y-%m-%d %H:%M UTC") if run.get("started_at") else ""
    return page(f"sleuth · {kind} · run {run_id}", f"{flow} run started {started}", [_overview(run), *sections])


def write_run_report(run_id: str, data_dir: str | None = None, path: str | os.PathLike | None = None) -> str:
    """Render and write atomically; default ``<data-dir>/html/<run_id>.html``. Returns the path."""
    html = render_run_report(run_id, data_dir)
    store = ParquetStore(data_dir)
    if path is None:
        if not store.local:
            raise ValueError(f"{store.root} is not a local folder: pass --html FILE")
        path = Path(store.root) / "html" / f"{run_id}.html"
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(html, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return str(path)


__all__ = ["esc", "render_run_report", "write_run_report"]
