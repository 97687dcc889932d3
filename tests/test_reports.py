"""Run reports rendered from real run outputs (analyze, monitor, research, rerank-batch, collect):
content, escaping, plots; the markdown artifact every flow publishes; `sleuth report`."""

import json
import re

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from flows.analyze import analyze_responses
from flows.cli import main
from flows.monitor import collect, monitor
from flows.relevance import RerankOptions, rerank_batch
from flows.research import research
from modules.queries import load_query_set
from modules.reports import (
    PROVIDER_COLUMNS,
    Column,
    provider_rows,
    render_run_report,
    run_markdown,
    terminal_table,
)
from modules.reports.html import marked, safe_highlight
from modules.research.session import ResearchOptions
from modules.testing import FakeAssistant
from tests.conftest import SAMPLES, write_jsonl

SCRIPT = "<script>alert('x')</script>"
WRONG = 'Plus is $9.99 per month <b>"only"</b> & includes 1 TB of storage.'  # two wrong facts, with markup
SCRIPT_URLS = [
    "javascript:alert(1)",
    "JaVaScRiPt:alert(2)",
    "data:text/html,<script>alert(3)</script>",
    "java\tscript:alert(4)",
    " \x01javascript:alert(5)",
    "vbscript:msgbox(6)",
    "//evil.example/x",
]


@pytest.fixture(scope="module")
def runs(prefect_harness, tmp_path_factory):
    d = tmp_path_factory.mktemp("reports")
    data = str(d / "data")
    responses = [json.loads(x) for x in (SAMPLES / "responses.jsonl").read_text().splitlines()]
    responses.append(
        {
            **responses[0],
            "query_id": "injected",
            "provider": "evil",
            "response": f"{SCRIPT} no idea",
            "competitors": [{"name": SCRIPT}],  # a competitor named with markup, and named
        }
    )
    responses.append(
        {**responses[2], "query_id": "injected-wrong", "provider": "evil", "response": WRONG, "citations": []}
    )
    analyze_responses(
        str(write_jsonl(d / "responses.jsonl", responses)),
        str(SAMPLES / "pages.jsonl"),
        run_id="an-1",
        data_dir=data,
    )
    queries = load_query_set(SAMPLES / "queries.jsonl").queries
    fake = FakeAssistant({q.query: q.expected_answer for q in queries})
    providers = [
        f"openai/good,base_url={fake.base_url},label=a",
        f"openai/denied,base_url={fake.base_url},label=c",
    ]
    fake.answers = {q.query: "Probably free, like Obsidian." for q in queries}
    monitor(
        str(SAMPLES / "queries.jsonl"), str(SAMPLES / "pages.jsonl"), providers, run_id="mo-1", data_dir=data
    )
    fake.answers = {q.query: q.expected_answer for q in queries}
    monitor(
        str(SAMPLES / "queries.jsonl"), str(SAMPLES / "pages.jsonl"), providers, run_id="mo-2", data_dir=data
    )
    collect(str(SAMPLES / "queries.jsonl"), providers[:1], run_id="co-1", data_dir=data)
    fake.close()
    research(
        "Were Scott Derrickson and Ed Wood of the same nationality?",
        options=ResearchOptions(corpus=str(SAMPLES / "corpus.jsonl"), max_steps=5),
        run_id="rs-1",
        data_dir=data,
    )
    items = [json.loads(x) for x in (SAMPLES / "rerank.jsonl").read_text().splitlines()][:1]
    items[0]["results"][0]["text"] += f" {SCRIPT} and <b>raw bold</b>."
    for result, url in zip(items[0]["results"][1:], SCRIPT_URLS):  # any search result can carry one
        result["url"] = url
    rerank_batch(
        str(write_jsonl(d / "items.jsonl", items)),
        str(d / "out.jsonl"),
        options=RerankOptions(),
        run_id="rr-1",
        data_dir=data,
    )
    return data


def no_live_markup(html: str) -> None:
    assert "<script" not in html.lower() and "javascript:" not in html.lower()
    assert "<link" not in html and 'src="http' not in html  # self-contained: nothing fetched


