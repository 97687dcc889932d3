"""Build the labeled eval sets of the four nodes from HotpotQA; writes evals/sets/*.jsonl.

Split by question, so no question is in two parts: question index % 3 == 0 is dev (tune and
choose thresholds), 1 is train (fit and compile), 2 is test (frozen: scored once, at the end of a
quality change, and reported beside dev); ``evals/sets/split.json`` records it. Labels:

- relevance: the question's 10 paragraphs; gold = the 2 supporting paragraphs and sentences.
- report: the supporting sentences as facts (with their paragraph URLs); gold = the answer.
- analyzer: one page per example, read against a memory: each gold paragraph with the other's
  supporting facts in memory (gold facts = its supporting sentences; answered = true), each gold
  paragraph with an empty memory (answered = false), one distractor (no gold facts), and, where
  a supporting sentence holds a number, that page with the number changed while memory holds
  the true sentence (inconsistency = true).
- decision: states recorded along the baseline research loop's real trajectories on the offline
  corpus, with the Decision node's inputs as the loop builds them and the memory's facts (which
  the Decision baseline reads); gold action: both gold paragraphs read -> send_to_hitl; else a
  gold paragraph's URL among the unread candidates -> crawl_url (those URLs); else a search
  naming an unread gold paragraph's title (those titles). Recorded on the corpus (search results
  are read) and on the offline web (``--web``, ``mode: web``: snippets only, pages read by
  crawling), where the crawl_url states arise.

Run: ``.venv/bin/python -m evals.build_sets`` (the decision set runs the loop: a few minutes,
plus the corpus index build on first use).
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from pathlib import Path

from evals.hotpot import HOTPOT, Question, load_questions, write_corpus
from evals.hotpot import PARTS as PARTS_BY_INDEX

SETS = Path(__file__).resolve().parent / "sets"
# v2: the decision set adds states recorded on the offline web; v3: decision states in both modes
# carry the Decision node's inputs exactly as the loop builds them (ranked candidate lines, the
# history with its step budget and queries, the actions open at that state)
# v4: a frozen test part (index % 3 == 2), taken out of train
VERSION = "v4"
PARTS = ("train", "dev", "test")
#: the Decision node's inputs a state row keeps (its initial_query is the row's question)
DECISION_FIELDS = (
    "analyzer_report",
    "research_history",
    "memory_summary",
    "candidate_urls",
    "available_actions",
)
WEB_STEPS = 16  # as evals.bench_research --web


def split_of(index: int) -> str:
    return PARTS_BY_INDEX[index % 3]


def relevance_examples(q: Question) -> list[dict]:
    return [
        {
            "qid": q.qid,
            "question": q.question,
            "plan": None,
            "results": [
                {"id": url, "title": title, "url": url, "text": " ".join(s.strip() for s in ss)}
                for url, title, ss in q.paragraphs
            ],
            "gold_ids": sorted(q.gold_urls),
            "gold_sentences": [s for _, s in q.supporting],
        }
    ]


def report_examples(q: Question) -> list[dict]:
    facts = [{"text": s, "source_url": u} for u, s in q.supporting]
    return [{"qid": q.qid, "question": q.question, "facts": facts, "answer": q.answer}]


def _page(q: Question, url: str) -> dict:
    title, sentences = next((t, ss) for u, t, ss in q.paragraphs if u == url)
    return {"url": url, "title": title, "text": " ".join(s.strip() for s in sentences)}


def analyzer_examples(q: Question) -> list[dict]:
    out = []
    gold = sorted(q.gold_urls)
    for url in gold:
        page = _page(q, url)
        own = [s for u, s in q.supporting if u == url]
        other = [{"text": s, "source_url": u} for u, s in q.supporting if u != url]
        out.append(
            {
                "qid": q.qid,
                "question": q.question,
                "page": page,
                "memory": other,
                "gold_facts": own,
                "answered": True,
                "inconsistent": False,
                "case": "second_hop",
            }
        )
        out.append(
            {
                "qid": q.qid,
                "question": q.question,
                "page": page,
                "memory": [],
                "gold_facts": own,
                "answered": False,
                "inconsistent": False,
                "case": "first_hop",
            }
        )
        for s in own:
            m = re.search(r"\b\d{2,4}\b", s)
            if m:
                changed = s[: m.start()] + str(int(m.group()) + 7) + s[m.end() :]
                page_c = {**page, "url": url + "#conflicting-copy", "text": page["text"].replace(s, changed)}
                out.append(
                    {
                        "qid": q.qid,
                        "question": q.question,
                        "page": page_c,
                        "memory": [{"text": s, "source_url": url}],
                        "gold_facts": [changed],
                        "answered": False,
                        "inconsistent": True,
                        "case": "conflict",
                    }
                )
                break
    distractor = next((u for u, _, _ in q.paragraphs if u not in q.gold_urls), None)
    if distractor:
        out.append(
            {
                "qid": q.qid,
                "question": q.question,
                "page": _page(q, distractor),
                "memory": [],
                "gold_facts": [],
                "answered": False,
                "inconsistent": False,
                "case": "distractor",
            }
        )
    return out


def decision_examples(
    questions: list[Question], max_steps: int = 6, web: bool = False
) -> dict[str, list[dict]]:
    """States along the baseline loop's trajectories, labeled with the gold next action.

    ``web``: on the offline web (``sleuth research --web``), where search gives snippets only and
    pages are read by crawling, so states with a gold page among the unread candidates arise.
    Their site URLs are written as the documents' URLs (the site's port changes every run)."""
    from modules.research.session import ResearchOptions, build_researcher

    corpus = write_corpus(Path(tempfile.mkdtemp(prefix="sleuth-sets-")))
    researcher = build_researcher(
        ResearchOptions(corpus=str(corpus), max_steps=max_steps, max_seconds=600, rerank=web, web=web)
    )
    site = researcher.search["local"].site if web else None
    states: dict[str, list[dict]] = {}

    def as_documents(value):
        """``value`` with every URL of the site replaced by its document's URL."""
        if site is None:
            return value
        if isinstance(value, dict):
            return {as_documents(k): as_documents(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [as_documents(v) for v in value]
        if not isinstance(value, str):
            return value

        def original(m: re.Match) -> str:
            url, tail = m.group(), ""
            while url and site.original(url) is None and url[-1] in ").,;:":
                url, tail = url[:-1], url[-1] + tail  # "(source: URL)": the ")" is prose
            return (site.original(url) or url) + tail

        return re.sub(re.escape(site.base) + r"/\S+", original, value)

    def record(thread, memory) -> None:
        q = current
        read = {as_documents(u) for u in thread.read_urls}
        unread_candidates = [as_documents(u) for u in thread.candidate_urls if u not in thread.read_urls]
        if q.gold_urls <= read:
            action, acceptable = "send_to_hitl", []
        elif any(u in q.gold_urls for u in unread_candidates):
            action, acceptable = "crawl_url", sorted(u for u in unread_candidates if u in q.gold_urls)
        else:
            action = "search"
            acceptable = sorted(t for u, t, _ in q.paragraphs if u in q.gold_urls and u not in read)
        a = thread.last_analysis
        inputs = as_documents(researcher.decision_node_inputs(thread, memory))
        state = {  # what the baseline Decision program reads, to re-run it on this state
            "engines": thread.engines,
            "step": thread.step,
            "queries": list(thread.queries),
            "read_urls": sorted(thread.read_urls),
            "titles": dict(thread.titles),
            "searched_entities": sorted(thread.searched_entities),
            "candidate_urls": list(thread.candidate_urls),
            "no_progress_steps": thread.no_progress_steps,
            "history": list(thread.history),
            "constraints": list(thread.constraints),
            "last_analysis": a.model_dump() if a else None,
            # the memory at this state: the Decision baseline reads whether it answers
            "facts": [
                {"text": f.text, "source_url": f.source_url, "status": f.status, "confidence": f.confidence}
                for f in memory.facts
            ],
        }
        if web:
            state |= {"web": True, "origins": dict(thread.origins)}
        states.setdefault(q.qid, []).append(
            {
                "qid": q.qid,
                "question": q.question,
                "mode": "web" if web else "corpus",
                "step": thread.step,
                # the Decision node's inputs, as the loop builds them (its own method, both modes)
                **{k: inputs[k] for k in DECISION_FIELDS},
                "gold_action": action,
                "acceptable": acceptable,
                "gold_urls": sorted(q.gold_urls),
                "paragraph_titles": {u: t for u, t, _ in q.paragraphs},
                "paragraph_texts": {u: " ".join(x.strip() for x in ss) for u, _, ss in q.paragraphs},
                "state": as_documents(state),
            }
        )

    decide = researcher._decide

    def recording_decide(thread, memory, log):
        record(thread, memory)
        return decide(thread, memory, log)

    researcher._decide = recording_decide
    for current in questions:
        researcher.run(current.question)
    return states


def main() -> None:
    questions = load_questions()
    SETS.mkdir(parents=True, exist_ok=True)
    split = {q.qid: split_of(i) for i, q in enumerate(questions)}
    builders = {"relevance": relevance_examples, "report": report_examples, "analyzer": analyzer_examples}
    counts = {}
    for node, build in builders.items():
        for part in PARTS:
            rows = [x for q in questions if split[q.qid] == part for x in build(q)]
            _write(SETS / f"{node}-{part}.jsonl", rows)
            counts[f"{node}-{part}"] = len(rows)
    states = decision_examples(questions)
    web_states = decision_examples(questions, max_steps=WEB_STEPS, web=True)
    for part in PARTS:
        rows = [
            s
            for q in questions
            if split[q.qid] == part
            for s in states.get(q.qid, []) + web_states.get(q.qid, [])
        ]
        _write(SETS / f"decision-{part}.jsonl", rows)
        counts[f"decision-{part}"] = len(rows)
    source_hash = hashlib.sha256(HOTPOT.read_bytes()).hexdigest()[:16]
    (SETS / "split.json").write_text(
        json.dumps(
            {
                "version": VERSION,
                "source": "hotpotqa/hotpotqa-dev-distractor-60.json",
                "source_sha256_16": source_hash,
                "rule": "question index % 3: 0 -> dev, 1 -> train, 2 -> test (frozen: scored once, "
                "at the end of a quality change)",
                "counts": counts,
                "dev": [qid for qid, p in split.items() if p == "dev"],
                "train": [qid for qid, p in split.items() if p == "train"],
                "test": [qid for qid, p in split.items() if p == "test"],
            },
            indent=2,
        )
        + "\n"
    )
    print(json.dumps(counts, indent=2))


def _write(path: Path, rows: list[dict]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    tmp.replace(path)


if __name__ == "__main__":
    main()
