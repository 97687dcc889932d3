"""report and runs: what the data dir holds."""

from __future__ import annotations

import argparse
import json
import re
from datetime import UTC, datetime, timedelta

from ..progress import duration
from .options import add_data_dir, add_json, command
from .output import print_paths, print_result, print_table


def cmd_runs(args: argparse.Namespace) -> int:
    """list stored runs, or show one

    List the runs recorded under the data dir (oldest first), and those still running or
    interrupted; `sleuth runs show RUN_ID` prints one run's summary and the paths of its tables.
    """
    from modules.store import Checkpoint, ParquetStore, is_committed

    store = ParquetStore(args.data_dir)
    if args.action == "show":
        return _show_run(store, args.run_id)
    if args.run_id is not None:
        raise ValueError(f"unknown runs action {args.run_id!r}: `sleuth runs show RUN_ID` shows one run")
    if args.gc:
        removed = store.gc()
        print(
            "\n".join(f"removed {p}" for p in removed)
            or f"nothing left behind by crashed runs under {store.root}"
        )
        return 0
    rows = run_rows(store.read("runs"), args.kind, args.since)
    interrupted = [rid for rid in Checkpoint.run_ids(store) if not is_committed(store, rid)]
    if args.json:
        print(json.dumps(rows, default=str, indent=2))
        return 0
    if not rows and not interrupted:
        print(f"no runs under {store.root}" + (" that match" if args.kind or args.since else ""))
        return 0
    if rows:
        header = ["run id", "kind", "started (UTC)", "duration", "status", "scope", "parent"]
        print_table(
            header + ["total", "ok", "failed", "flagged"],
            [
                [
                    r["run_id"],
                    r["kind"],
                    _minute(r["started_at"]),
                    "-" if r["duration_s"] is None else duration(r["duration_s"]),
                    r["status"],
                ]
                + [r["scope"], r["parent"], r["total"], r["succeeded"], r["failed"], r["flagged"]]
                for r in rows
            ],
            left=len(header),
        )
    for rid in interrupted:
        checkpoint = store.checkpoint(rid)
        manifest = checkpoint.manifest() or {}
        print(
            f"{rid}: {manifest.get('flow', '?')} running or interrupted, {len(checkpoint.items())} answers saved; "
            f"if its process is gone, `sleuth {manifest.get('flow', 'collect')} --resume {rid}` asks the rest"
        )
    return 0


def run_rows(runs, kind: str | None = None, since: datetime | None = None) -> list[dict]:
    """The ``runs`` rows, oldest first, as the table and ``--json`` show them: the stored columns
    (``flow`` also as ``kind``), plus ``status``, ``scope`` (the query set, else the domains
    of the ground truth) and ``parent`` (the run it resumed or re-analysed)."""
    import polars as pl

    from modules.store import parent_run

    if runs.is_empty():
        return []
    runs = runs.sort("started_at")
    if kind:
        runs = runs.filter(pl.col("flow") == kind)
    if since:
        runs = runs.filter(pl.col("started_at") >= since)
    rows = []
    for r in runs.to_dicts():
        stopped = r.get("stopped")
        status = "stopped" if stopped else "errors" if r.get("failed") else "ok"
        domains = sorted(json.loads(r.get("ground_truth_versions") or "{}"))
        scope = r.get("query_set_id") or (", ".join(domains[:2]) + (" +" if len(domains) > 2 else "") or None)
        parent = parent_run(r["flow"], r.get("input_path"), r.get("resumed_from"))
        rows.append(
            {"run_id": r["run_id"], "kind": r["flow"], "status": status, "scope": scope, "parent": parent} | r
        )
    return rows


def _show_run(store, run_id: str | None) -> int:
    """The run's summary (the figures of its report) and the paths of its tables."""
    from modules.reports import run_markdown

    if run_id is None:
        raise ValueError("sleuth runs show needs a RUN_ID (see `sleuth runs`)")
    print(run_markdown(run_id, store.root).rstrip())
    print("\nTables:")
    print_paths({t: store.partition(t, run_id) for t in store.tables() if store.run_exists(run_id, (t,))})
    return 0


def _minute(t: datetime | None) -> str:
    return "-" if t is None else t.strftime("%Y-%m-%d %H:%M")


