"""Claim-verdict examples from real text: encyclopedia sentences and TruthfulQA.

The default source, the encyclopedia (``../shared/data/encyclopedia``): in a sample of Vital
Articles leads, a sentence that states a value (a number, a year, a quantity) becomes an expected
claim, the article its ground-truth page, and assistant-style answers are made around it, each
with its gold verdict:

- ``verbatim`` (found): the sentence as the answer says it, among other sentences or markdown;
- ``reworded`` (found): the same value written another way (``three`` for 3, ``1.2 thousand``
  style scales dropped, ``in the year 1990``), the rest unchanged;
- ``number`` / ``year`` (contradicted): one value changed beyond any rounding;
- ``negation`` (contradicted): ``not`` inserted after the first ``is/was/are/were``;
- ``omitted`` (missing): the answer states other sentences of the article, not this one.

A contradicted answer also carries the wrong fact's span (the changed sentence) and its kind.
Every third sampled article is dev. Writes ``verdicts-encyclopedia-{train,dev}.jsonl``.

``--source truthfulqa`` (``../shared/data/truthfulqa``, half A): the Best Answer is the claim and,
with the question's Correct Answers, the page (``https://truthfulqa.eval/q/N``); the answers are
the best answer (found), an Incorrect Answer (contradicted, the whole statement the wrong fact,
kind ``other``) and another question's best answer (missing); non-answers ("I have no comment")
are left out. Writes ``verdicts-truthfulqa-{train,dev,pages}.jsonl``.

``--test`` writes the frozen test split (``verdicts-{source}-test.jsonl``, and for TruthfulQA
``verdicts-truthfulqa-test-pages.jsonl``) from articles or questions the train and dev files do
not hold, with its own seed, leaving those files as they are. All output goes to ``evals/sets``
and is deterministic for a seed:

    .venv/bin/python -m evals.build_verdicts [--articles 240] [--seed 0]
    .venv/bin/python -m evals.build_verdicts --source truthfulqa [--questions 150] [--seed 0]
    .venv/bin/python -m evals.build_verdicts --test --articles 100      # the frozen test split
    .venv/bin/python -m evals.build_verdicts --test --source truthfulqa --questions 100
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
from pathlib import Path

import polars as pl

from modules.response.facts import values
from modules.text import split_sentences

SOURCE = (
    Path(__file__).resolve().parents[1].parent
    / "shared"
    / "data"
    / "encyclopedia"
    / "vital-articles-en.parquet"
)
OUT = Path(__file__).resolve().parent / "sets"
TRUTHFULQA = SOURCE.parents[1] / "truthfulqa" / "truthfulqa-half-a.csv"
_WORDS = {
    1: "one",
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
    10: "ten",
    11: "eleven",
    12: "twelve",
}
_COPULA = re.compile(r"\b(is|was|are|were)\b(?! not\b)")
_WRAPPERS = [
    "{body}",
    "Sure! {body}",
    "**Short answer:** {body}\n\nLet me know if you'd like more detail.",
    "Here's a quick overview:\n\n{body}",
    "Based on what I know, {body}",
    "Great question. {body} I hope this helps!",
]


def reword(sentence: str, rng: random.Random) -> str | None:
    """The sentence with one value written another way (the same value)."""
    for v in values(sentence):
        if v.kind == "year" and v.text.isdigit():
            return sentence[: v.start] + f"the year {v.text}" + sentence[v.end :]
        if (
            v.kind in ("number", "quantity")
            and re.fullmatch(r"\d+", v.text.split()[0])
            and int(v.text.split()[0]) in _WORDS
        ):
            first = v.text.split()[0]
            return sentence[: v.start] + _WORDS[int(first)] + v.text[len(first) :] + sentence[v.end :]
        if v.kind in ("number", "quantity") and re.fullmatch(r"\d{4,}", v.text.split()[0]):
            first = v.text.split()[0]
            return sentence[: v.start] + f"{int(first):,}" + v.text[len(first) :] + sentence[v.end :]
    return None


def change_value(sentence: str, kind: str, rng: random.Random) -> tuple[str, int, int] | None:
    """The sentence with one value of ``kind`` changed; the changed value's span in the new text."""
    for v in values(sentence):
        digits = re.match(r"[\d,]+(?:\.\d+)?", v.text.lstrip("$€£"))
        if kind == "year" and v.kind == "year":
            year = int(re.search(r"\d{4}", v.text).group())
            new = str(year + rng.choice([-1, 1]) * rng.randint(3, 40))
            text = v.text.replace(str(year), new)
        elif kind == "number" and v.kind in ("number", "quantity", "money", "percent") and digits:
            raw = digits.group()
            number = float(raw.replace(",", ""))
            changed = number * rng.choice([2, 3, 0.5]) + (rng.randint(1, 9) if number < 20 else 0)
            new = (
                f"{int(changed):,}" if "," in raw else (f"{changed:.1f}" if "." in raw else str(int(changed)))
            )
            if new == raw:
                continue
            text = v.text.replace(raw, new, 1)
        else:
            continue
        out = sentence[: v.start] + text + sentence[v.end :]
        return out, v.start, v.start + len(text)
    return None


