"""Train the research answerer's span model (``modules/research/spans.json``).

Runs the offline research loop (``--max-steps 6`` on the HotpotQA + encyclopedia corpus, as
``evals.bench_research``) with the hand-set span score deciding, so the training pages do not
depend on an earlier model, on the training questions: the **train** parts of the HotpotQA and
encyclopedia sets and the two retired test sets (encyclopedia-b and encyclopedia-c, each run once
as a frozen test before it was retired to training). Every candidate the answerer reads in each
report's facts (:func:`modules.research.answer.span_candidates`) is a row of its readings, labelled
right when its token F1 with the gold answer is at least 0.8; a logistic regression is fitted.
The inverse L2 strength is chosen on the **dev** questions: the most questions whose top-rated
candidate is right, then the lowest log loss. The frozen test (encyclopedia-d) is not read.

Run: ``.venv/bin/python -m evals.train_spans [--dry-run]`` (about 10 minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from datetime import date
from pathlib import Path
from unittest import mock

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss

from evals.bench_research import RIGHT_F1
from evals.hotpot import research_questions, write_corpus
from modules.evaluation.nodes import answer_scores
from modules.research.answer import span_candidates
from modules.research.calibration import FEATURES as CALIBRATION_FEATURES
from modules.research.calibration import Calibrator
from modules.research.session import ResearchOptions, build_researcher
from modules.research.spans import FEATURES, WEIGHTS

#: the training questions: (question set, part)
TRAIN = (
    ("hotpot", "train"),
    ("encyclopedia", "train"),
    ("encyclopedia-b", "test"),
    ("encyclopedia-c", "test"),
)
DEV = (("hotpot", "dev"), ("encyclopedia", "dev"))
REGULARISATION_C = (0.03, 0.1, 0.3, 1.0, 3.0)
VERSION = "spans-1"


def gather(researcher, sets) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Per question: its qid, the readings of each candidate, and which candidates are right."""
    out = []
    for source, part in sets:
        for q in research_questions(part, source):
            context = researcher.run(q.question).assessment.context
            found = span_candidates(q.question, context.facts)
            x = np.array([[c.features[f] for f in FEATURES] for c in found], dtype=float).reshape(
                -1, len(FEATURES)
            )
            y = np.array([answer_scores(q.answer, c.text)["f1"] >= RIGHT_F1 for c in found], dtype=int)
            out.append((q.qid, x, y))
    return out


def top_right(groups, mean, scale, weights, bias) -> int:
    """Questions whose top-rated candidate is right."""
    return sum(bool(y[int(np.argmax(((x - mean) / scale) @ weights + bias))]) for _, x, y in groups if len(y))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="print the weights and the scores only")
    args = parser.parse_args()

    corpus = write_corpus(Path(tempfile.mkdtemp(prefix="sleuth-spans-")))
    researcher = build_researcher(ResearchOptions(corpus=str(corpus), max_steps=6, max_seconds=600))
    researcher.calibrator = Calibrator(tuple(0.0 for _ in CALIBRATION_FEATURES), 0.0)  # withholds nothing
    with mock.patch("modules.research.spans.shipped", lambda: None):  # the hand-set score decides
        train, dev = gather(researcher, TRAIN), gather(researcher, DEV)
    x = np.vstack([g[1] for g in train if len(g[2])])
    y = np.concatenate([g[2] for g in train if len(g[2])])
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    dev_x = np.vstack([g[1] for g in dev if len(g[2])])
    dev_y = np.concatenate([g[2] for g in dev if len(g[2])])
    hand = np.zeros(len(FEATURES))
    hand[FEATURES.index("score")] = 1.0
    print(f"{len(train)} training questions, {len(y)} candidates ({y.sum()} right); {len(dev)} dev questions")
    print(
        f"hand-set score: train {top_right(train, 0, 1, hand, 0)}, dev {top_right(dev, 0, 1, hand, 0)} right at the top"
    )
    best = None
    for c in REGULARISATION_C:
        model = LogisticRegression(C=c, max_iter=5000).fit((x - mean) / scale, y)
        w, b = model.coef_[0], float(model.intercept_[0])
        right = top_right(dev, mean, scale, w, b)
        loss = log_loss(dev_y, model.predict_proba((dev_x - mean) / scale)[:, 1], labels=[0, 1])
        print(
            f"C={c}: train {top_right(train, mean, scale, w, b)}, dev {right} right at the top, dev log loss {loss:.4f}"
        )
        if best is None or (right, -loss) > (best[0], -best[1]):
            best = (right, loss, c, w, b)
    right, loss, c, w, b = best
    print(f"kept C={c}")
    for name, weight in zip(FEATURES, w, strict=True):
        print(f"  {name:15} {weight:+.3f}")
    spec = {
        "version": VERSION,
        "features": list(FEATURES),
        "mean": [round(float(v), 6) for v in mean],
        "scale": [round(float(v), 6) for v in scale],
        "weights": [round(float(v), 6) for v in w],
        "bias": round(b, 6),
        "C": c,
        "trained_on": {
            "questions": [f"{source} {part}" for source, part in TRAIN],
            "question_count": len(train),
            "candidates": int(len(y)),
            "right": int(y.sum()),
        },
        "dev": {
            "questions": len(dev),
            "right_at_the_top": right,
            "hand_set_right_at_the_top": top_right(dev, 0, 1, hand, 0),
            "log_loss": round(float(loss), 4),
        },
        "trained": date.today().isoformat(),
        "command": "python -m evals.train_spans",
    }
    if args.dry_run:
        print(json.dumps(spec, indent=1))
        return
    WEIGHTS.write_text(json.dumps(spec, indent=1) + "\n")
    print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
