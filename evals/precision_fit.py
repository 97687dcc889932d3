"""The fit the claim models share (``train_claim_found``, ``train_claim_conflict``).

Each asks one question of a claim the offline checks call missing ("does the answer state it?",
"does it misstate it?"), so each is gradient-boosted trees of one gold verdict (the model's
``label``) over the claim's features, each set weighing the same. Of the sizes and learning rates
tried (:data:`CONFIGS`), the one kept gives the label rightly to the most claims at its threshold.
The trees are written as plain arrays (:mod:`modules.response.boosted` reads them): the runtime
needs no scikit-learn.

Its threshold is chosen for precision on held-out claims: the lowest at which, on every realistic
dev set (``sites-*``) and on the realistic training sets scored out of fold (each by a model fitted
on the others), at least :data:`PRECISION` of the claims the model would give ``label`` have it in
gold. A wrong "found" hides what an answer leaves out, a wrong "contradicted" accuses a right
answer; the dev sets alone hold too few such claims to tell 0.75 from 0.9.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import log_loss, roc_auc_score

from modules.evaluation import load_verdict_rows, verdict_record
from modules.response import ResponseAnalyzer
from modules.response.config import AnalyzerConfig

from .train_flag_confidence import weights_of

SETS = Path(__file__).resolve().parent / "sets"

VERDICTS = ("found", "missing", "contradicted")
#: the trees tried (rounds, learning rate, leaves per tree, fewest rows per leaf)
CONFIGS = (
    (100, 0.05, 15, 20),
    (200, 0.05, 15, 20),
    (300, 0.05, 15, 20),
    (200, 0.05, 7, 40),
    (400, 0.03, 7, 40),
)
THRESHOLDS = tuple(round(0.5 + 0.05 * k, 2) for k in range(10))
#: the share of the claims given the label that must have it in gold, on each realistic dev set and
#: on the realistic training sets out of fold
PRECISION = 0.85


def claims_read(pattern: str, model_off: str, sink: str, reading: str) -> list[dict]:
    """Every claim the analyzer hands to a claim model on the answers of the verdict files
    ``pattern`` names, with the model off (``model_off``: its threshold setting, set to 1.0) and
    its readings collected through the analyzer's ``sink`` (entries: record, claim id, features,
    one more reading, kept under the name ``reading``): set, answer, claim, features, that
    reading, gold verdict."""
    answers, pages = load_verdict_rows(SETS / pattern)
    analyzer = ResponseAnalyzer(AnalyzerConfig.load(None, {model_off: 1.0}))
    gts = analyzer.prepare_ground_truth(pages, {a["domain"] for a in answers})
    records = [verdict_record(a) for a in answers]
    setattr(analyzer, sink, [])
    for _ in analyzer.iter_batch(records, gts):
        pass
    key = lambda r: (r.provider, r.query_id, r.response)  # noqa: E731  (the set, the question, the answer)
    read = {(key(record), cid): (x, more) for record, cid, x, more in getattr(analyzer, sink)}
    rows = []
    for a, record in zip(answers, records):
        for claim in a["claims"]:
            if (key(record), claim["id"]) in read:
                x, more = read[(key(record), claim["id"])]
                gold = a["verdicts"][claim["id"]]
                rows.append(
                    {
                        "set": a["set"],
                        "answer": a["qid"],
                        "claim": claim["text"],
                        "x": x,
                        reading: more,
                        "gold": gold,
                    }
                )
    return rows


def train_and_dev(rows_of: Callable[[str], list[dict]], trained_on) -> tuple[list[dict], list[dict]]:
    """``rows_of`` each verdict file: the train splits and the spent test sets ``trained_on`` to
    train on, the dev splits to choose on."""
    train = rows_of("verdicts-*-train.jsonl")
    for name in trained_on:
        train += rows_of(f"verdicts-{name}-test.jsonl")
    return train, rows_of("verdicts-*-dev.jsonl")


def fit(rows: list[dict], config: tuple, label: str) -> HistGradientBoostingClassifier:
    """Boosted trees of "the gold verdict is ``label``", each set weighing the same
    (deterministic: no early stopping, a fixed seed)."""
    rounds, rate, leaves, per_leaf = config
    X = np.array([r["x"] for r in rows], dtype=float)
    y = np.array([r["gold"] == label for r in rows], dtype=float)
    model = HistGradientBoostingClassifier(
        max_iter=rounds,
        learning_rate=rate,
        max_leaf_nodes=leaves,
        min_samples_leaf=per_leaf,
        l2_regularization=1.0,
        early_stopping=False,
        random_state=0,
    )
    return model.fit(X, y, sample_weight=weights_of(rows))


def predict(fitted: HistGradientBoostingClassifier, rows: list[dict]) -> np.ndarray:
    return fitted.predict_proba(np.array([r["x"] for r in rows], dtype=float))[:, 1]


def trees_of(fitted: HistGradientBoostingClassifier) -> dict:
    """The fitted trees as :class:`modules.response.boosted.BoostedTrees` reads them: the
    baseline score and, per tree, its nodes' split feature (-1 at a leaf), threshold (a row goes
    left at or below it), children and leaf value."""
    trees = []
    for (predictor,) in fitted._predictors:
        nodes = predictor.nodes
        if nodes["is_categorical"].any():
            raise ValueError("categorical splits are not written")
        leaf = nodes["is_leaf"].astype(bool)
        trees.append(
            {
                "feature": np.where(leaf, -1, nodes["feature_idx"]).astype(int).tolist(),
                "threshold": np.where(leaf, 0.0, nodes["num_threshold"]).round(9).tolist(),
                "left": np.where(leaf, 0, nodes["left"]).astype(int).tolist(),
                "right": np.where(leaf, 0, nodes["right"]).astype(int).tolist(),
                "value": np.where(leaf, nodes["value"], 0.0).round(9).tolist(),
            }
        )
    return {"baseline": round(float(np.ravel(fitted._baseline_prediction)[0]), 9), "trees": trees}


def at_threshold(threshold: float, p: np.ndarray, rows: list[dict], label: str) -> dict:
    """The claims given ``label`` at ``threshold``, by their gold verdict."""
    gold = Counter(r["gold"] for q, r in zip(p, rows) if q >= threshold)
    n = sum(gold.values())
    return {
        label: n,
        "right": gold[label],
        **{f"gold_{v}": gold[v] for v in VERDICTS if v != label},
        "precision": round(gold[label] / n, 3) if n else None,
    }


def _auc(ys: np.ndarray, ps: np.ndarray) -> float | None:
    """None without both kinds of claim."""
    return round(float(roc_auc_score(ys, ps)), 3) if 0 < ys.sum() < len(ys) else None


def _per_set(rows: list[dict], p: np.ndarray, threshold: float, label: str) -> dict[str, dict]:
    out = {}
    for name in sorted({r["set"] for r in rows}):
        idx = [i for i, r in enumerate(rows) if r["set"] == name]
        ys = np.array([rows[i]["gold"] == label for i in idx], dtype=float)
        out[name] = {
            "rows": len(idx),
            f"gold_{label}": int(ys.sum()),
            "auc": _auc(ys, p[idx]),
            "at_threshold": at_threshold(threshold, p[idx], [rows[i] for i in idx], label),
        }
    return out


def _holds(figures: dict) -> bool:
    return figures["precision"] is None or figures["precision"] >= PRECISION


def _line(name: str, measured: dict, label: str) -> str:
    m = measured["at_threshold"]
    others = " / ".join(str(m[f"gold_{v}"]) for v in VERDICTS if v != label)
    auc = "-" if measured["auc"] is None else f"{measured['auc']:.3f}"
    return (
        f"  {name:14s} rows {measured['rows']:4d}, gold {label} {measured[f'gold_{label}']:4d}, AUC {auc:>5s}; "
        f"{label} at the threshold {m[label]} ({m['right']} right / {others})"
    )


def _out_of_fold(train: list[dict], config: tuple, label: str) -> tuple[np.ndarray, list[dict]]:
    """Each realistic training set scored by a model fitted on the others."""
    held_p, held_rows = [], []
    for name in sorted({r["set"] for r in train if r["set"].startswith("sites-")}):
        inside = [r for r in train if r["set"] == name]
        held_p += list(predict(fit([r for r in train if r["set"] != name], config, label), inside))
        held_rows += inside
    return np.array(held_p), held_rows


def precision_fit(train: list[dict], dev: list[dict], label: str) -> dict:
    """Fit each of :data:`CONFIGS`, give each its threshold for precision, keep the one that
    gives ``label`` rightly to the most realistic training claims out of fold; print and return
    the figures: the fitted model (``fitted``), its ``config``, ``threshold``, the realistic dev
    sets, per-set ``dev`` and ``out_of_fold`` figures."""
    yd = np.array([r["gold"] == label for r in dev], dtype=float)
    realistic = sorted({r["set"] for r in dev if r["set"].startswith("sites-")})
    print(
        f"{len(train)} train claims ({int(sum(r['gold'] == label for r in train))} {label} in gold); dev {len(dev)} ({int(yd.sum())})"
    )
    tried = []
    for config in CONFIGS:
        fitted = fit(train, config, label)
        p_dev = predict(fitted, dev)
        held_p, held_rows = _out_of_fold(train, config, label)
        realistic_dev = [
            (p_dev[[i for i, r in enumerate(dev) if r["set"] == n]], [r for r in dev if r["set"] == n])
            for n in realistic
        ]

        def holds(t: float, held_p=held_p, held_rows=held_rows, realistic_dev=realistic_dev) -> bool:
            return all(_holds(at_threshold(t, p, rows, label)) for p, rows in realistic_dev) and _holds(
                at_threshold(t, held_p, held_rows, label)
            )

        threshold = min((t for t in THRESHOLDS if holds(t)), default=1.0)
        total = at_threshold(threshold, held_p, held_rows, label)
        loss = log_loss(yd, p_dev, labels=[0, 1])
        print(
            f"config {config} (rounds, rate, leaves, rows per leaf): dev log loss {loss:.3f}; threshold "
            f"{threshold}; out of fold {total[label]} {label}, {total['right']} right"
        )
        tried.append((total["right"], -loss, config, fitted, p_dev, held_p, held_rows, threshold))
    _, _, config, fitted, p_dev, held_p, held_rows, threshold = max(tried, key=lambda t: t[:2])
    print(
        f"kept {config}, threshold {threshold}: the lowest at which each realistic dev set's {label} "
        f"claims, and the realistic training sets' out of fold, are >= {PRECISION} right"
    )
    measured = _per_set(dev, p_dev, threshold, label)
    print("dev:")
    for name, figures in measured.items():
        print(_line(name, figures, label))
    out_of_fold = _per_set(held_rows, held_p, threshold, label)
    print("out of fold (each realistic training set scored by a model fitted on the others):")
    for name, figures in out_of_fold.items():
        print(_line(name, figures, label))
    total = at_threshold(threshold, held_p, held_rows, label)
    print(
        f"  all: {total[label]} {label}, {total['right']} right ({total['right'] / max(total[label], 1):.3f})"
    )
    return {
        "fitted": fitted,
        "config": config,
        "threshold": threshold,
        "realistic": realistic,
        "dev": measured,
        "out_of_fold": out_of_fold,
    }


def spec_of(result: dict, version: str, features, label: str, trained_on: str) -> dict:
    """The model file the runtime reads: trees, threshold and how they were chosen."""
    rounds, rate, leaves, per_leaf = result["config"]
    return {
        "version": version,
        "features": list(features),
        "model": "gradient-boosted trees (scikit-learn HistGradientBoostingClassifier, written as arrays)",
        "config": {
            "rounds": rounds,
            "learning_rate": rate,
            "max_leaf_nodes": leaves,
            "min_samples_leaf": per_leaf,
        },
        "threshold": result["threshold"],
        "threshold_chosen": f"the lowest at which each realistic dev set ({', '.join(result['realistic'])}) and "
        f"the realistic training sets out of fold have >= {PRECISION} of the claims {label} right",
        "trained_on": trained_on,
        "dev": result["dev"],
        "out_of_fold": result["out_of_fold"],
        **trees_of(result["fitted"]),
    }


def train_main(
    doc: str,
    read_rows: Callable[[], tuple[list[dict], list[dict]]],
    label: str,
    version: str,
    features,
    trained_on: Callable[[list[dict]], str],
    weights: Path,
) -> None:
    """A trainer's command line: read the train and dev rows (or load them, ``--from-rows``), keep
    them (``--save-rows``), fit, and write the model unless ``--dry-run``. ``trained_on`` says in
    words what the train rows are."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="report, do not write the weights")
    parser.add_argument("--save-rows", help="also write the rows (train and dev) to this JSON file")
    parser.add_argument("--from-rows", help="fit on rows written by --save-rows (seconds, not minutes)")
    args = parser.parse_args()
    if args.from_rows:
        saved = json.loads(Path(args.from_rows).read_text())
        train, dev = saved["train"], saved["dev"]
    else:
        train, dev = read_rows()
    if args.save_rows:
        Path(args.save_rows).write_text(json.dumps({"train": train, "dev": dev}))
    result = precision_fit(train, dev, label)
    if args.dry_run:
        return
    spec = spec_of(result, version, features, label, trained_on(train))
    weights.write_text(json.dumps(spec, indent=2) + "\n")
    print(f"wrote {weights}")
