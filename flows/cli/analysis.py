"""analyze, reanalyze, collect and monitor: the audit of AI answers against a site's pages."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .options import (
    add_data_dir,
    add_json,
    add_lm,
    add_run_id,
    add_run_outputs,
    add_task_runner,
    command,
    count,
)
from .output import print_paths, print_result, print_table


def _parse_value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def config_from(args: argparse.Namespace):
    """The ``AnalyzerConfig`` of --config, --set and the named options."""
    from modules.response import AnalyzerConfig

    overrides: dict[str, Any] = {}
    for item in args.set or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"sleuth: --set expects KEY=VALUE, got {item!r}")
        overrides[key.strip()] = _parse_value(value.strip())
    named = {
        "accuracy.chunking_strategy": args.chunking,
        "accuracy.aggregation": args.aggregation,
        "accuracy.method": args.accuracy_method,
        "completeness.similarity_threshold": args.claim_threshold,
        "completeness.require_all_required": args.require_all_required or None,
        "providers.embedding": args.embedding,
        "providers.embedding_model": args.embedding_model,
        "batch.concurrency": args.concurrency,
        "batch.batch_size": args.batch_size,
        "batch.continue_on_error": False if args.stop_on_error else None,
    }
    overrides.update({k: v for k, v in named.items() if v is not None})
    return AnalyzerConfig.load(args.config, overrides)


def _judge_options(args: argparse.Namespace):
    """``--lm`` (or $SLEUTH_LM) on analyze, reanalyze and monitor: the LM judge; None without one."""
    from flows.analyze import JudgeOptions
    from modules.lm import LMSettings

    settings = LMSettings.from_env(args.lm, args.lm_base_url, args.lm_context)
    if not settings.model:
        return None
    options = JudgeOptions(lm=settings, programs=args.programs)
    options.resolve()  # an unusable --programs / program file fails before any work
    return options


def add_analysis_options(p: argparse.ArgumentParser, ground_truth_required: bool = True) -> None:
    p.add_argument(
        "--ground-truth",
        required=ground_truth_required,
        metavar="PAGES",
        help="ground-truth pages: JSONL/Parquet of {url, text, title?, domain?} or a folder <domain>/**/*.{html,md,txt}"
        + ("" if ground_truth_required else "; with --resume, the resumed run's by default"),
    )
    add_run_id(p)
    add_data_dir(p)
    p.add_argument("--config", metavar="FILE", help="AnalyzerConfig as TOML (see README)")
    p.add_argument(
        "--fail-if",
        action="append",
        metavar="MEASURE<VALUE",
        help="exit 1, naming what failed, when any domain's measure crosses it: a mean score "
        "(accuracy, completeness, attribution; 0-100) or a rate (wrong_fact_rate, mention_rate, "
        "citation_rate, first_position_rate, share_of_voice; 0-1), with <, <=, > or >=; e.g. "
        "--fail-if 'wrong_fact_rate>0.1' --fail-if 'accuracy<70' (quoted: < and > are the shell's); repeatable",
    )
    p.add_argument(
        "--set", action="append", metavar="SECTION.FIELD=VALUE", help="override any config field; repeatable"
    )
    p.add_argument("--concurrency", type=int, help="parallel batch tasks (default 5)")
    p.add_argument("--batch-size", type=int, help="max responses per task (default 500)")
    add_task_runner(p)
    p.add_argument(
        "--chunking", choices=["none", "sentences", "paragraphs"], help="accuracy chunking strategy"
    )
    p.add_argument("--aggregation", choices=["max", "mean"], help="how chunk similarities combine")
    p.add_argument(
        "--accuracy-method", choices=["calibrated", "cosine"], help="accuracy score (default calibrated)"
    )
    p.add_argument(
        "--claim-threshold",
        type=float,
        help="sentence similarity at which a claim whose wording is half there counts as found (default 0.75)",
    )
    p.add_argument(
        "--require-all-required",
        action="store_true",
        help="completeness is 0 if any required claim is missing",
    )
    p.add_argument(
        "--embedding", choices=["local", "openai"], help="embedding provider (default local MiniLM)"
    )
    p.add_argument("--embedding-model", help="model path/name for the provider")
    p.add_argument(
        "--stop-on-error",
        action="store_true",
        help="fail on the first malformed record (continue_on_error=false)",
    )
    add_lm(
        p,
        "compiled programs (default modules/compiled): the newest judge program runs with an LM",
        context=True,
    )
    add_json(p)


def print_columns(rows: list[dict], columns, left: int) -> None:
    """Rows under the columns the reports define once (``modules.reports.columns``), as the
    terminal shows them: its short labels, its subset of the columns."""
    from modules.reports import terminal_table

    header, cells = terminal_table(rows, columns)
    print_table(header, cells, left=left)


def print_summary(result) -> None:
    """The table of an ``AnalysisRun`` or a ``MonitorRun``."""
    overridden = sum(s.get("overridden_count") or 0 for s in result.summaries)
    disagreed = sum(s.get("judge_disagreement_count") or 0 for s in result.summaries)
    print(
        f"\nrun {result.run_id}: {result.total} responses, {result.succeeded} analysed "
        f"({result.flagged} flagged), {result.failed} errors, {result.fallback} fallbacks (keyword matching or "
        f"the offline judge)"
        + (f", {overridden} rescored with an analyst's verdicts" if overridden else "")
        + (
            f", {disagreed} where the LM judge and the offline checks disagree (flag judge_disagreement)"
            if disagreed
            else ""
        )
        + "\n"
    )
    from modules.reports import DOMAIN_COLUMNS, VISIBILITY_COLUMNS

    print_columns(result.summaries, DOMAIN_COLUMNS, left=2)
    print(
        "\nmean scores 0-100; wrong facts = share of answers stating something the claims or the pages "
        "contradict;\n(a-b) = 95% interval; Δ = change against the previous comparable run (same domain, "
        "query set and analyzer\nconfiguration; reanalyze: the run it re-scores); n.s. = within the noise "
        "of the two runs (not significant at 95%)"
    )
    print("\nvisibility beside tracked competitors (shares of answers; Δ in percentage points):\n")
    print_columns(result.summaries, [*DOMAIN_COLUMNS[:2], *VISIBILITY_COLUMNS], left=2)
    print("\nParquet written to:")
    print_paths(result.paths)


def _preload_model(config, task_runner: str) -> None:
    """The embedding model loads while the Prefect server starts or answers (threads of this
    process only: Dask workers load their own)."""
    from modules.embeddings import preload

    if task_runner == "thread":
        preload(config.providers.embedding, config.providers.embedding_model)


def _run_flow(args: argparse.Namespace, flow_name: str, *flow_args) -> int:
    """Run an analysis flow (``flows.analyze.<flow_name>``) with the chosen task runner and print
    its summary. The model starts loading before Prefect and the flow are imported."""
    config, thresholds = config_from(args), _thresholds(args)
    _preload_model(config, args.task_runner)
    import flows.analyze
    from flows.runtime import local_run_settings, task_runner_for

    judge = _judge_options(args)
    flow = getattr(flows.analyze, flow_name).with_options(
        task_runner=task_runner_for(args.task_runner, config.batch.concurrency)
    )
    with local_run_settings():
        result = flow(
            *flow_args,
            args.ground_truth,
            run_id=args.run_id,
            data_dir=args.data_dir,
            config=config,
            judge=judge,
        )
    print_result(result, args.json, print_summary)
    return _judged(thresholds, result, 0)


def _thresholds(args: argparse.Namespace) -> list:
    """The ``--fail-if`` thresholds, checked before any work (a bad one is the one error line)."""
    from modules.response import Threshold

    return [Threshold.parse(text) for text in args.fail_if or []]


def _judged(thresholds: list, result, status: int) -> int:
    """``status``, or 1 with one line naming every breach when the run crosses a threshold."""
    from modules.response import failed_thresholds

    failure = failed_thresholds(thresholds, result.summaries) if status == 0 else None
    if failure:
        print(f"sleuth: {failure}", file=sys.stderr)
        return 1
    return status


def cmd_analyze(args: argparse.Namespace) -> int:
    """audit AI responses against ground-truth pages (Prefect flow)

    Score each AI response for accuracy, completeness and attribution; write analyses, summaries
    and runs tables under the run id.
    """
    from modules.tables_io import input_path

    input_path(args.input, "input")  # before the flow (a file, or a folder of Parquet): a typo
    input_path(args.ground_truth, "ground truth")  # leaves nothing in the data dir
    return _run_flow(args, "analyze_responses", args.input)


def cmd_reanalyze(args: argparse.Namespace) -> int:
    """re-score a stored run against new ground truth, as a new run

    Read a run's stored results and analyse the same responses again.
    """
    return _run_flow(args, "reanalyze_run", args.previous_run_id)


def _provider_defaults(args: argparse.Namespace) -> dict[str, Any]:
    given = {
        "concurrency": args.provider_concurrency,
        "rpm": args.rpm,
        "timeout_s": args.timeout,
        "retries": args.retries,
        "temperature": args.temperature,
        "max_tokens": args.max_tokens,
        "system_prompt": args.system_prompt,
    }
    return {k: v for k, v in given.items() if v is not None}


def add_provider_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "query_set",
        metavar="QUERY_SET",
        nargs="?",
        help="query set (JSONL or Parquet; see `sleuth queries`); with --resume, the resumed run's by default",
    )
    p.add_argument(
        "--provider",
        action="append",
        metavar="MODEL[,key=value...]",
        help="an AI assistant as a LiteLLM model string (openai/gpt-4o-mini, anthropic/..., ollama_chat/...); "
        "keys: base_url, label, api_key_env, temperature, max_tokens, concurrency, rpm, timeout, retries, "
        "web_search (true: ask Anthropic / Gemini to search and cite sources); repeatable",
    )
    p.add_argument(
        "--provider-concurrency", type=int, metavar="N", help="calls in flight per provider (default 4)"
    )
    p.add_argument(
        "--rpm",
        type=float,
        help="requests per minute per provider (default: no limit but the provider's 429s)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        metavar="S",
        help="deadline of each call, connect and whole answer (default 60)",
    )
    p.add_argument(
        "--retries", type=int, help="retries of a transient failure: 429, timeout, 5xx (default 3)"
    )
    p.add_argument("--temperature", type=float, help="sampling temperature (default: the provider's own)")
    p.add_argument("--max-tokens", type=int, help="answer length limit (default 1024)")
    p.add_argument(
        "--system-prompt", help="a system message (default none: the query alone, as a user asks it)"
    )
    p.add_argument(
        "--allow-drafts", action="store_true", help="use unreviewed draft queries (recorded in the run)"
    )
    p.add_argument(
        "--max-seconds",
        type=float,
        metavar="S",
        help="stop asking after S seconds, as on SIGTERM: what was collected is written, the rest recorded "
        "as cancelled (default: no limit)",
    )
    p.add_argument(
        "--samples",
        type=count,
        metavar="N",
        help="ask each query N times of each provider (default 1): answers vary from call to call, and "
        "the summaries' intervals count queries, not calls; N times the calls and the cost",
    )
    p.add_argument(
        "--resume",
        metavar="RUN_ID",
        help="a new run that keeps RUN_ID's answers and asks only the missing ones (errors, cancelled calls, "
        "or everything after a kill): same query set and providers, unless given again",
    )


def _print_collections(collections: list[dict]) -> None:
    from modules.reports import COLLECTION_COLUMNS, collection_rows

    print_columns(collection_rows(collections), COLLECTION_COLUMNS, left=3)
    for c in collections:
        if c["status"] != "ok":
            print(
                f"! {c['provider']}/{c['model']} {c['status']}: {c['error']} (error types {c['error_types']})"
            )


def _collection_run(args: argparse.Namespace, run) -> tuple[Any, int]:
    """The flow's result and the exit status: 0 when it ran to the end; 1 when no provider
    answered anything or the run's deadline stopped it, 128 + N when signal N did (the flow run
    ended Failed, its tables written)."""
    from flows.runtime import IncompleteRun, local_run_settings

    if not args.resume and not (args.query_set and args.provider):
        raise ValueError(f"{args.command} needs QUERY_SET and at least one --provider (or --resume RUN_ID)")
    from modules.tables_io import input_file, input_path

    if args.query_set:  # before the flow: a typo leaves nothing in the data dir
        input_file(args.query_set, "query set")
    if getattr(args, "ground_truth", None):
        input_path(args.ground_truth, "ground truth")
    try:
        with local_run_settings():
            return run(), 0
    except IncompleteRun as exc:
        print(f"sleuth: {exc}", file=sys.stderr)
        return exc.result, exc.exit_status


def cmd_collect(args: argparse.Namespace) -> int:
    """ask each query of a query set of one or more AI providers (Prefect flow)

    Writes responses (the analyze input format, plus how each answer was collected), collections
    (one row per provider) and runs under the run id.
    """
    from flows.monitor import collect

    result, status = _collection_run(
        args,
        lambda: collect(
            args.query_set,
            args.provider,
            run_id=args.run_id,
            data_dir=args.data_dir,
            defaults=_provider_defaults(args),
            allow_drafts=args.allow_drafts,
            resume=args.resume,
            max_seconds=args.max_seconds,
            samples=args.samples,
        ),
    )
    print_result(result, args.json, _print_collection_run)
    return status


def _print_collection_run(result) -> None:
    """A ``CollectionRun``, or a ``MonitorRun`` stopped before its analysis."""
    resumed = f", resuming run {result.resumed_from}" if result.resumed_from else ""
    refusals = sum(c["refusals"] or 0 for c in result.collections)
    empty = sum(c["empty"] or 0 for c in result.collections)
    print(
        f"\nrun {result.run_id}: query set {result.query_set_id}{resumed}, {result.total} calls: "
        f"{result.total - result.failed - refusals - empty} answered, {refusals} refused, {empty} empty, "
        f"{result.failed} without an answer (errors)"
    )
    print(_collection_cost(result.collections) + "\n")
    _print_collections(result.collections)
    print("\nParquet written to:")
    print_paths(result.paths)


def cmd_monitor(args: argparse.Namespace) -> int:
    """collect, analyze and summarise a query set with trends (Prefect flow)

    The weekly audit: collect the providers' answers, analyse them in the same run, and summarise
    per domain and per provider against the previous monitor run.
    """
    from flows.monitor import monitor
    from flows.runtime import task_runner_for

    config, thresholds = config_from(args), _thresholds(args)
    judge = _judge_options(args)
    flow = monitor.with_options(task_runner=task_runner_for(args.task_runner, config.batch.concurrency))
    result, status = _collection_run(
        args,
        lambda: flow(
            args.query_set,
            args.ground_truth,
            args.provider,
            run_id=args.run_id,
            data_dir=args.data_dir,
            config=config,
            defaults=_provider_defaults(args),
            allow_drafts=args.allow_drafts,
            resume=args.resume,
            max_seconds=args.max_seconds,
            judge=judge,
            samples=args.samples,
        ),
    )
    print_result(result, args.json, _print_monitor_run)
    return _judged(thresholds, result, status)


def _collection_cost(collections: list[dict]) -> str:
    """What asking cost: the calls (queries x samples x providers), the wall time of the
    collection and the priced calls' cost."""
    from modules.reports import COLLECTION_COLUMNS

    if not collections:
        return "no provider asked"
    samples = collections[0].get("samples") or 1
    calls = sum(c["queries"] or 0 for c in collections)
    queries = calls // (samples * len(collections))
    shape = f"{queries} queries x {samples} sample{'s' * (samples != 1)} x {len(collections)} provider{'s' * (len(collections) != 1)}"
    wall = max(c["completed_at"] for c in collections) - min(c["started_at"] for c in collections)
    costs = [c["cost_usd"] for c in collections if c.get("cost_usd") is not None]
    cost_column = next(col for col in COLLECTION_COLUMNS if col.key == "cost_usd")
    cost = "$" + cost_column.text(sum(costs)) if costs else "unknown (no provider priced its calls)"
    return f"asked {calls} calls ({shape}) in {wall.total_seconds():.1f} s; cost {cost}"


