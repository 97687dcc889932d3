"""The trained relevance ranker: its features, its shipped weights, and what it changes."""

from __future__ import annotations

import random

import numpy as np
import pytest

from evals.hotpot import research_questions
from evals.train_ranker import RETIRED, bridges, held_out_urls, real_questions
from modules.embeddings import KeywordEmbedder, LocalEmbedder
from modules.relevance.baseline import BaselineRelevance, ranking_features
from modules.relevance.ranker import (
    FEATURES,
    PAIR_FEATURES,
    READINGS,
    RelevanceRanker,
    ranker_for,
    shipped_ranker,
)
from modules.relevance.schema import ResearchPlan, SearchResultIn


def _reading(lexical: float, direct: float) -> dict:
    return {**dict.fromkeys(READINGS, 0.0), "lexical": lexical, "direct": direct}


def test_features_set_each_result_beside_the_best_of_the_others():
    X = ranking_features([_reading(0.9, 0.8), _reading(0.5, 0.3), _reading(0.2, 0.6)])
    assert X.shape == (3, len(FEATURES))
    gap, rank = FEATURES.index("lexical_gap"), FEATURES.index("direct_rank")
    assert X[:, gap].tolist() == pytest.approx([0.4, -0.4, -0.7])  # the best's gap is to the runner-up
    assert X[:, rank].tolist() == pytest.approx([1.0, 1 / 3, 1 / 2])  # by direct relevance
    assert ranking_features([_reading(0.5, 0.5)])[0, gap] == pytest.approx(0.5)  # alone: against nothing


@pytest.fixture(scope="module")
def ranker() -> RelevanceRanker:
    r = shipped_ranker()
    assert r is not None, "the ranker's weights ship with sleuth (modules/relevance/ranker/)"
    return r


def test_the_shipped_ranker_loads_offline_and_gives_probabilities(ranker):
    assert ranker.version == "relevance-ranker-3" and ranker.card["features"] == list(FEATURES)
    assert ranker.card["pair_features"] == list(PAIR_FEATURES)
    rng = np.random.default_rng(0)
    rows = ranker.mean + rng.normal(size=(10, len(FEATURES))) * ranker.scale  # as results read
    pair_mean, pair_scale = ranker.pair_params["mean"], ranker.pair_params["scale"]
    pairs = pair_mean + rng.normal(size=(10, 10, len(PAIR_FEATURES))) * pair_scale
    pairs = (pairs + pairs.transpose(1, 0, 2)) / 2
    p = ranker.probabilities(rows.astype(np.float32), pairs.astype(np.float32))
    assert p.shape == (10,) and ((p >= 0) & (p <= 1)).all() and p.std() > 0.05
    assert p.sum() <= 2 + 1e-6  # two results needed: the pairs' softmax, summed over each one's pairs
    with pytest.raises(ValueError, match="compares results: 1 given"):
        ranker.probabilities(rows[:1], pairs[:1, :1])


def test_the_ranker_is_used_only_with_the_embedding_it_was_trained_on(ranker):
    assert ranker_for("local:all-MiniLM-L6-v2") is ranker
    assert ranker_for("openai:text-embedding-3-small") is None and ranker_for(None) is None
    assert BaselineRelevance(KeywordEmbedder()).ranker is None
    assert BaselineRelevance(LocalEmbedder()).ranker is ranker


RESULTS = [
    {"id": "unit", "title": "Brell", "text": "The brell is the Varnian unit of river flow. "
     "It is named after the hydrologist Osric Tamberlane."},
    {"id": "man", "title": "Osric Tamberlane", "text": "Osric Tamberlane was a Varnian hydrologist and "
     "engineer. He was a member of the Lowmark Academy of Letters."},
    {"id": "volt", "title": "Quenn", "text": "The quenn is the Varnian unit of rainfall. It is named "
     "after the surveyor Ada Quenn."},
    {"id": "ohm", "title": "Darl", "text": "The darl is the Varnian unit of tide height, named after "
     "Piet Darl."},
    {"id": "flow", "title": "River flow", "text": "River flow is the volume of water passing a point. "
     "In Varnia it is measured in brells."},
    {"id": "acad", "title": "Royal Society", "text": "The Royal Society is a learned society and the "
     "United Kingdom's national academy of sciences."},
]  # fmt: skip


