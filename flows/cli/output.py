"""How the CLI prints: numbers, tables, JSON and the paths of written tables."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: C0 and C1 control characters but newline and tab, and DEL: an answer, a page or a query id
#: carrying them could clear the screen, retitle the terminal, hide text or print a hyperlink
#: whose visible text lies about its target (OSC 8).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` with every control character but newline and tab shown as its escape (``\\x1b``)."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


class EscapedStream(io.TextIOBase):
    """A text stream that writes :func:`printable` text to ``raw``: what the CLI prints on
    stdout and stderr carries data (answers, titles, ids), to a terminal or to a file. Progress
    bars, the only output that needs control sequences, write to ``raw``."""

    def __init__(self, raw):
        self.raw = raw

    def write(self, text: str) -> int:
        self.raw.write(printable(text))
        return len(text)

    def flush(self) -> None:
        self.raw.flush()

    def isatty(self) -> bool:
        return self.raw.isatty()

    def fileno(self) -> int:
        return self.raw.fileno()

    @property
    def encoding(self):
        return getattr(self.raw, "encoding", "utf-8")

    def writable(self) -> bool:
        return True


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
    """A flow's result (its ``as_dict``) or plain data, as indented JSON."""
    data = result.as_dict() if hasattr(result, "as_dict") else result
    print(json.dumps(data, default=str, indent=2))


def print_result(result, as_json: bool, text: Callable[[Any], None]) -> None:
    """A command's result: as JSON under ``--json``, else as ``text`` prints it for a person."""
    if as_json:
        print_json(result)
    else:
        text(result)


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
    width = max(width, *map(len, paths)) if paths else width
    for table, path in paths.items():
        print(f"  {table:{width}s} {path}")


#: Loggers whose warnings a user must see (fallbacks, skipped providers, truncated responses):
#: sleuth's own and its flow and task runs'. Libraries' warnings go to the log file only.
_TALLIED = ("prefect.flow_runs", "prefect.task_runs", "flows", "modules", "sleuth")


class LogFile(logging.FileHandler):
    """Appends to ``path``, created (with its folder) at the first record: a command that logs
    nothing leaves no file. A path that cannot be written (a data dir that is a file, read-only)
    drops the records: the command's own error says what is wrong, the Prefect run keeps the logs."""

    unusable = False

    def emit(self, record: logging.LogRecord) -> None:
        if self.unusable:
            return
        if self.stream is None:
            try:
                Path(self.baseFilename).parent.mkdir(parents=True, exist_ok=True)
                self.stream = self._open()
            except OSError:
                self.unusable = True
                return
        super().emit(record)


class WarningTally(logging.Handler):
    """Counts sleuth's warnings and errors by message, for :func:`print_warning_summary`."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.setFormatter(logging.Formatter())  # a user handler to Prefect: it leaves the root logger alone
        self.counts: Counter[tuple[str, str]] = Counter()
        self.messages: dict[tuple[str, str], Counter[str]] = {}  # per template: each message as said

    def emit(self, record: logging.LogRecord) -> None:
        if not record.name.startswith(_TALLIED):
            return
        key = (record.levelname.lower(), str(record.msg))
        self.counts[key] += 1
        said = record.getMessage().splitlines()[0] if record.getMessage() else ""
        self.messages.setdefault(key, Counter())[said] += 1


_tally: WarningTally | None = None
_log_path: Path | None = None
_console: list[tuple[logging.Logger, logging.Handler]] = []  # Prefect's console handlers, taken off
_env_set: list[str] = []

#: Set in a quiet command before Prefect, transformers, huggingface_hub or tqdm are imported.
_QUIET_ENV = {
    "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL": "CRITICAL",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TQDM_DISABLE": "1",
    "TRANSFORMERS_VERBOSITY": "error",
    "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1",
}


def set_terminal(verbose: bool, log_path: Path | None) -> None:
    """Quiet (the default): the terminal shows sleuth's own lines only; Prefect's and the
    libraries' logs go to ``log_path`` (and, for flow and task runs, to the Prefect run as
    always), download and "Loading weights" bars are off, and sleuth's warnings are counted for
    :func:`print_warning_summary`. Verbose: Prefect's console logging and the bars, as Prefect
    and the libraries set them.

    Runs before the command imports Prefect, transformers or tqdm, and imports none of them (a
    command that needs no flow starts fast). Prefect leaves the root logger alone when it already
    has handlers of the user's (ours); ``PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL`` quiets its
    console handler wherever else it is attached. Calling it again (tests run many commands in one
    process, Prefect already set up) undoes the previous call first."""
    global _tally, _log_path
    root = logging.getLogger()
    for h in [h for h in root.handlers if isinstance(h, (WarningTally, LogFile))]:
        root.removeHandler(h)
        h.close()
    _tally, _log_path = None, None
    if verbose:
        for logger, h in _console:
            h.setLevel(logging.NOTSET)
            logger.addHandler(h)
        _console.clear()
        for var in _env_set:
            os.environ.pop(var, None)
        _env_set.clear()
        logging.captureWarnings(False)
        return
    for var, value in _QUIET_ENV.items():
        if var not in os.environ:
            os.environ[var] = value
            _env_set.append(var)
    handlers = sys.modules.get("prefect.logging.handlers")  # Prefect already set up in this process
    if handlers is not None:
        for h in [h for h in root.handlers if isinstance(h, handlers.PrefectConsoleHandler)]:
            root.removeHandler(h)
            _console.append((root, h))
    _tally = WarningTally()
    root.addHandler(_tally)
    _log_path = log_path
    if _log_path is not None:
        file = LogFile(_log_path, delay=True, encoding="utf-8")
        file.setFormatter(logging.Formatter("%(asctime)s | %(levelname)-7s | %(name)s - %(message)s"))
        root.addHandler(file)
    logging.captureWarnings(True)  # libraries' warnings.warn(): to the log file


def print_warning_summary() -> None:
    """After a quiet command: sleuth's warnings and errors, counted by message, on stderr."""
    if _tally is None or not _tally.counts:
        return
    where = f" (details in {_log_path})" if _log_path is not None else " (details in the Prefect run)"
    n = sum(_tally.counts.values())
    print(f"\n{n} warning{'s' * (n != 1)}{where}:", file=sys.stderr)
    for key, count in _tally.counts.most_common(8):
        level, said = key[0], _tally.messages[key]
        prefix = "" if level == "warning" else level + ": "
        # one template said of several things (providers, domains): each, up to three, by name
        shown = said.most_common(3) if len(said) <= 3 else [(said.most_common(1)[0][0], count)]
        for text, n in shown:
            print(f"  {f'{n}x ' if n > 1 else ''}{prefix}{text[:160]}", file=sys.stderr)
        if len(said) > 3:
            print(f"    ({len(said)} different ones like it)", file=sys.stderr)
    if len(_tally.counts) > 8:
        print(f"  ... and {len(_tally.counts) - 8} more kinds", file=sys.stderr)
