"""An analyst's verdicts on the answers of a response run (``sleuth verdicts override``): recorded
as a run of their own, applied wherever the same answers are scored again."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from prefect import flow

from flows.runtime import FLOW_TIMEOUT_S, FlowResult, begin_run, commit_run
from modules.response import OVERRIDES_SCHEMA, OVERRIDES_TABLE, VerdictOverride, override_rows
from modules.store import ParquetStore, RunKind, frame, runs_frame


@dataclass
class VerdictsRecorded(FlowResult):
    run_id: str
    target_run_id: str
    data_dir: str
    paths: dict[str, str]
    verdicts: list[dict]
    ground_truth: str | None  # the target run's pages: what its reanalyze needs


@flow(name="record-verdicts", timeout_seconds=FLOW_TIMEOUT_S[RunKind.VERDICTS])
def record_verdicts(
    target_run_id: str,
    overrides: list[VerdictOverride],
    run_id: str | None = None,
    data_dir: str | None = None,
) -> VerdictsRecorded:
    """Check each correction against the answer it names in ``target_run_id`` and record them
    all, or none (one bad line refuses the lot)."""
    store, started_at = ParquetStore(data_dir), datetime.now(UTC)
    analyses = store.read("analyses", target_run_id)
    if analyses.is_empty():
        raise ValueError(f"run {target_run_id} has no analysed answers under {store.root}")
    rows = override_rows(overrides, analyses, target_run_id, started_at)
    run_id = begin_run(run_id, store)
    runs = runs_frame(
        RunKind.VERDICTS,
        started_at,
        input_path=f"run_id={target_run_id}",
        total=len(rows),
        succeeded=len(rows),
        failed=0,
    )
    tables = {OVERRIDES_TABLE: frame(rows, OVERRIDES_SCHEMA), "runs": runs}
    paths = commit_run(RunKind.VERDICTS, store, run_id, tables)
    target = store.read("runs", target_run_id)
    ground_truth = target["ground_truth_path"][0] if "ground_truth_path" in target.columns else None
    return VerdictsRecorded(run_id, target_run_id, store.root, paths, rows, ground_truth)
