"""Train the claim-conflict model and its threshold (``modules/response/checker/claim-conflict.json``).

Analyses the **train** answers of every verdict set and the retired and spent test sets
(:data:`TRAINED_ON`; never the current frozen test), with the model off, and gives each claim the
offline checks call missing, where a window of the answer states one of its values otherwise, a
row of :func:`modules.response.claim_conflict.conflict_features` and its gold verdict. Fitted as
:mod:`evals.precision_fit` fits: boosted trees of "the gold verdict is contradicted", its
threshold the lowest at which 85% of the claims it contradicts, on each realistic dev set and out
of fold, are contradicted in gold.

Run: ``.venv/bin/python -m evals.train_claim_conflict [--dry-run] [--save-rows F | --from-rows F]`` (about 6
minutes; seconds from saved rows).
"""

from __future__ import annotations

from modules.response.claim_conflict import FEATURES, WEIGHTS

from .precision_fit import claims_read, train_and_dev, train_main
from .train_flag_confidence import RETIRED, SPENT

VERSION = "claim-conflict-4"
#: every retired test set: each was run and reported as a test first (the current one never)
TRAINED_ON = RETIRED + SPENT
LABEL = "contradicted"


def conflict_rows(pattern: str) -> list[dict]:
    """Every claim the offline checks call missing that a window states a value of otherwise, on
    the answers of the verdict files ``pattern`` names: set, answer, claim, features, the window,
    gold verdict."""
    return claims_read(pattern, "feedback.min_claim_conflict", "conflict_rows_sink", "window")


def trained_on(train: list[dict]) -> str:
    return (
        f"the claims the checks call missing that a window states a value of otherwise, on the verdict "
        f"sets' train splits and the test sets {', '.join(TRAINED_ON)}: {len(train)} claims, "
        f"{sum(r['gold'] == LABEL for r in train)} contradicted in gold; each set weighs the same"
    )


if __name__ == "__main__":
    train_main(
        __doc__,
        lambda: train_and_dev(conflict_rows, TRAINED_ON),
        LABEL,
        VERSION,
        FEATURES,
        trained_on,
        WEIGHTS,
    )
