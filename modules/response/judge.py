"""The LM judge: claim verdicts and wrong facts by a DSPy program, over the offline analysis.

``JudgeClaims`` is the node's signature (compiled like the research nodes: ``sleuth optimize
judge``). Its baseline program is the offline judge of :mod:`.verdicts`, i.e. the analyzer's
own result: with no LM nothing here runs. With one, :class:`LMJudge` asks the program for a
verdict per expected claim (found / missing / contradicted, with the answer's words quoted) and
for the answer's wrong facts, places every quote in the response (exactly, then ignoring case,
spacing, quote and dash variants; a quote that is not in the answer is dropped), and returns a
copy of the offline result whose claim feedback, completeness and contradictions are the LM's.
Output that stays unparseable after the retries, an LM error, or a verdict list that leaves out
a claim returns the offline result unchanged, with ``fallback`` true, the flag
``judge_fallback`` and the reason in ``error``.
"""

from __future__ import annotations

import html
import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

import dspy

from ..lm import DEFAULT_CONTEXT_TOKENS, MAX_URL_CHARS, NodeRunner, as_data
from ..relevance.anchor import locate_quote, normalise
from ..text import content_terms, split_sentences
from .config import AnalyzerConfig
from .groundtruth import GroundTruth
from .schema import (
    DISAGREEMENT_FLAG,
    AnalysisResult,
    ClaimFeedback,
    ClaimMatch,
    ContradictedClaim,
    Contradiction,
    FoundClaim,
    JudgeDisagreement,
    TextPosition,
)
from .scoring import accuracy_of, completeness_of, is_derived
from .signatures import ClaimIn, ClaimVerdict, JudgeClaims, PageExcerpt, WrongFactOut

MAX_EXCERPTS = 8  # page chunks (~400 characters each) shown to the LM per answer
FLAG = "judge_fallback"


def _claim_id(verdict) -> str:
    """A verdict's claim id as the claims have it (the LM read the ids escaped as data)."""
    return html.unescape(str(_field(verdict, "claim_id")))


# ----- quotes ------------------------------------------------------------------------------
# ----- page excerpts -----------------------------------------------------------------------
class ExcerptIndex:
    """Page chunks of one domain, picked per answer by the content words they share with the
    answer's sentences and the claims (weighted by rarity across the chunks). Lexical on
    purpose: the same selection runs offline in ``sleuth eval judge`` and in the flows."""

    def __init__(self, chunks: Sequence[tuple[str, str]]):
        self.chunks = list(chunks)
        self.terms = [content_terms(text) for _, text in self.chunks]
        df = Counter(t for ts in self.terms for t in ts)
        n = max(len(self.chunks), 1)
        self.idf = {t: math.log(1 + n / d) for t, d in df.items()}

    @classmethod
    def of(cls, gt: GroundTruth) -> ExcerptIndex:
        return cls([(c.page_url, c.text) for c in gt.chunks])

    def select(
        self, response: str, claims: Sequence[str] = (), limit: int = MAX_EXCERPTS
    ) -> list[PageExcerpt]:
        best: dict[int, float] = {}
        for probe in [s.text for s in split_sentences(response)] + list(claims):
            terms = content_terms(probe)
            weight = sum(self.idf.get(t, 0.0) for t in terms)
            if not weight:
                continue
            scores = [sum(self.idf[t] for t in terms & ts) / weight for ts in self.terms]
            if not scores:
                return []
            i = max(range(len(scores)), key=scores.__getitem__)
            if scores[i] > 0.2:
                best[i] = max(best.get(i, 0.0), scores[i])
        picked = sorted(best, key=lambda i: -best[i])[:limit]
        return [PageExcerpt(url=self.chunks[i][0], text=self.chunks[i][1]) for i in sorted(picked)]


# ----- the judge ---------------------------------------------------------------------------
def _field(item, name: str, default=None):
    return item.get(name, default) if isinstance(item, dict) else getattr(item, name, default)


