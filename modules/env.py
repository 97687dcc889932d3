"""Numbers read from environment variables, refused with one clear line when they are not."""

from __future__ import annotations

import os


def positive_number(name: str, default: float, unit: str = "") -> float:
    """``$name`` as a positive number, else ``default``; ``ValueError`` names the variable."""
    raw = os.environ.get(name)
    try:
        value = float(raw) if raw else default
    except ValueError:
        raise ValueError(f"{name} must be a number{' of ' + unit if unit else ''}, got {raw!r}") from None
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {raw!r}")
    return value
