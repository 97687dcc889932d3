"""Evaluating and compiling a node's DSPy program against its labeled set: the sets
(``evals/sets``), one metric per node, the baseline and program runners and the ``evaluations``
table (:mod:`.nodes`); the ``judge`` node's set, metric and baseline (:mod:`.judge`); and the
optimizers (:mod:`.optimize`). The ``optimize-node`` and ``evaluate-node`` flows run them; the
scripts under ``evals/`` import them."""

from .labeled_sets import SETS
from .nodes import (
    EVALUATIONS,
    EVALUATIONS_SCHEMA,
    BaselineRunner,
    NodeEvaluation,
    ProgramRunner,
    breakdown,
    evaluate,
    evaluations_frame,
    file_hash,
    fitted_program,
    load_examples,
    node_lm,
    set_path,
)
from .optimize import OPTIMIZERS, compile_program, demo_context

__all__ = [
    "EVALUATIONS",
    "EVALUATIONS_SCHEMA",
    "OPTIMIZERS",
    "SETS",
    "BaselineRunner",
    "NodeEvaluation",
    "ProgramRunner",
    "breakdown",
    "compile_program",
    "demo_context",
    "evaluate",
    "evaluations_frame",
    "file_hash",
    "fitted_program",
    "load_examples",
    "node_lm",
    "set_path",
]
