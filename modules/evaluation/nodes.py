"""Per-node eval sets, metrics and runners (baseline program or DSPy program) for every node.

Every metric returns ``dspy.Prediction(score=0..1, feedback=text)``: ``dspy.Evaluate`` reads the
score, GEPA also reads the feedback (what was wrong). The sets are built by
``evals/build_sets.py`` into ``evals/sets/<node>-<train|dev>.jsonl``; the ``judge`` node's are
the labeled verdict sets ``evals/sets/verdicts-*-<train|dev>.jsonl`` (:mod:`.judge`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import string
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import bm25s
import dspy
import numpy as np
import polars as pl

from ..embeddings import Embedder, LocalEmbedder
from ..lm import DEFAULT_CONTEXT_TOKENS, LMSettings, NodeRunner, output_model
from ..nodes import NodeSpec
from ..nodes import node as node_spec
from ..relevance.analyzer import RelevanceAnalyzer, rerank_inputs
from ..relevance.anchor import normalise
from ..relevance.schema import ResearchPlan, SearchResultIn
from ..relevance.signatures import LMRanking
from ..research.baseline import BaselineAnalyzer, BaselineDecision, BaselineReport
from ..research.crawling import CrawlingDecision
from ..research.memory import Memory
from ..research.prompts import analyzer_inputs, decision_inputs, fact_lines, report_inputs
from ..research.schema import Analysis, Decision, Fact, Quote, Report, Source
from ..research.thread import Thread
from ..response import ResponseAnalyzer
from ..store import frame
from ..text import content_terms, overlap_f1
from . import judge
from .labeled_sets import SETS

logging.getLogger("bm25s").setLevel(logging.WARNING)  # one tiny index per decision example: no build logs


def set_path(node: str, part: str) -> Path:
    """The node's labeled set (for ``judge`` a glob over the verdict sets)."""
    spec = node_spec(node)
    if spec.sets == "verdicts":
        return judge.set_pattern(part)
    return SETS / f"{spec.sets}-{part}.jsonl"


def file_hash(path: str | Path) -> str:
    if "*" in str(path):
        return judge.files_hash(path)
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def load_examples(
    node: str,
    path: str | Path | None = None,
    part: str = "dev",
    context_tokens: int = DEFAULT_CONTEXT_TOKENS,
    program: dspy.Module | None = None,
    limit: int | None = None,
) -> list[dspy.Example]:
    """Examples with the DSPy signature's inputs set as the node sends them to a model with a
    ``context_tokens`` window (``--lm-context``) beside ``program``'s demos, and the raw row kept
    under ``row``; ``limit``: that many, spread evenly over the set (:func:`spread`)."""
    spec = node_spec(node)
    runner = NodeRunner(context_tokens=context_tokens)
    if program is not None:
        runner.fit_program(node, program)
    return spread(EVALUATIONS[node].examples(spec, Path(path or set_path(node, part)), runner), limit)


def _labeled_rows(inputs: Callable[[dict, NodeRunner], dict[str, Any]]) -> Callable:
    """A node's example loader for a JSON-lines set: each row with the node's inputs built by
    ``inputs`` (as the research loop builds them) and the raw row kept under ``row``."""

    def load(spec: NodeSpec, path: Path, runner: NodeRunner) -> list[dspy.Example]:
        if not path.exists():
            raise FileNotFoundError(f"no eval set {path}; build it with: python -m evals.build_sets")
        names = tuple(spec.signature.input_fields)
        out = []
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                out.append(dspy.Example(row=row, **inputs(row, runner)).with_inputs(*names))
        return out

    return load


def _verdict_rows(spec: NodeSpec, path: Path, runner: NodeRunner) -> list[dspy.Example]:
    return judge.load_examples(path, runner)


