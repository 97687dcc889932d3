"""Evaluating and compiling a node's DSPy program against its labeled set: the sets
(``evals/sets``), one metric per node, the baseline and program runners and the ``evaluations``
table (:mod:`.nodes`); the ``judge`` node's set, metric and baseline (:mod:`.judge`); and the
optimizers (:mod:`.optimize`). The ``optimize-node`` and ``evaluate-node`` flows run them; the
scripts under ``evals/`` import them."""

from ..facade import lazy_exports, lazy_names

#: each module of the package and the names it offers that the package does not import itself
_HOMES = """
    labeled_sets: SETS
    judge: load_verdict_rows verdict_record
    nodes: BaselineRunner EVALUATIONS EVALUATIONS_SCHEMA NodeEvaluation ProgramRunner breakdown evaluate evaluations_frame file_hash fitted_program load_examples node_lm set_path
    optimize: OPTIMIZERS compile_program demo_context
"""
__all__ = lazy_names(_HOMES)
__getattr__ = lazy_exports(__name__, _HOMES)
