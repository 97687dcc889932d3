"""The documented schemas are the written ones: datasets/README.md lists every column."""

import re

import polars as pl
import pytest

from evals.nodes import EVALUATIONS_SCHEMA
from modules.relevance.batch import RERANKINGS_SCHEMA
from modules.research.tables import FEEDBACK_SCHEMA, MEMORY_SCHEMA, REPORTS_SCHEMA, SOURCES_SCHEMA, STEPS_SCHEMA
from modules.providers.tables import COLLECTIONS_SCHEMA, RESPONSES_SCHEMA
from modules.queries.queryset import QUERY_SET_SCHEMA
from modules.response.tables import ANALYSES_SCHEMA, PROVIDER_SUMMARY_SCHEMA, RUNS_SCHEMA, SUMMARY_SCHEMA
from tests.conftest import ROOT

TYPES = {pl.String: "string", pl.Int64: "int64", pl.Float64: "double", pl.Boolean: "bool"}


def documented(table: str) -> dict[str, str]:
    text = (ROOT / "datasets" / "README.md").read_text()
    section = text.split(f"## `{table}`", 1)[1].split("\n## ", 1)[0]
    return dict(re.findall(r"^\| `(\w+)` \| ([^|]+?) \|", section, re.MULTILINE))


@pytest.mark.parametrize("table, schema", [
    ("analyses", ANALYSES_SCHEMA), ("summaries", SUMMARY_SCHEMA), ("runs", RUNS_SCHEMA), ("reports", REPORTS_SCHEMA),
    ("steps", STEPS_SCHEMA), ("sources", SOURCES_SCHEMA), ("memory", MEMORY_SCHEMA), ("feedback", FEEDBACK_SCHEMA),
    ("rerankings", RERANKINGS_SCHEMA), ("evaluations", EVALUATIONS_SCHEMA), ("responses", RESPONSES_SCHEMA),
    ("collections", COLLECTIONS_SCHEMA), ("provider_summaries", PROVIDER_SUMMARY_SCHEMA),
])
def test_every_column_documented_with_its_type(table, schema):
    docs = documented(table)
    assert docs.pop("run_id") == "string (partition)"
    assert list(docs) == list(schema)
    for column, dtype in schema.items():
        assert docs[column] == type_name(dtype), column


def type_name(dtype) -> str:
    if isinstance(dtype, pl.Datetime):
        return "timestamp"
    if isinstance(dtype, pl.List):
        return "list\\<struct\\>" if isinstance(dtype.inner, pl.Struct) else "list\\<string\\>"
    return TYPES[dtype]


def test_query_set_format_documented():
    text = (ROOT / "datasets" / "README.md").read_text()
    section = text.split("## Query sets", 1)[1].split("\n## ", 1)[0]
    docs = dict(re.findall(r"^\| `(\w+)` \| ([^|]+?) \|", section, re.MULTILINE))
    assert list(docs) == list(QUERY_SET_SCHEMA)
    assert all(docs[c] == type_name(t) for c, t in QUERY_SET_SCHEMA.items())


def test_readme_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    command = "python3 -m venv .venv && .venv/bin/pip install torch==2.13.0 -e '.[test]' && .venv/bin/pytest"
    assert command in readme and command in ci


def test_every_deployment_names_a_flow_and_valid_parameters():
    import importlib

    import yaml

    deployments = yaml.safe_load((ROOT / "prefect.yaml").read_text())["deployments"]
    for d in deployments:
        path, name = d["entrypoint"].split(":")
        flow = getattr(importlib.import_module(path.removesuffix(".py").replace("/", ".")), name)
        flow.validate_parameters(d.get("parameters", {}))  # raises on an unknown or mistyped parameter
