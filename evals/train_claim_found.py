"""Train the claim-found model and its threshold (``modules/response/checker/claim-found.json``).

Analyses the **train** answers of every verdict set and the retired and spent test sets
(:data:`TRAINED_ON`; never the current frozen test), with the model off, and gives each claim the
offline checks call missing a row of :func:`modules.response.claim_found.claim_features` and its
gold verdict. The model is asked only where the checks prove nothing against the claim (no value
stated otherwise, no other polarity) and the claim has words of its own, so only those rows are
fitted: a logistic regression of
"the gold verdict is found", each set weighing the same, its inverse L2 strength the one with the
lowest log loss on the **dev** rows.

The threshold is chosen for precision on held-out claims: the lowest at which, on every realistic
dev set (``sites-*``) and on the realistic training sets scored out of fold (each by a model fitted
on the others), at least :data:`PRECISION` of the claims the model would find are found in gold (a
claim wrongly found hides what an answer leaves out; the dev sets alone hold too few such claims
to tell 0.75 from 0.9).

Run: ``.venv/bin/python -m evals.train_claim_found [--dry-run]`` (about 2 minutes).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss, roc_auc_score

from modules.evaluation import load_verdict_rows, verdict_record
from modules.response import ResponseAnalyzer
from modules.response.claim_found import FEATURES, WEIGHTS
from modules.response.config import AnalyzerConfig

from .train_flag_confidence import RETIRED, weights_of

SETS = Path(__file__).resolve().parent / "sets"
VERSION = "claim-found-2"
#: the frozen test sets given to training once run (sites-s, sites-t: spent 2026-12-06)
TRAINED_ON = RETIRED[: RETIRED.index("sites-t") + 1]
REGULARISATION_C = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
THRESHOLDS = tuple(round(0.5 + 0.05 * k, 2) for k in range(10))
#: the share of the claims the model finds that must be found in gold, on each realistic dev set
#: and on the realistic training sets out of fold
PRECISION = 0.85


def claim_rows(pattern: str) -> list[dict]:
    """Every claim the offline checks call missing on the answers of the verdict files
    ``pattern`` names: set, answer, features, whether the model is barred from it, gold verdict."""
    answers, pages = load_verdict_rows(SETS / pattern)
    analyzer = ResponseAnalyzer(AnalyzerConfig.load(None, {"feedback.min_claim_found": 1.0}))
    gts = analyzer.prepare_ground_truth(pages, {a["domain"] for a in answers})
    records = [verdict_record(a) for a in answers]
    analyzer.claim_rows_sink = []
    for _ in analyzer.iter_batch(records, gts):
        pass
    key = lambda r: (r.provider, r.query_id, r.response)  # noqa: E731  (the set, the question, the answer)
    read = {(key(record), cid): (x, barred) for record, cid, x, barred in analyzer.claim_rows_sink}
    rows = []
    for a, record in zip(answers, records):
        for claim in a["claims"]:
            if (key(record), claim["id"]) in read:
                x, barred = read[(key(record), claim["id"])]
                rows.append(
                    {
                        "set": a["set"],
                        "answer": a["qid"],
                        "x": x,
                        "barred": barred,
                        "gold": a["verdicts"][claim["id"]],
                    }
                )
    return rows


def fit(rows: list[dict], c: float, label: str = "found"):
    """A logistic regression of "the gold verdict is ``label``" on standardised features."""
    X = np.array([r["x"] for r in rows], dtype=float)
    y = np.array([r["gold"] == label for r in rows], dtype=float)
    mean, scale = X.mean(axis=0), X.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=c, max_iter=3000).fit((X - mean) / scale, y, sample_weight=weights_of(rows))
    return model, mean, scale


def predict(fitted, rows: list[dict]) -> np.ndarray:
    model, mean, scale = fitted
    return model.predict_proba((np.array([r["x"] for r in rows], dtype=float) - mean) / scale)[:, 1]


def promoted(threshold: float, p: np.ndarray, rows: list[dict]) -> dict:
    """The claims found at ``threshold``, by their gold verdict."""
    gold = Counter(r["gold"] for q, r in zip(p, rows) if q >= threshold)
    n = sum(gold.values())
    return {
        "found": n,
        "right": gold["found"],
        "gold_missing": gold["missing"],
        "gold_contradicted": gold["contradicted"],
        "precision": round(gold["found"] / n, 3) if n else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="report, do not write the weights")
    args = parser.parse_args()
    every = claim_rows("verdicts-*-train.jsonl")
    for name in TRAINED_ON:
        every += claim_rows(f"verdicts-{name}-test.jsonl")
    every_dev = claim_rows("verdicts-*-dev.jsonl")
    train = [r for r in every if not r["barred"]]
    dev = [r for r in every_dev if not r["barred"]]
    yd = np.array([r["gold"] == "found" for r in dev], dtype=float)
    fits = {c: fit(train, c) for c in REGULARISATION_C}
    losses = {c: log_loss(yd, predict(fits[c], dev), labels=[0, 1]) for c in REGULARISATION_C}
    best_c = min(losses, key=losses.get)
    model, mean, scale = fitted = fits[best_c]
    print(
        f"{len(every)} train claims called missing, {len(train)} the model is asked about "
        f"({sum(r['gold'] == 'found' for r in train)} found in gold); dev {len(every_dev)}, {len(dev)}"
    )
    print("dev log loss per C: " + ", ".join(f"{c}: {losses[c]:.3f}" for c in REGULARISATION_C))
    print(f"kept C = {best_c}")
    p_dev = predict(fitted, dev)
    realistic = sorted({r["set"] for r in dev if r["set"].startswith("sites-")})
    per_set = {n: [i for i, r in enumerate(dev) if r["set"] == n] for n in sorted({r["set"] for r in dev})}

    def holds(t: float) -> bool:
        for n in realistic:
            m = promoted(t, p_dev[per_set[n]], [dev[i] for i in per_set[n]])
            if m["found"] and m["right"] < PRECISION * m["found"]:
                return False
        return True

    # out of fold: each realistic training set scored by a model fitted on the others
    held_out: list[tuple[float, dict]] = []
    for name in sorted({r["set"] for r in train if r["set"].startswith("sites-")}):
        inside = [r for r in train if r["set"] == name]
        held_out += list(zip(predict(fit([r for r in train if r["set"] != name], best_c), inside), inside))

    def holds_out_of_fold(t: float) -> bool:
        m = promoted(t, np.array([q for q, _ in held_out]), [r for _, r in held_out])
        return not m["found"] or m["right"] >= PRECISION * m["found"]

    threshold = min((t for t in THRESHOLDS if holds(t) and holds_out_of_fold(t)), default=1.0)
    print(
        f"threshold {threshold}: the lowest at which each realistic dev set's found claims, and the "
        f"realistic training sets' out of fold, are >= {PRECISION} right"
    )
    measured = {}
    print(
        f"{'set (dev)':14s} {'rows':>5s} {'gold found':>10s} {'AUC':>6s}   found at the threshold (right / gold missing / gold contradicted)"
    )
    for name, idx in per_set.items():
        ys, ps = yd[idx], p_dev[idx]
        auc = float(roc_auc_score(ys, ps)) if 0 < ys.sum() < len(ys) else float("nan")
        m = promoted(threshold, ps, [dev[i] for i in idx])
        measured[name] = {
            "rows": len(idx),
            "gold_found": int(ys.sum()),
            "auc": None if np.isnan(auc) else round(auc, 3),  # none without both kinds
            "at_threshold": m,
        }
        print(
            f"{name:14s} {len(idx):5d} {int(ys.sum()):10d} {auc:6.3f}   "
            f"{m['found']} ({m['right']} / {m['gold_missing']} / {m['gold_contradicted']})"
        )
    out_of_fold = {}
    print("out of fold (each realistic training set scored by a model fitted on the others):")
    for name in sorted({r["set"] for _, r in held_out}):
        inside = [r for _, r in held_out if r["set"] == name]
        ps = np.array([q for q, r in held_out if r["set"] == name])
        ys = np.array([r["gold"] == "found" for r in inside], dtype=float)
        m = promoted(threshold, ps, inside)
        out_of_fold[name] = {"auc": round(float(roc_auc_score(ys, ps)), 3), "at_threshold": m}
        print(
            f"  {name:12s} AUC {out_of_fold[name]['auc']:.3f}; found {m['found']} "
            f"({m['right']} / {m['gold_missing']} / {m['gold_contradicted']})"
        )
    total = Counter()
    for v in out_of_fold.values():
        total.update({k: v["at_threshold"][k] for k in ("found", "right")})
    print(
        f"  all: {total['found']} found, {total['right']} right ({total['right'] / max(total['found'], 1):.3f})"
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
        "threshold": threshold,
        "threshold_chosen": f"the lowest at which each realistic dev set ({', '.join(realistic)}) and the "
        f"realistic training sets out of fold have >= {PRECISION} of the claims found right",
        "trained_on": f"the claims the checks call missing that the model is asked about, on the verdict "
        f"sets' train splits and the test sets {', '.join(TRAINED_ON)}: {len(train)} claims, "
        f"{sum(r['gold'] == 'found' for r in train)} found in gold; each set weighs the same",
        "dev": measured,
        "out_of_fold": out_of_fold,
    }
    WEIGHTS.write_text(json.dumps(spec, indent=2) + "\n")
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
