"""Run-versioned Parquet: every run's tables under ``<table>/run_id=<id>/``, committed atomically,
and the ``runs`` table that lists them (:mod:`.parquet` for the store, :mod:`.runs` for the runs
table and run kinds)."""

from .parquet import (
    DEFAULT_DATA_DIR,
    RUNS_TABLE,
    Checkpoint,
    ParquetStore,
    RunExistsError,
    RunWriter,
    frame,
    new_run_id,
    resolve_data_dir,
    validate_run_id,
)
from .runs import RUNS_SCHEMA, RunKind, is_committed, parent_run, rescored_run, runs_frame

__all__ = [
    "DEFAULT_DATA_DIR",
    "RUNS_SCHEMA",
    "RUNS_TABLE",
    "Checkpoint",
    "ParquetStore",
    "RunExistsError",
    "RunKind",
    "RunWriter",
    "frame",
    "is_committed",
    "new_run_id",
    "parent_run",
    "rescored_run",
    "resolve_data_dir",
    "runs_frame",
    "validate_run_id",
]
