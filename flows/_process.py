"""A detached background server's bookkeeping, shared by the local Prefect server and the local
model: the lock that orders its starts and stops, whether its pid still runs and is still the
process that was started, stopping it, and a free loopback port for it.

A recorded pid outlives its process: after a crash, a reboot or a container restart with the
state folder kept, the same number may belong to anything (as root, to any process). So a server
is signalled only when :func:`is_ours` proves the pid is the process that was recorded: the same
start time (``/proc/PID/stat``, in clock ticks since boot) and a command line naming the server's
module and its state folder. Anything else is a stale record, forgotten without a signal."""

from __future__ import annotations

import fcntl
import os
import signal
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from modules.process import process_alive

#: How long a command waits for another one starting or stopping the server (a first start
#: creates Prefect's database: up to 2 minutes) before it says which lock it gave up on.
LOCK_WAIT_S = 300.0
#: After this long waiting, the command says on stderr what it waits for.
LOCK_NOTICE_S = 3.0


class LockTimeout(ValueError):
    """Another process held a server's lock too long (one stopped with Ctrl-Z, say): what to do
    is the user's, so the CLI prints it as its one error line."""


@contextmanager
def locked(folder: Path, blocking: bool = True, wait_s: float | None = None) -> Iterator[bool]:
    """``folder/server.lock`` held (True), or, when not ``blocking`` and another process holds
    it, not (False). Blocking waits at most ``wait_s`` (default :data:`LOCK_WAIT_S`), saying
    so on stderr after a few seconds, then raises :class:`LockTimeout` naming the lock: a
    process stopped while holding it (Ctrl-Z) would otherwise make every command wait silently."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "server.lock", "a+") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not blocking:
                yield False
                return
            _wait_for(f, folder / "server.lock", LOCK_WAIT_S if wait_s is None else wait_s)
        try:
            yield True
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _wait_for(f, path: Path, wait_s: float) -> None:
    import sys

    begun, noticed = time.monotonic(), False
    while True:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            waited = time.monotonic() - begun
            if waited >= wait_s:
                raise LockTimeout(
                    f"another command has held {path} for {waited:.0f} s (is one stopped, e.g. with "
                    "Ctrl-Z? resume it with fg, or end it); nothing was run"
                ) from None
            if not noticed and waited >= LOCK_NOTICE_S:
                noticed = True
                print(
                    f"sleuth: waiting for another command starting or stopping a server ({path})",
                    file=sys.stderr,
                    flush=True,
                )
            time.sleep(0.2)


_HAS_PROC = Path("/proc/self/stat").exists()


def start_ticks(pid: int) -> int | None:
    """When ``pid`` started, in clock ticks since boot (None: no such process, or not Linux)."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def command_line(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def is_ours(pid: int, started_ticks: int | None, *markers: str, answers: Callable[[], bool]) -> bool:
    """``pid`` runs and is the process recorded as started at ``started_ticks`` whose command line
    holds every one of ``markers`` (its module, its state folder). A record without a start time
    (an older version's) proves nothing. Without ``/proc`` (macOS), the pid must run and the
    server must prove itself with ``answers`` (its nonce, its model)."""
    if not _HAS_PROC:
        return process_alive(pid) and answers()
    if started_ticks is None or not process_alive(pid) or start_ticks(pid) != started_ticks:
        return False
    args = command_line(pid)
    return all(marker in args for marker in markers)


def terminate(pid: int, timeout: float) -> None:
    """SIGTERM, then SIGKILL after ``timeout`` seconds."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not process_alive(pid) or _reap(pid):
            return
        time.sleep(0.1)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    _reap(pid)


def _reap(pid: int) -> bool:
    """Collect ``pid`` if it is this process's child (a test, or the command that started it)."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return False
    return done == pid


def await_start(
    process,
    answers: Callable[[], bool],
    timeout_s: float,
    poll_s: float,
    notice: Callable[[], None] | None = None,
    notice_after_s: float = 3.0,
) -> str:
    """Wait for a background server just started: ``"ready"`` once ``answers()``, ``"exited"``
    when the process ends first, ``"timeout"`` after ``timeout_s`` (the caller stops it then).
    ``notice`` runs once, when the start has taken longer than ``notice_after_s``."""
    begun = time.monotonic()
    while time.monotonic() - begun < timeout_s:
        if notice is not None and time.monotonic() - begun > notice_after_s:
            notice()
            notice = None
        if process.poll() is not None:
            return "exited"
        if answers():
            return "ready"
        time.sleep(poll_s)
    return "timeout"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
