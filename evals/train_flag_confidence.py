"""Train the wrong facts' confidence (``modules/response/checker/flag-confidence.json``).

Analyses the **train** answers of every verdict set with the rules' own confidences
(``feedback.calibrated_confidence`` off) and gives each wrong fact flagged a row of
:func:`modules.response.flag_confidence.flag_features` and whether a gold wrong-fact span is
there. A logistic regression is fitted with each set weighing the same in all (the encyclopedia's
many perturbations do not drown the sites). The inverse L2 strength is the one with the lowest log
loss on the **dev** answers' flags; then, per dev set, the expected calibration error and the AUC
of the rules' figures and of the model's are reported. The test splits are not read.

Run: ``.venv/bin/python -m evals.train_flag_confidence [--dry-run]`` (about 3 minutes).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss, roc_auc_score

from modules.evaluation import load_verdict_rows, verdict_record
from modules.response import ResponseAnalyzer
from modules.response.config import AnalyzerConfig
from modules.response.flag_confidence import FEATURES, WEIGHTS, flag_features

SETS = Path(__file__).resolve().parent / "sets"
VERSION = "flag-confidence-1"
REGULARISATION_C = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)


def flags(split: str) -> list[dict]:
    """Every wrong fact the offline checks flag on ``split``'s answers: set, features, right."""
    answers, pages = load_verdict_rows(SETS / f"verdicts-*-{split}.jsonl")
    analyzer = ResponseAnalyzer(AnalyzerConfig.load(None, {"feedback.calibrated_confidence": False}))
    gts = analyzer.prepare_ground_truth(pages, {a["domain"] for a in answers})
    records = [verdict_record(a) for a in answers]
    rows = []
    for a, result in zip(answers, analyzer.iter_batch(records, gts)):
        gold = [(w["start"], w["end"]) for w in a.get("wrong_facts") or []]
        found = result.feedback.contradictions
        for c in found:
            start, end = c.position.start, c.position.end
            rows.append(
                {
                    "set": a["set"],
                    "x": flag_features(c, a["response"], len(found)),
                    "rule": c.confidence,
                    "right": any(start < ge and gs < end for gs, ge in gold),
                }
            )
    return rows


def ece(p: np.ndarray, y: np.ndarray, bins: int = 10) -> float:
    """Expected calibration error over ``bins`` equal-width bins."""
    at = np.minimum((p * bins).astype(int), bins - 1)
    return float(sum(abs(p[at == b].mean() - y[at == b].mean()) * (at == b).sum() for b in set(at)) / len(p))


def weights_of(rows: list[dict]) -> np.ndarray:
    """Each set weighs the same in all."""
    per_set = defaultdict(int)
    for r in rows:
        per_set[r["set"]] += 1
    return np.array([len(rows) / (len(per_set) * per_set[r["set"]]) for r in rows])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="report, do not write the weights")
    args = parser.parse_args()
    train, dev = flags("train"), flags("dev")
    X, y = np.array([r["x"] for r in train]), np.array([r["right"] for r in train], dtype=float)
    Xd, yd = np.array([r["x"] for r in dev]), np.array([r["right"] for r in dev], dtype=float)
    mean, scale = X.mean(axis=0), X.std(axis=0)
    scale[scale == 0] = 1.0
    fits = {}
    for c in REGULARISATION_C:
        model = LogisticRegression(C=c, max_iter=2000).fit(
            (X - mean) / scale, y, sample_weight=weights_of(train)
        )
        fits[c] = (log_loss(yd, model.predict_proba((Xd - mean) / scale)[:, 1], labels=[0, 1]), model)
    best_c = min(fits, key=lambda c: fits[c][0])
    model = fits[best_c][1]
    print(f"{len(train)} train flags ({int(y.sum())} right), {len(dev)} dev flags ({int(yd.sum())} right)")
    print("dev log loss per C: " + ", ".join(f"{c}: {fits[c][0]:.3f}" for c in REGULARISATION_C))
    print(f"kept C = {best_c}")
    p_dev = model.predict_proba((Xd - mean) / scale)[:, 1]
    measured = {}
    print(
        f"{'set (dev)':14s} {'flags':>5s} {'right':>5s} {'rules: mean':>11s} {'ECE':>6s} {'AUC':>6s}   {'model: mean':>11s} {'ECE':>6s} {'AUC':>6s}"
    )
    for name in sorted({r["set"] for r in dev}):
        idx = [i for i, r in enumerate(dev) if r["set"] == name]
        ys, rule, mine = yd[idx], np.array([dev[i]["rule"] for i in idx]), p_dev[idx]

        def auc(scores: np.ndarray, ys: np.ndarray = ys) -> float:
            return float(roc_auc_score(ys, scores)) if 0 < ys.sum() < len(ys) else float("nan")

        measured[name] = {
            "flags": len(idx),
            "right": int(ys.sum()),
            "rules": {
                "mean": round(float(rule.mean()), 3),
                "ece": round(ece(rule, ys), 3),
                "auc": round(auc(rule), 3),
            },
            "model": {
                "mean": round(float(mine.mean()), 3),
                "ece": round(ece(mine, ys), 3),
                "auc": round(auc(mine), 3),
            },
        }
        m = measured[name]
        print(
            f"{name:14s} {m['flags']:5d} {m['right']:5d} {m['rules']['mean']:11.3f} {m['rules']['ece']:6.3f} {m['rules']['auc']:6.3f}"
            f"   {m['model']['mean']:11.3f} {m['model']['ece']:6.3f} {m['model']['auc']:6.3f}"
        )
    if args.dry_run:
        return
    spec = {
        "version": VERSION,
        "features": list(FEATURES),
        "mean": mean.round(6).tolist(),
        "scale": scale.round(6).tolist(),
        "weights": model.coef_[0].round(6).tolist(),
        "bias": round(float(model.intercept_[0]), 6),
        "C": best_c,
        "trained_on": f"the rules' wrong facts on the verdict sets' train splits: {len(train)} flags, "
        f"{int(y.sum())} right; each set weighs the same",
        "dev": measured,
    }
    WEIGHTS.write_text(json.dumps(spec, indent=2) + "\n")
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
