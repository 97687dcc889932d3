"""Query sets: the file format's validation, drafting from a site's pages, review before use."""

import json
import re

import dspy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flows.cli import main
from modules.queries import QuerySetError, load_query_set, write_query_set
from modules.queries.generate import MAX_CLAIMS, atomic_claims, atomic_facts, draft_query_set, question_for
from modules.text import content_terms, split_sentences
from tests.conftest import SAMPLES, write_jsonl

GOOD = {
    "query_set_id": "s1",
    "query_id": "q1",
    "query": "How much does Plus cost?",
    "domain": "nimbusnotes.example",
    "expected_answer": "$6 a month.",
    "claims": [{"id": "p", "text": "Plus costs $6 per month", "importance": "required"}],
    "brand_names": ["Nimbus Notes"],
}


def test_sample_query_set_loads_and_its_version_ignores_review(tmp_path):
    qs = load_query_set(SAMPLES / "queries.jsonl", allow_drafts=False)
    assert qs.query_set_id == "nimbus-2026-11" and len(qs.queries) == 5 and qs.version.startswith("sha256:")
    drafts = [q.model_copy(update={"review": "draft"}) for q in qs.queries]
    assert load_query_set(write_query_set(tmp_path / "d.jsonl", drafts)).version == qs.version
    edited = [qs.queries[0].model_copy(update={"query": "How much is Plus?"}), *qs.queries[1:]]
    assert load_query_set(write_query_set(tmp_path / "e.parquet", edited)).version != qs.version


def test_every_problem_is_reported_by_line(tmp_path):
    path = write_jsonl(
        tmp_path / "bad.jsonl",
        [
            GOOD,
            "{not json",
            {**GOOD, "query_id": "q2", "query": ""},
            {**GOOD, "query_id": "q1"},
            {**GOOD, "query_id": "q3", "query_set_id": "other"},
            {**GOOD, "query_id": "q4", "expected_anwser": "typo"},
            {**GOOD, "query_id": "q5", "claims": [{"id": "a", "text": "x", "importance": "vital"}]},
            {**GOOD, "query_id": "q6", "claims": [{"id": "a", "text": "x"}, {"id": "a", "text": "y"}]},
            [1, 2],
        ],
    )
    with pytest.raises(QuerySetError) as err:
        load_query_set(path)
    msg = str(err.value)
    for expected in (
        "line 2: not valid JSON",
        "line 3: query:",
        "line 4: duplicate query_id 'q1' (first on line 1)",
        "line 5: query_set_id 'other' differs",
        "line 6: expected_anwser: unknown field",
        "line 7: claims.0.importance",
        "line 8: claim ids repeat",
        "line 9: expected a JSON object",
    ):
        assert expected in msg, expected
    with pytest.raises(QuerySetError, match="no queries"):
        load_query_set(write_jsonl(tmp_path / "empty.jsonl", []))
    with pytest.raises(FileNotFoundError):
        load_query_set(tmp_path / "missing.jsonl")


def test_drafts_are_never_used_silently(tmp_path):
    path = write_jsonl(tmp_path / "drafts.jsonl", [{**GOOD, "review": "draft"}, {**GOOD, "query_id": "q2"}])
    with pytest.raises(QuerySetError, match=r"1 of 2 queries are unreviewed drafts.*sleuth queries approve"):
        load_query_set(path, allow_drafts=False)
    assert len(load_query_set(path, allow_drafts=True).drafts) == 1


@pytest.fixture(scope="module")
def pages():
    from modules.response import load_pages

    return load_pages(SAMPLES / "pages.jsonl")


def test_baseline_drafts_come_from_the_pages(pages, tmp_path):
    drafts = draft_query_set(pages, "nimbusnotes.example", n=6, query_set_id="nimbus-draft")
    queries = drafts.queries
    assert 4 <= len(queries) <= 6 and len({q.query_id for q in queries}) == len(queries)
    by_url = {p.url: p.text for p in pages}
    for q in queries:
        assert q.review == "draft" and q.query.endswith("?") and q.domain == "nimbusnotes.example"
        assert q.brand_names == ["Nimbus Notes"] and len(q.source_urls) == 1
        assert q.claims and q.claims[0].importance == "required" and len(q.claims) <= MAX_CLAIMS
        sentences = [s.text for s in split_sentences(by_url[q.source_urls[0]])]
        for claim in q.claims:  # one sentence of the page the query came from states it, in its words
            assert any(content_terms(claim.text) <= content_terms(s) for s in sentences), claim.text
    # every page of the site (subdomains included) is covered before any page gets a second query
    assert {q.source_urls[0] for q in queries[:3]} == {u for u in by_url if "nimbusnotes" in u}
    assert "How much does the Team plan in Nimbus Notes cost?" in [q.query for q in queries]
    reloaded = load_query_set(write_query_set(tmp_path / "d.jsonl", queries))
    assert reloaded.query_set_id == "nimbus-draft" and len(reloaded.drafts) == len(queries)


