"""Claim verdicts and wrong facts against labeled answers (issue 15's measure; dev split).

On ``evals/sets/verdicts-*-dev.jsonl`` (built by ``evals.build_verdicts``), each answer is
analysed against its page with its claim, and compared with the gold verdict (found / missing /
contradicted) and wrong-fact spans. Side by side:

- ``previous``: the seed's rule, a claim is found when MiniLM cosine of the claim with a
  sentence or clause of the answer is >= 0.75 (else missing);
- ``sleuth``: the analyzer as it is (``claims_found`` / ``claims_missing``; contradicted claims
  and wrong facts once it reports them).

Prints 3-way agreement, F1 per verdict, wrong facts caught (recall) and precision by span
overlap, the mean per-question AUC of accuracy_score for correct vs wrong-fact answers, and the
share of correct answers at good/excellent and of wrong-fact answers at fair/poor.

    .venv/bin/python -m evals.verdicts_eval [--split dev]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from evals.metrics import mean_group_auc
from modules.response import AIResponse, ResponseAnalyzer, StoredPage
from modules.text import split_clauses, split_sentences

SETS = Path(__file__).resolve().parent / "sets"
VERDICTS = ("found", "missing", "contradicted")


def _load(split: str) -> list[dict]:
    rows = []
    for path in sorted(SETS.glob(f"verdicts-*-{split}.jsonl")):
        rows += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return rows


def _f1(gold: list[str], predicted: list[str], label: str) -> float:
    tp = sum(g == p == label for g, p in zip(gold, predicted))
    fp = sum(p == label and g != label for g, p in zip(gold, predicted))
    fn = sum(g == label and p != label for g, p in zip(gold, predicted))
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def _spans_caught(gold: list[list[dict]], predicted: list[list[tuple[int, int]]]) -> tuple[float, float | None]:
    """Recall of gold wrong-fact spans and precision of predicted ones, by any overlap."""
    overlap = lambda a, b: a[0] < b[1] and b[0] < a[1]  # noqa: E731
    n_gold = sum(len(g) for g in gold)
    caught = sum(any(overlap((w["start"], w["end"]), p) for p in ps) for g, ps in zip(gold, predicted) for w in g)
    n_pred = sum(len(p) for p in predicted)
    right = sum(any(overlap((w["start"], w["end"]), p) for w in g) for g, ps in zip(gold, predicted) for p in ps)
    return (caught / n_gold if n_gold else 0.0), (right / n_pred if n_pred else None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", default="dev", choices=["dev", "train"])
    args = parser.parse_args()
    rows = _load(args.split)
    if not rows:
        raise SystemExit(f"no verdict sets in {SETS}: run `python -m evals.build_verdicts` first")
    domain = "verdicts.eval"
    pages = {r["page"]["url"]: StoredPage(url=r["page"]["url"].replace("https://en.wikipedia.org", f"https://{domain}"),
                                          text=r["page"]["text"], title=r["page"]["title"]) for r in rows}
    records = [AIResponse(query_id=r["question_id"], domain=domain, response=r["response"], claims=[r["claim"]],
                          expected_answer=r["claim"], provider=r["perturbation"]) for r in rows]
    analyzer = ResponseAnalyzer()
    gts = analyzer.prepare_ground_truth(list(pages.values()), [domain])
    results = list(analyzer.iter_batch(records, gts))

    enc = analyzer.embedder
    claim_vectors = enc.encode([r["claim"] for r in rows])
    previous = []
    for i, r in enumerate(rows):
        spans = [c.text for s in split_sentences(r["response"]) for c in [s, *split_clauses(s)]]
        sims = enc.encode(spans) @ claim_vectors[i] if spans else np.zeros(1)
        previous.append("found" if float(np.max(sims)) >= 0.75 else "missing")

    def sleuth_verdict(result) -> str:
        claims = result.feedback.claims
        if getattr(claims, "contradicted", None):
            return "contradicted"
        return "found" if claims.found else "missing"

    current = [sleuth_verdict(res) for res in results]
    wrong_spans = [[(c.position.start, c.position.end) for c in getattr(res.feedback, "contradictions", [])]
                   for res in results]
    gold = [r["verdict"] for r in rows]
    correct = [r["verdict"] == "found" for r in rows]
    wrong = [r["verdict"] == "contradicted" for r in rows]
    accuracy = [res.scores.accuracy for res in results]

    print(f"{len(rows)} answers ({args.split}) about {len({r['question_id'] for r in rows})} pages; gold: "
          + ", ".join(f"{v} {gold.count(v)}" for v in VERDICTS) + "\n")
    header = f"{'analyzer':10s} {'agreement':>9s} " + " ".join(f"{'F1 ' + v:>15s}" for v in VERDICTS)
    print(header + "\n" + "-" * len(header))
    for name, predicted in (("previous", previous), ("sleuth", current)):
        agreement = np.mean([g == p for g, p in zip(gold, predicted)])
        print(f"{name:10s} {agreement:9.3f} " + " ".join(f"{_f1(gold, predicted, v):15.3f}" for v in VERDICTS))
    recall, precision = _spans_caught([r["wrong_facts"] for r in rows], wrong_spans)
    print(f"\nwrong facts caught (sleuth): {recall:.3f}, precision {'-' if precision is None else f'{precision:.3f}'}")
    idx = [i for i in range(len(rows)) if correct[i] or wrong[i]]
    auc = mean_group_auc([rows[i]["question_id"] for i in idx], [int(correct[i]) for i in idx],
                         [accuracy[i].score for i in idx])
    good = lambda a: a.tier in ("good", "excellent")  # noqa: E731
    print(f"accuracy AUC, correct vs wrong-fact answers, mean per page: {auc:.3f}")
    print(f"correct answers at good/excellent: {np.mean([good(accuracy[i]) for i in idx if correct[i]]):.0%}; "
          f"wrong-fact answers at fair/poor: {np.mean([not good(accuracy[i]) for i in idx if wrong[i]]):.0%}")
    print("\ntargets: agreement >= 0.85, contradicted F1 >= 0.70, wrong facts caught >= 0.70 at precision >= 0.70, "
          "AUC >= 0.90, >= 80% / >= 80%")


if __name__ == "__main__":
    main()
