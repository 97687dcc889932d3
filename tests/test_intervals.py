"""How sure a summary's figures are: Wilson and bootstrap intervals, counting a query's repeated
samples once, significant changes, and which earlier run a run is compared with."""

from datetime import UTC, datetime, timedelta

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from modules.response.intervals import (
    bootstrap_mean,
    cluster_bootstrap_mean,
    cluster_rate_interval,
    rate_interval,
    significant_change,
    wilson,
)
from modules.response.tables import summarize, summarize_competitors, summarize_providers, trend_baseline
from modules.store import ParquetStore, RunKind, runs_frame
from modules.testing import scored_answers


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
    return scored_answers([i < mentioned for i in range(n)], [accuracy] * n, provider=provider)


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


@given(st.lists(st.booleans(), min_size=1, max_size=400), st.integers(0, 5))
def test_one_answer_a_query_keeps_the_wilson_interval(named, unknown):
    """A run that asks each query once keeps its figures: clusters of one answer (and clusters
    with no known answer, which count for nothing) give Wilson of the totals, to the digit."""
    hits, trials = [int(n) for n in named] + [0] * unknown, [1] * len(named) + [0] * unknown
    assert cluster_rate_interval(hits, trials) == wilson(sum(named), len(named))
    assert cluster_rate_interval([], []) == cluster_rate_interval([0], [0]) == (None, None)


@given(st.lists(st.floats(min_value=0, max_value=100), min_size=0, max_size=60))
def test_one_score_a_query_keeps_the_bootstrap_interval(scores):
    assert cluster_bootstrap_mean(scores, [1] * len(scores)) == bootstrap_mean(scores)
    assert cluster_bootstrap_mean([*scores, 0.0], [*([1] * len(scores)), 0]) == bootstrap_mean(scores)


def test_samples_that_agree_say_no_more_than_one_answer_per_query():
    """40 queries asked 5 times, each query's answers alike: 200 answers, but the evidence of 40
    (a little less: the spread is estimated from those 40), not of 200 independent answers."""
    hits, trials = [5] * 12 + [0] * 28, [5] * 40
    low, high = cluster_rate_interval(hits, trials)
    independent, per_query = wilson(60, 200), wilson(12, 40)
    assert low < independent[0] and high > independent[1]
    assert high - low > per_query[1] - per_query[0]
    assert low < 0.3 < high and high - low < 0.35
    # answers that vary within each query as independent ones do: no wider than independent answers
    mixed = cluster_rate_interval([1, 2] * 20, [5] * 40)
    assert mixed == wilson(60, 200)

    scores = [float(10 * (i % 11)) for i in range(40)]
    sums, counts = [5 * s for s in scores], [5] * 40
    clustered = cluster_bootstrap_mean(sums, counts)
    flat = bootstrap_mean([s for s in scores for _ in range(5)])
    assert clustered[0] < flat[0] and clustered[1] > flat[1]
    assert clustered[0] < sum(scores) / 40 < clustered[1]


def test_rates_and_means_without_spread_count_each_query_once():
    assert cluster_rate_interval([0] * 40, [5] * 40) == wilson(0, 40)
    assert cluster_rate_interval([5] * 40, [5] * 40) == wilson(40, 40)
    assert cluster_rate_interval([3], [5]) == wilson(0.6, 1)  # one query: one observation
    low, high = wilson(32, 40)  # 40 queries x 5 answers, every one scored 80
    assert cluster_bootstrap_mean([400.0] * 40, [5] * 40) == (round(100 * low, 2), round(100 * high, 2))
    low, high = wilson(0.8, 1)
    assert cluster_bootstrap_mean([80.0, 80.0], [1, 1]) != cluster_bootstrap_mean([160.0], [2])
    assert cluster_bootstrap_mean([160.0], [2]) == (round(100 * low, 2), round(100 * high, 2))


_cluster = st.integers(1, 8).flatmap(lambda m: st.tuples(st.integers(0, m), st.just(m)))


@settings(max_examples=200, deadline=None)
@given(st.lists(_cluster, min_size=1, max_size=50))
def test_a_clustered_rate_interval_holds_its_rate_within_0_and_1(clusters):
    hits, trials = zip(*clusters)
    low, high = cluster_rate_interval(hits, trials)
    assert 0.0 <= low <= round(sum(hits) / sum(trials), 4) <= high <= 1.0


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(st.floats(min_value=0, max_value=100), min_size=1, max_size=6), min_size=1, max_size=30)
)
def test_a_clustered_bootstrap_interval_holds_its_mean_within_0_and_100(clusters):
    sums, counts = [sum(c) for c in clusters], [len(c) for c in clusters]
    interval = cluster_bootstrap_mean(sums, counts)
    if sum(counts) < 2:
        assert interval == (None, None)
        return
    low, high = interval
    mean = sum(sums) / sum(counts)
    assert 0 <= low <= round(mean, 2) + 0.01 and round(mean, 2) - 0.01 <= high <= 100
    assert cluster_bootstrap_mean(sums, counts) == (low, high)  # seeded


