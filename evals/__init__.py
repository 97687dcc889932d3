"""Evaluations and benchmarks (run as scripts: ``.venv/bin/python -m evals.<name>``)."""
