"""Rerank batches: reading ``{id, query, plan?, results}`` lines, and the ``rerankings`` table rows."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..store import frame as store_frame
from ..tables_io import read_validated
from .schema import Reranking, SearchResultIn

RERANKINGS_SCHEMA = {
    "item_id": pl.String,
    "query": pl.String,
    "rank": pl.Int64,
    "original_index": pl.Int64,
    "result_id": pl.String,
    "title": pl.String,
    "url": pl.String,
    "score": pl.Int64,
    "kept": pl.Boolean,
    "brief_answer": pl.String,
    "sentence": pl.String,
    "sentence_start": pl.String,
    "sentence_end": pl.String,
    "core_terms": pl.List(pl.String),
    "relevance_note": pl.String,
    "highlighted": pl.String,
    "direct_relevance": pl.Float64,
    "depth": pl.Float64,
    "plan_alignment": pl.Float64,
    "unexpectedness": pl.Float64,
    "anchor": pl.String,
    "fallback": pl.Boolean,
    "program": pl.String,
    "error": pl.String,
}


def load_items(path: str | Path) -> list[dict]:
    """Every line of the file, validated; a malformed line is an error naming it (nothing is skipped)."""
    return read_validated(path, lambda item, line: validate_item(item, default_id=f"line-{line}"), "item")


def validate_item(item: object, default_id: str = "item") -> dict:
    if not isinstance(item, dict):
        raise ValueError("expected an object {id, query, plan?, results}")
    if not isinstance(item.get("query"), str) or not item["query"].strip():
        raise ValueError(f'needs a non-empty "query" string (got {item.get("query")!r})')
    results = item.get("results")
    if not isinstance(results, list):
        raise ValueError('"results" must be a list of {id?, title?, url?, text}')
    parsed = []
    for k, r in enumerate(results):
        if not isinstance(r, dict) or not isinstance(r.get("text"), str):
            raise ValueError(f'result {k} needs a "text" string')
        parsed.append(SearchResultIn.model_validate(r).model_dump())
    return {
        "id": str(item.get("id") if item.get("id") is not None else default_id),
        "query": item["query"],
        "plan": item.get("plan"),
        "results": parsed,
    }


def output_line(item_id: str, reranking: Reranking) -> dict:
    """The seed's JSON for one item: all results, sorted by score, with intro, note and fallback."""
    return {"id": item_id, **reranking.model_dump(exclude={"program"})}


def reranking_rows(item_id: str, query: str, reranking: Reranking) -> list[dict]:
    out = []
    for rank, r in enumerate(reranking.results, 1):
        sub = r.subscores
        out.append(
            {
                "item_id": item_id,
                "query": query,
                "rank": rank,
                "original_index": r.originalIndex,
                "result_id": r.id,
                "title": r.title,
                "url": r.url,
                "score": r.score,
                "kept": r.kept,
                "brief_answer": r.briefAnswer,
                "sentence": r.sentence,
                "sentence_start": r.sentenceStart,
                "sentence_end": r.sentenceEnd,
                "core_terms": r.coreTerms,
                "relevance_note": r.relevanceNote,
                "highlighted": r.highlighted,
                "direct_relevance": sub and sub.directRelevance,
                "depth": sub and sub.depth,
                "plan_alignment": sub and sub.planAlignment,
                "unexpectedness": sub and sub.unexpectedness,
                "anchor": r.anchor,
                "fallback": reranking.fallback,
                "program": reranking.program,
                "error": reranking.error,
            }
        )
    return out


def rerankings_frame(table_rows: list[dict]) -> pl.DataFrame:
    return store_frame(table_rows, RERANKINGS_SCHEMA)
