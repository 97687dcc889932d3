"""The trained relevance ranker: how likely a result is one a question needs, read from what the
baseline measures of it beside the other results.

A small network (:class:`~modules.mlp.SmallMLP`) over :data:`FEATURES`: the baseline's own
readings of a result (query-term coverage, MiniLM cosine of its best sentence and of the
passage, whether it is about a thing the query names, the lead another result gives it to the
second hop of a bridge question, the sentences that bear on the query) and the same readings
relative to the best of the other results, so that "the best page here" is learned rather than
set by hand. Trained by ``python -m evals.train_ranker`` (fixed seed; the model card is
``ranker/MODEL_CARD.md``) on synthetic bridge and comparison questions written mechanically
from the encyclopedia's leads and on the train parts of the research question sets; never on a
dev or test part. Its probability is the baseline's direct relevance when the results are
encoded with the MiniLM it was trained on; with any other embedder the hand-set blend decides.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from ..embeddings import BUNDLED
from ..mlp import SmallMLP

HOME = Path(__file__).resolve().parent / "ranker"
WEIGHTS = HOME / "relevance-ranker.safetensors"
#: the embedding the features were trained on
EMBEDDING = BUNDLED

#: what the baseline reads of each result (its ``_measure`` stores them by these names)
READINGS = (
    "lexical",  # idf-weighted share of the query's terms the result states
    "sentence_cos",  # MiniLM cosine of its best sentence to the query
    "passage_cos",  # MiniLM cosine of its title and opening to the query
    "about",  # 1: the query names its title whole; 0.5: a part of it (a surname); else 0
    "own_direct",  # the hand-set blend of the four above
    "hop",  # the lead a top result's sentence gives it (it names this result's subject); else 0
    "direct",  # the blend after the second hop
    "links_other",  # one of its sentences names another result's subject
    "bearing",  # its sentences that bear on the query, / 3, at most 1
    "title_in_query",  # share of its title's content terms the query states
    "novelty",  # how new it is beside the results of higher direct relevance (MMR)
    "hand_score",  # the hand-set score (direct, depth, novelty), / 100
    "sides",  # how many things the query names that results are about: 0, 1/2, or 1 for two or more
    "side_rank",  # 1 for the best result about its thing, 1/2 for the second; 0 about none
)
#: the readings also taken as a gap: the result's minus the best of the other results'
GAPS = ("lexical", "sentence_cos", "passage_cos", "direct", "hand_score")
#: one row per result, in this order (the baseline's ``ranking_features`` writes them); last, 1 for
#: the best direct relevance and 1 / (1 + rank) below it
FEATURES = (*READINGS, *(f"{name}_gap" for name in GAPS), "direct_rank")


class RelevanceRanker(SmallMLP):
    """The shipped ranker: :meth:`probabilities` that each result is needed, given its group."""

    def __init__(self, path: Path = WEIGHTS):
        super().__init__(path)
        if self.n_features != len(FEATURES):
            raise ValueError(f"{path}: {self.n_features} features, sleuth computes {len(FEATURES)}")

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """(n,) calibrated probabilities, one per row of :data:`FEATURES`."""
        if not len(features):
            return np.zeros(0, np.float32)
        return 1.0 / (1.0 + np.exp(-self.logits(features)[:, 0]))


@lru_cache(maxsize=1)
def shipped_ranker() -> RelevanceRanker | None:
    """The ranker shipped with sleuth, or None where its weights are absent."""
    return RelevanceRanker() if WEIGHTS.exists() else None


def ranker_for(embedding_model: str | None) -> RelevanceRanker | None:
    """The ranker for results encoded with ``embedding_model``: the shipped one for the MiniLM it
    was trained on, else none (the baseline's hand-set blend decides)."""
    return shipped_ranker() if embedding_model == EMBEDDING else None


__all__ = ["EMBEDDING", "FEATURES", "GAPS", "READINGS", "RelevanceRanker", "ranker_for", "shipped_ranker"]