def spread(examples: list, limit: int | None) -> list:
    """``limit`` examples evenly over the set (sets are grouped by source: the first ones would
    be one source's), in order; all of them without a limit."""
    if limit is None or limit >= len(examples):
        return examples
    if limit < 1:
        raise ValueError(f"the example limit must be >= 1, got {limit}")
    return [examples[i * len(examples) // limit] for i in range(limit)]


# ----- inputs: a labeled row as the node's prompt inputs, built as the research loop builds them
# (rows written by evals/build_sets.py keep the Decision node's inputs as the loop built them at
# that state), fitted to the runner's window
def _decision_inputs(row: dict, runner: NodeRunner) -> dict[str, Any]:
    return decision_inputs(
        row["question"],
        [],
        row["analyzer_report"],
        row["research_history"],
        row["memory_summary"],
        row["candidate_urls"],
        row["available_actions"],
    )


def _analyzer_inputs(row: dict, runner: NodeRunner) -> dict[str, Any]:
    page = row["page"]
    shared = fact_lines(("unverified", m["text"], m["source_url"]) for m in row["memory"])
    room = runner.input_chars("analyzer", fixed=len(shared) + len(row["question"]))
    return analyzer_inputs(
        row["question"], [Source(url=page["url"], title=page["title"], text=page["text"])], shared, room
    )


def _report_inputs(row: dict, runner: NodeRunner) -> dict[str, Any]:
    return report_inputs(
        row["question"],
        fact_lines(("unverified", f["text"], f["source_url"]) for f in row["facts"]),
        "the facts cover the question",
        "searched and read the sources",
    )


def _relevance_inputs(row: dict, runner: NodeRunner) -> dict[str, Any]:
    results = [SearchResultIn.model_validate(r) for r in row["results"]]
    return rerank_inputs(row["question"], ResearchPlan.parse(row.get("plan")), results, runner)


# ----- metrics -----------------------------------------------------------------------------
def _norm_answer(s: str) -> str:
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def answer_scores(gold: str, predicted: str) -> dict[str, float]:
    """SQuAD-style exact match and token F1, and containment (the gold string in the answer)."""
    g, p = _norm_answer(gold), _norm_answer(predicted)
    common = Counter(g.split()) & Counter(p.split())
    same = sum(common.values())
    f1 = 0.0 if not same else 2 * same / (len(g.split()) + len(p.split()))
    return {"exact_match": float(g == p), "f1": f1, "containment": float(bool(g) and f" {g} " in f" {p} ")}


def _same_sentence(a: str, b: str) -> bool:
    na, nb = normalise(a), normalise(b)
    return (
        na == nb
        or (len(na) > 20 and (na in nb or nb in na))
        or overlap_f1(content_terms(a), content_terms(b)) >= 0.8
    )


def metric_decision(gold: dspy.Example, pred, trace=None, pred_name=None, pred_trace=None) -> dspy.Prediction:
    row = gold.row
    decision = output_model(Decision, pred)
    action, arg = decision.next_action, (decision.query_or_url or "")
    want = row["gold_action"]
    if want == "send_to_hitl":
        ok = action == "send_to_hitl"
        return dspy.Prediction(
            score=float(ok),
            action_accuracy=float(ok),
            feedback="correct: both gold paragraphs are read, hand over"
            if ok
            else f"wrong: both gold paragraphs are already read; expected send_to_hitl, got {action}",
        )
    if want == "crawl_url":
        if action != "crawl_url":
            return dspy.Prediction(
                score=0.0,
                action_accuracy=0.0,
                feedback=f"expected crawl_url of one of {row['acceptable']}, got {action} {arg!r}",
            )
        ok = arg in row["acceptable"]
        return dspy.Prediction(
            score=1.0 if ok else 0.5,
            action_accuracy=1.0,
            argument_quality=float(ok),
            feedback="correct URL"
            if ok
            else f"right action, wrong URL {arg!r}; a gold page is among the candidates: {row['acceptable']}",
        )
    if not action.startswith("search_"):
        return dspy.Prediction(
            score=0.0,
            action_accuracy=0.0,
            feedback=f"expected a search naming one of {row['acceptable']}, got {action}",
        )
    hit = query_retrieves_gold(arg, row)
    return dspy.Prediction(
        score=1.0 if hit else 0.5,
        action_accuracy=1.0,
        query_quality=float(hit),
        feedback=(
            "the query retrieves a gold paragraph"
            if hit
            else f"the query {arg!r} does not retrieve a missing gold paragraph ({row['acceptable']}) in the top 3"
        ),
    )


def query_retrieves_gold(query: str, row: dict, k: int = 3) -> bool:
    """Query quality: a still-missing gold paragraph in the top ``k`` of a BM25 index over the question's paragraphs."""
    titles = row["paragraph_titles"]
    texts = row.get("paragraph_texts") or {}
    urls = list(titles)
    docs = [f"{titles[u]} {texts.get(u, '')}" for u in urls]
    tokens = bm25s.tokenize([query], stopwords="en", show_progress=False)
    if not query.strip() or not tokens.vocab:
        return False
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(docs, stopwords="en", show_progress=False), show_progress=False)
    ids, scores = retriever.retrieve(tokens, k=min(k, len(docs)), show_progress=False)
    wanted = {u for u, t in titles.items() if t in row["acceptable"]}
    return any(urls[i] in wanted and s > 0 for i, s in zip(ids[0], scores[0]))


def metric_analyzer(gold: dspy.Example, pred, trace=None, pred_name=None, pred_trace=None) -> dspy.Prediction:
    row = gold.row
    analysis = output_model(Analysis, pred)
    facts = [f.quote for f in analysis.extracted_info]
    found = [g for g in row["gold_facts"] if any(_same_sentence(g, f) for f in facts)]
    recall = len(found) / len(row["gold_facts"]) if row["gold_facts"] else float(not facts)
    precision = (
        (sum(any(_same_sentence(f, g) for g in row["gold_facts"]) for f in facts) / len(facts))
        if facts
        else float(not row["gold_facts"])
    )
    f1 = 0.0 if not (recall + precision) else 2 * recall * precision / (recall + precision)
    answered_ok = bool(analysis.answered) == row["answered"]
    flagged = bool(analysis.inconsistencies_found)
    conflict_ok = flagged == row["inconsistent"]
    score = (f1 + answered_ok + conflict_ok) / 3
    problems = []
    missing = [g for g in row["gold_facts"] if g not in found]
    if missing:
        problems.append("missed facts: " + " | ".join(m[:120] for m in missing))
    if facts and precision < 1:
        problems.append(
            f"{round((1 - precision) * len(facts))} extracted statements are not supporting facts"
        )
    if not answered_ok:
        problems.append(f"answered should be {row['answered']}")
    if not conflict_ok:
        problems.append(
            "the page contradicts memory; report the inconsistency"
            if row["inconsistent"]
            else "no inconsistency here"
        )
    return dspy.Prediction(
        score=score,
        feedback="; ".join(problems) or "all correct",
        fact_recall=recall,
        fact_precision=precision,
        answered_accuracy=float(answered_ok),
        inconsistency_accuracy=float(conflict_ok),
    )


def metric_report(gold: dspy.Example, pred, trace=None, pred_name=None, pred_trace=None) -> dspy.Prediction:
    """Exact match and F1 of the short answer (HotpotQA's normalisation), containment of the
    gold answer in the whole answer; the score is the better of F1 and containment."""
    report = output_model(Report, pred)
    s = answer_scores(gold.row["answer"], report.short_answer)
    s["containment"] = answer_scores(gold.row["answer"], report.answer)["containment"]
    score = max(s["f1"], s["containment"])
    feedback = (
        "the answer contains the gold answer"
        if s["containment"]
        else f"the gold answer is {gold.row['answer']!r}; state it plainly"
    )
    return dspy.Prediction(score=score, feedback=feedback, **s)


def metric_relevance(
    gold: dspy.Example, pred, trace=None, pred_name=None, pred_trace=None
) -> dspy.Prediction:
    row = gold.row
    results = pred.results
    top2 = {r.id for r in results[:2]}
    both = top2 == set(row["gold_ids"])
    gold_results = [r for r in results if r.id in row["gold_ids"]]
    hits = [
        any(_same_sentence(r.sentence, g) for g in row["gold_sentences"]) for r in gold_results if r.sentence
    ]
    hit_rate = sum(hits) / len(row["gold_ids"])
    problems = (
        [] if both else [f"the two gold passages ({', '.join(row['gold_ids'])}) should rank first and second"]
    )
    if hit_rate < 1:
        problems.append("anchor the supporting sentence of each gold passage")
    return dspy.Prediction(
        score=0.5 * both + 0.5 * hit_rate,
        feedback="; ".join(problems) or "all correct",
        both_gold_at_2=float(both),
        sentence_hit=hit_rate,
    )


def metric_judge(gold: dspy.Example, pred, trace=None, pred_name=None, pred_trace=None) -> dspy.Prediction:
    return judge.metric(gold, pred, trace, pred_name, pred_trace)


# ----- baselines: the node's deterministic program on a labeled row ------------------------------
def _baseline_decision(row: dict, embedder: Embedder) -> dspy.Prediction:
    program = CrawlingDecision if row["state"].get("web") else BaselineDecision
    memory = _stored(embedder, row["state"].get("facts") or [], step=0)
    return dspy.Prediction(**dict(program(embedder)(_thread(embedder, row), memory)))


def _baseline_analyzer(row: dict, embedder: Embedder) -> dspy.Prediction:
    page = row["page"]
    memory = _stored(embedder, row["memory"], step=0)
    thread = Thread(question=row["question"], engines=["local"], step=1)
    thread.titles = {m["source_url"]: "" for m in row["memory"]}
    analysis, facts = BaselineAnalyzer(embedder)(
        thread, [Source(url=page["url"], title=page["title"], text=page["text"])], memory
    )
    _, conflicts = memory.add(facts, 1)
    analysis.inconsistencies_found = "; ".join(conflicts) or None
    return dspy.Prediction(**dict(analysis))


def _baseline_report(row: dict, embedder: Embedder) -> dspy.Prediction:
    memory = _stored(embedder, row["facts"], step=1)
    thread = Thread(question=row["question"], engines=["local"], step=1)
    # the page titles, which the loop knows of every page read (a set URL is the Wikipedia URL of
    # its paragraph's title)
    thread.titles = {f["source_url"]: _url_title(f["source_url"]) for f in row["facts"]}
    thread.last_analysis = Analysis(confidence_score=0.9, answered=True)
    return dspy.Prediction(**dict(BaselineReport()(thread, memory, "searched and read the sources")))


def _baseline_relevance(row: dict, embedder: Embedder) -> dspy.Prediction:
    out = RelevanceAnalyzer(embedder=embedder).rerank(row["question"], row.get("plan"), row["results"])
    return dspy.Prediction(results=out.results)


def _stored(embedder: Embedder, facts: list[dict], step: int) -> Memory:
    """A memory of labeled facts (text, source URL; status and confidence when recorded; sets
    built before the Decision's memory was recorded have none)."""
    return Memory(
        embedder,
        [
            Fact(
                fact_id=f"f{i}",
                text=f["text"],
                quote=f["text"],
                source_url=f["source_url"],
                step=step,
                confidence=f.get("confidence", 1.0),
                status=f.get("status", "unverified"),
            )
            for i, f in enumerate(facts)
        ],
    )


def _thread(embedder: Embedder, row: dict) -> Thread:
    state = row["state"]
    thread = Thread(
        question=row["question"],
        engines=state["engines"],
        step=state["step"],
        queries=list(state["queries"]),
        read_urls=set(state["read_urls"]),
        titles=dict(state["titles"]),
        searched_entities=set(state["searched_entities"]),
        candidate_urls=list(state["candidate_urls"]),
        no_progress_steps=state["no_progress_steps"],
        history=list(state["history"]),
        constraints=list(state["constraints"]),
        origins={u: (title, where) for u, (title, where) in state.get("origins", {}).items()},
    )
    if state["last_analysis"]:
        thread.last_analysis = Analysis.model_validate(state["last_analysis"])
    if thread.queries:
        thread.query_vectors = list(embedder.encode(thread.queries))
    return thread


def _url_title(url: str) -> str:
    """ "https://en.wikipedia.org/wiki/Ed_Wood_(film)" -> "Ed Wood (film)" """
    return unquote(url.rsplit("/", 1)[-1]).replace("_", " ")


def _per_example(baseline: Callable[[dict, Embedder], dspy.Prediction]) -> Callable:
    return lambda embedder: lambda example: baseline(example.row, embedder)


def _batched_judge(embedder: Embedder) -> judge.JudgeBaselineRunner:
    """The offline analyzer, which analyses a whole set in batches (``prepare``)."""
    return judge.JudgeBaselineRunner(ResponseAnalyzer(embedder=embedder))


# ----- gold outputs: a labeled row as the node's signature outputs it (a labeled demo) ----------
def _outputs(node: str, output) -> dict:
    """A node's pydantic output as its signature's output fields."""
    return {k: v for k, v in dict(output).items() if k in node_spec(node).signature.output_fields}


def _gold_decision(row: dict, inputs: dict) -> dict:
    action = {"search": "search_local"}.get(row["gold_action"], row["gold_action"])
    arg = row["acceptable"][0] if row["acceptable"] else None
    why = {
        "send_to_hitl": "Both needed sources are read; hand the findings over.",
        "crawl_url": "A page that holds a missing part of the answer is among the candidates.",
        "search_local": "A needed entity has not been researched yet; search for it by name.",
    }[action]
    return _outputs("decision", Decision(next_action=action, query_or_url=arg, reasoning=why))


def _gold_analyzer(row: dict, inputs: dict) -> dict:
    return _outputs(
        "analyzer",
        Analysis(
            extracted_info=[Quote(doc=1, quote=f) for f in row["gold_facts"]],  # one page a row
            assessment="gold label",
            confidence_score=0.9 if row["answered"] else 0.4,
            suggestions_for_next_step=[] if row["answered"] else ["research the entity the facts point to"],
            inconsistencies_found="the page contradicts a stored fact" if row["inconsistent"] else None,
            answered=row["answered"],
        ),
    )


def _gold_report(row: dict, inputs: dict) -> dict:
    sources = list(dict.fromkeys(f["source_url"] for f in row["facts"]))
    kind = "yes_no" if row["answer"] in ("yes", "no") else "entity"
    report = Report(short_answer=row["answer"], answer_type=kind, answer=row["answer"], key_sources=sources)
    return _outputs("report", report)


def _gold_relevance(row: dict, inputs: dict) -> dict:
    gold = set(row["gold_ids"])
    rankings = []
    for i, r in enumerate(row["results"]):
        sentence = next((s for s in row["gold_sentences"] if s in r["text"]), r["text"].split(". ")[0])
        words = sentence.split()
        rankings.append(
            LMRanking(
                originalIndex=i,
                directRelevance=90 if r["id"] in gold else 20,
                depth=70 if r["id"] in gold else 30,
                planAlignment=70 if r["id"] in gold else 20,
                unexpectedness=30,
                briefAnswer=" ".join(words[:6]),
                sentenceStart=" ".join(words[:4]),
                sentenceEnd=" ".join(words[-4:]),
                coreTerms=[w.strip(".,") for w in words[:3]],
                relevanceNote="gold" if r["id"] in gold else "distractor",
            )
        )
    rankings.sort(key=lambda x: -x.directRelevance)
    return {
        "rankings": rankings,
        "introduction": "The two gold passages answer the question.",
        "semantic_note": None,
    }


def _gold_judge(row: dict, inputs: dict) -> dict:
    return judge.gold_output(row, inputs.get("page_excerpts"))


def _placed_rankings(row: dict, prediction: dspy.Prediction, embedder: Embedder | None) -> dspy.Prediction:
    """The relevance program's rankings placed in code (anchors, scores, order), as a run places them."""
    results = [SearchResultIn.model_validate(r) for r in row["results"]]
    ranked = RelevanceAnalyzer(embedder=embedder or LocalEmbedder()).from_rankings(
        row["question"], results, prediction.rankings, ResearchPlan.parse(row.get("plan"))
    )
    return dspy.Prediction(results=ranked.results)


@dataclass(frozen=True)
class NodeEvaluation:
    """The evaluation half of a node (:data:`modules.nodes.NODES` holds the rest), keyed by the
    same name: how its labeled set becomes examples, its baseline program as a runner factory (a
    runner may have ``prepare(examples)`` to work in batches), its metric, the gold output a
    labeled demo shows, how many demos a compiled program keeps, and how a program's raw
    prediction is placed in code before it is scored (where a run does so)."""

    examples: Callable[[NodeSpec, Path, NodeRunner], list[dspy.Example]]
    baseline: Callable[[Embedder], Callable[[dspy.Example], dspy.Prediction]]
    metric: Callable[..., dspy.Prediction]
    gold: Callable[[dict, dict], dict]
    demos: int = 6
    placed: Callable[[dict, dspy.Prediction, Embedder | None], dspy.Prediction] | None = None


EVALUATIONS: dict[str, NodeEvaluation] = {
    "decision": NodeEvaluation(
        _labeled_rows(_decision_inputs), _per_example(_baseline_decision), metric_decision, _gold_decision
    ),
    "analyzer": NodeEvaluation(
        _labeled_rows(_analyzer_inputs), _per_example(_baseline_analyzer), metric_analyzer, _gold_analyzer
    ),
    "relevance": NodeEvaluation(
        _labeled_rows(_relevance_inputs),
        _per_example(_baseline_relevance),
        metric_relevance,
        _gold_relevance,
        demos=2,  # each demo carries ten passages
        placed=_placed_rankings,
    ),
    "report": NodeEvaluation(
        _labeled_rows(_report_inputs), _per_example(_baseline_report), metric_report, _gold_report
    ),
    "judge": NodeEvaluation(_verdict_rows, _batched_judge, metric_judge, _gold_judge, demos=4),
}


# ----- runners ------------------------------------------------------------------------------
class BaselineRunner:
    """Runs a node's baseline program on an example; returns what the DSPy program would."""

    def __init__(self, node: str, embedder: Embedder | None = None):
        node_spec(node)
        self.node, self.embedder = node, embedder or LocalEmbedder()
        self._run = EVALUATIONS[node].baseline(self.embedder)

    def prepare(self, examples: list[dspy.Example]) -> None:
        if hasattr(self._run, "prepare"):
            self._run.prepare(examples)

    def __call__(self, example: dspy.Example) -> dspy.Prediction:
        return self._run(example)


def fitted_program(node: str, program: dspy.Module, context_tokens: int) -> dspy.Module:
    """``program`` with the demos that fit a ``context_tokens`` window, as a run fits it."""
    return NodeRunner(context_tokens=context_tokens).fit_program(node, program)


def node_lm(node: str, settings: LMSettings) -> dspy.LM | None:
    """The LM as the node runs in production: its reply cap and temperature (its budget in
    ``modules.nodes``), so that an evaluation or a compiled program's demos see the replies a
    run would get."""
    return settings.runner().lm_for(node)


class ProgramRunner:
    """Runs a DSPy program (with its LM) on an example, its prediction placed in code where a run
    places it (the relevance node's rankings)."""

    def __init__(self, node: str, program: dspy.Module, lm: dspy.LM, embedder: Embedder | None = None):
        self.node, self.program, self.lm = node, program, lm
        self.embedder = embedder

    def __call__(self, example: dspy.Example) -> dspy.Prediction:
        with dspy.context(lm=self.lm):
            prediction = self.program(**example.inputs())
        placed = EVALUATIONS[self.node].placed
        return placed(example.row, prediction, self.embedder) if placed else prediction


def evaluate(
    node: str, runner: Callable[[dspy.Example], dspy.Prediction], examples: list[dspy.Example]
) -> tuple[float, list[dict]]:
    """Mean score and one row per example (score, feedback, error); a failing example scores 0."""
    rows = []
    metric = EVALUATIONS[node].metric
    if hasattr(runner, "prepare"):
        runner.prepare(examples)  # the judge's baseline analyses the whole set in batches
    for i, ex in enumerate(examples):
        try:
            result = metric(ex, runner(ex))
            extra = {
                k: float(v)
                for k, v in result.items()
                if k not in ("score", "feedback") and isinstance(v, (int, float))
            }
            rows.append(
                {
                    "example": i,
                    "qid": ex.row.get("qid"),
                    "score": float(result.score),
                    "feedback": result.feedback,
                    "error": None,
                    **extra,
                }
            )
        except Exception as exc:  # noqa: BLE001 - an unparseable LM answer is a zero, with its reason
            rows.append(
                {
                    "example": i,
                    "qid": ex.row.get("qid"),
                    "score": 0.0,
                    "feedback": "",
                    "error": f"{type(exc).__name__}: {str(exc)[:300]}",
                }
            )
    return (float(np.mean([r["score"] for r in rows])) if rows else 0.0), rows


EVALUATIONS_SCHEMA = {
    "node": pl.String,
    "program": pl.String,
    "program_version": pl.String,
    "split": pl.String,
    "example": pl.Int64,
    "qid": pl.String,
    "score": pl.Float64,
    "feedback": pl.String,
    "error": pl.String,
    "metrics": pl.String,
}
_ROW_KEYS = set(EVALUATIONS_SCHEMA) - {"metrics"}


def evaluations_frame(rows: list[dict]) -> pl.DataFrame:
    """The ``evaluations`` table: the metric's parts (fact_recall, f1...) go into the ``metrics`` JSON."""
    return frame(
        [
            {
                **{k: r.get(k) for k in _ROW_KEYS},
                "metrics": json.dumps(
                    {k: v for k, v in r.items() if k not in _ROW_KEYS and isinstance(v, float)}
                ),
            }
            for r in rows
        ],
        EVALUATIONS_SCHEMA,
    )


def breakdown(rows: list[dict]) -> dict[str, dict[str, float]]:
    """Mean of the score and of every metric detail (action accuracy, fact recall, F1...) per program."""
    groups: dict[str, list[dict]] = {}
    for r in rows:
        key = r["program"] + (f" ({r['program_version']})" if r.get("program_version") else "")
        groups.setdefault(key, []).append(r)
    out = {}
    skip = {"example", "qid", "feedback", "error", "node", "program", "program_version", "split"}
    for key, rs in groups.items():
        metrics = sorted({k for r in rs for k, v in r.items() if k not in skip and isinstance(v, float)})
        out[key] = {
            "examples": len(rs),
            "errors": sum(bool(r["error"]) for r in rs),
            **{
                m: round(sum(r[m] for r in rs if m in r) / max(sum(m in r for r in rs), 1), 4)
                for m in metrics
            },
        }
    return out
