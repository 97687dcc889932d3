"""Relevance analyzer on HotpotQA (distractor): 10 paragraphs per question, 2 of them gold.

Metrics, per ranking, averaged over questions:
- both-gold@2: both gold paragraphs ranked first and second;
- nDCG@10 with the two gold paragraphs as relevant (gain 1);
- kept recall: share of gold paragraphs the analyzer keeps (score >= threshold), and the mean
  number kept (a filter that keeps everything is no filter);
- sentence hit: the anchored sentence of a gold paragraph is one of its supporting sentences
  (analyzer only): the trained sentence picker's (:mod:`modules.relevance.picker`) beside the
  hand-set pick it replaces.
Rankings compared on the same questions: BM25 alone, embedding alone (MiniLM cosine), the
baseline's hand-set blend of its readings (no trained ranker), and the baseline program (its score,
with the trained ranker of :mod:`modules.relevance.ranker`). The questions are split as every HotpotQA set is (question index %
3: dev, train, test; ``evals/sets/split.json``); ``--split`` picks one (default dev; ``test`` is
frozen: run once, at the end of a quality change; ``all`` pools them, for the record only).

``--questions encyclopedia`` ranks the research questions written over the encyclopedia's leads
(:mod:`evals.hotpot`) the same way: each question's two gold leads and the eight other leads BM25
ranks highest for the question (as HotpotQA's distractors were chosen by similarity to the
question), with the supporting sentences as gold sentences. The rules were never tuned on these;
``encyclopedia-b`` to ``-j`` are test sets only. Run:
``.venv/bin/python -m evals.relevance_eval [--split dev] [--questions hotpot] [--limit N]``.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from dataclasses import replace

import bm25s
import numpy as np
import polars as pl

from evals.hotpot import ENCYCLOPEDIA, QUESTION_SETS, Question, research_questions
from modules.embeddings import LocalEmbedder
from modules.relevance.analyzer import RelevanceAnalyzer
from modules.relevance.anchor import normalise
from modules.relevance.baseline import BaselineRelevance
from modules.relevance.schema import ResearchPlan, SearchResultIn
from modules.text import split_sentences


def passages(q: Question) -> list[dict]:
    return [
        {"id": url, "title": title, "url": url, "text": " ".join(s.strip() for s in sentences)}
        for url, title, sentences in q.paragraphs
    ]


DISTRACTORS = 8


def with_distractors(questions: list[Question]) -> list[Question]:
    """Encyclopedia questions with their ten leads: the two gold and the eight BM25 ranks highest."""
    leads = pl.read_parquet(ENCYCLOPEDIA).select("url", "title", "text").to_dicts()
    by_url = {r["url"]: r for r in leads}
    retriever = bm25s.BM25()
    retriever.index(
        bm25s.tokenize([f"{r['title']} {r['text']}" for r in leads], stopwords="en", show_progress=False),
        show_progress=False,
    )
    ids, _ = retriever.retrieve(
        bm25s.tokenize([q.question for q in questions], stopwords="en", show_progress=False),
        k=DISTRACTORS + 2,
        show_progress=False,
    )
    out = []
    for q, hits in zip(questions, ids):
        others = [leads[i]["url"] for i in hits if leads[i]["url"] not in q.gold_urls][:DISTRACTORS]
        urls = sorted(q.gold_urls | set(others))  # an order that says nothing of relevance
        paragraphs = tuple(
            (u, by_url[u]["title"], tuple(s.text for s in split_sentences(by_url[u]["text"]))) for u in urls
        )
        out.append(replace(q, paragraphs=paragraphs))
    return out


def ndcg10(order: list[str], gold: set[str]) -> float:
    dcg = sum(1 / math.log2(k + 2) for k, u in enumerate(order[:10]) if u in gold)
    ideal = sum(1 / math.log2(k + 2) for k in range(min(len(gold), 10)))
    return dcg / ideal


def bm25_order(q: Question, docs: list[dict]) -> list[str]:
    retriever = bm25s.BM25()
    retriever.index(
        bm25s.tokenize([f"{d['title']} {d['text']}" for d in docs], stopwords="en", show_progress=False),
        show_progress=False,
    )
    ids, _ = retriever.retrieve(
        bm25s.tokenize([q.question], stopwords="en", show_progress=False), k=len(docs), show_progress=False
    )
    return [docs[i]["id"] for i in ids[0]]


def dense_order(q: Question, docs: list[dict], embedder) -> list[str]:
    v = embedder.encode([q.question] + [f"{d['title']}. {d['text']}" for d in docs])
    return [docs[i]["id"] for i in np.argsort(-(v[1:] @ v[0]), kind="stable")]


def supporting_sentences(q: Question) -> dict[str, set[str]]:
    """Each gold paragraph's supporting sentences, normalised as anchors are compared."""
    supporting: dict[str, set[str]] = {}
    for url, sentence in q.supporting:
        supporting.setdefault(url, set()).add(normalise(sentence))
    return supporting


