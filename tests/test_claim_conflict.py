"""The claim-conflict model (issue 33): a claim the checks call missing is contradicted where a
window gives one of its values otherwise in few of the claim's words and the shipped model reads
it as the claim misstated; never where the answer states the value alike, never with another
encoder, and recorded in the run."""

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from modules.embeddings import BUNDLED, KeywordEmbedder
from modules.response import AIResponse, ResponseAnalyzer, StoredPage
from modules.response.batch import _claim_conflict_version
from modules.response.claim_conflict import (
    FEATURES,
    WEIGHTS,
    ClaimConflict,
    conflict_features,
    shipped_claim_conflict,
)
from modules.response.config import AnalyzerConfig
from modules.response.facts import values
from modules.response.verdicts import Lexicon, OfflineJudge
from tests.conftest import trees_probability

PAGE = StoredPage(
    url="https://pawpath.example/walks",
    domain="pawpath.example",
    text="Pawpath runs group walks in Victoria Park every weekday morning. A solo walk costs £18.",
)
#: the limit misstated in a list item that says "up to" where the claim says "limited to": too few
#: of the claim's own words for the checks, and the pages do not state the limit
MISSTATED = AIResponse(
    query_id="walks",
    domain="pawpath.example",
    query="How do Pawpath's dog walks work?",
    claims=["Group walks are limited to 4 dogs."],
    response="- Solo walks: £18\n- Group walks: up to 6 dogs",
)


def analysed(record: AIResponse, embedder=None, **overrides):
    analyzer = ResponseAnalyzer(AnalyzerConfig.load(None, overrides), embedder=embedder)
    analyzer.conflict_rows_sink = []
    gts = analyzer.prepare_ground_truth([PAGE], {"pawpath.example"})
    return next(iter(analyzer.iter_batch([record], gts))), analyzer.conflict_rows_sink


def test_the_shipped_model_is_boosted_trees_over_the_named_features():
    spec = json.loads(WEIGHTS.read_text())
    model = shipped_claim_conflict()
    assert tuple(spec["features"]) == FEATURES and spec["version"] == model.version
    assert spec["trees"] and set(spec["config"]) == {
        "rounds",
        "learning_rate",
        "max_leaf_nodes",
        "min_samples_leaf",
    }
    row = [0.5] * len(FEATURES)
    assert math.isclose(ClaimConflict().probability(row), trees_probability(spec, row), rel_tol=1e-9)
    # what it was chosen and checked on is recorded: per dev set, and each training set out of fold
    assert 0.5 <= model.threshold < 1
    for name, measured in spec["dev"].items():
        assert {"rows", "gold_contradicted", "auc", "at_threshold"} <= measured.keys(), name
    assert all(
        v["at_threshold"]["contradicted"] >= v["at_threshold"]["right"] for v in spec["out_of_fold"].values()
    )


def test_a_value_misstated_in_few_of_the_claim_s_words_is_contradicted_by_the_model_and_missing_by_the_checks():
    checks_only, rows = analysed(MISSTATED, **{"feedback.min_claim_conflict": 1.0})
    assert [m.claim.text for m in checks_only.feedback.claims.missing] == [c.text for c in MISSTATED.claims]
    assert not checks_only.feedback.claims.contradicted
    ((_, _, features, window),) = rows
    assert window == "- Group walks: up to 6 dogs"
    assert shipped_claim_conflict().probability(features) >= shipped_claim_conflict().threshold
    result, _ = analysed(MISSTATED)
    (contradicted,) = result.feedback.claims.contradicted
    assert contradicted.evidence == "4 (claim) vs 6 (response)" and contradicted.kind == "number"
    assert contradicted.statement == window
    assert result.scores.accuracy.score < checks_only.scores.accuracy.score


def test_with_another_encoder_the_checks_verdict_stands():
    result, rows = analysed(MISSTATED, embedder=KeywordEmbedder())
    assert not result.feedback.claims.contradicted and not rows
    assert _claim_conflict_version(AnalyzerConfig.load(None, {}), KeywordEmbedder.name) is None


def test_the_model_is_asked_only_of_a_value_stated_otherwise_in_a_window_about_the_claim():
    judge = OfflineJudge(Lexicon(None))

    def read(claim: str, answer: str, implicit: set[str] = frozenset()):
        windows = judge.windows(answer)
        return conflict_features(
            judge, claim, "required", windows, [0.8] * len(windows), set(implicit), values("£2,000")
        )

    claim = "A £2,000 booking fee secures a date at Oak Barn."
    assert read(claim, "The £2,000 booking fee secures your date.") is None  # stated alike
    assert read("Oak Barn secures dates with a booking fee.", "A £2,500 booking fee.") is None  # no value
    assert read(claim, "Parking costs £5 a day.") is None  # about something else
    stated = read(claim, "Oak Barn: £2,500 booking fee. Parking is free.")
    assert stated.window.span.text == "Oak Barn: £2,500 booking fee."
    assert stated.detail == "£2,000 (claim) vs £2,500 (response)" and stated.kind == "money"
    by_name = dict(zip(FEATURES, stated.features))
    assert by_name["kind_money"] == 1.0 and by_name["rival_on_site"] == 0.0
    assert by_name["bound_in_claim"] == 1.0  # "booking fee", what the £2,500 is of, is the claim's
    assert by_name["hedged"] == 0.0
    assert (
        dict(zip(FEATURES, read(claim, "I think Oak Barn asks a £2,500 booking fee.").features))["hedged"]
        == 1.0
    )
    # a word that holds "think" is no hedge
    rethink = read(claim, "Rethink Oak Barn: £2,500 booking fee.")
    assert rethink is not None and dict(zip(FEATURES, rethink.features))["hedged"] == 0.0


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 40))
def test_an_answer_stating_the_claim_s_value_alike_is_never_contradicted_by_the_model(limit):
    """A model adds evidence; it never contradicts a claim whose value the answer states alike,
    even at a threshold of 0."""
    record = AIResponse(
        query_id="walks",
        domain="pawpath.example",
        query=MISSTATED.query,
        claims=[f"Group walks are limited to {limit} dogs."],
        response=f"- Solo walks: £18\n- Group walks: up to {limit} dogs",
    )
    result, rows = analysed(record, **{"feedback.min_claim_conflict": 0.0})
    assert not result.feedback.claims.contradicted and not rows


def test_the_run_records_the_model_s_version_unless_it_is_off():
    version = shipped_claim_conflict().version
    assert _claim_conflict_version(AnalyzerConfig.load(None, {}), BUNDLED) == version
    off = AnalyzerConfig.load(None, {"feedback.min_claim_conflict": 1.0})
    assert _claim_conflict_version(off, BUNDLED) is None


def test_the_claim_conflict_model_never_trains_on_the_frozen_verdict_test():
    from evals.precision_fit import SETS
    from evals.train_claim_conflict import TRAINED_ON
    from evals.train_flag_confidence import FROZEN

    for frozen in FROZEN:
        assert (SETS / f"verdicts-{frozen}-test.jsonl").exists()
        assert frozen not in TRAINED_ON
    assert all((SETS / f"verdicts-{name}-test.jsonl").exists() for name in TRAINED_ON)