def test_with_the_ranker_both_pages_of_a_bridge_question_come_first(ranker):
    """The unit's page names the hydrologist; the hydrologist's page answers: both are needed, and
    the ranker's probability is the direct relevance the score is built from."""
    query = "Of which academy was the scientist after whom the Varnian unit of river flow is named a member?"
    items = [SearchResultIn.model_validate(r) for r in RESULTS]
    out = BaselineRelevance(LocalEmbedder())(query, ResearchPlan(), items)
    assert {r.id for r in out.results[:2]} == {"unit", "man"}
    probs = ranker.probabilities(*BaselineRelevance(LocalEmbedder(), ranker=None).features(query, items))
    by_id = {r.id: r for r in out.results}
    for i, r in enumerate(RESULTS):
        assert by_id[r["id"]].subscores.directRelevance == pytest.approx(probs[i], abs=1e-3)


def test_pair_readings_say_which_result_names_which_and_what_two_cover_together():
    query = "Of which academy was the scientist after whom the Varnian unit of river flow is named a member?"
    items = [SearchResultIn.model_validate(r) for r in RESULTS]
    _, pairs = BaselineRelevance(LocalEmbedder(), ranker=None).features(query, items)
    assert pairs.shape == (6, 6, len(PAIR_FEATURES)) and np.allclose(pairs, pairs.transpose(1, 0, 2))
    col = {name: k for k, name in enumerate(PAIR_FEATURES)}
    unit, man, volt, flow, academy = 0, 1, 2, 4, 5
    assert pairs[unit, man, col["link"]] == 1.0  # "named after the hydrologist Osric Tamberlane"
    assert pairs[unit, man, col["unnamed_link"]] == 1.0  # the query does not name him: a hop
    assert pairs[unit, man, col["mutual_link"]] == 0.0  # his page does not name the unit
    assert pairs[flow, unit, col["link"]] == 0.0  # "brells" is not the name "Brell" (a plural)
    assert pairs[unit, volt, col["link"]] == 0.0 and pairs[man, academy, col["link"]] == 0.0
    together = pairs[unit, man, col["coverage"]]
    assert together >= pairs[unit, volt, col["coverage"]] and pairs[unit, man, col["coverage_gain"]] > 0


def test_synthetic_bridges_link_a_sentence_to_the_page_it_names():
    leads = [
        {
            "url": "u/a",
            "title": "Ampere",
            "sentences": ["It is named after André-Marie Ampère, a physicist."],
        },
        {
            "url": "u/b",
            "title": "André-Marie Ampère",
            "sentences": ["He was a member of the Academy of Sciences."],
        },
        {"url": "u/c", "title": "Volt", "sentences": ["The volt is a unit."]},
    ]
    items = bridges(leads, random.Random(0), 5)
    assert [gold for _, gold in items] == [["u/a", "u/b"]]
    query = items[0][0]
    assert "Academy" in query and "André-Marie" not in query  # asks of B without naming it


def test_no_lead_a_dev_or_test_question_needs_is_trained_on():
    held = held_out_urls()
    for source, part in (
        ("encyclopedia", "dev"),
        ("encyclopedia-b", "test"),
        ("encyclopedia-c", "test"),
        ("encyclopedia-d", "test"),
        ("encyclopedia-e", "test"),
        ("encyclopedia-f", "test"),
        ("encyclopedia-g", "test"),
        ("encyclopedia-h", "test"),
        ("encyclopedia-i", "test"),
        ("encyclopedia-j", "test"),
        ("encyclopedia-k", "test"),
        ("encyclopedia-l", "test"),
        ("encyclopedia-m", "test"),
        ("encyclopedia-n", "test"),
        ("encyclopedia-o", "test"),
    ):
        assert all(u in held for q in research_questions(part, source) for u in q.gold_urls)
    assert all(u in held for q in research_questions("test", "hotpot") for u, _, _ in q.paragraphs)
    assert not any(u in held for q in research_questions("train", "hotpot") for u in q.gold_urls)


def test_the_real_questions_trained_on_are_no_dev_or_frozen_test_question():
    by_set = real_questions()
    trained = {q.question for qs in by_set.values() for q in qs}
    assert list(by_set) == ["hotpot", "encyclopedia", *RETIRED]
    assert sum(map(len, by_set.values())) == 20 + 30 + 60 * len(RETIRED) - 1  # one repeats a dev question
    for source, part in (
        ("hotpot", "dev"),
        ("hotpot", "test"),
        ("encyclopedia", "dev"),
        ("encyclopedia-m", "test"),
        ("encyclopedia-n", "test"),
        ("encyclopedia-o", "test"),
        ("encyclopedia-p", "test"),
        ("encyclopedia-q", "test"),
        ("encyclopedia-r", "test"),
        ("encyclopedia-s", "test"),
    ):
        assert not trained & {q.question for q in research_questions(part, source)}
    assert not {
        "encyclopedia-o",
        "encyclopedia-p",
        "encyclopedia-q",
        "encyclopedia-r",
        "encyclopedia-s",
    } & set(RETIRED)
