"""Response analyzer (seed 001): score AI answers against a site's ground-truth pages."""

from .analyzer import ANALYZER_VERSION, ResponseAnalyzer
from .config import AnalyzerConfig
from .groundtruth import GroundTruth, load_pages
from .schema import AIResponse, AnalysisResult, ExpectedClaim, StoredPage

__all__ = [
    "ANALYZER_VERSION",
    "AIResponse",
    "AnalysisResult",
    "AnalyzerConfig",
    "ExpectedClaim",
    "GroundTruth",
    "ResponseAnalyzer",
    "StoredPage",
    "load_pages",
]
