"""Batch response analysis as a Prefect flow: load -> ground truth -> batches -> Parquet.

Tasks are coarse (one per batch of responses) because a task run costs milliseconds; retries
apply to transient I/O failures only, never to a bad record or a bug. With an LM judge
(``judge``: ``sleuth analyze --lm``), each batch task also asks the ``JudgeClaims`` program for
its results' claim verdicts and wrong facts (``modules/response/judge.py``); an answer whose LM
output is unusable keeps the offline verdicts, marked ``fallback`` / ``judge_fallback``.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger, task, unmapped
from prefect.cache_policies import NO_CACHE
from pydantic import BaseModel, Field

from flows.progress import duration, progress
from flows.runtime import FLOW_TIMEOUT_S, CountedRun, artifact_key, begin_run, commit_run, retry_transient
from modules import programs as program_store
from modules.lm import LMOption, LMSettings
from modules.response import (
    ANALYST_FLAG,
    OVERRIDES_TABLE,
    AnalysisResult,
    AnalyzerConfig,
    EncodedTexts,
    LMJudge,
    RecordError,
    ResponseAnalyzer,
    RunTables,
    analyze_to_rows,
    apply_to_rows,
    build_tables,
    load_pages,
    load_records,
    record_from_result,
    standing,
    trend_baseline,
    waves,
)
from modules.store import ParquetStore, RunKind


@dataclass
class AnalysisRun(CountedRun):
    """What ``analyze-responses``, ``reanalyze-run`` return: the run, its tables and totals, and the
    per-domain summary rows."""

    summaries: list[dict]


class JudgeOptions(BaseModel):
    """The LM judge of claim verdicts and wrong facts. No LM (here or in ``$SLEUTH_LM``): the
    offline judge alone, as without options."""

    lm: LMOption = Field(
        default_factory=LMSettings.from_env, description="the judge's LM (no model: the offline judge only)"
    )
    programs: str | None = Field(
        None, description="compiled programs folder (default modules/compiled); the newest judge program runs"
    )
    program: str = Field(
        "latest",
        description="latest | a program file | baseline (the offline judge only); "
        "after resolve(): the file, or 'uncompiled'",
    )

    def resolve(self) -> JudgeOptions | None:
        """The program file that will judge, fixed once per run so that every batch uses the
        same; None when no LM judges."""
        if not self.lm.model or self.program == "baseline":
            return None
        path = program_store.resolve(
            "judge", None if self.program == "uncompiled" else self.program, self.programs
        )
        return self.model_copy(update={"program": str(path) if path else "uncompiled"})

    @property
    def version(self) -> str:
        return "uncompiled" if self.program in ("uncompiled", "latest") else Path(self.program).stem

    def record(self) -> dict[str, Any]:
        """What the run's ``runs.config_json`` says about the judge."""
        return {
            "lm": self.lm.model,
            "lm_base_url": self.lm.base_url,
            "lm_context": self.lm.context_tokens,
            "program": self.version,
        }

    def build(self, config: AnalyzerConfig):
        """The judge of a resolved spec (see :meth:`resolve`): a verdict per claim and the wrong
        facts need a roomier reply than most nodes."""
        settings = self.lm.model_copy(update={"max_tokens": max(self.lm.max_tokens, 3000)})
        program = program_store.load("judge", self.program) if self.version != "uncompiled" else None
        return LMJudge(
            settings.build(),
            program,
            config=config,
            retries=settings.retries,
            version=self.version,
            context_tokens=settings.context_tokens,
        )


def with_judge(runs, judge: JudgeOptions | None, lm_calls: dict | None = None):
    """The ``runs`` row with the judge (LM, program version, and how many of its calls the LM
    answered and how many fell back) added to its ``config_json``."""
    if judge is None:
        return runs
    import polars as pl

    config = json.loads(runs["config_json"][0] or "{}")
    # fallbacks by reason: timeout, transport, unparseable output, missing claim, ...
    calls = {"answered": 0, "fell_back": 0, "fallback_reasons": {}, **(lm_calls or {})}
    record = {**judge.record(), "lm_calls": calls}
    return runs.with_columns(pl.lit(json.dumps({**config, "judge": record})).alias("config_json"))


def _task_options(config: AnalyzerConfig) -> dict[str, Any]:
    retries = config.batch.max_retries if config.batch.retry_on_failure else 0
    return {"retries": retries, "retry_delay_seconds": [2**i for i in range(max(retries, 1))]}


@task(name="load-records", cache_policy=NO_CACHE, retry_condition_fn=retry_transient)
def load_records_task(input_path: str):
    return load_records(input_path)


