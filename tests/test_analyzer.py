import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modules.embeddings import KeywordEmbedder, VectorCache
from modules.response import AIResponse, AnalyzerConfig, ResponseAnalyzer, StoredPage

PAGES = [
    StoredPage(
        url="https://acme.example/pricing",
        title="Pricing | Acme Cloud",
        text="Acme Cloud costs $10 per month for the starter plan. The pro plan costs $30 per month and includes single sign-on.",
    ),
    StoredPage(
        url="https://docs.acme.example/sso",
        title="SSO | Acme Cloud",
        text="Single sign-on is available on the pro plan. Administrators configure SAML in the admin console.",
    ),
]


def record(response, **kw):
    base = dict(
        query_id="q1",
        domain="acme.example",
        query="How much does Acme Cloud cost?",
        expected_answer="The starter plan costs $10 per month and the pro plan costs $30 per month.",
    )
    return AIResponse(response=response, **{**base, **kw})


def test_right_answer_beats_wrong_answer(analyzer):
    right = analyzer.analyze(record("The starter plan is $10 a month and pro is $30 a month."), PAGES)
    wrong = analyzer.analyze(record("Acme Cloud is free for everyone and has no paid plans."), PAGES)
    assert right.scores.accuracy.score > wrong.scores.accuracy.score
    assert right.scores.accuracy.method == "calibrated" and right.status == "ok"
    assert 0 <= right.scores.accuracy.similarity <= 1


def test_cosine_method_is_the_seeds_similarity(analyzer):
    cosine = ResponseAnalyzer(
        AnalyzerConfig.load(None, {"accuracy.method": "cosine", "accuracy.chunking_strategy": "none"})
    )
    r = cosine.analyze(record("The starter plan is $10 a month."), PAGES)
    # the seed's cosine is the closeness of wording; the verdicts on the claims cut from the
    # expected answer place the answer (scoring.accuracy_of)
    components = r.scores.accuracy.components
    assert components.similarity_score == pytest.approx(100 * r.scores.accuracy.similarity, abs=0.01)
    assert components.basis == "claims"


def test_chunking_and_aggregation(analyzer):
    text = "The starter plan costs $10 per month.\n\nBananas are yellow."
    results = {}
    for strategy in ("none", "sentences", "paragraphs"):
        for agg in ("max", "mean"):
            a = ResponseAnalyzer(
                AnalyzerConfig.load(
                    None, {"accuracy.chunking_strategy": strategy, "accuracy.aggregation": agg}
                )
            )
            results[strategy, agg] = a.analyze(record(text), PAGES).scores.accuracy
    assert len(results["none", "max"].matched_chunks) == 1
    assert len(results["sentences", "max"].matched_chunks) == 2
    assert len(results["paragraphs", "max"].matched_chunks) == 2
    assert results["sentences", "mean"].score < results["sentences", "max"].score
    for acc in results.values():
        for m in acc.matched_chunks:
            assert text[m.position.start : m.position.end] == m.response_segment
            assert m.ground_truth_chunk_id is not None


def test_without_expected_answer_accuracy_measures_grounding(analyzer):
    r = analyzer.analyze(record("Single sign-on is on the pro plan.", expected_answer=None), PAGES)
    assert r.scores.accuracy.method == "ground_truth" and r.scores.accuracy.score > 50
    assert r.scores.completeness is None


def test_claims_found_missing_with_positions(analyzer):
    text = "Acme's starter plan costs $10 per month. Bananas grow on trees in warm places."
    r = analyzer.analyze(
        record(
            text,
            claims=[
                {"id": "a", "text": "The starter plan costs $10 per month"},
                {"id": "b", "text": "The pro plan includes single sign-on", "importance": "required"},
                {"id": "c", "text": "SAML is configured in the admin console", "importance": "optional"},
            ],
        ),
        PAGES,
    )
    comp = r.scores.completeness
    assert [m.claim.id for m in comp.claims_found] == ["a"]
    assert {c.id for c in comp.claims_missing} == {"b", "c"}
    assert comp.total_required == 2 and comp.total_found == 1 and comp.score == 50
    m = comp.claims_found[0]
    assert text[m.position.start : m.position.end] == m.matched_text
    assert {x.importance for x in r.feedback.claims.missing} == {"required", "optional"}
    unsupported = r.feedback.claims.not_in_ground_truth
    assert [u.statement for u in unsupported] == ["Bananas grow on trees in warm places."]
    assert text[unsupported[0].position.start : unsupported[0].position.end] == unsupported[0].statement


