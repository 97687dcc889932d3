"""Collecting AI answers to a query set, and the weekly audit (collect -> analyze -> summaries).

One task asks every provider (each provider's calls run concurrently under its own limits, with
their own per-call retries); answers are checkpointed as they arrive, a signal or the run's
deadline stops the calls and the run writes what it has, and ``resume`` asks only what an
earlier run is missing. ``monitor`` analyses the answers of the same run and compares the
summaries with the previous ``monitor`` run of the same query set, per domain and per provider.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import polars as pl
from prefect import flow, get_run_logger, task
from prefect.artifacts import create_table_artifact
from prefect.cache_policies import NO_CACHE

from flows.analyze import JudgeOptions, analyze_step
from flows.progress import progress
from flows.runtime import (
    FLOW_TIMEOUT_S,
    CountedRun,
    IncompleteRun,
    artifact_key,
    begin_run,
    commit_run,
    stop_on_signals,
)
from modules.providers import (
    COLLECTIONS_SCHEMA,
    KEPT_STATUSES,
    RESPONSES_SCHEMA,
    Cancellation,
    CollectionPlan,
    ProviderRun,
    ask_providers,
    checkpoint_answer,
    collection_row,
    plan_collection,
    response_rows,
    specs_json,
    start_checkpoint,
)
from modules.response import AnalyzerConfig, parse_record, summarize_providers, trend_baseline
from modules.store import RUNS_SCHEMA, Checkpoint, ParquetStore, RunKind, frame, runs_frame


@dataclass
class CollectionRun(CountedRun):
    """What ``collect-responses`` returns: the run, its tables, totals and one row per provider."""

    query_set_id: str
    resumed_from: str | None
    collections: list[dict]


@dataclass
class MonitorRun(CountedRun):
    """What ``monitor-domain`` returns: as :class:`CollectionRun`, with the per-domain and
    per-provider summary rows (none when the run stopped before its analysis)."""

    query_set_id: str
    resumed_from: str | None
    summaries: list[dict]
    provider_summaries: list[dict]
    collections: list[dict]


class NoProviderAnswered(IncompleteRun):
    """Every provider failed (bad or missing key, unknown model, outage): nothing to audit."""


class CollectionStopped(IncompleteRun):
    """A signal or the run's deadline stopped the collection: what was collected is written, the
    rest is recorded as ``cancelled``, and ``--resume RUN_ID`` asks only that. Exit status
    128 + the signal's number, or 1 for the deadline."""


def _finish(
    result: CollectionRun | MonitorRun, cancellation: Cancellation, command: str
) -> CollectionRun | MonitorRun:
    """The run's result; or, raised with it so that the flow ends Failed with its tables
    written, :class:`CollectionStopped` when it stopped early and :class:`NoProviderAnswered`
    when every provider failed."""
    run_id, collections = result.run_id, result.collections
    if cancellation.cancelled:
        kept = sum(c["answered"] + c["refusals"] + c["empty"] for c in collections)
        cancelled = sum(json.loads(c["error_types"] or "{}").get("cancelled", 0) for c in collections)
        raise CollectionStopped(
            f"run {run_id} stopped early ({cancellation.reason}): {kept} answers kept, "
            f"{cancelled} cancelled; `sleuth {command} --resume {run_id}` asks only what is missing",
            result,
            128 + cancellation.signal if cancellation.signal else 1,
        )
    if collections and all(c["status"] == "failed" for c in collections):
        reasons = "; ".join(f"{c['provider']}/{c['model']}: {c['error']}" for c in collections)
        raise NoProviderAnswered(f"run {run_id}: no provider answered ({reasons})", result)
    return result


@task(name="plan-collection", cache_policy=NO_CACHE)
def plan_collection_task(
    query_set: str | None,
    providers: list[str | dict] | None,
    defaults: dict | None,
    allow_drafts: bool,
    ground_truth: str | None,
    resume: str | None,
    data_dir: str | None,
    samples: int | None = None,
) -> CollectionPlan:
    return plan_collection(
        query_set,
        providers,
        defaults=defaults,
        allow_drafts=allow_drafts,
        ground_truth=ground_truth,
        resume=resume,
        data_dir=data_dir,
        samples=samples,
    )


