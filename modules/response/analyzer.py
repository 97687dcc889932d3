"""The response analyzer: accuracy, completeness and attribution scores plus feedback.

Work is organised for throughput: a batch gathers every text it needs (response chunks and
sentences, expected answers, claims, queries), de-duplicates them and encodes them in a single
call; ground-truth chunks are encoded once per domain and version (and cached on disk). What
remains per response is small matrix arithmetic.
"""

from __future__ import annotations

import hashlib
import logging
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Iterable, Iterator, Sequence

import numpy as np

from .. import __version__
from ..embeddings import (
    Embedder, EmbeddingError, KeywordEmbedder, VectorCache, encode_with_retry, make_embedder,
)
from ..text import (
    Span, chunk, content_terms, has_negation, overlap_f1, split_clauses, split_long, split_sentences,
    words,
)
from .attribution import normalize_domain, score_attribution
from .config import AnalyzerConfig
from .facts import compare_values
from .groundtruth import GroundTruth, build_ground_truth, group_by_domain, pages_for
from .refusal import is_refusal
from .schema import (
    AccuracyComponents, AccuracyResult, AIResponse, AnalysisResult, AttributionResult, ChunkMatch,
    ClaimFeedback, ClaimMatch, CompletenessResult, ContradictedClaim, ExpectedClaim, Feedback, FoundClaim,
    GroundTruthSource, HighlightFeedback, MissingClaim, Scores, StoredPage, TextHighlight,
    TextPosition, UnmatchedSegment, UnsupportedStatement,
)
from .tiers import tier_for

ANALYZER_VERSION = f"sleuth-response-analyzer/{__version__}"
log = logging.getLogger(__name__)


@dataclass
class _Prepared:
    """One record with its texts cut up, before any vectors exist."""

    record: AIResponse
    text: str  # the analysed text (the response, truncated when over the limit)
    chunks: list[Span]  # accuracy chunks, per the chunking strategy
    sentences: list[Span]  # highlights and unsupported statements
    claim_spans: list[Span]  # sentences and their clauses, where claims are looked for
    claims: list[ExpectedClaim]
    flags: list[str]


def _pos(span: Span) -> TextPosition:
    return TextPosition(start=span.start, end=span.end)


def claims_for(record: AIResponse) -> list[ExpectedClaim]:
    """The record's claims or, when it has none, each sentence of its expected answer."""
    if record.claims:
        return record.claims
    if record.expected_answer:
        return [
            ExpectedClaim(id=f"expected-{i}", text=s.text)
            for i, s in enumerate(split_sentences(record.expected_answer), 1)
        ]
    return []


def record_from_result(result: AnalysisResult) -> AIResponse:
    """The input record a stored result was made from (for re-analysis)."""
    return AIResponse(
        query_id=result.query_id, domain=result.domain, response=result.response,
        query=result.query, provider=result.ai_provider, model=result.model,
        responded_at=result.response_at, expected_answer=result.expected_answer,
        claims=result.expected_claims, brand_names=result.brand_names,
        query_set_id=result.query_set_id, source_line=result.source_line,
    )


def _agrees(claim: str, span: str) -> bool:
    """Checks an embedding cannot make: the span states the claim's typed values (prices,
    quantities, dates, counts, however written: "$6/mo" is "6 dollars a month", "three" is 3),
    and polarity matches. Embeddings rate "costs $9.99" close to "costs $6", and "does not"
    close to "does"."""
    return compare_values(claim, span)[0] == "agree" and has_negation(claim) == has_negation(span)


