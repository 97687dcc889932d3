"""Does accuracy_score separate right answers from wrong ones? (TruthfulQA, offline)

Expected answer = a question's Best Answer; responses = each Correct Answer (label 1) and each
Incorrect Answer (label 0). Prints ROC AUC overall and mean per question for the analyzer's
accuracy_score, for the seed's plain-cosine score, and for plain MiniLM cosine of the whole
answer as the baseline; then the same on even and odd questions separately, since the
calibrated score's three weights were chosen on this file.

    .venv/bin/python -m evals.accuracy_eval [--csv PATH]
"""

from __future__ import annotations

import argparse
import csv
import os
from pathlib import Path

import numpy as np

from evals.metrics import mean_group_auc, roc_auc
from modules.response import AIResponse, AnalyzerConfig, ResponseAnalyzer, StoredPage

DEFAULT_CSV = (
    Path(__file__).resolve().parents[1].parent / "shared" / "data" / "truthfulqa" / "truthfulqa-half-a.csv"
)
DOMAIN = "truthfulqa.eval"


def load(path: Path) -> tuple[list[AIResponse], list[int], list[StoredPage]]:
    records, labels, pages = [], [], []
    with open(path, newline="", encoding="utf-8") as f:
        for qi, row in enumerate(csv.DictReader(f)):
            pages.append(StoredPage(url=f"https://{DOMAIN}/q/{qi}", text=row["Best Answer"]))
            for label, column in ((1, "Correct Answers"), (0, "Incorrect Answers")):
                for ai, answer in enumerate(a.strip() for a in row[column].split(";")):
                    if answer:
                        records.append(
                            AIResponse(
                                query_id=f"q{qi}",
                                domain=DOMAIN,
                                query=row["Question"],
                                response=answer,
                                expected_answer=row["Best Answer"],
                                provider=f"{'correct' if label else 'incorrect'}-{ai}",
                            )
                        )
                        labels.append(label)
    return records, labels, pages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv", type=Path, default=Path(os.environ.get("TRUTHFULQA_CSV", DEFAULT_CSV)))
    args = parser.parse_args()
    records, labels, pages = load(args.csv)
    groups = [r.query_id for r in records]

    analyzer = ResponseAnalyzer()
    gts = analyzer.prepare_ground_truth(pages, [DOMAIN])
    scores = {}
    results = list(analyzer.iter_batch(records, gts))
    scores["accuracy_score (calibrated, default)"] = [r.scores.accuracy.score for r in results]
    scores["accuracy_similarity (seed cosine, sentence max)"] = [
        r.scores.accuracy.similarity for r in results
    ]
    cosine = ResponseAnalyzer(
        AnalyzerConfig.load(None, {"accuracy.method": "cosine"}), embedder=analyzer.embedder
    )
    scores["accuracy_score (method=cosine)"] = [
        r.scores.accuracy.score for r in cosine.iter_batch(records, gts)
    ]
    enc = analyzer.embedder
    R = enc.encode([r.response for r in records])
    E = enc.encode([r.expected_answer for r in records])
    scores["baseline: plain MiniLM cosine"] = list(np.sum(R * E, axis=1))

    n_q = len(set(groups))
    print(f"TruthfulQA {args.csv.name}: {len(records)} answers ({sum(labels)} correct) to {n_q} questions\n")
    even = [int(g[1:]) % 2 == 0 for g in groups]
    header = f"{'score':48s} {'AUC':>6s} {'mean/q':>7s} {'even q':>7s} {'odd q':>7s}"
    print(header + "\n" + "-" * len(header))
    for name, s in scores.items():
        halves = []
        for want in (True, False):
            idx = [i for i, e in enumerate(even) if e == want]
            halves.append(
                mean_group_auc([groups[i] for i in idx], [labels[i] for i in idx], [s[i] for i in idx])
            )
        print(
            f"{name:48s} {roc_auc(labels, s):6.3f} {mean_group_auc(groups, labels, s):7.3f} {halves[0]:7.3f} {halves[1]:7.3f}"
        )
    print("\ntarget: mean per-question AUC >= 0.80 for accuracy_score")


if __name__ == "__main__":
    main()
