"""The ``judge`` node's eval set, metric, baseline runner and gold outputs (``sleuth eval judge``,
``sleuth optimize judge``).

Examples are the labeled verdict sets ``evals/sets/verdicts-*-{train,dev}.jsonl`` (the format
:func:`load_verdict_rows` reads: one-claim encyclopedia answers with their page, and
hand-written answers about invented sites with ``verdicts-<set>-pages.jsonl``). A path may be
one such file or a glob; a file elsewhere finds its pages beside it or under ``evals/sets`` by
its set name. The program's inputs are the question, the answer, its claims and the page
excerpts the LM judge sees in the flows (:class:`modules.response.judge.ExcerptIndex`).

Metric, per answer: the share of claims whose verdict equals gold, minus ``WRONG_FACT_PENALTY``
for each wrong-fact quote that overlaps no gold wrong-fact span (or is not in the answer at
all), floored at 0. The baseline program is the offline analyzer (``modules/response/verdicts``).
"""

from __future__ import annotations

import glob
import hashlib
import json
from pathlib import Path
from typing import Any, get_args

import dspy

from ..lm import NodeRunner
from ..response import ResponseAnalyzer
from ..response.groundtruth import build_ground_truth, group_by_domain, pages_for
from ..response.judge import ExcerptIndex, judge_inputs, locate_quote
from ..response.schema import AIResponse, StoredPage
from ..response.signatures import ClaimIn, ClaimVerdict, JudgeClaims, Kind, WrongFactOut
from ..text import content_terms, overlap_f1, split_clauses, split_sentences
from .labeled_sets import SETS

INPUTS = tuple(JudgeClaims.input_fields)
KINDS = set(get_args(Kind))
WRONG_FACT_PENALTY = 0.25
ENCYCLOPEDIA = "encyclopedia.eval"


def set_pattern(part: str) -> Path:
    return SETS / f"verdicts-*-{part}.jsonl"


def files(path: str | Path) -> list[Path]:
    """The verdict files a path or glob names (pages files excluded)."""
    found = (
        sorted(Path(p) for p in glob.glob(str(path)))
        if glob.has_magic(str(path))
        else ([Path(path)] if Path(path).exists() else [])
    )
    return [p for p in found if not p.name.endswith("-pages.jsonl")]


def files_hash(path: str | Path) -> str:
    h = hashlib.sha256()
    for p in files(path):
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _set_and_split(path: Path) -> tuple[str, str | None]:
    """``verdicts-sites-a-dev.jsonl`` -> ("sites-a", "dev"); a file of no split -> (name, None)."""
    name = path.stem.removeprefix("verdicts-")
    for split in ("train", "dev", "test"):
        if name.endswith(f"-{split}"):
            return name.removesuffix(f"-{split}"), split
    return name, None


def _pages_file(path: Path, name: str, split: str | None) -> Path | None:
    """The pages a set is judged on: a split's own pages where it has them, else the set's."""
    stems = (
        [f"verdicts-{name}-{split}-pages", f"verdicts-{name}-pages"] if split else [f"verdicts-{name}-pages"]
    )
    for stem in stems:
        for folder in (path.parent, SETS):
            if (candidate := folder / f"{stem}.jsonl").exists():
                return candidate
    return None


def load_verdict_rows(path: str | Path) -> tuple[list[dict], list[StoredPage]]:
    """The answers of every verdict file ``path`` names ({set, qid, question_id, domain, query,
    expected_answer, claims, response, verdicts {claim id: verdict}, wrong_facts, source}; the sets
    interleaved) and the pages they are judged on."""
    matched = files(path)
    if not matched:
        raise FileNotFoundError(f"no verdict set {path}; build it with: python -m evals.build_verdicts")
    per_file: list[list[dict]] = []
    pages: dict[str, StoredPage] = {}
    for file in matched:
        name, split = _set_and_split(file)
        rows: list[dict] = []
        per_file.append(rows)
        for n, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            r = json.loads(line)
            if "claims" in r:  # a hand-written answer with several claims
                rows.append({**r, "set": name, "qid": f"{name}:{r['question_id']}#{n}", "source": str(file)})
                continue
            url = r["page"]["url"].replace("https://en.wikipedia.org", f"https://{ENCYCLOPEDIA}")
            pages[url] = StoredPage(url=url, text=r["page"]["text"], title=r["page"]["title"])
            rows.append(
                {
                    "set": name,
                    "qid": f"{name}:{r.get('id') or r['question_id']}",
                    "question_id": r["question_id"],
                    "domain": ENCYCLOPEDIA,
                    "query": None,
                    "expected_answer": r["claim"],
                    "claims": [{"id": "claim", "text": r["claim"]}],
                    "response": r["response"],
                    "verdicts": {"claim": r["verdict"]},
                    "wrong_facts": r["wrong_facts"],
                    "source": str(file),
                }
            )
        pages_path = _pages_file(file, name, split)
        if pages_path is not None:
            for line in pages_path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    p = json.loads(line)
                    pages[p["url"]] = StoredPage(
                        url=p["url"], text=p["text"], title=p.get("title"), domain=p["domain"]
                    )
    # the sets interleaved, so that the first examples (labeled demos) come from every set
    longest = max(len(r) for r in per_file)
    return [r[i] for i in range(longest) for r in per_file if i < len(r)], list(pages.values())


