"""The boosted trees the claim models ship as (``modules.response.boosted``): written by the
trainers' exporter, they give scikit-learn's probabilities exactly, and bad files fail at load."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import HistGradientBoostingClassifier

from evals.precision_fit import trees_of
from modules.response.boosted import BoostedTrees


@pytest.fixture(scope="module")
def fitted():
    """Trees fitted on made-up rows whose label depends on two features together (an
    interaction no single weight expresses)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, size=(600, 4))
    y = (X[:, 0] > 0.5) ^ (X[:, 1] > 0.3) ^ (rng.uniform(size=600) < 0.1)  # a tenth of labels flipped
    model = HistGradientBoostingClassifier(
        max_iter=40, max_leaf_nodes=7, early_stopping=False, random_state=0
    )
    model.fit(X, y.astype(float))
    return model, BoostedTrees.from_spec(trees_of(model), 4)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1.0, 2.0, allow_nan=False), min_size=4, max_size=4))
def test_the_written_trees_give_scikit_learn_s_probability(fitted, row):
    model, trees = fitted
    assert trees.probability(row) == pytest.approx(model.predict_proba([row])[0, 1], rel=1e-6, abs=1e-9)


def test_the_trees_read_the_interaction(fitted):
    _, trees = fitted
    assert trees.probability([0.9, 0.1, 0.5, 0.5]) > 0.5 > trees.probability([0.9, 0.9, 0.5, 0.5])


def test_bad_trees_fail_at_load_with_one_clear_line():
    leaf = {"feature": [-1], "threshold": [0.0], "left": [0], "right": [0], "value": [0.2]}
    assert BoostedTrees.from_spec({"baseline": 0.0, "trees": [leaf]}, 3).probability(
        [0, 0, 0]
    ) == pytest.approx(1 / (1 + np.exp(-0.2)))
    beyond = {
        "feature": [5, -1, -1],
        "threshold": [0.5, 0, 0],
        "left": [1, 0, 0],
        "right": [2, 0, 0],
        "value": [0, 1, 2],
    }
    with pytest.raises(ValueError, match="beyond the 3"):
        BoostedTrees.from_spec({"baseline": 0.0, "trees": [beyond]}, 3)
    loop = {"feature": [0, -1], "threshold": [0.5, 0], "left": [0, 0], "right": [1, 0], "value": [0, 1]}
    with pytest.raises(ValueError, match="after their parent"):
        BoostedTrees.from_spec({"baseline": 0.0, "trees": [loop]}, 3)
    with pytest.raises(ValueError, match="expected 3 features"):
        BoostedTrees.from_spec({"baseline": 0.0, "trees": [leaf]}, 3).probability([0, 0])
