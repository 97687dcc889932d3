"""Reading a JSONL input where every line must be valid: all problems reported at once, by line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .tables_io import json_lines


def read_validated(path: str | Path, validate: Callable[[object, int], dict], what: str) -> list[dict]:
    """``validate(item, line_number)`` returns the clean item (with an ``id``) or raises ValueError.

    Blank lines are skipped; a malformed line, an invalid item or a repeated id is an error that
    names its line, and nothing is returned unless every line is good (no input is lost silently).
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such {what} file: {path}")
    items, problems, seen = [], [], set()
    for n, value, why in json_lines(path):
        if why:
            problems.append(f"line {n}: {why}")
            continue
        try:
            item = validate(value, n)
        except ValueError as exc:
            problems.append(f"line {n}: {exc}")
            continue
        if item["id"] in seen:
            problems.append(f"line {n}: duplicate id {item['id']!r}")
            continue
        seen.add(item["id"])
        items.append(item)
    if problems:
        raise ValueError(
            f"{path}: "
            + "; ".join(problems[:10])
            + (f" (and {len(problems) - 10} more)" if len(problems) > 10 else "")
        )
    if not items:
        raise ValueError(f"{path}: no {what}s")
    return items
