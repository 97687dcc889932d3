"""How the CLI prints: numbers, tables, JSON and the paths of written tables."""

from __future__ import annotations

import json
import logging
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any


def fmt(v: Any) -> str:
    if isinstance(v, float):
        text = f"{v:.1f}"
        return "0.0" if text == "-0.0" else text  # a delta that rounds to zero has no sign
    return "-" if v is None else str(v)


def percent(share: float | None) -> str:
    return "-" if share is None else f"{100 * share:.0f}%"


def points(delta: float | None) -> str:
    return "-" if delta is None else fmt(100 * delta) + " pt"


def print_json(result) -> None:
    print(json.dumps(result.as_dict(), default=str, indent=2))


def print_table(header: list[str], rows: list[list[Any]], left: int | None = None) -> None:
    """Columns padded to their widest cell, a dashed rule under the header; the first ``left``
    columns (default all) aligned left, the others right."""
    left = len(header) if left is None else left
    cells = [header] + [[fmt(v) for v in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    for i, r in enumerate(cells):
        print("  ".join(c.ljust(w) if j < left else c.rjust(w) for j, (c, w) in enumerate(zip(r, widths))))
        if i == 0:
            print("  ".join("-" * w for w in widths))


def print_paths(paths: dict[str, str], width: int = 18) -> None:
    for table, path in paths.items():
        print(f"  {table:{width}s} {path}")


#: Loggers whose warnings a user must see (fallbacks, skipped providers, truncated responses):
#: sleuth's own and its flow and task runs'. Libraries' warnings go to the log file only.
_TALLIED = ("prefect.flow_runs", "prefect.task_runs", "flows", "modules", "sleuth")


class _LogFile(logging.FileHandler):
    """Appends to ``path``, created (with its folder) at the first record: a command that logs
    nothing leaves no file."""

    def _open(self):
        Path(self.baseFilename).parent.mkdir(parents=True, exist_ok=True)
        return super()._open()


class _WarningTally(logging.Handler):
    """Counts sleuth's warnings and errors by message, for :func:`print_warning_summary`."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.counts: Counter[tuple[str, str]] = Counter()
        self.first: dict[tuple[str, str], str] = {}

    def emit(self, record: logging.LogRecord) -> None:
        if not record.name.startswith(_TALLIED):
            return
        key = (record.levelname.lower(), str(record.msg))
        self.counts[key] += 1
        self.first.setdefault(key, record.getMessage().splitlines()[0] if record.getMessage() else "")


_tally: _WarningTally | None = None
_log_path: Path | None = None


def log_file_path(data_dir: str | None) -> Path | None:
    """``<data dir>/logs/sleuth.log`` for a local data dir; None for a bucket (the Prefect run
    keeps the logs)."""
    from modules.store import resolve_data_dir

    root = resolve_data_dir(data_dir)
    return None if "://" in root else Path(root) / "logs" / "sleuth.log"


def quiet_terminal(data_dir: str | None) -> None:
    """The terminal shows sleuth's own lines only: Prefect's and the libraries' logs go to the log
    file (and, for flow and task runs, to the Prefect run as always), download and "Loading
    weights" bars are off, and sleuth's warnings are counted for :func:`print_warning_summary`.
    Must run before Prefect, transformers or tqdm are imported by the command."""
    global _tally, _log_path
    for var in ("HF_HUB_DISABLE_PROGRESS_BARS", "TQDM_DISABLE"):
        os.environ.setdefault(var, "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    import prefect.main  # noqa: F401  (sets Prefect's handlers up, once a process: replace them after)
    from prefect.logging.formatters import PrefectFormatter
    from prefect.logging.handlers import PrefectConsoleHandler

    _log_path = log_file_path(data_dir)
    _tally = _WarningTally()
    handlers: list[logging.Handler] = [_tally]
    if _log_path is not None:
        file = _LogFile(_log_path, delay=True, encoding="utf-8")
        head = "%(asctime)s | %(levelname)-7s | "
        file.setFormatter(
            PrefectFormatter(
                head + "%(name)s - %(message)s",
                flow_run_fmt=head + "Flow run %(flow_run_name)r - %(message)s",
                task_run_fmt=head + "Task run %(task_run_name)r - %(message)s",
            )
        )
        handlers.append(file)
    for name in (None, "uvicorn", "fastapi"):
        logger = logging.getLogger(name)
        console = [h for h in logger.handlers if isinstance(h, PrefectConsoleHandler)]
        for h in console:
            logger.removeHandler(h)
        if console:
            for h in handlers:
                logger.addHandler(h)
    logging.captureWarnings(True)  # libraries' warnings.warn(): to the log file


def print_warning_summary() -> None:
    """After a quiet command: sleuth's warnings and errors, counted by message, on stderr."""
    if _tally is None or not _tally.counts:
        return
    where = f" (details in {_log_path})" if _log_path is not None else " (details in the Prefect run)"
    n = sum(_tally.counts.values())
    print(f"\n{n} warning{'s' * (n != 1)}{where}:", file=sys.stderr)
    for key, count in _tally.counts.most_common(8):
        print(f"  {count:>4}x {key[0]}: {_tally.first[key][:160]}", file=sys.stderr)
    if len(_tally.counts) > 8:
        print(f"  ... and {len(_tally.counts) - 8} more kinds", file=sys.stderr)
