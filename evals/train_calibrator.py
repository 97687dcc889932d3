"""Train the research report's answer calibrator (``modules/research/calibrator.json``).

Reads the research runs of :mod:`evals.research_runs` (the offline loop, ``--max-steps 6`` on the
HotpotQA + encyclopedia corpus as ``evals.bench_research``, with a neutral calibrator so no answer
is withheld, on the **train** questions of both question sets, the retired test sets
(:data:`~evals.research_runs.RETIRED`) and the **dev** questions; ``--contexts FILE`` writes or
reads them). Each report's short answer (the answer ranker's pick, :mod:`modules.research.ranking`)
gives a row of its calibration features (:mod:`modules.research.calibration`) and whether it is
right (token F1 >= 0.8 with the gold answer), and as many rows again come from the other
candidates the facts give (a model's answer, when it is not the answerer's, looks like one of
them); a logistic regression is fitted, each question set weighing the same. A training set's
ranker shares come from a ranker fitted without that set, as an unseen question's would. Then the
same on the **dev** questions (the shipped ranker), scored with the fitted weights and reported
per set: how many short answers are kept (confidence >= 0.5), how many trusted (>= 0.8) and how
many of those are right, the expected calibration error, and F1 with withheld answers scored 0;
and each retired set scored by a calibrator fitted without it (``left_out``), the figure for
questions it never saw. The test questions of the two sets and the newest test set are not read.
The thresholds (0.5, 0.8) are fixed by what they mean, not fitted.

Run: ``.venv/bin/python -m evals.train_calibrator [--contexts FILE] [--dry-run] [--rows FILE]
[--from-rows FILE]`` (about 35 minutes when the loop runs; ~10 from kept contexts;
seconds from rows written before). Train the answer ranker first (``evals.train_answer_ranker``).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss

from evals.bench_research import RIGHT_F1
from evals.research_runs import RETIRED, context_of, research_contexts
from evals.train_answer_ranker import fit as fit_ranker
from evals.train_answer_ranker import groups as ranker_groups
from modules.embeddings import LocalEmbedder
from modules.evaluation.nodes import answer_scores
from modules.research.answer import candidates
from modules.research.calibration import (
    CANDIDATES,
    FEATURES,
    TRUSTED,
    WEIGHTS,
    WITHHELD_BELOW,
    AnswerRanker,
    Calibrator,
    answer_features,
)
from modules.research.ranking import WEIGHTS as RANKER_WEIGHTS
from modules.research.ranking import AnswerRankerWeights, shipped_ranker

#: inverse L2 strengths tried; the one with the lowest log loss on the dev questions' short
#: answers is kept (the weights are fitted on train only)
REGULARISATION_C = (0.3, 1.0, 3.0, 10.0, 30.0, 100.0)


def gather(
    runs: list[dict], embedder, ranker_for: Callable[[str], AnswerRankerWeights]
) -> dict[str, list[dict]]:
    """Per question set, one row per run: the report's short answer (the answer ranker's pick
    among the candidates, as the Report baseline gives it) with its features and score, and the
    other candidates the facts give (``candidates``), each with its own: the negatives a model's
    answer resembles when it is not the answerer's. A set's ranker is ``ranker_for(set)``."""
    out: dict[str, list[dict]] = {}
    for run in runs:
        context, ranker = context_of(run), ranker_for(run["set"])
        found = AnswerRanker(embedder, lambda r=ranker: r)(context)
        proposed = found.text if found.complete else ""
        others = [
            c
            for c in candidates(run["question"], context.facts, limit=CANDIDATES + 1)
            if c.lower() != proposed.lower()
        ]
        out.setdefault(run["set"], []).append(
            {
                "qid": run["qid"],
                "short_answer": proposed,
                "gold": run["gold"],
                "f1": _f1(run["gold"], proposed),
                "features": answer_features(proposed, context, embedder, ranker),
                "candidates": [
                    {
                        "answer": c,
                        "f1": _f1(run["gold"], c),
                        "features": answer_features(c, context, embedder, ranker),
                    }
                    for c in others[:CANDIDATES]
                ],
            }
        )
    return out


def _f1(gold: str, short: str) -> float:
    return answer_scores(gold, short)["f1"] if short else 0.0


def _matrix(rows: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    given = [r for r in rows if r["short_answer"]] + [c for r in rows for c in r["candidates"]]
    x = np.array([[r["features"][f] for f in FEATURES] for r in given], dtype=float)
    y = np.array([r["f1"] >= RIGHT_F1 for r in given], dtype=int)
    return x, y


def _likeliest(calibrator: Calibrator, row: dict) -> dict:
    return max([row, *row["candidates"]], key=lambda c: calibrator.probability(c["features"]))


def scored(calibrator: Calibrator, rows: list[dict], bins: int = 10) -> dict:
    """The report's view of ``rows`` under ``calibrator``: kept, trusted, right, ECE, F1."""
    given = [(calibrator.probability(r["features"]), r["f1"]) for r in rows if r["short_answer"]]
    kept = [(p, f1) for p, f1 in given if p >= WITHHELD_BELOW]
    trusted = [f1 >= RIGHT_F1 for p, f1 in kept if p >= TRUSTED]
    ece = 0.0
    for b in range(bins):
        inside = [(p, f1 >= RIGHT_F1) for p, f1 in given if b / bins <= p < (b + 1) / bins]
        if inside:
            gap = abs(np.mean([p for p, _ in inside]) - np.mean([r for _, r in inside]))
            ece += len(inside) / len(given) * gap
    return {
        "questions": len(rows),
        "proposed": len(given),
        "proposed_right": sum(f1 >= RIGHT_F1 for _, f1 in given),
        "kept": len(kept),
        "kept_right": sum(f1 >= RIGHT_F1 for _, f1 in kept),
        "trusted": len(trusted),
        "trusted_right": round(sum(trusted) / len(trusted), 3) if trusted else None,
        "ece": round(float(ece), 3) if given else None,
        "f1_proposed": round(sum(f1 for _, f1 in given) / len(rows), 3),
        # the calibrator as a ranker: the likeliest of the pick and the other candidates
        "f1_likeliest": round(
            sum(_likeliest(calibrator, r)["f1"] for r in rows if r["short_answer"]) / len(rows), 3
        ),
        "f1_kept": round(sum(f1 for _, f1 in kept) / len(rows), 3),
    }


