"""rerank and rerank-batch: search results scored, filtered and anchored against a query and plan."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .options import add_json, add_lm, add_run_outputs, add_task_runner, command
from .output import print_result


def _rerank_options(args: argparse.Namespace):
    from flows.relevance import RerankOptions
    from modules.lm import LMSettings

    given: dict[str, Any] = {
        "threshold": args.threshold,
        "lm": LMSettings.from_env(args.lm, args.lm_base_url, args.lm_context),
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
    add_lm(
        p,
        "compiled programs (default modules/compiled): the newest relevance program runs with an LM",
        context=True,
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
    """score, filter, anchor and highlight search results against a query and plan

    Prints the results sorted by score (0-100), with brief answers and anchored sentences.
    """
    # one query: an immediate answer on stdout (no run is stored; rerank-batch stores one)
    from modules.relevance import output_line, validate_item

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
    """rerank every line of a JSONL file (Prefect flow)

    Input lines {id, query, plan?, results}; output lines {id, results, introduction, semanticNote,
    fallback}; a rerankings table under the run id.
    """
    from flows.relevance import rerank_batch
    from flows.runtime import local_run_settings, task_runner_for
    from modules.tables_io import input_file, output_file

    input_file(args.input, "input")
    output_file(args.out, "--out")  # before the work, not after it
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
    print_result(result, args.json, _print_rerank_batch)
    return 0


def _print_rerank_batch(result) -> None:
    print(
        f"run {result.run_id}: {result.items} items reranked ({result.fallback} fell back); "
        f"output {result.out_path}; table {result.paths['rerankings']}"
    )


def register(sub) -> None:
    p = command(sub, "rerank", cmd_rerank)
    p.add_argument("--query", required=True)
    p.add_argument(
        "--results", required=True, metavar="FILE.json", help="JSON list of {id?, title?, url?, text}"
    )
    p.add_argument(
        "--plan",
        metavar="FILE",
        help="research plan: JSON {reasoning, assumptionsChallenged, queries, angles, surprises} or text",
    )
    add_json(p, "print the seed's JSON")
    _add_rerank_options(p)

    p = command(sub, "rerank-batch", cmd_rerank_batch)
    p.add_argument("input", metavar="INPUT.jsonl")
    p.add_argument("--out", required=True, metavar="OUTPUT.jsonl")
    add_run_outputs(p)
    p.add_argument("--batch-size", type=int, default=50, help="items per task (default 50)")
    p.add_argument("--concurrency", type=int, default=2, help="tasks run at once (default 2)")
    add_task_runner(p)
    _add_rerank_options(p)
