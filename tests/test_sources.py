"""citation_domains: the domains assistants cite in their answers about a site, and whose."""

import json
from datetime import UTC, datetime

import polars as pl

from modules.response import summarize_citation_domains

RUN_AT = datetime(2026, 11, 1, tzinfo=UTC)


def _row(response: str, citations: list[dict], wrong: bool = False, status: str = "ok") -> dict:
    result = {
        "response": response,
        "citations": citations,
        "site": {"name": "Nimbus", "domains": ["nimbusnotes.example"]},
        "competitors": [{"name": "Evernote", "domains": ["evernote.com"]}],
    }
    return {
        "domain": "nimbusnotes.example",
        "query_set_id": "qs",
        "status": status,
        "has_wrong_fact": wrong,
        "result_json": json.dumps(result),
    }


def test_each_cited_domain_is_counted_once_per_answer_with_its_owner_and_rank():
    analyses = pl.DataFrame(
        [
            _row(
                "See https://help.nimbusnotes.example/plans and https://www.reddit.com/r/notes.",
                [{"url": "https://reddit.com/r/x", "rank": 2}, {"url": "https://reddit.com/r/y", "rank": 3}],
                wrong=True,
            ),
            _row("Most use Evernote.", [{"url": "https://evernote.com/", "rank": 1}]),
            _row("Reviews agree.", [{"url": "https://www.reddit.com/r/z", "rank": 1}]),
            _row("no answer", [{"url": "https://ignored.example", "rank": 1}], status="error"),
        ]
    )
    rows = {r["cited_domain"]: r for r in summarize_citation_domains(analyses, RUN_AT).to_dicts()}
    assert set(rows) == {"nimbusnotes.example", "reddit.com", "evernote.com"}  # error rows not counted
    reddit = rows["reddit.com"]
    assert (reddit["owner"], reddit["answer_count"], reddit["scored_count"]) == ("other", 2, 3)
    assert reddit["share"] == 0.6667 and reddit["mean_rank"] == 1.5  # first listed source: ranks 2 and 1
    assert reddit["wrong_fact_count"] == 1
    site = rows["nimbusnotes.example"]  # a subdomain, cited only in the text
    assert site["owner"] == "site" and site["mean_rank"] is None
    assert (rows["evernote.com"]["owner"], rows["evernote.com"]["competitor"]) == ("competitor", "Evernote")
    ordered = summarize_citation_domains(analyses, RUN_AT)["cited_domain"].to_list()
    assert ordered[0] == "reddit.com"  # most cited first


def test_no_scored_answer_no_rows():
    empty = pl.DataFrame([_row("x", [], status="error")])
    assert summarize_citation_domains(empty, RUN_AT).is_empty()