def _disagreement(claim: str, span: str) -> str | None:
    """What in ``span`` contradicts ``claim`` (a value stated otherwise, or the opposite
    polarity), as evidence text; None when nothing does."""
    verdict, pairs = compare_values(claim, span)
    if verdict == "conflict":
        wanted, stated = next((a, b) for a, b in pairs if b is not None and not b.equals(a))
        return f"{wanted.text} (claim) vs {stated.text} (response)"
    negated = has_negation(claim)
    terms = content_terms(claim)
    for clause in split_clauses(Span(0, len(span), span), min_words=1) or [Span(0, len(span), span)]:
        # only a clause about what the claim says: "in which case staff cannot read your notes"
        # does not negate "Team workspaces can enable end-to-end encryption"
        own = content_terms(clause.text)
        if has_negation(clause.text) != negated and len(own & terms) >= max(2, len(own) / 2):
            return f"{'negated' if not negated else 'affirmed'} in the response: \"{clause.text}\""
    return None


def _held_below_good(accuracy: AccuracyResult, contradicted: list[ContradictedClaim], tiers) -> AccuracyResult:
    """An answer that states a fact otherwise than its expected claims is at best fair, however
    close it reads: embeddings score "$9.99 per month" almost as "$6 per month"."""
    cap = round(tiers.good - 0.01, 2)
    score = min(accuracy.score, cap)
    reasons = "; ".join(c.evidence for c in contradicted[:3]) + ("; ..." if len(contradicted) > 3 else "")
    components = (accuracy.components or AccuracyComponents()).model_copy(update={
        "wrong_facts": len(contradicted),
        "capped_by": f"{len(contradicted)} claim(s) contradicted: {reasons}" if score < accuracy.score else None})
    return accuracy.model_copy(update={"score": score, "tier": tier_for(score, tiers), "components": components})


