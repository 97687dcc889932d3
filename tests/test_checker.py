"""The statement guard, subject alignment and the trained claim checker (modules/response/checker.py)."""

import numpy as np
import pytest

from modules.embeddings import LocalEmbedder
from modules.response import AIResponse, AnalyzerConfig, ResponseAnalyzer, StoredPage
from modules.response.checker import (
    LABELS,
    ClaimChecker,
    checker_for,
    is_citation,
    not_a_statement,
    pair_features,
    shipped_checker,
)
from modules.response.verdicts import _states, is_negated, other_variant

PAGES = [
    StoredPage(
        url="https://ferry.example/fares",
        title="Fares | Gullwing Ferries",
        text="An adult ticket costs £14. A child ticket costs £7. A family ticket costs £36 for two adults and up to three children. Bicycles travel free.",
    )
]


@pytest.mark.parametrize(
    "text",
    [
        "[1] https://ferry.example/fares",
        "Sources: Gullwing Ferries fares page",
        "https://ferry.example/fares",
        "Most ferry operators charge extra for bicycles.",
        "A lot of island ferries discount returns.",
        "UK ferry operators typically charge £5 for bicycles.",
        "Island ferries in the UK usually carry bicycles free.",
        "I can't confirm the current bicycle policy.",
        "I'm sorry, but I can't help with that.",
        "## Fares and bicycles",
        "**Supported payment methods**",
    ],
)
def test_sentences_that_state_nothing_about_the_site(text):
    assert not_a_statement(text, ["Gullwing Ferries"])


@pytest.mark.parametrize(
    "text",
    [
        "An adult ticket costs £16.",
        "Gullwing Ferries charges £5 for bicycles.",
        "Most Gullwing Ferries sailings allow bicycles.",  # names the site: about the site
        "UK residents pay £14.",  # no market in general without "typically", "range" or the like
        "- Price: $25",  # a list item with a value is a statement, not a citation
        "**Bicycles:** £5 each way",  # a bold label with its statement is no heading
        "## Bicycles\nBicycles cost £5 each way.",
    ],
)
def test_statements_about_the_site_are_checked(text):
    assert not not_a_statement(text, ["Gullwing Ferries"])
    assert not is_citation(text)


def test_a_value_is_compared_only_within_the_same_variant():
    assert other_variant("A child ticket costs £7", "There's also a family ticket at £36")
    assert other_variant("Kestrel's credit card deposit is £500", "Debit cards aren't accepted for Premium")
    assert other_variant("Wrenford children's cards borrow 10 books", "4 DVDs at a time on an adult card")
    # the same variant, or the same words around a different one: compared
    assert not other_variant("An adult ticket costs £14", "An adult ticket is £16")
    assert not other_variant("There are two Blue Badge bays", "There are four Blue Badge parking bays")
    assert not other_variant("Ridgeline gift cards cannot be returned", "although gift cards can be returned")


def test_a_bare_list_item_states_no_polarity_and_exempt_denies():
    assert not _states("- Into England or Wales") and not _states("Not for Premium/Minibus.")
    assert _states("SMS isn't included") and _states("Debit cards aren't accepted for Premium")
    assert is_negated("**Exempt:** children's cards and members aged 65+.")


def test_the_answer_to_a_family_ticket_is_not_a_wrong_child_price():
    analyzer = ResponseAnalyzer()
    record = AIResponse(
        query_id="q",
        domain="ferry.example",
        query="How much is a child ticket on Gullwing Ferries?",
        claims=["A child ticket on Gullwing Ferries costs £7"],
        response="A child ticket is £7. There's also a family ticket at £36 for two adults and up to three kids.",
    )
    wrong = analyzer.analyze(record, PAGES)
    assert list(wrong.feedback.claims.verdicts().values()) == ["found"]
    assert not wrong.feedback.contradictions
    bad = analyzer.analyze(record.model_copy(update={"response": "A child ticket costs £9."}), PAGES)
    assert [c.kind for c in bad.feedback.contradictions] == ["money"] and bad.scores.accuracy.tier == "poor"


@pytest.fixture(scope="module")
def checker() -> ClaimChecker:
    c = shipped_checker()
    assert c is not None, "the checker's weights ship with sleuth (modules/response/checker/)"
    return c


def test_the_shipped_checker_loads_offline_and_gives_probabilities(checker):
    assert checker.version == "claim-checker-1"
    enc = LocalEmbedder()
    premise = ["An adult ticket costs £14."] * 3
    hypotheses = [
        "An adult ticket costs £14.",
        "An adult ticket costs £19.",
        "[1] https://ferry.example/fares",
    ]
    p = checker.probabilities(pair_features(enc.encode(premise), enc.encode(hypotheses), premise, hypotheses))
    assert p.shape == (3, 3) and np.allclose(p.sum(axis=1), 1)
    supports, contradicts, neither = (LABELS.index(x) for x in ("supports", "contradicts", "neither"))
    assert p[0].argmax() == supports and p[1].argmax() == contradicts and p[2].argmax() == neither


def test_the_checker_is_used_only_when_on_and_with_its_embedding():
    assert checker_for(False, "local:all-MiniLM-L6-v2") is None
    assert checker_for(True, "openai:text-embedding-3-small") is None
    assert checker_for(True, "local:all-MiniLM-L6-v2") is shipped_checker()


def test_with_the_checker_on_a_page_wrong_fact_carries_its_probability():
    record = AIResponse(
        query_id="q",
        domain="ferry.example",
        query="How much is an adult ticket?",
        response="An adult ticket costs £19.",
    )
    on = ResponseAnalyzer(
        AnalyzerConfig.load(None, {"feedback.checker": True, "feedback.checker_threshold": 0.0})
    )
    [wrong] = on.analyze(record, PAGES).feedback.contradictions
    assert wrong.source == "ground_truth" and 0 <= wrong.confidence <= 1
    off = ResponseAnalyzer()
    [rule] = off.analyze(record, PAGES).feedback.contradictions
    assert rule.statement == wrong.statement
    strict = ResponseAnalyzer(
        AnalyzerConfig.load(None, {"feedback.checker": True, "feedback.checker_threshold": 1.0})
    )
    assert not strict.analyze(record, PAGES).feedback.contradictions  # below the threshold: not reported
