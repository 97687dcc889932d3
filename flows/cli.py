"""The ``sleuth`` command. Each subcommand parses options and calls a flow; nothing else."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any



def _parse_value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def _config(args: argparse.Namespace):
    from modules.response import AnalyzerConfig

    overrides: dict[str, Any] = {}
    for item in args.set or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"sleuth: --set expects KEY=VALUE, got {item!r}")
        overrides[key.strip()] = _parse_value(value.strip())
    named = {
        "accuracy.chunking_strategy": args.chunking, "accuracy.aggregation": args.aggregation,
        "accuracy.method": args.accuracy_method,
        "completeness.similarity_threshold": args.claim_threshold,
        "completeness.require_all_required": args.require_all_required or None,
        "providers.embedding": args.embedding, "providers.embedding_model": args.embedding_model,
        "batch.concurrency": args.concurrency, "batch.batch_size": args.batch_size,
        "batch.continue_on_error": False if args.stop_on_error else None,
    }
    overrides.update({k: v for k, v in named.items() if v is not None})
    return AnalyzerConfig.load(args.config, overrides)


def _add_analysis_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ground-truth", required=True, metavar="PAGES",
                   help="ground-truth pages: JSONL/Parquet of {url, text, title?, domain?} or a folder <domain>/**/*.{html,md,txt}")
    p.add_argument("--run-id", help="id of the new run (default: UTC timestamp + random suffix)")
    p.add_argument("--data-dir", help="where tables go (default $SLEUTH_DATA_DIR or datasets/runs; s3://... works)")
    p.add_argument("--config", metavar="FILE", help="AnalyzerConfig as TOML (see README)")
    p.add_argument("--set", action="append", metavar="SECTION.FIELD=VALUE", help="override any config field; repeatable")
    p.add_argument("--concurrency", type=int, help="parallel batch tasks (default 5)")
    p.add_argument("--batch-size", type=int, help="max responses per task (default 500)")
    p.add_argument("--task-runner", default="thread", metavar="thread|dask|dask://HOST:PORT",
                   help="where tasks run (default thread)")
    p.add_argument("--chunking", choices=["none", "sentences", "paragraphs"], help="accuracy chunking strategy")
    p.add_argument("--aggregation", choices=["max", "mean"], help="how chunk similarities combine")
    p.add_argument("--accuracy-method", choices=["calibrated", "cosine"], help="accuracy score (default calibrated)")
    p.add_argument("--claim-threshold", type=float, help="similarity for a claim to count as found (default 0.75)")
    p.add_argument("--require-all-required", action="store_true", help="completeness is 0 if any required claim is missing")
    p.add_argument("--embedding", choices=["local", "openai"], help="embedding provider (default local MiniLM)")
    p.add_argument("--embedding-model", help="model path/name for the provider")
    p.add_argument("--stop-on-error", action="store_true", help="fail on the first malformed record (continue_on_error=false)")
    p.add_argument("--json", action="store_true", help="print the run summary as JSON")


def _fmt(v: Any) -> str:
    return "-" if v is None else (f"{v:.1f}" if isinstance(v, float) else str(v))


def print_summary(result: dict[str, Any]) -> None:
    print(f"\nrun {result['run_id']}: {result['total']} responses, {result['succeeded']} analysed "
          f"({result['flagged']} flagged), {result['failed']} errors, {result['fallback']} keyword fallbacks\n")
    header = ["domain", "query set", "n", "accuracy", "complete", "attrib", "Δacc", "Δcomp", "Δattr", "errors"]
    rows = [[s["domain"], s["query_set_id"] or "-", s["query_count"], s["accuracy_mean"], s["completeness_mean"],
             s["attribution_mean"], s["accuracy_delta"], s["completeness_delta"], s["attribution_delta"],
             s["error_count"]] for s in result["summaries"]]
    cells = [header] + [[_fmt(v) for v in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    for i, r in enumerate(cells):
        print("  ".join(c.ljust(w) if j < 2 else c.rjust(w) for j, (c, w) in enumerate(zip(r, widths))))
        if i == 0:
            print("  ".join("-" * w for w in widths))
    print("\nmean scores 0-100; Δ = change against the previous run of the same domain and query set")
    print("\nParquet written to:")
    for table, path in result["paths"].items():
        print(f"  {table:10s} {path}")


def _run_flow(args: argparse.Namespace, flow, *flow_args) -> int:
    """Run an analysis flow with the chosen task runner and print its summary."""
    from flows.analyze import task_runner_for
    from flows.runtime import local_run_settings

    config = _config(args)
    flow = flow.with_options(task_runner=task_runner_for(args.task_runner, config.batch.concurrency))
    with local_run_settings():
        result = flow(*flow_args, args.ground_truth, run_id=args.run_id, data_dir=args.data_dir, config=config)
    print(json.dumps(result, default=str, indent=2)) if args.json else print_summary(result)
    return 0


def cmd_analyze(args: argparse.Namespace) -> int:
    from flows.analyze import analyze_responses

    return _run_flow(args, analyze_responses, args.input)


def cmd_reanalyze(args: argparse.Namespace) -> int:
    from flows.analyze import reanalyze_run

    return _run_flow(args, reanalyze_run, args.previous_run_id)


def cmd_runs(args: argparse.Namespace) -> int:
    from modules.store import ParquetStore

    store = ParquetStore(args.data_dir)
    runs = store.read("runs")
    if runs.is_empty():
        print(f"no runs under {store.root}")
        return 0
    cols = ["run_id", "flow", "started_at", "total", "succeeded", "failed", "flagged", "duration_s"]
    print(runs.sort("started_at").select(cols))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sleuth", description="Evidence-based research and AI-answer auditing.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("analyze", help="audit AI responses against ground-truth pages (Prefect flow)",
                       description="Score each AI response for accuracy, completeness and attribution; write "
                                   "analyses, summaries and runs tables under the run id.")
    p.add_argument("input", metavar="INPUT", help="JSONL or Parquet of responses (query_id, domain, response, ...)")
    _add_analysis_options(p)
    p.set_defaults(func=cmd_analyze)

    p = sub.add_parser("reanalyze", help="re-score a stored run against new ground truth, as a new run",
                       description="Read a run's stored results and analyse the same responses again.")
    p.add_argument("previous_run_id", metavar="RUN_ID", help="the run whose responses to re-score")
    _add_analysis_options(p)
    p.set_defaults(func=cmd_reanalyze)

    p = sub.add_parser("runs", help="list stored runs", description="List the runs recorded under the data dir.")
    p.add_argument("--data-dir", help="data dir (default $SLEUTH_DATA_DIR or datasets/runs)")
    p.set_defaults(func=cmd_runs)
    return parser


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, FileNotFoundError, FileExistsError) as exc:
        print(f"sleuth: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
