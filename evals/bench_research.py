"""Offline evidence benchmark for the research loop on HotpotQA (distractor, 60 questions).

Corpus: every HotpotQA paragraph plus the encyclopedia's 10,033 article leads as distractors,
searched by the local backend. Per question: evidence recall (both gold paragraphs among the
sources the Analyzer read), answer EM / F1 (the report's ``short_answer`` against the gold
answer, SQuAD normalisation), answer containment (the gold string in the report's whole answer),
sources read and steps (Decision calls). Three methods on the same questions and index:
``bm25@10`` and ``hybrid@10`` (one search, the Analyzer reads the top 10, one report) and
``loop``, the baseline research loop (``--max-steps 6``), results ordered by the relevance
analyzer before the Analyzer reads them (``--no-rerank``: engine order).

``--web`` runs the same on the offline web (``sleuth research --web``): the corpus served as
linked pages on 127.0.0.1, search giving titles, URLs and snippets only, the Analyzer reading
only pages crawled (the single-shot rows crawl the top 10; the loop, ``--max-steps 16``, crawls
what its Decision node chooses); a gold paragraph counts as read when its page was analyzed.

Calibration (the loop): a short answer is right at token F1 >= 0.8 with the gold answer;
``right_at_0.8`` is the share right among those given at confidence >= 0.8, ``answered`` the
share of questions with a short answer, ``ece`` the expected calibration error over ten bins;
``--details`` keeps each report's confidence for the reliability table.

Questions: ``--questions hotpot`` (default), ``encyclopedia`` or a later test set (see :mod:`evals.hotpot`);
``--split dev`` (default, to tune on), ``train`` (to fit on), ``test`` (frozen: run once, at the
end of a quality change, and reported beside dev) or ``all``.

Run: ``.venv/bin/python -m evals.bench_research [--split dev] [--limit N] [--max-steps 6] [--web] [--loop-only]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from evals.hotpot import QUESTION_SETS, Question, research_questions, write_corpus
from modules.evaluation.nodes import answer_scores
from modules.lm import LMSettings
from modules.research.loop import Researcher, journey_from
from modules.research.memory import Memory
from modules.research.session import ResearchOptions, build_researcher
from modules.tools.search import SearchResults, make_results


class _OneRanking:
    """The local backend restricted to one ranking (bm25 or dense), for the single-shot rows."""

    name = "local"

    def __init__(self, index, mode: str):
        self.index, self.mode = index, mode

    def search(self, query: str, max_results: int = 10) -> SearchResults:
        if self.mode == "hybrid":
            rows = [(r.title, r.url, r.snippet) for r in self.index.search(query, max_results)]
        else:
            hits = self.index.search_ids(query, max_results, mode=self.mode)
            rows = [
                (self.index.docs[i].title, self.index.docs[i].url, self.index.docs[i].text[:300])
                for i, _ in hits
            ]
        return make_results("local", rows, query, max_results)


def report_on_lm(researcher: Researcher, model: str, base_url: str | None, programs: str | None) -> str:
    """The Report node on ``model``, its newest compiled program under ``programs`` (else the
    uncompiled one); the Decision, the Analyzer and the rerank keep their offline programs, so
    the report is written from the same loop's memory as offline."""
    from modules import programs as program_store

    context = None
    if model == "local":
        from flows import local_lm

        info = local_lm.start()
        model, base_url, context = info.lm, info.url, info.context_tokens
    settings = LMSettings.from_env(model, base_url, context)
    settings.timeout_s = 600.0  # a CPU model's report takes a minute or so: not a failure
    runner = settings.runner()
    compiled, versions = program_store.load_latest(programs)
    program = compiled.get("report") or program_store.new_program("report")
    researcher.runner = runner
    researcher.programs = {"report": runner.fit_program("report", program)}
    return f"report node: {settings.model} at {settings.base_url or 'its provider'}, program {versions.get('report', 'uncompiled')}"


def contains(answer: str, report: str) -> bool:
    return answer.strip().lower() in report.lower()


