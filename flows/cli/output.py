"""How the CLI prints: numbers, tables, JSON and the paths of written tables."""

from __future__ import annotations

import json
from typing import Any


def fmt(v: Any) -> str:
    if isinstance(v, float):
        text = f"{v:.1f}"
        return "0.0" if text == "-0.0" else text  # a delta that rounds to zero has no sign
    return "-" if v is None else str(v)


def percent(share: float | None) -> str:
    return "-" if share is None else f"{100 * share:.0f}%"


def points(delta: float | None) -> str:
    return "-" if delta is None else fmt(100 * delta) + " pt"


def print_json(result) -> None:
    print(json.dumps(result.as_dict(), default=str, indent=2))


def print_table(header: list[str], rows: list[list[Any]], left: int | None = None) -> None:
    """Columns padded to their widest cell, a dashed rule under the header; the first ``left``
    columns (default all) aligned left, the others right."""
    left = len(header) if left is None else left
    cells = [header] + [[fmt(v) for v in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    for i, r in enumerate(cells):
        print("  ".join(c.ljust(w) if j < left else c.rjust(w) for j, (c, w) in enumerate(zip(r, widths))))
        if i == 0:
            print("  ".join("-" * w for w in widths))


def print_paths(paths: dict[str, str], width: int = 18) -> None:
    for table, path in paths.items():
        print(f"  {table:{width}s} {path}")