TEAM = "The Team plan costs $12 per user per month and adds shared workspaces, admin controls and single sign-on (SSO)."


def test_a_claim_is_one_fact_with_its_subject():
    assert atomic_facts(TEAM) == [
        "The Team plan costs $12 per user per month",
        "The Team plan adds shared workspaces",
        "The Team plan adds admin controls",
        "The Team plan adds single sign-on (SSO)",
    ]
    offline = "Nimbus Notes works offline on desktop and mobile; edits sync automatically when you reconnect."
    assert atomic_facts(offline) == [
        "Nimbus Notes works offline on desktop",
        "Nimbus Notes works offline on mobile",
        "Edits sync automatically when you reconnect",
    ]
    assert atomic_facts("All notes are encrypted in transit with TLS 1.3 and at rest with AES-256.") == [
        "All notes are encrypted in transit with TLS 1.3",
        "All notes are encrypted at rest with AES-256",
    ]
    assert atomic_facts(
        "The Plus plan costs $6 per month, billed annually, and includes 100 GB of storage."
    ) == ["The Plus plan costs $6 per month, billed annually", "The Plus plan includes 100 GB of storage"]
    assert atomic_facts(
        "Notes you edit offline are stored on the device and synced automatically when you reconnect."
    ) == [
        "Notes you edit offline are stored on the device",
        "Notes you edit offline are synced automatically when you reconnect",
    ]
    # the first fact and the valued ones are required, the rest expected; ids in page order
    claims = atomic_claims([TEAM])
    assert [(c.id, c.importance) for c in claims] == [
        ("c1", "required"),
        ("c2", "expected"),
        ("c3", "expected"),
        ("c4", "expected"),
    ]


@pytest.mark.parametrize(
    "sentence",
    [
        "The Team plan supports between 5 and 10 users.",
        "Nimbus Notes was acquired by Procter and Gamble in 2020.",
        "Nimbus Notes invests in research and development.",
        "You must accept the terms and conditions before you sign up.",
        "Nimbus Notes grants read and write access to shared notebooks.",
        "Marie Curie was a physicist and chemist.",
        "The country is divided among the Alps, the Plateau and the Jura.",
        'She won the prize "for the discovery of radium and polonium".',
        "Maria Curie, better known as Marie Curie, was a Polish and French physicist and chemist.",
    ],
)
def test_ranges_names_and_fixed_pairs_are_not_split(sentence):
    assert atomic_facts(sentence) == [sentence.rstrip(".")]


def test_a_list_with_more_than_max_claims_is_cut_preferring_valued_facts():
    facts = atomic_claims(
        [
            "Nimbus Notes supports Markdown, tables, tags, backlinks, templates and reminders.",
            "It costs $6 per month and includes 100 GB of storage.",
        ],
        max_claims=4,
    )
    assert [c.text for c in facts] == [
        "Nimbus Notes supports Markdown",
        "Nimbus Notes supports tables",
        "It costs $6 per month",
        "It includes 100 GB of storage",
    ]
    assert [c.importance for c in facts] == ["required", "expected", "required", "required"]


_WORDS = [
    "The Team plan",
    "Nimbus Notes",
    "it",
    "Notes",
    "costs",
    "adds",
    "includes",
    "is",
    "are",
    "can",
    "works",
    "stored",
    "synced",
    "offline",
    "on",
    "in",
    "with",
    "desktop",
    "mobile",
    "$12",
    "5",
    "10",
    "between",
    "and",
    "and",
    "or",
    "such as",
    "shared",
    "workspaces",
    "admin",
    "controls",
    "Procter",
    "Gamble",
    "research",
    "development",
    "when",
    "which",
    "the",
    "a",
    "(SSO)",
    '"quoted',
    'text"',
    "both",
    "others",
    "ß",
    "é",
]
_SEPARATORS = [" ", " ", " ", ", ", "; ", ", and ", " and "]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(_WORDS), st.sampled_from(_SEPARATORS)), min_size=1, max_size=30),
    st.text(max_size=60),
)
def test_every_atomic_fact_is_made_of_its_sentence_words(parts, noise):
    for sentence in ("".join(w + s for w, s in parts).strip() + ".", noise):
        facts = atomic_facts(sentence)
        assert all(f and f == f.strip() for f in facts) and len(facts) == len(set(facts))
        for fact in facts:
            assert content_terms(fact) <= content_terms(sentence), (sentence, fact)


