"""Which sections a run's report has, by the kind of run (``runs.flow``): one registry, read by the
HTML report, the markdown summary and the figures table alike. A new kind of run adds its
:class:`~modules.store.runs.RunKind` and one entry here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from ..store import ParquetStore
from ..store.runs import RunKind
from . import markdown as md
from .evaluation import evaluation_sections
from .rerank import rerank_sections
from .research import research_sections
from .response import collect_sections, response_sections

#: (store, run id, kind) -> what the layout shows
Sections = Callable[[ParquetStore, str, RunKind], list[str]]
Markdown = Callable[[ParquetStore, str, RunKind], str]
Figures = Callable[[ParquetStore, str, RunKind], tuple[pl.DataFrame, list[str]]]


@dataclass(frozen=True)
class Layout:
    """A kind of run's report: its name in the title, the HTML sections, the markdown below the
    summary line (none: the line alone) and the figures table (none: no table)."""

    label: str
    sections: Sections
    markdown: Markdown | None = None
    figures: Figures | None = None


RESPONSE = Layout(
    "response analysis", response_sections, lambda s, r, k: md.response_markdown(s, r), md.response_figures
)
RESEARCH = Layout(
    "research",
    lambda s, r, k: research_sections(s, r),
    lambda s, r, k: md.research_markdown(s, r),
    lambda s, r, k: md.research_figures(s, r),
)
RERANKING = Layout(
    "reranking",
    lambda s, r, k: rerank_sections(s, r),
    lambda s, r, k: md.rerank_markdown(s, r),
    lambda s, r, k: md.rerank_figures(s, r),
)
COLLECTION = Layout(
    "answer collection",
    lambda s, r, k: collect_sections(s, r),
    lambda s, r, k: md.collect_markdown(s, r),
    lambda s, r, k: md.collect_figures(s, r),
)
EVALUATION = Layout(
    "program evaluation",
    lambda s, r, k: evaluation_sections(s, r),
    figures=lambda s, r, k: md.evaluation_figures(s, r),
)

LAYOUTS: dict[RunKind, Layout] = {
    RunKind.ANALYZE: RESPONSE,
    RunKind.REANALYZE: RESPONSE,
    RunKind.MONITOR: RESPONSE,
    RunKind.RESEARCH: RESEARCH,
    RunKind.RESEARCH_BATCH: RESEARCH,
    RunKind.FEEDBACK: RESEARCH,
    RunKind.RERANK_BATCH: RERANKING,
    RunKind.COLLECT: COLLECTION,
    RunKind.OPTIMIZE: EVALUATION,
    RunKind.EVALUATE: EVALUATION,
}