def verdict_record(row: dict) -> AIResponse:
    """A labeled answer (a row of :func:`load_verdict_rows`) as the analyzer reads it; its set is
    the provider, so results group by set."""
    return AIResponse(
        query_id=row["question_id"],
        domain=row["domain"],
        response=row["response"],
        query=row.get("query"),
        claims=row["claims"],
        expected_answer=row.get("expected_answer"),
        provider=row["set"],
    )


def load_examples(path: str | Path, runner: NodeRunner | None = None) -> list[dspy.Example]:
    """Examples with the ``JudgeClaims`` inputs as the judge sends them through ``runner`` (its
    context window and program's demos; :func:`judge_inputs`: fitted, escaped), and the raw row
    under ``row`` (its file under ``source``: the baseline reads the pages from there)."""
    rows, pages = load_verdict_rows(path)
    grouped = group_by_domain(pages)
    indexes: dict[str, ExcerptIndex] = {}
    runner = runner or NodeRunner()
    out = []
    for row in rows:
        domain = row["domain"]
        if domain not in indexes:
            indexes[domain] = ExcerptIndex.of(build_ground_truth(domain, pages_for(domain, grouped)))
        excerpts = indexes[domain].select(row["response"], [c["text"] for c in row["claims"]])
        claims = [ClaimIn(id=c["id"], text=c["text"]) for c in row["claims"]]
        inputs, _ = judge_inputs(row.get("query"), row["response"], claims, excerpts, runner)
        example = dspy.Example(row=row, **inputs)
        out.append(example.with_inputs(*INPUTS))
    return out


# ----- metric ------------------------------------------------------------------------------
def _get(item, name: str, default=None):
    return item.get(name, default) if isinstance(item, dict) else getattr(item, name, default)


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def metric(gold: dspy.Example, pred, trace=None, pred_name=None, pred_trace=None) -> dspy.Prediction:
    row = gold.row
    text = row["response"]
    given: dict[str, str] = {}
    for v in _get(pred, "verdicts") or []:
        given.setdefault(str(_get(v, "claim_id")), str(_get(v, "verdict")))
    claims = {c["id"]: c["text"] for c in row["claims"]}
    wrong_verdicts = [
        (cid, want, given.get(cid)) for cid, want in row["verdicts"].items() if given.get(cid) != want
    ]
    agreement = 1 - len(wrong_verdicts) / len(row["verdicts"]) if row["verdicts"] else 1.0
    facts = list(_get(pred, "wrong_facts") or [])
    spans = _get(pred, "wrong_spans") or [locate_quote(text, _get(w, "quote")) for w in facts]
    gold_spans = [(w["start"], w["end"]) for w in row["wrong_facts"]]
    false = [(w, s) for w, s in zip(facts, spans) if s is None or not any(_overlap(s, g) for g in gold_spans)]
    caught = [g for g in gold_spans if any(s and _overlap(s, g) for s in spans)]
    score = max(0.0, agreement - WRONG_FACT_PENALTY * len(false))
    problems = [
        f"claim {cid} ({claims.get(cid, '')[:100]!r}) is {want}, "
        + (f"not {got}" if got else "but got no verdict")
        for cid, want, got in wrong_verdicts
    ]
    for w, s in false:
        quote = str(_get(w, "quote") or "")[:120]
        problems.append(
            f"{quote!r} is not verbatim in the answer" if s is None else f"{quote!r} is not a wrong fact"
        )
    problems += [f"missed wrong fact {text[a:b][:120]!r}" for a, b in gold_spans if (a, b) not in caught]
    extra: dict[str, float] = {"claim_agreement": agreement, "false_wrong_facts": float(len(false))}
    if gold_spans:
        extra["wrong_facts_caught"] = len(caught) / len(gold_spans)
    if spans:
        extra["wrong_fact_precision"] = 1 - len(false) / len(spans)
    return dspy.Prediction(score=score, feedback="; ".join(problems) or "all correct", **extra)


