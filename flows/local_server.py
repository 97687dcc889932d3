"""The local Prefect server that CLI commands share, instead of a temporary one each.

Without ``PREFECT_API_URL``, Prefect starts a temporary server per process (6-12 s of every
``sleuth`` command). Here the first command starts one detached in the background (its own
session: Ctrl-C does not reach it), with the database (``$PREFECT_HOME``) and app of Prefect's
temporary server (no UI, no background services). Later commands find it through
``$PREFECT_HOME/sleuth-server/server.json`` (URL, pid, start time, nonce) and use it only while
that pid is still the process started (:func:`flows._process.is_ours`) and the URL serves the
same nonce, so a reused pid is never signalled and a server squatting on the port never trusted.
Every command touches ``last-used`` while it runs, and the server stops itself after
``SLEUTH_SERVER_IDLE_MINUTES`` (default 15) without one; ``server.lock`` orders commands starting
at once and the server's own stop, so no command gets a stopping server. ``SLEUTH_LOCAL_SERVER=0``
turns this off (Prefect's temporary server per command); a configured ``PREFECT_API_URL`` wins.

``python -m flows.local_server STATE_DIR PORT IDLE_SECONDS`` is the server process itself.
"""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from modules.env import positive_number

from ._process import await_start
from ._process import free_port as _free_port
from ._process import is_ours as _is_ours
from ._process import locked as _locked
from ._process import start_ticks as _start_ticks
from ._process import terminate as _terminate

#: ``SLEUTH_LOCAL_SERVER=0``: no shared server, a temporary one per command.
ENABLED_ENV = "SLEUTH_LOCAL_SERVER"
IDLE_ENV = "SLEUTH_SERVER_IDLE_MINUTES"
DEFAULT_IDLE_MINUTES = 15.0
#: The least a start may take before it counts as failed: the first start in a new
#: ``$PREFECT_HOME`` creates and migrates Prefect's database (~20 s on 2 busy cores), more than
#: Prefect's own 20 s default for its temporary server.
MIN_STARTUP_TIMEOUT_S = 120.0
#: After this long without an answer, the command says on stderr what it is waiting for.
SLOW_START_NOTICE_S = 3.0
#: Where the server answers with its nonce (outside Prefect's ``/api``), and how the nonce
#: reaches the server process (not its command line, which any user can read).
IDENTITY_PATH = "/sleuth-identity"
NONCE_ENV = "SLEUTH_SERVER_NONCE"


class LocalServerError(RuntimeError):
    """The shared server could not be started; the message says where its log is."""


@dataclasses.dataclass(frozen=True)
class ServerInfo:
    """What ``server.json`` records of a running shared server."""

    url: str
    pid: int
    started: float
    idle_s: float
    start_ticks: int | None = None  # the pid's start time (None in an older version's record)
    nonce: str = ""

    @property
    def api_url(self) -> str:
        return self.url + "/api"


def enabled() -> bool:
    return os.environ.get(ENABLED_ENV, "1").strip().lower() not in ("0", "false", "no", "off")


def idle_seconds() -> float:
    return 60 * positive_number(IDLE_ENV, DEFAULT_IDLE_MINUTES, "minutes")


def state_dir() -> Path:
    """``$PREFECT_HOME/sleuth-server``: one shared server per Prefect home (and database)."""
    from prefect.settings import PREFECT_HOME

    return Path(PREFECT_HOME.value()) / "sleuth-server"


def _read(folder: Path) -> ServerInfo | None:
    try:
        return ServerInfo(**json.loads((folder / "server.json").read_text()))
    except (OSError, ValueError, TypeError):
        return None


def _ours(info: ServerInfo, folder: Path) -> bool:
    """The recorded pid is still the server process this folder started."""
    return _is_ours(
        info.pid, info.start_ticks, "flows.local_server", str(folder), answers=lambda: _healthy(info)
    )


def _healthy(info: ServerInfo, timeout: float = 2.0) -> bool:
    """Its URL is this server (it serves the recorded nonce) and Prefect's API answers."""
    try:
        identity = httpx.get(info.url + IDENTITY_PATH, timeout=timeout)
        if not info.nonce or identity.status_code != 200 or identity.text != info.nonce:
            return False
        return httpx.get(info.api_url + "/health", timeout=timeout).status_code == 200
    except httpx.HTTPError:
        return False