def _print_monitor_run(result) -> None:
    """A ``MonitorRun``: the analysis summary, then the providers side by side."""
    if "analyses" not in result.paths:  # stopped before the analysis
        _print_collection_run(result)
        return
    print_summary(result)
    from modules.reports import PROVIDER_COLUMNS, VISIBILITY_COLUMNS, provider_rows

    print("\n" + _collection_cost(result.collections))
    print(
        "\nproviders side by side, best first (Δ = change against the same provider's previous monitor run):\n"
    )
    rows = provider_rows(result.provider_summaries, result.collections)
    print_columns(rows, PROVIDER_COLUMNS, left=2)
    print("\nproviders' visibility beside tracked competitors (shares of answers; Δ in percentage points):\n")
    print_columns(rows, [*PROVIDER_COLUMNS[:2], *VISIBILITY_COLUMNS], left=2)
    print()
    _print_collections(result.collections)


def register(sub) -> None:
    p = command(sub, "analyze", cmd_analyze)
    p.add_argument(
        "input", metavar="INPUT", help="JSONL or Parquet of responses (query_id, domain, response, ...)"
    )
    add_analysis_options(p)

    p = command(sub, "reanalyze", cmd_reanalyze)
    p.add_argument("previous_run_id", metavar="RUN_ID", help="the run whose responses to re-score")
    add_analysis_options(p)


def register_collection(sub) -> None:
    p = command(sub, "collect", cmd_collect)
    add_provider_options(p)
    add_run_outputs(p)

    p = command(sub, "monitor", cmd_monitor)
    add_provider_options(p)
    add_analysis_options(p, ground_truth_required=False)
