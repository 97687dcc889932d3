"""Evaluating and compiling a node's DSPy program against its labeled set: the sets
(``evals/sets``), one metric per node, the baseline and program runners and the ``evaluations``
table (:mod:`.nodes`); the ``judge`` node's set, metric and baseline (:mod:`.judge`); and the
optimizers (:mod:`.optimize`). The ``optimize-node`` and ``evaluate-node`` flows run them; the
scripts under ``evals/`` import them."""

from ..facade import lazy_exports

#: what the package offers beyond what it imports itself, and the module each name lives in
_HOMES = {
    "BaselineRunner": "nodes",
    "EVALUATIONS": "nodes",
    "EVALUATIONS_SCHEMA": "nodes",
    "NodeEvaluation": "nodes",
    "OPTIMIZERS": "optimize",
    "ProgramRunner": "nodes",
    "SETS": "labeled_sets",
    "breakdown": "nodes",
    "compile_program": "optimize",
    "demo_context": "optimize",
    "evaluate": "nodes",
    "evaluations_frame": "nodes",
    "file_hash": "nodes",
    "fitted_program": "nodes",
    "load_examples": "nodes",
    "node_lm": "nodes",
    "set_path": "nodes",
}
__all__ = [*_HOMES]
__getattr__ = lazy_exports(__name__, _HOMES)
