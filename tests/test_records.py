import polars as pl
import pytest

from modules.response.records import load_records
from tests.conftest import write_jsonl


def test_malformed_records_reported_with_line_numbers(tmp_path):
    path = write_jsonl(
        tmp_path / "in.jsonl",
        [
            {
                "query_id": "a",
                "domain": "x.example",
                "response": "fine",
                "claims": ["c1", {"text": "c2", "importance": "optional"}],
            },
            "{not json",
            {"query_id": "b", "response": "no domain"},
            {"query_id": "c", "domain": "x.example", "response": {"text": "from a dict"}},
            {"query_id": "d", "domain": "x.example", "response": None},
            {
                "query_id": "e",
                "domain": "x.example",
                "response": "x",
                "claims": [{"text": "c", "importance": "critical"}],
            },
            "[1, 2]",
            {"query_id": 7, "domain": "x.example", "response": ["two", "parts"]},
        ],
    )
    records, errors, coerced = load_records(path)
    assert [r.query_id for r in records] == ["a", "c", "d", "7"]
    assert [c.id for c in records[0].claims] == ["claim-1", "claim-2"]
    assert (
        records[1].response == "from a dict"
        and records[2].response == ""
        and records[3].response == "two\nparts"
    )
    assert coerced == {4, 5, 8}
    assert [(e.line, e.query_id) for e in errors] == [(2, None), (3, "b"), (6, "e"), (7, None)]
    assert "missing required field 'domain'" in errors[1].error and "claims.0.importance" in errors[2].error


def test_parquet_input(tmp_path):
    pl.DataFrame(
        {"query_id": ["a"], "domain": ["x.example"], "response": ["hi"], "claims": [["one"]]}
    ).write_parquet(tmp_path / "in.parquet")
    records, errors, _ = load_records(tmp_path / "in.parquet")
    assert records[0].claims[0].text == "one" and not errors


def test_missing_input_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="input not found"):
        load_records(tmp_path / "nope.jsonl")


def test_citations_from_jsonl_and_from_a_responses_table(tmp_path):
    """The assistant's cited sources: URLs or objects in JSONL (their order ranks them when no
    rank is given), a list of structs in Parquet (null for a row without, as in older tables)."""
    from modules.providers.tables import RESPONSES_SCHEMA

    jsonl = write_jsonl(
        tmp_path / "in.jsonl",
        [
            {"query_id": "a", "domain": "x.example", "response": "r", "citations": ["https://x.example/a"]},
            {"query_id": "b", "domain": "x.example", "response": "r", "citations": [{"url": ""}]},
        ],
    )
    records, errors, _ = load_records(jsonl)
    assert [(c.url, c.rank) for c in records[0].citations] == [("https://x.example/a", 1)]
    assert errors[0].line == 2 and "citations.0.url" in errors[0].error

    citation = RESPONSES_SCHEMA["citations"]
    pl.DataFrame(
        {
            "query_id": ["a", "b"],
            "domain": ["x.example"] * 2,
            "response": ["r", "r"],
            "citations": [[{"url": "https://other.org", "title": "O", "rank": 1}], None],
        },
        schema={"query_id": pl.String, "domain": pl.String, "response": pl.String, "citations": citation},
    ).write_parquet(tmp_path / "in.parquet")
    records, errors, _ = load_records(tmp_path / "in.parquet")
    assert not errors and [(c.url, c.title, c.rank) for c in records[0].citations] == [
        ("https://other.org", "O", 1)
    ]
    assert records[1].citations == []
