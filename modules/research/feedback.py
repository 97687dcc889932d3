"""Human feedback on a report: re-opening a research thread with its memory and new constraints."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..store import ParquetStore
from .answer import rejection
from .schema import Fact
from .tables import facts_from_rows

VERDICTS = ("accept", "reject", "add")


class ThreadSeed(BaseModel):
    """Where a thread starts: a new question, or a stored thread with its facts and constraints."""

    question_id: str
    question: str
    thread_id: str | None = None
    facts: list[Fact] = Field(default_factory=list)
    constraints: list[str] = Field(default_factory=list)
    answer: str = ""
    short_answer: str = ""
    searched: list[str] = Field(default_factory=list)  # the queries the stored thread ran: not again


def seeds_from_run(
    store: ParquetStore, run_id: str, question_ids: list[str] | None = None
) -> list[ThreadSeed]:
    """The threads of a stored run, each with the memory it ended with."""
    reports = store.read("reports", run_id)
    if reports.is_empty():
        raise ValueError(f"run {run_id!r} has no research reports under {store.root}")
    if question_ids:
        unknown = sorted(set(question_ids) - set(reports["question_id"].to_list()))
        if unknown:
            raise ValueError(f"run {run_id!r} has no question(s) {unknown}")
        reports = reports.filter(reports["question_id"].is_in(question_ids))
    memory = store.read("memory", run_id)
    steps = store.read("steps", run_id)
    seeds = []
    for r in reports.iter_rows(named=True):
        facts = (
            memory.filter(memory["question_id"] == r["question_id"]).to_dicts()
            if not memory.is_empty()
            else []
        )
        seeds.append(
            ThreadSeed(
                question_id=r["question_id"],
                question=r["question"],
                thread_id=r["thread_id"],
                facts=facts_from_rows(facts),
                constraints=list(r["constraints"] or []),
                answer=r["answer"] or "",
                short_answer=r.get("short_answer") or "",
                searched=_searched(steps, r["question_id"]),
            )
        )
    return seeds


def _searched(steps, question_id: str) -> list[str]:
    if steps.is_empty():
        return []
    rows = steps.filter(
        (steps["question_id"] == question_id)
        & (steps["node"] == "tool")
        & steps["action"].str.starts_with("search_")
    )
    return list(dict.fromkeys(q for q in rows["query_or_url"].to_list() if q))


def constraints_for(
    existing: list[str], verdict: str, text: str, previous_answer: str, previous_short: str = ""
) -> list[str]:
    """The thread's constraints after feedback: a rejection names what was wrong with the last
    answer and the short answer rejected (which the answerer then never gives again). The nodes
    read constraints; they are never searched for, nor counted as terms the research must cover."""
    if verdict not in VERDICTS:
        raise ValueError(f"unknown verdict {verdict!r}: use {', '.join(VERDICTS)}")
    if verdict == "reject":
        return existing + [rejection(previous_short, text.strip(), previous_answer[:300])]
    if verdict == "add":
        return existing + [text.strip()]
    return existing
