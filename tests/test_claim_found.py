"""The claim-found model (issue 33): a claim the checks call missing is found where the shipped
model reads it stated in other words; never where the checks prove something against it, never
with another encoder, and recorded in the run."""

import json
import math

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from modules.embeddings import BUNDLED, KeywordEmbedder
from modules.response import AIResponse, ResponseAnalyzer, StoredPage
from modules.response.batch import _claim_found_version
from modules.response.claim_found import FEATURES, WEIGHTS, ClaimFound, claim_features, shipped_claim_found
from modules.response.config import AnalyzerConfig
from modules.response.verdicts import Lexicon, OfflineJudge
from tests.conftest import trees_probability

PAGE = StoredPage(
    url="https://brisk.example/rentals",
    domain="brisk.example",
    text="Brisk Pro costs $12 per month. Drivers aged 21 to 24 pay a young driver surcharge of $15 per day.",
)
#: the claim's words, reordered and abbreviated ("$15/day", "Expect a ..."): the checks' frame of
#: words misses it, the model reads it
REWORDED = AIResponse(
    query_id="surcharge",
    domain="brisk.example",
    query="What does Brisk charge young drivers?",
    claims=["Brisk charges drivers aged 21 to 24 a young driver surcharge of $15 per day"],
    response="Yes — 21 is the minimum. Expect a $15/day young driver surcharge.",
)


def analysed(record: AIResponse, embedder=None, **overrides):
    analyzer = ResponseAnalyzer(AnalyzerConfig.load(None, overrides), embedder=embedder)
    analyzer.claim_rows_sink = []
    gts = analyzer.prepare_ground_truth([PAGE], {"brisk.example"})
    return next(iter(analyzer.iter_batch([record], gts))), analyzer.claim_rows_sink


def test_the_shipped_model_is_boosted_trees_over_the_named_features():
    spec = json.loads(WEIGHTS.read_text())
    model = shipped_claim_found()
    assert tuple(spec["features"]) == FEATURES and spec["version"] == model.version
    assert spec["trees"] and set(spec["config"]) == {
        "rounds",
        "learning_rate",
        "max_leaf_nodes",
        "min_samples_leaf",
    }
    row = [0.5] * len(FEATURES)
    assert math.isclose(ClaimFound().probability(row), trees_probability(spec, row), rel_tol=1e-9)
    # what it was chosen and checked on is recorded: per dev set, and each training set out of fold
    assert 0.5 <= model.threshold < 1
    for name, measured in spec["dev"].items():
        assert {"rows", "gold_found", "auc", "at_threshold"} <= measured.keys(), name
    assert all(v["at_threshold"]["found"] >= v["at_threshold"]["right"] for v in spec["out_of_fold"].values())


def test_a_claim_in_other_words_is_found_by_the_model_and_by_the_checks_alone_missing():
    checks_only, rows = analysed(REWORDED, **{"feedback.min_claim_found": 1.0})
    assert [m.claim.text for m in checks_only.feedback.claims.missing] == [c.text for c in REWORDED.claims]
    ((_, _, features, barred),) = rows
    p = shipped_claim_found().probability(features)
    assert not barred and p >= shipped_claim_found().threshold
    result, _ = analysed(REWORDED)
    (found,) = result.feedback.claims.found
    assert found.confidence == round(p, 4)  # its probability, the closest sentence its evidence
    assert found.evidence == "Expect a $15/day young driver surcharge."
    assert result.scores.completeness.score == 100.0 and not result.feedback.claims.missing


def test_with_another_encoder_the_checks_verdict_stands():
    result, rows = analysed(REWORDED, embedder=KeywordEmbedder())
    assert not result.feedback.claims.found and not rows
    assert _claim_found_version(AnalyzerConfig.load(None, {}), KeywordEmbedder.name) is None


