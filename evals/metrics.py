"""Metrics shared by the evals."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Sequence
from statistics import mean

import numpy as np


def roc_auc(labels: Sequence[int], scores: Sequence[float]) -> float:
    """Area under the ROC curve (Mann-Whitney U with average ranks for ties)."""
    y = np.asarray(labels, dtype=bool)
    s = np.asarray(scores, dtype=float)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if not n_pos or not n_neg:
        raise ValueError("AUC needs both positive and negative examples")
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(len(s))
    sorted_s = s[order]
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and sorted_s[j + 1] == sorted_s[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def mean_group_auc(groups: Sequence[Hashable], labels: Sequence[int], scores: Sequence[float]) -> float:
    """Mean of per-group AUCs, over groups that have both labels (nan where none has)."""
    by: dict = defaultdict(lambda: ([], []))
    for g, y, s in zip(groups, labels, scores):
        by[g][0].append(y)
        by[g][1].append(s)
    aucs = [roc_auc(y, s) for y, s in by.values() if 0 < sum(y) < len(y)]
    return mean(aucs) if aucs else float("nan")