def judge_inputs(
    question: str | None,
    answer: str,
    claims: list[ClaimIn],
    excerpts: Sequence[PageExcerpt],
    runner: NodeRunner,
) -> tuple[dict[str, Any], list[PageExcerpt]]:
    """The ``JudgeClaims`` inputs, as the judge sends them and the judge's eval set is scored:
    the leading excerpts that fit the runner's context window beside the answer and the claims (a
    longer prompt is refused or silently cut by the server), and the answer and the pages escaped
    as untrusted data, so that they cannot open a section. Returns the inputs and the excerpts kept."""
    fixed = len(answer) + len(question or "") + sum(len(c.text) + 40 for c in claims)
    room, kept = runner.input_chars("judge", fixed=fixed), []
    for e in excerpts:
        room -= len(e.text) + len(e.url[:MAX_URL_CHARS]) + 30
        if room < 0:
            break
        kept.append(e)
    inputs = {
        "question": as_data(question or "(not given)"),
        "answer": as_data(answer),
        "claims": [ClaimIn(id=as_data(c.id), text=as_data(c.text)) for c in claims],
        "page_excerpts": [
            PageExcerpt(url=as_data(e.url[:MAX_URL_CHARS]), text=as_data(e.text)) for e in kept
        ],
    }
    return inputs, kept


