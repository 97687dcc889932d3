"""eval and optimize: a node's DSPy program measured and compiled against its labeled sets."""

from __future__ import annotations

import argparse

from modules.nodes import NODES

from .options import add_data_dir, add_json, add_lm, add_run_outputs
from .output import fmt, print_json

NODE_HELP = "; ".join(f"{name}: {spec.summary}" for name, spec in NODES.items())


def cmd_eval(args: argparse.Namespace) -> int:
    from flows.optimize import evaluate_node
    from flows.runtime import local_run_settings
    from modules.lm import LMSettings

    with local_run_settings():
        result = evaluate_node(
            args.node,
            program=args.program,
            lm=LMSettings.from_env(args.lm, args.lm_base_url, args.lm_context),
            split=args.split,
            examples_path=args.examples,
            programs_dir=args.programs,
            data_dir=args.data_dir,
            limit=args.limit,
        )
    if args.json:
        print_json(result)
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
    from modules.lm import LMSettings

    with local_run_settings():
        result = optimize_node(
            args.node,
            optimizer=args.optimizer,
            lm=LMSettings.from_env(args.lm, args.lm_base_url, args.lm_context),
            teacher_lm=args.teacher_lm,
            trainset=args.trainset,
            devset=args.devset,
            programs_dir=args.programs,
            data_dir=args.data_dir,
            run_id=args.run_id,
            promote_if_better=args.promote_if_better,
            seed=args.seed,
            train_limit=args.train_limit,
            dev_limit=args.dev_limit,
        )
    if args.json:
        print_json(result)
        return 0
    print(
        f"{args.node} with {args.optimizer}: baseline dev {result.baseline_dev_score:.3f}; "
        f"DSPy program dev before {fmt(result.dev_score_before)}, after {fmt(result.dev_score_after)}"
    )
    print(f"program: {result.program or 'not promoted'}\nevaluations: {result.paths['evaluations']}")
    return 0


def register(sub) -> None:
    p = sub.add_parser(
        "eval",
        help="a node's metrics on its labeled set: baseline and DSPy program side by side",
        description="Evaluates on evals/sets/<node>-<split>.jsonl (judge: the labeled verdict sets "
        "evals/sets/verdicts-*-<split>.jsonl); writes an evaluations table.",
    )
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
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser(
        "optimize",
        help="compile a node's DSPy program against its labeled set (Prefect flow)",
        description="Evaluates the current program on dev, compiles on train, evaluates again, saves "
        "modules/compiled/<node>/<timestamp>-<hash>.json with metadata.",
    )
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
    p.set_defaults(func=cmd_optimize)
