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
