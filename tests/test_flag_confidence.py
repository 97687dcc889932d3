"""The wrong facts' confidence (issue 33, item 4): the probability of the shipped model, applied the
same way in every run, recorded in the run, and off on request."""

import json
import math

import numpy as np

from modules.embeddings import KeywordEmbedder, LocalEmbedder
from modules.response import AIResponse, ResponseAnalyzer, StoredPage
from modules.response.config import AnalyzerConfig
from modules.response.flag_confidence import (
    COSINES,
    FEATURES,
    WEIGHTS,
    FlagConfidence,
    FlagContext,
    flag_features,
    flag_rows,
    shipped_flag_confidence,
    site_sentences,
)
from modules.response.schema import Contradiction, TextPosition

PAGE = StoredPage(
    url="https://brisk.example/pricing",
    domain="brisk.example",
    text="Brisk Pro costs $12 per month. Brisk Pro includes 50 GB of storage.",
)
WRONG = AIResponse(
    query_id="q",
    domain="brisk.example",
    query="How much is Brisk Pro?",
    claims=["Brisk Pro costs $12 per month"],
    response="Brisk Pro costs $19 per month and includes 50 GB of storage.",
)


def context() -> FlagContext:
    """The answer's context as the analyzer gives it, without vectors (the site's sentences)."""
    gt = ResponseAnalyzer().prepare_ground_truth([PAGE], {"brisk.example"})["brisk.example"]
    return FlagContext(WRONG.response, WRONG.query, site_sentences(gt))


def weighed(embedder=None, **overrides) -> list[tuple]:
    """The (record, flags, feature rows) the analyzer weighs for ``WRONG``, the rules' flags."""
    analyzer = ResponseAnalyzer(
        AnalyzerConfig.load(None, {"feedback.calibrated_confidence": False, **overrides}), embedder=embedder
    )
    analyzer.flag_rows_sink = []
    gts = analyzer.prepare_ground_truth([PAGE], {"brisk.example"})
    list(analyzer.iter_batch([WRONG], gts))
    return analyzer.flag_rows_sink


def flag(**kw) -> Contradiction:
    base = dict(
        statement="Brisk Pro costs $19 per month",
        position=TextPosition(start=0, end=29),
        kind="money",
        evidence="Brisk Pro costs $12 per month",
        source="claim",
        confidence=0.9,
    )
    return Contradiction(**{**base, **kw})


def test_the_shipped_model_is_a_logistic_model_over_the_named_features():
    spec = json.loads(WEIGHTS.read_text())
    assert tuple(spec["features"]) == FEATURES and spec["version"] == shipped_flag_confidence().version
    row = flag_features(flag(), context(), 1)
    assert len(row) == len(FEATURES)
    row = [spec["mean"][i] if x is None else x for i, x in enumerate(row)]  # no encoder: the mean
    z = sum((x - m) / s * w for x, m, s, w in zip(row, spec["mean"], spec["scale"], spec["weights"]))
    expected = 1 / (1 + math.exp(-(z + spec["bias"])))
    assert math.isclose(float(FlagConfidence().probabilities([row])[0]), expected, rel_tol=1e-9)
    for name, measured in spec["dev"].items():  # what it was checked on is recorded, per set
        assert {"flags", "right", "rules", "model"} <= measured.keys(), name


def test_an_analyst_s_flag_keeps_its_confidence_and_others_are_weighed_by_kind():
    model = shipped_flag_confidence()
    flags = [flag(), flag(source="analyst", confidence=1.0), flag(kind="negation", source="ground_truth")]
    out = model.calibrated(flags, context())
    assert out[1].confidence == 1.0
    # the confidence depends on what the flag is: a page's negation is not a claim's changed price
    # (compared unrounded: both may round to the same 0.997)
    price, negation = model.probabilities(flag_rows([flags[0], flags[2]], context()))
    assert price != negation


def test_a_run_s_wrong_facts_carry_the_model_s_probability_unless_it_is_off():
    def analysed(**overrides):
        analyzer = ResponseAnalyzer(AnalyzerConfig.load(None, overrides))
        gts = analyzer.prepare_ground_truth([PAGE], {"brisk.example"})
        return next(iter(analyzer.iter_batch([WRONG], gts)))

    raw = analysed(**{"feedback.calibrated_confidence": False}).feedback.contradictions
    calibrated = analysed(**{"feedback.min_flag_confidence": 0.0}).feedback.contradictions
    assert [c.statement for c in raw] == [c.statement for c in calibrated] and raw
    ((_, flags, rows),) = weighed()  # the rows the analyzer computed for the rules' flags
    assert flags == raw
    expected = shipped_flag_confidence().probabilities(rows)
    assert [c.confidence for c in calibrated] == [round(float(p), 3) for p in expected]
    assert [c.confidence for c in calibrated] != [c.confidence for c in raw]
    # by default, the flags the shipped threshold keeps (a claim's changed price is one of them)
    shipped = analysed().feedback.contradictions
    threshold = shipped_flag_confidence().threshold
    assert [c.statement for c in shipped] == [c.statement for c in calibrated if c.confidence >= threshold]
    assert shipped


