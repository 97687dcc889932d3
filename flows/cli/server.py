"""server: the local Prefect server that commands share (see flows/local_server.py)."""

from __future__ import annotations

import argparse
import os
import time

from ..progress import spoken_duration
from .options import add_service_action, command


def cmd_server(args: argparse.Namespace) -> int:
    """the local Prefect server that commands share: status, start, stop

    Without PREFECT_API_URL, the first flow command starts a local Prefect server in the background
    and later commands reuse it; it stops after $SLEUTH_SERVER_IDLE_MINUTES (default 15) unused.
    SLEUTH_LOCAL_SERVER=0: a temporary server per command instead.
    """
    from flows import local_server

    if os.environ.get("PREFECT_API_URL"):
        print(
            f"PREFECT_API_URL is set ({os.environ['PREFECT_API_URL']}): commands use that server, not a local one"
        )
        return 0
    if args.action == "start":
        if not local_server.enabled():
            raise ValueError(
                f"{local_server.ENABLED_ENV}=0: commands use a temporary server each; unset it first"
            )
        info = local_server.acquire()
        print(
            f"local Prefect server {info.api_url} (pid {info.pid}), stops after {spoken_duration(info.idle_s)} idle"
        )
        return 0
    if args.action == "stop":
        info = local_server.stop()
        print(
            f"stopped the local Prefect server {info.api_url} (pid {info.pid})"
            if info
            else "no local Prefect server running"
        )
        return 0
    info = local_server.status()
    if info is None:
        print(
            "no local Prefect server running"
            + ("" if local_server.enabled() else f" ({local_server.ENABLED_ENV}=0)")
        )
        return 0
    idle = time.time() - (local_server.last_used() or info.started)
    print(
        f"local Prefect server {info.api_url} (pid {info.pid}), up {spoken_duration(time.time() - info.started)}, "
        f"last used {spoken_duration(idle)} ago, stops after {spoken_duration(info.idle_s)} idle\n"
        f"state, lock and log: {local_server.state_dir()}"
    )
    return 0


def register(sub) -> None:
    add_service_action(command(sub, "server", cmd_server))