def test_answers_of_their_own_queries_keep_their_figures_to_the_digit():
    """Each answer its own query (distinct ids, no id, or a table without ``query_id``): the
    intervals of the answers as independent, their scores resampled in row order."""
    t0 = datetime(2026, 11, 1, tzinfo=UTC)
    rows = _analyses(120, 45, 0.0).with_columns(
        (pl.int_range(120) * 37 % 101).cast(pl.Float64).alias("accuracy_score"),
        pl.when(pl.int_range(120) % 3 == 0)
        .then(None)
        .otherwise(pl.format("q{}", pl.int_range(120)))
        .alias("query_id"),
    )
    scores = rows["accuracy_score"].to_list()
    for frame in (rows, rows.drop("query_id")):
        row = summarize_providers(frame, t0, pl.DataFrame()).to_dicts()[0]
        assert (row["mention_rate_low"], row["mention_rate_high"]) == wilson(45, 120)
        assert (row["accuracy_mean_low"], row["accuracy_mean_high"]) == bootstrap_mean(scores)


def _sampled(queries: int, samples: int, named: int, distinct: bool) -> pl.DataFrame:
    """``queries`` queries asked ``samples`` times each, every answer to a query alike (the first
    ``named`` queries name the site, 20 queries from the sixth name a rival), or, ``distinct``,
    the same answers each with its own query id."""
    rows = _analyses(queries * samples, 0, 0.0).to_dicts()
    for i, row in enumerate(rows):
        q = i // samples
        row |= {
            "query_id": f"q{i}" if distinct else f"q{q}",
            "sample": None if distinct else i % samples + 1,
            "has_brand_mention": q < named,
            "site_named_first": q < named,
            "accuracy_score": float(10 * (q % 11)),
            "competitors": [
                {"name": "Rival", "mentioned": 6 <= q < 26, "cited": False, "named_first": False}
            ],
            "competitors_mentioned": int(6 <= q < 26),
        }
    return pl.DataFrame(rows)


def test_repeated_samples_of_a_query_count_as_one_query_in_every_summary():
    t0 = datetime(2026, 11, 1, tzinfo=UTC)
    clustered, flat = _sampled(40, 5, 12, distinct=False), _sampled(40, 5, 12, distinct=True)
    for summarise in (summarize, summarize_providers):
        wide = summarise(clustered, t0, pl.DataFrame()).to_dicts()[0]
        narrow = summarise(flat, t0, pl.DataFrame()).to_dicts()[0]
        same = [k for k in wide if not k.endswith(("_low", "_high"))]
        assert {k: wide[k] for k in same} == {k: narrow[k] for k in same}  # figures, counts unchanged
        assert narrow["mention_rate"] == 0.3 and narrow["scored_count"] == 200
        assert (narrow["mention_rate_low"], narrow["mention_rate_high"]) == wilson(60, 200)
        for measure in ("mention_rate", "first_position_rate", "accuracy_mean", "share_of_voice"):
            assert wide[f"{measure}_low"] < narrow[f"{measure}_low"], measure
            assert wide[f"{measure}_high"] > narrow[f"{measure}_high"], measure
    wide = summarize_providers(clustered, t0, pl.DataFrame()).to_dicts()[0]
    narrow = summarize_providers(flat, t0, pl.DataFrame()).to_dicts()[0]
    assert wide["correct_mention_rate_high"] > narrow["correct_mention_rate_high"]

    rivals = {
        distinct: {r["brand"]: r for r in summarize_competitors(frame, t0, pl.DataFrame()).to_dicts()}
        for distinct, frame in ((False, clustered), (True, flat))
    }
    for brand, named, share in (("site.example", 60, 0.375), ("Rival", 100, 0.625)):
        wide, narrow = rivals[False][brand], rivals[True][brand]
        assert wide["mention_rate"] == narrow["mention_rate"] == named / 200
        assert wide["share_of_voice"] == narrow["share_of_voice"] == share
        assert (narrow["mention_rate_low"], narrow["mention_rate_high"]) == wilson(named, 200)
        for measure in ("mention_rate", "share_of_voice"):
            assert wide[f"{measure}_low"] < narrow[f"{measure}_low"], (brand, measure)
            assert wide[f"{measure}_high"] > narrow[f"{measure}_high"], (brand, measure)
