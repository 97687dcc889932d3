"""Reading user-supplied tables (Parquet or JSONL) as rows, with line-numbered errors."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def read_rows(path: str | os.PathLike, what: str = "file") -> list[dict[str, Any]]:
    """Rows of a Parquet or JSONL file; ``what`` names it in errors ("corpus", "ground truth")."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{what} not found: {path}")
    if path.suffix == ".parquet":
        import polars as pl

        return pl.read_parquet(path).to_dicts()
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{n}: not valid JSON: {exc.msg}") from None
    return rows


def numbered_lines(path: str | os.PathLike) -> tuple[list[tuple[int, Any]], list[tuple[int, str]]]:
    """A JSONL file's parsed lines as (line number, value), and the lines that are not JSON as
    (line number, why); blank lines are skipped. For inputs that report every bad line at once."""
    rows, bad = [], []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                rows.append((n, json.loads(line)))
            except json.JSONDecodeError as exc:
                bad.append((n, exc.msg))
    return rows, bad
