"""Run reports: one self-contained HTML page per run, and the same summary as markdown and a
figures table for the Prefect UI. The run's kind (``runs.flow``) picks its layout from the
registry in :mod:`.layouts`."""

from __future__ import annotations

import os
from pathlib import Path

from ..store import ParquetStore
from ..store.runs import RunKind
from ..tables_io import atomic_write_text
from .columns import (
    BRAND_COLUMNS,
    COLLECTION_COLUMNS,
    DOMAIN_COLUMNS,
    PROVIDER_COLUMNS,
    VISIBILITY_COLUMNS,
    Column,
    brand_rows,
    collection_rows,
    provider_rows,
    terminal_table,
)
from .html import esc, page, section, table
from .layouts import layout_of

#: What a run of a kind this version does not know shows: its rows in each of these tables.
TABLES = (
    "runs",
    "analyses",
    "summaries",
    "provider_summaries",
    "competitor_summaries",
    "citation_domains",
    "responses",
    "collections",
    "reports",
    "steps",
    "sources",
    "memory",
    "feedback",
    "rerankings",
    "evaluations",
)


def _overview(run: dict) -> str:
    keep = [
        "flow",
        "started_at",
        "duration_s",
        "input_path",
        "ground_truth_path",
        "total",
        "succeeded",
        "failed",
        "flagged",
        "fallback",
        "query_set_id",
        "query_set_version",
        "analyzer_version",
        "embedding_model",
    ]
    rows = [{"field": k, "value": run.get(k)} for k in keep if run.get(k) is not None]
    return section("Run", table(rows, [("field", "field"), ("value", "value")], css="kv"), "run")


def render_run_report(run_id: str, data_dir: str | ParquetStore | None = None) -> str:
    """The HTML report of a stored run (raises ValueError for a run id that is not there)."""
    store = ParquetStore.of(data_dir)
    runs = store.read("runs", run_id)
    if runs.is_empty():
        known = store.run_ids()
        hint = f"; runs there: {', '.join(known[-5:])}" if known else ""
        raise ValueError(f"no run {run_id!r} under {store.root}{hint}")
    run = runs.row(0, named=True)
    flow = run["flow"]
    kind = RunKind.of(flow)
    layout = layout_of(store, run_id, kind)
    if layout is not None:
        sections, label = layout.sections(store, run_id, kind), layout.label
    else:
        present = [
            {"table": t, "rows": store.read(t, run_id).height}
            for t in TABLES
            if store.run_exists(run_id, (t,))
        ]
        sections, label = [section("Tables", table(present, [("table", "table"), ("rows", "rows")]))], flow
    started = run["started_at"].strftime("%Y-%m-%d %H:%M UTC") if run.get("started_at") else ""
    return page(
        f"sleuth · {label} · run {run_id}", f"{flow} run started {started}", [_overview(run), *sections]
    )


def write_run_report(
    run_id: str, data_dir: str | ParquetStore | None = None, path: str | os.PathLike | None = None
) -> str:
    """Render and write atomically; default ``<data-dir>/html/<run_id>.html``. Returns the path."""
    html = render_run_report(run_id, data_dir)
    store = ParquetStore.of(data_dir)
    if path is None:
        if not store.local:
            raise ValueError(f"{store.root} is not a local folder: pass --html FILE")
        path = Path(store.root) / "html" / f"{run_id}.html"
    path = Path(path)
    atomic_write_text(path, html)
    return str(path)


def run_markdown(run_id: str, data_dir: str | ParquetStore | None = None) -> str:
    """A markdown summary of any stored run (see :func:`render_run_report` for the HTML)."""
    store = ParquetStore.of(data_dir)
    runs = store.read("runs", run_id)
    if runs.is_empty():
        raise ValueError(f"no run {run_id!r} under {store.root}")
    run = runs.row(0, named=True)
    flow = run["flow"]
    head = (
        f"# Run {run_id} ({flow})\n\n{run.get('total')} items, {run.get('succeeded')} succeeded, "
        f"{run.get('failed')} failed, {run.get('duration_s')} s. HTML: `sleuth report {run_id}`.\n\n"
    )
    kind = RunKind.of(flow)
    layout = layout_of(store, run_id, kind)
    if layout is None or layout.markdown is None:
        return head
    return head + layout.markdown(store, run_id, kind)


def run_table(run_id: str, data_dir: str | ParquetStore | None = None) -> list[dict]:
    """The run's main figures as rows for a Prefect table artifact (JSON-safe values)."""
    store = ParquetStore.of(data_dir)
    kind = RunKind.of(store.read("runs", run_id).row(0, named=True)["flow"])
    layout = layout_of(store, run_id, kind)
    if layout is None or layout.figures is None:
        return []
    frame, keys = layout.figures(store, run_id, kind)
    if frame.is_empty():
        return []
    return [
        {
            k: (
                round(v, 3)
                if isinstance(v, float)
                else v
                if isinstance(v, (int, str, bool)) or v is None
                else str(v)
            )
            for k, v in row.items()
        }
        for row in frame.select([k for k in keys if k in frame.columns]).to_dicts()
    ]


__all__ = [
    "BRAND_COLUMNS",
    "COLLECTION_COLUMNS",
    "DOMAIN_COLUMNS",
    "PROVIDER_COLUMNS",
    "VISIBILITY_COLUMNS",
    "Column",
    "brand_rows",
    "collection_rows",
    "esc",
    "provider_rows",
    "render_run_report",
    "run_markdown",
    "run_table",
    "terminal_table",
    "write_run_report",
]