def since_time(text: str) -> datetime:
    """``--since``: a UTC date or time (``2026-11-16``, ``2026-11-16T08:00``) or an age
    (``7d``, ``12h``, ``30m``)."""
    age = re.fullmatch(r"(\d+)([dhm])", text.strip())
    if age:
        unit = {"d": "days", "h": "hours", "m": "minutes"}[age.group(2)]
        return datetime.now(UTC) - timedelta(**{unit: int(age.group(1))})
    try:
        t = datetime.fromisoformat(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is neither a date (2026-11-16, 2026-11-16T08:00) nor an age (7d, 12h, 30m)"
        ) from None
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def cmd_report(args: argparse.Namespace) -> int:
    """a self-contained HTML report of any run (plots, highlights, tables)

    Response analysis: per-domain distributions by tier, histograms, trends, providers, the weakest
    answers with their highlights, flagged rows. Research: the answer with numbered citations, the
    journey and its confidence curve, sources, conflicts. Reranking: highlighted results with score
    breakdowns.
    """
    from modules.reports import write_run_report

    path = write_run_report(args.run_id, args.data_dir, args.html)
    print(f"report of run {args.run_id}: {path}")
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    """what changed per answer between two runs: verdicts, wrong facts, named, cited

    Answers are matched by domain, query, provider and model (the first of each run). Prints each
    answer whose claim verdicts, wrong facts, or naming or citing of the site changed, with the
    claim and the evidence; the summaries' deltas say that a rate moved, this says which answers
    moved it.
    """
    from modules.response import diff_runs
    from modules.store import ParquetStore

    store = ParquetStore(args.data_dir)
    tables = []
    for run_id in (args.run_a, args.run_b):
        analyses = store.read("analyses", run_id)
        if analyses.is_empty():
            raise ValueError(f"run {run_id!r} has no analyses under {store.root}")
        tables.append(analyses)
    result = diff_runs(*tables)
    print_result(result, args.json, lambda r: _print_diff(r, args.run_a, args.run_b))
    return 0


def _print_diff(result: dict, run_a: str, run_b: str) -> None:
    print(
        f"{run_a} -> {run_b}: {result['matched']} answers in both, {len(result['changed'])} changed, "
        f"{len(result['only_before'])} only in {run_a}, {len(result['only_after'])} only in {run_b}"
    )
    yes = {True: "yes", False: "no"}
    for answer in result["changed"]:
        sample = f", sample {answer['sample']}" if answer["sample"] > 1 else ""
        print(
            f"\n{answer['query_id']} ({answer['provider'] or '-'}/{answer['model'] or '-'}, {answer['domain']}{sample})"
        )
        for c in answer["changes"]:
            if c["what"] == "verdict":
                evidence = f' (evidence: "{c["evidence"]}")' if c.get("evidence") else ""
                print(f'  claim "{c["claim"]}": {c["before"] or "-"} -> {c["after"] or "-"}{evidence}')
            elif c["what"] == "wrong fact":
                print(f'  wrong fact {c["change"]}: "{c["statement"]}" ({c["evidence"]})')
            else:
                print(f"  {c['what']}: {yes[c['before']]} -> {yes[c['after']]}")


def register(sub) -> None:
    from modules.store import RunKind

    p = command(sub, "report", cmd_report)
    p.add_argument("run_id", metavar="RUN_ID")
    p.add_argument("--html", metavar="FILE", help="where to write it (default <data-dir>/html/<RUN_ID>.html)")
    add_data_dir(p)

    p = command(sub, "diff", cmd_diff)
    p.add_argument("run_a", metavar="RUN_A", help="the earlier run")
    p.add_argument("run_b", metavar="RUN_B", help="the later run")
    add_json(p, "print the changes as JSON")
    add_data_dir(p)

    p = command(sub, "runs", cmd_runs)
    p.add_argument("action", nargs="?", choices=["show"], help="show: one run's summary and table paths")
    p.add_argument("run_id", nargs="?", metavar="RUN_ID", help="the run to show")
    p.add_argument("--kind", choices=[str(k) for k in RunKind], help="only runs of this kind")
    p.add_argument(
        "--since",
        type=since_time,
        metavar="WHEN",
        help="only runs started since a UTC date or time (2026-11-16, 2026-11-16T08:00) or an age (7d, 12h)",
    )
    add_json(p, "print the runs as JSON: every stored column, plus kind, status, scope and parent")
    add_data_dir(p)
    p.add_argument(
        "--gc",
        action="store_true",
        help="remove what runs that crashed mid-write left behind "
        "(staging folders, temporary files, commit locks) and list it",
    )
