"""Progress of a run's long loops, reported from one place: the Prefect progress artifact (for
the UI, as always) and, when the CLI asked for it, the terminal.

A flow opens ``with progress("analyze", {"": total}, unit="responses", key=...) as p`` and calls
``p.advance(n, group)`` as items finish (a group per provider, per question...). The CLI sets how
the terminal shows it with :func:`show_in_terminal`: ``rich`` bars on a terminal (items done /
total, rate, time left; the final state stays on screen), ``plain`` lines otherwise (no control
characters: ``analyze: 120/3000 responses (4.0/s, 11m58s left)``, at most every
``SLEUTH_PROGRESS_SECONDS``, default 5, and a last line only for a loop that printed one: a short
run prints none), or ``off`` (deployments and workers: the artifact only).
"""

from __future__ import annotations

import contextvars
import os
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

_mode = "off"


def show_in_terminal(mode: str) -> None:
    """``rich`` | ``plain`` | ``off``: how later loops of this process show in the terminal."""
    global _mode
    if mode not in ("rich", "plain", "off"):
        raise ValueError(f"unknown progress mode {mode!r}")
    _mode = mode


def plain_every_s() -> float:
    raw = os.environ.get("SLEUTH_PROGRESS_SECONDS", "5")
    try:
        seconds = float(raw)
    except ValueError:
        raise ValueError(f"SLEUTH_PROGRESS_SECONDS must be a number of seconds, got {raw!r}") from None
    return max(seconds, 0.0)


def duration(seconds: float) -> str:
    """``45s``, ``11m58s``, ``2h05m``."""
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def spoken_duration(seconds: float) -> str:
    """A time in a sentence, as a person says it: ``45 s`` up to 90 s, ``12 min`` up to 90
    minutes, then ``2.5 h``. :func:`duration` is the compact form for progress lines and tables."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class Progress:
    """Counts per group (``""``: the one group of a loop without groups); thread-safe."""

    def __init__(self, label: str, totals: Mapping[str, int], unit: str, key: str | None, description: str):
        self.label, self.unit = label, unit
        self.totals = {g: max(int(n), 0) for g, n in totals.items()}
        self.done = dict.fromkeys(self.totals, 0)
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self._artifact, self._artifact_at = None, 0.0
        self._printed, self._plain_at = False, self.started
        self._every = plain_every_s() if _mode == "plain" else 0.0
        self._bars = None
        if key:
            from prefect.artifacts import create_progress_artifact

            self._artifact = create_progress_artifact(progress=0.0, key=key, description=description)
            # the run's settings and context for updates from other threads: a provider client's
            # pool thread has none of its own, and there Prefect would start a temporary server
            # for the update's events (measured: 8 s of a 5-query collect)
            self._context = contextvars.copy_context()
        if _mode == "rich":
            self._start_rich()

    def _name(self, group: str) -> str:
        return f"{self.label} {group}" if group else self.label

    def _start_rich(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TaskProgressColumn,
            TextColumn,
            TimeRemainingColumn,
        )
        from rich.progress import (
            Progress as RichProgress,
        )

        self._bars = RichProgress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(self.unit),
            TaskProgressColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeRemainingColumn(),
            TextColumn("left"),
            console=Console(file=getattr(sys.stderr, "raw", sys.stderr)),  # (the CLI escapes stderr)
            transient=False,
        )
        self._tasks = {
            g: self._bars.add_task(self._name(g), total=n or None, completed=0, rate="")
            for g, n in self.totals.items()
        }
        self._bars.start()

    def advance(self, n: int = 1, group: str = "") -> None:
        with self._lock:
            if group not in self.done:  # a group found on the way (totals unknown at the start)
                self.totals[group] = 0
                self.done[group] = 0
                if self._bars is not None:
                    self._tasks[group] = self._bars.add_task(self._name(group), total=None, rate="")
            self.done[group] += n
            now = time.monotonic()
            if self._bars is not None:
                self._bars.update(self._tasks[group], completed=self.done[group], rate=self._rate(group, now))
            elif _mode == "plain" and now - self._plain_at >= self._every:
                self._plain_at, self._printed = now, True
                self._print_lines(now, final=False)
            if self._artifact is not None and (now - self._artifact_at >= 2.0 or self._all_done()):
                self._artifact_at = now
                self._update_artifact()

    def _all_done(self) -> bool:
        return all(self.done[g] >= self.totals[g] for g in self.totals)

    def _update_artifact(self) -> None:
        from prefect.artifacts import update_progress_artifact

        total = sum(self.totals.values())
        self._context.run(
            update_progress_artifact,
            self._artifact,
            100.0 * min(sum(self.done.values()), total) / max(total, 1),
        )

    def _rate(self, group: str, now: float) -> str:
        elapsed = max(now - self.started, 1e-9)
        return f"{self.done[group] / elapsed:.1f}/s"

    def line(self, group: str, now: float | None = None, final: bool = False) -> str:
        """``analyze: 120/3000 responses (4.0/s, 11m58s left)``; final: ``... in 12m30s (4.0/s)``."""
        now = time.monotonic() if now is None else now
        done, total = self.done[group], self.totals[group]
        elapsed = max(now - self.started, 1e-9)
        rate = done / elapsed
        counted = f"{done}/{total}" if total else str(done)
        if final:
            return f"{self._name(group)}: {counted} {self.unit} in {duration(elapsed)} ({rate:.1f}/s)"
        left = f", {duration((total - done) / rate)} left" if total and rate > 0 else ""
        return f"{self._name(group)}: {counted} {self.unit} ({rate:.1f}/s{left})"

    def _print_lines(self, now: float, final: bool) -> None:
        text = "\n".join(self.line(g, now, final) for g in self.totals)
        print(text, file=sys.stderr, flush=True)

    def close(self) -> None:
        with self._lock:
            now = time.monotonic()
            if self._bars is not None:
                for g, task in self._tasks.items():
                    self._bars.update(task, completed=self.done[g], rate=self._rate(g, now))
                self._bars.stop()
                self._bars = None
            elif _mode == "plain" and self._printed:
                self._print_lines(now, final=True)
            if self._artifact is not None:
                self._update_artifact()


@contextmanager
def progress(
    label: str,
    totals: Mapping[str, int] | int,
    *,
    unit: str,
    key: str | None = None,
    description: str = "",
) -> Iterator[Progress]:
    """A :class:`Progress` for one loop, closed (bars stopped, last line printed) at its end.
    ``key``: the Prefect progress artifact's (None: no artifact)."""
    p = Progress(label, {"": totals} if isinstance(totals, int) else totals, unit, key, description)
    try:
        yield p
    finally:
        p.close()
