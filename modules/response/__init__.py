"""The response analyzer: AI answers audited against a site's own pages (claim verdicts, wrong
facts, accuracy, completeness, attribution, competitors), in batches, with per-domain and
per-provider summaries and trends (the LM judge, which loads DSPy, only when it is asked for)."""

from ..facade import lazy_exports, lazy_names
from .analyzer import ANALYZER_VERSION, EncodedTexts, ResponseAnalyzer, record_from_result
from .config import AnalyzerConfig
from .groundtruth import GroundTruth, load_pages
from .schema import AIResponse, AnalysisResult, ExpectedClaim, StoredPage

#: each module of the package and the names it offers that the package does not import itself
_HOMES = """
    batch: RunTables analyze_to_rows apply_to_rows build_tables waves
    judge: LMJudge
    records: RecordError load_records parse_record
    diff: diff_runs
    overrides: ANALYST_FLAG OVERRIDES_SCHEMA OVERRIDES_TABLE VerdictOverride override_rows standing verdict_set
    sources: CITATION_DOMAINS_SCHEMA summarize_citation_domains
    thresholds: Threshold failed_thresholds
    triage: answers_to_fix named_instead
    tables: ANALYSES_SCHEMA COMPETITOR_SUMMARY_SCHEMA PROVIDER_SUMMARY_SCHEMA SUMMARY_SCHEMA read_with_trends summarize summarize_competitors summarize_providers trend_baseline
"""
__all__ = [
    "AIResponse",
    "ANALYZER_VERSION",
    "AnalysisResult",
    "AnalyzerConfig",
    "EncodedTexts",
    "ExpectedClaim",
    "GroundTruth",
    "ResponseAnalyzer",
    "StoredPage",
    "load_pages",
    "record_from_result",
    *lazy_names(_HOMES),
]
__getattr__ = lazy_exports(__name__, _HOMES)
