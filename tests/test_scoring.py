"""The one scoring rule (modules/response/scoring.py): its bands, and that re-analysis of a stored
result with the same pages gives the same scores."""

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modules.response import ResponseAnalyzer, load_pages
from modules.response.analyzer import record_from_result
from modules.response.config import TierConfig
from modules.response.records import load_records
from modules.response.schema import (
    AccuracyComponents,
    AccuracyResult,
    Contradiction,
    ExpectedClaim,
    TextPosition,
)
from modules.response.scoring import accuracy_of, claims_for

SAMPLES = Path(__file__).resolve().parents[1] / "datasets" / "samples"
TIERS = TierConfig()
CLAIMS = [
    ExpectedClaim(id="a", text="A costs $6", importance="required"),
    ExpectedClaim(id="b", text="A has 100 GB", importance="required"),
    ExpectedClaim(id="c", text="A syncs", importance="optional"),
]


def _closeness(similarity: float) -> AccuracyResult:
    return AccuracyResult(score=similarity, tier="fair", similarity=similarity / 100)


def _wrong(n: int) -> list[Contradiction]:
    return [
        Contradiction(
            statement=f"wrong {i}",
            position=TextPosition(start=i, end=i + 1),
            kind="number",
            evidence="",
            source="claim",
            confidence=0.9,
        )
        for i in range(n)
    ]


@given(
    similarity=st.floats(0, 100),
    found=st.sets(st.sampled_from(["a", "b", "c"])),
    contradicted=st.sets(st.sampled_from(["a", "b"])),
    extra_wrong=st.integers(0, 3),
)
def test_bands(similarity, found, contradicted, extra_wrong):
    found -= contradicted
    wrong = _wrong(len(contradicted) + extra_wrong)
    tier = accuracy_of(_closeness(similarity), CLAIMS, found, contradicted, wrong, TIERS).tier
    if contradicted:
        assert tier == "poor"  # a contradicted required claim
    elif wrong:
        assert tier == "fair"  # any wrong fact: fair at best
    elif {"a", "b"} <= found:
        assert tier == "excellent"  # complete and correct
    elif found & {"a", "b"}:
        assert tier in ("good", "excellent")
    else:
        assert tier in ("fair", "good", "excellent")


@given(
    low=st.floats(0, 100),
    high=st.floats(0, 100),
    found=st.sets(st.sampled_from(["a", "b"])),
    wrong=st.integers(0, 2),
)
def test_closer_wording_never_scores_lower(low, high, found, wrong):
    low, high = sorted((low, high))
    a, b = (accuracy_of(_closeness(s), CLAIMS, found, set(), _wrong(wrong), TIERS).score for s in (low, high))
    assert a <= b


def test_each_broken_required_claim_lowers_the_ceiling():
    one = accuracy_of(_closeness(100), CLAIMS, {"b"}, {"a"}, _wrong(1), TIERS)
    two = accuracy_of(_closeness(100), CLAIMS, set(), {"a", "b"}, _wrong(2), TIERS)
    assert two.score < one.score < TIERS.fair and one.components.capped_by.startswith(
        "1 contradicted claim(s)"
    )


def test_no_claims_no_expected_answer_is_similarity_and_says_so():
    r = accuracy_of(_closeness(90), [], set(), set(), _wrong(1), TIERS)
    assert r.components.basis == "similarity" and r.tier == "fair"
    r = accuracy_of(
        AccuracyResult(score=80, tier="good", similarity=0.8, components=AccuracyComponents()),
        [],
        set(),
        set(),
        [],
        TIERS,
    )
    assert r.score == 80 and r.components.basis == "similarity"


@pytest.fixture(scope="module")
def sample():
    records, errors, _ = load_records(SAMPLES / "responses.jsonl")
    assert not errors
    analyzer = ResponseAnalyzer()
    pages = load_pages(SAMPLES / "pages.jsonl")
    results = list(
        analyzer.iter_batch(records, analyzer.prepare_ground_truth(pages, {r.domain for r in records}))
    )
    return analyzer, pages, records, results


def _verdicts(result):
    scores = result.scores
    return (
        scores.accuracy.score,
        scores.accuracy.tier,
        scores.completeness.score if scores.completeness else None,
        scores.attribution.score,
        result.feedback.claims.verdicts(),
        [(c.position.start, c.position.end, c.kind) for c in result.feedback.contradictions],
    )


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_reanalyze_with_the_same_pages_is_idempotent(sample, data):
    """Analyse, re-analyse the stored result, re-analyse that: the same scores and verdicts each
    time (claims cut from the expected answer are not stored back as given claims)."""
    analyzer, pages, records, results = sample
    i = data.draw(st.integers(0, len(records) - 1))
    again = analyzer.reanalyze(results[i], pages)
    assert _verdicts(again) == _verdicts(results[i])
    assert [c.id for c in record_from_result(again).claims] == [c.id for c in records[i].claims]
    assert _verdicts(analyzer.reanalyze(again, pages)) == _verdicts(results[i])


def test_claims_cut_from_the_expected_answer_are_the_same_everywhere(sample):
    _, _, records, results = sample
    for record, result in zip(records, results):
        assert [c.text for c in result.expected_claims] == [c.text for c in claims_for(record)]
