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


def _add_analysis_options(p: argparse.ArgumentParser, ground_truth_required: bool = True) -> None:
    p.add_argument(
        "--ground-truth",
        required=ground_truth_required,
        metavar="PAGES",
        help="ground-truth pages: JSONL/Parquet of {url, text, title?, domain?} or a folder <domain>/**/*.{html,md,txt}"
        + ("" if ground_truth_required else "; with --resume, the resumed run's by default"),
    )
    p.add_argument("--run-id", help="id of the new run (default: UTC timestamp + random suffix)")
    p.add_argument(
        "--data-dir", help="where tables go (default $SLEUTH_DATA_DIR or datasets/runs; s3://... works)"
    )
    p.add_argument("--config", metavar="FILE", help="AnalyzerConfig as TOML (see README)")
    p.add_argument(
        "--set", action="append", metavar="SECTION.FIELD=VALUE", help="override any config field; repeatable"
    )
    p.add_argument("--concurrency", type=int, help="parallel batch tasks (default 5)")
    p.add_argument("--batch-size", type=int, help="max responses per task (default 500)")
    p.add_argument(
        "--task-runner",
        default="thread",
        metavar="thread|dask|dask://HOST:PORT",
        help="where tasks run (default thread)",
    )
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
    _add_lm_options(
        p, "compiled programs (default modules/compiled): the newest judge program runs with an LM"
    )
    p.add_argument("--json", action="store_true", help="print the run summary as JSON")


def _judge_options(args: argparse.Namespace):
    """``--lm`` (or $SLEUTH_LM) on analyze, reanalyze and monitor: the LM judge; None without one."""
    from flows.analyze import JudgeOptions
    from modules.lm import LMSettings

    settings = LMSettings.from_env(args.lm, args.lm_base_url)
    if not settings.model:
        return None
    options = JudgeOptions(lm=settings.model, lm_base_url=settings.base_url, programs=args.programs)
    options.resolve()  # an unusable --programs / program file fails before any work
    return options


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        text = f"{v:.1f}"
        return "0.0" if text == "-0.0" else text  # a delta that rounds to zero has no sign
    return "-" if v is None else str(v)


def _percent(share: float | None) -> str:
    return "-" if share is None else f"{100 * share:.0f}%"


def _points(delta: float | None) -> str:
    return "-" if delta is None else _fmt(100 * delta) + " pt"


