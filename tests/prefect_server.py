"""A real ``prefect server start`` on 127.0.0.1 for tests that need what the test harness's
temporary server does not run: the UI, the scheduler, workers and the ``prefect`` CLI."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx


def api_call(method: str, url: str, **kwargs) -> httpx.Response:
    """One request to the server's API, retried while it answers 503 (SQLite busy on a loaded
    machine), as Prefect's own client does."""
    for _ in range(15):
        response = httpx.request(method, url, timeout=30, **kwargs)
        if response.status_code != 503:
            break
        time.sleep(1)
    return response


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(proc: subprocess.Popen, timeout: float = 30) -> None:
    """SIGTERM, then SIGKILL if it does not exit in time."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@contextmanager
def prefect_server(folder: Path, **settings: str) -> Iterator[tuple[str, dict[str, str]]]:
    """Start a server with its own PREFECT_HOME under ``folder``; yields its API URL and the
    environment a client (CLI, worker) needs. ``settings`` are extra PREFECT_* variables."""
    port = free_port()
    api = f"http://127.0.0.1:{port}/api"
    home = folder / "prefect-home"
    home.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "PREFECT_HOME": str(home),
        "PREFECT_UI_API_URL": api,
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        **settings,
    }
    env.pop("PREFECT_API_URL", None)
    log_path = folder / "server.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(
                    f"the Prefect server exited ({proc.returncode}): {log_path.read_text()[-3000:]}"
                )
            try:
                if httpx.get(f"{api}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        else:
            raise RuntimeError("the Prefect server did not start in 120 s")
        yield api, {**env, "PREFECT_API_URL": api}
    finally:
        stop(proc)
