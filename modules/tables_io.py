"""Files in and out: user-supplied tables (Parquet or JSONL) read as rows with line-numbered
errors, JSONL written, and every whole-file write made atomic (:func:`atomic_path`).

Text hygiene happens here, at the boundary: a line that is not UTF-8, or whose JSON decodes to
a lone surrogate (``"\\ud800"``, which no file or table can store), is a bad line named by
its number, never a crash later in the run.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
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


def input_file(path: str | os.PathLike, what: str = "input") -> Path:
    """``path`` as a file to read: a folder given where a file is expected is one clear error
    (ValueError), as a missing file is (FileNotFoundError)."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{what} {path} is a folder, not a file")
    if not path.exists():
        raise FileNotFoundError(f"{what} not found: {path}")
    return path


def input_path(path: str | os.PathLike, what: str = "input") -> Path:
    """``path`` as an input that may be a file or a folder (ground truth pages): it exists."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{what} not found: {path}")
    return path


def output_file(path: str | os.PathLike, what: str = "output") -> Path:
    """``path`` as a file to write, checked before any work: not a folder, and no file where its
    folders would go (ValueError, one line)."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{what} {path} is a folder: name a file")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise ValueError(f"{what} {path}: {parent} is a file, not a folder")
            break
    return path


def json_lines(path: str | os.PathLike) -> Iterator[tuple[int, Any, str | None]]:
    """``(line number, value, None)`` for each non-blank JSONL line, or ``(n, None, why)`` for one
    that is not UTF-8, not JSON, or holds invalid Unicode."""
    with open(input_file(path), "rb") as f:
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

    input_file(path)
    try:
        return pl.read_parquet(path)
    except (pl.exceptions.PolarsError, OSError) as exc:
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ValueError(f"{path}: not a readable Parquet file ({reason[:200]})") from None


def read_rows(path: str | os.PathLike, what: str = "file") -> list[dict[str, Any]]:
    """Rows of a Parquet or JSONL file; ``what`` names it in errors ("corpus", "ground truth")."""
    path = input_file(path, what)
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


def read_validated(path: str | os.PathLike, validate: Callable[[object, int], dict], what: str) -> list[dict]:
    """A JSONL input where every line must be valid: ``validate(item, line_number)`` returns the
    clean item (with an ``id``) or raises ValueError.

    Blank lines are skipped; a malformed line, an invalid item or a repeated id is an error that
    names its line, and nothing is returned unless every line is good (no input is lost silently).
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such {what} file: {path}")
    input_file(path, what)
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


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary name beside ``path`` for the block to write; renamed onto ``path`` when the
    block succeeds (a reader sees the old file or the whole new one), removed when it fails.
    The parent folder is created; the file gets the usual mode (umask applies)."""
    path = output_file(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_path`)."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` as UTF-8, atomically (see :func:`atomic_path`)."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def jsonl_text(rows: Iterable[Any]) -> str:
    """Rows as JSONL: one JSON value a line, non-ASCII kept as it is."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def write_jsonl(path: str | os.PathLike, rows: Iterable[Any]) -> None:
    """Write rows as a JSONL file, atomically."""
    atomic_write_text(path, jsonl_text(rows))
