"""Claim verdicts and wrong facts against labeled answers.

Sets in ``evals/sets`` (see evals/README.md), every ``verdicts-<set>-<split>.jsonl`` of the split:

- ``encyclopedia`` and ``truthfulqa`` (``evals.build_verdicts``): real sentences as claims,
  answers that state, change, negate or omit them; one claim per answer;
- ``sites-<x>``, with ``verdicts-sites-<x>-pages.jsonl``: hand-written assistant-style answers
  about invented sites (markdown, terse, hedging, cited, refusals, paraphrase, subtle wrong
  facts), several atomic claims per answer, gold verdict per claim and wrong-fact spans.

Each answer is analysed against its site's pages with its query, expected answer and claims, and
compared with the gold labels, side by side for ``previous`` (a cosine baseline: a claim is found
when MiniLM cosine with a sentence or clause of the answer is >= 0.75, else missing) and
``sleuth`` (the analyzer: ``feedback.claims`` found / missing / contradicted, and
``feedback.contradictions`` for wrong facts).

Prints, per set and overall: 3-way claim verdict agreement, F1 per verdict, wrong facts caught
(recall) and precision by span overlap, the mean per-question AUC of accuracy for fully correct
vs wrong-fact answers (a question: the site and the query asked), and the share of correct
answers at good/excellent and of wrong-fact answers at fair/poor.

    .venv/bin/python -m evals.verdicts_eval [--split dev|train|test] [--sets sites-a,sites-b] [--errors FILE]
        [--checker [--checker-threshold X]] [--min-flag-confidence X] [--lm MODEL --lm-base-url URL --limit N]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import numpy as np

from evals.metrics import mean_group_auc, roc_auc
from modules.evaluation import load_verdict_rows, verdict_record
from modules.response import AnalyzerConfig, ResponseAnalyzer, StoredPage
from modules.text import split_clauses, split_sentences

SETS = Path(__file__).resolve().parent / "sets"
VERDICTS = ("found", "missing", "contradicted")
TARGETS = (
    "targets (issue 33, per realistic set, on the test split): wrong facts caught >= 0.75 at precision >= 0.85, "
    "agreement >= 0.85, contradicted F1 >= 0.75, AUC >= 0.90, >= 90% of correct answers good/excellent, "
    ">= 85% of wrong-fact answers fair/poor"
)


def load(split: str) -> tuple[list[dict], list[StoredPage]]:
    """Every verdict set of ``split`` as answers, and the pages they are judged on."""
    return load_verdict_rows(SETS / f"verdicts-*-{split}.jsonl")


def _f1(gold: list[str], predicted: list[str], label: str) -> float:
    tp = sum(g == p == label for g, p in zip(gold, predicted))
    fp = sum(p == label and g != label for g, p in zip(gold, predicted))
    fn = sum(g == label and p != label for g, p in zip(gold, predicted))
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _spans(gold: list[list[dict]], predicted: list[list[tuple[int, int]]]) -> tuple[int, int, int, int]:
    """(gold spans caught, gold spans, predicted spans right, predicted spans), by any overlap."""
    caught = sum(
        any(_overlap((w["start"], w["end"]), p) for p in ps) for g, ps in zip(gold, predicted) for w in g
    )
    right = sum(
        any(_overlap((w["start"], w["end"]), p) for w in g) for g, ps in zip(gold, predicted) for p in ps
    )
    return caught, sum(len(g) for g in gold), right, sum(len(p) for p in predicted)


def previous_verdicts(analyzer: ResponseAnalyzer, answers: list[dict]) -> list[dict[str, str]]:
    """The cosine baseline: found when a sentence or clause has cosine >= 0.75 with the claim."""
    enc = analyzer.embedder
    out = []
    for a in answers:
        spans = [c.text for s in split_sentences(a["response"]) for c in [s, *split_clauses(s)]]
        claims = [c["text"] for c in a["claims"]]
        sims = enc.encode(claims) @ enc.encode(spans).T if spans else np.zeros((len(claims), 1))
        out.append(
            {
                c["id"]: "found" if float(sims[i].max()) >= 0.75 else "missing"
                for i, c in enumerate(a["claims"])
            }
        )
    return out


def sleuth_verdicts(result) -> dict[str, str]:
    return result.feedback.claims.verdicts()


def lm_alone(result) -> tuple[dict[str, str], list[tuple[int, int]]]:
    """What the LM judge alone said of a combined result (``analyze --lm``): its own claim
    verdicts, and the wrong facts without those only the offline checks flagged (read back from
    ``judge_disagreements``)."""
    verdicts = sleuth_verdicts(result) | {d.claim_id: d.lm for d in result.judge_disagreements if d.claim_id}
    cleared_claims = {
        d.claim_id
        for d in result.judge_disagreements
        if d.claim_id and d.offline == "contradicted" and d.lm != "contradicted"
    }
    cleared = {d.wrong_fact for d in result.judge_disagreements if d.wrong_fact and d.lm == "not_flagged"}
    cleared |= {c.statement for c in result.feedback.claims.contradicted if c.claim.id in cleared_claims}
    spans = [
        (c.position.start, c.position.end)
        for c in result.feedback.contradictions
        if c.statement not in cleared
    ]
    return verdicts, spans


def report_lm_alone(name: str, answers: list[dict], judged: list) -> dict:
    """Agreement, F1 and wrong facts of the LM judge's own verdicts, and how often it disagrees."""
    alone = [lm_alone(r) for r in judged]
    gold = [v for a in answers for v in (a["verdicts"][c["id"]] for c in a["claims"])]
    said = [v.get(c["id"], "missing") for a, (v, _) in zip(answers, alone) for c in a["claims"]]
    agreement = float(np.mean([g == p for g, p in zip(gold, said)])) if gold else 0.0
    f1 = {v: _f1(gold, said, v) for v in VERDICTS}
    caught, n_gold, right, n_pred = _spans([a["wrong_facts"] for a in answers], [s for _, s in alone])
    disagreeing = sum(bool(r.judge_disagreements) for r in judged)
    print(
        f"\n## {name}, the LM judge alone\nagreement {agreement:.3f}; F1 "
        + " / ".join(f"{v} {f1[v]:.3f}" for v in VERDICTS)
        + f"; wrong facts caught {caught}/{n_gold}, precision {right}/{n_pred}; "
        f"judges disagree on {disagreeing} of {len(judged)} answers"
    )
    return {
        "agreement": agreement,
        **{f"f1_{v}": x for v, x in f1.items()},
        "recall": caught / n_gold if n_gold else float("nan"),
        "precision": right / n_pred if n_pred else float("nan"),
        "disagreeing": disagreeing,
    }


