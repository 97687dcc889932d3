"""How the claim threshold trades recall for precision (TruthfulQA, offline).

Each question's Best Answer is a required claim; a Correct Answer should contain it (label 1),
an Incorrect Answer should not (label 0). For each threshold, prints how often the claim is
found in correct and in incorrect answers, through the real analyzer (clause spans, number and
polarity checks included).

    .venv/bin/python -m evals.claims_eval [--thresholds 0.75 0.7 0.65 0.6]
"""

from __future__ import annotations

import argparse

from evals.accuracy_eval import DEFAULT_CSV, DOMAIN, load
from modules.embeddings import LocalEmbedder
from modules.response import AIResponse, AnalyzerConfig, ResponseAnalyzer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--thresholds", type=float, nargs="+", default=[0.75, 0.7, 0.65, 0.6, 0.55])
    args = parser.parse_args()
    records, labels, pages = load(DEFAULT_CSV)
    records = [AIResponse.model_validate({**r.model_dump(), "claims": [r.expected_answer]}) for r in records]
    n_pos, n_neg = sum(labels), len(labels) - sum(labels)
    embedder = LocalEmbedder()
    print(f"{len(records)} answers: {n_pos} correct, {n_neg} incorrect\n")
    print(f"{'threshold':>9s} {'found in correct':>17s} {'found in incorrect':>19s} {'precision':>9s}")
    for threshold in args.thresholds:
        analyzer = ResponseAnalyzer(
            AnalyzerConfig.load(None, {"completeness.similarity_threshold": threshold}), embedder=embedder
        )
        gts = analyzer.prepare_ground_truth(pages, [DOMAIN])
        found = [r.scores.completeness.total_found for r in analyzer.iter_batch(records, gts)]
        tp = sum(f for f, y in zip(found, labels) if y)
        fp = sum(f for f, y in zip(found, labels) if not y)
        print(f"{threshold:9.2f} {tp / n_pos:17.0%} {fp / n_neg:19.0%} {tp / max(tp + fp, 1):9.2f}")


if __name__ == "__main__":
    main()