def test_claim_with_wrong_number_is_not_found(analyzer):
    r = analyzer.analyze(
        record("The starter plan costs $12 per month.", claims=["The starter plan costs $10 per month"]),
        PAGES,
    )
    assert r.scores.completeness.total_found == 0


def test_claim_verdicts_are_found_missing_or_contradicted(analyzer):
    claims = [
        "The starter plan costs $10 per month",
        "The pro plan includes single sign-on",
        "Administrators configure SAML in the admin console",
    ]
    response = "The starter plan costs $12 per month. The pro plan does not include single sign-on."
    r = analyzer.analyze(record(response, claims=claims), PAGES)
    fb = r.feedback.claims
    by_id = {c.claim.text: c for c in fb.contradicted}
    assert set(by_id) == set(claims[:2]) and [m.claim.text for m in fb.missing] == claims[2:] and not fb.found
    assert by_id[claims[0]].evidence == "$10 per month (claim) vs $12 per month (response)"
    assert "negated in the response" in by_id[claims[1]].evidence
    for c in fb.contradicted:  # the statement is where the response says it
        assert response[c.position.start : c.position.end] == c.statement
    assert (
        r.scores.completeness.total_found == 0 and len(r.scores.completeness.claims_missing) == 3
    )  # seed: not found
    assert '"contradicted"' in r.model_dump_json(by_alias=True)
    accuracy = r.scores.accuracy  # a wrong fact holds accuracy below good, and says why
    assert accuracy.tier not in ("good", "excellent") and accuracy.components.wrong_facts == 2
    assert "$10 per month (claim) vs $12 per month (response)" in accuracy.components.capped_by

    reworded = analyzer.analyze(
        record(
            "Starter is 10 dollars a month, and SSO comes with pro: the pro plan includes single sign-on.",
            claims=claims[:2],
        ),
        PAGES,
    )
    assert not reworded.feedback.claims.contradicted and reworded.scores.accuracy.components.wrong_facts == 0
    unrelated_negation = analyzer.analyze(
        record("The pro plan includes single sign-on, so nobody needs another password.", claims=claims[1:2]),
        PAGES,
    )
    assert not unrelated_negation.feedback.claims.contradicted  # "nobody" negates another clause


def test_require_all_required(analyzer):
    strict = ResponseAnalyzer(AnalyzerConfig.load(None, {"completeness.require_all_required": True}))
    r = strict.analyze(
        record(
            "The starter plan costs $10 per month.",
            claims=["The starter plan costs $10 per month", "The pro plan includes single sign-on"],
        ),
        PAGES,
    )
    assert r.scores.completeness.score == 0 and r.status == "flagged" and "missing_required_claims" in r.flags


def test_highlights_map_to_ground_truth_chunks(analyzer):
    text = "The pro plan costs $30 per month and includes single sign-on. My cat likes fish."
    h = analyzer.analyze(record(text), PAGES).feedback.highlights
    assert len(h.highlights) == 1
    hl = h.highlights[0]
    assert hl.ground_truth_source.page_url == "https://acme.example/pricing"
    assert hl.ground_truth_source.matched_text in PAGES[0].text
    assert text[hl.response_range.start : hl.response_range.end] == hl.response_text
    assert [u.text for u in h.unmatched_segments] == ["My cat likes fish."]
    assert h.coverage_percent == pytest.approx(100 * len(hl.response_text) / (len(text) - 1), abs=0.01)