def test_response_report(runs):
    html = render_run_report("an-1", runs)
    no_live_markup(html)
    for text in (
        "Per-domain scores",
        "en.wikipedia.org",
        "nimbusnotes.example",
        "Tiers per domain",
        "Score distributions",
        "Trends across runs",
        "Answers to fix: ",
        "weakest other answers",
        "Flagged and error rows",
        "empty_response",
    ):
        assert text in html, text
    assert html.count("<svg") >= 5  # tiers, histograms, two trends, providers
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html  # the injected answer, shown as text
    # the weakest answers are the wrong ones: their wrong statements marked against the page
    assert '<mark class="wrong">' in html and "the site says" in html
    assert "&#10007; The Plus plan costs $6 per month" in html  # the injected answer's missing claim


def test_an_answer_shows_its_cited_sources_and_prominence(runs):
    """The sample's Perplexity answer names no source in its text but cites the pricing page second."""
    import polars as pl

    from modules.reports.response import worst_section
    from modules.store import ParquetStore

    analyses = ParquetStore(runs).read("analyses", "an-1")
    cited = analyses.filter(
        (pl.col("query_id") == "nimbus-price-plus") & (pl.col("provider") == "perplexity")
    )
    assert cited["cited_rank"].to_list() == [2] and cited["citation_count"].to_list() == [2]
    html = worst_section(cited, 1)
    assert 'cited source #2</span> <a href="https://nimbusnotes.example/pricing"' in html
    assert "cited source #2: +5 for prominence" in html
    first = analyses.filter((pl.col("query_id") == "nimbus-price-plus") & (pl.col("provider") == "anthropic"))
    assert "first mention in the first sentence: +15 for prominence" in worst_section(first, 1)


def test_wrong_facts_in_the_analyses_and_summaries(runs):
    import polars as pl

    from modules.response.tables import (
        ANALYSES_SCHEMA,
        INTERVAL_SCHEMA,
        PROVIDER_SUMMARY_SCHEMA,
        VISIBILITY,
    )
    from modules.store import ParquetStore

    store = ParquetStore(runs)
    analyses = store.read("analyses", "an-1")
    columns = [c for c in analyses.columns if c != "run_id"]
    assert columns == list(ANALYSES_SCHEMA)
    assert columns[columns.index("result_json") + 1 :] == [  # appended: earlier columns keep their place
        "claims_contradicted",
        "contradiction_count",
        "has_wrong_fact",
        "first_mention_in",
        "list_rank",
        "citation_count",
        "cited_rank",
        "site_cited",
        "site_named_first",
        "competitors_mentioned",
        "competitors",
        "mention_score",
        "citation_score",
        "sample",
    ]
    price = {r["provider"]: r for r in analyses.filter(pl.col("query_id") == "nimbus-price-plus").to_dicts()}
    wrong = price["perplexity"]  # "Plus is $9.99 per month and includes 1 TB of storage."
    assert (wrong["claims_contradicted"], wrong["contradiction_count"], wrong["has_wrong_fact"]) == (
        2,
        2,
        True,
    )
    result = json.loads(wrong["result_json"])
    assert len(result["feedback"]["claims"]["contradicted"]) == len(result["feedback"]["contradictions"]) == 2
    assert result["scores"]["accuracy"]["components"]["wrongFacts"] == 2
    # cited (the site's pricing page second in its sources), never named: not excellent credit
    assert (wrong["mention_score"], wrong["citation_score"], wrong["attribution_tier"]) == (0, 75, "fair")
    right = price["openai"]
    assert (right["claims_contradicted"], right["contradiction_count"], right["has_wrong_fact"]) == (
        0,
        0,
        False,
    )

    summaries = store.read("summaries", "an-1")
    visibility = [f"{v}{d}" for v in VISIBILITY for d in ("", "_delta")]  # appended after (issue 19)
    columns = [c for c in summaries.columns if c != "run_id"]
    # then the intervals, the analyst's verdicts, the judges' disagreements, last: earlier
    # columns keep their places
    appended = [*INTERVAL_SCHEMA, "overridden_count", "judge_disagreement_count"]
    assert columns[-len(appended) :] == appended
    assert columns[-len(appended) - 10 : -len(appended)] == [
        "wrong_fact_rate",
        "wrong_fact_rate_delta",
        *visibility,
    ]
    for s in summaries.to_dicts():
        scored = analyses.filter((pl.col("domain") == s["domain"]) & (pl.col("status") != "error"))
        assert s["wrong_fact_rate"] == pytest.approx(scored["has_wrong_fact"].mean(), abs=1e-4)
        assert 0 < s["wrong_fact_rate"] < 1 and s["wrong_fact_rate_delta"] is None  # a first run has no trend

    week1, week2 = (store.read("provider_summaries", r) for r in ("mo-1", "mo-2"))
    assert [c for c in week2.columns if c != "run_id"] == list(PROVIDER_SUMMARY_SCHEMA)
    intervals = [
        *INTERVAL_SCHEMA,
        "correct_mention_rate_low",
        "correct_mention_rate_high",
        "overridden_count",
        "judge_disagreement_count",
    ]
    assert list(PROVIDER_SUMMARY_SCHEMA)[-len(intervals) :] == intervals
    assert list(PROVIDER_SUMMARY_SCHEMA)[-len(intervals) - 11 : -len(intervals)] == [
        "wrong_fact_rate",
        "wrong_fact_rate_delta",
        "correct_mention_rate",
        *visibility,
    ]
    good = week2.filter(pl.col("model") == "good").row(0, named=True)
    answers = store.read("analyses", "mo-2").filter(
        (pl.col("model") == "good") & (pl.col("status") != "error")
    )
    mentioned = answers["has_url_citation"] | answers["has_domain_mention"] | answers["has_brand_mention"]
    assert good["correct_mention_rate"] == pytest.approx(
        (mentioned & ~answers["has_wrong_fact"]).mean(), abs=1e-4
    )
    assert (
        good["wrong_fact_rate"] == 0 and 0 < good["correct_mention_rate"] < 1
    )  # one expected answer names the brand
    before = week1.filter(pl.col("model") == "good").row(0, named=True)
    assert good["previous_run_id"] == "mo-1"
    assert good["wrong_fact_rate_delta"] == pytest.approx(
        good["wrong_fact_rate"] - before["wrong_fact_rate"], abs=1e-4
    )
    denied = week2.filter(pl.col("model") == "denied").row(0, named=True)
    assert denied["failed"] and denied["wrong_fact_rate"] is None and denied["correct_mention_rate"] is None


