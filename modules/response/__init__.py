"""The response analyzer: AI answers audited against a site's own pages (claim verdicts, wrong
facts, accuracy, completeness, attribution, competitors), in batches, with per-domain and
per-provider summaries and trends (the LM judge, which loads DSPy, only when it is asked for)."""

from ..facade import lazy_exports
from .analyzer import ANALYZER_VERSION, EncodedTexts, ResponseAnalyzer, record_from_result
from .config import AnalyzerConfig
from .groundtruth import GroundTruth, load_pages
from .schema import AIResponse, AnalysisResult, ExpectedClaim, StoredPage

#: what the package offers beyond what it imports itself, and the module each name lives in
_HOMES = {
    "LMJudge": "judge",
    "ANALYSES_SCHEMA": "tables",
    "COMPETITOR_SUMMARY_SCHEMA": "tables",
    "PROVIDER_SUMMARY_SCHEMA": "tables",
    "RecordError": "records",
    "RunTables": "batch",
    "SUMMARY_SCHEMA": "tables",
    "analyze_to_rows": "batch",
    "build_tables": "batch",
    "load_records": "records",
    "parse_record": "records",
    "read_with_trends": "tables",
    "summarize": "tables",
    "summarize_competitors": "tables",
    "summarize_providers": "tables",
    "trend_baseline": "tables",
    "waves": "batch",
}
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
    *_HOMES,
]
__getattr__ = lazy_exports(__name__, _HOMES)