_LIST3 = re.compile(r"(?:[^\s,;]+(?: [^\s,;]+){0,3}, )+[^\s,;]+(?: [^\s,;]+){0,3},? (?:and|or) ")


def test_drafted_claims_hold_no_lists(pages):
    for domain in ("nimbusnotes.example", "en.wikipedia.org"):
        for q in draft_query_set(pages, domain, n=20).queries:
            assert 1 <= len(q.claims) <= MAX_CLAIMS
            assert [c.id for c in q.claims] == [f"c{i + 1}" for i in range(len(q.claims))]
            for c in q.claims:
                assert not _LIST3.search(c.text), c.text


def test_encyclopedia_questions_are_about_the_topic_not_the_site(pages):
    queries = [q.query for q in draft_query_set(pages, "en.wikipedia.org", n=8).queries]
    assert "What is photosynthesis?" in queries and "Who was Marie Curie?" in queries
    assert not any("Wikipedia" in q for q in queries)


def test_unknown_domain_is_a_clear_error(pages):
    with pytest.raises(
        ValueError, match="no ground-truth pages for domain 'example.org'.*nimbusnotes.example"
    ):
        draft_query_set(pages, "example.org")


def test_lm_drafts_keep_only_claims_the_page_supports(pages):
    good = {
        "query": "What does Nimbus Notes Plus cost?",
        "expected_answer": "$6 per month, billed annually.",
        "claims": [
            {"text": "The Plus plan costs $6 per month", "importance": "required"},
            {"text": "Plus includes a free pony with every subscription", "importance": "optional"},
        ],
    }
    invented = {
        "query": "Does Nimbus Notes run on the Moon?",
        "expected_answer": "Yes.",
        "claims": [{"text": "Nimbus Notes has a data centre on the Moon"}],
    }
    lm = dspy.utils.DummyLM([{"reasoning": "r", "queries": json.dumps([good, invented])}] * 3)
    pricing = [p for p in pages if p.url.endswith("/pricing")]
    drafts = draft_query_set(pricing, "nimbusnotes.example", n=2, lm=lm)
    assert [q.query for q in drafts.queries] == ["What does Nimbus Notes Plus cost?"]
    assert [c.text for c in drafts.queries[0].claims] == ["The Plus plan costs $6 per month"]
    assert any("free pony" in n for n in drafts.notes) and any("the Moon" in n for n in drafts.notes)


def test_unparseable_lm_output_falls_back_to_the_baseline(pages):
    lm = dspy.utils.DummyLM([{"reasoning": "r", "queries": "not a list at all"}] * 10)
    drafts = draft_query_set(
        [p for p in pages if p.url.endswith("/pricing")], "nimbusnotes.example", n=2, lm=lm
    )
    assert drafts.fallback_pages == ["https://nimbusnotes.example/pricing"] and drafts.queries
    assert "baseline drafts used" in drafts.notes[0]


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet=st.characters(codec="utf-8", categories=["L", "N", "P", "Zs"]), max_size=200),
    st.text(min_size=1, max_size=30),
    st.sampled_from([None, "Nimbus Notes"]),
    st.booleans(),
)
def test_question_rules_never_crash_and_always_ask(sentence, topic, site, person):
    q = question_for(sentence, topic, site, person, sentence)
    assert q is None or (q.endswith("?") and len(q.split()) >= 2)


#: drafting queries from the sample site's pages
GENERATE = [
    "queries",
    "generate",
    "--ground-truth",
    str(SAMPLES / "pages.jsonl"),
    "--domain",
    "nimbusnotes.example",
]


def test_cli_generate_check_approve(tmp_path, capsys):
    out = tmp_path / "drafts.jsonl"
    args = [*GENERATE, "--n", "4", "--out", str(out)]
    assert main(args) == 0 and "sleuth queries approve" in capsys.readouterr().out
    assert main(args) == 2 and "exists" in capsys.readouterr().err  # reviewed work is never overwritten
    assert main(["queries", "check", str(out)]) == 0 and "4 drafts" in capsys.readouterr().out
    first = load_query_set(out).queries[0].query_id
    assert main(["queries", "approve", str(out), "--query-id", first]) == 0
    assert "1 drafts approved, 3 still drafts" in capsys.readouterr().out
    assert main(["queries", "approve", str(out)]) == 0
    assert load_query_set(out, allow_drafts=False).drafts == []
    bad = write_jsonl(tmp_path / "bad.jsonl", [{**GOOD, "query": None}])
    assert main(["queries", "check", str(bad)]) == 2 and "line 1: query" in capsys.readouterr().err