@task(name="ask-providers", cache_policy=NO_CACHE, retries=0)
def ask_providers_task(
    plan: CollectionPlan, cancellation: Cancellation, checkpoint: Checkpoint, flow_name: RunKind, run_id: str
) -> list[ProviderRun]:
    """Called inline, not submitted: the calls run in this process's threads, where a signal can
    stop them. Not retried: a retry would ask everything again and pay for it twice."""
    logger = get_run_logger()
    for spec in plan.specs:
        logger.info(
            "asking %s (%s) %d queries%s%s",
            spec.provider,
            spec.model,
            len(plan.query_set.queries),
            f" x {plan.samples} samples" if plan.samples > 1 else "",
            f", {len(plan.carried.get(spec.key, {}))} answers kept from run {plan.resumed_from}"
            if plan.resumed_from
            else "",
        )
    queries = plan.query_set.queries
    ids = {q.query_id for q in queries}
    label = {  # openai/gpt-4o-mini; local-qwen:openai/qwen2.5 for a labelled or self-hosted one
        spec.key: spec.model
        if spec.model.startswith(spec.provider + "/")
        else f"{spec.provider}:{spec.model}"
        for spec in plan.specs
    }
    key = artifact_key(flow_name, "progress", run_id)
    totals = {label[spec.key]: len(queries) * plan.samples for spec in plan.specs}
    unit = "asks" if plan.samples > 1 else "queries"
    with progress(flow_name, totals, unit=unit, key=key, description=f"run {run_id}") as shown:
        for spec in plan.specs:  # answers kept from the resumed run are done already
            kept = sum(
                q in ids and a.status in KEPT_STATUSES for (q, _), a in plan.carried.get(spec.key, {}).items()
            )
            if kept:
                shown.advance(kept, label[spec.key])
        return ask_providers(
            plan.specs,
            queries,
            samples=plan.samples,
            cancellation=cancellation,
            carried=plan.carried,
            on_answer=lambda spec, answer: checkpoint_answer(checkpoint, spec, answer),
            on_asked=lambda spec, answer: shown.advance(1, label[spec.key]),
        )


def _collect(
    plan: CollectionPlan, flow_name: RunKind, run_id: str, store: ParquetStore, max_seconds: float | None
) -> tuple[pl.DataFrame, pl.DataFrame, Cancellation]:
    """Every provider's answers, checkpointed as they arrive; SIGINT/SIGTERM or ``max_seconds``
    stop the calls and the run goes on to write what it has."""
    query_set = plan.query_set
    checkpoint = store.checkpoint(run_id)
    start_checkpoint(checkpoint, plan, flow_name)
    cancellation = Cancellation(max_seconds)
    with stop_on_signals(cancellation):
        runs = ask_providers_task(plan, cancellation, checkpoint, flow_name, run_id)
    responses = frame([r for run in runs for r in response_rows(run, query_set)], RESPONSES_SCHEMA)
    collections = frame([collection_row(run, query_set, plan.samples) for run in runs], COLLECTIONS_SCHEMA)
    logger = get_run_logger()
    if cancellation.cancelled:
        logger.warning("collection stopped: %s", cancellation.reason)
    for c in collections.iter_rows(named=True):
        log = logger.warning if c["status"] != "ok" else logger.info
        log(
            "%s/%s: %s, %d answered, %d refusals, %d empty, %d errors%s",
            c["provider"],
            c["model"],
            c["status"],
            c["answered"],
            c["refusals"],
            c["empty"],
            c["errors"],
            f" ({c['error']})" if c["error"] else "",
        )
    create_table_artifact(
        key=artifact_key(flow_name, "collections", run_id),
        table=collections.drop("parameters", "started_at", "completed_at").to_dicts(),
        description=f"Answers collected for query set {query_set.query_set_id}",
    )
    return responses, collections, cancellation