#: Page chunks from which embedding the ground truth shows its progress (~10 s on 2 cores).
GROUND_TRUTH_PROGRESS_CHUNKS = 3000
#: Page chunks from which the user is told at once what the embedding will cost. Measured on 2
#: cores: a 200 MB page file of 334,551 short pages is 613,099 chunks, loaded and chunked in
#: 28 s (0.9 GB), then embedded at 100-300 chunks/s (30-100 minutes, once: the vectors are cached).
LARGE_GROUND_TRUTH_CHUNKS = 50_000
CHUNKS_PER_SECOND = (100, 300)


def _large_ground_truth_note(pages_path: str, chunks: int) -> None:
    """Said at once, not in the end-of-run summary: the user may want to stop and pass a smaller
    page file rather than wait."""
    slow, fast = (chunks / rate for rate in CHUNKS_PER_SECOND)
    note = (
        f"ground truth {pages_path}: {chunks:,} page chunks to embed, about {duration(fast)}-"
        f"{duration(slow)} on 2 cores (once: the vectors are cached for the next run); a file of "
        "the answers' domains' pages alone is faster"
    )
    print(f"sleuth: note: {note}", file=sys.stderr, flush=True)
    get_run_logger().info(note)


@task(name="load-ground-truth", cache_policy=NO_CACHE, retry_condition_fn=retry_transient)
def load_ground_truth_task(analyzer: ResponseAnalyzer, pages_path: str, domains: list[str]):
    pages = load_pages(pages_path)
    with ExitStack() as shown:

        def opened(chunks: int):
            cap = analyzer.config.batch.max_ground_truth_chunks
            if chunks > cap:
                raise ValueError(
                    f"ground truth {pages_path}: {chunks:,} page chunks for the answers' domains, more than "
                    f"batch.max_ground_truth_chunks ({cap:,}); pass those domains' pages only, or raise it "
                    f"(--set batch.max_ground_truth_chunks={chunks})"
                )
            if chunks >= LARGE_GROUND_TRUTH_CHUNKS:
                _large_ground_truth_note(pages_path, chunks)
            if chunks < GROUND_TRUTH_PROGRESS_CHUNKS:  # seconds of work: no bar
                return None
            return shown.enter_context(progress("ground truth", chunks, unit="page chunks")).advance

        return analyzer.prepare_ground_truth(pages, domains, progress=opened), analyzer.embedder.name


class Batch:
    """What a batch task reads, in a plain object: Prefect walks a task's lists, dicts, dataclasses
    and models for futures, twice per task (~0.2 s of CPU under the GIL for 500 records and the
    ground truth; ~1.3 s of a 2,929-answer run, measured), and Dask rebuilds tuples, which turns
    Prefect's ``quote``/``opaque`` annotations into plain tuples; neither looks inside this."""

    def __init__(self, records, ground_truth, coerced_lines, encoded: EncodedTexts | None = None):
        self.records, self.ground_truth, self.coerced_lines = records, ground_truth, coerced_lines
        self.encoded = encoded


@task(name="encode-texts", cache_policy=NO_CACHE, retry_condition_fn=retry_transient)
def encode_texts_task(analyzer: ResponseAnalyzer, batch: Batch) -> EncodedTexts | None:
    """The distinct texts of the next batches, encoded in one call for them to share."""
    return analyzer.encode_ahead(batch.records, batch.ground_truth)


@task(name="analyze-batch", cache_policy=NO_CACHE, retry_condition_fn=retry_transient)
def analyze_batch_task(
    analyzer: ResponseAnalyzer, batch: Batch, judge: JudgeOptions | None = None
) -> tuple[list[dict], dict]:
    """A batch through the offline analyzer (its texts' vectors from ``batch.encoded`` when it
    has them), then (with a resolved ``judge``) through the LM judge."""
    b = batch
    if judge is None:
        return analyze_to_rows(analyzer, b.records, b.ground_truth, b.coerced_lines, encoded=b.encoded), {}
    lm_judge = judge.build(analyzer.config)
    rows = analyze_to_rows(
        analyzer, b.records, b.ground_truth, b.coerced_lines, judge=lm_judge, encoded=b.encoded
    )
    get_run_logger().info(
        "LM judge %s (%s): %d answers, %d fell back, %d tokens, $%.4f",
        judge.lm.model,
        judge.version,
        len(rows),
        sum("judge_fallback" in (r["flags"] or []) for r in rows),
        lm_judge.usage["tokens"],
        lm_judge.usage["cost_usd"],
    )
    calls = lm_judge.runner.calls()
    return rows, {k: calls[k] for k in ("answered", "fell_back", "fallback_reasons")}


