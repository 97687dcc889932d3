"""The response analyzer: accuracy, completeness and attribution scores plus feedback.

Work is organised for throughput: a batch gathers every text it needs (response chunks and
sentences, expected answers, claims, queries), de-duplicates them and encodes them in a single
call; ground-truth chunks are encoded once per domain and version (and cached on disk). What
remains per response is small matrix arithmetic.
"""

from __future__ import annotations

import gc
import hashlib
import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

import numpy as np
from threadpoolctl import ThreadpoolController

from .. import __version__
from ..embeddings import (
    BUNDLED,
    Embedder,
    EmbeddingError,
    KeywordEmbedder,
    VectorCache,
    encode_with_retry,
    make_embedder,
)
from ..text import (
    Span,
    chunk,
    content_terms,
    has_negation,
    overlap_f1,
    split_long,
    split_sentences,
    words,
)
from .attribution import normalize_domain, score_attribution
from .checker import checker_for, not_a_statement
from .claim_conflict import conflict_features, shipped_claim_conflict
from .claim_found import claim_features, shipped_claim_found
from .competitors import presences
from .config import AnalyzerConfig
from .facts import values
from .flag_confidence import FlagContext, flag_rows, shipped_flag_confidence, site_sentences
from .groundtruth import GroundTruth, build_ground_truth, group_by_domain, pages_for
from .refusal import is_refusal
from .schema import (
    AccuracyComponents,
    AccuracyResult,
    AIResponse,
    AnalysisResult,
    AttributionComponents,
    AttributionResult,
    BrandPresence,
    ChunkMatch,
    ClaimFeedback,
    ClaimMatch,
    Competitor,
    CompletenessResult,
    ContradictedClaim,
    Contradiction,
    ExpectedClaim,
    Feedback,
    FoundClaim,
    GroundTruthSource,
    HighlightFeedback,
    MissingClaim,
    Scores,
    StoredPage,
    TextHighlight,
    TextPosition,
    UnmatchedSegment,
    UnsupportedStatement,
)
from .scope import day_sets, exclusions, scopes
from .scoring import accuracy_of, claims_for, completeness_of, given_claims, is_derived
from .tiers import tier_for
from .verdicts import (
    Lexicon,
    OfflineJudge,
    OfflineJudgeSettings,
    PageFinding,
    Verdict,
    Window,
    agencies,
    denied_actions,
    denied_names,
    is_negated,
    list_heading,
)

ANALYZER_VERSION = f"sleuth-response-analyzer/{__version__}"
#: the page sentence that states a claim is looked for in the chunks this close to the claim
STATING_CHUNKS = 6
log = logging.getLogger(__name__)


@dataclass
class _Prepared:
    """One record with its texts cut up, before any vectors exist."""

    record: AIResponse
    text: str  # the analysed text (the response, truncated when over the limit)
    chunks: list[Span]  # accuracy chunks, per the chunking strategy
    sentences: list[Span]  # highlights and unsupported statements
    claim_spans: list[Span]  # sentences, their clauses and adjacent pairs, where claims are looked for
    windows: list[Window]  # the same spans with their terms, values and polarity
    claims: list[ExpectedClaim]
    flags: list[str]


@dataclass
class _Closeness:
    """One answer's closeness to its pages and to its expected answer, cut from products
    computed once per batch (one matrix product per domain instead of one per answer)."""

    sent_gt: np.ndarray | None  # sentence x page chunk cosines
    best_gt: np.ndarray | None  # per sentence: its closest page chunk
    top_gt: np.ndarray | None  # per sentence: its closest page chunks (up to 3), closest first
    cos: np.ndarray | None  # per chunk: cosine with the expected answer
    residual: np.ndarray | None  # per chunk: the same with the question's direction projected out


@dataclass
class EncodedTexts:
    """Vectors of the distinct texts of several batches, encoded ahead of them in one call
    (:meth:`ResponseAnalyzer.encode_ahead`)."""

    rows: dict[str, int]  # text -> its row of ``vectors``
    vectors: np.ndarray
    model: str  # the embedder's name
    # the records as cut up for the encoding (id(record) -> ...), by the analyzer ``prepared_by``:
    # its batches reuse them instead of cutting every record up again (see ``prepared``)
    cut: dict[int, _Prepared] = field(default_factory=dict, repr=False)
    prepared_by: object = field(default=None, repr=False)

    def __getstate__(self) -> dict:
        # another process (Dask) has other objects: ids and the analyzer do not travel
        return {**self.__dict__, "cut": {}, "prepared_by": None}

    def prepared(self, record: AIResponse, analyzer: object) -> _Prepared | None:
        """``record`` as ``analyzer`` cut it up for this encoding, with its own flags list (a
        batch adds flags to it, and a retried batch must not find them there); None when it was
        not, or by another analyzer."""
        p = self.cut.get(id(record)) if analyzer is self.prepared_by else None
        return replace(p, flags=list(p.flags)) if p is not None and p.record is record else None

    def take(self, texts: Sequence[str], model: str) -> np.ndarray | None:
        """The vectors of ``texts``, in their order; None unless all were encoded by ``model``."""
        if model != self.model or any(t not in self.rows for t in texts):
            return None
        return self.vectors.take([self.rows[t] for t in texts], axis=0)


def _top(sims: np.ndarray, k: int) -> np.ndarray:
    """Per row, the columns of the ``k`` largest values, largest first (equal values: lower column
    first, but which of more than ``k`` equal values are kept is open)."""
    k = min(k, sims.shape[1])
    part = np.argpartition(-sims, k - 1, axis=1)[:, :k] if k < sims.shape[1] else np.indices(sims.shape)[1]
    vals = np.take_along_axis(sims, part, axis=1)
    return np.take_along_axis(part, np.lexsort((part, -vals), axis=1), axis=1)


def _rowwise(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("ij,ij->i", a, b)


def _unit_rows(m: np.ndarray) -> np.ndarray:
    return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-9)