def _touch(folder: Path) -> None:
    (folder / "last-used").touch()


def status(folder: Path | None = None) -> ServerInfo | None:
    """The running shared server, or None (none started, stopped, or not answering)."""
    folder = folder or state_dir()
    info = _read(folder)
    return info if info is not None and _ours(info, folder) and _healthy(info) else None


def last_used(folder: Path | None = None) -> float | None:
    try:
        return ((folder or state_dir()) / "last-used").stat().st_mtime
    except OSError:
        return None


def stop(folder: Path | None = None, timeout: float = 20.0) -> ServerInfo | None:
    """Stop the shared server (SIGTERM, then SIGKILL after ``timeout``); the one stopped, or None
    (none recorded, or a stale record: its pid gone or now another process, left alone)."""
    folder = folder or state_dir()
    with _locked(folder):
        info = _read(folder)
        if info is None or not _ours(info, folder):
            (folder / "server.json").unlink(missing_ok=True)
            return None
        _terminate(info.pid, timeout)
        (folder / "server.json").unlink(missing_ok=True)
        return info


def _start(folder: Path, startup_timeout: float, attempts: int = 3) -> ServerInfo:
    """Start the server on a free port; again on another one when it exits at once (the port
    was taken between the check and its bind), up to ``attempts`` times."""
    for attempt in range(1, attempts + 1):
        try:
            return _start_once(folder, startup_timeout)
        except _ExitedAtStart:
            if attempt == attempts:
                raise
    raise AssertionError("unreachable")


class _ExitedAtStart(LocalServerError):
    pass


def _start_once(folder: Path, startup_timeout: float) -> ServerInfo:
    port = _free_port()
    log = open(folder / "server.log", "ab")  # noqa: SIM115 (the child keeps it)
    nonce = secrets.token_hex(16)
    env = {**os.environ, "PREFECT_UI_ENABLED": "0", "PREFECT__SERVER_EPHEMERAL": "1", NONCE_ENV: nonce}
    env.pop("PREFECT_API_URL", None)
    idle = idle_seconds()
    process = subprocess.Popen(
        [sys.executable, "-m", "flows.local_server", str(folder), str(port), str(idle)],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
        env=env,
        cwd=str(Path(__file__).resolve().parents[1]),
        start_new_session=True,  # detached: Ctrl-C at the terminal and the command's exit leave it alone
    )
    log.close()
    info = ServerInfo(
        url=f"http://127.0.0.1:{port}",
        pid=process.pid,
        started=time.time(),
        idle_s=idle,
        start_ticks=_start_ticks(process.pid),
        nonce=nonce,
    )
    state = await_start(
        process,
        lambda: _healthy(info, timeout=1.0),
        startup_timeout,
        0.1,
        notice=lambda: print(
            "sleuth: starting the local Prefect server (a first start creates its database; later commands reuse it)",
            file=sys.stderr,
            flush=True,
        ),
        notice_after_s=SLOW_START_NOTICE_S,
    )
    if state == "exited":
        raise _ExitedAtStart(
            f"the local Prefect server exited with status {process.returncode} at start "
            f"(see {folder / 'server.log'}); set {ENABLED_ENV}=0 to use a temporary server per command"
        )
    if state == "ready":
        (folder / "server.json").write_text(json.dumps(dataclasses.asdict(info)))
        return info
    _terminate(process.pid, 5.0)
    raise LocalServerError(
        f"the local Prefect server did not answer within {startup_timeout:.0f} s (see {folder / 'server.log'}); "
        f"set {ENABLED_ENV}=0 to use a temporary server per command"
    )


