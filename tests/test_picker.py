"""The trained sentence picker: its readings, its shipped weights, and the key sentence it picks."""

from __future__ import annotations

import numpy as np
import pytest

from evals.hotpot import QUESTION_SETS
from evals.train_picker import DEV, TRAIN, scores, train
from modules.embeddings import KeywordEmbedder, LocalEmbedder
from modules.relevance.baseline import BaselineRelevance, trained_models
from modules.relevance.picker import (
    FEATURES,
    SentencePicker,
    name_pattern,
    picker_for,
    sentence_features,
    shipped_picker,
)
from modules.relevance.schema import ResearchPlan, SearchResultIn
from modules.text import split_sentences


def _readings(query: str, text: str, *, about: float = 0.0, links=None, asked=()) -> np.ndarray:
    ss = split_sentences(text)
    cos = np.linspace(0.5, 0.1, len(ss))
    return sentence_features(
        query,
        ss,
        cos,
        cos,
        {"peak": 1.0, "range": 0.5, "lind": 2.0},
        {"lind"},
        own_names=["Korvan Mountains"],
        about=about,
        links=links or [False] * len(ss),
        asked_names=[name_pattern(n) for n in asked],
    )


def test_readings_of_each_sentence():
    text = "The Korvan Mountains are a range. It rose in 1901 near the Lind Hills. Its highest peak is Teral."
    x = _readings(
        "When did the range with the highest peak rise?",
        text,
        links=[False, True, False],
        asked=["Lind Hills"],
    )
    col = FEATURES.index
    assert x.shape == (3, len(FEATURES))
    assert x[:, col("cos_gap")].tolist() == pytest.approx([0.0, -0.2, -0.4])  # against the paragraph's best
    assert x[:, col("first")].tolist() == [1, 0, 0] and x[:, col("position")].tolist() == [0, 0.5, 1]
    assert x[:, col("names_own")].tolist() == [1, 0, 0] and x[:, col("pronoun")].tolist() == [0, 1, 1]
    assert x[:, col("links_other")].tolist() == [0, 1, 0] and x[:, col("names_asked")].tolist() == [0, 1, 0]
    assert x[:, col("year_asked")].tolist() == [0, 1, 0]  # "when" asks for a year; only one states one
    assert x[:, col("number_asked")].tolist() == [0, 0, 0]
    # the asked attribute: the query's terms that name no result ("peak", "range"; not "lind")
    assert x[2, col("attribute")] == pytest.approx(1.0 / 1.5) and x[0, col("attribute")] == pytest.approx(
        0.5 / 1.5
    )
    assert x[:, col("unnamed_attribute")].tolist() == pytest.approx(x[:, col("attribute")].tolist())
    about = _readings("When did the range rise?", text, about=1.0)
    assert about[:, col("unnamed_attribute")].tolist() == [0, 0, 0] and about[
        :, col("about_first")
    ].tolist() == [1, 0, 0]


def test_a_choice_ordered_by_amount_asks_a_number_and_one_ordered_by_time_a_year():
    text = "The Korvan Mountains are a range. It rose in 1901. It is 4,100 metres high."
    col = FEATURES.index
    longer = _readings("Which range is longer, the Korvan Mountains or the Lind Hills?", text)
    assert longer[:, col("number_asked")].tolist() == [0, 1, 1] and longer[:, col("year_asked")].tolist() == [
        0,
        0,
        0,
    ]
    first = _readings("Which rose first, the Korvan Mountains or the Lind Hills?", text)
    assert first[:, col("year_asked")].tolist() == [0, 1, 0] and first[:, col("number_asked")].tolist() == [
        0,
        0,
        0,
    ]
    # "first" with no two options to order asks for neither
    plain = _readings("Which explorer first crossed the Korvan Mountains?", text)
    assert plain[:, col("year_asked")].tolist() == [0, 0, 0] and plain[:, col("number_asked")].tolist() == [
        0,
        0,
        0,
    ]


@pytest.fixture(scope="module")
def picker() -> SentencePicker:
    p = shipped_picker()
    assert p is not None, "the picker's weights ship with sleuth (modules/relevance/picker/)"
    return p


