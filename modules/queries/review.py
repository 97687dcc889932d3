"""A person's review of a query set: drafts written for review, and the approval of reviewed ones."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .queryset import Query, load_query_set, write_query_set


def draft_path(query_set_id: str, out: str | os.PathLike | None = None) -> Path:
    """Where ``sleuth queries generate`` writes drafts: ``out``, or the query set's default file."""
    return Path(out or f"datasets/query_sets/{query_set_id}.jsonl")


def write_drafts(queries: list[Query], out: str | os.PathLike | None = None, *, force: bool = False) -> Path:
    """Write drafted queries for review; an existing file (it may hold reviewed work) only with ``force``."""
    if not queries:
        raise ValueError("no queries to write")
    path = draft_path(queries[0].query_set_id, out)
    if path.exists() and not force:
        raise FileExistsError(f"{path} exists (it may hold reviewed work); pass --out elsewhere or --force")
    write_query_set(path, queries)
    return path


@dataclass(frozen=True)
class Approval:
    approved: int  # drafts that this approval turned into approved queries
    still_drafts: int  # drafts left in the file


def approve_queries(path: str | os.PathLike, query_ids: Iterable[str] | None = None) -> Approval:
    """Mark the queries ``query_ids`` (default: all) of the query set at ``path`` approved; rewrites it."""
    qs = load_query_set(path)
    ids = set(query_ids or [q.query_id for q in qs.queries])
    unknown = ids - {q.query_id for q in qs.queries}
    if unknown:
        raise ValueError(f"no such query_id in {path}: {sorted(unknown)}")
    queries = [q.model_copy(update={"review": "approved"}) if q.query_id in ids else q for q in qs.queries]
    write_query_set(path, queries)
    return Approval(
        approved=sum(q.query_id in ids and q.review == "draft" for q in qs.queries),
        still_drafts=sum(q.review == "draft" for q in queries),
    )
