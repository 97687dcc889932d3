"""The research questions and the offline research corpus built around them.

Two question sets: HotpotQA (distractor, 60 questions, ``hotpot-NNN``) and questions written
over the encyclopedia's leads in HotpotQA's style (``evals/sets/research-encyclopedia.jsonl``,
``enc-NNN``: bridge questions through a thing one lead names to its own lead, and comparisons of
two leads). Both are split by the same rule, question index % 3: 0 dev, 1 train, 2 test (frozen).

The corpus is every HotpotQA paragraph (gold and distractor) plus the encyclopedia's
10,033 article leads. A paragraph's URL is the Wikipedia URL of its title.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import polars as pl

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
HOTPOT = SHARED / "hotpotqa" / "hotpotqa-dev-distractor-60.json"
ENCYCLOPEDIA = SHARED / "encyclopedia" / "vital-articles-en.parquet"


def wiki_url(title: str) -> str:
    return "https://en.wikipedia.org/wiki/" + title.replace(" ", "_")


@dataclass(frozen=True)
class Question:
    qid: str
    question: str
    answer: str
    kind: str  # bridge | comparison
    gold_urls: frozenset[str]
    supporting: tuple[tuple[str, str], ...]  # (url, sentence) of each supporting fact
    paragraphs: tuple[tuple[str, str, tuple[str, ...]], ...]  # (url, title, sentences), the 10 given


def load_questions(path: Path = HOTPOT) -> list[Question]:
    out = []
    for i, q in enumerate(json.loads(Path(path).read_text())):
        context = {title: sentences for title, sentences in q["context"]}
        supporting = tuple(
            (wiki_url(t), context[t][k].strip())
            for t, k in q["supporting_facts"]
            if t in context and k < len(context[t])
        )
        out.append(
            Question(
                qid=f"hotpot-{i:03d}",
                question=q["question"],
                answer=q["answer"],
                kind=q["type"],
                gold_urls=frozenset(wiki_url(t) for t, _ in q["supporting_facts"]),
                supporting=supporting,
                paragraphs=tuple((wiki_url(t), t, tuple(s)) for t, s in q["context"]),
            )
        )
    return out


ENCYCLOPEDIA_QUESTIONS = Path(__file__).resolve().parent / "sets" / "research-encyclopedia.jsonl"
#: the split of every research question set, by question index % 3 (the one home of the rule)
PARTS = ("dev", "train", "test")


def load_encyclopedia_questions(path: Path = ENCYCLOPEDIA_QUESTIONS) -> list[Question]:
    out = []
    for line in Path(path).read_text().splitlines():
        q = json.loads(line)
        supporting = tuple((s["url"], s["sentence"]) for s in q["supporting"])
        out.append(
            Question(
                qid=q["qid"],
                question=q["question"],
                answer=q["answer"],
                kind=q["type"],
                gold_urls=frozenset(u for u, _ in supporting),
                supporting=supporting,
                paragraphs=(),
            )
        )
    return out


#: 60 questions written later over the encyclopedia's leads by a helper who never saw the
#: research agent: a test set only (the first sets' test parts were run, then retired to training)
ENCYCLOPEDIA_B_QUESTIONS = Path(__file__).resolve().parent / "sets" / "research-encyclopedia-b-test.jsonl"
#: 60 more, written the same way after encyclopedia-b was run (120 articles no other set uses): a
#: test set only, frozen for the next piece of work on issues 35 and 38
ENCYCLOPEDIA_C_QUESTIONS = Path(__file__).resolve().parent / "sets" / "research-encyclopedia-c-test.jsonl"
#: 60 more, written the same way after encyclopedia-c was run (120 articles no other set uses): a
#: test set only, frozen before the general answerer's work on issue 35
ENCYCLOPEDIA_D_QUESTIONS = Path(__file__).resolve().parent / "sets" / "research-encyclopedia-d-test.jsonl"
#: 60 more, written the same way after encyclopedia-d was run (120 articles no other set uses): a
#: test set only, frozen before the trained sentence picker's work on issue 38
ENCYCLOPEDIA_E_QUESTIONS = Path(__file__).resolve().parent / "sets" / "research-encyclopedia-e-test.jsonl"
#: 60 more, written the same way after encyclopedia-e was run through the loop (120 articles no
#: other set uses; the relevance ranker's synthetic training, fitted before, may hold their leads):
#: a test set only, run once, then retired to the calibrator's and the picker's training
ENCYCLOPEDIA_F_QUESTIONS = Path(__file__).resolve().parent / "sets" / "research-encyclopedia-f-test.jsonl"
#: 60 more, written the same way after encyclopedia-f was run (120 articles no other set uses; the
#: same caveat on the ranker's synthetic training): a test set only, run once (2026-12-02), spent
ENCYCLOPEDIA_G_QUESTIONS = Path(__file__).resolve().parent / "sets" / "research-encyclopedia-g-test.jsonl"
#: 60 more, written the same way after encyclopedia-g was run (120 articles no other set uses; the
#: same caveat on the ranker's synthetic training): a test set only, run once (2026-12-02), spent
ENCYCLOPEDIA_H_QUESTIONS = Path(__file__).resolve().parent / "sets" / "research-encyclopedia-h-test.jsonl"
#: 60 more, written the same way after encyclopedia-h was run (120 articles no other set uses; the
#: same caveat on the ranker's synthetic training): a test set only, run once (2026-12-02), spent
ENCYCLOPEDIA_I_QUESTIONS = Path(__file__).resolve().parent / "sets" / "research-encyclopedia-i-test.jsonl"
#: 60 more, written the same way after encyclopedia-i was run (120 articles no other set uses; the
#: same caveat on the ranker's synthetic training): a test set only, run once (2026-12-03), spent
ENCYCLOPEDIA_J_QUESTIONS = Path(__file__).resolve().parent / "sets" / "research-encyclopedia-j-test.jsonl"
#: 60 more, written the same way after encyclopedia-j was run (120 articles no other set uses; the
#: same caveat on the ranker's synthetic training): a test set only, run once (2026-12-03), spent
ENCYCLOPEDIA_K_QUESTIONS = Path(__file__).resolve().parent / "sets" / "research-encyclopedia-k-test.jsonl"
#: 60 more, written the same way after encyclopedia-k was run (120 articles no other set uses; the
#: same caveat on the ranker's synthetic training): a test set only, run once (2026-12-03), spent
ENCYCLOPEDIA_L_QUESTIONS = Path(__file__).resolve().parent / "sets" / "research-encyclopedia-l-test.jsonl"
#: 60 more, written the same way after encyclopedia-l was run, from 117 articles no other set uses
#: (the same caveat on the ranker's synthetic training): a test set only, run once (2026-12-03), spent
ENCYCLOPEDIA_M_QUESTIONS = Path(__file__).resolve().parent / "sets" / "research-encyclopedia-m-test.jsonl"
#: 60 more, written the same way after encyclopedia-m was run, from 120 articles no other set uses
#: (relevance-ranker-2's synthetic training, fitted before, may hold their leads; relevance-ranker-3
#: held them out): a test set only, run once (2026-12-04), spent
ENCYCLOPEDIA_N_QUESTIONS = Path(__file__).resolve().parent / "sets" / "research-encyclopedia-n-test.jsonl"
#: 60 more, written the same way after encyclopedia-n was run, from 120 articles no other set uses
#: (relevance-ranker-3's synthetic training, fitted before, may hold their leads): a test set only,
#: run once (2026-12-05), spent
ENCYCLOPEDIA_O_QUESTIONS = Path(__file__).resolve().parent / "sets" / "research-encyclopedia-o-test.jsonl"
#: 60 more, written the same way after encyclopedia-o was run, from 120 articles no other set or
#: HotpotQA context uses (the relevance ranker's synthetic training, fitted before, may hold their
#: leads): a test set only, run once (2026-12-05), spent
ENCYCLOPEDIA_P_QUESTIONS = Path(__file__).resolve().parent / "sets" / "research-encyclopedia-p-test.jsonl"
#: 60 more, written the same way while encyclopedia-p was run (by a helper who never saw the code),
#: from 120 articles no other set or HotpotQA context uses (the relevance ranker's synthetic
#: training, fitted before, may hold their leads): a test set only, run once (2026-12-05), spent
ENCYCLOPEDIA_Q_QUESTIONS = Path(__file__).resolve().parent / "sets" / "research-encyclopedia-q-test.jsonl"
#: 60 more, written the same way after encyclopedia-q was run (by a helper who never saw the code),
#: from 120 articles no other set or HotpotQA context uses (the relevance ranker's synthetic
#: training, fitted before, may hold their leads): a test set only, frozen (2026-12-06) for the
#: next piece of work on issues 35 and 38
ENCYCLOPEDIA_R_QUESTIONS = Path(__file__).resolve().parent / "sets" / "research-encyclopedia-r-test.jsonl"
#: 60 more, written the same way the same day (by a helper who never saw the code), from 120
#: articles no other set (encyclopedia-r included) or HotpotQA context uses: a test set only,
#: frozen (2026-12-06) for the piece of work after encyclopedia-r's
ENCYCLOPEDIA_S_QUESTIONS = Path(__file__).resolve().parent / "sets" / "research-encyclopedia-s-test.jsonl"
#: the question sets: each split by index % 3 (:data:`PARTS`), or all of it a test set
QUESTION_SETS = (
    "hotpot",
    "encyclopedia",
    "encyclopedia-b",
    "encyclopedia-c",
    "encyclopedia-d",
    "encyclopedia-e",
    "encyclopedia-f",
    "encyclopedia-g",
    "encyclopedia-h",
    "encyclopedia-i",
    "encyclopedia-j",
    "encyclopedia-k",
    "encyclopedia-l",
    "encyclopedia-m",
    "encyclopedia-n",
    "encyclopedia-o",
    "encyclopedia-p",
    "encyclopedia-q",
    "encyclopedia-r",
    "encyclopedia-s",
)
_TEST_ONLY = {
    "encyclopedia-b": ENCYCLOPEDIA_B_QUESTIONS,
    "encyclopedia-c": ENCYCLOPEDIA_C_QUESTIONS,
    "encyclopedia-d": ENCYCLOPEDIA_D_QUESTIONS,
    "encyclopedia-e": ENCYCLOPEDIA_E_QUESTIONS,
    "encyclopedia-f": ENCYCLOPEDIA_F_QUESTIONS,
    "encyclopedia-g": ENCYCLOPEDIA_G_QUESTIONS,
    "encyclopedia-h": ENCYCLOPEDIA_H_QUESTIONS,
    "encyclopedia-i": ENCYCLOPEDIA_I_QUESTIONS,
    "encyclopedia-j": ENCYCLOPEDIA_J_QUESTIONS,
    "encyclopedia-k": ENCYCLOPEDIA_K_QUESTIONS,
    "encyclopedia-l": ENCYCLOPEDIA_L_QUESTIONS,
    "encyclopedia-m": ENCYCLOPEDIA_M_QUESTIONS,
    "encyclopedia-n": ENCYCLOPEDIA_N_QUESTIONS,
    "encyclopedia-o": ENCYCLOPEDIA_O_QUESTIONS,
    "encyclopedia-p": ENCYCLOPEDIA_P_QUESTIONS,
    "encyclopedia-q": ENCYCLOPEDIA_Q_QUESTIONS,
    "encyclopedia-r": ENCYCLOPEDIA_R_QUESTIONS,
    "encyclopedia-s": ENCYCLOPEDIA_S_QUESTIONS,
}


def research_questions(part: str, source: str = "hotpot") -> list[Question]:
    """One part (dev, train, test or all) of a question set (:data:`QUESTION_SETS`)."""
    if source in _TEST_ONLY:
        return load_encyclopedia_questions(_TEST_ONLY[source]) if part in ("test", "all") else []
    questions = load_questions() if source == "hotpot" else load_encyclopedia_questions()
    return [q for i, q in enumerate(questions) if part == "all" or PARTS[i % 3] == part]


def corpus_rows() -> list[dict]:
    rows = pl.read_parquet(ENCYCLOPEDIA).select("url", "title", "text").to_dicts()
    seen = {r["url"] for r in rows}
    for q in json.loads(HOTPOT.read_text()):
        for title, sentences in q["context"]:
            url = wiki_url(title)
            if url not in seen:
                seen.add(url)
                rows.append({"url": url, "title": title, "text": "".join(sentences)})
    return rows


def write_corpus(folder: Path) -> Path:
    """The research corpus as Parquet (url, title, text); its index is cached by content hash."""
    path = Path(folder) / "corpus.parquet"
    pl.DataFrame(corpus_rows()).write_parquet(path)
    return path
