"""Whether a process still runs: what a lock, a staging folder or a background server records
is its owner's pid, and a leftover is told from a live one by asking about that pid."""

from __future__ import annotations

import os
from pathlib import Path


def process_alive(pid: int) -> bool:
    """Running: not exited, nor a zombie that no one has reaped yet (a child that died while its
    parent still holds it reads as running to ``kill(pid, 0)``)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


__all__ = ["process_alive"]
