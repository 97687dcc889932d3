"""report and runs: what the data dir holds."""

from __future__ import annotations

import argparse

from .options import add_data_dir


def cmd_runs(args: argparse.Namespace) -> int:
    from modules.store import Checkpoint, ParquetStore
    from modules.store.runs import is_committed

    store = ParquetStore(args.data_dir)
    if args.gc:
        removed = store.gc()
        print(
            "\n".join(f"removed {p}" for p in removed)
            or f"nothing left behind by crashed runs under {store.root}"
        )
        return 0
    runs = store.read("runs")
    interrupted = [rid for rid in Checkpoint.run_ids(store) if not is_committed(store, rid)]
    if runs.is_empty() and not interrupted:
        print(f"no runs under {store.root}")
        return 0
    if not runs.is_empty():
        cols = ["run_id", "flow", "started_at", "total", "succeeded", "failed", "flagged", "duration_s"]
        print(runs.sort("started_at").select(cols))
    for rid in interrupted:
        checkpoint = store.checkpoint(rid)
        manifest = checkpoint.manifest() or {}
        print(
            f"{rid}: {manifest.get('flow', '?')} running or interrupted, {len(checkpoint.items())} answers saved; "
            f"if its process is gone, `sleuth {manifest.get('flow', 'collect')} --resume {rid}` asks the rest"
        )
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from modules.reports import write_run_report

    path = write_run_report(args.run_id, args.data_dir, args.html)
    print(f"report of run {args.run_id}: {path}")
    return 0


def register(sub) -> None:
    p = sub.add_parser(
        "report",
        help="a self-contained HTML report of any run (plots, highlights, tables)",
        description="Response analysis: per-domain distributions by tier, histograms, trends, providers, "
        "the weakest answers with their highlights, flagged rows. Research: the answer with "
        "numbered citations, the journey and its confidence curve, sources, conflicts. "
        "Reranking: highlighted results with score breakdowns.",
    )
    p.add_argument("run_id", metavar="RUN_ID")
    p.add_argument("--html", metavar="FILE", help="where to write it (default <data-dir>/html/<RUN_ID>.html)")
    add_data_dir(p)
    p.set_defaults(func=cmd_report)

    p = sub.add_parser(
        "runs", help="list stored runs", description="List the runs recorded under the data dir."
    )
    add_data_dir(p)
    p.add_argument(
        "--gc",
        action="store_true",
        help="remove what runs that crashed mid-write left behind "
        "(staging folders, temporary files, commit locks) and list it",
    )
    p.set_defaults(func=cmd_runs)