def sentence_hits(results, q: Question) -> list[bool]:
    """Per gold paragraph, whether its anchored sentence is one of its supporting sentences."""
    supporting = supporting_sentences(q)
    return [normalise(r.sentence) in supporting.get(r.id, set()) for r in results if r.id in q.gold_urls]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["dev", "train", "test", "all"], default="dev")
    parser.add_argument("--questions", choices=QUESTION_SETS, default="hotpot")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--details", metavar="FILE", help="per-question analyzer results as JSONL")
    args = parser.parse_args()
    questions = research_questions(args.split, args.questions)[: args.limit]
    if not questions:
        raise SystemExit(
            f"error: {args.questions} has no {args.split} part (encyclopedia-b to -l are test sets only)"
        )
    if args.questions != "hotpot":
        questions = with_distractors(questions)
    embedder = LocalEmbedder()
    analyzer = RelevanceAnalyzer(embedder=embedder)
    # the blend and the sentence pick that the trained ranker and picker replace
    hand_set = BaselineRelevance(embedder, ranker=None, picker=None)
    rows = {"bm25": [], "embedding": [], "hand-set blend": [], "sleuth baseline": []}
    hits, hand_hits, kept_counts, seconds, details = [], [], [], [], []
    for q in questions:
        docs = passages(q)
        gold = set(q.gold_urls)
        t = time.perf_counter()
        out = analyzer.rerank(q.question, None, docs)
        seconds.append(time.perf_counter() - t)
        order = [r.id for r in out.results]
        kept = {r.id for r in out.results if r.kept}
        kept_counts.append(len(kept))
        hits += sentence_hits(out.results, q)
        hand = hand_set(q.question, ResearchPlan(), [SearchResultIn.model_validate(d) for d in docs])
        hand_hits += sentence_hits(hand.results, q)
        for name, o in (
            ("bm25", bm25_order(q, docs)),
            ("embedding", dense_order(q, docs, embedder)),
            ("hand-set blend", [r.id for r in hand.results]),
            ("sleuth baseline", order),
        ):
            rows[name].append(
                {
                    "both2": set(o[:2]) == gold,
                    "ndcg": ndcg10(o, gold),
                    "kept": len(kept & gold) / len(gold) if name == "sleuth baseline" else None,
                }
            )
        details.append(
            {
                "qid": q.qid,
                "question": q.question,
                "kind": q.kind,
                "gold": sorted(gold),
                "top2": order[:2],
                "kept": sorted(kept),
                "gold_sentences": {r.id: r.sentence for r in out.results if r.id in gold},
            }
        )
    if args.details:
        with open(args.details, "w") as f:
            f.writelines(json.dumps(d) + "\n" for d in details)
    print(f"{len(questions)} {args.questions} questions ({args.split}), 10 paragraphs each (2 gold)\n")
    print(f"{'ranking':18s}{'both-gold@2':>14s}{'nDCG@10':>10s}{'kept recall':>13s}")
    for name, rs in rows.items():
        kept = statistics.mean(r["kept"] for r in rs) if rs[0]["kept"] is not None else None
        print(
            f"{name:18s}{statistics.mean(r['both2'] for r in rs):>14.3f}{statistics.mean(r['ndcg'] for r in rs):>10.3f}"
            + (f"{kept:>13.3f}" if kept is not None else f"{'-':>13s}")
        )
    print(
        f"\nsupporting-sentence hit rate over {len(hits)} gold paragraphs: hand-set pick {statistics.mean(hand_hits):.3f}, "
        f"trained picker (sleuth baseline) {statistics.mean(hits):.3f}"
    )
    print(
        f"sleuth baseline: mean kept {statistics.mean(kept_counts):.1f} of 10; median {statistics.median(seconds) * 1000:.0f} ms per question"
    )


if __name__ == "__main__":
    main()