def _examples(article: dict, others: list[str], rng: random.Random) -> list[dict]:
    sentences = [s.text for s in split_sentences(article["text"])][:8]
    claims = [
        s
        for s in sentences
        if 40 <= len(s) <= 260 and any(v.kind != "number" or v.amount >= 2 for v in values(s))
    ]
    if not claims or len(sentences) < 3:
        return []
    claim = rng.choice(claims)
    rest = [s for s in sentences if s != claim]
    base = {
        "question_id": article["title"],
        "page": {"url": article["url"], "title": article["title"], "text": article["text"]},
        "claim": claim,
    }

    def answer(
        kind: str,
        body_sentence: str | None,
        verdict: str,
        span: tuple[int, int] | None = None,
        fact_kind: str | None = None,
    ) -> dict:
        context = rng.sample(rest, k=min(len(rest), rng.randint(0, 2)))
        parts = context + ([body_sentence] if body_sentence else [])
        if body_sentence is None:
            parts = rng.sample(rest, k=min(len(rest), 2))
        rng.shuffle(parts) if body_sentence is None else None
        wrapper = rng.choice(_WRAPPERS)
        body = " ".join(parts)
        response = wrapper.format(body=body)
        wrong = []
        if span is not None:
            offset = response.index(body_sentence)
            wrong = [
                {
                    "start": offset,
                    "end": offset + len(body_sentence),
                    "kind": fact_kind,
                    "value_start": offset + span[0],
                    "value_end": offset + span[1],
                }
            ]
        return {
            **base,
            "id": f"{article['title']}::{kind}",
            "perturbation": kind,
            "response": response,
            "verdict": verdict,
            "wrong_facts": wrong,
        }

    out = [answer("verbatim", claim, "found")]
    reworded = reword(claim, rng)
    if reworded and reworded != claim:
        out.append(answer("reworded", reworded, "found"))
    for kind in ("number", "year"):
        changed = change_value(claim, kind, rng)
        if changed:
            out.append(
                answer(kind, changed[0], "contradicted", changed[1:], "date" if kind == "year" else "number")
            )
    m = _COPULA.search(claim)
    if m:
        negated = claim[: m.end()] + " not" + claim[m.end() :]
        out.append(answer("negation", negated, "contradicted", (m.start(), m.end() + 4), "negation"))
    out.append(answer("omitted", None, "missing"))
    return out


def _used(source: str) -> set[str]:
    """Question ids already in the train and dev files of ``source`` (a test split leaves them out)."""
    ids: set[str] = set()
    for split in ("train", "dev"):
        path = OUT / f"verdicts-{source}-{split}.jsonl"
        if path.exists():
            ids |= {json.loads(line)["question_id"] for line in path.read_text().splitlines() if line}
    return ids