def test_brand_from_page_titles_and_subdomain_pages(analyzer):
    r = analyzer.analyze(record("Acme Cloud offers SSO on its pro plan."), PAGES)
    assert r.scores.attribution.has_brand_mention and "Acme Cloud" in r.brand_names
    assert r.scores.attribution.score == 65  # 50 for the brand, 15 for naming it in the first sentence
    assert r.scores.attribution.components.first_mention_in == "first_sentence"


def test_empty_response_scores_zero_and_is_flagged(analyzer):
    r = analyzer.analyze(record("   ", claims=["x"]), PAGES)
    assert r.status == "flagged" and "empty_response" in r.flags
    assert (r.scores.accuracy.score, r.scores.completeness.score, r.scores.attribution.score) == (0, 0, 0)


def test_missing_ground_truth_is_an_error_result(analyzer):
    r = analyzer.analyze_batch([record("hello", domain="other.example")], {})[0]
    assert r.status == "error" and "other.example" in r.error and r.scores.accuracy is None


class FlakyEmbedder:
    """Fails ``failures`` times, then delegates: exercises retry and fallback."""

    name = "flaky"

    def __init__(self, failures):
        self.failures, self.calls = failures, 0

    def encode(self, texts):
        self.calls += 1
        if self.calls <= self.failures:
            raise ConnectionError("embedding API down")
        return KeywordEmbedder().encode(texts)


def test_embedding_failure_retries_then_falls_back_to_keywords(tmp_path):
    config = AnalyzerConfig.load(None, {"providers.embedding_retries": 2, "providers.embedding_backoff_s": 0})
    recovers = ResponseAnalyzer(config, embedder=FlakyEmbedder(2), cache=VectorCache(tmp_path / "a"))
    ok = recovers.analyze(record("The starter plan costs $10 per month."), PAGES)
    assert not ok.fallback and ok.embedding_model == "flaky"

    broken = FlakyEmbedder(10**6)
    down = ResponseAnalyzer(config, embedder=broken, cache=VectorCache(tmp_path / "b"))
    r = down.analyze(record("The starter plan costs $10 per month."), PAGES)
    assert r.fallback and "embedding_fallback" in r.flags and r.scores.accuracy.method == "keyword"
    assert r.embedding_model == "keyword:hashed-terms" and r.scores.accuracy.score > 0
    assert broken.calls == 6  # ground truth and responses: 1 try + 2 retries each


def test_overlong_response_is_truncated_and_chunked_and_noted():
    a = ResponseAnalyzer(
        AnalyzerConfig.load(None, {"batch.max_response_chars": 3000, "accuracy.chunking_strategy": "none"})
    )
    r = a.analyze(record("The starter plan costs $10 per month. " * 200), PAGES)
    assert {"response_truncated", "response_chunked"} <= set(r.flags)
    assert len(r.scores.accuracy.matched_chunks) >= 3


def test_ground_truth_cache_reused(tmp_path, analyzer):
    cache = VectorCache(tmp_path)
    a = ResponseAnalyzer(embedder=analyzer.embedder, cache=cache)
    first = a.prepare_ground_truth(PAGES, ["acme.example"])["acme.example"]
    files = list(tmp_path.glob("*.npy"))
    assert len(files) == 1
    second = a.prepare_ground_truth(PAGES, ["acme.example"])["acme.example"]
    assert np.array_equal(first.vectors, second.vectors) and first.version == second.version


def test_reanalyze_uses_new_ground_truth(analyzer):
    first = analyzer.analyze(record("Enterprise plans include audit logs."), PAGES)
    new_pages = PAGES + [
        StoredPage(url="https://acme.example/enterprise", text="Enterprise plans include audit logs and SSO.")
    ]
    again = analyzer.reanalyze(first, new_pages)
    assert again.ground_truth_version != first.ground_truth_version
    assert again.feedback.highlights.coverage_percent > first.feedback.highlights.coverage_percent
    assert again.query_id == first.query_id and again.expected_answer == first.expected_answer