def test_report_shows_wrong_facts_escaped_and_linked_only_when_safe(runs):
    import polars as pl

    from modules.reports.html import esc, percent
    from modules.reports.response import _answer
    from modules.store import ParquetStore

    store = ParquetStore(runs)
    html = render_run_report("an-1", runs)
    no_live_markup(html)
    shown = [json.loads(r["result_json"])["feedback"] for r in _weakest(store.read("analyses", "an-1"))]
    assert any(fb["contradictions"] for fb in shown)  # e.g. "Mount Everest is 9,100 metres tall"
    assert html.count("<h3>Wrong facts</h3>") == sum(bool(fb["contradictions"]) for fb in shown)
    for fb in shown:
        for w in fb["contradictions"]:
            assert (
                f'<mark class="wrong">{esc(w["statement"])}</mark> &rarr; the site says: &ldquo;{esc(w["evidence"])}'
                in html
            )
        for c in fb["claims"]["contradicted"]:
            assert f'&#9888; <span class="badge bad">contradicted</span> {esc(c["claim"]["text"])}' in html
    assert "<th>wrong facts</th><th>Δ wrong facts</th>" in html
    for s in store.read("summaries", "an-1").to_dicts():
        low, high = (round(100 * s[f"wrong_fact_rate_{end}"]) for end in ("low", "high"))
        interval = f'<span class="muted"> ({low}-{high})</span>'  # its 95% interval beside it
        assert f"<td>{percent(s['wrong_fact_rate'])}{interval}</td>" in html
    mo = render_run_report("mo-2", runs)
    assert (
        "<th>mentioned &amp; correct</th><th>wrong facts</th>" in mo and "answers mentioned and correct" in mo
    )

    row = store.read("analyses", "an-1").filter(pl.col("query_id") == "injected-wrong").row(0, named=True)
    shown = _answer(row)
    assert "<h3>Wrong facts</h3>" in shown
    assert (
        "&lt;b&gt;&quot;only&quot;&lt;/b&gt;" in shown and '<b>"only"' not in shown
    )  # the statement, escaped
    assert "$6 per month (claim) vs $9.99 per month (response)" in shown

    result = json.loads(row["result_json"])
    fact = result["feedback"]["contradictions"][0]
    result["feedback"]["contradictions"] = [
        {
            **fact,
            "statement": SCRIPT,
            "source": "ground_truth",
            "pageUrl": url,
            "evidence": f"page says {SCRIPT}",
            "detail": "<i>x</i>",
        }
        for url in [*SCRIPT_URLS, "https://nimbusnotes.example/pricing"]
    ]
    shown = _answer({**row, "result_json": json.dumps(result)})
    assert "<script" not in shown.lower()  # a page URL that may not be a link is shown as text (html.link)
    assert _hrefs(shown) == ["https://nimbusnotes.example/pricing"]  # only an http(s) page becomes a link
    assert "&lt;script&gt;" in shown and "&lt;i&gt;x&lt;/i&gt;" in shown and "<i>" not in shown
    assert shown.count("the site&#x27;s page") == len(SCRIPT_URLS) + 1