def single_shot(researcher: Researcher, backend: _OneRanking, q: Question, gold: frozenset[str]) -> dict:
    """One search, the Analyzer reads the top 10, the Report node answers."""
    t = time.perf_counter()
    results = backend.search(q.question, 10)
    urls = [r.url for r in results]
    pages = researcher.fetch(urls, [r.snippet for r in results])
    from modules.research.schema import Source
    from modules.research.thread import Thread

    thread = Thread(question=q.question, engines=["local"], step=1, queries=[q.question])
    docs = [Source(url=p.url, title=p.title or "", text=p.text, analyzed=True) for p in pages if p.text]
    memory = Memory(researcher.embedder)
    analysis, facts = researcher.analyze_baseline(thread, docs, memory)
    memory.add(facts, 1)
    thread.last_analysis = analysis
    thread.titles = {d.url: d.title for d in docs}
    report = researcher.report_baseline(thread, memory, journey_from([], "max_steps"))
    read = {d.url for d in docs}
    return {
        "recall": gold <= read,
        **scores(q, report),
        "read": len(read),
        "steps": 1,
        "seconds": time.perf_counter() - t,
    }


def scores(q: Question, report) -> dict:
    s = answer_scores(q.answer, report.short_answer)
    return {"em": s["exact_match"], "f1": s["f1"], "contains": contains(q.answer, report.answer)}


def loop(researcher: Researcher, q: Question, gold: frozenset[str]) -> dict:
    t = time.perf_counter()
    before = researcher.runner.calls()  # the runner counts over every question it served
    result = researcher.run(q.question)
    read = {u for u, s in result.sources.items() if s.analyzed}
    return {
        "recall": gold <= read,
        **scores(q, result.report),
        "read": len(read),
        "seconds": time.perf_counter() - t,
        "steps": sum(s.node == "decision" for s in result.steps),
        "crawled": sum(s.node == "tool" and s.action == "crawl_url" for s in result.steps),
        "stop": result.stop_reason,
        "missing": sorted(gold - read),
        "gold": q.answer,
        "short_answer": result.report.short_answer,
        "answer_type": result.report.answer_type,
        "confidence": result.confidence,
        "status": result.status,
        "proposed_answer": result.proposed_answer,
        "features": result.assessment.features,
        "lm_fell_back": result.lm_calls.get("fell_back", 0) - before.get("fell_back", 0),
        "lm_answered": result.lm_calls.get("answered", 0) - before.get("answered", 0),
    }


#: A short answer counts as right at this token F1 with the gold answer (calibration).
RIGHT_F1 = 0.8


def calibration(rows: list[dict], bins: int = 10) -> dict:
    """How far the loop's confidence can be trusted: over the reports with a short answer, the
    share right at confidence >= 0.8 and the expected calibration error (ECE) over ``bins``."""
    given = [(r["confidence"], r["f1"] >= RIGHT_F1) for r in rows if r.get("short_answer")]
    high = [right for c, right in given if c >= 0.8]
    ece = 0.0
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        inside = [(c, right) for c, right in given if lo <= c < hi or (b == bins - 1 and c == 1.0)]
        if inside:
            gap = abs(sum(c for c, _ in inside) / len(inside) - sum(r for _, r in inside) / len(inside))
            ece += len(inside) / len(given) * gap
    return {
        "answered": round(len(given) / len(rows), 3),
        "answered_at_0.8": len(high),
        "right_at_0.8": round(sum(high) / len(high), 3) if high else None,
        "ece": round(ece, 3) if given else None,
    }


