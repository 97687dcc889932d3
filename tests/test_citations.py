"""The assistants' own cited sources: each provider's format (Perplexity, OpenAI web search,
Anthropic web search, Gemini grounding) served by a fake on 127.0.0.1 and parsed by LiteLLM,
kept through the checkpoint and the ``responses`` table, and scored by ``analyze``."""

import json

import duckdb
import polars as pl
import pytest

from modules.providers import ask_provider, parse_provider
from modules.providers.collect import Answer
from modules.queries import load_query_set
from modules.response.records import load_records
from modules.store import ParquetStore
from modules.testing import FakeAssistant
from tests.conftest import SAMPLES, monitor_samples

QUERY_SET = str(SAMPLES / "queries.jsonl")
PAGES = str(SAMPLES / "pages.jsonl")
PRICING = ("https://nimbusnotes.example/pricing", "Pricing | Nimbus Notes")
REDDIT = ("https://www.reddit.com/r/notetaking/comments/1", "Is Nimbus Notes worth it?")
REVIEW = ("https://techreview.example.org/nimbus", "Nimbus Notes review")
REDIRECT = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ"

# the providers' model strings, as a user gives them, each pointed at the fake
PROVIDERS = {
    "perplexity": "perplexity/sonar",
    "openai": "openai/gpt-4o-search-preview",
    "anthropic": "anthropic/claude-sonnet-4-5,web_search=true",
    "gemini": "gemini/gemini-2.5-flash,web_search=true",
}


@pytest.fixture(scope="module")
def queries():
    return load_query_set(QUERY_SET).queries


def sources_for(queries):
    """The first query cites the site first; the second a forum, then the site, then a review and
    the site again (a duplicate); the others cite nothing."""
    return {
        queries[0].query: [PRICING, REDDIT],
        queries[1].query: [REDDIT, PRICING, REVIEW, PRICING],
    }


@pytest.fixture(scope="module")
def assistant(queries):
    fake = FakeAssistant({q.query: q.expected_answer for q in queries}, sources=sources_for(queries))
    yield fake
    fake.close()


def spec(fake, provider, model=None):
    return parse_provider(
        f"{model or PROVIDERS[provider]},base_url={fake.base_url},label={provider}",
        timeout_s=5,
        backoff_s=0.05,
    )


def cited(answer):
    return [(c["url"], c["title"], c["rank"]) for c in answer.citations]


@pytest.mark.parametrize("provider", ["perplexity", "openai"])
def test_perplexity_and_openai_sources_deduplicated_in_provider_order(assistant, queries, provider):
    run = ask_provider(spec(assistant, provider), queries[:3])
    first, second, third = run.answers
    assert all(a.status == "answered" for a in run.answers)
    assert cited(first) == [(*PRICING, 1), (*REDDIT, 2)]
    assert cited(second) == [(*REDDIT, 1), (*PRICING, 2), (*REVIEW, 3)]  # the repeat keeps rank 2
    assert third.citations == [] and third.response == queries[2].expected_answer


def test_anthropic_citation_blocks(assistant, queries):
    """Each text block cites its own sources (the second repeats one of the first's)."""
    run = ask_provider(spec(assistant, "anthropic"), queries[:3])
    first, second, third = run.answers
    assert first.response == queries[0].expected_answer  # the text blocks joined, as LiteLLM does
    asked = [r for r in assistant.requests if r["model"] == "claude-sonnet-4-5"]
    assert {r["path"] for r in asked} == {"/v1/v1/messages"} and {r["query"] for r in asked} >= {
        q.query for q in queries[:3]
    }
    assert cited(first) == [(*PRICING, 1), (*REDDIT, 2)]
    assert cited(second) == [(*REDDIT, 1), (*PRICING, 2), (*REVIEW, 3)]
    assert third.citations == []


def test_gemini_grounding_chunks(assistant, queries):
    """Gemini's URIs are Google's redirects, one per chunk; the title is the source's domain."""
    run = ask_provider(spec(assistant, "gemini"), queries[:3])
    first, second, third = run.answers
    assert {r["path"] for r in assistant.requests if r["model"] == "gemini-2.5-flash"} == {
        "/v1/models/gemini-2.5-flash:generateContent"
    }
    assert first.response == queries[0].expected_answer
    assert cited(first) == [(REDIRECT + "0", "nimbusnotes.example", 1), (REDIRECT + "1", "www.reddit.com", 2)]
    assert [c["title"] for c in second.citations] == [
        "www.reddit.com",
        "nimbusnotes.example",
        "techreview.example.org",
        "nimbusnotes.example",  # another redirect: another URL
    ]
    assert third.citations == []


