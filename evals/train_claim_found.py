"""Train the claim-found model and its threshold (``modules/response/checker/claim-found.json``).

Analyses the **train** answers of every verdict set and the retired and spent test sets
(:data:`TRAINED_ON`; never the current frozen test), with the model off, and gives each claim the
offline checks call missing a row of :func:`modules.response.claim_found.claim_features` and its
gold verdict. The model is asked only where the checks prove nothing against the claim (no value
stated otherwise, no other polarity) and the claim has words of its own, so only those rows are
fitted, as :mod:`evals.precision_fit` fits: boosted trees of "the gold verdict is found",
its threshold the lowest at which 85% of the claims it finds, on each realistic dev set and out of
fold, are found in gold.

Run: ``.venv/bin/python -m evals.train_claim_found [--dry-run] [--save-rows F | --from-rows F]`` (about 4
minutes; seconds from saved rows).
"""

from __future__ import annotations

from modules.response.claim_found import FEATURES, WEIGHTS

from .precision_fit import claims_read, train_and_dev, train_main
from .train_flag_confidence import RETIRED, SPENT

VERSION = "claim-found-5"
#: every retired test set: each was run and reported as a test first (the current one never)
TRAINED_ON = RETIRED + SPENT
LABEL = "found"


def claim_rows(pattern: str) -> list[dict]:
    """Every claim the offline checks call missing on the answers of the verdict files
    ``pattern`` names: set, answer, claim, features, whether the model is barred from it
    (``barred``), gold verdict."""
    return claims_read(pattern, "feedback.min_claim_found", "claim_rows_sink", "barred")


def asked_rows() -> tuple[list[dict], list[dict]]:
    """The train and dev claims the model is asked about (not barred)."""
    every, every_dev = train_and_dev(claim_rows, TRAINED_ON)
    train = [r for r in every if not r["barred"]]
    dev = [r for r in every_dev if not r["barred"]]
    print(
        f"{len(every)} train claims called missing, {len(train)} the model is asked about; dev {len(every_dev)}, {len(dev)}"
    )
    return train, dev


def trained_on(train: list[dict]) -> str:
    return (
        f"the claims the checks call missing that the model is asked about, on the verdict sets' train "
        f"splits and the test sets {', '.join(TRAINED_ON)}: {len(train)} claims, "
        f"{sum(r['gold'] == LABEL for r in train)} found in gold; each set weighs the same"
    )


if __name__ == "__main__":
    train_main(__doc__, asked_rows, LABEL, VERSION, FEATURES, trained_on, WEIGHTS)