RIVALS = [
    {"name": "Evernote", "domains": ["evernote.com"], "brand_names": ["Evernote"]},
    {"name": "Notion", "domains": ["notion.so"]},
]


def test_competitors_are_checked_and_every_query_gets_the_sets(tmp_path):
    path = write_jsonl(
        tmp_path / "rivals.jsonl",
        [
            {**GOOD, "competitors": RIVALS},
            {**GOOD, "query_id": "q2"},
            {**GOOD, "query_id": "q3", "competitors": RIVALS},
        ],
    )
    qs = load_query_set(path)
    assert [c.name for c in qs.competitors] == ["Evernote", "Notion"]
    assert all(q.competitors == qs.competitors for q in qs.queries)
    plain = load_query_set(
        write_jsonl(tmp_path / "plain.jsonl", [GOOD, {**GOOD, "query_id": "q2"}, {**GOOD, "query_id": "q3"}])
    )
    assert plain.competitors == [] and plain.version != qs.version  # competitors are part of the set
    # a set without competitors keeps the version it had before they existed (no key hashed)
    assert "competitors" not in plain.queries[0].content()


def test_bad_competitors_are_each_one_clear_line(tmp_path):
    rows = [
        {**GOOD, "competitors": [{"name": " ", "domains": ["evernote.com"]}]},
        {**GOOD, "query_id": "q2", "competitors": [{"name": "Evernote", "domains": ["evernote"]}]},
        {**GOOD, "query_id": "q3", "competitors": [{"name": "X", "domains": ["https://x.com/pricing"]}]},
        {**GOOD, "query_id": "q4", "competitors": [{"name": "Us", "domains": ["www.NimbusNotes.example"]}]},
        {**GOOD, "query_id": "q5", "competitors": [{"name": "Us", "domains": ["help.nimbusnotes.example"]}]},
        {**GOOD, "query_id": "q6", "competitors": [{"name": "Evernote"}, {"name": "evernote "}]},
        {**GOOD, "query_id": "q7", "competitors": RIVALS},
        {**GOOD, "query_id": "q8", "competitors": RIVALS[:1]},
        {**GOOD, "query_id": "q9", "competitors": [{"domains": ["a.com"]}]},
        {**GOOD, "query_id": "q10", "competitors": "Evernote"},
    ]
    with pytest.raises(QuerySetError) as err:
        load_query_set(write_jsonl(tmp_path / "bad.jsonl", rows))
    msg = str(err.value)
    for expected in (
        "line 1: competitors.0.name: must not be blank",
        "line 2: competitors.0.domains: 'evernote' is not a host name (like example.com)",
        "line 3: competitors.0.domains: 'https://x.com/pricing' is not a host name",
        "line 4: competitors.0.domains: 'www.NimbusNotes.example' is the site's own domain (nimbusnotes.example)",
        "line 5: competitors.0.domains: 'help.nimbusnotes.example' is the site's own domain",
        "line 6: competitors.1.name: duplicate competitor 'evernote'",
        "line 8: competitors differ from line 7's: one list per query set",
        "line 9: competitors.0.name: Field required",
        "line 10: competitors: Input should be a valid list",
    ):
        assert expected in msg, expected
    assert "line 7" not in msg.replace("line 7's", "")


def test_cli_check_names_the_competitors_and_generate_leaves_them_to_the_reviewer(tmp_path, capsys):
    assert main(["queries", "check", str(SAMPLES / "queries.jsonl")]) == 0
    assert "competitors: Evernote, Notion, Obsidian" in capsys.readouterr().out
    out = tmp_path / "drafts.jsonl"
    assert main([*GENERATE, "--n", "2", "--out", str(out)]) == 0
    assert all(json.loads(line)["competitors"] == [] for line in out.read_text().splitlines())
    capsys.readouterr()
    assert main(["queries", "check", str(out)]) == 0
    assert "competitors: none (add them for share of voice)" in capsys.readouterr().out
    bad = write_jsonl(
        tmp_path / "bad.jsonl",
        [{**GOOD, "competitors": [{"name": "Us", "domains": ["nimbusnotes.example"]}]}],
    )
    assert main(["queries", "check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "is the site's own domain" in err