@pytest.mark.parametrize(
    "provider, tool",
    [("anthropic", {"type": "web_search_20250305", "name": "web_search"}), ("gemini", {"googleSearch": {}})],
)
def test_web_search_sends_the_providers_search_tool_and_only_then_gets_sources(
    assistant, queries, provider, tool
):
    model = PROVIDERS[provider].split(",")[0]
    plain = ask_provider(spec(assistant, provider, model), queries[:1]).answers[0]
    assert plain.status == "answered" and plain.citations == []
    assert "tools" not in assistant.requests[-1]["body"]
    searched = ask_provider(spec(assistant, provider), queries[:1]).answers[0]
    assert assistant.requests[-1]["body"]["tools"] == [tool] and len(searched.citations) == 2
    assert spec(assistant, provider).parameters()["web_search"] is True
    with pytest.raises(ValueError, match="web_search must be true or false"):
        parse_provider(f"{model},web_search=maybe")


def test_a_checkpointed_answer_keeps_its_citations(assistant, queries):
    answer = ask_provider(spec(assistant, "perplexity"), queries[:1]).answers[0]
    record = json.loads(json.dumps(answer.to_record()))
    assert cited(Answer.from_record(queries[0], record)) == cited(answer) and answer.citations


@pytest.fixture(scope="module")
def monitored(prefect_harness, tmp_path_factory, queries, assistant):
    data_dir = str(tmp_path_factory.mktemp("citations"))
    providers = [f"{m},base_url={assistant.base_url},label={p}" for p, m in PROVIDERS.items()]
    return data_dir, monitor_samples(providers, "cited", data_dir)


def test_collected_citations_are_stored_and_analysed(monitored, queries):
    data_dir, _ = monitored
    store = ParquetStore(data_dir)
    responses = store.read("responses", "cited")
    assert responses.schema["citations"] == pl.List(
        pl.Struct({"url": pl.String, "title": pl.String, "rank": pl.Int64})
    )
    first = responses.filter(pl.col("query_id") == queries[0].query_id).sort("provider")
    assert [(r["provider"], [c["url"] for c in r["citations"]]) for r in first.iter_rows(named=True)] == [
        ("anthropic", [PRICING[0], REDDIT[0]]),
        ("gemini", [REDIRECT + "0", REDIRECT + "1"]),
        ("openai", [PRICING[0], REDDIT[0]]),
        ("perplexity", [PRICING[0], REDDIT[0]]),
    ]
    # DuckDB reads the list of structs as it is
    ranks = (
        duckdb.connect()
        .execute(
            f"select provider, citations[2].url, citations[2].rank from read_parquet('{data_dir}/responses/**/*.parquet')"
            f" where query_id = '{queries[1].query_id}' and provider = 'openai'"
        )
        .fetchall()
    )
    assert ranks == [("openai", PRICING[0], 2)]
    # the run's responses are an `analyze` input as they are, citations included
    records, errors, _ = load_records(f"{data_dir}/responses/run_id=cited")
    assert not errors and sum(len(r.citations) for r in records) == 4 * (2 + 3) + 1  # Gemini's extra redirect

    analyses = store.read("analyses", "cited")
    row = {(r["provider"], r["query_id"]): r for r in analyses.iter_rows(named=True)}
    for provider in PROVIDERS:
        top, second, none = (row[provider, q.query_id] for q in queries[:3])
        assert (top["cited_rank"], second["cited_rank"], none["cited_rank"]) == (1, 2, None), provider
        assert top["has_url_citation"] and second["has_url_citation"] and not none["has_url_citation"]
        assert none["citation_count"] == 0 and top["citation_count"] == 2
        attribution = json.loads(second["result_json"])["scores"]["attribution"]
        assert attribution["components"]["citedRank"] == 2 and attribution["components"]["citedPoints"] == 5
        assert [c["rank"] for c in attribution["citedSources"]] == ([2, 4] if provider == "gemini" else [2])
        assert all(m["type"] in ("url", "domain", "brand") for m in attribution["mentions"])


def test_a_reanalysis_keeps_the_cited_sources(monitored, queries):
    """``reanalyze`` rebuilds each record from ``result_json``: the citations travel with it."""
    from modules.response.analyzer import record_from_result
    from modules.response.attribution import score_attribution
    from modules.response.config import AttributionConfig, TierConfig
    from modules.response.schema import AnalysisResult

    data_dir, _ = monitored
    analyses = ParquetStore(data_dir).read("analyses", "cited")
    row = analyses.filter((pl.col("provider") == "gemini") & (pl.col("query_id") == queries[1].query_id)).row(
        0, named=True
    )
    result = AnalysisResult.model_validate_json(row["result_json"])
    record = record_from_result(result)
    assert record.citations == result.citations and len(record.citations) == 4
    again = score_attribution(
        record.response,
        record.domain,
        result.brand_names,
        AttributionConfig(),
        TierConfig(),
        record.citations,
    )
    assert again == result.scores.attribution
