"""The report's answer calibration: features computed alike for any short answer, the shipped
weights, and what a report says at each confidence."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from evals.research_runs import RETIRED, SOURCES
from modules.research.answer import Evidence, answer
from modules.research.calibration import (
    FEATURES,
    TRUSTED,
    WEIGHTS,
    WITHHELD_BELOW,
    AnswerContext,
    AnswerRanker,
    Calibrator,
    answer_features,
    qualified,
    shipped,
)
from modules.research.ranking import FEATURES as RANKER_FEATURES
from modules.research.ranking import AnswerRankerWeights, candidate_features, shipped_ranker, type_fits
from modules.research.schema import Report

W = "https://en.wikipedia.org/wiki/"
QUESTION = "In what city was the founder of the Acme Bakery born?"
FACTS = [
    Evidence("The Acme Bakery was founded in 1901 by Jane Roe.", W + "Acme_Bakery", "Acme Bakery"),
    Evidence("Jane Roe (1870-1950) was a baker born in Lyon.", W + "Jane_Roe", "Jane Roe"),
    Evidence("Lyon is a city in France.", W + "Lyon", "Lyon"),
]


def _features(short: str, embedder) -> dict[str, float]:
    return answer_features(short, AnswerContext(QUESTION, answer(QUESTION, FACTS), FACTS), embedder)


def test_the_shipped_weights_cover_every_feature_and_say_what_they_were_trained_on():
    data = json.loads(WEIGHTS.read_text())
    assert data["features"] == list(FEATURES) and len(data["weights"]) == len(FEATURES)
    assert data["trained_on"]["rows"] > 0 and "train" in data["trained_on"]["questions"]
    assert {"dev", "train"} <= set(data["scores"])
    # each retired test set is scored by a calibrator fitted without it: the unseen-question figure
    assert set(data["scores"]["left_out"]) == set(RETIRED)


def test_the_calibrator_never_trains_on_a_frozen_test_set():
    from evals.hotpot import QUESTION_SETS

    frozen = {
        "encyclopedia-p",
        "encyclopedia-q",
        "encyclopedia-r",
        "encyclopedia-s",
    }  # -p, -q spent; -r, -s frozen
    assert set(RETIRED) <= set(QUESTION_SETS) and not frozen & set(RETIRED)
    assert not set(RETIRED) & set(SOURCES)  # the two split sets give their train parts only


def test_every_feature_is_a_number_from_0_to_1_for_any_answer(embedder):
    for short in ("Lyon", "Jane Roe", "1901", "yes", ""):
        f = _features(short, embedder)
        assert set(f) == set(FEATURES) and all(0.0 <= v <= 1.0 for v in f.values()), short


def test_the_offline_answer_is_rated_above_a_name_of_the_wrong_kind(embedder):
    """The answerer's own answer, stated by a fact and of the asked kind, against a person's name
    given for "in what city" by a model: the offline checks give the model's answer less."""
    assert answer(QUESTION, FACTS).text == "Lyon"
    right, wrong = _features("Lyon", embedder), _features("Jane Roe", embedder)
    assert right["offline_agrees"] == 1.0 and wrong["offline_agrees"] == 0.0
    assert right["type_fit"] > wrong["type_fit"]
    assert shipped().probability(right) > shipped().probability(wrong)


def type_fit(question: str, kind: str, short: str, embedder) -> float:
    return type_fits(question, kind, [short], embedder)[0]


def test_type_fit_reads_dates_numbers_and_the_asked_noun(embedder):
    assert type_fit("When was it built?", "date", "in 1901", embedder) == 1.0
    assert type_fit("When was it built?", "date", "Jane Roe", embedder) == 0.0
    assert type_fit("How many members?", "number", "seven", embedder) == 1.0
    assert type_fit("Is it old?", "yes_no", "maybe", embedder) == 0.0
    assert type_fit("Who is older, Ann Lee or Bo Ray?", "choice", "Bo Ray", embedder) == 1.0
    gas = "What gas do plants release during photosynthesis?"
    assert type_fit(gas, "entity", "oxygen", embedder) > type_fit(gas, "entity", "Canna", embedder)
    # one encoding for many answers gives each the figure it gets alone
    together = type_fits(gas, "entity", ["oxygen", "Canna"], embedder)
    assert together == [
        type_fit(gas, "entity", "oxygen", embedder),
        type_fit(gas, "entity", "Canna", embedder),
    ]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=len(FEATURES), max_size=len(FEATURES)))
def test_the_probability_is_a_probability_and_rises_with_each_positive_weight(values):
    features = dict(zip(FEATURES, values))
    model = shipped()
    p = model.probability(features)
    assert 0.0 < p < 1.0
    for name, w in zip(FEATURES, model.weights):
        more = model.probability({**features, name: min(1.0, features[name] + 0.5)})
        assert (more >= p) if w >= 0 else (more <= p)


def _report(short: str) -> Report:
    return Report(short_answer=short, answer_type="place", answer="Lyon. Jane Roe was born in Lyon [1].")


