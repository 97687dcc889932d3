"""The response analyzer: AI answers audited against a site's own pages (claim verdicts, wrong
facts, accuracy, completeness, attribution, competitors), in batches, with per-domain and
per-provider summaries and trends.

The LM judge (``judge``, which loads DSPy) is a submodule of its own: ``from modules.response
import judge``, so that the offline analysis stays light."""

from .analyzer import (
    ANALYZER_VERSION,
    EncodedTexts,
    ResponseAnalyzer,
    record_from_result,
)
from .batch import (
    RunTables,
    analyze_to_rows,
    build_tables,
    waves,
)
from .config import AnalyzerConfig
from .groundtruth import GroundTruth, load_pages
from .records import RecordError, load_records, parse_record
from .schema import (
    AIResponse,
    AnalysisResult,
    ExpectedClaim,
    StoredPage,
)
from .tables import (
    ANALYSES_SCHEMA,
    COMPETITOR_SUMMARY_SCHEMA,
    PROVIDER_SUMMARY_SCHEMA,
    SUMMARY_SCHEMA,
    read_with_trends,
    summarize,
    summarize_competitors,
    summarize_providers,
    trend_baseline,
)

__all__ = [
    "AIResponse",
    "ANALYSES_SCHEMA",
    "ANALYZER_VERSION",
    "AnalysisResult",
    "AnalyzerConfig",
    "COMPETITOR_SUMMARY_SCHEMA",
    "EncodedTexts",
    "ExpectedClaim",
    "GroundTruth",
    "PROVIDER_SUMMARY_SCHEMA",
    "RecordError",
    "ResponseAnalyzer",
    "RunTables",
    "SUMMARY_SCHEMA",
    "StoredPage",
    "analyze_to_rows",
    "build_tables",
    "judge",
    "load_pages",
    "load_records",
    "parse_record",
    "read_with_trends",
    "record_from_result",
    "summarize",
    "summarize_competitors",
    "summarize_providers",
    "trend_baseline",
    "waves",
]