def _weakest(analyses, n=5):
    """The answers the report lists in full: every one with a wrong fact, then the n weakest others."""
    from modules.response import answers_to_fix

    wrong, weakest = answers_to_fix(analyses, n)
    return wrong + weakest


def test_markdown_summary_has_the_wrong_fact_rate(runs):
    from modules.store import ParquetStore

    store = ParquetStore(runs)
    md = run_markdown("an-1", runs)
    assert "| wrong facts | Δ wrong facts |" in md
    for s in store.read("summaries", "an-1").to_dicts():
        assert f"| {_rate(s, 'wrong_fact_rate')} | - |" in md  # no earlier run: no trend
    wrong = [
        w
        for r in _weakest(store.read("analyses", "an-1"))
        for w in json.loads(r["result_json"])["feedback"]["contradictions"]
    ]
    from modules.links import markdown_text

    assert wrong and all(
        markdown_text(f"{w['statement']} ({w.get('detail') or w['evidence']})") in md for w in wrong
    )  # as text: a statement's markup is escaped
    mo = run_markdown("mo-2", runs)
    assert "| mentioned & correct | wrong facts |" in mo
    for r in store.read("provider_summaries", "mo-2").to_dicts():
        assert f"| {_rate(r, 'correct_mention_rate')} | {_rate(r, 'wrong_fact_rate')} |" in mo


def _rate(row: dict, rate: str) -> str:
    """A rate as the markdown prints it: the percentage and its 95% interval."""
    if row[rate] is None:
        return "-"
    low, high = (round(100 * row[f"{rate}_{end}"]) for end in ("low", "high"))
    return f"{round(100 * row[rate])}% ({low}-{high})"


def test_monitor_report_compares_providers_and_trends(runs):
    html = render_run_report("mo-2", runs)
    no_live_markup(html)
    assert "Providers side by side" in html and "Collection per provider" in html
    assert "c/denied</b>: provider failed" in html and "Incorrect API key" in html
    assert "nimbusnotes.example / nimbus-2026-11: 2 run(s)" in html  # the trend covers both monitor runs
    assert '<span class="badge good">+' in html  # accuracy improved against mo-1


def test_share_of_voice_section_per_provider_with_the_competitors_named_instead_of_us(runs):
    from modules.store import ParquetStore

    html = render_run_report("an-1", runs)
    no_live_markup(html)
    section = html.split('id="share-of-voice"', 1)[1].split("</section>", 1)[0]
    assert "<svg" in section and "share of voice per provider" in section
    assert "nimbusnotes.example (us)" in section and "Competitors named instead of us" in section
    # the sample's answers that name a competitor and not the site, each competitor's mention marked
    assert '<mark title="competitor: Obsidian">Obsidian</mark>' in section
    assert "For a free alternative, see" in section and "Notion</mark> and" in section
    assert (
        "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;</mark>" in section
    )  # a name with markup, as text
    assert "Nimbus Notes Plus costs $6" not in section  # names the site: not "instead of us"
    md = run_markdown("an-1", runs)
    assert "## Share of voice" in md and "### Competitors named instead of us" in md
    assert "- **nimbus-encryption** (perplexity/sonar) names Evernote, Notion:" in md
    site = (
        ParquetStore(runs)
        .read("competitor_summaries", "an-1")
        .filter(pl.col("is_site") & (pl.col("provider") == "perplexity"))
    )
    assert site["share_of_voice"].to_list() == [0.0]
    # across monitor runs: the deltas and the visibility trend
    mo = render_run_report("mo-2", runs)
    section = mo.split('id="share-of-voice"', 1)[1].split("</section>", 1)[0]
    assert (
        "a/good" in section
        and "Δ share of voice" in section
        and '<span class="badge good">+100 pt' in section
    )
    assert "(no answer names a competitor without the site)" in section
    assert "nimbusnotes.example / nimbus-2026-11: 2 run(s): visibility" in mo
    assert "<b>Obsidian</b>" in render_run_report("mo-1", runs)
    assert re.search(
        r"\| a/good \| nimbusnotes\.example \(us\) \| 100% \(\d+-100\) \| \+100 pt( n\.s\.)? \|",
        run_markdown("mo-2", runs),
    )