# ----- the baseline program: the offline analyzer -----------------------------------------
class JudgeBaselineRunner:
    """The offline analyzer on the examples' answers (their domain's pages as ground truth),
    as the ``JudgeClaims`` program would answer. ``prepare`` analyses a whole list at once."""

    def __init__(self, analyzer=None):
        self._analyzer = analyzer
        self.results: dict[str, dspy.Prediction] = {}
        self._pages: dict[str, list[StoredPage]] = {}

    @property
    def analyzer(self):
        if self._analyzer is None:
            self._analyzer = ResponseAnalyzer()
        return self._analyzer

    def prepare(self, examples: list[dspy.Example]) -> None:
        todo = [ex for ex in examples if ex.row["qid"] not in self.results]
        if not todo:
            return
        for source in {ex.row["source"] for ex in todo} - set(self._pages):
            self._pages[source] = load_verdict_rows(source)[1]
        pages = {p.url: p for ex in todo for p in self._pages[ex.row["source"]]}
        domains = {ex.row["domain"] for ex in todo}
        gts = self.analyzer.prepare_ground_truth(list(pages.values()), domains)
        records = [verdict_record(ex.row) for ex in todo]
        for ex, result in zip(todo, self.analyzer.iter_batch(records, gts)):
            self.results[ex.row["qid"]] = as_prediction(result)

    def __call__(self, example: dspy.Example) -> dspy.Prediction:
        self.prepare([example])
        return self.results[example.row["qid"]]


def as_prediction(result) -> dspy.Prediction:
    """An analysis result in the shape of the ``JudgeClaims`` program's output."""
    text = result.response
    verdicts = [ClaimVerdict(claim_id=c.claim.id, verdict="missing") for c in result.feedback.claims.missing]
    if result.scores.completeness:
        verdicts += [
            ClaimVerdict(claim_id=m.claim.id, verdict="found", quote=m.matched_text)
            for m in result.scores.completeness.claims_found
        ]
    verdicts += [
        ClaimVerdict(claim_id=c.claim.id, verdict="contradicted", quote=c.statement)
        for c in result.feedback.claims.contradicted
    ]
    wrong = [
        WrongFactOut(
            quote=text[c.position.start : c.position.end],
            kind=c.kind,
            evidence=c.evidence,
            page_url=c.page_url,
        )
        for c in result.feedback.contradictions
    ]
    spans = [(c.position.start, c.position.end) for c in result.feedback.contradictions]
    return dspy.Prediction(reasoning="offline judge", verdicts=verdicts, wrong_facts=wrong, wrong_spans=spans)


# ----- gold outputs (labeled demos) -------------------------------------------------------
def _best_span(text: str, claim: str) -> str:
    """The sentence or clause of ``text`` that shares most content words with ``claim``."""
    terms = content_terms(claim)
    spans = [x for s in split_sentences(text) for x in [s, *split_clauses(s)]]
    best = max(spans, key=lambda s: (overlap_f1(terms, content_terms(s.text)), -len(s.text)), default=None)
    return best.text if best is not None and overlap_f1(terms, content_terms(best.text)) > 0 else ""


def gold_output(row: dict, excerpts: list | None = None) -> dict[str, Any]:
    """The labeled output of an answer: gold verdicts, quoting the answer's closest sentence or
    clause (a contradicted claim quotes its gold wrong fact), and the gold wrong facts."""
    text = row["response"]
    claims = {c["id"]: c["text"] for c in row["claims"]}
    gold_spans = [(w["start"], w["end"]) for w in row["wrong_facts"]]
    verdicts, notes = [], []
    for cid, verdict in row["verdicts"].items():
        quote = ""
        if verdict != "missing":
            quote = _best_span(text, claims[cid])
            if verdict == "contradicted" and gold_spans:
                at = locate_quote(text, quote)
                inside = [g for g in gold_spans if at and _overlap(at, g)]
                a, b = (
                    inside
                    or [
                        max(
                            gold_spans,
                            key=lambda g: overlap_f1(
                                content_terms(claims[cid]), content_terms(text[g[0] : g[1]])
                            ),
                        )
                    ]
                )[0]
                quote = text[a:b]
        verdicts.append(ClaimVerdict(claim_id=cid, verdict=verdict, quote=quote))
        notes.append(f"{cid}: {verdict}" + (f' ("{quote}")' if quote else ""))
    wrong = []
    for w in row["wrong_facts"]:
        evidence = w.get("evidence") or (
            next(iter(claims.values())) if len(claims) == 1 else row.get("expected_answer") or ""
        )
        url = next(
            (
                _get(e, "url")
                for e in excerpts or []
                if w.get("evidence") and w["evidence"] in _get(e, "text", "")
            ),
            None,
        )
        wrong.append(
            WrongFactOut(
                quote=text[w["start"] : w["end"]],
                # the sets name finer kinds (scope, condition, hours...) than the signature's
                kind=w["kind"] if w.get("kind") in KINDS else "other",
                evidence=evidence,
                page_url=url,
            )
        )
    reasoning = (
        "Each claim against the answer: "
        + "; ".join(notes)
        + ". "
        + (
            f"{len(wrong)} statement(s) of the answer contradict the claims or pages."
            if wrong
            else "No statement of the answer contradicts the claims or pages."
        )
    )
    return {"reasoning": reasoning, "verdicts": verdicts, "wrong_facts": wrong}