class ResponseAnalyzer:
    """Scores AI responses against a site's ground truth (seed 001)."""

    def __init__(
        self, config: AnalyzerConfig | None = None, embedder: Embedder | None = None,
        cache: VectorCache | None = None,
    ):
        self.config = config or AnalyzerConfig()
        p = self.config.providers
        self.embedder = embedder or make_embedder(p.embedding, p.embedding_model)
        self.cache = cache or VectorCache()
        self._retry = {"retries": p.embedding_retries, "backoff_s": p.embedding_backoff_s}

    # ----- ground truth -------------------------------------------------------------------
    def prepare_ground_truth(self, pages: Sequence[StoredPage], domains: Iterable[str]) -> dict[str, GroundTruth]:
        """Chunk and embed each requested domain's pages (subdomains included)."""
        grouped = group_by_domain(list(pages))
        prepared = {}
        for domain in sorted({normalize_domain(d) for d in domains}):
            domain_pages = pages_for(domain, grouped)
            if domain_pages:
                prepared[domain] = self.embed_ground_truth(build_ground_truth(domain, domain_pages))
        return prepared

    def embed_ground_truth(self, gt: GroundTruth, embedder: Embedder | None = None) -> GroundTruth:
        embedder = embedder or self.embedder
        texts = [c.text for c in gt.chunks]
        try:
            gt.vectors = self.cache.get_or_compute(embedder, texts, **self._retry)
            gt.embedding_model = embedder.name
        except EmbeddingError as exc:
            log.warning("ground truth of %s falls back to keywords: %s", gt.domain, exc)
            gt.vectors = KeywordEmbedder().encode(texts)
            gt.embedding_model = KeywordEmbedder.name
        return gt

    # ----- public API ---------------------------------------------------------------------
    def analyze(self, record: AIResponse, ground_truth: Sequence[StoredPage] | GroundTruth) -> AnalysisResult:
        if isinstance(ground_truth, GroundTruth):
            gts = {ground_truth.domain: ground_truth}
        else:
            gts = self.prepare_ground_truth(ground_truth, [record.domain])
        return self.analyze_batch([record], gts)[0]

    def reanalyze(self, previous: AnalysisResult, new_ground_truth: Sequence[StoredPage]) -> AnalysisResult:
        """Score a stored result's response again against updated ground truth."""
        return self.analyze(record_from_result(previous), new_ground_truth)

    def iter_batch(self, records: Sequence[AIResponse], ground_truth: dict[str, GroundTruth]) -> Iterator[AnalysisResult]:
        """The seed's ``analyzeBatch`` as a generator, one encoder call per ``batch.batch_size``."""
        size = self.config.batch.batch_size
        for i in range(0, len(records), size):
            yield from self.analyze_batch(records[i : i + size], ground_truth)

    def analyze_batch(self, records: Sequence[AIResponse], ground_truth: dict[str, GroundTruth]) -> list[AnalysisResult]:
        """Analyse records in one encoder call; a record without ground truth is an error row.

        With a CPU-bound embedder the whole batch holds its ``exclusive`` lock, so that
        concurrent batches in threads take turns instead of competing for the same cores.
        """
        with getattr(self.embedder, "exclusive", nullcontext()):
            return self._analyze_batch(records, ground_truth)

    def _analyze_batch(self, records: Sequence[AIResponse], ground_truth: dict[str, GroundTruth]) -> list[AnalysisResult]:
        now = datetime.now(timezone.utc)
        prepared = [self._prepare(r) for r in records]
        texts: dict[str, int] = {}
        for p in prepared:
            if p.text and not p.record.error and normalize_domain(p.record.domain) in ground_truth:
                for t in self._texts_of(p):
                    texts.setdefault(t, len(texts))
        fallback = False
        vectors = np.zeros((0, 0), dtype=np.float32)
        if texts:
            try:
                vectors = encode_with_retry(self.embedder, list(texts), **self._retry)
            except EmbeddingError as exc:
                log.warning("embedding failed, falling back to keyword matching: %s", exc)
                fallback = True
                vectors = KeywordEmbedder().encode(list(texts))
        keyword_gts: dict[str, GroundTruth] = {}
        results = []
        for p in prepared:
            domain = normalize_domain(p.record.domain)
            gt = ground_truth.get(domain)
            if p.record.error:  # a failed provider call is not an empty answer: it is not scored
                p.flags.append("no_answer")
                results.append(self._error(p, now, f"no answer from {p.record.provider or 'the provider'}: {p.record.error}"))
                continue
            if gt is None:
                results.append(self._error(p, now, f"no ground truth pages for domain {domain!r}"))
                continue
            if not p.text:
                results.append(self._empty(p, gt, now))
                continue
            if fallback and gt.embedding_model != KeywordEmbedder.name:
                if domain not in keyword_gts:
                    keyword_gts[domain] = self.embed_ground_truth(
                        GroundTruth(gt.domain, gt.pages, gt.chunks, gt.version, gt.brand_names),
                        KeywordEmbedder(),
                    )
                gt = keyword_gts[domain]
            vec = lambda items: vectors[[texts[t] for t in items]] if items else np.zeros((0, vectors.shape[1]), np.float32)  # noqa: E731
            results.append(self._score(p, gt, vec, now, fallback or gt.embedding_model == KeywordEmbedder.name))
        return results

    # ----- internals ----------------------------------------------------------------------
    def _prepare(self, record: AIResponse) -> _Prepared:
        flags: list[str] = []
        text = record.response
        limit = self.config.batch.max_response_chars
        if len(text) > limit:
            cut = text.rfind(" ", 0, limit)
            text = text[: cut if cut > limit // 2 else limit]
            flags.append("response_truncated")
        if not text.strip():
            return _Prepared(record, "", [], [], [], claims_for(record), ["empty_response"])
        strategy = self.config.accuracy.chunking_strategy
        whole = chunk(text, strategy, max_chars=None)
        chunks = [piece for span in whole for piece in split_long(span)]
        if len(chunks) > len(whole):  # a chunk exceeded what the encoder reads in one pass
            flags.append("response_chunked")
        sentences = chunks if strategy == "sentences" else chunk(text, "sentences")
        claims = claims_for(record)
        claim_spans = sentences + [c for s in sentences for c in split_clauses(s)] if claims else []
        return _Prepared(record, text, chunks, sentences, claim_spans, claims, flags)

    @staticmethod
    def _texts_of(p: _Prepared) -> Iterator[str]:
        yield from (c.text for c in p.chunks)
        yield from (s.text for s in p.claim_spans or p.sentences)
        yield from (c.text for c in p.claims)
        if p.record.expected_answer:
            yield p.record.expected_answer
        if p.record.query:
            yield p.record.query

    def _base(self, p: _Prepared, now: datetime, gt: GroundTruth | None, **fields) -> AnalysisResult:
        r = p.record
        brands = list(dict.fromkeys(r.brand_names + (gt.brand_names if gt else [])))
        rid = hashlib.sha256(f"{r.query_set_id}\x00{r.query_id}\x00{r.provider}\x00{r.model}\x00{r.response}".encode()).hexdigest()[:24]
        return AnalysisResult(
            id=rid, query_id=r.query_id, query=r.query, domain=normalize_domain(r.domain),
            ai_provider=r.provider, model=r.model, response=r.response, response_at=r.responded_at,
            analyzed_at=now, analyzer_version=ANALYZER_VERSION,
            ground_truth_version=gt.version if gt else None,
            embedding_model=gt.embedding_model if gt else None, query_set_id=r.query_set_id,
            expected_answer=r.expected_answer, expected_claims=p.claims, brand_names=brands,
            source_line=r.source_line, **fields,
        )

    def _error(self, p: _Prepared, now: datetime, message: str) -> AnalysisResult:
        return self._base(
            p, now, None, scores=Scores(accuracy=None, completeness=None, attribution=None),
            feedback=Feedback(), status="error", error=message, flags=p.flags,
        )

    def _empty(self, p: _Prepared, gt: GroundTruth, now: datetime) -> AnalysisResult:
        """Seed: an empty response scores 0 on every metric and is flagged for review."""
        tiers = self.config.tiers
        required = [c for c in p.claims if c.importance == "required"]
        return self._base(
            p, now, gt, status="flagged", flags=p.flags,
            scores=Scores(
                accuracy=AccuracyResult(score=0, tier=tier_for(0, tiers), similarity=0, method="empty"),
                completeness=CompletenessResult(
                    score=0, tier=tier_for(0, tiers), claims_missing=p.claims,
                    total_required=len(required), total_found=0,
                ),
                attribution=AttributionResult(score=0, tier=tier_for(0, tiers)),
            ),
            feedback=Feedback(claims=ClaimFeedback(
                missing=[MissingClaim(claim=c, importance=c.importance) for c in p.claims]
            )),
        )

    def _score(self, p: _Prepared, gt: GroundTruth, vec, now: datetime, fallback: bool) -> AnalysisResult:
        cfg = self.config
        flags = list(p.flags) + (["embedding_fallback"] if fallback else [])
        G = gt.vectors if gt.vectors is not None and len(gt.chunks) else None
        S = vec([s.text for s in p.sentences])
        C = S if p.chunks is p.sentences else vec([c.text for c in p.chunks])
        sent_gt = S @ G.T if G is not None else None
        chunk_gt = sent_gt if C is S else (C @ G.T if G is not None else None)

        accuracy = self._accuracy(p, gt, vec, C, chunk_gt, fallback)
        completeness, claim_fb = self._completeness(p, vec)
        if claim_fb.contradicted:
            accuracy = _held_below_good(accuracy, claim_fb.contradicted, cfg.tiers)
        attribution = score_attribution(
            p.text, gt.domain, list(dict.fromkeys(p.record.brand_names + gt.brand_names)),
            cfg.attribution, cfg.tiers,
        )
        highlights, unsupported = self._highlights(p, gt, sent_gt)
        claim_fb.not_in_ground_truth = unsupported
        status = "ok"
        if is_refusal(p.text):
            flags.append("refusal")
            status = "flagged"
        if cfg.completeness.require_all_required and completeness and any(
            c.importance == "required" for c in completeness.claims_missing
        ):
            flags.append("missing_required_claims")
            status = "flagged"
        return self._base(
            p, now, gt, status=status, flags=flags, fallback=fallback,
            scores=Scores(accuracy=accuracy, completeness=completeness, attribution=attribution),
            feedback=Feedback(claims=claim_fb, highlights=highlights),
        )

    def _accuracy(self, p: _Prepared, gt: GroundTruth, vec, C: np.ndarray, chunk_gt, fallback: bool) -> AccuracyResult:
        cfg, record = self.config.accuracy, p.record
        agg = np.max if cfg.aggregation == "max" else np.mean
        best_gt = chunk_gt.argmax(axis=1) if chunk_gt is not None else None
        matched = [
            ChunkMatch(
                response_segment=c.text, position=_pos(c),
                ground_truth_chunk_id=gt.chunks[best_gt[i]].id if best_gt is not None else None,
                similarity=round(float(chunk_gt[i, best_gt[i]]), 4) if best_gt is not None else 0.0,
            )
            for i, c in enumerate(p.chunks)
        ]
        components = None
        if record.expected_answer:
            e = vec([record.expected_answer])[0]
            cos = C @ e
            method = "keyword" if fallback else cfg.method
            if method == "calibrated":
                per_chunk, components = self._calibrated(p, vec, C, e)
                score = float(agg(per_chunk))
            else:
                score = float(agg(np.clip(cos, 0, 1)))
            similarity = float(agg(cos))
        else:  # no expected answer: how well the response is grounded in the site's pages
            method = "ground_truth" if not fallback else "keyword"
            best = chunk_gt.max(axis=1) if chunk_gt is not None else np.zeros(len(p.chunks))
            similarity = float(agg(best))
            score = float(agg(np.clip(best, 0, 1)))
        score = round(100 * min(max(score, 0.0), 1.0), 2)
        return AccuracyResult(
            score=score, tier=tier_for(score, self.config.tiers),
            similarity=round(min(max(similarity, 0.0), 1.0), 4), matched_chunks=matched,
            method=method, components=components,
        )

    def _calibrated(self, p: _Prepared, vec, C: np.ndarray, e: np.ndarray):
        """Per-chunk agreement with the expected answer, beyond plain cosine.

        1. Residual cosine: the question's direction is projected out of both vectors, so two
           answers are not judged similar merely because both restate the question.
        2. Lexical overlap (F1) of stemmed content terms, excluding the question's own terms.
        3. Polarity: a penalty when exactly one side is negated ("X does" vs "X does not").
        Measured on TruthfulQA in evals/accuracy_eval.py.
        """
        cfg, record = self.config.accuracy, p.record
        Cr, er = C, e
        q_terms: set[str] = set()
        if record.query:
            q = vec([record.query])[0]
            Cr = C - np.outer(C @ q, q)
            er = e - (e @ q) * q
            Cr = Cr / np.maximum(np.linalg.norm(Cr, axis=1, keepdims=True), 1e-9)
            er = er / max(float(np.linalg.norm(er)), 1e-9)
            q_terms = content_terms(record.query)
        residual = Cr @ er
        e_terms = content_terms(record.expected_answer, q_terms)
        e_neg = has_negation(record.expected_answer)
        lexical = np.array([overlap_f1(content_terms(c.text, q_terms), e_terms) for c in p.chunks])
        agree = np.array([has_negation(c.text) == e_neg for c in p.chunks])
        w, pen = cfg.lexical_weight, cfg.polarity_penalty
        per_chunk = (np.clip(residual, 0, 1) + w * lexical) / (1 + w) - (pen / (1 + w)) * (~agree)
        best = int(np.argmax(per_chunk))
        return np.clip(per_chunk, 0, 1), AccuracyComponents(
            residual_similarity=round(float(residual[best]), 4),
            lexical_overlap=round(float(lexical[best]), 4), polarity_agreement=bool(agree[best]),
        )

    def _completeness(self, p: _Prepared, vec) -> tuple[CompletenessResult | None, ClaimFeedback]:
        cfg = self.config
        if not p.claims:
            return None, ClaimFeedback()
        K = vec([c.text for c in p.claims])
        spans = p.claim_spans
        sims = K @ vec([s.text for s in spans]).T if spans else np.zeros((len(p.claims), 0))
        found, missing, feedback_found, contradicted = [], [], [], []
        for i, claim in enumerate(p.claims):
            # The most similar span above the threshold that also agrees on values and polarity;
            # failing that, the most similar one that states the claim's values otherwise, or
            # its opposite, is a contradiction.
            candidates = np.flatnonzero(sims[i] >= cfg.completeness.similarity_threshold)
            ranked = [int(k) for k in candidates[np.argsort(-sims[i, candidates])]]
            j = next((k for k in ranked if _agrees(claim.text, spans[k].text)), -1)
            sim = float(sims[i, j]) if j >= 0 else 0.0
            if j >= 0:
                s = spans[j]
                found.append(ClaimMatch(claim=claim, matched_text=s.text, similarity=round(sim, 4), position=_pos(s)))
                feedback_found.append(FoundClaim(claim=claim, evidence=s.text, confidence=round(sim, 4)))
                continue
            missing.append(claim)
            conflict = next(((k, why) for k in ranked if (why := _disagreement(claim.text, spans[k].text))), None)
            if conflict:
                s = spans[conflict[0]]
                contradicted.append(ContradictedClaim(claim=claim, statement=s.text, position=_pos(s), evidence=conflict[1]))
        # Seed: score = found / required. Expected claims count when there are no required ones;
        # optional claims are reported, never scored.
        for level in ("required", "expected"):
            scored = [c for c in p.claims if c.importance == level]
            if scored:
                break
        found_ids = {m.claim.id for m in found}
        n_found = sum(c.id in found_ids for c in scored)
        score = round(100 * n_found / len(scored), 2) if scored else 100.0
        if cfg.completeness.require_all_required and any(c.importance == "required" for c in missing):
            score = 0.0
        return (
            CompletenessResult(
                score=score, tier=tier_for(score, cfg.tiers), claims_found=found, claims_missing=missing,
                total_required=len(scored), total_found=n_found,
            ),
            ClaimFeedback(
                found=feedback_found,
                missing=[MissingClaim(claim=c, importance=c.importance) for c in missing
                         if c.id not in {x.claim.id for x in contradicted}],
                contradicted=contradicted,
            ),
        )

    def _highlights(self, p: _Prepared, gt: GroundTruth, sent_gt) -> tuple[HighlightFeedback, list[UnsupportedStatement]]:
        fb = self.config.feedback
        highlights, unmatched, unsupported = [], [], []
        covered = total = 0
        for i, s in enumerate(p.sentences):
            total += len(s.text)
            j = int(np.argmax(sent_gt[i])) if sent_gt is not None else -1
            sim = float(sent_gt[i, j]) if j >= 0 else 0.0
            if j >= 0 and sim >= fb.highlight_threshold:
                c = gt.chunks[j]
                covered += len(s.text)
                highlights.append(TextHighlight(
                    response_range=_pos(s), response_text=s.text, similarity=round(sim, 4),
                    ground_truth_source=GroundTruthSource(chunk_id=c.id, page_url=c.page_url, matched_text=c.text),
                ))
            else:
                unmatched.append(UnmatchedSegment(text=s.text, position=_pos(s)))
                if sim < fb.support_threshold and len(words(s.text)) >= fb.min_statement_words:
                    unsupported.append(UnsupportedStatement(statement=s.text, position=_pos(s), similarity=round(sim, 4)))
        coverage = round(100 * covered / total, 2) if total else 0.0
        return HighlightFeedback(highlights=highlights, coverage_percent=coverage, unmatched_segments=unmatched), unsupported
