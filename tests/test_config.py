import pytest
from hypothesis import given
from hypothesis import strategies as st

from modules.response.config import AnalyzerConfig, TierConfig
from modules.response.tiers import tier_for

ORDER = {"poor": 0, "fair": 1, "good": 2, "excellent": 3}


def test_defaults_match_the_seed():
    c = AnalyzerConfig()
    assert c.completeness.similarity_threshold == 0.75
    assert (c.attribution.url_weight, c.attribution.domain_weight, c.attribution.brand_weight) == (
        100,
        75,
        50,
    )
    assert (c.attribution.multi_mention_bonus, c.attribution.max_score) == (10, 100)
    assert (c.tiers.excellent, c.tiers.good, c.tiers.fair) == (85, 70, 50)
    assert c.batch.concurrency == 5 and c.batch.max_retries == 2 and c.batch.continue_on_error


def test_toml_in_either_case_and_overrides(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text('[accuracy]\nchunkingStrategy = "paragraphs"\naggregation = "mean"\n[tiers]\ngood = 65\n')
    c = AnalyzerConfig.load(f, {"completeness.require_all_required": True})
    assert c.accuracy.chunking_strategy == "paragraphs" and c.accuracy.aggregation == "mean"
    assert c.tiers.good == 65 and c.completeness.require_all_required


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"tiers.good": 90}, "tier thresholds"),
        ({"accuracy.chunking_strategy": "words"}, "chunking"),
        ({"nope.field": 1}, "nope"),
        ({"accuracy": 1}, "section.field"),
    ],
)
def test_bad_config_is_a_clear_error(overrides, message):
    with pytest.raises(ValueError, match=message):
        AnalyzerConfig.load(None, overrides)


def test_missing_or_invalid_file(tmp_path):
    with pytest.raises(ValueError, match="not found"):
        AnalyzerConfig.load(tmp_path / "missing.toml")
    (tmp_path / "bad.toml").write_text("[[[")
    with pytest.raises(ValueError, match="not valid TOML"):
        AnalyzerConfig.load(tmp_path / "bad.toml")


@given(st.floats(0, 100), st.floats(0, 100), st.floats(1, 98), st.floats(1, 30), st.floats(1, 30))
def test_tiers_monotone_in_score(a, b, fair, d1, d2):
    tiers = (
        TierConfig(fair=fair, good=min(fair + d1, 99), excellent=min(fair + d1 + d2, 100))
        if fair + d1 < 99
        else TierConfig()
    )
    lo, hi = sorted((a, b))
    assert ORDER[tier_for(lo, tiers)] <= ORDER[tier_for(hi, tiers)]


def test_cli_options_and_set_overrides(tmp_path):
    from flows.cli import build_parser
    from flows.cli.analysis import config_from

    f = tmp_path / "c.toml"
    f.write_text("[tiers]\ngood = 65\n")
    args = build_parser().parse_args(
        [
            "analyze",
            "in.jsonl",
            "--ground-truth",
            "p.jsonl",
            "--config",
            str(f),
            "--chunking",
            "paragraphs",
            "--claim-threshold",
            "0.7",
            "--require-all-required",
            "--set",
            "attribution.multiMentionBonus=5",
            "--set",
            "accuracy.method=cosine",
            "--stop-on-error",
        ]
    )
    c = config_from(args)
    assert (c.tiers.good, c.accuracy.chunking_strategy, c.accuracy.method) == (65, "paragraphs", "cosine")
    assert c.completeness.similarity_threshold == 0.7 and c.completeness.require_all_required
    assert c.attribution.multi_mention_bonus == 5 and not c.batch.continue_on_error