def _checkpoints_done(plan: CollectionPlan, run_id: str, store: ParquetStore) -> None:
    """The run is written: its checkpoint, and those of the runs it resumed (a chain of resumes
    of interrupted runs), are no longer needed."""
    store.checkpoint(run_id).remove()
    rid, seen = plan.resumed_from, {run_id}
    while rid and rid not in seen:
        seen.add(rid)
        checkpoint = store.checkpoint(rid)
        earlier = (checkpoint.manifest() or {}).get("resumed_from")
        checkpoint.remove()
        rid = earlier


def _collect_totals(collections: pl.DataFrame) -> dict[str, int]:
    total = int(collections["queries"].sum())
    failed = int(collections["errors"].sum())
    return {"total": total, "succeeded": total - failed, "failed": failed, "flagged": 0, "fallback": 0}


def _run_fields(plan: CollectionPlan, cancellation: Cancellation) -> dict[str, Any]:
    query_set = plan.query_set
    return {
        "input_path": query_set.path,
        "query_set_id": query_set.query_set_id,
        "query_set_version": query_set.version,
        "providers": specs_json(plan.specs),
        "resumed_from": plan.resumed_from,
        "stopped": cancellation.reason if cancellation.cancelled else None,
        "samples": plan.samples,
    }


@flow(name="collect-responses", timeout_seconds=FLOW_TIMEOUT_S[RunKind.COLLECT])
def collect(
    query_set: str | None = None,
    providers: list[str | dict] | None = None,
    run_id: str | None = None,
    data_dir: str | None = None,
    defaults: dict | None = None,
    allow_drafts: bool = False,
    resume: str | None = None,
    max_seconds: float | None = None,
    samples: int | None = None,
) -> CollectionRun:
    """Ask every query of a query set of each provider; write ``responses``, ``collections``, ``runs``.

    ``samples``: asks of each query per provider (default 1), since one answer is a poor sample
    of what an assistant says. ``resume``: the run whose missing answers to ask (its query set,
    samples and providers by default).
    ``max_seconds``: stop asking then, as on SIGTERM. Ends Failed (tables written) when stopped
    early or when no provider answered anything."""
    started_at = datetime.now(UTC)
    plan = plan_collection_task(query_set, providers, defaults, allow_drafts, None, resume, data_dir, samples)
    store = ParquetStore(data_dir)
    run_id = begin_run(run_id, store)
    responses, collections, cancellation = _collect(plan, RunKind.COLLECT, run_id, store, max_seconds)
    totals = _collect_totals(collections)
    runs = runs_frame(RunKind.COLLECT, started_at, **totals, **_run_fields(plan, cancellation))
    return _commit_collection(
        RunKind.COLLECT, plan, store, run_id, cancellation, responses, collections, totals, {"runs": runs}
    )


@flow(name="monitor-domain", timeout_seconds=FLOW_TIMEOUT_S[RunKind.MONITOR])
def monitor(
    query_set: str | None = None,
    ground_truth: str | None = None,
    providers: list[str | dict] | None = None,
    run_id: str | None = None,
    data_dir: str | None = None,
    config: AnalyzerConfig | None = None,
    defaults: dict | None = None,
    allow_drafts: bool = False,
    resume: str | None = None,
    max_seconds: float | None = None,
    judge: JudgeOptions | None = None,
    samples: int | None = None,
) -> MonitorRun:
    """The weekly audit: collect the answers, analyse them in the same run, and summarise per
    domain and per provider with trends against the previous monitor run of the query set.
    ``judge``: the LM judge of claim verdicts and wrong facts (none: the offline judge only).

    ``samples`` / ``resume`` / ``max_seconds`` as for ``collect``; a monitor stopped early writes what it
    collected and no analysis (its resume analyses everything). Ends Failed (tables written)
    when stopped early or when no provider answered anything."""
    started_at = datetime.now(UTC)
    config = config or AnalyzerConfig()
    plan = plan_collection_task(
        query_set, providers, defaults, allow_drafts, ground_truth, resume, data_dir, samples
    )
    if not plan.ground_truth:
        raise ValueError("monitor needs the site's pages: give --ground-truth")
    store = ParquetStore(data_dir)
    run_id = begin_run(run_id, store)
    responses, collections, cancellation = _collect(plan, RunKind.MONITOR, run_id, store, max_seconds)
    if cancellation.cancelled:  # what was collected and no analysis: its resume analyses everything
        totals = _collect_totals(collections)
        fields = {**_run_fields(plan, cancellation), "ground_truth_path": plan.ground_truth}
        tables = {"runs": runs_frame(RunKind.MONITOR, started_at, **totals, **fields)}
    else:
        totals, tables = _analyze_collected(
            responses,
            plan,
            cancellation,
            store=store,
            run_id=run_id,
            config=config,
            started_at=started_at,
            judge=judge,
        )
    return _commit_collection(
        RunKind.MONITOR, plan, store, run_id, cancellation, responses, collections, totals, tables
    )