def acquire(startup_timeout: float | None = None) -> ServerInfo:
    """The shared server, started when none answers; marked as used (so the server's idle
    stop sees it) before the lock is released."""
    from prefect.settings import PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS

    folder = state_dir()
    timeout = startup_timeout or max(
        PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS.value(), MIN_STARTUP_TIMEOUT_S
    )
    with _locked(folder):
        info = _read(folder)
        if info is None or not _ours(info, folder) or not _healthy(info):
            if info is not None and _ours(info, folder):
                _terminate(info.pid, 5.0)  # ours but not answering: replace it
            (folder / "server.json").unlink(missing_ok=True)  # (or a stale record: left alone)
            info = _start(folder, timeout)
        _touch(folder)
        return info


#: How often a command checks that the server it uses still runs.
WATCH_EVERY_S = 1.0
#: The exit status of a command whose server died under it (not a user error: not 2).
LOST_SERVER_STATUS = 1


@contextmanager
def in_use(info: ServerInfo) -> Iterator[None]:
    """Keep touching ``last-used`` while a command runs (a four-hour run is not idle), and watch
    the server: if its process dies (killed, out of memory, ``server stop`` from elsewhere),
    every call to it would be refused or retried forever and the command would hang. Then the
    command stops at once with one line naming the server's log; a collection's answers are in
    its checkpoint (``--resume``), and a run's staged tables are cleaned by the next run."""
    folder = state_dir()
    stop_event = threading.Event()
    every = max(0.5, min(60.0, info.idle_s / 4))

    def beat() -> None:
        last = time.monotonic()
        while not stop_event.wait(WATCH_EVERY_S):
            if not _ours(info, folder):
                _lost(info, folder)
            if time.monotonic() - last >= every:
                _touch(folder)
                last = time.monotonic()

    thread = threading.Thread(target=beat, name="sleuth-server-in-use", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop_event.set()
        thread.join()
        _touch(folder)


def _lost(info: ServerInfo, folder: Path) -> None:
    """The server died under a running command: one line, then exit (no thread of this process
    can finish its work without it, and Prefect's clients would retry for minutes)."""
    print(
        f"sleuth: error: the local Prefect server (pid {info.pid}) stopped while this command ran; "
        f"see {folder / 'server.log'}. Nothing of this run was written (a collection keeps its answers: "
        "--resume); run the command again",
        file=sys.stderr,
        flush=True,
    )
    try:
        sys.stdout.flush()
    finally:
        os._exit(LOST_SERVER_STATUS)


def _identified(app, nonce: str):
    """``app`` that also answers :data:`IDENTITY_PATH` with ``nonce`` (an ASGI wrapper: Prefect's
    routes, lifespan and mounts stay as they are)."""

    async def identified(scope, receive, send):
        if scope["type"] == "http" and scope["path"] == IDENTITY_PATH:
            headers = [(b"content-type", b"text/plain"), (b"content-length", str(len(nonce)).encode())]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": nonce.encode()})
            return
        await app(scope, receive, send)

    return identified


def _serve(folder: Path, port: int, idle_s: float) -> None:
    """The server process: Prefect's app under uvicorn, stopped after ``idle_s`` without use."""
    import uvicorn
    from prefect.server.api.server import create_app

    server = uvicorn.Server(
        uvicorn.Config(
            _identified(create_app(ephemeral=True, final=True), os.environ.get(NONCE_ENV, "")),
            host="127.0.0.1",
            port=port,
            log_level="error",
            lifespan="on",
        )
    )

    def watch() -> None:
        while not server.should_exit:
            time.sleep(min(5.0, idle_s / 4))
            used = last_used(folder) or 0.0
            if time.time() - used < idle_s:
                continue
            with _locked(folder, blocking=False) as held:
                # a command holding the lock is about to use the server; try again later
                if held and time.time() - (last_used(folder) or 0.0) >= idle_s:
                    info = _read(folder)
                    if info is not None and info.pid == os.getpid():
                        (folder / "server.json").unlink(missing_ok=True)
                    server.should_exit = True

    threading.Thread(target=watch, name="idle-stop", daemon=True).start()
    server.run()
    info = _read(folder)  # stopped by SIGTERM (``sleuth server stop`` holds the lock meanwhile)
    if info is not None and info.pid == os.getpid():
        (folder / "server.json").unlink(missing_ok=True)


if __name__ == "__main__":
    _serve(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]))
