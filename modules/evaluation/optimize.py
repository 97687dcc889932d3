"""Compiling a node's DSPy program against its labeled set: the optimizers ``sleuth optimize`` runs.

``labeled`` needs no LM: it places gold-labeled demos (LabeledFewShot). ``bootstrap``,
``random-search`` and ``mipro`` bootstrap demos by running the program (and MIPROv2 proposes
instructions with the teacher LM); ``gepa`` evolves instructions from the metric's feedback,
reflecting with the teacher LM. All of them need an LM; quality gains need a capable one.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import dspy

from ..programs import new_program
from .nodes import EVALUATIONS

OPTIMIZERS = ("labeled", "bootstrap", "random-search", "mipro", "gepa")


def demo_context(node: str, context_tokens: int) -> int:
    """The window a train example (a demo to be) is fitted to: a 1/(demos + 1) share of the
    model's, so that the demos and a live input, fitted beside them, fit it together."""
    return max(1024, context_tokens // (EVALUATIONS[node].demos + 1))


def gold_output(node: str, row: dict, inputs: dict | None = None) -> dict:
    """The labeled output of an example, as the node's signature outputs it (field by field)."""
    return EVALUATIONS[node].gold(row, inputs or {})


def labeled(node: str, examples: list[dspy.Example]) -> list[dspy.Example]:
    return [
        dspy.Example(**ex.toDict(), **gold_output(node, ex.row, ex.inputs())).with_inputs(*ex.inputs().keys())
        for ex in examples
    ]


def optimizer_metric(node: str, embedder=None) -> Callable:
    """The node's metric on a raw program prediction, placed in code first where a run does so."""
    evaluation = EVALUATIONS[node]

    def run(gold, pred, trace=None, pred_name=None, pred_trace=None):
        if evaluation.placed:
            pred = evaluation.placed(gold.row, pred, embedder)
        return evaluation.metric(gold, pred, trace, pred_name, pred_trace)

    return run


def compile_program(
    node: str,
    optimizer: str,
    trainset: list[dspy.Example],
    *,
    lm: dspy.LM | None,
    teacher_lm: dspy.LM | None = None,
    devset: list[dspy.Example] | None = None,
    seed: int = 0,
    embedder=None,
) -> dspy.Module:
    if optimizer not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {optimizer!r}: use {', '.join(OPTIMIZERS)}")
    student = new_program(node)
    demos_k = EVALUATIONS[node].demos
    if optimizer == "labeled":
        return dspy.LabeledFewShot(k=demos_k).compile(student, trainset=labeled(node, trainset), sample=False)
    if lm is None:
        raise ValueError(f"the {optimizer} optimizer runs the program: give an LM (--lm or SLEUTH_LM)")
    metric = optimizer_metric(node, embedder)
    score_only = lambda gold, pred, trace=None: metric(gold, pred, trace).score  # noqa: E731
    teacher = {"lm": teacher_lm} if teacher_lm is not None else None
    train = labeled(node, trainset)
    # labeled examples carry their inputs as plain dicts (Example.toDict): not a mismatch to warn of
    with dspy.context(lm=lm, warn_on_type_mismatch=False):
        if optimizer == "bootstrap":
            return dspy.BootstrapFewShot(
                metric=score_only,
                metric_threshold=0.99,
                teacher_settings=teacher,
                max_bootstrapped_demos=demos_k // 2,
                max_labeled_demos=demos_k // 2,
            ).compile(student, trainset=train)
        if optimizer == "random-search":
            return dspy.BootstrapFewShotWithRandomSearch(
                metric=score_only,
                teacher_settings=teacher,
                max_bootstrapped_demos=demos_k // 2,
                max_labeled_demos=demos_k // 2,
                num_candidate_programs=4,
                num_threads=1,
            ).compile(student, trainset=train, valset=devset or train)
        if optimizer == "mipro":
            return dspy.MIPROv2(
                metric=score_only,
                prompt_model=teacher_lm or lm,
                task_model=lm,
                auto="light",
                num_threads=1,
                max_bootstrapped_demos=demos_k // 2,
                max_labeled_demos=demos_k // 2,
                seed=seed,
                verbose=False,
            ).compile(student, trainset=train, valset=devset or train, requires_permission_to_run=False)
        return dspy.GEPA(
            metric=metric,
            auto="light",
            reflection_lm=teacher_lm or lm,
            num_threads=1,
            seed=seed,
            track_stats=False,
        ).compile(student, trainset=train, valset=devset or train)


def describe(program: dspy.Module) -> str:
    """A short summary of what a compiled program holds: demos and instruction length per predictor."""
    parts = []
    for name, predictor in program.named_predictors():
        parts.append(
            f"{name}: {len(predictor.demos)} demos, instructions {len(predictor.signature.instructions)} chars"
        )
    return json.dumps(parts)
