"""Reading a batch of research questions: JSONL lines ``{"id": ..., "question": ...}``."""

from __future__ import annotations

from pathlib import Path

from ..tables_io import read_validated


def load_questions(path: str | Path) -> list[dict]:
    """All questions of the file; a malformed line is an error naming its line (nothing is skipped silently)."""
    return read_validated(path, _question, "question")


def _question(item: object, line: int) -> dict:
    if not isinstance(item, dict) or not str(item.get("question") or "").strip():
        raise ValueError('needs a non-empty "question"')
    if not isinstance(item["question"], str):
        raise ValueError(f'"question" must be text, not {type(item["question"]).__name__}')
    return {
        "id": str(item["id"] if item.get("id") is not None else f"line-{line}"),
        "question": item["question"].strip(),
    }