def _commit_collection(
    kind: RunKind,
    plan: CollectionPlan,
    store: ParquetStore,
    run_id: str,
    cancellation: Cancellation,
    responses: pl.DataFrame,
    collections: pl.DataFrame,
    totals: dict[str, int],
    tables: dict[str, pl.DataFrame],
) -> CollectionRun | MonitorRun:
    """How a collect or monitor run ends: the answers, the collection per provider and what the
    run made of them committed together, its checkpoints marked done, and its result returned
    (raised, as :func:`_finish` says, when it stopped early or no provider answered)."""
    paths = commit_run(kind, store, run_id, {"responses": responses, "collections": collections, **tables})
    _checkpoints_done(plan, run_id, store)
    common = {
        "run_id": run_id,
        "data_dir": store.root,
        "paths": paths,
        **totals,
        "query_set_id": plan.query_set.query_set_id,
        "resumed_from": plan.resumed_from,
        "collections": collections.to_dicts(),
    }
    if kind == RunKind.COLLECT:
        return _finish(CollectionRun(**common), cancellation, kind)
    summaries = {t: tables[t].to_dicts() if t in tables else [] for t in ("summaries", "provider_summaries")}
    return _finish(MonitorRun(**common, **summaries), cancellation, kind)


def _analyze_collected(
    responses: pl.DataFrame,
    plan: CollectionPlan,
    cancellation: Cancellation,
    *,
    store: ParquetStore,
    run_id: str,
    config: AnalyzerConfig,
    started_at: datetime,
    judge: JudgeOptions | None,
) -> tuple[dict, dict[str, pl.DataFrame]]:
    """The analyze step ``sleuth analyze`` runs, on the answers just collected, plus the
    per-provider summaries: the run's totals and its analysis tables."""
    records, errors = [], []
    for n, row in enumerate(responses.to_dicts(), 1):  # the same parsing as `sleuth analyze` input
        record, error, _ = parse_record(row, n)
        if record is None:
            errors.append(error)
        else:
            records.append(record)
    tables = analyze_step(
        records,
        errors,
        set(),
        store=store,
        ground_truth=plan.ground_truth,
        input_label=plan.query_set.path,
        run_id=run_id,
        config=config,
        started_at=started_at,
        flow_name=RunKind.MONITOR,
        judge=judge,
        providers=specs_json(plan.specs),
    )
    provider_summaries = summarize_providers(
        tables.analyses,
        started_at,
        trend_baseline(store, "provider_summaries", RunKind.MONITOR, config_hash=config.config_hash()),
    )
    runs = tables.runs.with_columns(
        *(pl.lit(v, RUNS_SCHEMA[k]).alias(k) for k, v in _run_fields(plan, cancellation).items())
    )
    return tables.totals, {
        "analyses": tables.analyses,
        "summaries": tables.summaries,
        "provider_summaries": provider_summaries,
        "competitor_summaries": tables.competitor_summaries,
        "citation_domains": tables.citation_domains,
        "runs": runs,
    }
