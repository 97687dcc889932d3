"""Evaluating and compiling a node's DSPy program against its labeled set: the sets
(``evals/sets``, built by ``evals/build_sets.py`` and ``evals/build_verdicts.py``), one metric per
node, the baseline and program runners, the ``evaluations`` table (``nodes``); the ``judge``
node's set, metric and baseline (``judge``); and the optimizers (``optimize``). The
``optimize-node`` and ``evaluate-node`` flows run them; the scripts under ``evals/`` import them."""

from pathlib import Path

#: The labeled sets: ``<node>-<train|dev>.jsonl`` and the judge's ``verdicts-*-<train|dev>.jsonl``.
SETS = Path(__file__).resolve().parents[2] / "evals" / "sets"
