"""Compiling a node's DSPy program against its labeled set: the optimizers ``sleuth optimize`` runs.

``labeled`` needs no LM: it places gold-labeled demos (LabeledFewShot). ``bootstrap``,
``random-search`` and ``mipro`` bootstrap demos by running the program (and MIPROv2 proposes
instructions with the teacher LM); ``gepa`` evolves instructions from the metric's feedback,
reflecting with the teacher LM. All of them need an LM; quality gains need a capable one.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import dspy

from ..programs import SIGNATURES, new_program
from ..relevance.analyzer import RelevanceAnalyzer
from ..relevance.schema import SearchResultIn
from ..relevance.signatures import LMRanking
from ..research.schema import Analysis, Decision, Quote, Report
from . import judge
from .nodes import METRICS

OPTIMIZERS = ("labeled", "bootstrap", "random-search", "mipro", "gepa")
#: Demos a compiled program holds per node: relevance demos carry ten passages each, judge ones
#: page excerpts.
DEMOS = {"relevance": 2, "judge": 4}
DEFAULT_DEMOS = 6


def demo_context(node: str, context_tokens: int) -> int:
    """The window a train example (a demo to be) is fitted to: a 1/(demos + 1) share of the
    model's, so that the demos and a live input, fitted beside them, fit it together."""
    return max(1024, context_tokens // (DEMOS.get(node, DEFAULT_DEMOS) + 1))


def _fields(node: str, output) -> dict:
    """A node's pydantic output as its signature's output fields."""
    return {k: v for k, v in dict(output).items() if k in SIGNATURES[node].output_fields}


def gold_output(node: str, row: dict, inputs: dict | None = None) -> dict:
    """The labeled output of an example, as the node's signature outputs it (field by field)."""
    if node == "judge":
        return judge.gold_output(row, (inputs or {}).get("page_excerpts"))
    if node == "decision":
        action = {"search": "search_local"}.get(row["gold_action"], row["gold_action"])
        arg = row["acceptable"][0] if row["acceptable"] else None
        why = {
            "send_to_hitl": "Both needed sources are read; hand the findings over.",
            "crawl_url": "A page that holds a missing part of the answer is among the candidates.",
            "search_local": "A needed entity has not been researched yet; search for it by name.",
        }[action]
        return _fields("decision", Decision(next_action=action, query_or_url=arg, reasoning=why))
    if node == "analyzer":
        return _fields(
            "analyzer",
            Analysis(
                extracted_info=[Quote(doc=1, quote=f) for f in row["gold_facts"]],  # one page a row
                assessment="gold label",
                confidence_score=0.9 if row["answered"] else 0.4,
                suggestions_for_next_step=[]
                if row["answered"]
                else ["research the entity the facts point to"],
                inconsistencies_found="the page contradicts a stored fact" if row["inconsistent"] else None,
                answered=row["answered"],
            ),
        )
    if node == "report":
        sources = list(dict.fromkeys(f["source_url"] for f in row["facts"]))
        kind = "yes_no" if row["answer"] in ("yes", "no") else "entity"
        report = Report(
            short_answer=row["answer"], answer_type=kind, answer=row["answer"], key_sources=sources
        )
        return _fields("report", report)
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


def labeled(node: str, examples: list[dspy.Example]) -> list[dspy.Example]:
    return [
        dspy.Example(**ex.toDict(), **gold_output(node, ex.row, ex.inputs())).with_inputs(*ex.inputs().keys())
        for ex in examples
    ]


def optimizer_metric(node: str, embedder=None) -> Callable:
    """The node's metric on a raw program prediction (relevance rankings are placed in code first)."""
    metric = METRICS[node]

    def run(gold, pred, trace=None, pred_name=None, pred_trace=None):
        if node == "relevance":
            analyzer = RelevanceAnalyzer(embedder=embedder)
            pred = dspy.Prediction(
                results=analyzer.from_rankings(
                    gold.row["question"],
                    [SearchResultIn.model_validate(r) for r in gold.row["results"]],
                    pred.rankings,
                ).results
            )
        return metric(gold, pred, trace, pred_name, pred_trace)

    return run


def compile_program(
    node: str,
    optimizer: str,
    trainset: list[dspy.Example],
    *,
    lm: dspy.LM | None,
    teacher_lm: dspy.LM | None = None,
    devset: list[dspy.Example] | None = None,
    seed: int = 0,
    embedder=None,
) -> dspy.Module:
    if optimizer not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {optimizer!r}: use {', '.join(OPTIMIZERS)}")
    student = new_program(node)
    demos_k = DEMOS.get(node, DEFAULT_DEMOS)
    if optimizer == "labeled":
        return dspy.LabeledFewShot(k=demos_k).compile(student, trainset=labeled(node, trainset), sample=False)
    if lm is None:
        raise ValueError(f"the {optimizer} optimizer runs the program: give an LM (--lm or SLEUTH_LM)")
    metric = optimizer_metric(node, embedder)
    score_only = lambda gold, pred, trace=None: metric(gold, pred, trace).score  # noqa: E731
    teacher = {"lm": teacher_lm} if teacher_lm is not None else None
    train = labeled(node, trainset)
    # labeled examples carry their inputs as plain dicts (Example.toDict): not a mismatch to warn of
    with dspy.context(lm=lm, warn_on_type_mismatch=False):
        if optimizer == "bootstrap":
            return dspy.BootstrapFewShot(
                metric=score_only,
                metric_threshold=0.99,
                teacher_settings=teacher,
                max_bootstrapped_demos=demos_k // 2,
                max_labeled_demos=demos_k // 2,
            ).compile(student, trainset=train)
        if optimizer == "random-search":
            return dspy.BootstrapFewShotWithRandomSearch(
                metric=score_only,
                teacher_settings=teacher,
                max_bootstrapped_demos=demos_k // 2,
                max_labeled_demos=demos_k // 2,
                num_candidate_programs=4,
                num_threads=1,
            ).compile(student, trainset=train, valset=devset or train)
        if optimizer == "mipro":
            return dspy.MIPROv2(
                metric=score_only,
                prompt_model=teacher_lm or lm,
                task_model=lm,
                auto="light",
                num_threads=1,
                max_bootstrapped_demos=demos_k // 2,
                max_labeled_demos=demos_k // 2,
                seed=seed,
                verbose=False,
            ).compile(student, trainset=train, valset=devset or train, requires_permission_to_run=False)
        return dspy.GEPA(
            metric=metric,
            auto="light",
            reflection_lm=teacher_lm or lm,
            num_threads=1,
            seed=seed,
            track_stats=False,
        ).compile(student, trainset=train, valset=devset or train)


def describe(program: dspy.Module) -> str:
    """A short summary of what a compiled program holds: demos and instruction length per predictor."""
    parts = []
    for name, predictor in program.named_predictors():
        parts.append(
            f"{name}: {len(predictor.demos)} demos, instructions {len(predictor.signature.instructions)} chars"
        )
    return json.dumps(parts)
