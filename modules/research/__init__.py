"""The research agent's nodes (seed 002): Decision, Analyzer and Report, with shared memory.

Each node is a DSPy module when an LM is configured and a deterministic baseline program
otherwise; the baseline is also the fallback when LM output stays unparseable.
"""
