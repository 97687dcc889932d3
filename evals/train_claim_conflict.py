"""Train the claim-conflict model and its threshold (``modules/response/checker/claim-conflict.json``).

Analyses the **train** answers of every verdict set and the retired and spent test sets
(:data:`TRAINED_ON`; never the current frozen test), with the model off, and gives each claim the
offline checks call missing, where a window of the answer states one of its values otherwise, a
row of :func:`modules.response.claim_conflict.conflict_features` and its gold verdict. Fitted as
:mod:`evals.precision_fit` fits: a logistic regression of "the gold verdict is contradicted", its
threshold the lowest at which 85% of the claims it contradicts, on each realistic dev set and out
of fold, are contradicted in gold.

Run: ``.venv/bin/python -m evals.train_claim_conflict [--dry-run] [--save-rows F | --from-rows F]`` (about 6
minutes; seconds from saved rows).
"""

from __future__ import annotations

from pathlib import Path

from modules.evaluation import load_verdict_rows, verdict_record
from modules.response import ResponseAnalyzer
from modules.response.claim_conflict import FEATURES, WEIGHTS
from modules.response.config import AnalyzerConfig

from .precision_fit import train_main
from .train_flag_confidence import RETIRED

SETS = Path(__file__).resolve().parent / "sets"
VERSION = "claim-conflict-1"
#: the frozen test sets given to training once run (sites-s to -w: spent 2026-12-06)
TRAINED_ON = RETIRED[: RETIRED.index("sites-w") + 1]
LABEL = "contradicted"


def conflict_rows(pattern: str) -> list[dict]:
    """Every claim the offline checks call missing that a window states a value of otherwise, on
    the answers of the verdict files ``pattern`` names: set, answer, features, gold verdict."""
    answers, pages = load_verdict_rows(SETS / pattern)
    analyzer = ResponseAnalyzer(AnalyzerConfig.load(None, {"feedback.min_claim_conflict": 1.0}))
    gts = analyzer.prepare_ground_truth(pages, {a["domain"] for a in answers})
    records = [verdict_record(a) for a in answers]
    analyzer.conflict_rows_sink = []
    for _ in analyzer.iter_batch(records, gts):
        pass
    key = lambda r: (r.provider, r.query_id, r.response)  # noqa: E731  (the set, the question, the answer)
    read = {(key(record), cid): (x, window) for record, cid, x, window in analyzer.conflict_rows_sink}
    rows = []
    for a, record in zip(answers, records):
        for claim in a["claims"]:
            if (key(record), claim["id"]) in read:
                x, window = read[(key(record), claim["id"])]
                rows.append(
                    {
                        "set": a["set"],
                        "answer": a["qid"],
                        "claim": claim["text"],
                        "window": window,
                        "x": x,
                        "gold": a["verdicts"][claim["id"]],
                    }
                )
    return rows


def all_rows() -> tuple[list[dict], list[dict]]:
    train = conflict_rows("verdicts-*-train.jsonl")
    for name in TRAINED_ON:
        train += conflict_rows(f"verdicts-{name}-test.jsonl")
    return train, conflict_rows("verdicts-*-dev.jsonl")


def trained_on(train: list[dict]) -> str:
    return (
        f"the claims the checks call missing that a window states a value of otherwise, on the verdict "
        f"sets' train splits and the test sets {', '.join(TRAINED_ON)}: {len(train)} claims, "
        f"{sum(r['gold'] == LABEL for r in train)} contradicted in gold; each set weighs the same"
    )


if __name__ == "__main__":
    train_main(__doc__, all_rows, LABEL, VERSION, FEATURES, trained_on, WEIGHTS)