def test_the_model_is_barred_where_the_checks_prove_something_or_the_claim_has_no_words_of_its_own():
    judge = OfflineJudge(Lexicon(None))

    def barred(claim: str, answer: str, implicit: set[str] = frozenset()) -> bool:
        windows = judge.windows(answer)
        return claim_features(
            judge, claim, "required", answer, windows, [0.9] * len(windows), set(implicit), False
        ).barred

    # a value of the claim unstated, another in its place (read as a year: no rival the checks weigh)
    assert barred(
        "The manga ran to 519 chapters in 42 volumes.", "The manga ran to 1557 chapters in 42 volumes."
    )
    # the window stating most of it denies it
    assert barred("Brisk Pro includes phone support.", "Brisk Pro does not include phone support.")
    # nothing but the question's words: the model has nothing to look for
    question = OfflineJudge.keys(["What happens if you touch the eyes of a blind man?"])
    assert barred(
        "Nothing happens if you touch the eyes of a blind man.",
        "The man will get his eyesight back.",
        question,
    )
    assert not barred("Brisk Pro includes phone support.", "Phone support comes with Brisk Pro.")
    # the window stating most of it gives other days, none of the claim's
    claim = "Open Days are the first Sunday of June and the first Sunday of October"
    assert barred(
        claim, "- Open only on two Open Days\n- Dates: first Saturday of June and first Saturday of October"
    )
    assert not barred(
        claim, "- Open only on two Open Days\n- Dates: first Sunday of June and first Sunday of October"
    )


def _guide(claim: str, response: str):
    """The analysis of one answer about the Brisk guide's length, every claim-found probability
    reported (the model's threshold at 0)."""
    record = AIResponse(
        query_id="guide",
        domain="brisk.example",
        query="How long is the Brisk guide?",
        claims=[claim],
        response=response,
    )
    return analysed(record, **{"feedback.min_claim_found": 0.0})[0]


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 2000), st.integers(1, 2000))
# the answer's 42 pages alike in amount to the claim's 42 chapters (found by hypothesis)
@example(wanted=1, stated=42)
def test_a_claim_whose_number_the_answer_states_otherwise_is_never_found(wanted, stated):
    """A model adds evidence; it never finds a claim whose number the answer replaces, even a
    plain count the value checks do not weigh as a rival (without the bar, 11 of 30 were found)."""
    if wanted == stated:
        return
    assume(wanted != 42)  # a claim stating 42 twice: test_a_value_the_claim_states_twice_... (a known limit)
    result = _guide(
        f"The Brisk guide runs to {wanted} pages in 42 chapters",
        f"The Brisk guide runs to {stated} pages in 42 chapters.",
    )
    assert not result.feedback.claims.found


@pytest.mark.xfail(
    strict=True, reason="known limit: compare_values pairs a claim's values without multiplicity"
)
def test_a_value_the_claim_states_twice_is_not_found_where_the_answer_states_it_once():
    """ "42 pages in 42 chapters" is not stated by "1 pages in 42 chapters": the one 42 stands for
    the chapters, not the pages too. The value checks pair both of the claim's 42s with the
    answer's one and find the claim (found by hypothesis). Pairing each stated count once was
    tried (2026-12-07) and lost two right claims on the spent tests, where a count repeats in a
    name and its measure ("Cellar Six ... 6 bottles", "3-year-olds ... aged 3 and 4"): a limit
    kept, not a fix pending."""
    result = _guide(
        "The Brisk guide runs to 42 pages in 42 chapters", "The Brisk guide runs to 1 pages in 42 chapters."
    )
    assert not result.feedback.claims.found


def test_the_run_records_the_model_s_version_unless_it_is_off():
    version = shipped_claim_found().version
    assert _claim_found_version(AnalyzerConfig.load(None, {}), BUNDLED) == version
    assert _claim_found_version(AnalyzerConfig.load(None, {"feedback.min_claim_found": 1.0}), BUNDLED) is None


def test_the_claim_found_model_never_trains_on_the_frozen_verdict_test():
    from evals.precision_fit import SETS
    from evals.train_claim_found import TRAINED_ON
    from evals.train_flag_confidence import FROZEN

    for frozen in FROZEN:
        assert (SETS / f"verdicts-{frozen}-test.jsonl").exists()
        assert frozen not in TRAINED_ON
    assert all((SETS / f"verdicts-{name}-test.jsonl").exists() for name in TRAINED_ON)
