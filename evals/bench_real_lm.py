"""Every DSPy node on a real model: parse success, fallbacks, metric beside the baseline, speed.

By default the local model (``sleuth lm``, started here when none runs); ``--lm`` and
``--lm-base-url`` name any other. For each node with a labeled dev set (Decision, Analyzer,
Report, the relevance rerank, the response judge), ``--examples`` examples spread evenly over the
set go through the uncompiled DSPy program with the node's production budget (the
:class:`~modules.lm.NodeRunner` a run uses: reply cap, temperature, retries, output validation);
a call that stays unparseable falls back to the baseline, as in a run, and is scored as the
baseline scored it. The baseline program is scored on the same examples.

    .venv/bin/python -m evals.bench_real_lm [--examples N] [--nodes decision,judge] [--lm ... --lm-base-url ...]

Prints per node: calls, parsed share (after retries, and at the first try), fallbacks with their
reasons, the node's metric with the LM and with the baseline, median seconds and tokens per call.
The default (six examples a node, two of the rerank's) takes ~25 minutes with the local model on
2 cores.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter

import dspy

from modules import programs as program_store
from modules.embeddings import LocalEmbedder
from modules.evaluation.nodes import EVALUATIONS, BaselineRunner, ProgramRunner, evaluate, load_examples
from modules.lm import LMSettings, output_model
from modules.nodes import NODES
from modules.research.schema import Analysis, Decision, Report

#: The pydantic contract a run validates a node's output against (rerank and the judge check
#: their own fields in code: the rankings' indices, a verdict for every claim).
CONTRACTS = {"decision": Decision, "analyzer": Analysis, "report": Report}
#: Examples per node by default: a full rerank writes ~2.5k tokens (ten results, ten fields each),
#: about four minutes a call on one 2-core machine.
DEFAULT_EXAMPLES = {"relevance": 2}
EXAMPLES = 6


def lm_call(node: str, runner, program, example, embedder):
    """One example through the node's program as a run calls it: the NodeRunner (budget,
    retries, fallback) and the node's output contract. Returns the call and the prediction a run
    would use (the baseline's on a fallback: None here, scored by the caller)."""
    target = ProgramRunner(node, program, runner.lm_for(node), embedder)

    def predict(**_):
        prediction = target(example)
        if node in CONTRACTS:
            output_model(CONTRACTS[node], prediction)  # a run refuses output its contract refuses
        if node == "judge":
            given = {
                str(getattr(v, "claim_id", None) or v.get("claim_id")) for v in prediction.verdicts or []
            }
            missing = [c.id for c in example.claims if c.id not in given]
            if missing:
                raise ValueError(f"no verdict for claim(s) {', '.join(missing)}")
        return dspy.Prediction(out=prediction)

    return runner.run(predict, {}, "out", lambda: None, node=node)


def bench_node(node: str, settings: LMSettings, n: int, embedder) -> dict:
    examples = load_examples(node, part="dev", context_tokens=settings.context_tokens, limit=n)
    baseline = BaselineRunner(node, embedder)
    base_score, base_rows = evaluate(node, baseline, examples)
    runner = settings.runner()
    program = program_store.new_program(node)
    scores, seconds, tokens, first_try = [], [], [], 0
    for example, base_row in zip(examples, base_rows):
        t = time.perf_counter()
        call = lm_call(node, runner, program, example, embedder)
        seconds.append(time.perf_counter() - t)
        tokens.append(call.tokens)
        first_try += not call.fallback and call.attempts == 1
        if call.fallback:
            scores.append(base_row["score"])  # the run would have used the baseline's output
        else:
            scores.append(float(EVALUATIONS[node].metric(example, call.output).score))
        print(
            f"  {node} {len(scores)}/{len(examples)}: {'fallback' if call.fallback else 'parsed'}"
            f" in {seconds[-1]:.0f} s, {call.tokens} tokens, score {scores[-1]:.2f}"
            + (f" ({call.error[:120]})" if call.fallback else ""),
            file=sys.stderr,
            flush=True,
        )
    calls = runner.calls()
    return {
        "node": node,
        "examples": len(examples),
        "parsed": calls["answered"],
        "first_try": first_try,
        "fallbacks": calls["fell_back"],
        "reasons": calls["fallback_reasons"],
        "lm_metric": statistics.fmean(scores) if scores else 0.0,
        "baseline_metric": base_score,
        "s_per_call": statistics.median(seconds) if seconds else 0.0,
        "tokens_per_call": statistics.median(tokens) if tokens else 0,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--examples",
        type=int,
        help=f"dev examples per node (default {EXAMPLES}, relevance {DEFAULT_EXAMPLES['relevance']}: ~25 min)",
    )
    p.add_argument("--nodes", default=",".join(NODES), help=f"comma-separated, of {', '.join(NODES)}")
    p.add_argument("--lm", help="any DSPy/LiteLLM model (default: the local model, started if needed)")
    p.add_argument("--lm-base-url")
    p.add_argument("--lm-context", type=int)
    args = p.parse_args(argv)
    nodes = [n.strip() for n in args.nodes.split(",") if n.strip()]
    unknown = sorted(set(nodes) - set(NODES))
    if unknown:
        p.error(f"unknown node(s) {', '.join(unknown)}: use {', '.join(NODES)}")
    if args.lm in (None, "local"):
        from flows import local_lm

        info = local_lm.start()
        args.lm, args.lm_base_url = info.lm, info.url
        args.lm_context = args.lm_context or info.context_tokens
    settings = LMSettings.from_env(args.lm, args.lm_base_url, args.lm_context)
    settings.timeout_s = 600.0  # a full rerank's reply takes minutes on a CPU: not a failure
    embedder = LocalEmbedder()
    print(f"model {settings.model} at {settings.base_url or 'its provider'}")
    rows = []
    for node in nodes:
        rows.append(
            bench_node(node, settings, args.examples or DEFAULT_EXAMPLES.get(node, EXAMPLES), embedder)
        )
    print(
        f"\n{'node':10s} {'calls':>5s} {'parsed':>7s} {'1st try':>7s} {'fallbacks':>9s} {'LM metric':>9s} "
        f"{'baseline':>8s} {'s/call':>7s} {'tokens/call':>11s}"
    )
    for r in rows:
        print(
            f"{r['node']:10s} {r['examples']:5d} {r['parsed'] / max(r['examples'], 1):7.0%} "
            f"{r['first_try'] / max(r['examples'], 1):7.0%} {r['fallbacks']:9d} "
            f"{r['lm_metric']:9.3f} {r['baseline_metric']:8.3f} {r['s_per_call']:7.1f} {r['tokens_per_call']:11.0f}"
        )
    reasons = Counter()
    for r in rows:
        reasons.update(r["reasons"])
    if reasons:
        print("fallback reasons: " + "; ".join(f"{k}: {v}" for k, v in reasons.most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