def analyze_records(
    records,
    errors: list[RecordError],
    coerced: set[int],
    *,
    ground_truth: str,
    config: AnalyzerConfig,
    run_id: str,
    flow_name: RunKind,
    judge: JudgeOptions | None = None,
) -> tuple[list[dict], dict, str, dict]:
    """Ground truth, then the records in parallel batch tasks: ``(analyses rows, ground truth,
    embedding model)``. Shared by ``analyze-responses``, ``reanalyze-run`` and ``monitor``.
    ``judge``: a resolved :class:`JudgeOptions` (``JudgeOptions.resolve()``), or None; the LM
    judge's calls answered and fallen back come last."""
    logger = get_run_logger()
    if errors and not config.batch.continue_on_error:
        raise ValueError(
            "malformed input (continue_on_error is false): " + "; ".join(e.error for e in errors[:10])
        )
    options = _task_options(config)
    domains = sorted({r.domain for r in records})
    # one analyzer for the run: its word vectors (the lexicon store), each ground truth's parsed
    # page facts and its memos serve every batch, instead of being loaded and rebuilt per batch
    analyzer = ResponseAnalyzer(config)
    gts, embedding_model = load_ground_truth_task.with_options(**options)(analyzer, ground_truth, domains)
    if not config.batch.continue_on_error:
        missing = sorted({r.domain for r in records} - set(gts))
        if missing:
            raise ValueError(f"no ground truth pages for domain(s) {missing} (continue_on_error is false)")
    analyze = analyze_batch_task.with_options(**options)
    rows: list[dict] = []
    lm_calls: Counter[str] = Counter()
    reasons: Counter[str] = Counter()  # fallbacks by reason
    n_batches = 0
    key = artifact_key(flow_name, "progress", run_id)
    with progress(
        "analyze",
        len(records),
        unit="responses",
        key=key,
        description=f"run {run_id}: {len(records)} responses",
    ) as shown:

        def collect(wave, futures) -> None:
            for batch, future in zip(wave, futures):
                part, calls = future.result()
                rows.extend(part)
                reasons.update(calls.get("fallback_reasons", {}))
                lm_calls.update({k: n for k, n in calls.items() if k != "fallback_reasons"})
                shown.advance(len(batch))

        # a wave's texts are encoded while the previous wave's batches run; its results are
        # collected (and counted) before the next wave is encoded: progress from the first wave,
        # and no more than two waves' vectors held at once
        running = None
        for wave in waves(records, config.batch.batch_size, config.batch.concurrency):
            wave_records = [r for batch in wave for r in batch]
            encoded = encode_texts_task.with_options(**options)(analyzer, Batch(wave_records, gts, coerced))
            futures = analyze.map(
                unmapped(analyzer), [Batch(b, gts, coerced, encoded) for b in wave], unmapped(judge)
            )
            if running:
                collect(*running)
            running, n_batches = (wave, futures), n_batches + len(wave)
        if running:
            collect(*running)
    logger.info("analysed %d responses in %d batches", len(rows), n_batches)
    for flag, meaning in WARNED_FLAGS.items():
        n = sum(flag in (r["flags"] or []) for r in rows)
        if n:  # one message per flag: the CLI counts warnings by message
            logger.warning(f"{meaning} (flag {flag}): {n} of {len(rows)} responses")
    return rows, gts, embedding_model, {**lm_calls, "fallback_reasons": dict(reasons)} if lm_calls else {}


#: Row flags a user must hear of after a run, not only find in the table: what was cut or scored
#: by a fallback.
WARNED_FLAGS = {
    "response_truncated": "responses cut to batch.max_response_chars before scoring",
    "response_coerced": "responses that were not text, coerced to text",
    "embedding_fallback": "responses scored by keyword matching (the embedding failed)",
    "judge_fallback": "answers left to the offline judge (the LM judge fell back)",
}


def analyze_step(
    records,
    errors: list[RecordError],
    coerced: set[int],
    *,
    store: ParquetStore,
    ground_truth: str,
    input_label: str,
    run_id: str,
    config: AnalyzerConfig,
    started_at: datetime,
    flow_name: RunKind,
    judge: JudgeOptions | None = None,
    providers: str | None = None,
) -> RunTables:
    """The analysis every response flow shares (``analyze``, ``reanalyze``, ``monitor``): the
    records scored against the pages, with trends against the previous comparable run
    (:func:`modules.response.trend_baseline`; ``providers``: a monitor's ``runs.providers``) and
    the judge recorded in ``runs``."""
    resolved = judge.resolve() if judge is not None else None
    comparable = {"config_hash": config.config_hash(), "input_path": input_label, "providers": providers}
    rows, gts, embedding_model, lm_calls = analyze_records(
        records,
        errors,
        coerced,
        ground_truth=ground_truth,
        config=config,
        run_id=run_id,
        flow_name=flow_name,
        judge=resolved,
    )
    rows = apply_analyst_verdicts(rows, store, config)
    tables = build_tables(
        rows,
        errors,
        config=config,
        started_at=started_at,
        previous_summaries=trend_baseline(store, "summaries", flow_name, **comparable),
        # per provider: comparable whichever providers the runs asked
        previous_competitor_summaries=trend_baseline(
            store, "competitor_summaries", flow_name, **{**comparable, "providers": None}
        ),
        input_path=input_label,
        ground_truth_path=ground_truth,
        ground_truth=gts,
        embedding_model=embedding_model,
        flow=flow_name,
    )
    return replace(tables, runs=with_judge(tables.runs, resolved, lm_calls))