def test_research_report(runs):
    html = render_run_report("rs-1", runs)
    no_live_markup(html)
    assert "Were Scott Derrickson and Ed Wood of the same nationality?" in html
    assert 'href="#q-q1-src-1">[1]</a>' in html and 'id="q-q1-src-1"' in html  # numbered citations link
    assert "https://en.wikipedia.org/wiki/Scott_Derrickson" in html
    for text in (
        "Research journey",
        "confidence after each analysis",
        "Sources:",
        "Conflicting facts",
        "search_local",
    ):
        assert text in html, text


def test_rerank_report_keeps_only_its_own_highlighting(runs):
    html = render_run_report("rr-1", runs)
    no_live_markup(html)
    assert "<mark>" in html and "<b>" in html and 'class="bar"' in html
    assert (
        "&lt;script&gt;" in html and "&lt;b&gt;raw bold&lt;/b&gt;" in html
    )  # a result's own markup stays text
    assert "10 results, " in html and "kept (score &ge; 60)" in html


def test_collect_report(runs):
    html = render_run_report("co-1", runs)
    assert "Collection per provider" in html and "Answers" in html and "nimbus-price-plus" in html


def test_every_flow_publishes_the_markdown_summary(runs):
    import httpx
    from prefect.settings import PREFECT_API_URL

    expected = {
        "an-1": "analyze",
        "mo-1": "monitor",
        "mo-2": "monitor",
        "co-1": "collect",
        "rs-1": "research",
        "rr-1": "rerank-batch",
    }
    keys = {f"{flow}-{kind}-{run}" for run, flow in expected.items() for kind in ("report", "figures")}
    artifacts = httpx.post(
        f"{PREFECT_API_URL.value()}/artifacts/filter",
        json={
            "artifacts": {"key": {"any_": sorted(keys)}},
            "limit": 200,
            "offset": 0,
            "sort": "CREATED_DESC",
        },
    ).json()
    by_key = {a["key"]: a for a in artifacts}
    assert set(by_key) == keys  # one of each per run: keys are unique to the flow kind and run
    assert all(
        by_key[f"{f}-report-{r}"]["type"] == "markdown"
        and by_key[f"{f}-figures-{r}"]["type"] == "table"
        and r in by_key[f"{f}-report-{r}"]["description"]
        for r, f in expected.items()
    )
    md = run_markdown("mo-2", runs)
    assert (
        "## Providers side by side" in md and "c/denied failed entirely" in md and "| a/good | ok | 1 |" in md
    )


def test_cli_report(runs, capsys):
    assert main(["report", "an-1", "--data-dir", runs]) == 0
    path = capsys.readouterr().out.strip().split(": ", 1)[1]
    assert path.endswith("/html/an-1.html") and "<!DOCTYPE html>" in open(path).read()
    assert main(["report", "nope", "--data-dir", runs]) == 2
    assert "no run 'nope'" in capsys.readouterr().err


@given(st.text(alphabet="<>&\"'/abmkrscipt =", max_size=80), st.integers(0, 80), st.integers(0, 80))
def test_highlighting_lets_no_other_markup_through(text, start, end):
    tags = re.findall(r"<[^>]*>", safe_highlight(text))
    assert set(tags) <= {"<mark>", "</mark>", "<b>", "</b>"}
    tags = re.findall(r"<[^>]*>", marked(text, [(start, end, text)]))
    assert all(re.fullmatch(r'<mark title="[^"<>]*">|</mark>', t) for t in tags)


