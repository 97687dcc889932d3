"""The research runs the answer ranker and the calibrator learn from, run once and kept.

The offline research loop (``--max-steps 6`` on the HotpotQA + encyclopedia corpus, as
``evals.bench_research``), with a neutral calibrator so that no answer is withheld, on the dev and
train parts of both question sets and on the retired test sets (:data:`RETIRED`: written as frozen
tests, run once, then given to training when a newer set took their place). Each run keeps what a
report's short answer is checked against (:class:`~modules.research.calibration.AnswerContext`:
the facts, the answerer's pick, the answer the research stopped on, whether memory holds
conflicts); ``evals.train_answer_ranker`` and ``evals.train_calibrator`` both read them, so the
loop (~21 minutes) runs once for both (``--contexts FILE`` in either writes or reads them). The
test parts of the two sets and the newest test sets are never run here.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
from pathlib import Path

from evals.hotpot import research_questions, write_corpus
from modules.research.answer import Answer, Evidence
from modules.research.calibration import FEATURES, AnswerContext, Calibrator
from modules.research.session import ResearchOptions, build_researcher

SOURCES = ("hotpot", "encyclopedia")
#: frozen test sets that were run once and reported, then retired to training (a newer set is the
#: test): their questions are train rows like the train parts'
RETIRED = (
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
)


def research_contexts(path: Path | None = None) -> list[dict]:
    """One row per run: set, part, qid, question, gold answer and its context (see
    :func:`context_of`); read from ``path`` when it exists, else run and written there."""
    if path and path.exists():
        return [json.loads(line) for line in path.read_text().splitlines()]
    corpus = write_corpus(Path(tempfile.mkdtemp(prefix="sleuth-research-runs-")))
    researcher = build_researcher(ResearchOptions(corpus=str(corpus), max_steps=6, max_seconds=600))
    researcher.calibrator = Calibrator(tuple(0.0 for _ in FEATURES), 0.0)  # withholds nothing
    jobs = [("dev", s) for s in SOURCES] + [("train", s) for s in SOURCES] + [("test", s) for s in RETIRED]
    rows = []
    for part, source in jobs:
        for q in research_questions(part, source):
            context = researcher.run(q.question).assessment.context
            found = dataclasses.asdict(context.found)
            rows.append(
                {
                    "set": source,
                    "part": part,
                    "qid": q.qid,
                    "question": q.question,
                    "gold": q.answer,
                    "found": found,
                    "facts": [dataclasses.asdict(f) for f in context.facts],
                    "handover": context.handover,
                    "conflicts": context.conflicts,
                }
            )
    if path:
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return rows


def context_of(row: dict) -> AnswerContext:
    """The :class:`AnswerContext` a row of :func:`research_contexts` kept."""
    found = dict(row["found"])
    found["support"] = [Evidence(**f) for f in found["support"]]
    return AnswerContext(
        row["question"],
        Answer(**found),
        [Evidence(**f) for f in row["facts"]],
        row["handover"],
        row["conflicts"],
    )
