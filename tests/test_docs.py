"""The documented schemas are the written ones: datasets/README.md lists every column."""

import re

import polars as pl
import pytest

from evals.nodes import EVALUATIONS_SCHEMA
from modules.relevance.batch import RERANKINGS_SCHEMA
from modules.research.tables import FEEDBACK_SCHEMA, MEMORY_SCHEMA, REPORTS_SCHEMA, SOURCES_SCHEMA, STEPS_SCHEMA
from modules.response.tables import ANALYSES_SCHEMA, RUNS_SCHEMA, SUMMARY_SCHEMA
from tests.conftest import ROOT

TYPES = {pl.String: "string", pl.Int64: "int64", pl.Float64: "double", pl.Boolean: "bool"}


def documented(table: str) -> dict[str, str]:
    text = (ROOT / "datasets" / "README.md").read_text()
    section = text.split(f"## `{table}`", 1)[1].split("\n## ", 1)[0]
    return dict(re.findall(r"^\| `(\w+)` \| ([^|]+?) \|", section, re.MULTILINE))


@pytest.mark.parametrize("table, schema", [
    ("analyses", ANALYSES_SCHEMA), ("summaries", SUMMARY_SCHEMA), ("runs", RUNS_SCHEMA), ("reports", REPORTS_SCHEMA),
    ("steps", STEPS_SCHEMA), ("sources", SOURCES_SCHEMA), ("memory", MEMORY_SCHEMA), ("feedback", FEEDBACK_SCHEMA),
    ("rerankings", RERANKINGS_SCHEMA), ("evaluations", EVALUATIONS_SCHEMA),
])
def test_every_column_documented_with_its_type(table, schema):
    docs = documented(table)
    assert docs.pop("run_id") == "string (partition)"
    assert list(docs) == list(schema)
    for column, dtype in schema.items():
        expected = "timestamp" if isinstance(dtype, pl.Datetime) else "list\\<string\\>" if isinstance(dtype, pl.List) else TYPES[dtype]
        assert docs[column] == expected, column


def test_readme_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    command = "python3 -m venv .venv && .venv/bin/pip install torch==2.13.0 -e '.[test]' && .venv/bin/pytest"
    assert command in readme and command in ci