def _hrefs(html: str) -> list[str]:
    return re.findall(r'href="([^"]*)"', html)


def test_script_urls_are_never_links_in_any_report(runs):
    from modules.reports.research import thread_section
    from modules.research.render import report_markdown
    from modules.store import ParquetStore

    rerank = render_run_report("rr-1", runs)
    assert "javascript:" not in rerank.lower() and "10 results" in rerank  # the results are there, unlinked
    store = ParquetStore(runs)
    report = store.read("reports", "rs-1").row(0, named=True)
    report["cited_urls"] = SCRIPT_URLS + ["https://en.wikipedia.org/wiki/Ed_Wood"]
    research_html = thread_section(report, *(store.read(t, "rs-1") for t in ("steps", "sources", "memory")))
    for html in (rerank, research_html):
        assert all(h.startswith(("http://", "https://", "#")) for h in _hrefs(html)), _hrefs(html)
    assert "https://en.wikipedia.org/wiki/Ed_Wood" in _hrefs(research_html)
    md = report_markdown(report)
    autolinks = re.findall(r"<([^<>\s]+:[^<>\s]*)>", md)
    assert autolinks == ["https://en.wikipedia.org/wiki/Ed_Wood"] and "`` javascript:alert(1) ``" in md


@given(
    st.text(max_size=40),
    st.sampled_from(["", "http://", "https://", "javascript:", "data:", " ", "\t", "HTTP://"]),
)
def test_a_link_is_made_only_of_an_http_url(text, prefix):
    from modules.reports.html import link

    html = link(prefix + text)
    for href in _hrefs(html):
        assert href.lower().startswith(("http://", "https://"))
    assert html.count("<") == html.count(">") and len(re.findall(r"<(?!/?a[ >])", html)) == 0


def test_every_run_kind_has_a_report_layout():
    from modules.reports.layouts import LAYOUTS
    from modules.store.runs import RunKind

    assert set(LAYOUTS) == set(RunKind)


def test_a_run_with_more_groups_than_the_palette_still_gets_its_report(prefect_harness, tmp_path):
    """Twelve providers (an agency's nine sites are the same case): every one drawn, each in a
    colour of its own, instead of no report at all."""
    from modules.reports.plots import colours

    rows = [json.loads(x) for x in (SAMPLES / "responses.jsonl").read_text().splitlines()]
    many = [{**row, "provider": f"assistant-{i:02d}"} for i in range(12) for row in rows[:2]]
    analyze_responses(
        str(write_jsonl(tmp_path / "many.jsonl", many)),
        str(SAMPLES / "pages.jsonl"),
        run_id="many",
        data_dir=str(tmp_path / "data"),
    )
    html = render_run_report("many", str(tmp_path / "data"))
    assert all(f"assistant-{i:02d}" in html for i in range(12))
    assert len(set(colours(12))) == 12 and len(set(colours(28))) == 28 and len(colours(40)) == 40


def test_markdown_artifacts_escape_markup_and_links_from_data(runs):
    """The Prefect artifacts show answers, names and errors as text, as the HTML reports do."""
    from modules.reports.markdown import md_table
    from modules.research.render import report_markdown

    for run_id in ("an-1", "mo-1", "mo-2", "co-1", "rs-1", "rr-1"):
        md = run_markdown(run_id, runs)
        assert "<script" not in md.lower() and "<b>" not in md, run_id
    md = run_markdown("an-1", runs)
    assert "&lt;script&gt;" in md  # shown, as text
    evil = {
        "provider": "<img src=x onerror=alert(1)>",
        "model": "[m](javascript:alert(1))",
        "error": "<script>x</script>",
    }
    table = md_table([evil], [("provider", "provider"), ("model", "model"), ("error", "error")])
    link = re.compile(r"(?<!\\)\]\(javascript:")  # an unescaped link target
    assert "<img" not in table and not link.search(table) and "<script" not in table
    research = report_markdown(
        {
            "question": "q <script>",
            "status": "answered",
            "stop_reason": "decision",
            "confidence": 0.5,
            "answer": "see [here](javascript:alert(1)) <a href='javascript:x'>x</a>",
            "journey": "j",
            "cited_urls": ["javascript:alert(1)"],
        }
    )
    assert "<script" not in research and not link.search(research) and "<a href" not in research


