"""Competitors and share of voice: matching with attribution's word and host boundaries, cited
sources, where a brand is first named, the analyses columns and the summaries' rates and deltas."""

from datetime import UTC, datetime, timedelta

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from modules.response.analyzer import record_from_result
from modules.response.attribution import find_mentions
from modules.response.competitors import presence, presences
from modules.response.schema import AIResponse, Citation, Competitor, StoredPage
from modules.response.tables import (
    analyses_frame,
    analysis_row,
    summarize,
    summarize_competitors,
    summarize_providers,
)
from tests.conftest import NOT_EXAMPLE_COM

RIVAL = Competitor(name="Rival", domains=["example.com"], brand_names=["Rival Notes"])


def rival(text: str, citations=()):
    return presence(text, RIVAL.name, RIVAL.domains, RIVAL.brand_names, list(citations))


@pytest.mark.parametrize("text", [*NOT_EXAMPLE_COM, "Rivalry is not a brand", "RivalNotes neither"])
def test_competitor_matching_keeps_word_and_host_boundaries(text):
    p = rival(text)
    assert not p.mentioned and p.mentions == 0 and not p.cited and p.first_position is None


@pytest.mark.parametrize(
    "text, cited",
    [
        ("try www.example.com", False),
        ("mail info@example.com", False),
        ("docs at https://docs.example.com/guide.", True),
        ("pricing at example.com/pricing", True),
        ("RIVAL NOTES is popular", False),
        ("Rival is popular", False),  # the name is a brand name too
    ],
)
def test_competitor_is_found_as_the_site_would_be(text, cited):
    p = rival(text)
    assert p.mentioned and p.mentions == 1 and p.cited == cited
    assert text[p.first_position.start : p.first_position.end].lower() in text.lower()


def test_a_competitor_is_cited_by_the_assistants_sources_with_their_rank():
    sources = [
        Citation(url="https://counterexample.com/a", rank=1),
        Citation(url="https://blog.example.com/post", rank=3),
        Citation(url="https://example.com/", rank=5),
    ]
    p = rival("No brand named in the text.", sources)
    assert p.cited and p.cited_rank == 3 and not p.mentioned
    several = presence(
        "Other", "Other", ["other.org", "other.net"], [], [Citation(url="http://other.net", rank=2)]
    )
    assert several.cited and several.cited_rank == 2
    assert presence("see other.net/x and Other", "Other", ["other.org", "other.net"], [], []).mentions == 2


def test_where_the_first_mention_stands():
    assert rival("Rival is best. Then others.").first_mention_in == "first_sentence"
    assert rival("Others first. Then Rival.\n\nMore.").first_mention_in == "first_paragraph"
    assert rival("Others first.\n\nThen Rival.").first_mention_in == "later"


def test_the_brand_named_first_among_the_site_and_its_competitors():
    rivals = [RIVAL, Competitor(name="Other", domains=["other.org"])]
    site, (r, o) = presences(
        "Other and Rival Notes; Nimbus Notes too.", "nimbusnotes.example", ["Nimbus Notes"], rivals
    )
    assert o.named_first and not r.named_first and not site.named_first
    assert site.mentioned and r.mentioned and o.first_position.start == 0
    site, (r, o) = presences("Nimbus Notes, then Rival.", "nimbusnotes.example", ["Nimbus Notes"], rivals)
    assert site.named_first and not r.named_first and not o.mentioned
    site, others = presences("Nobody here.", "nimbusnotes.example", ["Nimbus Notes"], rivals)
    assert not site.named_first and not any(c.named_first for c in others)


@given(
    st.lists(
        st.sampled_from(
            [
                "https://example.com/x",
                "example.com",
                "Rival Notes",
                "Rival",
                "filler words",
                "counterexample.com.au",
                "Nimbus Notes",
                "nimbusnotes.example",
                ".",
                "\n\n",
            ]
        ),
        max_size=25,
    )
)
def test_competitor_mentions_are_the_attribution_matchers_and_one_brand_is_first(parts):
    text = " ".join(parts)
    site, (r,) = presences(text, "nimbusnotes.example", ["Nimbus Notes"], [RIVAL])
    # the same matcher as attribution: a competitor is the site's mentions on its own domain and brands
    expected = find_mentions(text, "example.com", ["Rival Notes", "Rival"])
    assert r.mentions == len(expected) and r.mentioned == bool(expected)
    assert site.mentions == len(find_mentions(text, "nimbusnotes.example", ["Nimbus Notes"]))
    named = [b for b in (site, r) if b.mentioned]
    assert sum(b.named_first for b in (site, r)) == (1 if named else 0)
    for b in named:
        assert b.first_position.start == min(
            m.position.start
            for m in find_mentions(text, b.domains[0], [*b.brand_names, *(["Rival"] if b is r else [])])
        )


PAGES = [
    StoredPage(
        url="https://nimbusnotes.example/pricing",
        text="Nimbus Notes Plus costs $6 per month.",
        title="Pricing | Nimbus Notes",
    )
]


def test_the_analysis_records_each_brand_and_keeps_the_competitors_for_reanalysis(analyzer):
    record = AIResponse(
        query_id="q",
        domain="nimbusnotes.example",
        query="How much is Plus?",
        response="Rival Notes is cheaper. Nimbus Notes Plus costs $6 per month.",
        competitors=[RIVAL, Competitor(name="Other", domains=["other.org"])],
        citations=[Citation(url="https://nimbusnotes.example/pricing", rank=2)],
    )
    result = analyzer.analyze(record, PAGES)
    assert result.site.mentioned and result.site.cited and result.site.cited_rank == 2
    assert [c.name for c in result.competitors] == ["Rival", "Other"]
    assert result.competitors[0].named_first and not result.site.named_first
    row = analysis_row(result)
    assert row["site_cited"] and row["site_named_first"] is False and row["competitors_mentioned"] == 1
    assert (
        row["competitors"][0]["first_start"] == 0
        and row["competitors"][0]["first_mention_in"] == "first_sentence"
    )
    assert not row["competitors"][1]["mentioned"]
    assert '"competitors":[{"name":"Rival"' in row["result_json"]
    assert record_from_result(result).competitors == record.competitors


