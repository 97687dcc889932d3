"""The node registry is the one place a node is named: every part that keys on a node agrees
with it, and each of its signatures loads."""

import argparse

import dspy
import pytest

from modules.evaluation.nodes import EVALUATIONS, set_path
from modules.nodes import CALL_BUDGETS, DEFAULT_BUDGET, NODES, budget_of, node
from modules.programs import new_program


@pytest.mark.parametrize("name", list(NODES))
def test_each_node_loads_its_signature_and_has_an_evaluation(name):
    spec = NODES[name]
    assert issubclass(spec.signature, dspy.Signature) and spec.signature.__doc__.strip()
    assert isinstance(new_program(name), dspy.Predict)
    assert name in EVALUATIONS
    assert set_path(name, "dev").name.startswith(spec.sets if spec.sets != "verdicts" else "verdicts-")


def test_the_evaluations_and_the_registry_name_the_same_nodes():
    assert list(EVALUATIONS) == list(NODES)


def test_budgets_cover_every_node_and_lm_call():
    assert all(budget_of(n) is NODES[n].budget for n in NODES)
    assert all(budget_of(c) is CALL_BUDGETS[c] for c in CALL_BUDGETS)
    assert not set(CALL_BUDGETS) & set(NODES)
    assert budget_of("anything else") is DEFAULT_BUDGET


def test_an_unknown_node_is_one_clear_error():
    with pytest.raises(ValueError, match="unknown node 'rerank': use decision, analyzer, relevance"):
        node("rerank")
    with pytest.raises(ValueError, match="unknown node"):
        new_program("rerank")


def test_the_cli_offers_the_registry_nodes():
    from flows.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for command in ("eval", "optimize"):
        positional = next(a for a in sub.choices[command]._actions if a.dest == "node")
        assert list(positional.choices) == list(NODES)
