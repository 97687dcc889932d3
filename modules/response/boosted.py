"""Gradient-boosted decision trees, read from the JSON a trainer writes: the claim models' form.

The claim models decide from a few dozen features that act together (a high cosine says little
where a value is unstated; a hedge matters only where the words are few), which one weight per
feature cannot express; out of fold, trees tell stated claims from unstated ones better than the
logistic regression they replaced. They are evaluated here in plain Python, so the runtime needs
no learning library: each tree is its nodes' split feature, threshold, children and leaf value;
a row goes left where its feature is at most the threshold.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: the feature index that marks a leaf
LEAF = -1


@dataclass(frozen=True)
class Tree:
    """One regression tree: per node, the feature it splits on (:data:`LEAF` for a leaf), the
    threshold, the left and right children and the value a leaf adds to the score. Held as
    tuples: a walk reads one element at a time, which they give several times faster than numpy
    arrays."""

    feature: tuple[int, ...]
    threshold: tuple[float, ...]
    left: tuple[int, ...]
    right: tuple[int, ...]
    value: tuple[float, ...]

    @classmethod
    def from_spec(cls, spec: dict) -> Tree:
        feature, left, right = (np.asarray(spec[k], dtype=np.int64) for k in ("feature", "left", "right"))
        threshold, value = (np.asarray(spec[k], dtype=float) for k in ("threshold", "value"))
        n = len(feature)
        if not n or any(len(a) != n for a in (threshold, left, right, value)):
            raise ValueError("a tree's node arrays must be non-empty and of one length")
        inner = np.flatnonzero(feature != LEAF)
        if (
            (left[inner] <= inner).any()
            or (right[inner] <= inner).any()
            or (left[inner] >= n).any()
            or (right[inner] >= n).any()
        ):
            raise ValueError("a tree's children must come after their parent, within the tree")
        return cls(*(tuple(a.tolist()) for a in (feature, threshold, left, right, value)))

    def leaf_value(self, x: Sequence[float]) -> float:
        feature, threshold, left, right = self.feature, self.threshold, self.left, self.right
        node = 0
        while (f := feature[node]) != LEAF:
            node = left[node] if x[f] <= threshold[node] else right[node]
        return self.value[node]


@dataclass(frozen=True)
class BoostedTrees:
    """A binary classifier: the baseline score plus each tree's leaf value, through the logistic
    function."""

    baseline: float
    trees: tuple[Tree, ...]
    n_features: int

    @classmethod
    def from_spec(cls, spec: dict, n_features: int) -> BoostedTrees:
        trees = tuple(Tree.from_spec(t) for t in spec["trees"])
        if any(max(t.feature) >= n_features for t in trees):
            raise ValueError(f"a tree splits on a feature beyond the {n_features} the model reads")
        return cls(float(spec["baseline"]), trees, n_features)

    def score(self, x: Sequence[float]) -> float:
        if len(x) != self.n_features:
            raise ValueError(f"expected {self.n_features} features, got {len(x)}")
        return self.baseline + sum(t.leaf_value(x) for t in self.trees)

    def probability(self, x: Sequence[float]) -> float:
        z = self.score(x)
        return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


__all__ = ["LEAF", "BoostedTrees", "Tree"]