def _row(provider: str, status="ok", site=False, cited=False, first=False, named=()):
    """An analyses row with the columns the summaries read."""
    comps = [
        {
            "name": n,
            "mentioned": n in named,
            "cited": False,
            "mentions": int(n in named),
            "first_start": 0 if n in named else None,
            "first_mention_in": None,
            "cited_rank": None,
            "named_first": bool(named) and n == named[0] and not first,
        }
        for n in ("Rival", "Other")
    ]
    return {
        "domain": "nimbusnotes.example",
        "query_set_id": "s",
        "provider": provider,
        "model": "m",
        "status": status,
        "flags": [],
        "has_url_citation": cited if status != "error" else None,
        "has_domain_mention": False if status != "error" else None,
        "has_brand_mention": site if status != "error" else None,
        "has_wrong_fact": False if status != "error" else None,
        "site_cited": cited if status != "error" else None,
        "site_named_first": first if status != "error" else None,
        "competitors_mentioned": len(named) if status != "error" else None,
        "competitors": comps if status != "error" else None,
    }


def _with_run(df: pl.DataFrame, run_id: str) -> pl.DataFrame:
    return df.with_columns(pl.lit(run_id).alias("run_id"))


def test_visibility_rates_and_share_of_voice_with_deltas_against_the_previous_run():
    t1, t2 = datetime(2026, 11, 16, tzinfo=UTC), datetime(2026, 11, 23, tzinfo=UTC)
    week1 = analyses_frame(
        [
            _row("a", named=("Rival",)),
            _row("a", named=("Rival", "Other")),
            _row("a", site=True, first=True, named=("Other",)),
            _row("a", status="error"),
        ]
    )
    week2 = analyses_frame(
        [
            _row("a", site=True, cited=True, first=True, named=("Rival",)),
            _row("a", site=True, first=True),
            _row("a", named=("Rival",)),
        ]
    )
    s1 = summarize(week1, t1, pl.DataFrame())
    p1 = summarize_providers(week1, t1, pl.DataFrame())
    c1 = summarize_competitors(week1, t1, pl.DataFrame())
    for table in (s1, p1):
        r = table.row(0, named=True)
        assert r["mention_rate"] == pytest.approx(1 / 3, abs=1e-4) and r["citation_rate"] == 0
        assert r["first_position_rate"] == pytest.approx(1 / 3, abs=1e-4)
        assert r["share_of_voice"] == pytest.approx(1 / 5)  # us 1, Rival 2, Other 2
        assert r["share_of_voice_delta"] is None
    s2 = summarize(week2, t2, _with_run(s1, "w1"))
    p2 = summarize_providers(week2, t2, _with_run(p1, "w1"))
    c2 = summarize_competitors(week2, t2, _with_run(c1, "w1"))
    for table in (s2, p2):
        r = table.row(0, named=True)
        assert r["previous_run_id"] == "w1"
        assert r["share_of_voice"] == pytest.approx(2 / 4) and r["share_of_voice_delta"] == pytest.approx(0.3)
        assert r["mention_rate_delta"] == pytest.approx(2 / 3 - 1 / 3, abs=1e-4)
        assert r["citation_rate_delta"] == pytest.approx(1 / 3, abs=1e-4)
        assert r["first_position_rate_delta"] == pytest.approx(1 / 3, abs=1e-4)
    brands = {r["brand"]: r for r in c2.to_dicts()}
    assert c2["brand"].to_list()[0] == "nimbusnotes.example" and brands["nimbusnotes.example"]["is_site"]
    assert sum(r["share_of_voice"] for r in brands.values()) == pytest.approx(1)
    assert brands["nimbusnotes.example"]["share_of_voice"] == p2["share_of_voice"][0]
    assert brands["Rival"]["mention_rate"] == pytest.approx(2 / 3, abs=1e-4)
    assert brands["Rival"]["mention_rate_delta"] == pytest.approx(0, abs=1e-4)
    assert brands["Other"]["share_of_voice_delta"] == pytest.approx(0 - 2 / 5)
    assert brands["Rival"]["previous_run_id"] == "w1" and brands["Rival"]["answer_count"] == 3


def test_without_competitors_there_is_no_share_of_voice():
    rows = [_row("a", site=True, first=True) | {"competitors": [], "competitors_mentioned": 0}]
    s = summarize(analyses_frame(rows), datetime.now(UTC), pl.DataFrame()).row(0, named=True)
    assert s["mention_rate"] == 1 and s["first_position_rate"] == 1 and s["share_of_voice"] is None
    assert summarize_competitors(analyses_frame(rows), datetime.now(UTC), pl.DataFrame()).is_empty()
    # an analyses table written before competitors: the rates it can give, no share of voice
    old = analyses_frame(rows).drop("site_cited", "site_named_first", "competitors_mentioned", "competitors")
    s = summarize(old, datetime.now(UTC) + timedelta(1), pl.DataFrame()).row(0, named=True)
    assert s["mention_rate"] == 1 and s["citation_rate"] is None and s["share_of_voice"] is None
    assert summarize_competitors(old, datetime.now(UTC), pl.DataFrame()).is_empty()
