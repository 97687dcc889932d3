"""The report of a program evaluation run (``sleuth eval`` / ``sleuth optimize``)."""

from __future__ import annotations

import polars as pl

from ..store import ParquetStore
from .html import section, table


def evaluation_sections(store: ParquetStore, run_id: str) -> list[str]:
    """Mean metric per node, program and split."""
    rows = (
        store.read("evaluations", run_id)
        .group_by(["node", "program", "program_version", "split"], maintain_order=True)
        .agg(
            pl.len().alias("examples"),
            pl.col("score").mean().alias("mean_score"),
            pl.col("error").is_not_null().sum().alias("errors"),
        )
        .to_dicts()
    )
    for r in rows:
        r["mean_score"] = None if r["mean_score"] is None else f"{r['mean_score']:.3f}"
    return [
        section(
            "Scores",
            table(
                rows,
                [
                    ("node", "node"),
                    ("program", "program"),
                    ("program_version", "version"),
                    ("split", "split"),
                    ("examples", "examples"),
                    ("mean_score", "mean score"),
                    ("errors", "errors"),
                ],
            ),
            "scores",
        )
    ]
