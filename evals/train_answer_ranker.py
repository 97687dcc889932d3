"""Train the research answer ranker (``modules/research/answer_ranker.json``).

Reads the research runs of :mod:`evals.research_runs` (the offline loop on the **train**
questions of both question sets, the retired test sets and the **dev** questions: each run's
facts and the offline answerer's pick; ``--contexts FILE`` writes them, or reads them when the
file exists: the loop takes ~21 minutes, the fit ~5). Each wh-question (not yes/no, not a choice) whose candidates hold the gold answer
(token F1 >= 0.8) is one training group: the candidates' :data:`~modules.research.ranking.FEATURES`
and a softmax over them, fitted to the right ones (L2-regularised, each question set weighing
the same). The L2 strength is chosen on dev (mean F1 of the top candidate); the report gives,
per set, the answerer's pick, the ranker's and the best any candidate reaches, dev and each
retired set scored by a ranker fitted without it (``left_out``). The test questions of the two
sets and the newest test set are not read.

Run: ``.venv/bin/python -m evals.train_answer_ranker [--contexts FILE] [--dry-run]``
"""

from __future__ import annotations

import argparse
import json
from datetime import date
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from evals.research_runs import RETIRED, SOURCES, context_of, research_contexts
from modules.embeddings import LocalEmbedder
from modules.evaluation.nodes import answer_scores
from modules.research.question import read_question
from modules.research.ranking import FEATURES, WEIGHTS, candidate_features

VERSION = "answer-ranker-3"
RIGHT = 0.8  # token F1 at which a candidate is the answer (as the calibrator's rows)
L2 = (0.1, 0.3, 1.0, 3.0, 10.0)


def groups(rows: list[dict], embedder) -> list[dict]:
    """One group per wh-question: its candidates' feature matrix and each candidate's F1."""
    out = []
    for row in rows:
        if read_question(row["question"]).kind in ("yes_no", "choice"):
            continue
        context = context_of(row)
        listed = candidate_features(row["question"], context.facts, context.found, embedder)
        out.append(
            {
                "set": row["set"],
                "part": row["part"],
                "x": np.array([[x[n] for n in FEATURES] for _, x in listed]).reshape(-1, len(FEATURES)),
                "f1": np.array([answer_scores(row["gold"], c)["f1"] for c, _ in listed]),
                "pick": np.array([x["pick"] for _, x in listed]),
            }
        )
    return out


def fit(train: list[dict], l2: float) -> np.ndarray:
    """Weights minimising the softmax loss of the right candidates, each set weighing the same."""
    usable = [g for g in train if len(g["f1"]) and g["f1"].max() >= RIGHT]
    per_set: dict[str, int] = {}
    for g in usable:
        per_set[g["set"]] = per_set.get(g["set"], 0) + 1

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        total, grad = 0.5 * l2 * w @ w, l2 * w
        for g in usable:
            s = g["x"] @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            target = (g["f1"] >= RIGHT).astype(float)
            target /= target.sum()
            weight = 100.0 / per_set[g["set"]]
            total -= weight * target @ np.log(p + 1e-12)
            grad = grad - weight * g["x"].T @ (target - p)
        return total, grad

    return minimize(loss, np.zeros(len(FEATURES)), jac=True, method="L-BFGS-B").x


def scored(groups_: list[dict], w: np.ndarray) -> dict:
    """Mean F1 (a question without candidates scores 0) of the answerer's pick, the ranker's top
    candidate and the best candidate, over the set's wh-questions."""
    n = max(len(groups_), 1)
    ranker = sum(g["f1"][int(np.argmax(g["x"] @ w))] for g in groups_ if len(g["f1"]))
    pick = sum(float(g["f1"] @ g["pick"]) for g in groups_ if len(g["f1"]))
    best = sum(g["f1"].max() for g in groups_ if len(g["f1"]))
    return {
        "questions": len(groups_),
        "pick_f1": round(pick / n, 3),
        "ranker_f1": round(ranker / n, 3),
        "best_candidate_f1": round(best / n, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--contexts", metavar="FILE", type=Path, help="research runs' facts (read or written)"
    )
    parser.add_argument("--dry-run", action="store_true", help="print the weights and the scores only")
    args = parser.parse_args()

    embedder = LocalEmbedder()
    all_groups = groups(research_contexts(args.contexts), embedder)
    train = [g for g in all_groups if g["part"] != "dev"]
    dev_sets = {s: [g for g in all_groups if g["part"] == "dev" and g["set"] == s] for s in SOURCES}
    by_l2 = {l2: fit(train, l2) for l2 in L2}
    chosen = max(L2, key=lambda l2: np.mean([scored(d, by_l2[l2])["ranker_f1"] for d in dev_sets.values()]))
    weights = by_l2[chosen]
    train_sets = sorted({g["set"] for g in train})
    left_out = {
        s: scored([g for g in train if g["set"] == s], fit([g for g in train if g["set"] != s], chosen))
        for s in train_sets
    }
    card = {
        "version": VERSION,
        "features": list(FEATURES),
        "weights": [round(float(v), 4) for v in weights],
        "trained_on": {
            "questions": "the wh-questions of the train part (index % 3 == 1) of evals/sets (HotpotQA and "
            "research-encyclopedia) and of the retired test sets "
            + ", ".join(RETIRED)
            + "; each set weighing "
            "the same; a question counts where a candidate is right (token F1 >= 0.8)",
            "groups": len(train),
            "loop": "offline, --search local, --max-steps 6, the HotpotQA + encyclopedia corpus",
            "l2": chosen,
            "l2_tried": list(L2),
            "date": date.today().isoformat(),
        },
        "scores": {
            "dev": {s: scored(d, weights) for s, d in dev_sets.items()},
            "dev_by_l2": {
                str(l2): {s: scored(d, w)["ranker_f1"] for s, d in dev_sets.items()}
                for l2, w in by_l2.items()
            },
            "left_out": left_out,
        },
    }
    print(json.dumps(card, indent=2))
    if not args.dry_run:
        WEIGHTS.write_text(json.dumps(card, indent=2) + "\n")
        print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
