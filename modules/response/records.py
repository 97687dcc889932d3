"""Reading AI-response records: JSONL or Parquet, one record per response.

A malformed record does not stop the batch: it becomes a ``RecordError`` carrying its line
number (JSONL) or row number (Parquet), and the flow writes it as an error row.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..tables_io import numbered_lines, read_parquet
from .schema import AIResponse


@dataclass(frozen=True)
class RecordError:
    line: int
    query_id: str | None
    domain: str | None
    error: str


def _coerce_response(value: Any) -> tuple[Any, bool]:
    """Best-effort parsing of a response field; returns (value, was_coerced)."""
    if value is None:
        return "", True
    if isinstance(value, str):
        return value, False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value), True
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "\n".join(value), True
    if isinstance(value, dict):
        for key in ("text", "content", "response", "answer"):
            if isinstance(value.get(key), str):
                return value[key], True
    return value, False


def parse_record(row: dict[str, Any], line: int) -> tuple[AIResponse | None, RecordError | None, bool]:
    """(record, None, coerced) or (None, error, False)."""
    if not isinstance(row, dict):
        return (
            None,
            RecordError(line, None, None, f"line {line}: expected a JSON object, got {type(row).__name__}"),
            False,
        )
    row = dict(row)
    for key in ("query_id", "domain", "response"):
        if key not in row:
            return (
                None,
                RecordError(
                    line,
                    _str(row.get("query_id")),
                    _str(row.get("domain")),
                    f"line {line}: missing required field {key!r}",
                ),
                False,
            )
    row["response"], coerced = _coerce_response(row["response"])
    if isinstance(row.get("query_id"), int):
        row["query_id"] = str(row["query_id"])
    try:
        record = AIResponse.model_validate({**row, "source_line": line})
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        return (
            None,
            RecordError(line, _str(row.get("query_id")), _str(row.get("domain")), f"line {line}: {problems}"),
            False,
        )
    return record, None, coerced


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


def load_records(path: str | Path) -> tuple[list[AIResponse], list[RecordError], set[int]]:
    """Records, errors, and the lines whose response was coerced into text.

    ``path`` is JSONL, a Parquet file, or a folder of Parquet files such as a ``collect`` run's
    ``responses/run_id=<id>`` partition.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"input not found: {path}")
    records, errors, coerced = [], [], set()
    if path.is_dir() or path.suffix == ".parquet":  # a file, or a folder of them (a run's `responses`)
        import polars as pl

        files = (
            [path]
            if path.is_file()
            else sorted(
                f
                for f in path.rglob("*.parquet")
                if not any(part.startswith((".", "_")) for part in f.relative_to(path).parts)
            )
        )
        if not files:
            raise ValueError(f"no Parquet files under {path}")
        frames = [read_parquet(f) for f in files]
        rows = list(enumerate(pl.concat(frames, how="diagonal_relaxed").to_dicts(), 1))
    else:
        rows, bad = numbered_lines(path)
        errors += [RecordError(n, None, None, f"{path.name} line {n}: {why}") for n, why in bad]
    if not rows and not errors:
        raise ValueError(f"{path}: no records (an empty input makes no run)")
    for n, row in rows:
        record, error, was_coerced = parse_record(row, n)
        if error:
            errors.append(error)
        else:
            records.append(record)
            if was_coerced:
                coerced.add(n)
    return records, errors, coerced