_gc_lock = threading.Lock()
_gc_state = {"holders": 0, "was_enabled": False, "blas": None}


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused, and numpy's BLAS kept to one thread, while batches
    are scored (reentrant across threads); both resume, as they were, when the last batch ends.
    - Scoring allocates hundreds of thousands of small objects and makes no reference cycles, and
      the collector's passes over the memo caches cost a quarter of the scoring CPU (measured on
      TruthfulQA answers). Garbage without cycles is freed as always.
    - A product big enough for BLAS to share (an answer's chunks against a site's page chunks, the
      batch's sentences against them) wakes its worker threads, which then spin waiting for the
      next: on TruthfulQA answers another 60% of the scoring's CPU, taken from the core the encoder
      or another process needs. One thread computes the same products (checked: same rows)."""
    with _gc_lock:
        if _gc_state["holders"] == 0:
            _gc_state["was_enabled"] = gc.isenabled()
            gc.disable()
            # the loaded libraries are inspected each time (under a millisecond): one loaded since
            # the last batch (scipy's BLAS, with scikit-learn) is kept to one thread too
            _gc_state["blas"] = ThreadpoolController().limit(limits=1, user_api="blas")
        _gc_state["holders"] += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_state["holders"] -= 1
            if _gc_state["holders"] == 0:
                _gc_state["blas"].restore_original_limits()
                if _gc_state["was_enabled"]:
                    gc.enable()


def _pos(span: Span) -> TextPosition:
    return TextPosition(start=span.start, end=span.end)


def record_from_result(result: AnalysisResult) -> AIResponse:
    """The input record a stored result was made from (for re-analysis)."""
    return AIResponse(
        query_id=result.query_id,
        domain=result.domain,
        response=result.response,
        query=result.query,
        provider=result.ai_provider,
        model=result.model,
        responded_at=result.response_at,
        expected_answer=result.expected_answer,
        claims=given_claims(result.expected_claims),  # those cut from the expected answer are cut again
        brand_names=result.brand_names,
        citations=result.citations,
        competitors=[
            Competitor(name=c.name, domains=c.domains, brand_names=c.brand_names) for c in result.competitors
        ],
        query_set_id=result.query_set_id,
        source_line=result.source_line,
        sample=result.sample,
    )


def _doubted_claims(claims: ClaimFeedback, flagged: list[Contradiction], kept: list[Contradiction]) -> None:
    """A contradicted claim whose every wrong fact fell below the confidence threshold is missing:
    the verdict would accuse the answer of a contradiction that the report no longer shows."""
    for c in list(claims.contradicted):
        if any(c.position.overlaps(f.position) for f in flagged) and not any(
            c.position.overlaps(f.position) for f in kept
        ):
            claims.contradicted.remove(c)
            claims.missing.append(MissingClaim(claim=c.claim, importance=c.claim.importance))


def _replaces(finding: PageFinding, claim: str) -> bool:
    """Whether the response's statement that ``finding`` holds against the page states otherwise
    exactly what ``claim`` states (see :func:`_contradicted_by_pages`)."""
    words = set(claim.split())
    if finding.kind == "entity":
        return bool(words & set(finding.replaced))
    if finding.kind == "negation":
        return bool(words & set(finding.replaced)) and is_negated(claim)
    return any(finding.replaced[0].equals(w) for w in values(claim))


def _contradicted_by_pages(claims: ClaimFeedback, findings: list[PageFinding]) -> None:
    """A missing claim is contradicted where the response states, against the page, another value
    or name in place of exactly the claim's ("within 90 days" where the page and the claim say 60;
    "Vancouver" where they say Toronto), or affirms a name that the claim, as the page, denies
    ("Northern Ireland included" against "cannot send seeds to Northern Ireland")."""
    for m in list(claims.missing):
        hit = next((f for f in findings if f.replaced and _replaces(f, m.claim.text)), None)
        if hit:
            claims.missing.remove(m)
            claims.contradicted.append(
                ContradictedClaim(
                    claim=m.claim,
                    statement=hit.statement.text,
                    position=_pos(hit.statement),
                    evidence=hit.detail,
                    kind=hit.kind,
                )
            )


def _answered_otherwise(
    claims: ClaimFeedback, wrong: list[Contradiction], statement: Span, expected: str, accuracy: float
) -> None:
    """The response answers the question otherwise than the expected answer: its statement is a
    wrong fact against it, and every claim it leaves unstated is contradicted by it."""
    detail = f"answers the question otherwise than the expected answer (accuracy {accuracy:.0f})"
    wrong.append(
        Contradiction(
            statement=statement.text,
            position=_pos(statement),
            kind="other",
            evidence=expected,
            source="expected_answer",
            confidence=0.5,
            detail=detail,
        )
    )
    for m in list(claims.missing):
        claims.missing.remove(m)
        claims.contradicted.append(
            ContradictedClaim(
                claim=m.claim,
                statement=statement.text,
                position=_pos(statement),
                evidence=detail,
                kind="other",
            )
        )


class ResponseAnalyzer:
    """Scores AI responses against a site's ground truth (seed 001)."""

    def __init__(
        self,
        config: AnalyzerConfig | None = None,
        embedder: Embedder | None = None,
        cache: VectorCache | None = None,
    ):
        self.config = config or AnalyzerConfig()
        p = self.config.providers
        self.embedder = embedder or make_embedder(p.embedding, p.embedding_model)
        self.cache = cache or VectorCache()
        self._retry = {"retries": p.embedding_retries, "backoff_s": p.embedding_backoff_s}
        words = None if isinstance(self.embedder, KeywordEmbedder) else self.embedder
        store = self.cache.root / f"words-{hashlib.sha256(self.embedder.name.encode()).hexdigest()[:16]}.npz"
        self.judge = OfflineJudge(
            Lexicon(words, store if words else None),
            OfflineJudgeSettings(found_cosine=self.config.completeness.similarity_threshold),
        )
        self._learned: set[str] = set()  # ground-truth versions whose words the lexicon holds
        # ground-truth version -> (per chunk its parsed sentences, all of them, every word of the site)
        self._page_facts: dict[str, tuple] = {}
        self._stating: dict[tuple, list] = {}
        # ground-truth version -> its sentences as the flag-confidence model reads them, and each
        # sentence's chunk
        self._flag_sites: dict[str, tuple[tuple, dict[str, int]]] = {}
        # (ground-truth version, model) -> the vectors of its distinct chunk texts, each chunk's column
        self._distinct: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        # the claim checker reads MiniLM's vectors: with another embedder the rules alone decide
        self.checker = checker_for(self.config.feedback.checker, self.embedder.name)
        self._evidence: dict[str, np.ndarray] = {}  # page sentence -> its vector, for the checker
        #: where the flag-confidence trainer collects each answer's flags (the rules', before the
        #: model weighs them) and their feature rows: (record, flags, rows); None: not collected
        self.flag_rows_sink: list[tuple[AIResponse, list[Contradiction], list]] | None = None
        #: where the claim-found trainer collects the features of each claim the checks call
        #: missing: (record, claim id, features, whether the model is barred from it); None: not collected
        self.claim_rows_sink: list[tuple[AIResponse, str, list[float], bool]] | None = None
        #: where the claim-conflict trainer collects the features of each claim the checks call
        #: missing that a window states a value of otherwise: (record, claim id, features, the
        #: window's text); None: not collected
        self.conflict_rows_sink: list[tuple[AIResponse, str, list[float], str]] | None = None

    # ----- ground truth -------------------------------------------------------------------
    def prepare_ground_truth(
        self,
        pages: Sequence[StoredPage],
        domains: Iterable[str],
        progress: Callable[[int], Callable[[int], None] | None] | None = None,
    ) -> dict[str, GroundTruth]:
        """Chunk and embed each requested domain's pages (subdomains included). ``progress``,
        given the number of chunks to embed, returns what to call with each count embedded (a
        large page file takes minutes: the user sees them go)."""
        grouped = group_by_domain(list(pages))
        built = {}
        for domain in sorted({normalize_domain(d) for d in domains}):
            domain_pages = pages_for(domain, grouped)
            if domain_pages:
                built[domain] = build_ground_truth(domain, domain_pages)
        advance = progress(sum(len(gt.chunks) for gt in built.values())) if progress and built else None
        return {domain: self.embed_ground_truth(gt, on_progress=advance) for domain, gt in built.items()}

    def embed_ground_truth(
        self,
        gt: GroundTruth,
        embedder: Embedder | None = None,
        on_progress: Callable[[int], None] | None = None,
    ) -> GroundTruth:
        embedder = embedder or self.embedder
        texts = [c.text for c in gt.chunks]
        try:
            gt.vectors = self.cache.get_or_compute(embedder, texts, on_progress=on_progress, **self._retry)
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

    def iter_batch(
        self, records: Sequence[AIResponse], ground_truth: dict[str, GroundTruth]
    ) -> Iterator[AnalysisResult]:
        """The seed's ``analyzeBatch`` as a generator, one encoder call per ``batch.batch_size``."""
        size = self.config.batch.batch_size
        for i in range(0, len(records), size):
            yield from self.analyze_batch(records[i : i + size], ground_truth)

    def encode_ahead(
        self, records: Sequence[AIResponse], ground_truth: dict[str, GroundTruth]
    ) -> EncodedTexts | None:
        """The vectors of every distinct text that :meth:`analyze_batch` will encode for
        ``records``, in one encoder call, for the batches of these records to share (pass it as
        their ``encoded``). Why: batches encoded one by one encode a text shared by several of
        them again, and the encoder sorts each call's texts by length to pad less, which a
        larger call does better. None when nothing is to be encoded or the encoder failed (each
        batch then encodes, retries and falls back on its own)."""
        prepared = [self._prepare(r) for r in records]
        texts = self._batch_texts(prepared, ground_truth)
        if not texts:
            return None
        try:
            vectors = encode_with_retry(self.embedder, list(texts), **self._retry)
        except EmbeddingError:
            return None
        return EncodedTexts(
            texts, vectors, self.embedder.name, {id(p.record): p for p in prepared}, prepared_by=self
        )

    def analyze_batch(
        self,
        records: Sequence[AIResponse],
        ground_truth: dict[str, GroundTruth],
        encoded: EncodedTexts | None = None,
    ) -> list[AnalysisResult]:
        """Analyse records in one encoder call (none when ``encoded``, from :meth:`encode_ahead`,
        holds all their texts); a record without ground truth is an error row.

        With a CPU-bound embedder the whole batch holds its ``exclusive`` lock, so that
        concurrent batches in threads take turns instead of competing for the same cores.
        """
        with getattr(self.embedder, "exclusive", nullcontext()), collector_paused():
            return self._analyze_batch(records, ground_truth, encoded)

    def _batch_texts(self, prepared: list[_Prepared], ground_truth: dict[str, GroundTruth]) -> dict[str, int]:
        """The distinct texts to encode for these records, each with its row."""
        texts: dict[str, int] = {}
        for p in prepared:
            if p.text and not p.record.error and normalize_domain(p.record.domain) in ground_truth:
                for t in self._texts_of(p):
                    texts.setdefault(t, len(texts))
        return texts

    def _analyze_batch(
        self,
        records: Sequence[AIResponse],
        ground_truth: dict[str, GroundTruth],
        encoded: EncodedTexts | None = None,
    ) -> list[AnalysisResult]:
        now = datetime.now(UTC)
        prepared = [
            (encoded.prepared(r, self) if encoded is not None else None) or self._prepare(r) for r in records
        ]
        texts = self._batch_texts(prepared, ground_truth)
        fallback = False
        vectors = np.zeros((0, 0), dtype=np.float32)
        ahead = encoded.take(list(texts), self.embedder.name) if texts and encoded is not None else None
        if ahead is not None:
            vectors = ahead
        elif texts:
            try:
                vectors = encode_with_retry(self.embedder, list(texts), **self._retry)
            except EmbeddingError as exc:
                log.warning("embedding failed, falling back to keyword matching: %s", exc)
                fallback = True
                vectors = KeywordEmbedder().encode(list(texts))
        if texts and not fallback:
            self._learn_words(prepared, ground_truth)
        keyword_gts: dict[str, GroundTruth] = {}
        results: list[AnalysisResult | None] = []
        scored: list[tuple[int, _Prepared, GroundTruth, bool]] = []
        for p in prepared:
            domain = normalize_domain(p.record.domain)
            gt = ground_truth.get(domain)
            if p.record.error:  # a failed provider call is not an empty answer: it is not scored
                p.flags.append("no_answer")
                results.append(
                    self._error(
                        p, now, f"no answer from {p.record.provider or 'the provider'}: {p.record.error}"
                    )
                )
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
            scored.append((len(results), p, gt, fallback or gt.embedding_model == KeywordEmbedder.name))
            results.append(None)
        if scored:
            vec = lambda items: (  # noqa: E731  (take: the same copy as fancy indexing, half its cost)
                vectors.take([texts[t] for t in items], axis=0)
                if items
                else np.zeros((0, vectors.shape[1]), np.float32)
            )
            closeness = self._closeness([(p, gt) for _, p, gt, _ in scored], vectors, texts)
            known = lambda text: vectors[texts[text]] if text in texts else None  # noqa: E731
            for (at, p, gt, fb), close in zip(scored, closeness):
                results[at] = self._score(p, gt, vec, close, now, fb, known)
        return results

    def _closeness(
        self, answers: list[tuple[_Prepared, GroundTruth]], vectors: np.ndarray, texts: dict[str, int]
    ) -> list[_Closeness]:
        """Each answer's sentence-to-page and chunk-to-expected-answer cosines, computed for the
        whole batch at once: one product per domain, one row-wise product for the expected
        answers (per answer, numpy's call overhead cost more than the arithmetic)."""
        sent_rows = [[texts[s.text] for s in p.sentences] for p, _ in answers]
        out = [_Closeness(None, None, None, None, None) for _ in answers]
        by_gt: dict[int, list[int]] = {}
        for k, (_, gt) in enumerate(answers):
            if gt.vectors is not None and len(gt.chunks):
                by_gt.setdefault(id(gt), []).append(k)
        for ks in by_gt.values():
            distinct, columns = self._distinct_chunks(answers[ks[0]][1])
            sims = (vectors[[r for k in ks for r in sent_rows[k]]] @ distinct.T)[:, columns]
            best, top = sims.argmax(axis=1), _top(sims, 3)  # the first of equals is the best
            at = 0
            for k in ks:
                end = at + len(sent_rows[k])
                out[k].sent_gt, out[k].best_gt, out[k].top_gt = sims[at:end], best[at:end], top[at:end]
                at = end
        with_expected = [k for k, (p, _) in enumerate(answers) if p.record.expected_answer and p.chunks]
        if with_expected:
            chunk_rows = [
                sent_rows[k]
                if answers[k][0].chunks is answers[k][0].sentences
                else [texts[c.text] for c in answers[k][0].chunks]
                for k in with_expected
            ]
            counts = [len(r) for r in chunk_rows]
            records = [answers[k][0].record for k in with_expected]
            C = vectors[[r for rows in chunk_rows for r in rows]]
            E = vectors[np.repeat([texts[r.expected_answer] for r in records], counts)]
            cos = _rowwise(C, E)
            residual = cos
            asked = np.repeat([bool(r.query) for r in records], counts)
            if asked.any():  # the question's direction projected out of both (see _calibrated)
                Q = vectors[np.repeat([texts[r.query or r.expected_answer] for r in records], counts)]
                Cr = _unit_rows(C - _rowwise(C, Q)[:, None] * Q)
                Er = _unit_rows(E - _rowwise(E, Q)[:, None] * Q)
                residual = np.where(asked, _rowwise(Cr, Er), cos)
            at = 0
            for k, n in zip(with_expected, counts):
                out[k].cos, out[k].residual = cos[at : at + n], residual[at : at + n]
                at += n
        return out

    def _distinct_chunks(self, gt: GroundTruth) -> tuple[np.ndarray, np.ndarray]:
        """The vectors of the ground truth's distinct chunk texts, and each chunk's column among
        them. Chunks of the same text (a sentence on several pages) get the same cosine, so that
        the first of them is the closest: their vectors, encoded in different batches, and a
        product's last bits would otherwise pick one at random."""
        key = (gt.version, gt.embedding_model)
        if key not in self._distinct:
            column: dict[str, int] = {}  # text -> its column
            firsts = []
            for i, c in enumerate(gt.chunks):
                if c.text not in column:
                    column[c.text] = len(firsts)
                    firsts.append(i)
            self._distinct[key] = (gt.vectors[firsts], np.array([column[c.text] for c in gt.chunks], np.intp))
        return self._distinct[key]

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
            return _Prepared(record, "", [], [], [], [], claims_for(record), ["empty_response"])
        strategy = self.config.accuracy.chunking_strategy
        whole = chunk(text, strategy, max_chars=None)
        chunks = [piece for span in whole for piece in split_long(span)]
        if len(chunks) > len(whole):  # a chunk exceeded what the encoder reads in one pass
            flags.append("response_chunked")
        sentences = chunks if strategy == "sentences" else chunk(text, "sentences")
        claims = claims_for(record)
        windows = OfflineJudge.windows(text) if claims else []
        return _Prepared(record, text, chunks, sentences, [w.span for w in windows], windows, claims, flags)

    def _learn_words(self, prepared: list[_Prepared], ground_truth: dict[str, GroundTruth]) -> None:
        """Word vectors for paraphrase matching: the batch's claim and answer words, and once per
        domain version the words of its pages (cached like the chunks' vectors)."""
        lexicon = self.judge.lexicon
        if lexicon.embedder is None:
            return
        words = self.judge.vocabulary(
            t
            for p in prepared
            if p.claims
            for t in (p.text, *(c.text for c in p.claims), p.record.query or "")
        )
        for domain in {normalize_domain(p.record.domain) for p in prepared if p.text}:
            gt = ground_truth.get(domain)
            if gt is not None and gt.version not in self._learned:
                self._learned.add(gt.version)
                words |= self.judge.vocabulary(c.text for c in gt.chunks)
        lexicon.add(words)

    @staticmethod
    def _texts_of(p: _Prepared) -> Iterator[str]:
        yield from (c.text for c in p.chunks)
        yield from (s.text for s in p.sentences)
        yield from (c.text for c in p.claims)
        if p.record.expected_answer:
            yield p.record.expected_answer
        if p.record.query:
            yield p.record.query

    def _base(self, p: _Prepared, now: datetime, gt: GroundTruth | None, **fields) -> AnalysisResult:
        r = p.record
        brands = list(dict.fromkeys(r.brand_names + (gt.brand_names if gt else [])))
        if gt is not None:  # scored: where the site and each tracked competitor stand
            fields["site"], fields["competitors"] = presences(
                p.text, gt.domain, brands, r.competitors, r.citations
            )
        else:  # an error row keeps the competitors tracked, for re-analysis
            fields["competitors"] = [BrandPresence(**c.model_dump()) for c in r.competitors]
        repeat = f"\x00{r.sample}" if r.sample and r.sample > 1 else ""  # a first sample keeps its old id
        rid = hashlib.sha256(
            f"{r.query_set_id}\x00{r.query_id}\x00{r.provider}\x00{r.model}\x00{r.response}{repeat}".encode()
        ).hexdigest()[:24]
        return AnalysisResult(
            id=rid,
            query_id=r.query_id,
            query=r.query,
            domain=normalize_domain(r.domain),
            ai_provider=r.provider,
            model=r.model,
            response=r.response,
            response_at=r.responded_at,
            analyzed_at=now,
            analyzer_version=ANALYZER_VERSION,
            ground_truth_version=gt.version if gt else None,
            embedding_model=gt.embedding_model if gt else None,
            query_set_id=r.query_set_id,
            expected_answer=r.expected_answer,
            expected_claims=p.claims,
            brand_names=brands,
            citations=r.citations,
            source_line=r.source_line,
            sample=r.sample,
            **fields,
        )

    def _error(self, p: _Prepared, now: datetime, message: str) -> AnalysisResult:
        return self._base(
            p,
            now,
            None,
            scores=Scores(accuracy=None, completeness=None, attribution=None),
            feedback=Feedback(),
            status="error",
            error=message,
            flags=p.flags,
        )

    def _empty(self, p: _Prepared, gt: GroundTruth, now: datetime) -> AnalysisResult:
        """Seed: an empty response scores 0 on every metric and is flagged for review."""
        tiers = self.config.tiers
        required = [c for c in p.claims if c.importance == "required"]
        return self._base(
            p,
            now,
            gt,
            status="flagged",
            flags=p.flags,
            scores=Scores(
                accuracy=AccuracyResult(score=0, tier=tier_for(0, tiers), similarity=0, method="empty"),
                completeness=CompletenessResult(
                    score=0,
                    tier=tier_for(0, tiers),
                    claims_missing=p.claims,
                    total_required=len(required),
                    total_found=0,
                ),
                attribution=AttributionResult(
                    score=0, tier=tier_for(0, tiers), components=AttributionComponents()
                ),
            ),
            feedback=Feedback(
                claims=ClaimFeedback(
                    missing=[MissingClaim(claim=c, importance=c.importance) for c in p.claims]
                )
            ),
        )

    def _score(
        self,
        p: _Prepared,
        gt: GroundTruth,
        vec,
        close: _Closeness,
        now: datetime,
        fallback: bool,
        known: Callable[[str], np.ndarray | None],
    ) -> AnalysisResult:
        cfg = self.config
        flags = list(p.flags) + (["embedding_fallback"] if fallback else [])

        declined, implicit = is_refusal(p.text), self._implicit_terms(p, gt)  # each read three times
        accuracy = self._accuracy(p, gt, vec, close, fallback)
        completeness, claim_fb = self._completeness(p, gt, vec, declined, implicit, fallback)
        findings: list[PageFinding] = []
        wrong = self._wrong_facts(p, gt, close, claim_fb.contradicted, findings, implicit)
        wrong = self._checked(p, wrong, findings, claim_fb, vec, fallback)
        _contradicted_by_pages(claim_fb, findings)
        # with the claim checker weighing the page findings, their confidence is its probability;
        # the calibration model was trained on the rules' figures alone
        checked = self.checker is not None and not fallback
        model = shipped_flag_confidence() if cfg.feedback.calibrated_confidence and not checked else None
        # a flag below the threshold is not reported, nor its sentence shown as matching; an
        # answer whose only flags fall below it may still answer otherwise
        context = self._flag_context(p, gt, known, fallback) if wrong else None
        standing = (
            model.kept(wrong, context, cfg.feedback.min_flag_confidence) if model and context else wrong
        )
        if (
            not standing
            and not claim_fb.found
            and p.record.expected_answer
            and p.record.query
            and not declined
        ):
            otherwise = self.judge.answers_otherwise(p.record.query, p.text, p.sentences, accuracy.score)
            if otherwise is not None:
                _answered_otherwise(claim_fb, wrong, otherwise, p.record.expected_answer, accuracy.score)
                context = context or self._flag_context(p, gt, known, fallback)
                if model is not None:  # the flags are weighed again, beside the new one
                    standing = model.kept(wrong, context, cfg.feedback.min_flag_confidence)
        if self.flag_rows_sink is not None and context is not None:
            self.flag_rows_sink.append((p.record, list(wrong), flag_rows(wrong, context)))
        doubted = wrong  # every flag: a sentence holding one is never shown as matching
        if model is not None and wrong:
            _doubted_claims(claim_fb, doubted, standing)
            wrong = standing
        accuracy = accuracy_of(
            accuracy,
            p.claims,
            {m.claim.id for m in completeness.claims_found} if completeness else set(),
            {c.claim.id for c in claim_fb.contradicted},
            wrong,
            cfg.tiers,
        )
        attribution = score_attribution(
            p.text,
            gt.domain,
            list(dict.fromkeys(p.record.brand_names + gt.brand_names)),
            cfg.attribution,
            cfg.tiers,
            p.record.citations,
        )
        highlights, unsupported = self._highlights(p, gt, close, doubted)
        stated = [c.position for c in completeness.claims_found] if completeness else []
        claim_fb.not_in_ground_truth = [
            u for u in unsupported if not any(u.position.overlaps(f) for f in stated)
        ]
        status = "ok"
        if declined:
            flags.append("refusal")
            status = "flagged"
        if (
            cfg.completeness.require_all_required
            and completeness
            and any(c.importance == "required" for c in completeness.claims_missing)
        ):
            flags.append("missing_required_claims")
            status = "flagged"
        return self._base(
            p,
            now,
            gt,
            status=status,
            flags=flags,
            fallback=fallback,
            scores=Scores(accuracy=accuracy, completeness=completeness, attribution=attribution),
            feedback=Feedback(claims=claim_fb, highlights=highlights, contradictions=wrong),
        )

    def _accuracy(
        self, p: _Prepared, gt: GroundTruth, vec, close: _Closeness, fallback: bool
    ) -> AccuracyResult:
        cfg, record = self.config.accuracy, p.record
        agg = np.max if cfg.aggregation == "max" else np.mean
        if p.chunks is p.sentences:
            chunk_gt, best_gt = close.sent_gt, close.best_gt
        else:
            G = gt.vectors if gt.vectors is not None and len(gt.chunks) else None
            chunk_gt = vec([c.text for c in p.chunks]) @ G.T if G is not None else None
            best_gt = chunk_gt.argmax(axis=1) if chunk_gt is not None else None
        matched = [
            ChunkMatch(
                response_segment=c.text,
                position=_pos(c),
                ground_truth_chunk_id=gt.chunks[best_gt[i]].id if best_gt is not None else None,
                similarity=round(float(chunk_gt[i, best_gt[i]]), 4) if best_gt is not None else 0.0,
            )
            for i, c in enumerate(p.chunks)
        ]
        components = None
        if record.expected_answer:
            cos = close.cos
            method = "keyword" if fallback else cfg.method
            if method == "calibrated":
                per_chunk, components = self._calibrated(p, close.residual)
                score = max(per_chunk) if cfg.aggregation == "max" else float(np.mean(per_chunk))
            else:
                score = float(agg(np.clip(cos, 0, 1)))
            similarity = max(cos.tolist()) if cfg.aggregation == "max" else float(np.mean(cos))
        else:  # no expected answer: how well the response is grounded in the site's pages
            method = "ground_truth" if not fallback else "keyword"
            best = chunk_gt.max(axis=1) if chunk_gt is not None else np.zeros(len(p.chunks))
            similarity = float(agg(best))
            score = float(agg(np.clip(best, 0, 1)))
        score = round(100 * min(max(score, 0.0), 1.0), 2)
        return AccuracyResult(
            score=score,
            tier=tier_for(score, self.config.tiers),
            similarity=round(min(max(similarity, 0.0), 1.0), 4),
            matched_chunks=matched,
            method=method,
            components=components,
        )

    def _calibrated(self, p: _Prepared, residual: np.ndarray):
        """Per-chunk agreement with the expected answer, beyond plain cosine.

        1. Residual cosine: the question's direction is projected out of both vectors, so two
           answers are not judged similar merely because both restate the question
           (``residual``, computed for the batch in :meth:`_closeness`).
        2. Lexical overlap (F1) of stemmed content terms, excluding the question's own terms.
        3. Polarity: a penalty when exactly one side is negated ("X does" vs "X does not").
        Measured on TruthfulQA in evals/accuracy_eval.py. Plain floats: an answer has a few chunks.
        """
        cfg, record = self.config.accuracy, p.record
        q_terms = content_terms(record.query) if record.query else set()
        e_terms = content_terms(record.expected_answer, q_terms)
        e_neg = has_negation(record.expected_answer)
        w, pen = cfg.lexical_weight, cfg.polarity_penalty
        residuals = residual.tolist()
        lexical = [overlap_f1(content_terms(c.text, q_terms), e_terms) for c in p.chunks]
        agree = [has_negation(c.text) == e_neg for c in p.chunks]
        per_chunk = [
            (min(max(r, 0.0), 1.0) + w * lex) / (1 + w) - (pen / (1 + w)) * (not ok)
            for r, lex, ok in zip(residuals, lexical, agree)
        ]
        best = max(range(len(per_chunk)), key=per_chunk.__getitem__)
        return [min(max(v, 0.0), 1.0) for v in per_chunk], AccuracyComponents(
            residual_similarity=round(residuals[best], 4),
            lexical_overlap=round(lexical[best], 4),
            polarity_agreement=agree[best],
        )

    def _completeness(
        self, p: _Prepared, gt: GroundTruth, vec, declined: bool, implicit: set[str], fallback: bool
    ) -> tuple[CompletenessResult | None, ClaimFeedback]:
        """``declined``: the answer is a refusal; ``implicit``: :meth:`_implicit_terms`;
        ``fallback``: keyword vectors (the claim-found model, which reads MiniLM's, is not asked). A claim
        with values the response does not state in the claim's words may be stated in the words
        of the page sentence that states it (``OfflineJudge.restated``)."""
        cfg = self.config
        if not p.claims:
            return None, ClaimFeedback()
        # A window's closeness to a claim is that of its closest sentence: clauses and sentence
        # pairs are judged on their words and values, and are not encoded (encoding is the cost)
        n = len(p.claims)
        KS = vec([c.text for c in p.claims] + [s.text for s in p.sentences])  # one gather
        spans = p.claim_spans
        by_sentence = KS[:n] @ KS[n:].T if p.sentences else np.zeros((n, 0))
        sims = np.zeros((len(p.claims), len(spans)), dtype=np.float32)
        inside = [
            [j for j, s in enumerate(p.sentences) if s.start < w.end and w.start < s.end] for w in spans
        ]
        width = max(map(len, inside), default=0)
        if width:  # one gather for all windows: each window's sentences, padded with its first
            cols = np.array([x + x[:1] * (width - len(x)) if x else [0] * width for x in inside], np.intp)
            sims = by_sentence[:, cols].max(axis=2)
            if not all(inside):
                sims[:, [k for k, x in enumerate(inside) if not x]] = 0
        found, missing, feedback_found, contradicted = [], [], [], []
        for i, claim in enumerate(p.claims):
            v = self.judge.judge_claim(claim.text, p.windows, sims[i], implicit)
            if declined and v.kind == "negation":
                v = Verdict("missing")  # "I can't confirm where they ship" affirms no shipping to Mexico
            if v.verdict == "missing" and self.config.feedback.check_pages:
                stating = self._stating_pages(gt, claim.text, KS[i], implicit)
                v = (self.judge.restated(claim.text, p.windows, stating, implicit) if stating else None) or v
            if v.verdict == "missing" and v.window is None and p.windows and not fallback:
                v = self._found_by_model(p, claim, sims[i], implicit, declined) or v
            if v.verdict == "missing" and p.windows and not fallback and not declined:
                v = self._contradicted_by_model(p, gt, claim, sims[i], implicit) or v
            if v.verdict == "found":
                s, sim = v.window.span, float(sims[i, p.windows.index(v.window)])
                found.append(
                    ClaimMatch(claim=claim, matched_text=s.text, similarity=round(sim, 4), position=_pos(s))
                )
                feedback_found.append(
                    FoundClaim(claim=claim, evidence=s.text, confidence=round(min(v.support, 1.0), 4))
                )
                continue
            missing.append(claim)
            if v.verdict == "contradicted":
                s = v.window.span
                contradicted.append(
                    ContradictedClaim(
                        claim=claim, statement=s.text, position=_pos(s), evidence=v.evidence, kind=v.kind
                    )
                )
        return (
            completeness_of(p.claims, found, missing, cfg),
            ClaimFeedback.of(feedback_found, missing, contradicted),
        )

    def _found_by_model(
        self, p: _Prepared, claim, cosines: np.ndarray, implicit: set[str], declined: bool
    ) -> Verdict | None:
        """A claim the checks call missing that the claim-found model finds stated (the closest
        window its evidence, the probability its support), or None. Its cosines are MiniLM's: with
        another encoder, or in the keyword fallback, the checks' verdict stands."""
        model = shipped_claim_found()
        if (model is None and self.claim_rows_sink is None) or self.embedder.name != BUNDLED:
            return None
        read = claim_features(
            self.judge, claim.text, claim.importance, p.text, p.windows, cosines, implicit, declined
        )
        probability = model.probability(read.features) if model is not None else None
        if self.claim_rows_sink is not None:
            self.claim_rows_sink.append((p.record, claim.id, read.features, read.barred))
        floor = self.config.feedback.min_claim_found
        floor = (model.threshold if model is not None else 1.0) if floor is None else floor
        if probability is None or probability < floor or read.window is None or read.barred or floor >= 1.0:
            return None
        return Verdict("found", read.window, probability, read.window.span.text)

    def _contradicted_by_model(
        self, p: _Prepared, gt: GroundTruth, claim, cosines: np.ndarray, implicit: set[str]
    ) -> Verdict | None:
        """A claim the checks call missing that the claim-conflict model finds stated otherwise by
        a window giving one of its values otherwise (the window its evidence, kind by the value's),
        or None. Its cosines are MiniLM's: with another encoder the checks' verdict stands."""
        model = shipped_claim_conflict()
        if (model is None and self.conflict_rows_sink is None) or self.embedder.name != BUNDLED:
            return None
        _, valued, site_names, *_ = self._page_sentences(gt)
        read = conflict_features(
            self.judge,
            claim.text,
            claim.importance,
            p.windows,
            cosines,
            implicit,
            [v for f in valued for v in f.values],
            site_names,
        )
        if read is None:
            return None
        probability = model.probability(read.features) if model is not None else None
        if self.conflict_rows_sink is not None:
            self.conflict_rows_sink.append((p.record, claim.id, read.features, read.window.span.text))
        floor = self.config.feedback.min_claim_conflict
        floor = (model.threshold if model is not None else 1.0) if floor is None else floor
        if probability is None or probability < floor or floor >= 1.0:
            return None
        return Verdict("contradicted", read.window, probability, read.detail, read.kind)

    def _flag_context(
        self, p: _Prepared, gt: GroundTruth, known: Callable[[str], np.ndarray | None], fallback: bool
    ) -> FlagContext:
        """What the flag-confidence model weighs an answer's flags against. Its cosines read the
        vectors this batch already holds, MiniLM's only (another encoder's are not what it was
        trained on): the answer's sentence that holds the flag, the claim (or the page chunk that
        holds the page sentence) and the question."""
        if gt.version not in self._flag_sites:  # parsed once per version of the pages
            site = site_sentences(gt)
            self._flag_sites[gt.version] = (site, {s.text: s.chunk for s in site})
        site, chunk_of = self._flag_sites[gt.version]
        if fallback or self.embedder.name != BUNDLED or gt.vectors is None:
            return FlagContext(p.text, p.record.query or "", site)

        def vectors(flag: Contradiction):
            held = next((s for s in p.sentences if s.start <= flag.position.start < s.end), None)
            evidence = known(flag.evidence)
            if evidence is None and flag.evidence in chunk_of:
                evidence = gt.vectors[chunk_of[flag.evidence]]
            return (
                known(held.text) if held is not None else None,
                evidence,
                known(p.record.query) if p.record.query else None,
            )

        return FlagContext(p.text, p.record.query or "", site, vectors)

    def _page_sentences(self, gt: GroundTruth) -> tuple[list, list, set[str], dict, list, list, list]:
        """The pages' sentences parsed for the fact checks, per chunk; those with values (what
        ``against_pages`` reads of the whole site); every word the site uses; the names it
        mentions only to deny them; the owners, operators and underwriters it names; the
        sentences that restrict something to names, say it holds for any or name days of the
        week (the scope and day checks read them all); what it says it does not do. Parsed once
        per version of the pages."""
        if gt.version not in self._page_facts:
            facts = [
                OfflineJudge.page_facts((x.text, c.page_url) for x in split_sentences(c.text))
                for c in gt.chunks
            ]
            every = [f for chunk_facts in facts for f in chunk_facts]
            valued = [f for f in every if f.values]
            self._page_facts[gt.version] = (
                facts,
                valued,
                OfflineJudge.site_names(every),
                denied_names(every),
                agencies(every),
                [f for f in every if scopes(f.text) or day_sets(f.text) or exclusions(f.text)],
                denied_actions(every),
            )
        return self._page_facts[gt.version]

    def _stating_pages(self, gt: GroundTruth, claim: str, claim_vector, implicit: set[str]) -> list:
        """``OfflineJudge.stating_pages`` of a claim among the sentences of the ``STATING_CHUNKS``
        chunks closest to it (every sentence of the pages when they have no vectors), once per
        claim and version of the pages (a query's claims recur in every answer to it)."""
        key = (gt.version, claim, frozenset(implicit))
        if key not in self._stating:
            facts = self._page_sentences(gt)[0]
            if gt.vectors is not None and len(gt.chunks):
                distinct, columns = self._distinct_chunks(gt)
                near = _top((distinct @ claim_vector)[columns][None, :], STATING_CHUNKS)[0].tolist()
                facts = [facts[j] for j in near]
            self._stating[key] = self.judge.stating_pages(
                claim, [f for chunk in facts for f in chunk], implicit
            )
        return self._stating[key]

    def _implicit_terms(self, p: _Prepared, gt: GroundTruth) -> set[str]:
        """Terms an answer may leave implicit: the question's and the brand's (the record's, and
        the name the site's own pages give it)."""
        return OfflineJudge.keys([p.record.query or "", *p.record.brand_names, *gt.brand_names])

    def _wrong_facts(
        self,
        p: _Prepared,
        gt: GroundTruth,
        close: _Closeness,
        contradicted: list[ContradictedClaim],
        findings: list[PageFinding],
        implicit: set[str],
    ) -> list[Contradiction]:
        """Wrong facts: the claims the response contradicts (source ``claim``, or
        ``expected_answer`` for claims cut from it), then statements that the pages most like
        each sentence state otherwise (``ground_truth``); one per stretch of the response. The page
        findings are also appended to ``findings`` (a missing claim they replace is contradicted)."""
        out = [
            Contradiction(
                statement=c.statement,
                position=c.position,
                kind=c.kind,
                evidence=c.claim.text,
                source="expected_answer" if is_derived(c.claim) else "claim",
                confidence=0.9 if c.kind != "entity" else 0.6,
                detail=c.evidence,
            )
            for c in contradicted
        ]
        if close.sent_gt is None or not self.config.feedback.check_pages:
            return out
        brand = frozenset(OfflineJudge.keys([*p.record.brand_names, *gt.brand_names]))
        implicit = implicit | brand
        facts, valued, known_names, denied, agents, scoped, actions = self._page_sentences(gt)
        asked = values(p.record.query or "")
        for i, s in enumerate(p.sentences):
            if not s.text.strip() or len(s.text) > 600:
                continue
            candidates = [f for j in close.top_gt[i].tolist() for f in facts[j]]
            # read only by the denied-name and denied-action checks
            heading = list_heading(p.text, s.start) if denied or actions else ""
            for f in self.judge.against_pages(
                s,
                candidates,
                valued,
                implicit,
                known_names,
                denied,
                heading,
                agents,
                scoped,
                brand,
                asked,
                actions,
            ):
                at = f.statement
                if any(c.position.start < at.end and at.start < c.position.end for c in out):
                    continue
                out.append(
                    Contradiction(
                        statement=at.text,
                        position=_pos(at),
                        kind=f.kind,
                        evidence=f.evidence,
                        source="ground_truth",
                        page_url=f.url,
                        confidence=f.confidence,
                        detail=f.detail,
                    )
                )
                findings.append(f)
        return sorted(out, key=lambda c: c.position.start)

    def _checked(
        self,
        p: _Prepared,
        wrong: list[Contradiction],
        findings: list[PageFinding],
        claims: ClaimFeedback,
        vec,
        fallback: bool,
    ) -> list[Contradiction]:
        """The wrong facts that stand: none in a sentence that states nothing about the site (a
        hedge that declines, a refusal, the market in general, a citation line); and, with the
        checker on, for a fact found against the pages, the trained checker's probability that
        the page sentence contradicts the answer's sentence is its confidence, and below
        ``feedback.checker_threshold`` it is not reported (judging the claims' contradictions
        too lost more true wrong facts on dev). ``findings`` and ``claims`` lose
        what is dropped (a claim it contradicted is missing again)."""

        def sentence_of(c: Contradiction):
            return next((s for s in p.sentences if s.start <= c.position.start < s.end), None)

        kept, dropped = [], []
        brands = p.record.brand_names
        for c in wrong:
            s = sentence_of(c)
            (dropped if s is not None and not_a_statement(s.text, brands) else kept).append(c)
        checker = None if fallback else self.checker
        checked = [c for c in kept if c.source == "ground_truth" and sentence_of(c) is not None]
        if checker is not None and checked:
            new = list(dict.fromkeys(c.evidence for c in checked if c.evidence not in self._evidence))
            if new:
                for t, v in zip(new, encode_with_retry(self.embedder, new, **self._retry)):
                    self._evidence[t] = v
            hypotheses = [sentence_of(c).text for c in checked]
            probability = checker.contradicts(
                np.stack([self._evidence[c.evidence] for c in checked]),
                vec(hypotheses),
                [c.evidence for c in checked],
                hypotheses,
            )
            threshold = self.config.feedback.checker_threshold
            for c, prob in zip(checked, probability.tolist()):
                if prob < threshold:
                    kept.remove(c)
                    dropped.append(c)
                else:
                    kept[kept.index(c)] = c.model_copy(update={"confidence": round(prob, 4)})
        if dropped:
            gone = {(c.position.start, c.position.end) for c in dropped}
            findings[:] = [f for f in findings if (f.statement.start, f.statement.end) not in gone]
            for c in list(claims.contradicted):
                if (c.position.start, c.position.end) in gone:
                    claims.contradicted.remove(c)
                    claims.missing.append(MissingClaim(claim=c.claim, importance=c.claim.importance))
        return kept

    def _highlights(
        self, p: _Prepared, gt: GroundTruth, close: _Closeness, wrong: list[Contradiction]
    ) -> tuple[HighlightFeedback, list[UnsupportedStatement]]:
        """Sentences that match the pages; a sentence holding a wrong fact never does, and is
        not "not in the ground truth" either: it is reported in ``contradictions``."""
        fb = self.config.feedback
        highlights, unmatched, unsupported = [], [], []
        covered = total = 0
        for i, s in enumerate(p.sentences):
            total += len(s.text)
            j = int(close.best_gt[i]) if close.sent_gt is not None else -1
            sim = float(close.sent_gt[i, j]) if j >= 0 else 0.0
            is_wrong = any(w.position.start < s.end and s.start < w.position.end for w in wrong)
            if is_wrong:
                unmatched.append(UnmatchedSegment(text=s.text, position=_pos(s)))
                continue
            if j >= 0 and sim >= fb.highlight_threshold:
                c = gt.chunks[j]
                covered += len(s.text)
                highlights.append(
                    TextHighlight(
                        response_range=_pos(s),
                        response_text=s.text,
                        similarity=round(sim, 4),
                        ground_truth_source=GroundTruthSource(
                            chunk_id=c.id, page_url=c.page_url, matched_text=c.text
                        ),
                    )
                )
            else:
                unmatched.append(UnmatchedSegment(text=s.text, position=_pos(s)))
                if sim < fb.support_threshold and len(words(s.text)) >= fb.min_statement_words:
                    unsupported.append(
                        UnsupportedStatement(statement=s.text, position=_pos(s), similarity=round(sim, 4))
                    )
        coverage = round(100 * covered / total, 2) if total else 0.0
        return HighlightFeedback(
            highlights=highlights, coverage_percent=coverage, unmatched_segments=unmatched
        ), unsupported
