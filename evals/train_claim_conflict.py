"""Train the claim-conflict model and its threshold (``modules/response/checker/claim-conflict.json``).

Analyses the **train** answers of every verdict set and the retired and spent test sets
(:data:`TRAINED_ON`; never the current frozen test), with the model off, and gives each claim the
offline checks call missing, where a window of the answer states one of its values otherwise, a
row of :func:`modules.response.claim_conflict.conflict_features` and its gold verdict. A logistic
regression of "the gold verdict is contradicted", each set weighing the same, its inverse L2
strength the one with the lowest log loss on the **dev** rows.

The threshold is chosen for precision on held-out claims: the lowest at which, on every realistic
dev set (``sites-*``) and on the realistic training sets scored out of fold (each by a model fitted
on the others), at least :data:`PRECISION` of the claims the model would contradict are
contradicted in gold (a claim wrongly contradicted accuses a right answer).

Run: ``.venv/bin/python -m evals.train_claim_conflict [--dry-run]`` (about 3 minutes).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import numpy as np
from sklearn.metrics import log_loss, roc_auc_score

from modules.evaluation import load_verdict_rows, verdict_record
from modules.response import ResponseAnalyzer
from modules.response.claim_conflict import FEATURES, WEIGHTS
from modules.response.config import AnalyzerConfig

from .train_claim_found import fit, predict
from .train_flag_confidence import RETIRED

SETS = Path(__file__).resolve().parent / "sets"
VERSION = "claim-conflict-1"
#: the frozen test sets given to training once run (sites-s to -w: spent 2026-12-06)
TRAINED_ON = RETIRED[: RETIRED.index("sites-w") + 1]
REGULARISATION_C = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
THRESHOLDS = tuple(round(0.5 + 0.05 * k, 2) for k in range(10))
#: the share of the claims the model contradicts that must be contradicted in gold, on each
#: realistic dev set and on the realistic training sets out of fold
PRECISION = 0.85
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


def promoted(threshold: float, p: np.ndarray, rows: list[dict]) -> dict:
    """The claims contradicted at ``threshold``, by their gold verdict."""
    gold = Counter(r["gold"] for q, r in zip(p, rows) if q >= threshold)
    n = sum(gold.values())
    return {
        "contradicted": n,
        "right": gold[LABEL],
        "gold_missing": gold["missing"],
        "gold_found": gold["found"],
        "precision": round(gold[LABEL] / n, 3) if n else None,
    }


def _auc(ys: np.ndarray, ps: np.ndarray) -> float | None:
    return round(float(roc_auc_score(ys, ps)), 3) if 0 < ys.sum() < len(ys) else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="report, do not write the weights")
    parser.add_argument("--save-rows", help="also write the rows (train and dev) to this JSON file")
    parser.add_argument("--from-rows", help="fit on rows written by --save-rows (seconds, not minutes)")
    args = parser.parse_args()
    if args.from_rows:
        saved = json.loads(Path(args.from_rows).read_text())
        train, dev = saved["train"], saved["dev"]
    else:
        train = conflict_rows("verdicts-*-train.jsonl")
        for name in TRAINED_ON:
            train += conflict_rows(f"verdicts-{name}-test.jsonl")
        dev = conflict_rows("verdicts-*-dev.jsonl")
    if args.save_rows:
        Path(args.save_rows).write_text(json.dumps({"train": train, "dev": dev}))
    yd = np.array([r["gold"] == LABEL for r in dev], dtype=float)
    fits = {c: fit(train, c, LABEL) for c in REGULARISATION_C}
    losses = {c: log_loss(yd, predict(fits[c], dev), labels=[0, 1]) for c in REGULARISATION_C}
    best_c = min(losses, key=losses.get)
    model, mean, scale = fitted = fits[best_c]
    print(
        f"{len(train)} train claims called missing with a value stated otherwise "
        f"({sum(r['gold'] == LABEL for r in train)} contradicted in gold); dev {len(dev)} ({int(yd.sum())})"
    )
    print("dev log loss per C: " + ", ".join(f"{c}: {losses[c]:.3f}" for c in REGULARISATION_C))
    print(f"kept C = {best_c}")
    p_dev = predict(fitted, dev)
    realistic = sorted({r["set"] for r in dev if r["set"].startswith("sites-")})
    per_set = {n: [i for i, r in enumerate(dev) if r["set"] == n] for n in sorted({r["set"] for r in dev})}

    def holds(t: float) -> bool:
        for n in realistic:
            m = promoted(t, p_dev[per_set[n]], [dev[i] for i in per_set[n]])
            if m["contradicted"] and m["right"] < PRECISION * m["contradicted"]:
                return False
        return True

    # out of fold: each realistic training set scored by a model fitted on the others
    held_out: list[tuple[float, dict]] = []
    for name in sorted({r["set"] for r in train if r["set"].startswith("sites-")}):
        inside = [r for r in train if r["set"] == name]
        outside = [r for r in train if r["set"] != name]
        held_out += list(zip(predict(fit(outside, best_c, LABEL), inside), inside))

    def holds_out_of_fold(t: float) -> bool:
        m = promoted(t, np.array([q for q, _ in held_out]), [r for _, r in held_out])
        return not m["contradicted"] or m["right"] >= PRECISION * m["contradicted"]

    threshold = min((t for t in THRESHOLDS if holds(t) and holds_out_of_fold(t)), default=1.0)
    print(
        f"threshold {threshold}: the lowest at which each realistic dev set's contradicted claims, and "
        f"the realistic training sets' out of fold, are >= {PRECISION} right"
    )
    measured = {}
    print(
        f"{'set (dev)':14s} {'rows':>5s} {'gold contr.':>11s} {'AUC':>6s}   contradicted at the threshold (right / gold missing / gold found)"
    )
    for name, idx in per_set.items():
        ys, ps = yd[idx], p_dev[idx]
        m = promoted(threshold, ps, [dev[i] for i in idx])
        measured[name] = {
            "rows": len(idx),
            "gold_contradicted": int(ys.sum()),
            "auc": _auc(ys, ps),
            "at_threshold": m,
        }
        print(
            f"{name:14s} {len(idx):5d} {int(ys.sum()):11d} {measured[name]['auc'] or float('nan'):6.3f}   "
            f"{m['contradicted']} ({m['right']} / {m['gold_missing']} / {m['gold_found']})"
        )
    out_of_fold = {}
    print("out of fold (each realistic training set scored by a model fitted on the others):")
    for name in sorted({r["set"] for _, r in held_out}):
        inside = [r for _, r in held_out if r["set"] == name]
        ps = np.array([q for q, r in held_out if r["set"] == name])
        ys = np.array([r["gold"] == LABEL for r in inside], dtype=float)
        m = promoted(threshold, ps, inside)
        out_of_fold[name] = {
            "rows": len(inside),
            "gold_contradicted": int(ys.sum()),
            "auc": _auc(ys, ps),
            "at_threshold": m,
        }
        print(
            f"  {name:12s} rows {len(inside):3d}, gold contradicted {int(ys.sum()):3d}, AUC {out_of_fold[name]['auc']}; "
            f"contradicted {m['contradicted']} ({m['right']} / {m['gold_missing']} / {m['gold_found']})"
        )
    total = Counter()
    for v in out_of_fold.values():
        total.update({k: v["at_threshold"][k] for k in ("contradicted", "right")})
    print(
        f"  all: {total['contradicted']} contradicted, {total['right']} right "
        f"({total['right'] / max(total['contradicted'], 1):.3f})"
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
        f"realistic training sets out of fold have >= {PRECISION} of the claims contradicted right",
        "trained_on": f"the claims the checks call missing that a window states a value of otherwise, on "
        f"the verdict sets' train splits and the test sets {', '.join(TRAINED_ON)}: {len(train)} claims, "
        f"{sum(r['gold'] == LABEL for r in train)} contradicted in gold; each set weighs the same",
        "dev": measured,
        "out_of_fold": out_of_fold,
    }
    WEIGHTS.write_text(json.dumps(spec, indent=2) + "\n")
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