def print_summary(result) -> None:
    """The table of an ``AnalysisRun`` or a ``MonitorRun``."""
    print(
        f"\nrun {result.run_id}: {result.total} responses, {result.succeeded} analysed "
        f"({result.flagged} flagged), {result.failed} errors, {result.fallback} fallbacks (keyword matching or "
        f"the offline judge)\n"
    )
    header = [
        "domain",
        "query set",
        "n",
        "accuracy",
        "complete",
        "attrib",
        "wrong facts",
        "Δacc",
        "Δcomp",
        "Δattr",
        "Δwrong",
        "errors",
    ]
    rows = [
        [
            s["domain"],
            s["query_set_id"] or "-",
            s["query_count"],
            s["accuracy_mean"],
            s["completeness_mean"],
            s["attribution_mean"],
            _percent(s.get("wrong_fact_rate")),
            s["accuracy_delta"],
            s["completeness_delta"],
            s["attribution_delta"],
            _points(s.get("wrong_fact_rate_delta")),
            s["error_count"],
        ]
        for s in result.summaries
    ]
    cells = [header] + [[_fmt(v) for v in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    for i, r in enumerate(cells):
        print("  ".join(c.ljust(w) if j < 2 else c.rjust(w) for j, (c, w) in enumerate(zip(r, widths))))
        if i == 0:
            print("  ".join("-" * w for w in widths))
    print(
        "\nmean scores 0-100; wrong facts = share of answers stating something the claims or the pages "
        "contradict;\nΔ = change against the previous run of the same domain and query set"
    )
    print("\nParquet written to:")
    for table, path in result.paths.items():
        print(f"  {table:18s} {path}")


def _print_json(result) -> None:
    print(json.dumps(result.as_dict(), default=str, indent=2))


def _run_flow(args: argparse.Namespace, flow, *flow_args) -> int:
    """Run an analysis flow with the chosen task runner and print its summary."""
    from flows.runtime import local_run_settings, task_runner_for

    config = _config(args)
    judge = _judge_options(args)
    flow = flow.with_options(task_runner=task_runner_for(args.task_runner, config.batch.concurrency))
    with local_run_settings():
        result = flow(
            *flow_args,
            args.ground_truth,
            run_id=args.run_id,
            data_dir=args.data_dir,
            config=config,
            judge=judge,
        )
    _print_json(result) if args.json else print_summary(result)
    return 0


def cmd_analyze(args: argparse.Namespace) -> int:
    from flows.analyze import analyze_responses

    return _run_flow(args, analyze_responses, args.input)


def cmd_reanalyze(args: argparse.Namespace) -> int:
    from flows.analyze import reanalyze_run

    return _run_flow(args, reanalyze_run, args.previous_run_id)


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


def _research_options(args: argparse.Namespace):
    from modules.research.session import ResearchOptions

    given = {
        "search": args.search,
        "corpus": args.corpus,
        "lm": args.lm,
        "lm_base_url": args.lm_base_url,
        "max_steps": args.max_steps,
        "max_seconds": args.max_seconds,
        "max_tokens": args.max_tokens,
        "programs": args.programs,
    }
    return ResearchOptions(**{k: v for k, v in given.items() if v is not None})


def _add_lm_options(p: argparse.ArgumentParser, programs_help: str) -> None:
    """--lm, --lm-base-url and --programs, the same on every command that can run DSPy programs."""
    p.add_argument(
        "--lm",
        metavar="MODEL",
        help="DSPy/LiteLLM model, e.g. openai/gpt-4o-mini (default $SLEUTH_LM; none: the baseline programs)",
    )
    p.add_argument(
        "--lm-base-url",
        metavar="URL",
        help="OpenAI-compatible server (llama.cpp, vLLM, Ollama); default $SLEUTH_LM_BASE_URL",
    )
    p.add_argument("--programs", metavar="DIR", help=programs_help)


def _add_research_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--search",
        choices=["local", "duckduckgo", "google", "searxng", "serper", "auto"],
        help="search engine (default local: the offline corpus); auto = the configured order, alternated",
    )
    p.add_argument(
        "--corpus",
        metavar="PATH",
        help="local corpus, JSONL/Parquet of {url, title, text} (default $SLEUTH_CORPUS or the sample)",
    )
    _add_lm_options(p, "compiled programs (default modules/compiled): the newest per node runs with an LM")
    p.add_argument("--max-steps", type=int, help="decision steps per question (default 8)")
    p.add_argument("--max-seconds", type=float, help="wall-clock limit per question (default 300)")
    p.add_argument("--max-tokens", type=int, help="LM token budget per question (default 200000)")
    p.add_argument("--run-id", help="id of the new run (default: UTC timestamp + random suffix)")
    p.add_argument("--data-dir", help="where tables go (default $SLEUTH_DATA_DIR or datasets/runs)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--no-input", action="store_true", help="do not ask for feedback at the end")


def _print_research(result, as_json: bool) -> None:
    from modules.research.render import report_text

    if as_json:
        _print_json(result)
        return
    for report in result.reports:
        print(report_text(report) + "\n")
    parent = getattr(result, "parent_run_id", None)
    print(f"run {result.run_id}" + (f" (re-opened from {parent})" if parent else "") + " written to:")
    for table, path in result.paths.items():
        print(f"  {table:9s} {path}")


def _ask_feedback(run_id: str, args: argparse.Namespace, options) -> None:
    """At a terminal: accept, reject or add information; the last two re-open the thread."""
    from flows.research import research_feedback
    from flows.runtime import local_run_settings

    while True:
        try:
            choice = (
                input("\nAccept this report? [a]ccept / [r]eject / a[d]d information / [q]uit: ")
                .strip()
                .lower()
            )
        except EOFError:
            return
        verdict = {
            "a": "accept",
            "accept": "accept",
            "r": "reject",
            "reject": "reject",
            "d": "add",
            "add": "add",
        }.get(choice)
        if verdict is None:
            return
        text = ""
        if verdict != "accept":
            text = input(
                "What is wrong with it?  "
                if verdict == "reject"
                else "What should the research know or consider?  "
            ).strip()
            if not text:
                print("sleuth: feedback needs a text; nothing done")
                continue
        with local_run_settings():
            result = research_feedback(run_id, verdict, text, options=options, data_dir=args.data_dir)
        if verdict == "accept":
            print(f"accepted; recorded in {result.paths['feedback']}")
            return
        _print_research(result, False)
        run_id = result.run_id


def cmd_research(args: argparse.Namespace) -> int:
    from flows.research import research
    from flows.runtime import local_run_settings

    if not args.question.strip():
        raise ValueError("the question is empty")
    options = _research_options(args)
    options.engines()  # an unknown engine fails before any flow starts
    with local_run_settings():
        result = research(
            args.question,
            options=options,
            run_id=args.run_id,
            data_dir=args.data_dir,
            question_id=args.question_id,
        )
    _print_research(result, args.json)
    if not (args.no_input or args.json) and sys.stdin.isatty():
        _ask_feedback(result.run_id, args, options)
    return 0


def cmd_research_batch(args: argparse.Namespace) -> int:
    from flows.research import research_batch
    from flows.runtime import local_run_settings, task_runner_for
    from modules.research.batch import load_questions

    questions = load_questions(args.file)
    options = _research_options(args)
    options.engines()
    flow = research_batch.with_options(task_runner=task_runner_for(args.task_runner, args.concurrency))
    with local_run_settings():
        result = flow(
            questions, options=options, run_id=args.run_id, data_dir=args.data_dir, input_label=args.file
        )
    if args.json:
        _print_json(result)
    else:
        for r in result.reports:
            print(f"{r['question_id']:>12s}  {r['status']:11s} {r['confidence']:.2f}  {r['question'][:80]}")
        print(f"\nrun {result.run_id}: {len(result.reports)} questions; tables under {result.data_dir}")
    return 0


def cmd_feedback(args: argparse.Namespace) -> int:
    from flows.research import research_feedback
    from flows.runtime import local_run_settings

    verdict, text = (
        ("accept", "")
        if args.accept
        else ("reject", args.reject)
        if args.reject is not None
        else ("add", args.add)
    )
    options = _research_options(args)
    with local_run_settings():
        result = research_feedback(
            args.run_id_to_reopen,
            verdict,
            text,
            options=options,
            run_id=args.run_id,
            data_dir=args.data_dir,
            question_ids=args.question_id or None,
        )
    if verdict == "accept" and not args.json:
        print(f"accepted run {args.run_id_to_reopen}; recorded in {result.paths['feedback']}")
        return 0
    _print_research(result, args.json)
    return 0


def _rerank_options(args: argparse.Namespace):
    from flows.relevance import RerankOptions

    given: dict[str, Any] = {
        "threshold": args.threshold,
        "lm": args.lm,
        "lm_base_url": args.lm_base_url,
        "fallback": args.fallback,
        "programs": args.programs,
    }
    if args.weights:
        try:
            given["weights"] = tuple(float(x) for x in args.weights.split(","))
        except ValueError:
            raise ValueError(
                f"--weights expects four numbers D,DEPTH,PLAN,UNEXPECTED, got {args.weights!r}"
            ) from None
        if len(given["weights"]) != 4:
            raise ValueError(f"--weights expects four numbers, got {len(given['weights'])}")
    return RerankOptions(**{k: v for k, v in given.items() if v is not None})


def _add_rerank_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--threshold", type=int, help="score a result needs to be kept (default 60)")
    p.add_argument("--weights", metavar="D,DEPTH,PLAN,UNEXP", help="criteria weights (default 40,30,20,10)")
    _add_lm_options(
        p, "compiled programs (default modules/compiled): the newest relevance program runs with an LM"
    )
    p.add_argument(
        "--fallback",
        choices=["baseline", "original"],
        help="after LM failure: score with the baseline (default) or return the original order unscored (the seed)",
    )


def _read_json_file(path: str, what: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            raw = f.read()
    except OSError as exc:
        raise FileNotFoundError(f"cannot read {what} {path}: {exc.strerror}") from None
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        if what == "plan":
            return raw  # a free-text plan
        raise ValueError(f"{what} file {path} is not JSON") from None


def cmd_rerank(args: argparse.Namespace) -> int:
    """One query: an immediate answer on stdout (no run is stored; use rerank-batch for that)."""
    from modules.relevance.batch import output_line, validate_item

    results = _read_json_file(args.results, "results")
    results = results.get("results") if isinstance(results, dict) else results
    plan = _read_json_file(args.plan, "plan") if args.plan else None
    item = validate_item({"id": "query", "query": args.query, "plan": plan, "results": results})
    reranking = _rerank_options(args).analyzer().rerank(item["query"], item["plan"], item["results"])
    if args.json:
        print(json.dumps(output_line("query", reranking), ensure_ascii=False, indent=2))
        return 0
    if reranking.fallback:
        print(f"fallback: {reranking.error}")
    print(reranking.introduction + ("\n" + reranking.semanticNote if reranking.semanticNote else "") + "\n")
    for rank, r in enumerate(reranking.results, 1):
        score = "-" if r.score is None else str(r.score)
        print(f"{rank:>3}. [{score:>3}{' kept' if r.kept else '     '}] {r.title or r.id}  {r.url}")
        if r.briefAnswer:
            print(f"     {r.briefAnswer}")
        if r.sentence:
            print(f'     "{r.sentence[:240]}"')
    return 0


def cmd_rerank_batch(args: argparse.Namespace) -> int:
    from flows.relevance import rerank_batch
    from flows.runtime import local_run_settings, task_runner_for

    options = _rerank_options(args)
    flow = rerank_batch.with_options(task_runner=task_runner_for(args.task_runner, args.concurrency))
    with local_run_settings():
        result = flow(
            args.input,
            args.out,
            options=options,
            run_id=args.run_id,
            data_dir=args.data_dir,
            batch_size=args.batch_size,
        )
    if args.json:
        _print_json(result)
    else:
        print(
            f"run {result.run_id}: {result.items} items reranked ({result.fallback} fell back); "
            f"output {result.out_path}; table {result.paths['rerankings']}"
        )
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from flows.optimize import evaluate_node
    from flows.runtime import local_run_settings

    with local_run_settings():
        result = evaluate_node(
            args.node,
            program=args.program,
            lm=args.lm,
            lm_base_url=args.lm_base_url,
            split=args.split,
            examples_path=args.examples,
            programs_dir=args.programs,
            data_dir=args.data_dir,
        )
    if args.json:
        _print_json(result)
        return 0
    print(f"{args.node}, {result.examples} {args.split} examples (evals/sets):\n")
    for program, metrics in result.metrics.items():
        print(f"  {program}")
        for k, v in metrics.items():
            print(f"    {k:24s} {v}")
    if len(result.scores) == 1 and args.program != "baseline":
        print("\n  (a DSPy program needs an LM: --lm MODEL or SLEUTH_LM)")
    print(f"\nrun {result.run_id}: {result.paths['evaluations']}")
    return 0


def cmd_optimize(args: argparse.Namespace) -> int:
    from flows.optimize import optimize_node
    from flows.runtime import local_run_settings

    with local_run_settings():
        result = optimize_node(
            args.node,
            optimizer=args.optimizer,
            lm=args.lm,
            lm_base_url=args.lm_base_url,
            teacher_lm=args.teacher_lm,
            trainset=args.trainset,
            devset=args.devset,
            programs_dir=args.programs,
            data_dir=args.data_dir,
            run_id=args.run_id,
            promote_if_better=args.promote_if_better,
            seed=args.seed,
        )
    if args.json:
        _print_json(result)
        return 0
    print(
        f"{args.node} with {args.optimizer}: baseline dev {result.baseline_dev_score:.3f}; "
        f"DSPy program dev before {_fmt(result.dev_score_before)}, after {_fmt(result.dev_score_after)}"
    )
    print(f"program: {result.program or 'not promoted'}\nevaluations: {result.paths['evaluations']}")
    return 0


def cmd_queries_generate(args: argparse.Namespace) -> int:
    from pathlib import Path

    from modules.lm import LMSettings
    from modules.queries import write_query_set
    from modules.queries.generate import draft_query_set
    from modules.response import load_pages

    lm = LMSettings.from_env(args.lm, args.lm_base_url).build()
    drafts = draft_query_set(
        load_pages(args.ground_truth), args.domain, n=args.n, query_set_id=args.query_set_id, lm=lm
    )
    if not drafts.queries:
        raise ValueError(f"no queries could be drafted from the pages of {args.domain}")
    out = Path(args.out or f"datasets/query_sets/{drafts.queries[0].query_set_id}.jsonl")
    if out.exists() and not args.force:
        raise FileExistsError(f"{out} exists (it may hold reviewed work); pass --out elsewhere or --force")
    write_query_set(out, drafts.queries)
    for q in drafts.queries:
        print(
            f"- [{q.query_id}] {q.query}\n    expected: {q.expected_answer}\n    claims: "
            + "; ".join(f"({c.importance}) {c.text}" for c in q.claims)
        )
    for note in drafts.notes:
        print(f"note: {note}")
    print(
        f"\n{len(drafts.queries)} draft queries written to {out} (review: draft).\nReview and edit them, then "
        f"`sleuth queries approve {out}`; collect and monitor refuse unreviewed drafts."
    )
    return 0


def cmd_queries_check(args: argparse.Namespace) -> int:
    from modules.queries import load_query_set

    qs = load_query_set(args.file)
    print(
        f"{args.file}: query set {qs.query_set_id!r}, {len(qs.queries)} queries, {len(qs.drafts)} drafts, "
        f"domains {', '.join(qs.domains)}, version {qs.version}"
    )
    return 0


def cmd_queries_approve(args: argparse.Namespace) -> int:
    from modules.queries import load_query_set, write_query_set

    qs = load_query_set(args.file)
    ids = set(args.query_id or [q.query_id for q in qs.queries])
    unknown = ids - {q.query_id for q in qs.queries}
    if unknown:
        raise ValueError(f"no such query_id in {args.file}: {sorted(unknown)}")
    queries = [q.model_copy(update={"review": "approved"}) if q.query_id in ids else q for q in qs.queries]
    write_query_set(args.file, queries)
    print(
        f"{args.file}: {sum(q.query_id in ids and q.review == 'draft' for q in qs.queries)} drafts approved, "
        f"{sum(q.review == 'draft' for q in queries)} still drafts"
    )
    return 0


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


def _add_provider_options(p: argparse.ArgumentParser) -> None:
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
        "keys: base_url, label, api_key_env, temperature, max_tokens, concurrency, rpm, timeout, retries; "
        "repeatable",
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
        "--resume",
        metavar="RUN_ID",
        help="a new run that keeps RUN_ID's answers and asks only the missing ones (errors, cancelled calls, "
        "or everything after a kill): same query set and providers, unless given again",
    )


def _print_collections(collections: list[dict]) -> None:
    header = [
        "provider",
        "model",
        "status",
        "answered",
        "refusals",
        "empty",
        "errors",
        "tokens",
        "cost",
        "p50 s",
    ]
    rows = [
        [
            c["provider"],
            c["model"],
            c["status"],
            c["answered"],
            c["refusals"],
            c["empty"],
            c["errors"],
            (c["prompt_tokens"] or 0) + (c["completion_tokens"] or 0),
            c["cost_usd"],
            c["latency_median_s"],
        ]
        for c in collections
    ]
    _print_table(header, rows)
    for c in collections:
        if c["status"] != "ok":
            print(
                f"! {c['provider']}/{c['model']} {c['status']}: {c['error']} (error types {c['error_types']})"
            )


def _print_table(header: list[str], rows: list[list[Any]]) -> None:
    cells = [header] + [[_fmt(v) for v in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    for i, r in enumerate(cells):
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))
        if i == 0:
            print("  ".join("-" * w for w in widths))


def _collection_run(args: argparse.Namespace, run) -> tuple[Any, int]:
    """The flow's result and the exit status: 0 when it ran to the end; 1 when no provider
    answered anything or the run's deadline stopped it, 128 + N when signal N did (the flow run
    ended Failed, its tables written)."""
    from flows.runtime import IncompleteRun, local_run_settings

    if not args.resume and not (args.query_set and args.provider):
        raise ValueError(f"{args.command} needs QUERY_SET and at least one --provider (or --resume RUN_ID)")
    try:
        with local_run_settings():
            return run(), 0
    except IncompleteRun as exc:
        print(f"sleuth: {exc}", file=sys.stderr)
        return exc.result, exc.exit_status


def cmd_collect(args: argparse.Namespace) -> int:
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
        ),
    )
    if args.json:
        _print_json(result)
    else:
        _print_collection_run(result)
    return status