_keyword = ResponseAnalyzer(embedder=KeywordEmbedder())
_words = st.sampled_from(
    [
        "plan",
        "costs",
        "$10",
        "not",
        "month",
        "Acme",
        "acme.example",
        "https://acme.example/x",
        ".",
        "\n\n",
        "SSO",
        "and",
    ]
)


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    st.lists(_words, max_size=40).map(" ".join),
    st.lists(st.lists(_words, min_size=1, max_size=8).map(" ".join), max_size=3),
    st.sampled_from(["none", "sentences", "paragraphs"]),
)
def test_scores_in_range_and_positions_inside_text(response, claims, strategy):
    _keyword.config = AnalyzerConfig.load(None, {"accuracy.chunking_strategy": strategy})
    r = _keyword.analyze(record(response, claims=claims), PAGES)
    for s in (r.scores.accuracy, r.scores.completeness, r.scores.attribution):
        if s is not None:
            assert 0 <= s.score <= 100
    text = response
    spans = [(m.position, m.response_segment) for m in r.scores.accuracy.matched_chunks]
    if r.scores.completeness:
        spans += [(m.position, m.matched_text) for m in r.scores.completeness.claims_found]
    spans += [(h.response_range, h.response_text) for h in r.feedback.highlights.highlights]
    spans += [(u.position, u.text) for u in r.feedback.highlights.unmatched_segments]
    for pos, t in spans:
        assert 0 <= pos.start <= pos.end <= len(text) and text[pos.start : pos.end] == t
    assert 0 <= r.feedback.highlights.coverage_percent <= 100


def test_the_first_of_pages_with_the_same_text_is_the_match(analyzer):
    # the same sentence on two pages: vectors encoded apart may differ in the last bits; the
    # first page is the closest, whatever the product's rounding
    same = "Acme Cloud costs $10 per month for the starter plan."
    pages = [
        StoredPage(url="https://acme.example/a", title="A", text=same),
        StoredPage(url="https://acme.example/b", title="B", text=same),
    ]
    gt = analyzer.prepare_ground_truth(pages, ["acme.example"])["acme.example"]
    gt.vectors = gt.vectors.copy()
    gt.vectors[1] *= np.float32(1.00001)  # as if encoded in another batch: a hair closer
    result = analyzer.analyze(record("Acme Cloud costs $10 per month for the starter plan."), gt)
    (highlight,) = result.feedback.highlights.highlights
    assert highlight.ground_truth_source.page_url == "https://acme.example/a"


@pytest.mark.parametrize("enabled", [True, False])
def test_the_garbage_collector_is_left_as_it_was(analyzer, enabled):
    import gc

    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        analyzer.analyze(record("The starter plan is $10 a month."), PAGES)
        assert gc.isenabled() == enabled
    finally:
        gc.enable() if was else gc.disable()


def test_numpy_blas_runs_one_thread_while_answers_are_scored_and_as_it_was_after(analyzer, monkeypatch):
    """BLAS threads woken by a product spin for the next one: a scoring batch keeps to one."""
    from threadpoolctl import threadpool_info, threadpool_limits

    from modules.response import analyzer as module

    def blas_threads():
        return {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}

    seen = []
    scored = module.ResponseAnalyzer._score
    monkeypatch.setattr(
        module.ResponseAnalyzer, "_score", lambda *a: (seen.append(blas_threads()), scored(*a))[1]
    )
    with threadpool_limits(limits=2, user_api="blas"):
        analyzer.analyze(record("The starter plan is $10 a month."), PAGES)
        assert seen == [{1}]
        assert blas_threads() == {2}


class CountingKeywords(KeywordEmbedder):
    """Keyword vectors, recording every call's texts."""

    name = "counting-keywords"

    def __init__(self):
        self.calls: list[list[str]] = []

    def encode(self, texts):
        self.calls.append(list(texts))
        return super().encode(texts)


