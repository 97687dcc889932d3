"""eval and optimize: a node's DSPy program measured and compiled against its labeled sets."""

from __future__ import annotations

import argparse

from modules.nodes import NODES

from .options import add_data_dir, add_json, add_lm, add_run_outputs, command
from .output import fmt, print_result

NODE_HELP = "; ".join(f"{name}: {spec.summary}" for name, spec in NODES.items())


def _run_node_flow(flow, args: argparse.Namespace, **given):
    """``flow`` (``evaluate_node`` or ``optimize_node``) on ``args.node``, with the command's LM,
    programs folder and data dir."""
    from flows.runtime import local_run_settings
    from modules.lm import LMSettings

    with local_run_settings():
        return flow(
            args.node,
            lm=LMSettings.from_env(args.lm, args.lm_base_url, args.lm_context),
            programs_dir=args.programs,
            data_dir=args.data_dir,
            **given,
        )


def cmd_eval(args: argparse.Namespace) -> int:
    """a node's metrics on its labeled set: baseline and DSPy program side by side

    Evaluates on evals/sets/<node>-<split>.jsonl (judge: the labeled verdict sets
    evals/sets/verdicts-*-<split>.jsonl); writes an evaluations table.
    """
    from flows.optimize import evaluate_node

    result = _run_node_flow(
        evaluate_node,
        args,
        program=args.program,
        split=args.split,
        examples_path=args.examples,
        limit=args.limit,
    )
    print_result(result, args.json, lambda result: _print_evaluation(result, args))
    return 0


def _print_evaluation(result, args: argparse.Namespace) -> None:
    print(f"{args.node}, {result.examples} {args.split} examples (evals/sets):\n")
    for program, metrics in result.metrics.items():
        print(f"  {program}")
        for k, v in metrics.items():
            print(f"    {k:24s} {v}")
    if len(result.scores) == 1 and args.program != "baseline":
        print("\n  (a DSPy program needs an LM: --lm MODEL or SLEUTH_LM)")
    print(f"\nrun {result.run_id}: {result.paths['evaluations']}")


def cmd_optimize(args: argparse.Namespace) -> int:
    """compile a node's DSPy program against its labeled set (Prefect flow)

    Evaluates the current program on dev, compiles on train, evaluates again, saves
    modules/compiled/<node>/<timestamp>-<hash>.json with metadata.
    """
    from flows.optimize import optimize_node

    result = _run_node_flow(
        optimize_node,
        args,
        optimizer=args.optimizer,
        teacher_lm=args.teacher_lm,
        trainset=args.trainset,
        devset=args.devset,
        run_id=args.run_id,
        promote_if_better=args.promote_if_better,
        seed=args.seed,
        train_limit=args.train_limit,
        dev_limit=args.dev_limit,
    )
    print_result(result, args.json, lambda result: _print_optimization(result, args))
    return 0


def _print_optimization(result, args: argparse.Namespace) -> None:
    print(
        f"{args.node} with {args.optimizer}: baseline dev {result.baseline_dev_score:.3f}; "
        f"DSPy program dev before {fmt(result.dev_score_before)}, after {fmt(result.dev_score_after)}"
    )
    print(f"program: {result.program or 'not promoted'}\nevaluations: {result.paths['evaluations']}")


def register(sub) -> None:
    p = command(sub, "eval", cmd_eval)
    p.add_argument("node", choices=list(NODES), help=NODE_HELP)
    p.add_argument(
        "--program",
        default="latest",
        metavar="PATH|latest|baseline",
        help="DSPy program to evaluate (default latest)",
    )
    add_lm(p, "compiled programs folder (default modules/compiled)", context=True)
    p.add_argument("--split", choices=["dev", "train", "test"], default="dev")
    p.add_argument("--examples", metavar="FILE", help="another labeled JSONL set")
    p.add_argument(
        "--limit",
        type=int,
        metavar="N",
        help="N examples spread evenly over the set (a small local model takes ~30-60 s an example)",
    )
    add_data_dir(p)
    add_json(p)

    p = command(sub, "optimize", cmd_optimize)
    p.add_argument("node", choices=list(NODES), help=NODE_HELP)
    p.add_argument(
        "--optimizer", choices=["labeled", "bootstrap", "random-search", "mipro", "gepa"], default="labeled"
    )
    add_lm(p, "where programs are saved (default modules/compiled)", context=True)
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
    p.add_argument(
        "--train-limit", type=int, metavar="N", help="N train examples, spread evenly over the set"
    )
    p.add_argument("--dev-limit", type=int, metavar="N", help="N dev examples, spread evenly over the set")
    add_run_outputs(p)
