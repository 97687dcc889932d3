"""The research flow's output tables: one row per report, step, source and fact of a thread.

Schemas are fixed here (and documented in datasets/README.md) so every run's Parquet files
read as one dataset; column order is the contract order, extra columns come after.
"""

from __future__ import annotations

import json
from datetime import datetime

import polars as pl

from ..store import frame as store_frame
from .loop import ResearchResult
from .schema import Fact

REPORTS_SCHEMA = {
    "question_id": pl.String,
    "question": pl.String,
    "answer": pl.String,
    "confidence": pl.Float64,
    "status": pl.String,
    "stop_reason": pl.String,
    "journey": pl.String,
    "cited_urls": pl.List(pl.String),
    "thread_id": pl.String,
    "parent_run_id": pl.String,
    "constraints": pl.List(pl.String),
    "lm": pl.String,
    "programs": pl.String,
    "tokens": pl.Int64,
    "cost_usd": pl.Float64,
    "started_at": pl.Datetime("us", "UTC"),
    "duration_s": pl.Float64,
    "error": pl.String,
    "short_answer": pl.String,
    "answer_type": pl.String,
    "lm_answered": pl.Int64,
    "lm_fallbacks": pl.Int64,
}
STEPS_SCHEMA = {
    "question_id": pl.String,
    "step": pl.Int64,
    "node": pl.String,
    "action": pl.String,
    "query_or_url": pl.String,
    "engine": pl.String,
    "outcome": pl.String,
    "reasoning": pl.String,
    "n_results": pl.Int64,
    "new_facts": pl.Int64,
    "confidence": pl.Float64,
    "fallback": pl.Boolean,
    "tokens": pl.Int64,
    "duration_ms": pl.Float64,
    "cost_usd": pl.Float64,
    "error": pl.String,
    # appended: pages and results of a tool step withheld for prompt-injection markers
    "withheld": pl.Int64,
}
SOURCES_SCHEMA = {
    "question_id": pl.String,
    "url": pl.String,
    "title": pl.String,
    "engine": pl.String,
    "rank": pl.Int64,
    "step": pl.Int64,
    "analyzed": pl.Boolean,
    "cited": pl.Boolean,
    # appended: why no node saw the document's text (prompt-injection markers), else null
    "withheld": pl.String,
}
MEMORY_SCHEMA = {
    "question_id": pl.String,
    "fact_id": pl.String,
    "text": pl.String,
    "quote": pl.String,
    "source_url": pl.String,
    "step": pl.Int64,
    "confidence": pl.Float64,
    "status": pl.String,
    "thread_id": pl.String,
}
FEEDBACK_SCHEMA = {
    "question_id": pl.String,
    "thread_id": pl.String,
    "verdict": pl.String,
    "text": pl.String,
    "child_run_id": pl.String,
    "created_at": pl.Datetime("us", "UTC"),
}
RESEARCH_TABLES = {
    "reports": REPORTS_SCHEMA,
    "steps": STEPS_SCHEMA,
    "sources": SOURCES_SCHEMA,
    "memory": MEMORY_SCHEMA,
}


def thread_rows(
    question_id: str,
    result: ResearchResult,
    *,
    thread_id: str,
    parent_run_id: str | None,
    lm: str | None,
    programs: dict[str, str],
    started_at: datetime,
    duration_s: float,
) -> dict[str, list[dict]]:
    """All rows one research thread contributes to each table."""
    cited = set(result.report.key_sources)
    report = {
        "question_id": question_id,
        "question": result.question,
        "answer": result.report.answer,
        "confidence": result.confidence,
        "status": result.status,
        "stop_reason": result.stop_reason,
        "journey": result.report.research_journey,
        "cited_urls": result.report.key_sources,
        "thread_id": thread_id,
        "parent_run_id": parent_run_id,
        "constraints": list(result.constraints),
        "lm": lm,
        "programs": json.dumps(programs, sort_keys=True),
        "tokens": sum(s.tokens for s in result.steps),
        "cost_usd": sum(s.cost_usd for s in result.steps),
        "started_at": started_at,
        "duration_s": round(duration_s, 3),
        "error": None,
        "short_answer": result.report.short_answer,
        "answer_type": result.report.answer_type,
        "lm_answered": result.lm_calls.get("answered", 0),
        "lm_fallbacks": result.lm_calls.get("fell_back", 0),
    }
    steps = [
        {"question_id": question_id, **{k: getattr(s, k) for k in STEPS_SCHEMA if k != "question_id"}}
        for s in result.steps
    ]
    sources = [
        {
            "question_id": question_id,
            "url": s.url,
            "title": s.title,
            "engine": s.engine or None,
            "rank": s.rank or None,
            "step": s.step,
            "analyzed": s.analyzed,
            "cited": s.url in cited,
            "withheld": s.withheld or None,
        }
        for s in result.sources.values()
    ]
    memory = [fact_row(question_id, f, thread_id) for f in result.memory.facts]
    return {"reports": [report], "steps": steps, "sources": sources, "memory": memory}


def failed_report_row(
    question_id: str,
    question: str,
    error: str,
    *,
    thread_id: str,
    parent_run_id: str | None,
    lm: str | None,
    started_at: datetime,
    duration_s: float,
) -> dict:
    """A thread that raised still gets a report row, so a batch never loses a question silently."""
    return {
        "question_id": question_id,
        "question": question,
        "answer": "",
        "confidence": 0.0,
        "status": "error",
        "stop_reason": "error",
        "journey": "",
        "cited_urls": [],
        "thread_id": thread_id,
        "parent_run_id": parent_run_id,
        "constraints": [],
        "lm": lm,
        "programs": "{}",
        "tokens": 0,
        "cost_usd": 0.0,
        "started_at": started_at,
        "duration_s": round(duration_s, 3),
        "error": error,
        "short_answer": "",
        "answer_type": "none",
        "lm_answered": 0,
        "lm_fallbacks": 0,
    }


def fact_row(question_id: str, fact: Fact, thread_id: str) -> dict:
    return {"question_id": question_id, **fact.model_dump(), "thread_id": thread_id}


def facts_from_rows(rows: list[dict]) -> list[Fact]:
    return [Fact(**{k: r[k] for k in Fact.model_fields}) for r in rows]


def research_frame(table: str, rows: list[dict]) -> pl.DataFrame:
    return store_frame(rows, {**RESEARCH_TABLES, "feedback": FEEDBACK_SCHEMA}[table])
