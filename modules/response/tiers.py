"""Score tiers (seed: excellent >= 85, good >= 70, fair >= 50, else poor; thresholds configurable)."""

from .config import TierConfig
from .schema import ScoreTier


def tier_for(score: float, tiers: TierConfig) -> ScoreTier:
    if score >= tiers.excellent:
        return "excellent"
    if score >= tiers.good:
        return "good"
    if score >= tiers.fair:
        return "fair"
    return "poor"
