"""How sure a summary's figures are: Wilson and bootstrap intervals, significant changes, and
which earlier run a run is compared with."""

from datetime import UTC, datetime, timedelta

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from modules.response.intervals import bootstrap_mean, rate_interval, significant_change, wilson
from modules.response.tables import summarize, summarize_providers, trend_baseline
from modules.store import ParquetStore, RunKind, runs_frame


def test_wilson_matches_the_textbook_values():
    # Newcombe (1998), table I: 0/10 -> 0-0.2775, 1/10 -> 0.0179-0.4042, 81/263 -> 0.2553-0.3662
    assert wilson(0, 10) == (0.0, 0.2775)
    assert wilson(1, 10) == (0.0179, 0.4042)
    assert wilson(81, 263) == (0.2553, 0.3662)
    assert wilson(0, 0) == (None, None)


@given(st.integers(min_value=1, max_value=5000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_a_wilson_interval_holds_its_rate_within_0_and_1(case):
    k, n = case
    low, high = wilson(k, n)
    assert 0.0 <= low <= round(k / n, 4) <= high <= 1.0
    assert rate_interval(round(k / n, 4), n) == (low, high) or n > 5000


@given(st.lists(st.floats(min_value=0, max_value=100), min_size=2, max_size=60))
def test_a_bootstrap_interval_holds_its_mean_and_is_reproducible(scores):
    low, high = bootstrap_mean(scores)
    mean = sum(scores) / len(scores)
    assert 0 <= low <= round(mean, 2) + 0.01 and round(mean, 2) - 0.01 <= high <= 100
    assert bootstrap_mean(scores) == (low, high)  # seeded


def test_identical_scores_do_not_claim_certainty():
    assert bootstrap_mean([100.0] * 5) == (56.55, 100.0)
    assert bootstrap_mean([0.0] * 5) == (0.0, 43.45)


def test_one_answer_has_no_interval_and_no_significant_change():
    assert bootstrap_mean([100.0]) == (None, None)
    assert significant_change(100.0, (None, None), 0.0, (None, None)) is None


@pytest.mark.parametrize(
    ("now", "before", "significant"),
    [
        ((12, 40), (12, 40), False),  # nothing changed
        ((16, 40), (12, 40), False),  # +10 points on 40 answers: noise
        ((30, 40), (12, 40), True),  # +45 points: real
        ((160, 400), (120, 400), True),  # +10 points on 400 answers: real
    ],
)
def test_a_change_is_significant_only_beyond_the_noise_of_both_runs(now, before, significant):
    rate_now, rate_before = now[0] / now[1], before[0] / before[1]
    assert significant_change(rate_now, wilson(*now), rate_before, wilson(*before)) is significant, (
        now,
        before,
    )


def _analyses(n: int, mentioned: int, accuracy: float, provider: str = "p") -> pl.DataFrame:
    rows = [
        {
            "domain": "site.example",
            "query_set_id": "qs",
            "provider": provider,
            "model": "m",
            "status": "ok",
            "flags": [],
            "accuracy_score": accuracy,
            "accuracy_tier": "good",
            "completeness_score": 50.0,
            "completeness_tier": "fair",
            "attribution_score": 50.0,
            "attribution_tier": "fair",
            "has_url_citation": False,
            "has_domain_mention": False,
            "has_brand_mention": i < mentioned,
            "has_wrong_fact": False,
            "site_cited": False,
            "site_named_first": i < mentioned,
        }
        for i in range(n)
    ]
    return pl.DataFrame(rows)


def test_summaries_carry_intervals_and_say_which_changes_are_noise():
    t0 = datetime(2026, 11, 1, tzinfo=UTC)
    first = summarize_providers(_analyses(40, 12, 80.0), t0, pl.DataFrame())
    row = first.to_dicts()[0]
    assert row["scored_count"] == 40 and row["mention_rate"] == 0.3
    assert (row["mention_rate_low"], row["mention_rate_high"]) == wilson(12, 40)
    # every answer alike: no spread to resample, so the bound for 0-100 scores, never "80 (80-80)"
    low, high = wilson(32, 40)
    assert (row["accuracy_mean_low"], row["accuracy_mean_high"]) == (
        round(100 * low, 2),
        round(100 * high, 2),
    )
    assert row["mention_rate_delta_significant"] is None  # nothing to compare with
    previous = first.with_columns(pl.lit("run-1").alias("run_id"))
    noise = summarize_providers(_analyses(40, 16, 80.0), t0 + timedelta(days=7), previous).to_dicts()[0]
    assert noise["mention_rate_delta"] == 0.1 and noise["mention_rate_delta_significant"] is False
    real = summarize_providers(_analyses(40, 30, 80.0), t0 + timedelta(days=7), previous).to_dicts()[0]
    assert real["mention_rate_delta_significant"] is True
    domain = summarize(_analyses(40, 12, 80.0), t0, pl.DataFrame()).to_dicts()[0]
    assert domain["mention_rate_low"] == row["mention_rate_low"] and domain["voice_count"] == 0


def test_a_run_is_compared_with_the_same_kind_of_measurement(tmp_path):
    """An analyze never compares with a monitor's answers; a reanalyze with the run it re-scores;
    a run analysed with another configuration is not comparable."""
    store = ParquetStore(str(tmp_path))
    t0 = datetime(2026, 11, 1, tzinfo=UTC)
    asked = '[{"provider": "openai", "model": "openai/gpt-4o-mini", "temperature": null, "rpm": 60}]'
    others = '[{"provider": "anthropic", "model": "anthropic/claude-3-5-haiku-latest"}]'
    runs = [
        ("analysed", RunKind.ANALYZE, "cfg", "responses.jsonl", None),
        ("monitored", RunKind.MONITOR, "cfg", "queries.jsonl", asked),
        ("other-config", RunKind.ANALYZE, "cfg2", "responses.jsonl", None),
        ("other-providers", RunKind.MONITOR, "cfg", "queries.jsonl", others),
    ]
    for i, (run_id, kind, config, path, providers) in enumerate(runs):
        summaries = summarize(_analyses(10, i + 1, 70.0), t0 + timedelta(hours=i), pl.DataFrame())
        row = runs_frame(
            kind, t0 + timedelta(hours=i), input_path=path, config_hash=config, providers=providers
        )
        with store.run_writer(run_id) as writer:
            writer.write("summaries", summaries)
            writer.write("runs", row)
    ids = lambda frame: sorted(set(frame["run_id"].to_list()))  # noqa: E731
    assert ids(trend_baseline(store, "summaries", RunKind.ANALYZE, config_hash="cfg")) == ["analysed"]
    assert ids(trend_baseline(store, "summaries", RunKind.MONITOR, config_hash="cfg")) == [
        "monitored",
        "other-providers",
    ]
    # the same providers and models, however politely asked (rpm changes no answer)
    same = asked.replace('"rpm": 60', '"rpm": 5')
    assert ids(trend_baseline(store, "summaries", RunKind.MONITOR, config_hash="cfg", providers=same)) == [
        "monitored"
    ]
    rescoring = trend_baseline(
        store, "summaries", RunKind.REANALYZE, config_hash="cfg", input_path="run_id=monitored"
    )
    assert ids(rescoring) == ["monitored"]
