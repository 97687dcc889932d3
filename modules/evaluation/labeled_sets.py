"""Where the labeled sets live: ``evals/sets/<node>-<split>.jsonl`` and the judge's
``verdicts-*-<split>.jsonl`` (built by ``evals/build_sets.py`` and ``evals/build_verdicts.py``)."""

from pathlib import Path

SETS = Path(__file__).resolve().parents[2] / "evals" / "sets"