def _print_collection_run(result) -> None:
    """A ``CollectionRun``, or a ``MonitorRun`` stopped before its analysis."""
    resumed = f", resuming run {result.resumed_from}" if result.resumed_from else ""
    print(
        f"\nrun {result.run_id}: query set {result.query_set_id}{resumed}, {result.total} calls, "
        f"{result.failed} without an answer\n"
    )
    _print_collections(result.collections)
    print("\nParquet written to:")
    for table, path in result.paths.items():
        print(f"  {table:18s} {path}")


def cmd_monitor(args: argparse.Namespace) -> int:
    from flows.monitor import monitor
    from flows.runtime import task_runner_for

    config = _config(args)
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
        ),
    )
    if args.json:
        _print_json(result)
        return status
    if "analyses" not in result.paths:  # stopped before the analysis
        _print_collection_run(result)
        return status
    print_summary(result)
    print("\nproviders side by side (Δ = change against the same provider's previous monitor run):\n")
    cost = {(c["provider"], c["model"]): c["cost_usd"] for c in result.collections}
    _print_table(
        [
            "domain",
            "provider",
            "model",
            "rank",
            "accuracy",
            "complete",
            "attrib",
            "wrong facts",
            "mentioned+correct",
            "Δacc",
            "Δcomp",
            "Δattr",
            "refusals",
            "errors",
            "cost",
        ],
        [
            [
                r["domain"],
                r["provider"],
                r["model"],
                r["accuracy_rank"],
                r["accuracy_mean"],
                r["completeness_mean"],
                r["attribution_mean"],
                _percent(r.get("wrong_fact_rate")),
                _percent(r.get("correct_mention_rate")),
                r["accuracy_delta"],
                r["completeness_delta"],
                r["attribution_delta"],
                r["refusal_count"],
                r["error_count"],
                cost.get((r["provider"], r["model"])),
            ]
            for r in result.provider_summaries
        ],
    )
    print()
    _print_collections(result.collections)
    return status


