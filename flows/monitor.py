"""Collecting AI answers to a query set, and the weekly audit (collect -> analyze -> summaries).

One task per provider (each runs its calls concurrently under that provider's limits, and does
its own per-call retries, so the task itself is not retried: a retry would ask everything
again and pay for it twice). ``monitor`` analyses the answers of the same run and compares the
summaries with the previous ``monitor`` run of the same query set, per domain and per provider.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import polars as pl
from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NO_CACHE

from flows.analyze import analyze_records, summary_artifact
from flows.runtime import FLOW_TIMEOUT_S, artifact_key, begin_run, publish_run_report, write_run
from modules.providers import ProviderSpec, ask_provider, parse_provider
from modules.providers.spec import unique_specs
from modules.providers.tables import COLLECTIONS_SCHEMA, RESPONSES_SCHEMA, collection_row, response_rows
from modules.queries import QuerySet, load_query_set
from modules.response import AnalyzerConfig
from modules.response.batch import build_tables
from modules.response.records import parse_record
from modules.response.tables import runs_frame, summarize_providers
from modules.store import ParquetStore, frame

COLLECT_TABLES = ("responses", "collections", "runs")
MONITOR_TABLES = ("responses", "collections", "analyses", "summaries", "provider_summaries", "runs")


class NoProviderAnswered(RuntimeError):
    """Every provider failed (bad or missing key, unknown model, outage): there is nothing to
    audit. Raised after the run's tables are written (``collections`` says why), so the flow run
    ends Failed and Prefect's failure notifications fire; ``result`` is what the flow returns."""

    def __init__(self, message: str, result: dict[str, Any]):
        super().__init__(message, result)
        self.result = result

    def __str__(self) -> str:
        return self.args[0]


def _fail_if_nothing_answered(result: dict[str, Any]) -> dict[str, Any]:
    collections = result["collections"]
    if collections and all(c["status"] == "failed" for c in collections):
        reasons = "; ".join(f"{c['provider']}/{c['model']}: {c['error']}" for c in collections)
        raise NoProviderAnswered(f"run {result['run_id']}: no provider answered ({reasons})", result)
    return result


def provider_specs(providers: list[str | dict], defaults: dict | None = None) -> list[ProviderSpec]:
    """Spec strings (``MODEL[,key=value...]``) or dicts of ProviderSpec fields, checked to be distinct."""
    specs = [parse_provider(p, **(defaults or {})) if isinstance(p, str) else ProviderSpec(**{**(defaults or {}), **p})
             for p in providers]
    return unique_specs(specs)


@task(name="load-query-set", cache_policy=NO_CACHE)
def load_query_set_task(path: str, allow_drafts: bool) -> QuerySet:
    return load_query_set(path, allow_drafts=allow_drafts)


@task(name="ask-provider", cache_policy=NO_CACHE, retries=0)
def ask_provider_task(spec: ProviderSpec, query_set: QuerySet):
    get_run_logger().info("asking %s (%s) %d queries", spec.provider, spec.model, len(query_set.queries))
    return ask_provider(spec, query_set.queries)