def test_a_report_says_what_its_confidence_allows():
    trusted = qualified(_report("Lyon"), TRUSTED)
    assert trusted == _report("Lyon")
    medium = qualified(_report("Lyon"), (TRUSTED + WITHHELD_BELOW) / 2)
    assert medium.short_answer == "Lyon" and "medium" in medium.answer
    low = qualified(_report("Lyon"), WITHHELD_BELOW - 0.01)
    assert low.short_answer == "" and low.answer.startswith(
        'Not established: the likeliest answer in the sources read, "Lyon"'
    )
    assert low.answer.endswith("check it. Jane Roe was born in Lyon [1].")  # no longer opens "Lyon."
    assert qualified(_report(""), 0.0) == _report("")
    # a model's answer that is the bare word does not trail the note ("... check it. No")
    bare = Report(short_answer="no", answer_type="yes_no", answer="No")
    assert qualified(bare, 0.1).answer.endswith("a person should check it.")
    nobody = Report(short_answer="no", answer_type="yes_no", answer="Nobody was born there [1].")
    assert qualified(nobody, 0.1).answer.endswith("check it. Nobody was born there [1].")


def test_a_neutral_calibrator_rates_every_answer_one_half():
    neutral = Calibrator(tuple(0.0 for _ in FEATURES), 0.0)
    assert neutral.probability(dict.fromkeys(FEATURES, 1.0)) == 0.5


def _only(feature: str, weight: float = 5.0) -> AnswerRankerWeights:
    return AnswerRankerWeights(tuple(weight if f == feature else 0.0 for f in RANKER_FEATURES))


def test_the_ranker_keeps_the_pick_on_a_tie_and_never_reranks_a_yes_or_no(embedder):
    context = AnswerContext(QUESTION, answer(QUESTION, FACTS), FACTS)
    neutral = AnswerRankerWeights(tuple(0.0 for _ in RANKER_FEATURES))
    assert AnswerRanker(embedder, lambda: _only("pick"))(context) == context.found
    assert AnswerRanker(embedder, lambda: neutral)(context).text  # a tie still names a candidate
    yes_no = "Was Jane Roe born in Lyon?"
    found = answer(yes_no, FACTS)
    ranked = AnswerRanker(embedder, lambda: _only("type_fit", -5.0))(AnswerContext(yes_no, found, FACTS))
    assert ranked == found


def test_a_candidate_the_ranker_rates_higher_replaces_the_pick_citing_its_fact(embedder):
    """A ranker that distrusts the answerer's pick prefers another candidate the facts state,
    and cites the sentence that states it."""
    context = AnswerContext(QUESTION, answer(QUESTION, FACTS), FACTS)
    ranked = AnswerRanker(embedder, lambda: _only("pick", -5.0))(context)
    assert context.found.text == "Lyon" and ranked.text not in ("", "Lyon")
    assert ranked.complete and all(ranked.text in f.text for f in ranked.support)


def test_the_answer_ranker_reads_each_candidate_the_same_way(embedder):
    """Every candidate gets every feature, from 0 to 1 but the cosines; the answerer's pick is
    marked; the asking sentence's closest fact marks the candidates it states."""
    found = answer(QUESTION, FACTS)
    rows = candidate_features(QUESTION, FACTS, found, embedder)
    by = dict(rows)
    assert "Lyon" in by and by["Lyon"]["pick"] == 1.0 and sum(x["pick"] for _, x in rows) == 1.0
    for _, x in rows:
        assert set(x) == set(RANKER_FEATURES)
        assert all(0.0 <= x[f] <= 1.0 for f in RANKER_FEATURES if not f.startswith("cos")), x
    assert by["Lyon"]["hop_page"] == 1.0  # Jane Roe's page, named by the bakery's, not the question
    shares = shipped_ranker().shares(rows)
    assert abs(sum(shares) - 1.0) < 1e-9 and all(p > 0 for p in shares)


def test_the_shipped_answer_ranker_says_what_it_was_trained_on():
    from modules.research.ranking import WEIGHTS as RANKER_WEIGHTS

    data = json.loads(RANKER_WEIGHTS.read_text())
    assert data["features"] == list(RANKER_FEATURES) and len(data["weights"]) == len(RANKER_FEATURES)
    assert set(data["scores"]["left_out"]) >= set(RETIRED)
    # on questions it never saw it gives the right answer no less often than the answerer's pick
    left_out = data["scores"]["left_out"].values()
    assert sum(s["ranker_f1"] for s in left_out) > sum(s["pick_f1"] for s in left_out)


def test_a_question_is_read_as_what_it_asks_and_what_it_describes_on_the_way():
    from modules.research.ranking import question_parts

    assert question_parts(
        "The Rothschild family comes from a German city. Which bank is based in that city?"
    ) == (
        "Which bank is based in that city?",
        "The Rothschild family comes from a German city.",
    )
    asked, described = question_parts("What position was held by the woman who portrayed Corliss Archer?")
    assert (
        asked.strip() == "What position was held by the woman"
        and described == "who portrayed Corliss Archer?"
    )
    assert question_parts("Who directed Jaws?") == ("Who directed Jaws?", "")


def test_a_kept_research_run_reads_back_as_the_context_it_was():
    """The trainers read the loop's runs from a file: what is written is what they rate."""
    import dataclasses

    from evals.research_runs import context_of

    found = answer(QUESTION, FACTS)
    row = {
        "question": QUESTION,
        "found": dataclasses.asdict(found),
        "facts": [dataclasses.asdict(f) for f in FACTS],
        "handover": "Lyon",
        "conflicts": False,
    }
    context = context_of(json.loads(json.dumps(row)))
    assert context == AnswerContext(QUESTION, found, FACTS, "Lyon", False)