def apply_analyst_verdicts(rows: list[dict], store: ParquetStore, config: AnalyzerConfig) -> list[dict]:
    """The answers an analyst gave verdicts on (``sleuth verdicts override``), rescored with them."""
    verdicts = standing(store.read(OVERRIDES_TABLE))
    rows = apply_to_rows(rows, verdicts, config)
    n = sum(ANALYST_FLAG in (r["flags"] or []) for r in rows)
    if n:
        get_run_logger().info("%d answers rescored with an analyst's verdicts", n)
    return rows


def _analyze_and_store(
    records,
    errors: list[RecordError],
    coerced: set[int],
    *,
    store: ParquetStore,
    config: AnalyzerConfig,
    run_id: str,
    flow_name: RunKind,
    **step,
) -> AnalysisRun:
    tables = analyze_step(
        records, errors, coerced, store=store, config=config, run_id=run_id, flow_name=flow_name, **step
    )
    paths = commit_run(
        flow_name,
        store,
        run_id,
        {
            "analyses": tables.analyses,
            "summaries": tables.summaries,
            "competitor_summaries": tables.competitor_summaries,
            "citation_domains": tables.citation_domains,
            "runs": tables.runs,
        },
        **_task_options(config),
    )
    return AnalysisRun(
        run_id=run_id,
        data_dir=store.root,
        paths=paths,
        **tables.totals,
        summaries=tables.summaries.to_dicts(),
    )


@flow(name="analyze-responses", timeout_seconds=FLOW_TIMEOUT_S[RunKind.ANALYZE])
def analyze_responses(
    input_path: str,
    ground_truth: str,
    run_id: str | None = None,
    data_dir: str | None = None,
    config: AnalyzerConfig | None = None,
    judge: JudgeOptions | None = None,
) -> AnalysisRun:
    """Analyse a file of AI responses against ground-truth pages; write analyses, summaries, runs.

    ``judge``: the LM judge of claim verdicts and wrong facts (none: the offline judge only)."""
    started_at = datetime.now(UTC)
    config = config or AnalyzerConfig()
    store = ParquetStore(data_dir)
    run_id = begin_run(run_id, store)
    records, errors, coerced = load_records_task.with_options(**_task_options(config))(input_path)
    return _analyze_and_store(
        records,
        errors,
        coerced,
        ground_truth=ground_truth,
        input_label=input_path,
        run_id=run_id,
        store=store,
        config=config,
        started_at=started_at,
        flow_name=RunKind.ANALYZE,
        judge=judge,
    )


@flow(name="reanalyze-run", timeout_seconds=FLOW_TIMEOUT_S[RunKind.REANALYZE])
def reanalyze_run(
    previous_run_id: str,
    ground_truth: str,
    run_id: str | None = None,
    data_dir: str | None = None,
    config: AnalyzerConfig | None = None,
    judge: JudgeOptions | None = None,
) -> AnalysisRun:
    """Re-score a stored run's responses against new ground truth, as a new run (``judge`` as for
    ``analyze-responses``)."""
    started_at = datetime.now(UTC)
    config = config or AnalyzerConfig()
    store = ParquetStore(data_dir)
    run_id = begin_run(run_id, store)
    previous = store.read("analyses", previous_run_id)
    if previous.is_empty():
        raise ValueError(f"run {previous_run_id!r} has no analyses under {store.root}")
    stored = previous.filter(previous["result_json"].is_not_null())["result_json"].to_list()
    records = [record_from_result(AnalysisResult.model_validate_json(j)) for j in stored]
    return _analyze_and_store(
        records,
        [],
        set(),
        ground_truth=ground_truth,
        input_label=f"run_id={previous_run_id}",
        run_id=run_id,
        store=store,
        config=config,
        started_at=started_at,
        flow_name=RunKind.REANALYZE,
        judge=judge,
    )
