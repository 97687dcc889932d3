"""The documented schemas are the written ones: datasets/README.md lists every column."""

import re

import polars as pl
import pytest

from modules.evaluation.nodes import EVALUATIONS_SCHEMA
from modules.providers.tables import COLLECTIONS_SCHEMA, RESPONSES_SCHEMA
from modules.queries.queryset import QUERY_SET_SCHEMA
from modules.relevance.batch import RERANKINGS_SCHEMA
from modules.research.tables import (
    FEEDBACK_SCHEMA,
    MEMORY_SCHEMA,
    REPORTS_SCHEMA,
    SOURCES_SCHEMA,
    STEPS_SCHEMA,
)
from modules.response.overrides import OVERRIDES_SCHEMA
from modules.response.sources import CITATION_DOMAINS_SCHEMA
from modules.response.tables import (
    ANALYSES_SCHEMA,
    COMPETITOR_SUMMARY_SCHEMA,
    PROVIDER_SUMMARY_SCHEMA,
    SUMMARY_SCHEMA,
)
from modules.store.runs import RUNS_SCHEMA
from tests.conftest import ROOT

TYPES = {pl.String: "string", pl.Int64: "int64", pl.Float64: "double", pl.Boolean: "bool"}


def documented(table: str) -> dict[str, str]:
    text = (ROOT / "datasets" / "README.md").read_text()
    section = text.split(f"## `{table}`", 1)[1].split("\n## ", 1)[0]
    return dict(re.findall(r"^\| `(\w+)` \| ([^|]+?) \|", section, re.MULTILINE))


@pytest.mark.parametrize(
    "table, schema",
    [
        ("analyses", ANALYSES_SCHEMA),
        ("summaries", SUMMARY_SCHEMA),
        ("runs", RUNS_SCHEMA),
        ("reports", REPORTS_SCHEMA),
        ("steps", STEPS_SCHEMA),
        ("sources", SOURCES_SCHEMA),
        ("memory", MEMORY_SCHEMA),
        ("feedback", FEEDBACK_SCHEMA),
        ("rerankings", RERANKINGS_SCHEMA),
        ("evaluations", EVALUATIONS_SCHEMA),
        ("responses", RESPONSES_SCHEMA),
        ("collections", COLLECTIONS_SCHEMA),
        ("provider_summaries", PROVIDER_SUMMARY_SCHEMA),
        ("competitor_summaries", COMPETITOR_SUMMARY_SCHEMA),
        ("citation_domains", CITATION_DOMAINS_SCHEMA),
        ("verdict_overrides", OVERRIDES_SCHEMA),
    ],
)
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
    command = "python3 -m venv .venv && .venv/bin/pip install torch==2.13.0 -e '.[test,local-lm]' -c constraints.txt && .venv/bin/ruff format --check . && .venv/bin/ruff check . && .venv/bin/pytest"
    assert command in readme and command in ci
    assert ".venv/bin/pip install torch==2.13.0 -e . -c constraints.txt && .venv/bin/sleuth analyze" in readme


def test_constraints_pin_every_installed_distribution_and_honour_the_known_breakages():
    """README's commands install the versions CI tested: every distribution in this environment
    is pinned (sleuth and torch aside, which the commands name), at the version installed."""
    from importlib.metadata import distributions

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
    from packaging.version import Version

    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            req = Requirement(line)
            (spec,) = req.specifier
            assert spec.operator == "==", line
            pins[canonicalize_name(req.name)] = spec.version
    assert Version(pins["sqlalchemy"]) < Version("2.1") and Version(pins["fastapi"]) < Version("0.151")
    installed = {canonicalize_name(d.metadata["Name"]): d.version for d in distributions()}
    installed = {
        k: v for k, v in installed.items() if k not in ("sleuth", "torch", "pip", "setuptools", "wheel")
    }
    unpinned = sorted(set(installed) - set(pins))
    assert not unpinned, f"installed but not in constraints.txt: {unpinned} (README: Dependency versions)"
    drifted = {k: (v, pins[k]) for k, v in installed.items() if Version(v) != Version(pins[k])}
    assert not drifted, f"installed != constraints.txt: {drifted}"


def test_every_deployment_names_a_flow_and_valid_parameters():
    import importlib

    import yaml

    deployments = yaml.safe_load((ROOT / "prefect.yaml").read_text())["deployments"]
    for d in deployments:
        path, name = d["entrypoint"].split(":")
        flow = getattr(importlib.import_module(path.removesuffix(".py").replace("/", ".")), name)
        flow.validate_parameters(d.get("parameters", {}))  # raises on an unknown or mistyped parameter


def test_the_docs_site_builds_strictly(tmp_path):
    """Broken links, missing pages and unknown anchors fail the build (mkdocs.yml: strict,
    validation at warn)."""
    import os
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},  # the theme's banner about its successor
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "site" / "index.html").exists() and (
        tmp_path / "site" / "glossary" / "index.html"
    ).exists()


def test_the_commands_page_names_every_command_and_option():
    """docs/commands.md is kept honest against the parser: every command (nested ones too) and
    every option appears in it."""
    import argparse

    from flows.cli import build_parser

    page = (ROOT / "docs" / "commands.md").read_text()
    missing = []

    def walk(parser: argparse.ArgumentParser, path: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    if f"{path} {name}".strip() not in page and f"`{name}" not in page:
                        missing.append(f"command {path} {name}")
                    walk(sub, f"{path} {name}".strip())
            else:
                missing.extend(
                    f"{path}: {option}"
                    for option in action.option_strings
                    if option.startswith("--") and option != "--help" and option not in page
                )

    walk(build_parser(), "sleuth")
    assert not missing, "docs/commands.md lacks: " + ", ".join(missing)
