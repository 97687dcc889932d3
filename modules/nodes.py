"""One home per LM node: its name, DSPy signature, reply budget and labeled sets.

Everything that keys on a node reads :data:`NODES`: the program store (``programs``), the LM
runner's caps (``lm``), evaluation and optimization (``evaluation``), and the CLI's choices. A
node's evaluation half (how a labeled row becomes its inputs, its baseline run on that row, its
metric) is code beside the baseline, in :data:`modules.evaluation.nodes.EVALUATIONS`, under the
same name.

A signature is named by its import path and loaded on first use, so that the CLI can list the
nodes in ``--help`` and completion without importing DSPy (half a second); a test loads each one.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class NodeBudget:
    """How a node's LM call is sized: ``max_tokens`` caps its reply (room for every one of its
    output fields), ``temperature`` is sent with every request (a server's default is often 1.0),
    and ``input_share`` is the part of the context window its variable inputs (documents,
    results) may fill, the instructions and the reply taking the rest."""

    max_tokens: int
    temperature: float
    input_share: float = 0.6


@dataclass(frozen=True)
class NodeSpec:
    """A compilable node. ``sets``: its labeled sets are ``evals/sets/<sets>-<split>.jsonl``
    (the judge's are the verdict sets, read by ``modules.evaluation.judge``)."""

    name: str
    summary: str
    signature_path: str
    budget: NodeBudget
    sets: str

    @property
    def signature(self) -> Any:
        """The DSPy signature class: its docstring is the node's instruction."""
        module, _, attr = self.signature_path.partition(":")
        return getattr(importlib.import_module(module), attr)


#: Rerank answers ten rankings of ten fields (~1.2-1.7k tokens measured), so it gets room for
#: them, and its instructions (ten fields described) take ~1k tokens, so its results get a smaller
#: share; Decision answers one action; the Analyzer a list of quoted facts.
NODES: dict[str, NodeSpec] = {
    spec.name: spec
    for spec in (
        NodeSpec(
            "decision",
            "the research loop's next action",
            "modules.research.signatures:DecideNextAction",
            NodeBudget(max_tokens=500, temperature=0.2),
            sets="decision",
        ),
        NodeSpec(
            "analyzer",
            "facts quoted from the pages read",
            "modules.research.signatures:AnalyzeResults",
            NodeBudget(max_tokens=1500, temperature=0.2),
            sets="analyzer",
        ),
        NodeSpec(
            "relevance",
            "search results scored against the question and plan",
            "modules.relevance.signatures:RankResults",
            NodeBudget(max_tokens=3000, temperature=0.3, input_share=0.45),
            sets="relevance",
        ),
        NodeSpec(
            "report",
            "the research report's answer and key sources",
            "modules.research.signatures:WriteReport",
            NodeBudget(max_tokens=1200, temperature=0.3),
            sets="report",
        ),
        NodeSpec(
            "judge",
            "claim verdicts and wrong facts of an AI answer",
            "modules.response.signatures:JudgeClaims",
            NodeBudget(max_tokens=1500, temperature=0.0),
            sets="verdicts",
        ),
    )
}

#: LM calls that are not compiled nodes: the research loop's lean rerank (result indices only)
#: and query drafting.
CALL_BUDGETS: dict[str, NodeBudget] = {
    "order": NodeBudget(max_tokens=200, temperature=0.2),
    "queries": NodeBudget(max_tokens=3000, temperature=0.3),
}
DEFAULT_BUDGET = NodeBudget(max_tokens=1500, temperature=0.3)


def budget_of(call: str) -> NodeBudget:
    """The reply budget of a node or another LM call (:data:`DEFAULT_BUDGET` for any other)."""
    if call in NODES:
        return NODES[call].budget
    return CALL_BUDGETS.get(call, DEFAULT_BUDGET)


def node(name: str) -> NodeSpec:
    """The node called ``name``; one clear error for any other."""
    try:
        return NODES[name]
    except KeyError:
        raise ValueError(f"unknown node {name!r}: use {', '.join(NODES)}") from None


__all__ = ["CALL_BUDGETS", "DEFAULT_BUDGET", "NODES", "NodeBudget", "NodeSpec", "budget_of", "node"]
