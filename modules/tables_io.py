"""Reading user-supplied tables (Parquet or JSONL) as rows, with line-numbered errors.

Text hygiene happens here, at the boundary: a line that is not UTF-8, or whose JSON decodes to
a lone surrogate (``"\\ud800"``, which no file or table can store), is a bad line named by
its number, never a crash later in the run.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def _invalid_text(value: Any) -> str | None:
    """Why ``value`` (decoded JSON) holds text no file can store, or None."""
    if isinstance(value, str):
        m = _SURROGATE.search(value)
        return (
            f"invalid Unicode (lone surrogate \\u{ord(m.group()):04x} at character {m.start()})"
            if m
            else None
        )
    if isinstance(value, dict):
        return next((w for w in map(_invalid_text, [*value.keys(), *value.values()]) if w), None)
    if isinstance(value, list):
        return next((w for w in map(_invalid_text, value) if w), None)
    return None


def json_lines(path: str | os.PathLike) -> Iterator[tuple[int, Any, str | None]]:
    """``(line number, value, None)`` for each non-blank JSONL line, or ``(n, None, why)`` for one
    that is not UTF-8, not JSON, or holds invalid Unicode."""
    with open(path, "rb") as f:
        for n, raw in enumerate(f, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield n, None, f"not UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})"
                continue
            if n == 1:
                line = line.removeprefix("\ufeff")
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                yield n, None, f"not valid JSON: {exc.msg}"
                continue
            why = _invalid_text(value)
            yield (n, None, why) if why else (n, value, None)


def read_parquet(path: str | os.PathLike):
    """A Parquet file as a polars DataFrame; one that is not Parquet is a ValueError naming it."""
    import polars as pl

    try:
        return pl.read_parquet(path)
    except (pl.exceptions.PolarsError, OSError) as exc:
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ValueError(f"{path}: not a readable Parquet file ({reason[:200]})") from None


def read_rows(path: str | os.PathLike, what: str = "file") -> list[dict[str, Any]]:
    """Rows of a Parquet or JSONL file; ``what`` names it in errors ("corpus", "ground truth")."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{what} not found: {path}")
    if path.suffix == ".parquet":
        return read_parquet(path).to_dicts()
    rows = []
    for n, value, why in json_lines(path):
        if why:
            raise ValueError(f"{path}:{n}: {why}")
        rows.append(value)
    return rows


def numbered_lines(path: str | os.PathLike) -> tuple[list[tuple[int, Any]], list[tuple[int, str]]]:
    """A JSONL file's parsed lines as (line number, value), and the lines that are not JSON as
    (line number, why); blank lines are skipped. For inputs that report every bad line at once."""
    rows, bad = [], []
    for n, value, why in json_lines(path):
        if why:
            bad.append((n, why))
        else:
            rows.append((n, value))
    return rows, bad