class LMJudge:
    """Claim verdicts and wrong facts by the ``JudgeClaims`` program, over an offline result."""

    def __init__(
        self,
        lm: dspy.LM | None,
        program: dspy.Module | None = None,
        *,
        config: AnalyzerConfig | None = None,
        retries: int = 2,
        version: str | None = None,
        context_tokens: int = DEFAULT_CONTEXT_TOKENS,
    ):
        self.runner = NodeRunner(lm=lm, retries=retries, context_tokens=context_tokens)
        self.program = self.runner.fit_program("judge", program or dspy.Predict(JudgeClaims))
        self.config = config or AnalyzerConfig()
        self.version = version or "uncompiled"
        self._indexes: dict[str, ExcerptIndex] = {}

    @property
    def usage(self) -> dict[str, float]:
        return self.runner.usage

    def excerpts(self, result: AnalysisResult, gt: GroundTruth | None) -> list[PageExcerpt]:
        if gt is None:
            return []
        index = self._indexes.get(gt.version)
        if index is None:
            index = self._indexes[gt.version] = ExcerptIndex.of(gt)
        return index.select(result.response, [c.text for c in result.expected_claims])

    def judge_with(self, result: AnalysisResult, gt: GroundTruth | None) -> AnalysisResult:
        """:meth:`judge` with the page excerpts of ``gt`` most about the answer."""
        if not self._judgeable(result):
            return result
        return self.judge(result, self.excerpts(result, gt))

    @staticmethod
    def _judgeable(result: AnalysisResult) -> bool:
        return (
            result.status != "error"
            and bool(result.response.strip())
            and "empty_response" not in result.flags
        )

    def judge(self, result: AnalysisResult, page_excerpts: Sequence[PageExcerpt | dict]) -> AnalysisResult:
        if self.runner.lm is None or not self._judgeable(result):
            return result
        excerpts = [e if isinstance(e, PageExcerpt) else PageExcerpt.model_validate(e) for e in page_excerpts]
        claims = [ClaimIn(id=c.id, text=c.text) for c in result.expected_claims]
        inputs, excerpts = judge_inputs(result.query, result.response, claims, excerpts, self.runner)
        ids = [c.id for c in result.expected_claims]

        def complete(**inputs):
            prediction = self.program(**inputs)
            given = {_claim_id(v) for v in (prediction.verdicts or [])}
            left = [i for i in ids if i not in given]
            if left:
                raise ValueError(f"the LM gave no verdict for claim(s) {', '.join(left)}")
            return dspy.Prediction(out=prediction)

        call = self.runner.run(complete, inputs, "out", lambda: None, node="judge")
        if call.fallback or call.output is None:
            return self.fallback(result, call.error or "the LM judge gave no output")
        try:
            return self.apply(result, call.output.verdicts or [], call.output.wrong_facts or [], excerpts)
        except Exception as exc:  # noqa: BLE001 - output that parses but cannot be applied: the baseline stands
            return self.fallback(result, f"LM output not applicable: {type(exc).__name__}: {str(exc)[:300]}")

    @staticmethod
    def fallback(result: AnalysisResult, reason: str) -> AnalysisResult:
        """The offline result unchanged, marked: the baseline program answered."""
        return result.model_copy(
            update={"fallback": True, "flags": [*result.flags, FLAG], "error": f"judge fallback: {reason}"}
        )

    def apply(
        self,
        result: AnalysisResult,
        verdicts: Sequence,
        wrong_facts: Sequence,
        excerpts: Sequence[PageExcerpt] = (),
    ) -> AnalysisResult:
        """A copy of ``result`` with the LM's claim verdicts, completeness and wrong facts."""
        text, cfg = result.response, self.config
        by_id: dict[str, tuple[str, str]] = {}
        for v in verdicts:
            by_id.setdefault(_claim_id(v), (str(_field(v, "verdict")), _field(v, "quote") or ""))
        offline = self._offline_spans(result)
        completeness = result.scores.completeness
        offline_found = {m.claim.id for m in completeness.claims_found} if completeness else set()
        facts: list[
            tuple[TextPosition, str, str, str | None]
        ] = []  # located wrong facts: position, kind, evidence, url
        for w in wrong_facts:
            at = locate_quote(text, _field(w, "quote"))
            if at is not None:
                facts.append(
                    (
                        TextPosition(start=at[0], end=at[1]),
                        str(_field(w, "kind") or "other"),
                        html.unescape(str(_field(w, "evidence") or "")),
                        html.unescape(_field(w, "page_url") or "") or None,
                    )
                )

        found, not_found, feedback_found, contradicted = [], [], [], []
        offline_contradicted = {c.claim.id: c for c in result.feedback.claims.contradicted}
        for claim in result.expected_claims:
            verdict, quote = by_id[claim.id]
            if claim.id in offline_contradicted and verdict != "contradicted":
                # the LM adds evidence; it never silently clears what the offline checks found
                not_found.append(claim)
                contradicted.append(offline_contradicted[claim.id])
                continue
            at = locate_quote(text, quote)
            if verdict == "found" and at is None:
                # "found" with no words of the answer to show for it: the offline verdict stands
                verdict = "found" if claim.id in offline_found else "missing"
            pos = TextPosition(start=at[0], end=at[1]) if at else offline.get(claim.id)
            if verdict == "found":
                span = pos or TextPosition(start=0, end=0)
                found.append(
                    ClaimMatch(
                        claim=claim,
                        matched_text=text[span.start : span.end],
                        similarity=self._similarity(result, claim.id),
                        position=span,
                    )
                )
                feedback_found.append(
                    FoundClaim(
                        claim=claim, evidence=text[span.start : span.end], confidence=0.9 if at else 0.6
                    )
                )
                continue
            not_found.append(claim)
            if verdict == "contradicted":
                span = pos or TextPosition(start=0, end=0)
                fact = next((f for f in facts if pos and f[0].overlaps(pos)), None)
                kind = fact[1] if fact else "other"
                contradicted.append(
                    ContradictedClaim(
                        claim=claim,
                        statement=text[span.start : span.end],
                        position=span,
                        kind=kind,
                        evidence=fact[2]
                        if fact and fact[2]
                        else f"the answer states otherwise than the claim: {claim.text}",
                    )
                )

        wrong: list[Contradiction] = []
        for c in contradicted:
            if c.position.end > c.position.start:
                wrong.append(
                    Contradiction(
                        statement=c.statement,
                        position=c.position,
                        kind=c.kind,
                        evidence=c.claim.text,
                        source="expected_answer" if is_derived(c.claim) else "claim",
                        confidence=0.9,
                        detail=c.evidence,
                    )
                )
        urls = {e.url for e in excerpts}
        for pos, kind, evidence, url in facts:
            if any(pos.overlaps(c.position) for c in wrong):
                continue  # one wrong fact per stretch of the answer
            if url not in urls:
                url = next(
                    (e.url for e in excerpts if evidence and normalise(evidence) in normalise(e.text)), None
                )
            wrong.append(
                Contradiction(
                    statement=text[pos.start : pos.end],
                    position=pos,
                    kind=kind,
                    evidence=evidence,
                    source="ground_truth" if url else "claim",
                    page_url=url,
                    confidence=0.8,
                    detail=evidence or None,
                )
            )
        for c in result.feedback.contradictions:  # the offline wrong facts stand beside the LM's
            if c.position.end > c.position.start and not any(c.position.overlaps(w.position) for w in wrong):
                wrong.append(c)
        wrong.sort(key=lambda c: c.position.start)
        n_wrong = len(wrong) + sum(c.position.end <= c.position.start for c in contradicted)

        completeness = completeness_of(result.expected_claims, found, not_found, cfg)
        accuracy = result.scores.accuracy
        if accuracy is not None:
            accuracy = accuracy_of(
                accuracy,
                result.expected_claims,
                {m.claim.id for m in found},
                {c.claim.id for c in contradicted},
                wrong,
                cfg.tiers,
                wrong_count=n_wrong,
                judge="LM judge",
            )
        highlights = result.feedback.highlights.without([w.position for w in wrong])
        stated = [m.position for m in found]
        claims = ClaimFeedback.of(
            feedback_found,
            not_found,
            contradicted,
            [
                u
                for u in result.feedback.claims.not_in_ground_truth
                if not any(u.position.overlaps(f) for f in stated)
            ],
        )
        flags, status = list(result.flags), result.status
        if cfg.completeness.require_all_required and completeness is not None:
            lacking = any(c.importance == "required" for c in completeness.claims_missing)
            if lacking and "missing_required_claims" not in flags:
                flags.append("missing_required_claims")
            elif not lacking and "missing_required_claims" in flags:
                flags.remove("missing_required_claims")
            status = (
                "flagged" if set(flags) & {"refusal", "missing_required_claims", "response_coerced"} else "ok"
            )
        feedback = result.feedback.model_copy(
            update={"claims": claims, "highlights": highlights, "contradictions": wrong}
        )
        lm_wrong = [f[0] for f in facts] + [
            c.position
            for c in contradicted
            if by_id[c.claim.id][0] == "contradicted" and c.position.end > c.position.start
        ]
        disagreements = self.disagreements(
            result, claims, {k: v for k, (v, _) in by_id.items()}, lm_wrong, wrong
        )
        if disagreements and DISAGREEMENT_FLAG not in flags:
            flags.append(DISAGREEMENT_FLAG)
        scores = result.scores.model_copy(update={"accuracy": accuracy, "completeness": completeness})
        return result.model_copy(
            update={
                "scores": scores,
                "feedback": feedback,
                "flags": flags,
                "status": status,
                "judge_disagreements": disagreements,
            }
        )

    @staticmethod
    def disagreements(
        offline: AnalysisResult,
        kept: ClaimFeedback,
        lm_verdicts: dict[str, str],
        lm_wrong: Sequence[TextPosition],
        kept_wrong: Sequence[Contradiction],
    ) -> list[JudgeDisagreement]:
        """Each claim whose LM verdict is not the offline one, and each wrong fact only one judge
        flagged (one entry per stretch of the answer: a wrong fact inside a claim listed already
        is that claim's), with the verdict the answer is scored with."""
        before, after = offline.feedback.claims.verdicts(), kept.verdicts()
        text = offline.response
        out: list[JudgeDisagreement] = []
        listed: list[TextPosition] = []
        for claim in offline.expected_claims:
            said = lm_verdicts.get(claim.id, "missing")
            said = said if said in ("found", "contradicted") else "missing"
            if said != before.get(claim.id, "missing"):
                out.append(
                    JudgeDisagreement(
                        claim_id=claim.id,
                        offline=before.get(claim.id, "missing"),
                        lm=said,
                        kept=after.get(claim.id, "missing"),
                    )
                )
                listed += [
                    c.position
                    for c in (*offline.feedback.claims.contradicted, *kept.contradicted)
                    if c.claim.id == claim.id
                ]
        offline_wrong = [
            c.position for c in offline.feedback.contradictions if c.position.end > c.position.start
        ]
        one_sided = [
            (p, "not_flagged", "wrong") for p in lm_wrong if not any(p.overlaps(o) for o in offline_wrong)
        ]
        one_sided += [
            (p, "wrong", "not_flagged") for p in offline_wrong if not any(p.overlaps(w) for w in lm_wrong)
        ]
        for pos, offline_said, lm_said in sorted(one_sided, key=lambda x: x[0].start):
            if any(pos.overlaps(p) for p in listed):
                continue
            listed.append(pos)
            out.append(
                JudgeDisagreement(
                    wrong_fact=text[pos.start : pos.end],
                    offline=offline_said,
                    lm=lm_said,
                    kept="wrong" if any(pos.overlaps(w.position) for w in kept_wrong) else "not_flagged",
                )
            )
        return out

    @staticmethod
    def _offline_spans(result: AnalysisResult) -> dict[str, TextPosition]:
        """Where the offline judge placed each claim (found or contradicted)."""
        spans = {c.claim.id: c.position for c in result.feedback.claims.contradicted}
        if result.scores.completeness:
            spans.update({m.claim.id: m.position for m in result.scores.completeness.claims_found})
        return spans

    @staticmethod
    def _similarity(result: AnalysisResult, claim_id: str) -> float:
        if result.scores.completeness:
            for m in result.scores.completeness.claims_found:
                if m.claim.id == claim_id:
                    return m.similarity
        return 0.0


__all__ = [
    "ClaimIn",
    "ClaimVerdict",
    "ExcerptIndex",
    "JudgeClaims",
    "LMJudge",
    "PageExcerpt",
    "WrongFactOut",
    "locate_quote",
]
