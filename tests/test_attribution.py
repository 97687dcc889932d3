import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from modules.response.attribution import cited_on_site, find_mentions, normalize_domain, score_attribution
from modules.response.config import AnalyzerConfig, AttributionConfig, TierConfig
from modules.response.schema import AIResponse, Citation
from tests.conftest import NOT_EXAMPLE_COM

#: the seed's scoring alone: presence and the bonus per extra mention, no prominence
SEED = dict(first_sentence_weight=0, first_paragraph_weight=0, list_weight=0, cited_weight=0)


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


@pytest.mark.parametrize("text", NOT_EXAMPLE_COM)
def test_word_and_host_boundaries(text):
    assert kinds(text) == []


def test_bare_host_with_path_is_a_url():
    assert kinds("pricing at example.com/pricing.") == [("url", "example.com/pricing")]


def test_brand_word_boundaries_and_case():
    assert kinds("ACME makes things", brands=["Acme"]) == [("brand", "ACME")]
    assert kinds("Acmeville is a town", brands=["Acme"]) == []


def test_scores_and_bonus_cap():
    cfg, tiers = AttributionConfig(**SEED), TierConfig()
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
    c = result.components
    parts = c.presence_points + c.extra_mention_points + c.position_points + c.list_points + c.cited_points
    assert result.score == pytest.approx(parts - c.capped_points, abs=0.011)
    for m in result.mentions:
        assert text[m.position.start : m.position.end] == m.matched_text
        assert m.matched_text in m.context


def parts(text, citations=(), **config):
    r = score_attribution(
        text, "example.com", ["Acme"], AttributionConfig(**config), TierConfig(), list(citations)
    )
    c = r.components
    return r.score, c.first_mention_in, c.list_rank, c.position_points, c.list_points


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Acme leads. Others follow.", (65, "first_sentence", None, 15, 0)),
        ("Others lead. Then Acme.", (60, "first_paragraph", None, 10, 0)),
        ("Others lead.\n\nAcme comes later.", (58, "later", None, 0, 8)),
        ("Top picks:\n1. Foo\n2. Acme\n3. Bar", (54, "later", 2, 0, 4)),
        ("Top picks:\n\n- Foo\n- Bar\n  * Acme, nested", (52.67, "later", 3, 0, 2.67)),
        ("Top picks:\n1. Foo\n2. Bar\n\nAcme after the list.", (52.67, "later", None, 0, 2.67)),
        ("1. Acme is first.\n2. Foo", (65, "first_sentence", 1, 15, 0)),
        ("1. Foo is first.\n2. Acme", (54, "later", 2, 0, 4)),
        ("Nothing about it.", (0, "none", None, 0, 0)),
    ],
)
def test_prominence_first_sentence_paragraph_and_list_rank(text, expected):
    assert parts(text) == expected


def test_the_first_mention_counts_and_its_position_is_reported():
    text = "Others lead.\n\nAcme later, and Acme again."
    r = score_attribution(text, "example.com", ["Acme"], AttributionConfig(), TierConfig())
    c = r.components
    assert text[c.first_mention_position.start : c.first_mention_position.end] == "Acme"
    assert (c.presence_points, c.extra_mention_points, c.list_points, r.score) == (50, 10, 8, 68)


_WORD, _MENTIONS = "word", ["Acme", "example.com", "https://example.com/x"]
_TOKENS = [_WORD, _WORD, _WORD, "word.", "word!", "\n", "\n\n", "\n1.", "\n2)", "\n-", "\n*", "\n  -", "##"]


_CITATIONS = st.lists(
    st.builds(
        Citation, url=st.sampled_from(["https://example.com/a", "https://other.org"]), rank=st.integers(1, 5)
    ),
    max_size=2,
)


@settings(max_examples=300)
@given(
    st.lists(st.sampled_from(_TOKENS), min_size=2, max_size=40),
    st.integers(0, 999),
    st.integers(0, 999),
    st.booleans(),
    st.sampled_from(_MENTIONS),
    _CITATIONS,
)
@example(["word.", "\n1.", "word", "\n2.", "word", "\n\n", "word"], 1, 2, False, "Acme", [])
@example(["word.", "word", "\n\n", "word", "\n-", "word"], 0, 1, True, "Acme", [])
def test_moving_the_first_mention_earlier_never_lowers_the_score(tokens, a, b, again, mention, citations):
    """The same answer with its first mention moved to an earlier word (with another mention at
    the last word, after both places, or not) scores at least as much, whatever the structure."""
    words = [i for i, t in enumerate(tokens) if t == _WORD]
    if len(words) < 2 or a % len(words) == b % len(words):
        return
    early, late = sorted((words[a % len(words)], words[b % len(words)]))
    last = words[-1] if again and words[-1] > late else None
    cfg = AttributionConfig(max_score=100, url_weight=40, domain_weight=30, brand_weight=20)

    def score(at: int) -> float:
        text = " ".join(mention if i in (at, last) else t for i, t in enumerate(tokens))
        return score_attribution(text, "example.com", ["Acme"], cfg, TierConfig(), citations).score

    assert score(early) >= score(late)