def fitted(train: dict[str, list[dict]], dev_picks: list[dict], choices=REGULARISATION_C):
    """The calibrator fitted on ``train`` (each question set weighing the same: the retired sets
    are 60 questions each, the train parts 20 and 30), with the L2 strength of the lowest log loss
    on ``dev_picks``; and that strength."""
    per_set = [_matrix(rows) for rows in train.values()]
    x = np.concatenate([x for x, _ in per_set])
    y = np.concatenate([y for _, y in per_set])
    w = np.concatenate([np.full(len(y), 1.0 / max(len(y), 1)) for _, y in per_set])
    x_dev, y_dev = _matrix(dev_picks)
    fits = {c: LogisticRegression(C=c, max_iter=3000).fit(x, y, sample_weight=w / w.mean()) for c in choices}
    chosen = min(fits, key=lambda c: log_loss(y_dev, fits[c].predict_proba(x_dev)[:, 1], labels=[0, 1]))
    model = fits[chosen]
    return Calibrator(tuple(float(v) for v in model.coef_[0]), float(model.intercept_[0])), chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="print the weights and the scores only")
    parser.add_argument(
        "--contexts", metavar="FILE", type=Path, help="research runs' contexts (read or written)"
    )
    parser.add_argument("--rows", metavar="FILE", help="also write the train and dev rows as JSON")
    parser.add_argument(
        "--from-rows", metavar="FILE", help="fit on the rows a --rows run wrote (no loop runs)"
    )
    args = parser.parse_args()

    if args.from_rows:
        data = json.loads(Path(args.from_rows).read_text())
        train, dev = data["train"], data["dev"]
    else:
        runs, embedder = research_contexts(args.contexts), LocalEmbedder()
        shipped = shipped_ranker()
        # a training set's answers are ranked by a ranker fitted without it (as an unseen
        # question's are); dev's by the shipped ranker
        all_groups = ranker_groups([r for r in runs if r["part"] != "dev"], embedder)
        l2 = json.loads(RANKER_WEIGHTS.read_text())["trained_on"]["l2"]
        left_out = {
            s: AnswerRankerWeights(tuple(fit_ranker([g for g in all_groups if g["set"] != s], l2)))
            for s in {r["set"] for r in runs if r["part"] != "dev"}
        }
        train = gather([r for r in runs if r["part"] != "dev"], embedder, left_out.__getitem__)
        dev = gather([r for r in runs if r["part"] == "dev"], embedder, lambda _: shipped)
    dev_picks = [{**r, "candidates": []} for rows in dev.values() for r in rows]
    calibrator, chosen = fitted(train, dev_picks)
    # each retired set scored by a calibrator fitted without it: the figure for questions it never saw
    left_out = {
        s: scored(fitted({k: v for k, v in train.items() if k != s}, dev_picks, (chosen,))[0], train[s])
        for s in RETIRED
        if s in train
    }
    x, y = _matrix([r for rows in train.values() for r in rows])
    report = {
        "train": {s: scored(calibrator, rows) for s, rows in train.items()},
        "dev": {s: scored(calibrator, rows) for s, rows in dev.items()},
        "left_out": left_out,
    }
    weights = {
        "features": list(FEATURES),
        "weights": [round(w, 4) for w in calibrator.weights],
        "bias": round(calibrator.bias, 4),
        "trained_on": {
            "rows": int(len(y)),
            "right": int(y.sum()),
            "questions": "the train part (index % 3 == 1) of evals/sets: HotpotQA and research-encyclopedia; "
            "the retired test sets " + ", ".join(RETIRED) + "; each set weighing the same",
            "loop": "offline, --search local, --max-steps 6, the HotpotQA + encyclopedia corpus",
            "regularisation_c": chosen,
            "regularisation_c_tried": list(REGULARISATION_C),
        },
        "scores": report,
    }
    print(json.dumps(weights, indent=2))
    if args.rows:
        Path(args.rows).write_text(json.dumps({"train": train, "dev": dev}, indent=1))
    if not args.dry_run:
        WEIGHTS.write_text(json.dumps(weights, indent=2) + "\n")
        print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
