"""Tokens and calls per research question on the LM path, as a provider would bill them.

A scripted model (``FakeLM``) behind a local OpenAI-compatible server plays a plausible research
at ``--max-steps``: the Decision node searches the question, then alternately crawls its first
candidate URL and searches one named thing of the question, never handing over early; the
Analyzer quotes the first sentence of every document and says the question is still open; rerank
scores every result with every field of its signature, as a model does; the Report cites the
first facts. The server counts each request's prompt and reply at 4 characters a token (what it
bills); with ``--server-context`` it refuses a prompt that with its reply cap exceeds that window.
sleuth runs with its default context window unless ``--lm-context`` is given. Pages are the
HotpotQA paragraphs (60 questions, ~600 pages) grown to web length (~12k characters) with other
paragraphs' text, as a web page carries navigation, related articles and footers.

    .venv/bin/python -m evals.bench_lm_tokens [--questions 5] [--max-steps 8] [--lm-context N]

Prints per node the calls and tokens (prompt and reply) of a median question, and fallbacks. To
compare with another commit, run it with that commit's tree first on ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

from evals.hotpot import load_questions
from modules.lm import LMSettings
from modules.research.session import ResearchOptions, build_researcher
from modules.testing import FakeLM, node_of, prompt_tokens

_URL = re.compile(r"https?://[^\s\"|,\]\\]+")
_NAMED = re.compile(r"[A-Z][\w.'-]+(?:\s+[A-Z][\w.'-]+)*")


def _field(messages: list[dict], name: str) -> str:
    user = "\n".join(m.get("content") or "" for m in messages if m.get("role") == "user")
    part = user.split(f"[[ ## {name} ## ]]", 1)
    return part[1].split("[[ ## ", 1)[0].strip() if len(part) > 1 else ""


class ScriptedModel:
    """Answers every node as a diligent model would, so that the loop runs its full length."""

    def __init__(self, max_steps: int):
        self.max_steps = max_steps
        self.decisions: Counter[str] = Counter()

    def __call__(self, node: str, messages: list[dict]) -> dict:
        if node == "decision":
            return self._decide(messages)
        if node == "analysis":
            return self._analyze(messages)
        if node == "report":
            facts = _field(messages, "facts").splitlines()[:3]
            urls = list(dict.fromkeys(u for line in facts for u in _URL.findall(line)))
            answer = " ".join(f"{line[2:120]} [{i}]." for i, line in enumerate(facts, 1))
            short = facts[0][2:60] if facts else ""
            return {"key_sources": urls, "answer": answer, "answer_type": "entity", "short_answer": short}
        if node == "order":
            return {
                "order": [int(i) for i in re.findall(r'<result index="(\d+)"', _field(messages, "results"))]
            }
        if node == "rankings":
            blocks = re.findall(
                r'<result index="(\d+)"[^>]*>\n(.*?)\n</result>', _field(messages, "results"), re.S
            )
            rankings = []
            for index, text in blocks:
                words = text.split()
                rankings.append(
                    {
                        "originalIndex": int(index),
                        "directRelevance": 70,
                        "depth": 50,
                        "planAlignment": 60,
                        "unexpectedness": 20,
                        "briefAnswer": " ".join(words[:7]),
                        "sentenceStart": " ".join(words[:4]),
                        "sentenceEnd": " ".join(words[8:12]),
                        "coreTerms": words[:5],
                        "relevanceNote": "It names one of the entities of the query and states a fact "
                        "about it that the research plan asks for, with a date and a place.",
                    }
                )
            return {
                "rankings": rankings,
                "introduction": "The results cover both entities of the question; the first ones state "
                "the attribute asked for.",
                "semantic_note": None,
            }
        return {}

    def _decide(self, messages: list[dict]) -> dict:
        question = _field(messages, "initial_query").splitlines()[0]
        self.decisions[question] += 1
        k = self.decisions[question]
        candidates = _URL.findall(_field(messages, "candidate_urls"))
        named = [m.group() for m in _NAMED.finditer(question.split(" ", 1)[-1])] or [question]
        if k == 1:
            return {
                "next_action": "search_local",
                "query_or_url": question,
                "reasoning": "start from the question",
            }
        if k % 2 == 0 and candidates:
            return {
                "next_action": "crawl_url",
                "query_or_url": candidates[0],
                "reasoning": "a promising lead",
            }
        target = named[(k // 2) % len(named)]
        return {
            "next_action": "search_local",
            "query_or_url": f"{target} {k}",
            "reasoning": f"the facts about {target} are still open",
        }

    @staticmethod
    def _analyze(messages: list[dict]) -> dict:
        docs = re.findall(r"<document [^>]*>\n(.*?)\n</document>", _field(messages, "documents"), re.S)
        facts = [
            {"doc": i, "quote": re.split(r"(?<=[.!?])\s", d, maxsplit=1)[0][:240]}
            for i, d in enumerate(docs, 1)
        ]
        return {
            "extracted_info": facts,
            "assessment": "Some facts are found; the compared attribute of the second entity is still open.",
            "confidence_score": 0.5,
            "suggestions_for_next_step": ["search the second entity", "read its biography"],
            "new_potential_urls": [],
            "inconsistencies_found": None,
            "answered": False,
        }


def web_corpus(folder: Path, seed: int = 0) -> Path:
    """HotpotQA paragraphs grown to ~12k characters each with other paragraphs' text."""
    rows, seen = [], set()
    for q in load_questions():
        for url, title, sentences in q.paragraphs:
            if url not in seen:
                seen.add(url)
                rows.append({"url": url, "title": title, "text": " ".join(s.strip() for s in sentences)})
    rng = random.Random(seed)
    texts = [r["text"] for r in rows]
    for r in rows:
        extra = []
        while len(r["text"]) + sum(map(len, extra)) < 12_000:
            extra.append(rng.choice(texts))
        r["text"] = r["text"] + " " + " ".join(extra)
    path = folder / "corpus.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=5)
    parser.add_argument("--max-steps", type=int, default=8)
    parser.add_argument(
        "--lm-context", type=int, default=None, help="sleuth's --lm-context (default: its own)"
    )
    parser.add_argument(
        "--server-context", type=int, default=None, help="the fake model's window (default: none)"
    )
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="sleuth-tokens-"))
    corpus = web_corpus(tmp)
    questions = load_questions()[: args.questions]
    model = ScriptedModel(args.max_steps)
    fake = FakeLM(responder=model, context_tokens=args.server_context)
    per_question: list[dict] = []
    try:
        for q in questions:
            start = len(fake.requests)
            options = ResearchOptions(
                search="local",
                corpus=str(corpus),
                lm=LMSettings.from_env("openai/scripted", fake.base_url, args.lm_context),
                max_steps=args.max_steps,
            )
            researcher = build_researcher(options)
            result = researcher.run(q.question)
            calls: Counter[str] = Counter()
            tokens: dict[str, int] = defaultdict(int)
            for body in fake.requests[start:]:
                node = node_of(body.get("messages", []))
                calls[node] += 1
                tokens[node] += prompt_tokens(body) + len(fake.replies.get(id(body), "")) // 4
            fallbacks = sum(1 for s in result.steps if s.fallback)
            reported = sum(s.tokens for s in result.steps)
            per_question.append(
                {
                    "qid": q.qid,
                    "calls": dict(calls),
                    "tokens": dict(tokens),
                    "reported_tokens": reported,
                    "fallbacks": fallbacks,
                    "steps": max(s.step for s in result.steps),
                }
            )
            print(json.dumps(per_question[-1]))
    finally:
        fake.close()
    billed = [sum(q["tokens"].values()) for q in per_question]
    med = statistics.median
    nodes = sorted({n for q in per_question for n in q["calls"]})
    print(f"\n{len(per_question)} questions at --max-steps {args.max_steps}, --lm-context {args.lm_context}:")
    for n in nodes:
        print(
            f"  {n:10s} calls {med([q['calls'].get(n, 0) for q in per_question]):5.1f}   "
            f"tokens {med([q['tokens'].get(n, 0) for q in per_question]):8.0f}"
        )
    print(f"  median tokens per question, prompts and replies as billed: {med(billed):.0f}")
    print(
        f"  median tokens in reports.tokens (prompt + reply): {med([q['reported_tokens'] for q in per_question]):.0f}"
    )
    print(f"  fallbacks: {sum(q['fallbacks'] for q in per_question)}")


if __name__ == "__main__":
    main()