def report(name: str, answers: list[dict], results: list, previous: list[dict[str, str]]) -> dict:
    gold = [v for a in answers for v in (a["verdicts"][c["id"]] for c in a["claims"])]
    prev = [p.get(c["id"], "missing") for a, p in zip(answers, previous) for c in a["claims"]]
    ours = [
        s.get(c["id"], "missing")
        for a, s in zip(answers, (sleuth_verdicts(r) for r in results))
        for c in a["claims"]
    ]
    print(
        f"\n## {name}: {len(answers)} answers, {len(gold)} claims ("
        + ", ".join(f"{v} {gold.count(v)}" for v in VERDICTS)
        + ")"
    )
    header = f"{'analyzer':10s} {'agreement':>9s} " + " ".join(f"{'F1 ' + v:>15s}" for v in VERDICTS)
    print(header + "\n" + "-" * len(header))
    figures = {}
    for label, predicted in (("previous", prev), ("sleuth", ours)):
        agreement = float(np.mean([g == p for g, p in zip(gold, predicted)])) if gold else 0.0
        f1 = {v: _f1(gold, predicted, v) for v in VERDICTS}
        figures[label] = {"agreement": agreement, **{f"f1_{v}": f for v, f in f1.items()}}
        print(f"{label:10s} {agreement:9.3f} " + " ".join(f"{f1[v]:15.3f}" for v in VERDICTS))
    predicted_spans = [
        [(c.position.start, c.position.end) for c in r.feedback.contradictions] for r in results
    ]
    caught, n_gold, right, n_pred = _spans([a["wrong_facts"] for a in answers], predicted_spans)
    recall = caught / n_gold if n_gold else float("nan")
    precision = right / n_pred if n_pred else float("nan")
    print(
        f"wrong facts caught: {caught}/{n_gold} = {recall:.3f}; precision {right}/{n_pred} = {precision:.3f}"
    )
    correct = [not a["wrong_facts"] and all(v == "found" for v in a["verdicts"].values()) for a in answers]
    wrong = [bool(a["wrong_facts"]) for a in answers]
    idx = [i for i in range(len(answers)) if correct[i] or wrong[i]]
    scores = [r.scores.accuracy.score if r.scores.accuracy else 0.0 for r in results]
    # per question asked (a set may give each answer its own id): the site and the query
    asked = [(answers[i]["domain"], answers[i]["query"] or answers[i]["question_id"]) for i in idx]
    auc = mean_group_auc(asked, [int(correct[i]) for i in idx], [scores[i] for i in idx])
    over = "mean per question"
    if np.isnan(auc) and 0 < sum(correct[i] for i in idx) < len(idx):  # each question asked once
        auc, over = roc_auc([int(correct[i]) for i in idx], [scores[i] for i in idx]), "all answers"
    good = [bool(r.scores.accuracy and r.scores.accuracy.tier in ("good", "excellent")) for r in results]
    correct_good = float(np.mean([good[i] for i in idx if correct[i]])) if any(correct) else float("nan")
    wrong_low = float(np.mean([not good[i] for i in idx if wrong[i]])) if any(wrong) else float("nan")
    print(f"accuracy AUC, fully correct vs wrong-fact answers, {over}: {auc:.3f}")
    print(
        f"fully correct answers at good/excellent: {correct_good:.0%} ({sum(correct)}); "
        f"wrong-fact answers at fair/poor: {wrong_low:.0%} ({sum(wrong)})"
    )
    figures.update(
        recall=recall, precision=precision, auc=auc, correct_good=correct_good, wrong_low=wrong_low
    )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--split",
        default="dev",
        choices=["dev", "train", "test"],
        help="test: the frozen split, run once at the end of a piece of work (never tuned on)",
    )
    parser.add_argument("--sets", help="only these sets, comma-separated (e.g. sites-a,sites-b)")
    parser.add_argument(
        "--checker-threshold", type=float, help="feedback.checker_threshold (default: the shipped config's)"
    )
    parser.add_argument(
        "--checker", action="store_true", help="weigh wrong facts by the claim checker (feedback.checker)"
    )
    parser.add_argument(
        "--min-flag-confidence",
        type=float,
        help="feedback.min_flag_confidence (default: the threshold shipped with the flag-confidence model; 0 keeps every flag)",
    )
    parser.add_argument(
        "--min-claim-conflict",
        type=float,
        help="feedback.min_claim_conflict (default: the threshold shipped with the claim-conflict model; "
        "1 leaves the checks' verdicts)",
    )
    parser.add_argument(
        "--errors", help="write the answers whose verdicts differ from gold to this JSONL file"
    )
    parser.add_argument(
        "--lm",
        help="also judge with this LM (DSPy/LiteLLM model string, or local: the model of `sleuth lm`), "
        "beside the offline judge",
    )
    parser.add_argument("--lm-base-url", help="its OpenAI-compatible server (e.g. http://127.0.0.1:8080/v1)")
    parser.add_argument("--limit", type=int, help="only the first N answers of each set (an LM is slow)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds an LM call may take")
    args = parser.parse_args()
    answers, pages = load(args.split)
    if args.sets:
        answers = [a for a in answers if a["set"] in args.sets.split(",")]
    if args.limit:
        seen: dict[str, int] = defaultdict(int)
        limited = []
        for a in answers:
            seen[a["set"]] += 1
            if seen[a["set"]] <= args.limit:
                limited.append(a)
        answers = limited
    if not answers:
        raise SystemExit(f"no verdict sets in {SETS}: run `python -m evals.build_verdicts` first")
    records = [verdict_record(a) for a in answers]
    overrides: dict = {"feedback.checker": args.checker}
    if args.checker_threshold is not None:
        overrides["feedback.checker_threshold"] = args.checker_threshold
    if args.min_flag_confidence is not None:
        overrides["feedback.min_flag_confidence"] = args.min_flag_confidence
    if args.min_claim_conflict is not None:
        overrides["feedback.min_claim_conflict"] = args.min_claim_conflict
    analyzer = ResponseAnalyzer(AnalyzerConfig.load(None, overrides))
    gts = analyzer.prepare_ground_truth(pages, {a["domain"] for a in answers})
    results = list(analyzer.iter_batch(records, gts))
    previous = previous_verdicts(analyzer, answers)
    judged = None
    if args.lm:  # the LM judge on top of the offline results, as `analyze --lm` runs it
        from flows.analyze import JudgeOptions
        from modules.lm import LMSettings

        context = None
        if args.lm == "local":  # the local model of `sleuth lm`, started here when none runs
            from flows import local_lm

            info = local_lm.start()
            args.lm, args.lm_base_url, context = info.lm, info.url, info.context_tokens
        settings = LMSettings.from_env(args.lm, args.lm_base_url, context)
        settings.timeout_s = args.timeout
        options = JudgeOptions(lm=settings).resolve()
        judge = options.build(analyzer.config)
        judged = []
        for i, r in enumerate(results, 1):
            judged.append(judge.judge_with(r, gts.get(r.domain)))
            print(f"LM judge: {i}/{len(results)} ({'fallback' if judged[-1].fallback else 'ok'})", flush=True)

    groups: dict[str, list[int]] = defaultdict(list)
    for i, a in enumerate(answers):
        groups[a["set"]].append(i)
    for name, idx in sorted(groups.items()):
        report(
            f"{name} ({args.split})",
            [answers[i] for i in idx],
            [results[i] for i in idx],
            [previous[i] for i in idx],
        )
        if judged is not None:
            fallbacks = sum(judged[i].fallback for i in idx)
            label = f"{name} ({args.split}), LM judge {args.lm} ({fallbacks} fallbacks to the offline judge)"
            report_lm_alone(label, [answers[i] for i in idx], [judged[i] for i in idx])
            report(
                f"{label}, combined with the offline checks (as `analyze --lm` scores)",
                [answers[i] for i in idx],
                [judged[i] for i in idx],
                [previous[i] for i in idx],
            )
    print("\n" + TARGETS)
    if args.errors:
        with open(args.errors, "w", encoding="utf-8") as f:
            for a, r in zip(answers, results):
                ours = sleuth_verdicts(r)
                spans = [
                    (c.position.start, c.position.end, c.statement, c.detail, c.evidence, c.confidence)
                    for c in r.feedback.contradictions
                ]
                if any(ours.get(k, "missing") != v for k, v in a["verdicts"].items()) or bool(spans) != bool(
                    a["wrong_facts"]
                ):
                    f.write(
                        json.dumps(
                            {
                                "set": a["set"],
                                "question_id": a["question_id"],
                                "response": a["response"],
                                "claims": a["claims"],
                                "gold": a["verdicts"],
                                "ours": ours,
                                "gold_wrong": a["wrong_facts"],
                                "our_wrong": spans,
                                "accuracy": r.scores.accuracy.score if r.scores.accuracy else None,
                            },
                            ensure_ascii=False,
                        )
                        + "\n"
                    )


if __name__ == "__main__":
    main()
