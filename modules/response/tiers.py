"""Score tiers (seed: excellent >= 85, good >= 70, fair >= 50, else poor; thresholds configurable)."""

from .config import TierConfig
from .schema import ScoreTier

#: Accuracy floor of an answer whose stated expected facts all check out: ``100 x (BASE + SPAN x
#: share verified)``. BASE is about where MiniLM rates a clear paraphrase; all verified is 100.
VERIFIED_FLOOR_BASE, VERIFIED_FLOOR_SPAN = 0.55, 0.45


def verified_floor(verified: float) -> float:
    """The accuracy an answer earns at least when a ``verified`` share (0-1) of its facts check out."""
    return round(100 * (VERIFIED_FLOOR_BASE + VERIFIED_FLOOR_SPAN * verified), 2)


def tier_for(score: float, tiers: TierConfig) -> ScoreTier:
    if score >= tiers.excellent:
        return "excellent"
    if score >= tiers.good:
        return "good"
    if score >= tiers.fair:
        return "fair"
    return "poor"
