"""Drafted query sets on an encyclopedia "site": are the questions specific and answerable?

A site is ``--pages`` articles of one topic of ``../shared/data/encyclopedia`` (seeded sample).
Per drafted query, against all the site's pages:
- specificity@1 / @3: the page it was drafted from is the page most similar to the question
  (MiniLM cosine, question vs page), or among the top 3: a question a site's page answers, not
  any page;
- answer located: the question's most similar sentence on its page is one its claims come
  from, i.e. states all of a claim's content words (the claims answer the question asked);
- claims grounded: every claim's content words occur in one sentence of its page (no invented
  facts; claims are atomic facts in the page's words, their subject repeated, so not always a
  substring of the page);
- claims/query: how many claims a query has (one checkable fact each);
- near-duplicates: share of question pairs with cosine >= 0.9; pages covered.
Compared with a naive drafter on the same pages: "What is <title>?" answered by the first
sentence. Run: ``.venv/bin/python -m evals.querygen_eval [--pages 150] [--topic Technology]``.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import numpy as np
import polars as pl

from modules.embeddings import LocalEmbedder
from modules.queries.generate import draft_query_set
from modules.queries.queryset import Query
from modules.response.schema import ExpectedClaim, StoredPage
from modules.text import content_terms, split_sentences

ENCYCLOPEDIA = (
    Path(__file__).resolve().parents[2] / "shared" / "data" / "encyclopedia" / "vital-articles-en.parquet"
)


def site_pages(topic: str, n: int, seed: int = 0) -> list[StoredPage]:
    rows = pl.read_parquet(ENCYCLOPEDIA).filter(pl.col("topic") == topic).to_dicts()
    random.Random(seed).shuffle(rows)
    return [StoredPage(url=r["url"], title=f"{r['title']} - Wikipedia", text=r["text"]) for r in rows[:n]]


def naive(pages: list[StoredPage]) -> list[Query]:
    out = []
    for i, p in enumerate(pages):
        first = split_sentences(p.text)[0].text
        out.append(
            Query(
                query_set_id="naive",
                query_id=f"q{i}",
                query=f"What is {p.title.split(' - ')[0]}?",
                domain="en.wikipedia.org",
                expected_answer=first,
                claims=[ExpectedClaim(id="c1", text=first.rstrip("."))],
                source_urls=[p.url],
            )
        )
    return out


def score(queries: list[Query], pages: list[StoredPage], embedder: LocalEmbedder) -> dict[str, float]:
    urls = [p.url for p in pages]
    text = {p.url: p.text for p in pages}
    P = embedder.encode([p.text for p in pages])
    Q = embedder.encode([q.query for q in queries])
    ranks = np.argsort(-(Q @ P.T), axis=1)
    spec1 = spec3 = located = grounded = n_claims = 0
    for i, q in enumerate(queries):
        src = urls.index(q.source_urls[0])
        spec1 += ranks[i, 0] == src
        spec3 += src in ranks[i, :3]
        sentences = split_sentences(text[q.source_urls[0]])
        S = embedder.encode([s.text for s in sentences])
        best = content_terms(sentences[int(np.argmax(S @ Q[i]))].text)
        located += any(content_terms(c.text) <= best for c in q.claims)
        terms = [content_terms(s.text) for s in sentences]
        grounded += all(any(content_terms(c.text) <= t for t in terms) for c in q.claims)
        n_claims += len(q.claims)
    sims = Q @ Q.T
    pairs = len(queries) * (len(queries) - 1) / 2
    dupes = (np.triu(sims, 1) >= 0.9).sum() / pairs if pairs else 0.0
    n = len(queries)
    return {
        "queries": n,
        "specificity@1": spec1 / n,
        "specificity@3": spec3 / n,
        "answer located": located / n,
        "claims grounded": grounded / n,
        "claims/query": n_claims / n,
        "near-duplicate pairs": float(dupes),
        "pages covered": len({q.source_urls[0] for q in queries}) / len(pages),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=150)
    parser.add_argument("--topic", default="Technology")
    parser.add_argument("--per-page", type=float, default=2.0, help="queries drafted per page")
    args = parser.parse_args()
    pages = site_pages(args.topic, args.pages)
    embedder = LocalEmbedder()
    t0 = time.perf_counter()
    drafted = draft_query_set(
        pages, "en.wikipedia.org", n=int(args.pages * args.per_page), embedder=embedder
    ).queries
    seconds = time.perf_counter() - t0
    rows = {
        "sleuth baseline": score(drafted, pages, embedder),
        "naive (What is <title>?)": score(naive(pages), pages, embedder),
    }
    print(f"{args.topic}: {len(pages)} pages; baseline drafted {len(drafted)} queries in {seconds:.1f} s\n")
    keys = list(next(iter(rows.values())))
    print(f"{'drafter':28s}" + "".join(f"{k:>22s}" for k in keys))
    for name, r in rows.items():
        print(
            f"{name:28s}"
            + "".join(f"{r[k]:>22.3f}" if isinstance(r[k], float) else f"{r[k]:>22d}" for k in keys)
        )
    kinds = sum(not q.query.startswith(("What is", "Who was", "What should")) for q in drafted)
    print(f"\nfact questions (not overview): {kinds / len(drafted):.2f}; examples:")
    for q in random.Random(1).sample(drafted, min(8, len(drafted))):
        print(f"  {q.query}  <- {q.claims[0].text[:90]}")


if __name__ == "__main__":
    main()