def test_cited_sources_count_as_a_url_citation_of_a_named_site_with_their_rank():
    citations = [
        Citation(url="https://counterexample.com/a", title="Other", rank=1),
        Citation(url="https://docs.example.com/guide", title="Guide", rank=2),
        Citation(url="https://example.com/pricing", title="Pricing", rank=4),
    ]
    text = "Others lead.\n\nAcme comes later."
    r = score_attribution(
        text, "example.com", ["Acme"], AttributionConfig(url_weight=70), TierConfig(), citations
    )
    assert [c.rank for c in r.cited_sources] == [2, 4] and r.has_url_citation and r.has_brand_mention
    assert [m.type for m in r.mentions] == ["brand"]  # mentions stay positions in the text
    c = r.components
    assert (c.presence_from, c.presence_points, c.cited_rank, c.cited_points, c.list_points, r.score) == (
        "url",
        70,
        2,
        5,
        8,
        83,
    )
    # named beyond the first paragraph, as the first list rank (8/15 of the prominence half);
    # cited at rank 2
    assert (r.mention_score, r.citation_score) == (76.67, 75)


def test_a_source_list_link_alone_is_cited_but_not_named_and_never_excellent():
    citations = [
        Citation(url="https://counterexample.com/a", title="Other", rank=1),
        Citation(url="https://docs.example.com/guide", title="Guide", rank=2),
    ]
    alone = score_attribution(
        "Nothing here.", "example.com", [], AttributionConfig(), TierConfig(), citations
    )
    c = alone.components
    assert (c.presence_from, c.presence_points, c.cited_points, alone.score, alone.tier) == (
        "cited_source",
        50,
        5,
        55,
        "fair",
    )
    assert (alone.mention_score, alone.citation_score, alone.has_url_citation) == (0, 75, True)
    nothing = score_attribution(
        "Nothing here.", "example.com", [], AttributionConfig(), TierConfig(), citations[:1]
    )
    assert (nothing.score, nothing.mention_score, nothing.citation_score) == (0, 0, 0)
    assert nothing.components.presence_from == "none"


def test_named_and_linked_in_the_first_sentence_is_full_credit_on_both():
    r = score_attribution(
        "Acme (https://example.com/pricing) is the one.",
        "example.com",
        ["Acme"],
        AttributionConfig(),
        TierConfig(),
    )
    assert (r.mention_score, r.citation_score, r.tier) == (100, 100, "excellent")
    named = score_attribution("Acme is the one.", "example.com", ["Acme"], AttributionConfig(), TierConfig())
    assert (named.mention_score, named.citation_score) == (100, 0)


def test_a_config_that_lets_a_source_list_link_alone_be_excellent_is_refused():
    with pytest.raises(ValueError, match="a source-list link alone is never excellent"):
        AnalyzerConfig.load(overrides={"attribution.cited_source_weight": 80})
    assert AnalyzerConfig.load(overrides={"attribution.cited_source_weight": 80, "tiers.excellent": 95})


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(["https://example.com/x", "example.com", "Acme", "filler.", "\n\n", "- item\n"]),
        max_size=12,
    ),
    st.lists(st.sampled_from(["https://example.com/p", "https://other.org/q"]), max_size=4),
)
def test_mention_and_citation_scores_say_named_and_cited(parts, urls):
    text = " ".join(parts)
    citations = [Citation(url=u, title="", rank=i + 1) for i, u in enumerate(urls)]
    r = score_attribution(text, "example.com", ["Acme"], AttributionConfig(), TierConfig(), citations)
    assert 0 <= r.mention_score <= 100 and 0 <= r.citation_score <= 100
    assert (r.mention_score > 0) == bool(r.mentions)
    assert (r.citation_score > 0) == (any(m.type == "url" for m in r.mentions) or bool(r.cited_sources))
    if not r.mentions:
        assert r.tier != "excellent"


def test_a_search_redirect_counts_by_the_domain_in_its_title():
    redirect = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ"
    citations = [
        Citation(url=redirect + "1", title="example.com", rank=1),
        Citation(url=redirect + "2", title="counterexample.com", rank=2),
        Citation(url="https://other.org/x", title="example.com", rank=3),  # a title alone is no link
        Citation(url=redirect + "3", title="All about example.com", rank=4),
    ]
    assert [c.rank for c in cited_on_site(citations, "www.example.com")] == [1]


def test_prominence_weights_must_not_favour_a_later_place():
    with pytest.raises(ValueError, match="an earlier mention never earns less"):
        AnalyzerConfig.load(overrides={"attribution.list_weight": 20})
    assert (
        AnalyzerConfig.load(
            overrides={"attribution.firstSentenceWeight": 30}
        ).attribution.first_sentence_weight
        == 30
    )


def test_input_citations_may_be_urls_or_unranked_objects():
    record = AIResponse.model_validate(
        {
            "query_id": "q",
            "domain": "example.com",
            "response": "",
            "citations": ["https://a.org", {"url": "https://example.com/x", "title": "X"}],
        }
    )
    assert [(c.url, c.title, c.rank) for c in record.citations] == [
        ("https://a.org", None, 1),
        ("https://example.com/x", "X", 2),
    ]
    assert (
        AIResponse.model_validate(
            {"query_id": "q", "domain": "d.org", "response": "", "citations": None}
        ).citations
        == []
    )
