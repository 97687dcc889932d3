"""The trained relevance ranker: how likely a result is one a question needs, read from what the
baseline measures of it beside the other results, and of each pair of results together.

Two small networks (:func:`~modules.mlp.forward`). One scores each result from :data:`FEATURES`:
the baseline's own readings of it (query-term coverage, MiniLM cosine of its best sentence and of
the passage, whether it is about a thing the query names, the lead another result gives it to the
second hop of a bridge question, the sentences that bear on the query) and the same readings
relative to the best of the other results, so that "the best page here" is learned rather than
set by hand. The other scores each pair from :data:`PAIR_FEATURES`: whether one names the other
(the page a bridge question names leads to the page that answers), whether they are the two sides
of a comparison or two pages about one side, and how much of the query they state together. A
pair's score is the sum of the three; a softmax over the pairs says which two the question needs,
and a result's probability is the sum over the pairs that hold it (a multi-hop question needs two
pages, and the page that names the answer's page is needed with it, however little of the query it
shares). Trained by ``python -m evals.train_ranker`` (fixed seed; the model card is
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
from ..mlp import SmallMLP, forward

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
#: what the baseline reads of two results together (its ``pair_readings`` writes them, symmetric)
PAIR_FEATURES = (
    "link",  # a sentence of one names the other's subject: 1 whole, 0.6 a part (a surname); the stronger way
    "mutual_link",  # the same, the weaker way (each names the other)
    "link_cos",  # MiniLM cosine to the query of the sentence that names the other
    "about_link",  # the link from a result about a thing the query names (its ``about``)
    "unnamed_link",  # the link to a result whose subject the query does not name: a hop
    "same_side",  # 1: both are about the same thing the query names (two pages about one side)
    "two_sides",  # 1: each is about another thing the query names (the sides of a comparison)
    "coverage",  # idf-weighted share of the query's terms the two state together
    "coverage_gain",  # that, less the larger of their own shares
    "title_cos",  # MiniLM cosine of their titles and openings
    "named",  # how many of the two the query names whole
)


class RelevanceRanker(SmallMLP):
    """The shipped ranker: :meth:`probabilities` that each result is needed, given its group. Its
    weights are the result network's (``w1 b1 w2 b2 mean scale``), the pair network's (the same
    names after ``pair_``) and the softmax's temperature."""

    def __init__(self, path: Path = WEIGHTS):
        super().__init__(path)
        self.params, self.pair_params = split_params(self.params)
        if self.n_features != len(FEATURES) or self.pair_params["w1"].shape[0] != len(PAIR_FEATURES):
            raise ValueError(
                f"{path}: {self.n_features} + {self.pair_params['w1'].shape[0]} features, "
                f"sleuth computes {len(FEATURES)} + {len(PAIR_FEATURES)}"
            )

    def probabilities(self, features: np.ndarray, pairs: np.ndarray) -> np.ndarray:
        """(n,) probabilities that each result is one of the two the question needs, from
        ``features`` (n, :data:`FEATURES`) and ``pairs`` (n, n, :data:`PAIR_FEATURES`); two
        results at least."""
        return needed_probabilities(self.params, self.pair_params, features, pairs, self.temperature)


def split_params(params: dict) -> tuple[dict, dict]:
    """The result network's tensors and the pair network's (stored after ``pair_``, read without
    it); the temperature stays with the result network's."""
    return (
        {k: v for k, v in params.items() if not k.startswith("pair_")},
        {k.removeprefix("pair_"): v for k, v in params.items() if k.startswith("pair_")},
    )


def pair_logits(params: dict, pair_params: dict, features: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """(n * (n - 1) / 2,) uncalibrated logits of the pairs ``i < j``, in the order of
    ``np.triu_indices(n, 1)``: each result's score plus the pair's."""
    i, j = np.triu_indices(len(features), 1)
    own = forward(params, features)[:, 0]
    return own[i] + own[j] + forward(pair_params, pairs[i, j])[:, 0]


def needed_probabilities(
    params: dict, pair_params: dict, features: np.ndarray, pairs: np.ndarray, temperature: float = 1.0
) -> np.ndarray:
    """The softmax over the pairs' logits, summed over the pairs that hold each result (at most
    1): the runtime's probabilities and the training script's held-out ranking."""
    n = len(features)
    if n < 2:
        raise ValueError(f"the ranker compares results: {n} given")
    i, j = np.triu_indices(n, 1)
    z = pair_logits(params, pair_params, features, pairs) / temperature
    q = np.exp(z - z.max())
    q /= q.sum()
    return np.minimum(1.0, np.bincount(i, q, n) + np.bincount(j, q, n))


@lru_cache(maxsize=1)
def shipped_ranker() -> RelevanceRanker | None:
    """The ranker shipped with sleuth, or None where its weights are absent."""
    return RelevanceRanker() if WEIGHTS.exists() else None


def ranker_for(embedding_model: str | None) -> RelevanceRanker | None:
    """The ranker for results encoded with ``embedding_model``: the shipped one for the MiniLM it
    was trained on, else none (the baseline's hand-set blend decides)."""
    return shipped_ranker() if embedding_model == EMBEDDING else None


__all__ = [
    "EMBEDDING",
    "FEATURES",
    "GAPS",
    "PAIR_FEATURES",
    "READINGS",
    "RelevanceRanker",
    "needed_probabilities",
    "pair_logits",
    "ranker_for",
    "shipped_ranker",
    "split_params",
]