def test_the_shipped_picker_loads_offline_and_is_used_only_with_its_embedding(picker):
    assert picker.version == "sentence-picker-3" and picker.card["features"] == list(FEATURES)
    assert (
        picker_for("local:all-MiniLM-L6-v2") is picker and picker_for("openai:text-embedding-3-small") is None
    )
    assert BaselineRelevance(KeywordEmbedder()).picker is None
    assert BaselineRelevance(LocalEmbedder()).picker is picker
    assert picker.pick(np.zeros((0, len(FEATURES)), np.float32)) == 0
    assert trained_models("local:all-MiniLM-L6-v2") == {
        "ranker": "relevance-ranker-3",
        "picker": picker.version,
    }
    assert trained_models("openai:text-embedding-3-small") == {"ranker": None, "picker": None}


RESULTS = [
    {"id": "korvan", "title": "Korvan Mountains", "text": "The Korvan Mountains are a mountain range in the north "
     "of Estmark, stretching across the Korvan plateau. The range separates the coast from the desert. The "
     "range's highest peak is Mount Teral, rising to 4,100 metres."},
    {"id": "lind", "title": "Lind Hills", "text": "The Lind Hills are a range of old hills in Westmark. They are "
     "geologically related to the Korvan Mountains, as both belonged to the Great Central Range. The hills "
     "are popular with walkers."},
    {"id": "estmark", "title": "Estmark", "text": "Estmark is a country in the north. Its capital is Pell."},
]  # fmt: skip


def test_the_second_hop_is_anchored_where_it_states_what_is_asked(picker):
    """The range's page shares most words with its first sentence, but answers in its third; the
    hand-set pick takes the first, the trained picker the sentence that states the peak."""
    query = "What is the highest peak of the northern range that, like the Lind Hills, belonged to the Great Central Range?"
    items = [SearchResultIn.model_validate(r) for r in RESULTS]
    trained = {
        r.id: r.sentence for r in BaselineRelevance(LocalEmbedder())(query, ResearchPlan(), items).results
    }
    hand = {
        r.id: r.sentence
        for r in BaselineRelevance(LocalEmbedder(), picker=None)(query, ResearchPlan(), items).results
    }
    assert trained["korvan"].startswith("The range's highest peak is Mount Teral")
    assert hand["korvan"].startswith("The Korvan Mountains are a mountain range")
    assert trained["lind"].startswith("They are geologically related to the Korvan Mountains")  # the hop


def test_the_linear_picker_is_written_exactly_as_the_runtime_network():
    rng = np.random.default_rng(0)
    groups = []
    for _ in range(30):
        x = rng.normal(size=(5, 3)).astype(np.float32)
        y = np.zeros(5, np.float32)
        y[int(np.argmax(x[:, 0] - x[:, 1]))] = 1  # the sentence to pick: the first reading minus the second
        groups.append((x, y))
    params = train(groups, l2=0.01)
    x = rng.normal(size=(7, 3)).astype(np.float32)
    w = params["w1"][:, 0]
    assert scores(params, x) == pytest.approx(((x - params["mean"]) / params["scale"]) @ w, abs=1e-5)
    assert w[0] > 0 > w[1]  # it learned the rule


def test_the_picker_never_trains_or_chooses_on_a_frozen_test_set():
    read = {s for s, _ in TRAIN + DEV}
    # g to p spent, q frozen (never trained or chosen on); b to f retired to training
    frozen = {
        "encyclopedia-g",
        "encyclopedia-h",
        "encyclopedia-i",
        "encyclopedia-j",
        "encyclopedia-k",
        "encyclopedia-l",
        "encyclopedia-m",
        "encyclopedia-n",
        "encyclopedia-o",
        "encyclopedia-p",
        "encyclopedia-q",
        "encyclopedia-r",
        "encyclopedia-s",
    }
    assert frozen <= set(QUESTION_SETS) and not read & frozen
    assert ("hotpot", "test") not in TRAIN + DEV
