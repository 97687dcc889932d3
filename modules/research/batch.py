"""Reading a batch of research questions: JSONL lines ``{"id": ..., "question": ...}``."""

from __future__ import annotations

import json
from pathlib import Path


def load_questions(path: str | Path) -> list[dict]:
    """All questions of the file; a malformed line is an error naming its line (nothing is skipped silently)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such questions file: {path}")
    questions, problems, seen = [], [], set()
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"line {n}: not JSON ({exc.msg})")
            continue
        if not isinstance(item, dict) or not str(item.get("question") or "").strip():
            problems.append(f"line {n}: needs a non-empty \"question\"")
            continue
        qid = str(item.get("id") if item.get("id") is not None else f"line-{n}")
        if qid in seen:
            problems.append(f"line {n}: duplicate id {qid!r}")
            continue
        seen.add(qid)
        questions.append({"id": qid, "question": item["question"].strip()})
    if problems:
        raise ValueError(f"{path}: " + "; ".join(problems[:10]) + (f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""))
    if not questions:
        raise ValueError(f"{path}: no questions")
    return questions