def test_texts_encoded_ahead_are_not_encoded_again_and_score_the_same(tmp_path):
    """A wave's distinct texts in one call, its batches none; the results those of batches that
    encode for themselves."""
    from modules.response.batch import waves

    answers = [
        record("The starter plan costs $10 per month."),
        record("The pro plan costs $30 per month.", query_id="q2"),
        record("The starter plan costs $10 per month.", query_id="q3"),  # a text of the first batch
        record("Acme Cloud costs $12 per month.", query_id="q4", domain="other.example"),  # no pages
    ]
    (wave,) = waves(answers, 2, 2)
    assert [len(b) for b in wave] == [2, 2]
    plain = ResponseAnalyzer(embedder=CountingKeywords(), cache=VectorCache(tmp_path / "a"))
    ahead = ResponseAnalyzer(embedder=CountingKeywords(), cache=VectorCache(tmp_path / "b"))
    gts_plain = plain.prepare_ground_truth(PAGES, ["acme.example"])
    gts = ahead.prepare_ground_truth(PAGES, ["acme.example"])
    expected = [r for b in wave for r in plain.analyze_batch(b, gts_plain)]
    ahead.embedder.calls.clear()
    encoded = ahead.encode_ahead(answers, gts)
    (texts,) = ahead.embedder.calls
    assert len(texts) == len(set(texts)) and "Acme Cloud costs $12 per month." not in texts
    got = [r for b in wave for r in ahead.analyze_batch(b, gts, encoded)]
    assert len(ahead.embedder.calls) == 1  # the batches encoded nothing
    strip = lambda r: r.model_dump(exclude={"analyzed_at", "processing_time_ms"})  # noqa: E731
    assert [strip(r) for r in got] == [strip(r) for r in expected]
    # a batch with a text the wave did not encode encodes for itself
    other = ahead.analyze_batch([record("Single sign-on is on the pro plan.", query_id="q5")], gts, encoded)
    assert len(ahead.embedder.calls) == 2 and other[0].status != "error"


def test_batches_reuse_the_records_cut_up_for_their_encoding(tmp_path, monkeypatch):
    """A record is cut up (sentences, windows, claims) once, for the wave's encoding; its batch
    takes it from there, each run with its own flags: a retried batch does not repeat them."""
    answers = [
        record("The starter plan costs $10 per month."),
        record("", query_id="q2", error="rate limited"),  # flagged in its batch: no_answer
    ]
    plain = ResponseAnalyzer(embedder=CountingKeywords(), cache=VectorCache(tmp_path / "a"))
    ahead = ResponseAnalyzer(embedder=CountingKeywords(), cache=VectorCache(tmp_path / "b"))
    gts = ahead.prepare_ground_truth(PAGES, ["acme.example"])
    expected = plain.analyze_batch(answers, plain.prepare_ground_truth(PAGES, ["acme.example"]))
    encoded = ahead.encode_ahead(answers, gts)
    cut = []
    monkeypatch.setattr(ahead, "_prepare", lambda r: cut.append(r) or ResponseAnalyzer._prepare(ahead, r))
    strip = lambda r: r.model_dump(exclude={"analyzed_at", "processing_time_ms"})  # noqa: E731
    for _ in range(2):  # the second run: a retry of the same batch
        got = ahead.analyze_batch(answers, gts, encoded)
        assert cut == [] and [strip(r) for r in got] == [strip(r) for r in expected]
    assert got[1].flags.count("no_answer") == 1
    # another analyzer (another configuration) cuts them up itself
    other = ResponseAnalyzer(embedder=ahead.embedder, cache=VectorCache(tmp_path / "b"))
    monkeypatch.setattr(other, "_prepare", lambda r: cut.append(r) or ResponseAnalyzer._prepare(other, r))
    other.analyze_batch(answers, gts, encoded)
    assert cut == answers
    # pickled (a Dask worker): the cut records stay behind, the vectors travel
    import pickle

    moved = pickle.loads(pickle.dumps(encoded))
    assert moved.cut == {} and moved.prepared_by is None and moved.rows == encoded.rows


@given(n=st.integers(0, 40), size=st.integers(1, 12), concurrency=st.integers(1, 6))
def test_waves_cover_the_records_in_order(n, size, concurrency):
    from modules.response.batch import waves

    got = waves(list(range(n)), size, concurrency)
    assert [r for w in got for b in w for r in b] == list(range(n))
    assert all(1 <= len(w) <= concurrency for w in got) and all(0 < len(b) <= size for w in got for b in w)
    assert all(len(w) == concurrency for w in got[:-1])