def _truthfulqa(questions: int, seed: int, test: bool = False) -> None:
    rng = random.Random(seed)
    with open(TRUTHFULQA, newline="", encoding="utf-8") as f:
        rows = [
            r
            for r in csv.DictReader(f)
            if "no comment" not in r["Best Answer"].lower() and r["Incorrect Answers"].strip()
        ]
    picked = sorted(rng.sample(range(len(rows)), k=min(questions, len(rows))))
    if test:  # every eligible question the train and dev files do not hold
        used = _used("truthfulqa")
        rng = random.Random(f"test-{seed}")
        left = [i for i in range(len(rows)) if f"tqa-{i}" not in used]
        picked = sorted(rng.sample(left, k=min(questions, len(left))))
    splits: dict[str, list[dict]] = {"test": []} if test else {"train": [], "dev": []}
    pages = []
    for n, i in enumerate(picked):
        row = rows[i]
        best = row["Best Answer"].strip().rstrip(".") + "."
        correct = [c.strip().rstrip(".") + "." for c in row["Correct Answers"].split(";") if c.strip()]
        wrong = [c.strip().rstrip(".") + "." for c in row["Incorrect Answers"].split(";") if c.strip()]
        url = f"https://truthfulqa.eval/q/{i}"
        pages.append(
            {
                "domain": "truthfulqa.eval",
                "url": url,
                "title": row["Question"],
                "text": " ".join(dict.fromkeys([best, *correct])),
            }
        )
        other = rows[picked[(n + 1) % len(picked)]]["Best Answer"].strip().rstrip(".") + "."
        split = "test" if test else ("dev" if n % 3 == 2 else "train")
        base = {
            "question_id": f"tqa-{i}",
            "domain": "truthfulqa.eval",
            "query": row["Question"],
            "expected_answer": best,
            "claims": [{"id": "best", "text": best, "importance": "required"}],
        }
        for kind, body, verdict in (
            ("best", best, "found"),
            ("incorrect", rng.choice(wrong), "contradicted"),
            ("other", other, "missing"),
        ):
            wrapper = rng.choice(_WRAPPERS)
            response = wrapper.format(body=body)
            start = response.index(body)
            wrong_facts = (
                [{"start": start, "end": start + len(body), "text": body, "kind": "other", "evidence": best}]
                if verdict == "contradicted"
                else []
            )
            splits[split].append(
                {
                    **base,
                    "style": kind,
                    "response": response,
                    "verdicts": {"best": verdict},
                    "wrong_facts": wrong_facts,
                    "note": f"TruthfulQA {kind} answer",
                }
            )
    OUT.mkdir(parents=True, exist_ok=True)
    # the test questions' pages apart: the train and dev answers are judged on theirs as before
    pages_path = OUT / ("verdicts-truthfulqa-test-pages.jsonl" if test else "verdicts-truthfulqa-pages.jsonl")
    pages_path.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pages))
    for split, answers in splits.items():
        path = OUT / f"verdicts-truthfulqa-{split}.jsonl"
        path.write_text("".join(json.dumps(a, ensure_ascii=False) + "\n" for a in answers))
        print(f"{path}: {len(answers)} answers to {len({a['question_id'] for a in answers})} questions")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", choices=["encyclopedia", "truthfulqa"], default="encyclopedia")
    parser.add_argument("--articles", type=int, default=240)
    parser.add_argument("--questions", type=int, default=150)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--test",
        action="store_true",
        help="write the frozen test split (-test.jsonl) from questions or articles the train and dev files do not hold",
    )
    args = parser.parse_args()
    if args.source == "truthfulqa":
        _truthfulqa(args.questions, args.seed, args.test)
        return
    rng = random.Random(args.seed)
    df = pl.read_parquet(SOURCE).filter(pl.col("text").str.len_chars() > 400)
    picked = rng.sample(range(df.height), k=min(len(df), args.articles * 2))
    splits: dict[str, list[dict]] = {"train": [], "dev": []}
    if args.test:  # articles no train or dev example came from, sampled apart
        used = _used("encyclopedia")
        rng = random.Random(f"test-{args.seed}")
        picked = [i for i in rng.sample(range(df.height), k=df.height) if df["title"][i] not in used]
        splits = {"test": []}
    n = 0
    for i in picked:
        if n >= args.articles:
            break
        examples = _examples(df.row(i, named=True), [], rng)
        if not examples:
            continue
        split = "test" if args.test else ("dev" if n % 3 == 2 else "train")
        splits[split] += [{**e, "split": split} for e in examples]
        n += 1
    OUT.mkdir(parents=True, exist_ok=True)
    for split, rows in splits.items():
        path = OUT / f"verdicts-encyclopedia-{split}.jsonl"
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        counts = {}
        for r in rows:
            counts[r["perturbation"]] = counts.get(r["perturbation"], 0) + 1
        print(f"{path}: {len(rows)} examples from {len({r['question_id'] for r in rows})} articles {counts}")


if __name__ == "__main__":
    main()
