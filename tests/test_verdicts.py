"""Claim verdicts and wrong facts (issue 15): the committed sample behaves as a site owner expects,
and the offline judge's invariants hold."""

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modules.response import AIResponse, StoredPage
from modules.response.facts import values
from modules.response.verdicts import _negated, _negation_about, _terms

SAMPLES = Path(__file__).resolve().parent.parent / "datasets" / "samples"


@pytest.fixture(scope="module")
def sample(analyzer):
    """The sample's analyses, by (query id, provider)."""
    records = [
        AIResponse(**json.loads(line)) for line in (SAMPLES / "responses.jsonl").read_text().splitlines()
    ]
    pages = [StoredPage(**json.loads(line)) for line in (SAMPLES / "pages.jsonl").read_text().splitlines()]
    gts = analyzer.prepare_ground_truth(pages, {r.domain for r in records})
    return {(r.query_id, r.provider): res for r, res in zip(records, analyzer.iter_batch(records, gts))}


def verdicts(result) -> dict[str, str]:
    return result.feedback.claims.verdicts()


def test_a_correct_paraphrased_answer_is_complete_and_good(sample):
    for provider in (
        "openai",
        "anthropic",
    ):  # "$6 per month ... billed annually" / "about $6 a month (billed yearly)"
        r = sample["nimbus-price-plus", provider]
        assert verdicts(r) == {"price": "found", "storage": "found", "billing": "found"}
        assert r.scores.completeness.score == 100
        assert r.scores.accuracy.tier in ("good", "excellent")
        assert r.feedback.contradictions == []


def test_a_wrong_price_and_storage_are_contradicted_and_rated_below_the_right_answer(sample):
    wrong, right = sample["nimbus-price-plus", "perplexity"], sample["nimbus-price-plus", "openai"]
    assert verdicts(wrong)["price"] == "contradicted" and verdicts(wrong)["storage"] == "contradicted"
    assert wrong.scores.accuracy.score < right.scores.accuracy.score
    assert wrong.scores.accuracy.tier in ("fair", "poor")
    assert wrong.scores.accuracy.components.wrong_facts == 2
    kinds = {c.kind for c in wrong.feedback.contradictions}
    assert kinds == {"money", "quantity"}
    for c in wrong.feedback.contradictions:
        assert wrong.response[c.position.start : c.position.end] == c.statement
    assert any("$9.99" in c.statement for c in wrong.feedback.contradictions)
    assert wrong.scores.completeness.total_found == 0  # contradicted claims are not found


def test_a_wrong_height_is_never_highlighted_as_matching(sample):
    r = sample["everest-height", "perplexity"]  # "9,100 metres tall and is located in the Andes"
    assert r.feedback.highlights.highlights == []
    assert any("9,100" in c.statement for c in r.feedback.contradictions)
    andes = [c for c in r.feedback.contradictions if "Andes" in c.statement]  # the page: "of the Himalayas"
    assert (
        andes
        and andes[0].kind == "entity"
        and andes[0].source == "ground_truth"
        and "Himalayas" in andes[0].detail
    )


def test_a_paraphrase_of_a_claim_is_found_and_not_reported_as_unsupported(sample):
    r = sample["nimbus-offline", "anthropic"]  # "Changes are synced once you are back online."
    found = {c.claim.text: c.evidence for c in r.feedback.claims.found}
    assert (
        found["Edits sync automatically when you reconnect"] == "Changes are synced once you are back online."
    )
    assert "Changes are synced once you are back online." not in [
        u.statement for u in r.feedback.claims.not_in_ground_truth
    ]


def test_another_substance_contradicts_the_claim(sample):
    r = sample["photosynthesis-byproduct", "perplexity"]  # "releases carbon dioxide"
    assert [c.kind for c in r.feedback.claims.contradicted] == ["entity"]
    right = sample["photosynthesis-byproduct", "anthropic"]
    assert verdicts(right) == {"claim-1": "found"}


def test_negations_that_deny_nothing():
    assert not _negated("The Free plan costs nothing.")
    assert not _negated("I don't have reliable information about who founded it.")
    assert not _negated("Wheelchairs can be borrowed at no cost.")
    assert not _negated("No. The page says applicants must be citizens.")
    assert _negated("Tickets are non-refundable.") and _negated("It excludes water damage.")
    terms = _terms("Pulsewise paused its Fitbit integration in May 2024")
    assert not _negation_about("Fitbit - not supported (integration paused in May 2024)", terms)
    assert _negation_about("Pulsewise has not paused its Fitbit integration", terms)


def test_citations_list_numbers_and_model_names_are_not_values():
    assert values("Basalt lists the BX-1000 at 1,024 Wh [1].")[0].text == "1,024 Wh"
    assert len(values("Basalt lists the BX-1000 at 1,024 Wh [1].")) == 1
    assert values("1.") == [] and values("see acme.example/v2/docs") == []
    assert [v.kind for v in values("open 10 a.m. to 5 p.m.")] == ["time", "time"]


SITE = [
    StoredPage(
        url="https://acme.example/pricing",
        title="Pricing | Acme",
        text="The Starter plan costs $10 per month. The Pro plan costs $30 per month and includes 500 GB of storage.",
    )
]
CLAIMS = [
    "The Pro plan costs $30 per month",
    "The Pro plan includes 500 GB of storage",
    "The Starter plan costs $10 per month",
]
FILLER = [
    "Acme is a cloud storage company.",
    "Prices may change.",
    "Here is what I found.",
    "Hope this helps!",
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    claim=st.sampled_from(CLAIMS),
    before=st.sampled_from(FILLER),
    after=st.sampled_from(FILLER),
    factor=st.sampled_from([2, 3, 7]),
)
def test_verbatim_claims_are_found_and_a_changed_number_is_contradicted(
    analyzer, claim, before, after, factor
):
    gt = analyzer.prepare_ground_truth(SITE, ["acme.example"])["acme.example"]
    response = f"{before} {claim}. {after}"
    r = analyzer.analyze(
        AIResponse(query_id="q", domain="acme.example", response=response, claims=[claim]), gt
    )
    assert verdicts(r) == {"claim-1": "found"}
    position = r.scores.completeness.claims_found[0].position
    assert 0 <= position.start < position.end <= len(response)
    number = values(claim)[0]
    changed = claim.replace(
        number.text,
        number.text.replace(
            str(int(number.raw if number.raw else number.amount / number.factor)),
            str(int(number.raw if number.raw else number.amount / number.factor) * factor),
        ),
    )
    wrong = f"{before} {changed}. {after}"
    r = analyzer.analyze(AIResponse(query_id="q", domain="acme.example", response=wrong, claims=[claim]), gt)
    assert verdicts(r) == {"claim-1": "contradicted"}
    for c in [*r.feedback.claims.contradicted, *r.feedback.contradictions]:
        assert 0 <= c.position.start < c.position.end <= len(wrong)
        assert wrong[c.position.start : c.position.end] == c.statement
    assert r.scores.accuracy.tier in ("fair", "poor")