@pytest.mark.parametrize(
    ("kind", "value", "text"),
    [
        ("value", None, "-"),
        ("value", 72.06, "72.1"),
        ("value", "nimbus", "nimbus"),
        ("delta", 3.04, "+3.0"),
        ("delta", -0.04, "0.0"),  # a change that rounds to zero has no sign
        ("percent", 0.433, "43%"),
        ("points", 0.25, "+25 pt"),
        ("points", -0.002, "0 pt"),
        ("voice_points", -0.5, "-50 pt"),
        ("state", True, "FAILED"),
        ("state", False, "ok"),
        ("usd", 0.00312, "0.0031"),  # a call costs a fraction of a cent
    ],
)
def test_a_column_formats_its_cells_by_kind(kind, value, text):
    """The terminal and the markdown artifact print a cell the same way, by its column's kind."""
    assert Column("k", "label", kind).text(value) == text


@given(st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6)))
def test_every_kind_prints_any_number_without_a_signed_zero(value):
    for kind in ("value", "delta", "percent", "points", "voice_points"):
        text = Column("k", "label", kind).text(value)
        assert text and not re.match(r"^[+-]0(\.0)?( pt|%)?$", text), (kind, value, text)


def test_the_terminal_shows_its_columns_short_and_providers_best_first():
    providers = [
        {
            "domain": "d",
            "provider": "p",
            "model": "b",
            "accuracy_rank": 2,
            "failed": False,
            "accuracy_mean": 50.0,
        },
        {"domain": "d", "provider": "p", "model": "x", "accuracy_rank": None, "failed": True},
        {
            "domain": "d",
            "provider": "p",
            "model": "a",
            "accuracy_rank": 1,
            "failed": False,
            "accuracy_mean": 90.0,
        },
    ]
    rows = provider_rows(providers, [{"provider": "p", "model": "a", "cost_usd": 0.25}])
    assert [r["who"] for r in rows] == ["p/a", "p/b", "p/x"]  # ranked, the failed one last
    header, cells = terminal_table(rows, PROVIDER_COLUMNS)
    assert header[:5] == ["domain", "provider / model", "state", "rank", "accuracy"]
    assert "Δacc" in header and "Δ completeness" not in header and "Δcomp" not in header
    assert cells[0][:5] == ["d", "p/a", "ok", "1", "90.0"] and cells[0][-1] == "0.2500"
    assert cells[2][2] == "FAILED" and cells[2][3] == "-"


def test_answers_to_fix_lead_with_the_cited_wrong_ones_and_every_view_agrees(runs):
    """`runs show` (the markdown) and the HTML list the same answers: every one with a wrong fact,
    those under the site's own citation first, and the same answers naming a competitor instead."""
    from modules.response import answers_to_fix, named_instead
    from modules.store import ParquetStore

    analyses = ParquetStore(runs).read("analyses", "an-1")
    wrong, weakest = answers_to_fix(analyses)
    assert wrong and all(r["has_wrong_fact"] for r in wrong) and not any(r["has_wrong_fact"] for r in weakest)
    assert len(wrong) == analyses["has_wrong_fact"].fill_null(False).sum()  # every one, not the 5 lowest
    cites = [bool(r["site_cited"] or r["has_url_citation"]) for r in wrong]
    assert cites[0] and cites == sorted(cites, reverse=True)
    md, html = run_markdown("an-1", runs), render_run_report("an-1", runs)
    assert f"## Answers with a wrong fact ({len(wrong)}; those citing the site first)" in md
    assert f"Answers to fix: {len(wrong)} with a wrong fact" in html
    listed = md.split("## Answers with a wrong fact", 1)[1].split("\n## ", 1)[0]
    assert [line.split("**")[1] for line in listed.splitlines() if line.startswith("- **")] == [
        r["query_id"] for r in wrong
    ]
    instead = named_instead(analyses)
    named = md.split("### Competitors named instead of us", 1)[1].split("\n## ", 1)[0]
    assert sum(line.startswith("- **") for line in named.splitlines()) == len(instead)
    section = html.split('id="share-of-voice"', 1)[1].split("</section>", 1)[0]
    assert section.count("&middot; names ") == min(len(instead), 10)
