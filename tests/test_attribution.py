import pytest
from hypothesis import given
from hypothesis import strategies as st

from modules.response.attribution import find_mentions, normalize_domain, score_attribution
from modules.response.config import AttributionConfig, TierConfig


def kinds(text, domain="example.com", brands=()):
    return [(m.type, m.matched_text) for m in find_mentions(text, domain, list(brands))]


@pytest.mark.parametrize(
    "raw", ["https://www.Example.com/a?b=1", "example.com", "WWW.EXAMPLE.COM.", "http://example.com:8080"]
)
def test_domain_variants_normalise(raw):
    assert normalize_domain(raw) == "example.com"


def test_url_domain_and_brand_detection():
    text = "See https://docs.example.com/guide. Also www.example.com, info@example.com and Example Corp."
    assert kinds(text, brands=["Example Corp"]) == [
        ("url", "https://docs.example.com/guide"),
        ("domain", "www.example.com"),
        ("domain", "example.com"),
        ("brand", "Example Corp"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "counterexample.com.au is a different site",
        "see example.com.au",
        "myexample.com",
        "https://notexample.com/x",
        "example.community",
        "example-com",
    ],
)
def test_word_and_host_boundaries(text):
    assert kinds(text) == []


def test_bare_host_with_path_is_a_url():
    assert kinds("pricing at example.com/pricing.") == [("url", "example.com/pricing")]


def test_brand_word_boundaries_and_case():
    assert kinds("ACME makes things", brands=["Acme"]) == [("brand", "ACME")]
    assert kinds("Acmeville is a town", brands=["Acme"]) == []


def test_scores_and_bonus_cap():
    cfg, tiers = AttributionConfig(), TierConfig()
    assert score_attribution("Nothing here", "example.com", [], cfg, tiers).score == 0
    assert score_attribution("Acme", "example.com", ["Acme"], cfg, tiers).score == 50
    assert score_attribution("Acme and Acme", "example.com", ["Acme"], cfg, tiers).score == 60
    assert score_attribution("example.com", "example.com", [], cfg, tiers).score == 75
    r = score_attribution("https://example.com/a " * 5, "example.com", [], cfg, tiers)
    assert r.score == 100 and r.has_url_citation and len(r.mentions) == 5


@given(
    st.lists(
        st.sampled_from(
            ["https://example.com/x", "example.com", "Acme", "filler words", "counterexample.com.au", "\n"]
        ),
        max_size=30,
    ),
    st.floats(0, 100),
    st.floats(0, 50),
)
def test_attribution_score_bounded_and_positions_valid(parts, cap, bonus):
    text = " ".join(parts)
    cfg = AttributionConfig(max_score=cap, multi_mention_bonus=bonus)
    result = score_attribution(text, "example.com", ["Acme"], cfg, TierConfig())
    assert 0 <= result.score <= cap
    for m in result.mentions:
        assert text[m.position.start : m.position.end] == m.matched_text
        assert m.matched_text in m.context
