"""The ``runs`` table: one row per run, written last by every flow, so that its partition marks a
committed run (see :class:`~modules.store.RunWriter`); and :class:`RunKind`, what a row's
``flow`` column names, shared by the flows that write runs and the reports that read them.

Schema documented in datasets/README.md; ``run_id`` is the hive partition.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum

import polars as pl

from .parquet import RUNS_TABLE, ParquetStore, frame


class RunKind(StrEnum):
    """The kind of a run, as its ``runs.flow`` says (``sleuth runs`` lists it; reports pick their
    sections by it). The values are the stored ones; they are not the Prefect flow names."""

    ANALYZE = "analyze"
    REANALYZE = "reanalyze"
    COLLECT = "collect"
    MONITOR = "monitor"
    RESEARCH = "research"
    RESEARCH_BATCH = "research-batch"
    FEEDBACK = "feedback"
    RERANK_BATCH = "rerank-batch"
    OPTIMIZE = "optimize"
    EVALUATE = "evaluate"
    VERDICTS = "verdicts"  # an analyst's verdicts on a response run's answers

    @classmethod
    def of(cls, flow: str | None) -> RunKind | None:
        """The kind a stored ``flow`` value names; None for one this version does not know."""
        try:
            return cls(flow)
        except ValueError:
            return None


RUNS_SCHEMA = {
    "flow": pl.String,
    "started_at": pl.Datetime("us", "UTC"),
    "completed_at": pl.Datetime("us", "UTC"),
    "duration_s": pl.Float64,
    "input_path": pl.String,
    "ground_truth_path": pl.String,
    "total": pl.Int64,
    "succeeded": pl.Int64,
    "failed": pl.Int64,
    "flagged": pl.Int64,
    "fallback": pl.Int64,
    "config_hash": pl.String,
    "config_json": pl.String,
    "analyzer_version": pl.String,
    "embedding_model": pl.String,
    "ground_truth_versions": pl.String,
    "query_set_id": pl.String,
    "query_set_version": pl.String,
    "providers": pl.String,
    "flow_run_id": pl.String,
    "deployment": pl.String,
    "resumed_from": pl.String,
    "stopped": pl.String,
    # appended: collections, the asks of each query per provider (``--samples``)
    "samples": pl.Int64,
}


def runs_frame(kind: RunKind, started_at: datetime, **fields) -> pl.DataFrame:
    """The one ``runs`` row of a run of ``kind`` that started at ``started_at`` and completes now."""
    now = datetime.now(UTC)
    return frame(
        [
            {
                "flow": str(kind),
                "started_at": started_at,
                "completed_at": now,
                "duration_s": round((now - started_at).total_seconds(), 3),
                **fields,
            }
        ],
        RUNS_SCHEMA,
    )


def is_committed(store: ParquetStore, run_id: str) -> bool:
    """Whether the run was written: its ``runs`` partition exists."""
    return store.run_exists(run_id, (RUNS_TABLE,))


def parent_run(kind: RunKind | str | None, input_path: str | None, resumed_from: str | None) -> str | None:
    """The run a run builds on: the one it resumed, re-scores (``reanalyze``) or judges
    (``verdicts``): their ``runs.input_path`` is ``run_id=<id>``."""
    if resumed_from:
        return resumed_from
    if kind == RunKind.VERDICTS and input_path and input_path.startswith("run_id="):
        return input_path.removeprefix("run_id=")
    return rescored_run(kind, input_path)


def rescored_run(kind: RunKind | str | None, input_path: str | None) -> str | None:
    """The run a ``reanalyze`` re-scores: its ``runs.input_path`` is ``run_id=<id>``."""
    if kind == RunKind.REANALYZE and input_path and input_path.startswith("run_id="):
        return input_path.removeprefix("run_id=")
    return None