def summarize(rows: list[dict]) -> dict:
    out = {
        "evidence_recall": round(sum(r["recall"] for r in rows) / len(rows), 3),
        "answer_em": round(sum(r["em"] for r in rows) / len(rows), 3),
        "answer_f1": round(sum(r["f1"] for r in rows) / len(rows), 3),
        "answer_containment": round(sum(r["contains"] for r in rows) / len(rows), 3),
        "median_sources_read": statistics.median(r["read"] for r in rows),
        "median_steps": statistics.median(r["steps"] for r in rows),
        "median_s_per_question": round(statistics.median(r["seconds"] for r in rows), 3),
    }
    if "crawled" in rows[0]:
        out["median_steps"] = statistics.median(r["steps"] for r in rows)
        out["median_pages_crawled"] = statistics.median(r["crawled"] for r in rows)
    if "confidence" in rows[0]:
        out |= calibration(rows)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["dev", "train", "test", "all"], default="dev")
    parser.add_argument(
        "--questions",
        choices=list(QUESTION_SETS),
        default="hotpot",
        help="question set (default hotpot; encyclopedia-b to -l are test sets only: --split test)",
    )
    parser.add_argument("--limit", type=int, help="first N questions only")
    parser.add_argument("--max-steps", type=int, help="loop steps (default 6; 16 with --web)")
    parser.add_argument("--details", metavar="FILE", help="write per-question loop results as JSONL")
    parser.add_argument("--no-rerank", action="store_true", help="read search results in engine order")
    parser.add_argument("--web", action="store_true", help="on the offline web: snippets, then crawled pages")
    parser.add_argument("--loop-only", action="store_true", help="skip the single-shot rows")
    parser.add_argument(
        "--lm",
        metavar="MODEL",
        help="the Report node on this model (local: the local model, started if none runs); "
        "the other nodes and the rerank stay offline",
    )
    parser.add_argument("--lm-base-url", metavar="URL")
    parser.add_argument(
        "--programs", metavar="DIR", help="compiled programs folder (the newest report program)"
    )
    args = parser.parse_args()
    args.max_steps = args.max_steps or (16 if args.web else 6)

    questions = research_questions(args.split, args.questions)[: args.limit]
    corpus = write_corpus(Path(tempfile.mkdtemp(prefix="sleuth-bench-research-")))
    t = time.perf_counter()
    # exactly what `sleuth research --corpus ... --max-steps N` runs, without a time limit
    researcher = build_researcher(
        ResearchOptions(
            corpus=str(corpus),
            max_steps=args.max_steps,
            max_seconds=600,
            rerank=not args.no_rerank,
            web=args.web,
        )
    )
    if args.lm:
        print(report_on_lm(researcher, args.lm, args.lm_base_url, args.programs))
    engine = researcher.search["local"]
    site = engine.site if args.web else None
    index = engine.local.index if site else engine.index
    print(f"index: {len(index.docs)} documents, opened in {time.perf_counter() - t:.1f} s")
    if site:
        print(f"offline web: {site.base}")
    index.search("warm up", 1)
    gold = {q.qid: q.gold_urls for q in questions}

    table = {}
    for name, mode in () if args.loop_only else (("bm25@10", "bm25"), ("hybrid@10", "hybrid")):
        backend = _OneRanking(index, mode)
        table[name] = summarize([single_shot(researcher, backend, q, gold[q.qid]) for q in questions])
    loop_rows = [loop(researcher, q, gold[q.qid]) for q in questions]
    table[f"loop (max {args.max_steps} steps)"] = summarize(loop_rows)
    if args.details:
        with open(args.details, "w") as f:
            for q, r in zip(questions, loop_rows):
                f.write(json.dumps({"qid": q.qid, "question": q.question, "kind": q.kind, **r}) + "\n")

    print(
        f"\n{len(questions)} questions ({args.split}); evidence recall = both gold paragraphs read by the Analyzer\n"
    )
    cols = list(dict.fromkeys(c for s in table.values() for c in s))
    print(f"{'method':22s}" + "".join(f"{c:>22s}" for c in cols))
    for name, s in table.items():
        print(f"{name:22s}" + "".join(f"{s.get(c, '-')!s:>22s}" for c in cols))
    by_kind = {}
    for q, r in zip(questions, loop_rows):
        by_kind.setdefault(q.kind, []).append(r)
    for kind, rows in sorted(by_kind.items()):
        print(f"loop, {kind} questions ({len(rows)}): " + json.dumps(summarize(rows)))


if __name__ == "__main__":
    main()