def test_the_shipped_threshold_is_the_one_dev_scored_best():
    spec = json.loads(WEIGHTS.read_text())
    assert 0 <= spec["threshold"] < 1 and FlagConfidence().threshold == spec["threshold"]
    dev_f = {float(t): f for t, f in spec["dev_f"].items()}
    assert dev_f[spec["threshold"]] == max(dev_f.values())
    # of thresholds scoring as well, the highest (precision first)
    assert all(f < dev_f[spec["threshold"]] for t, f in dev_f.items() if t > spec["threshold"])
    # the trade the threshold makes elsewhere is on record: precision for caught wrong facts
    curve = {float(t): m for t, m in spec["out_of_fold"].items()}
    assert curve[0.9]["precision"] > curve[0.0]["precision"] and curve[0.9]["caught"] < curve[0.0]["caught"]


def test_a_flag_below_the_threshold_is_dropped_but_an_analyst_s_is_kept():
    model = shipped_flag_confidence()
    flags = [flag(), flag(source="analyst", confidence=0.2)]
    ctx = context()
    p = model.calibrated(flags, ctx)[0].confidence
    assert model.kept(flags, ctx, minimum=p) == model.calibrated(flags, ctx)
    above = model.kept(flags, ctx, minimum=min(p + 0.001, 1.0))
    assert [f.source for f in above] == ["analyst"]


def test_a_dropped_flag_s_sentence_is_neither_flagged_nor_shown_as_matching():
    analyzer = ResponseAnalyzer(AnalyzerConfig.load(None, {"feedback.min_flag_confidence": 0.9999}))
    gts = analyzer.prepare_ground_truth([PAGE], {"brisk.example"})
    result = next(iter(analyzer.iter_batch([WRONG], gts)))
    assert result.feedback.contradictions == []
    flagged = "Brisk Pro costs $19 per month"
    assert not any(flagged in h.response_text for h in result.feedback.highlights.highlights)


def test_a_claim_whose_every_wrong_fact_was_dropped_is_missing_not_contradicted():
    def claims(minimum: float):
        analyzer = ResponseAnalyzer(AnalyzerConfig.load(None, {"feedback.min_flag_confidence": minimum}))
        gts = analyzer.prepare_ground_truth([PAGE], {"brisk.example"})
        return next(iter(analyzer.iter_batch([WRONG], gts))).feedback.claims

    kept_all, dropped_all = claims(0.0), claims(0.9999)
    assert [c.claim.text for c in kept_all.contradicted] == ["Brisk Pro costs $12 per month"]
    assert dropped_all.contradicted == []
    assert [m.claim.text for m in dropped_all.missing] == ["Brisk Pro costs $12 per month"]


def reading(row: list, name: str):
    return row[FEATURES.index(name)]


def test_a_value_the_site_states_elsewhere_with_the_statement_s_words_is_support():
    # the answer's "$19" is the Team plan's price: another page sentence states the statement's
    # words with no value against them; a claim's changed price has no such sentence
    team = StoredPage(
        url="https://brisk.example/team", domain="brisk.example", text="Brisk Team costs $19 per month."
    )
    gt = ResponseAnalyzer().prepare_ground_truth([PAGE, team], {"brisk.example"})["brisk.example"]
    other = flag(statement="Brisk Team costs $19 per month")
    supported = flag_features(other, FlagContext(WRONG.response, WRONG.query, site_sentences(gt)), 1)
    alone = flag_features(flag(), context(), 1)
    assert reading(supported, "site_support") == 1.0
    assert reading(alone, "site_support") < 1.0  # "$12" conflicts with the only sentence about Pro