def _collect(query_set: QuerySet, specs: list[ProviderSpec], flow_name: str, run_id: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    futures = [ask_provider_task.submit(spec, query_set) for spec in specs]
    runs = [f.result() for f in futures]
    responses = frame([r for run in runs for r in response_rows(run, query_set)], RESPONSES_SCHEMA)
    collections = frame([collection_row(run, query_set) for run in runs], COLLECTIONS_SCHEMA)
    logger = get_run_logger()
    for c in collections.iter_rows(named=True):
        log = logger.warning if c["status"] != "ok" else logger.info
        log("%s/%s: %s, %d answered, %d refusals, %d empty, %d errors%s", c["provider"], c["model"], c["status"],
            c["answered"], c["refusals"], c["empty"], c["errors"], f" ({c['error']})" if c["error"] else "")
    create_table_artifact(key=artifact_key(flow_name, "collections", run_id), table=collections.drop("parameters", "started_at", "completed_at").to_dicts(),
                          description=f"Answers collected for query set {query_set.query_set_id}")
    return responses, collections


def _collect_totals(collections: pl.DataFrame) -> dict[str, int]:
    total = int(collections["queries"].sum())
    failed = int(collections["errors"].sum())
    return {"total": total, "succeeded": total - failed, "failed": failed, "flagged": 0, "fallback": 0}


def _run_fields(query_set: QuerySet, specs: list[ProviderSpec]) -> dict[str, Any]:
    return {"input_path": query_set.path, "query_set_id": query_set.query_set_id,
            "query_set_version": query_set.version,
            "providers": json.dumps([s.parameters() | {"provider": s.provider} for s in specs])}


@flow(name="collect-responses", timeout_seconds=FLOW_TIMEOUT_S["collect"])
def collect(query_set: str, providers: list[str | dict], run_id: str | None = None, data_dir: str | None = None,
            defaults: dict | None = None, allow_drafts: bool = False) -> dict[str, Any]:
    """Ask every query of a query set of each provider; write ``responses``, ``collections``, ``runs``.
    Ends Failed (tables written) when no provider answered anything."""
    started_at = datetime.now(timezone.utc)
    specs = provider_specs(providers, defaults)
    run_id = begin_run(run_id, data_dir, COLLECT_TABLES)
    qs = load_query_set_task(query_set, allow_drafts)
    responses, collections = _collect(qs, specs, "collect", run_id)
    totals = _collect_totals(collections)
    runs = runs_frame("collect", started_at, **totals, **_run_fields(qs, specs))
    paths = write_run(data_dir, run_id, {"responses": responses, "collections": collections, "runs": runs})
    publish_run_report("collect", run_id, data_dir)
    return _fail_if_nothing_answered({
        "run_id": run_id, "data_dir": ParquetStore(data_dir).root, "paths": paths, **totals,
        "query_set_id": qs.query_set_id, "collections": collections.to_dicts()})


@flow(name="monitor-domain", timeout_seconds=FLOW_TIMEOUT_S["monitor"])
def monitor(query_set: str, ground_truth: str, providers: list[str | dict], run_id: str | None = None,
            data_dir: str | None = None, config: AnalyzerConfig | None = None, defaults: dict | None = None,
            allow_drafts: bool = False) -> dict[str, Any]:
    """The weekly audit: collect the answers, analyse them in the same run, and summarise per
    domain and per provider with trends against the previous monitor run of the query set.
    Ends Failed (tables written) when no provider answered anything."""
    started_at = datetime.now(timezone.utc)
    config = config or AnalyzerConfig()
    specs = provider_specs(providers, defaults)
    run_id = begin_run(run_id, data_dir, MONITOR_TABLES)
    store = ParquetStore(data_dir)
    qs = load_query_set_task(query_set, allow_drafts)
    responses, collections = _collect(qs, specs, "monitor", run_id)

    records, errors = [], []
    for n, row in enumerate(responses.to_dicts(), 1):  # the same parsing as `sleuth analyze` input
        record, error, _ = parse_record(row, n)
        if record is None:
            errors.append(error)
        else:
            records.append(record)
    rows, gts, embedding_model = analyze_records(records, errors, set(), ground_truth=ground_truth,
                                                 config=config, run_id=run_id, flow_name="monitor")
    tables = build_tables(
        rows, errors, config=config, started_at=started_at, previous_summaries=store.read_of_flow("summaries", "monitor"),
        input_path=query_set, ground_truth_path=ground_truth, ground_truth=gts, embedding_model=embedding_model,
        flow="monitor",
    )
    provider_summaries = summarize_providers(tables.analyses, started_at, store.read_of_flow("provider_summaries", "monitor"))
    runs = tables.runs.with_columns(*(pl.lit(v, pl.String).alias(k) for k, v in _run_fields(qs, specs).items()))
    paths = write_run(data_dir, run_id, {
        "responses": responses, "collections": collections, "analyses": tables.analyses,
        "summaries": tables.summaries, "provider_summaries": provider_summaries, "runs": runs,
    })
    summary_rows, provider_rows = tables.summaries.to_dicts(), provider_summaries.to_dicts()
    summary_artifact("monitor", run_id, summary_rows)
    publish_run_report("monitor", run_id, data_dir)
    create_markdown_artifact(key=artifact_key("monitor", "providers", run_id), markdown=provider_markdown(provider_rows, collections.to_dicts()),
                             description=f"Providers side by side on {qs.query_set_id}, run {run_id}")
    return _fail_if_nothing_answered({
        "run_id": run_id, "data_dir": store.root, "paths": paths, **tables.totals, "query_set_id": qs.query_set_id,
        "summaries": summary_rows, "provider_summaries": provider_rows, "collections": collections.to_dicts()})


def provider_markdown(provider_rows: list[dict], collections: list[dict]) -> str:
    """Providers side by side: mean scores, trend, refusals, errors, cost; a failed provider says why."""
    why = {(c["provider"], c["model"]): c for c in collections}
    fmt = lambda v, d="": "-" if v is None else (f"{v:+.1f}" if d == "+" else f"{v:.1f}" if isinstance(v, float) else str(v))  # noqa: E731
    lines = ["| domain | provider | model | rank | accuracy | completeness | attribution | Δacc | refusals | errors | cost (USD) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in provider_rows:
        c = why.get((r["provider"], r["model"]), {})
        lines.append(f"| {r['domain']} | {r['provider']} | {r['model']} | {fmt(r['accuracy_rank'])} | {fmt(r['accuracy_mean'])} "
                     f"| {fmt(r['completeness_mean'])} | {fmt(r['attribution_mean'])} | {fmt(r['accuracy_delta'], '+')} "
                     f"| {r['refusal_count']} | {r['error_count']} | {fmt(c.get('cost_usd'))} |")
    failed = [c for c in collections if c["status"] == "failed"]
    for c in failed:
        lines.append(f"\n**{c['provider']}/{c['model']} failed entirely**: {c['error']}")
    return "\n".join(lines)