def cmd_report(args: argparse.Namespace) -> int:
    from modules.reports import write_run_report

    path = write_run_report(args.run_id, args.data_dir, args.html)
    print(f"report of run {args.run_id}: {path}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sleuth", description="Evidence-based research and AI-answer auditing."
    )
    parser.add_argument(
        "--debug", action="store_true", help="show full tracebacks for input and option errors"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser(
        "analyze",
        help="audit AI responses against ground-truth pages (Prefect flow)",
        description="Score each AI response for accuracy, completeness and attribution; write "
        "analyses, summaries and runs tables under the run id.",
    )
    p.add_argument(
        "input", metavar="INPUT", help="JSONL or Parquet of responses (query_id, domain, response, ...)"
    )
    _add_analysis_options(p)
    p.set_defaults(func=cmd_analyze)

    p = sub.add_parser(
        "reanalyze",
        help="re-score a stored run against new ground truth, as a new run",
        description="Read a run's stored results and analyse the same responses again.",
    )
    p.add_argument("previous_run_id", metavar="RUN_ID", help="the run whose responses to re-score")
    _add_analysis_options(p)
    p.set_defaults(func=cmd_reanalyze)

    p = sub.add_parser(
        "research",
        help="research a question: search, read, analyse, report (Prefect flow)",
        description="Run the research agent on one question and print its report; tables reports, "
        "steps, sources and memory go under the run id.",
    )
    p.add_argument("question", metavar="QUESTION")
    p.add_argument("--question-id", default="q1", help="id of the question in the tables (default q1)")
    _add_research_options(p)
    p.set_defaults(func=cmd_research)

    p = sub.add_parser(
        "research-batch",
        help="research every question of a JSONL file, one thread each",
        description='Lines are {"id": ..., "question": ...}; one run, one report per question.',
    )
    p.add_argument("file", metavar="FILE", help="JSONL of {id, question}")
    _add_research_options(p)
    p.add_argument("--concurrency", type=int, default=2, help="threads researched at once (default 2)")
    p.add_argument(
        "--task-runner", default="thread", metavar="thread|dask|dask://HOST:PORT", help="where threads run"
    )
    p.set_defaults(func=cmd_research_batch)

    p = sub.add_parser(
        "feedback",
        help="accept a research report, or re-open it with a rejection or new information",
        description="--reject and --add re-open the run's threads as a child run (parent_run_id) that "
        "reuses their memory and treats the feedback as constraints.",
    )
    p.add_argument("run_id_to_reopen", metavar="RUN_ID", help="the research run the feedback is about")
    verdict = p.add_mutually_exclusive_group(required=True)
    verdict.add_argument("--accept", action="store_true", help="accept the report")
    verdict.add_argument("--reject", metavar="TEXT", help="reject it, saying what is wrong")
    verdict.add_argument("--add", metavar="TEXT", help="add information or a constraint")
    p.add_argument("--question-id", action="append", help="only this question of a batch run; repeatable")
    _add_research_options(p)
    p.set_defaults(func=cmd_feedback)

    p = sub.add_parser(
        "rerank",
        help="score, filter, anchor and highlight search results against a query and plan",
        description="Prints the results sorted by score (0-100), with brief answers and anchored sentences.",
    )
    p.add_argument("--query", required=True)
    p.add_argument(
        "--results", required=True, metavar="FILE.json", help="JSON list of {id?, title?, url?, text}"
    )
    p.add_argument(
        "--plan",
        metavar="FILE",
        help="research plan: JSON {reasoning, assumptionsChallenged, queries, angles, surprises} or text",
    )
    p.add_argument("--json", action="store_true", help="print the seed's JSON")
    _add_rerank_options(p)
    p.set_defaults(func=cmd_rerank)

    p = sub.add_parser(
        "rerank-batch",
        help="rerank every line of a JSONL file (Prefect flow)",
        description="Input lines {id, query, plan?, results}; output lines {id, results, introduction, "
        "semanticNote, fallback}; a rerankings table under the run id.",
    )
    p.add_argument("input", metavar="INPUT.jsonl")
    p.add_argument("--out", required=True, metavar="OUTPUT.jsonl")
    p.add_argument("--run-id")
    p.add_argument("--data-dir")
    p.add_argument("--batch-size", type=int, default=50, help="items per task (default 50)")
    p.add_argument("--concurrency", type=int, default=2)
    p.add_argument("--task-runner", default="thread", metavar="thread|dask|dask://HOST:PORT")
    p.add_argument("--json", action="store_true")
    _add_rerank_options(p)
    p.set_defaults(func=cmd_rerank_batch)

    nodes = ["decision", "analyzer", "relevance", "report", "judge"]
    p = sub.add_parser(
        "eval",
        help="a node's metrics on its labeled set: baseline and DSPy program side by side",
        description="Evaluates on evals/sets/<node>-<split>.jsonl (judge: the labeled verdict sets "
        "evals/sets/verdicts-*-<split>.jsonl); writes an evaluations table.",
    )
    p.add_argument("node", choices=nodes)
    p.add_argument(
        "--program",
        default="latest",
        metavar="PATH|latest|baseline",
        help="DSPy program to evaluate (default latest)",
    )
    _add_lm_options(p, "compiled programs folder (default modules/compiled)")
    p.add_argument("--split", choices=["dev", "train"], default="dev")
    p.add_argument("--examples", metavar="FILE", help="another labeled JSONL set")
    p.add_argument("--data-dir")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser(
        "optimize",
        help="compile a node's DSPy program against its labeled set (Prefect flow)",
        description="Evaluates the current program on dev, compiles on train, evaluates again, saves "
        "modules/compiled/<node>/<timestamp>-<hash>.json with metadata.",
    )
    p.add_argument("node", choices=nodes)
    p.add_argument(
        "--optimizer", choices=["labeled", "bootstrap", "random-search", "mipro", "gepa"], default="labeled"
    )
    _add_lm_options(p, "where programs are saved (default modules/compiled)")
    p.add_argument(
        "--teacher-lm",
        metavar="MODEL",
        help="LM that bootstraps demos / proposes and reflects on instructions",
    )
    p.add_argument(
        "--trainset",
        metavar="FILE",
        help="default evals/sets/<node>-train.jsonl (judge: verdicts-*-train.jsonl)",
    )
    p.add_argument(
        "--devset", metavar="FILE", help="default evals/sets/<node>-dev.jsonl (judge: verdicts-*-dev.jsonl)"
    )
    p.add_argument(
        "--promote-if-better",
        action="store_true",
        help="save only when the dev score beats the current program",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--run-id")
    p.add_argument("--data-dir")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_optimize)

    p = sub.add_parser(
        "queries",
        help="draft, check and approve query sets",
        description="Query sets are JSONL/Parquet rows {query_set_id, query_id, query, domain, "
        "expected_answer, claims [{id, text, importance}], brand_names, review?, source_urls?}.",
    )
    qsub = p.add_subparsers(dest="queries_command", required=True, metavar="SUBCOMMAND")
    q = qsub.add_parser(
        "generate",
        help="draft a query set from a site's pages, for a person to review",
        description="Questions a user would ask an assistant about the site, with expected answers and "
        "claims taken from the pages; written with review: draft.",
    )
    q.add_argument("--ground-truth", required=True, metavar="PAGES", help="the site's pages (as for analyze)")
    q.add_argument("--domain", required=True, help="the site's domain (its subdomains' pages count too)")
    q.add_argument("--n", type=int, default=20, help="how many queries (default 20)")
    q.add_argument("--query-set-id", help="default <domain>-<date>")
    q.add_argument("--out", metavar="FILE", help="default datasets/query_sets/<query_set_id>.jsonl")
    q.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    q.add_argument(
        "--lm",
        metavar="MODEL",
        help="LM that drafts the queries (default $SLEUTH_LM; none: the offline baseline)",
    )
    q.add_argument("--lm-base-url", metavar="URL", help="OpenAI-compatible endpoint for --lm")
    q.set_defaults(func=cmd_queries_generate)
    q = qsub.add_parser(
        "check",
        help="validate a query set and print its version",
        description="Exit status 2 lists every problem by line.",
    )
    q.add_argument("file", metavar="FILE")
    q.set_defaults(func=cmd_queries_check)
    q = qsub.add_parser(
        "approve",
        help="mark reviewed draft queries approved",
        description="Run this after reviewing (and editing) the drafts; rewrites the file.",
    )
    q.add_argument("file", metavar="FILE")
    q.add_argument("--query-id", action="append", help="approve only this query; repeatable (default all)")
    q.set_defaults(func=cmd_queries_approve)

    p = sub.add_parser(
        "collect",
        help="ask each query of a query set of one or more AI providers (Prefect flow)",
        description="Writes responses (the analyze input format, plus how each answer was collected), "
        "collections (one row per provider) and runs under the run id.",
    )
    _add_provider_options(p)
    p.add_argument("--run-id")
    p.add_argument("--data-dir")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_collect)

    p = sub.add_parser(
        "monitor",
        help="collect, analyze and summarise a query set with trends (Prefect flow)",
        description="The weekly audit: collect the providers' answers, analyse them in the same run, "
        "and summarise per domain and per provider against the previous monitor run.",
    )
    _add_provider_options(p)
    _add_analysis_options(p, ground_truth_required=False)
    p.set_defaults(func=cmd_monitor)

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
    p.add_argument("--data-dir", help="data dir (default $SLEUTH_DATA_DIR or datasets/runs)")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser(
        "runs", help="list stored runs", description="List the runs recorded under the data dir."
    )
    p.add_argument("--data-dir", help="data dir (default $SLEUTH_DATA_DIR or datasets/runs)")
    p.add_argument(
        "--gc",
        action="store_true",
        help="remove what runs that crashed mid-write left behind "
        "(staging folders, temporary files, commit locks) and list it",
    )
    p.set_defaults(func=cmd_runs)
    return parser


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if not os.environ.get("PREFECT_API_URL"):  # offline by default: the temporary server sends no telemetry
        os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    args = build_parser().parse_args(argv)
    if not args.debug:
        from flows.runtime import quiet_user_errors

        quiet_user_errors()
    try:
        return args.func(args)
    except (ValueError, FileNotFoundError, FileExistsError) as exc:
        if args.debug:
            raise
        print(f"sleuth: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