def test_a_value_no_sentence_of_the_site_states_is_read_as_unstated():
    # "$19" is stated nowhere on the site: invented; the Team plan's page states it: another
    # variant's value; "50 GB" is the site's own; a statement without values reads 0
    team = StoredPage(
        url="https://brisk.example/team", domain="brisk.example", text="Brisk Team costs $19 per month."
    )
    gt = ResponseAnalyzer().prepare_ground_truth([PAGE, team], {"brisk.example"})["brisk.example"]
    with_team = FlagContext(WRONG.response, WRONG.query, site_sentences(gt))
    assert reading(flag_features(flag(), context(), 1), "unstated_value") == 1.0
    assert reading(flag_features(flag(), with_team, 1), "unstated_value") == 0.0
    both = flag(statement="Brisk Pro costs $19 per month and includes 50 GB")
    assert reading(flag_features(both, context(), 1), "unstated_value") == 0.5
    plain = flag(statement="Brisk Pro has no free plan", kind="negation")
    assert reading(flag_features(plain, context(), 1), "unstated_value") == 0.0


def test_a_total_the_answer_works_out_from_its_own_values_is_read_as_derived():
    # "£90.00" is £40 + 2 x £25, "€231.00" 7 nights at the €33.00 the answer gave: the answer's
    # arithmetic; "£45" is no sum of the answer's values, and a count from elsewhere is no factor
    def derived(statement: str, response: str) -> float:
        ctx = FlagContext(response, "", ())
        return reading(
            flag_features(flag(statement=statement, source="ground_truth"), ctx, 1), "derived_value"
        )

    family = "An adult is £40 and a child £25. £90.00 total (£40 adult + 2 × £25)."
    assert derived("£90.00 total (£40 adult + 2 × £25).", family) == 1.0
    stay = "It is €30.00 a night plus €3.00 in peak season, making it €33.00 a night. €231.00 for 7 nights."
    assert derived("€231.00 for 7 nights.", stay) == 1.0
    assert derived("making it €33.00 a night", stay) == 1.0
    assert derived("An adult is £45.", "An adult is £45 and a child £25.") == 0.0
    assert derived("That's £150.00.", "Clay is £12.50 a bag and 12 bags come with it. That's £150.00.") == 0.0
    assert derived("Brisk Pro has no free plan", WRONG.response) == 0.0


def test_the_readings_of_the_statement_and_the_values():
    row = flag_features(flag(detail="$19 per month (response) vs $12 per month (claim)"), context(), 2)
    assert reading(row, "flags") == math.log2(3) and reading(row, "shared_value") == 0.0
    assert reading(row, "statement_negated") == 0.0 and reading(row, "hedged") == 0.0
    hedged = flag_features(flag(statement="- I think Brisk Pro isn't $19"), context(), 1)
    assert (
        reading(hedged, "hedged")
        == reading(hedged, "list_item")
        == reading(hedged, "statement_negated")
        == 1.0
    )
    denial = flag_features(flag(kind="negation", detail='affirmed in the response: "..."'), context(), 1)
    assert (reading(denial, "rule_affirmed"), reading(denial, "rule_negated")) == (1.0, 0.0)


def test_the_cosines_read_the_vectors_of_the_analysis_and_without_minilm_their_training_mean():
    ((_, flags, rows),) = weighed()
    claim_flag = next(i for i, f in enumerate(flags) if f.source == "claim")
    row = rows[claim_flag]
    # the answer's sentence that holds the flag, and the claim, as MiniLM encodes them
    sentence, claim = LocalEmbedder().encode([WRONG.response, WRONG.claims[0].text])
    expected = float(sentence @ claim / np.linalg.norm(sentence) / np.linalg.norm(claim))
    assert math.isclose(reading(row, "cosine_evidence"), expected, abs_tol=1e-4)
    assert all(-1.0 <= reading(row, name) <= 1.0 for name in COSINES)
    # another encoder's vectors are not what the model was trained on: the cosines are missing
    ((_, _, keyword_rows),) = weighed(KeywordEmbedder())
    assert all(reading(keyword_rows[claim_flag], name) is None for name in COSINES)
    model = shipped_flag_confidence()
    missing = flag_features(flag(), context(), 1)
    filled = [model.mean[i] if x is None else x for i, x in enumerate(missing)]
    assert model.probabilities([missing])[0] == model.probabilities([filled])[0]


def test_the_confidence_model_never_trains_on_the_frozen_verdict_test():
    """sites-ak is the frozen test of the next piece of verdict work: run once at the end of it,
    never read by the trainer before (the retired tests it reads were each run and reported
    first)."""
    from evals.train_flag_confidence import FROZEN, RETIRED, SETS

    assert FROZEN and all((SETS / f"verdicts-{frozen}-test.jsonl").exists() for frozen in FROZEN)
    assert not set(FROZEN) & set(RETIRED) and all(
        (SETS / f"verdicts-{name}-test.jsonl").exists() for name in RETIRED
    )
