"""Batch analysis as plain functions: the flow's tasks call these, and so do benchmarks."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import polars as pl

from ..embeddings import BUNDLED
from ..store.runs import RunKind, runs_frame
from .analyzer import ANALYZER_VERSION, EncodedTexts, ResponseAnalyzer, collector_paused
from .checker import checker_for
from .claim_conflict import shipped_claim_conflict
from .claim_found import shipped_claim_found
from .config import AnalyzerConfig
from .flag_confidence import shipped_flag_confidence
from .groundtruth import GroundTruth
from .overrides import apply_overrides
from .records import RecordError
from .schema import AIResponse, AnalysisResult
from .sources import summarize_citation_domains
from .tables import analyses_frame, analysis_row, error_row, summarize, summarize_competitors


def analyze_to_rows(
    analyzer: ResponseAnalyzer,
    records: Sequence[AIResponse],
    ground_truth: dict[str, GroundTruth],
    coerced_lines: set[int] = frozenset(),
    judge=None,
    encoded: EncodedTexts | None = None,
) -> list[dict]:
    """``analyses`` rows for a batch; a response that needed best-effort parsing is flagged.

    ``judge``: an :class:`~.judge.LMJudge` that re-judges each result's claims and wrong facts
    (with the page excerpts of its domain most about the answer); None: the offline verdicts.
    ``encoded``: the batch's texts encoded ahead (:meth:`ResponseAnalyzer.encode_ahead`)."""
    rows = []
    with collector_paused():  # the rows too: see the analyzer's batches
        for result in analyzer.analyze_batch(records, ground_truth, encoded):
            if judge is not None:
                result = judge.judge_with(result, ground_truth.get(result.domain))
            if result.source_line in coerced_lines and result.status != "error":
                result.flags.append("response_coerced")
                result.status = "flagged"
            rows.append(analysis_row(result))
    return rows


def apply_to_rows(rows: list[dict], verdicts: dict[str, list[dict]], config: AnalyzerConfig) -> list[dict]:
    """``analyses`` rows with the standing analyst verdicts applied to the answers they name."""
    if not verdicts:
        return rows
    out = []
    for row in rows:
        mine = verdicts.get(row.get("id") or "")
        if mine and row.get("result_json"):
            result = AnalysisResult.model_validate_json(row["result_json"])
            row = analysis_row(apply_overrides(result, mine, config))
        out.append(row)
    return out


def waves(
    records: Sequence[AIResponse], batch_size: int, concurrency: int
) -> list[list[Sequence[AIResponse]]]:
    """The records in batches of at most ``batch_size`` (smaller, to make ``concurrency`` of them,
    on a small run), grouped ``concurrency`` batches at a time: the batches whose texts are
    encoded together (:meth:`ResponseAnalyzer.encode_ahead`), as many as run at once, so that the
    vectors held stay bounded on a large run."""
    size = max(1, min(batch_size, math.ceil(len(records) / concurrency)))
    batches = [records[i : i + size] for i in range(0, len(records), size)]
    return [batches[i : i + concurrency] for i in range(0, len(batches), concurrency)]


@dataclass
class RunTables:
    analyses: pl.DataFrame
    summaries: pl.DataFrame
    runs: pl.DataFrame
    totals: dict = field(default_factory=dict)
    competitor_summaries: pl.DataFrame = field(default_factory=pl.DataFrame)
    citation_domains: pl.DataFrame = field(default_factory=pl.DataFrame)


def _checker_version(config: AnalyzerConfig, embedding_model: str) -> str | None:
    """The version of the claim checker the run's wrong facts were weighed by (None: rules alone)."""
    checker = checker_for(config.feedback.checker, embedding_model)
    return checker.version if checker else None


def _flag_confidence_version(config: AnalyzerConfig, embedding_model: str) -> str | None:
    """The version of the model that gave the wrong facts their confidence (None: the rules' or
    the claim checker's figures)."""
    checked = checker_for(config.feedback.checker, embedding_model) is not None
    model = shipped_flag_confidence() if config.feedback.calibrated_confidence and not checked else None
    return model.version if model else None


def _claim_found_version(config: AnalyzerConfig, embedding_model: str) -> str | None:
    """The version of the model that found claims the checks called missing (None: off, or an
    encoder other than the MiniLM it reads)."""
    model = shipped_claim_found()
    off = config.feedback.min_claim_found == 1.0 or embedding_model != BUNDLED
    return model.version if model and not off else None


def _claim_conflict_version(config: AnalyzerConfig, embedding_model: str) -> str | None:
    """The version of the model that found claims contradicted by a value the checks would not
    weigh (None: off, or an encoder other than the MiniLM it reads)."""
    model = shipped_claim_conflict()
    off = config.feedback.min_claim_conflict == 1.0 or embedding_model != BUNDLED
    return model.version if model and not off else None


def build_tables(
    rows: list[dict],
    errors: Sequence[RecordError],
    *,
    config: AnalyzerConfig,
    started_at: datetime,
    previous_summaries: pl.DataFrame,
    input_path: str,
    ground_truth_path: str,
    ground_truth: dict[str, GroundTruth],
    embedding_model: str,
    flow: RunKind = RunKind.ANALYZE,
    previous_competitor_summaries: pl.DataFrame | None = None,
) -> RunTables:
    """The run's tables; trends compare with ``previous_summaries`` (and
    ``previous_competitor_summaries``), which the caller picks (all runs, or monitor runs)."""
    now = datetime.now(UTC)
    all_rows = rows + [error_row(e, ANALYZER_VERSION, now) for e in errors]
    analyses = analyses_frame(all_rows).sort("source_line", nulls_last=True)
    summaries = summarize(analyses, started_at, previous_summaries)
    competitors = summarize_competitors(
        analyses,
        started_at,
        pl.DataFrame() if previous_competitor_summaries is None else previous_competitor_summaries,
    )
    status = analyses["status"]
    totals = {
        "total": analyses.height,
        "succeeded": int((status != "error").sum()),
        "failed": int((status == "error").sum()),
        "flagged": int((status == "flagged").sum()),
        "fallback": int(analyses["fallback"].fill_null(False).sum()),
    }
    runs = runs_frame(
        flow,
        started_at,
        input_path=input_path,
        ground_truth_path=ground_truth_path,
        **totals,
        config_hash=config.config_hash(),
        config_json=json.dumps(
            {
                **config.model_dump(mode="json"),
                "checker": _checker_version(config, embedding_model),
                "flag_confidence": _flag_confidence_version(config, embedding_model),
                "claim_found": _claim_found_version(config, embedding_model),
                "claim_conflict": _claim_conflict_version(config, embedding_model),
            }
        ),
        analyzer_version=ANALYZER_VERSION,
        embedding_model=embedding_model,
        ground_truth_versions=json.dumps({d: g.version for d, g in sorted(ground_truth.items())}),
    )
    sources = summarize_citation_domains(analyses, started_at)
    return RunTables(analyses, summaries, runs, totals, competitors, sources)
