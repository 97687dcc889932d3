"""Collecting answers from AI providers and the weekly monitor, through a fake OpenAI-compatible
assistant on 127.0.0.1: normal answers, 429 with Retry-After, timeouts, refusals, empty answers,
a provider that fails entirely, and trends across two monitor runs."""

import re

import duckdb
import polars as pl
import pytest

from flows.cli import main
from flows.monitor import NoProviderAnswered, collect, monitor
from modules.providers import ask_provider, parse_provider
from modules.providers.collect import classify
from modules.providers.spec import unique_specs
from modules.queries import load_query_set
from modules.response.records import load_records
from modules.store import ParquetStore
from modules.testing import FakeAssistant
from tests.conftest import SAMPLES, monitor_samples

QUERY_SET = str(SAMPLES / "queries.jsonl")
PAGES = str(SAMPLES / "pages.jsonl")


@pytest.fixture(scope="module")
def queries():
    return load_query_set(QUERY_SET).queries


@pytest.fixture()
def assistant(queries):
    fake = FakeAssistant({q.query: q.expected_answer for q in queries})
    yield fake
    fake.close()


def spec(fake, model, **kw):
    return parse_provider(
        f"openai/{model},base_url={fake.base_url}", **{"timeout_s": 5, "backoff_s": 0.05, **kw}
    )


def test_answers_are_recorded_with_tokens_and_cost(assistant, queries):
    run = ask_provider(spec(assistant, "gpt-4o-mini"), queries)
    assert [a.status for a in run.answers] == ["answered"] * 5
    assert [a.query.query_id for a in run.answers] == [q.query_id for q in queries]  # query order kept
    assert all(a.response == q.expected_answer for a, q in zip(run.answers, queries))
    stats = run.stats()
    assert stats["prompt_tokens"] == 60 and stats["completion_tokens"] == sum(
        len(q.expected_answer.split()) for q in queries
    )
    assert stats["cost_usd"] > 0  # a model LiteLLM has a price for
    assert (
        ask_provider(spec(assistant, "good"), queries[:1]).stats()["cost_usd"] is None
    )  # no price: unknown, not 0


def test_rate_limit_waits_for_retry_after(queries):
    fake = FakeAssistant({}, limit_first=1, retry_after=1)
    try:
        run = ask_provider(spec(fake, "ratelimited", concurrency=1), queries[:2])
        first = run.answers[0]
        assert first.status == "answered" and first.attempts == 2 and first.rate_limited == 1
        times = fake.times("ratelimited")
        assert len(times) == 3 and times[1] - times[0] >= 0.95  # the provider's Retry-After was honoured
        assert run.stats()["rate_limited"] == 1
        slow_down = ask_provider(spec(fake, "ratelimited", concurrency=1, max_wait_s=0.5), queries[:1])
        assert slow_down.answers[0].status == "answered"  # the limiter only answers 429 to the first request
    finally:
        fake.close()


def test_a_retry_after_longer_than_max_wait_gives_up(queries):
    fake = FakeAssistant({}, limit_first=5, retry_after=30)
    try:
        a = ask_provider(spec(fake, "ratelimited", concurrency=1, max_wait_s=2), queries[:1]).answers[0]
        assert a.status == "error" and a.error_type == "rate_limited" and "more than max_wait" in a.error
        assert a.attempts == 1
    finally:
        fake.close()


def test_timeouts_are_retried_then_recorded(queries):
    fake = FakeAssistant({}, delay_s=2)
    try:
        run = ask_provider(spec(fake, "slow", timeout_s=0.5, retries=1, concurrency=2), queries[:2])
        assert {a.error_type for a in run.answers} == {"timeout"} and {a.attempts for a in run.answers} == {2}
        assert run.status == "failed"
    finally:
        fake.close()


def test_refusals_and_empty_answers_are_told_apart(assistant, queries):
    assert {a.status for a in ask_provider(spec(assistant, "refuse"), queries).answers} == {"refusal"}
    empty = ask_provider(spec(assistant, "empty"), queries)
    assert {a.status for a in empty.answers} == {"empty"} and empty.status == "ok"


def test_server_errors_are_retried_and_a_bad_key_stops_the_provider(assistant, queries):
    broken = ask_provider(spec(assistant, "broken", retries=2), queries[:2])
    assert {a.error_type for a in broken.answers} == {"server_error"} and {
        a.attempts for a in broken.answers
    } == {3}
    denied = ask_provider(spec(assistant, "denied", concurrency=1, abort_after=2), queries)
    assert [a.error_type for a in denied.answers] == ["auth", "auth", "skipped", "skipped", "skipped"]
    assert len(assistant.times("denied")) == 2  # the rest were never sent
    assert denied.status == "failed" and "Incorrect API key" in denied.stats()["error"]


def test_a_missing_key_is_permanent_and_never_retried(queries, monkeypatch):
    """LiteLLM reports a missing OpenAI key as a 500 ("Missing credentials") before sending anything."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    run = ask_provider(parse_provider("openai/gpt-4o-mini", retries=3, backoff_s=5, concurrency=1), queries)
    assert [a.error_type for a in run.answers] == ["auth", "auth", "auth", "skipped", "skipped"]
    assert [a.attempts for a in run.answers[:3]] == [1, 1, 1]  # no backoff spent on it
    assert run.status == "failed" and "OPENAI_API_KEY" in run.stats()["error"]


def test_provider_errors_are_classified():
    import httpx
    import litellm

    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")

    def status(code, message, **headers):
        return litellm.exceptions.APIError(code, message, "openai", "m", request=request)

    cases = [
        (litellm.AuthenticationError("Incorrect API key provided", "openai", "m"), "permanent", "auth"),
        (
            litellm.InternalServerError("Missing credentials. Please pass an `api_key`", "openai", "m"),
            "permanent",
            "auth",
        ),
        (
            ValueError("The api_key client option must be set either by passing api_key to the client"),
            "permanent",
            "auth",
        ),
        (litellm.NotFoundError("model not found", "openai", "m"), "permanent", "not_found"),
        (litellm.BadRequestError("context length exceeded", "openai", "m"), "permanent", "bad_request"),
        (litellm.RateLimitError("slow down", "openai", "m"), "transient", "rate_limited"),
        (litellm.Timeout("timed out", "m", "openai"), "transient", "timeout"),
        (litellm.ServiceUnavailableError("overloaded", "openai", "m"), "transient", "server_error"),
        (status(502, "bad gateway"), "transient", "server_error"),
        (ConnectionResetError("reset by peer"), "transient", "connection"),
    ]
    for exc, kind, label in cases:
        got = classify(exc)
        assert (type(got).__name__.strip("_").lower(), got.kind) == (kind, label), exc


def test_a_provider_that_drips_its_answer_is_cut_at_the_deadline(queries):
    fake = FakeAssistant({}, drip_s=0.5)  # ~150 bytes: more than a minute for one answer, each read quick
    try:
        run = ask_provider(spec(fake, "drip", timeout_s=1, retries=1), queries[:2])
    finally:
        fake.close()
    assert [a.error_type for a in run.answers] == ["timeout", "timeout"] and {
        a.attempts for a in run.answers
    } == {2}
    assert "deadline on the whole call" in run.answers[0].error  # the wall-clock deadline, not a read timeout


def test_a_closed_port_is_a_connection_failure(queries):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    run = ask_provider(
        parse_provider(
            f"openai/x,base_url=http://127.0.0.1:{port}/v1", retries=1, backoff_s=0.01, timeout_s=5
        ),
        queries[:1],
    )
    assert run.answers[0].error_type == "connection" and run.answers[0].attempts == 2  # transient: retried


def test_provider_specs_are_checked():
    s = parse_provider("openai/gpt-4o-mini,rpm=30,timeout=10,label=prod", retries=5)
    assert (s.rpm, s.timeout_s, s.retries, s.provider, s.model_name) == (30.0, 10.0, 5, "prod", "gpt-4o-mini")
    assert parse_provider("ollama_chat/llama3.1").provider == "ollama_chat"
    with pytest.raises(ValueError, match="expected key=value"):
        parse_provider("openai/x,colour=blue")
    with pytest.raises(ValueError, match="rpm must be a number"):
        parse_provider("openai/x,rpm=fast")
    with pytest.raises(ValueError, match="LiteLLM model string"):
        parse_provider("gpt-4o")
    with pytest.raises(ValueError, match="given twice"):
        unique_specs([parse_provider("openai/x"), parse_provider("openai/x")])
    with pytest.raises(ValueError, match="SLEUTH_TEST_NO_SUCH_KEY is not set"):
        parse_provider("openai/x,api_key_env=SLEUTH_TEST_NO_SUCH_KEY").api_key()


@pytest.fixture(scope="module")
def monitored(prefect_harness, tmp_path_factory, queries):
    """Two monitor runs a week apart, with a collect run between them; the second week the
    ``good-a`` provider gets worse and ``good-b`` better."""
    fake = FakeAssistant({q.query: q.expected_answer for q in queries})
    data_dir = str(tmp_path_factory.mktemp("monitor"))
    providers = [
        f"openai/{m},base_url={fake.base_url},label=fake" for m in ("good-a", "good-b", "refuse", "denied")
    ]
    good = dict(fake.answers)
    # week 1: good-a names a competitor (Evernote) where it does not know
    fake.answers = {
        **good,
        **{q.query: "I am not sure, maybe ask support or try Evernote." for q in queries[1:]},
    }
    week1 = monitor_samples(providers[:1] + providers[2:], "w1", data_dir)
    between = collect(QUERY_SET, providers[:1], run_id="c1", data_dir=data_dir)
    fake.answers = good
    week2 = monitor_samples(providers, "w2", data_dir)
    yield data_dir, week1, between, week2
    fake.close()


def test_monitor_writes_every_table_under_the_run(monitored):
    data_dir, week1, _, week2 = monitored
    store = ParquetStore(data_dir)
    for table in ("responses", "collections", "analyses", "summaries", "provider_summaries", "runs"):
        assert not store.read(table, "w2").is_empty(), table
    responses = store.read("responses", "w2")
    assert responses.height == 4 * 5 and set(responses["status"]) == {"answered", "refusal", "error"}
    runs = store.read("runs", "w2").row(0, named=True)
    assert (
        runs["flow"] == "monitor"
        and runs["query_set_id"] == "nimbus-2026-11"
        and runs["query_set_version"].startswith("sha256:")
    )
    con = duckdb.connect()
    ranks = con.execute(
        f"select model, accuracy_rank, failed from read_parquet('{data_dir}/provider_summaries/**/*.parquet',"
        " hive_partitioning=true) where run_id = 'w2' order by model"
    ).fetchall()
    assert ranks[0] == ("denied", None, True) and ranks[-1][0] == "refuse" and ranks[-1][1] == 3


def test_a_failed_provider_is_reported_not_missing(monitored):
    data_dir, _, _, week2 = monitored
    store = ParquetStore(data_dir)
    denied = store.read("collections", "w2").filter(pl.col("model") == "denied").row(0, named=True)
    assert denied["status"] == "failed" and "Incorrect API key" in denied["error"] and denied["answered"] == 0
    analyses = store.read("analyses", "w2").filter(pl.col("model") == "denied")
    assert analyses.height == 5 and set(analyses["status"]) == {"error"}
    assert all("no_answer" in f for f in analyses["flags"]) and analyses["accuracy_score"].null_count() == 5
    refusals = store.read("analyses", "w2").filter(pl.col("model") == "refuse")
    assert all("refusal" in f for f in refusals["flags"]) and set(refusals["status"]) == {"flagged"}
    summary = next(r for r in week2.provider_summaries if r["model"] == "denied")
    assert summary["failed"] and summary["error_count"] == 5


def test_trends_compare_with_the_previous_monitor_run(monitored):
    _, week1, _, week2 = monitored
    by_model = {r["model"]: r for r in week2.provider_summaries}
    a = by_model["good-a"]
    assert a["previous_run_id"] == "w1"  # not the collect run in between
    assert a["accuracy_delta"] > 30 and a["completeness_delta"] > 30  # answers improved in week 2
    assert by_model["good-b"]["previous_run_id"] is None  # a new provider has no trend yet
    assert by_model["refuse"]["accuracy_delta"] == pytest.approx(0, abs=1e-6)
    # a domain's figures mix its providers: week 2 adds good-b, so the domain has no trend (each
    # provider keeps its own)
    domain = week2.summaries[0]
    assert domain["previous_run_id"] is None and domain["accuracy_delta"] is None
    assert week1.provider_summaries[0]["previous_run_id"] is None
    before = {r["model"]: r for r in week1.provider_summaries}
    assert a["wrong_fact_rate_delta"] == pytest.approx(
        a["wrong_fact_rate"] - before["good-a"]["wrong_fact_rate"], abs=1e-4
    )
    assert by_model["good-b"]["wrong_fact_rate"] == 0 and by_model["good-b"]["wrong_fact_rate_delta"] is None
    assert (
        by_model["denied"]["wrong_fact_rate"] is None and by_model["denied"]["correct_mention_rate"] is None
    )
    assert domain["wrong_fact_rate_delta"] is None


def test_mentioned_and_correct_per_provider(monitored):
    data_dir, _, _, week2 = monitored
    analyses = ParquetStore(data_dir).read("analyses", "w2").filter(pl.col("status") != "error")
    for r in week2.provider_summaries:
        mine = analyses.filter(pl.col("model") == r["model"])
        if mine.is_empty():
            continue
        named = mine["has_url_citation"] | mine["has_domain_mention"] | mine["has_brand_mention"]
        assert r["correct_mention_rate"] == pytest.approx((named & ~mine["has_wrong_fact"]).mean(), abs=1e-4)
        assert r["wrong_fact_rate"] == pytest.approx(mine["has_wrong_fact"].mean(), abs=1e-4)
    good = next(r for r in week2.provider_summaries if r["model"] == "good-b")
    assert good["correct_mention_rate"] == pytest.approx(
        0.2
    )  # of the five expected answers, one names "Nimbus Notes"


def test_visibility_and_share_of_voice_trend_against_the_previous_monitor_run(monitored):
    data_dir, week1, _, week2 = monitored
    store = ParquetStore(data_dir)
    responses = store.read("responses", "w2")
    assert set(responses["competitors"].list.eval(pl.element().struct.field("name")).list.join(",")) == {
        "Evernote,Notion,Obsidian"
    }  # the query set's competitors, copied into every answer
    before = {r["model"]: r for r in week1.provider_summaries}
    after = {r["model"]: r for r in week2.provider_summaries}
    # week 1: good-a names Evernote in 4 of 5 answers and never the site; week 2: the expected
    # answers, one of which names "Nimbus Notes" and none a competitor
    assert before["good-a"]["share_of_voice"] == 0 and before["good-a"]["mention_rate"] == 0
    a = after["good-a"]
    assert a["share_of_voice"] == 1 and a["share_of_voice_delta"] == pytest.approx(1)
    assert a["mention_rate"] == pytest.approx(0.2) and a["mention_rate_delta"] == pytest.approx(0.2)
    assert a["first_position_rate_delta"] == pytest.approx(0.2) and a["citation_rate_delta"] == 0
    assert after["refuse"]["share_of_voice"] is None and after["refuse"]["mention_rate"] == 0  # nobody named
    assert after["good-b"]["share_of_voice_delta"] is None  # a new provider has no trend yet
    domain, earlier = week2.summaries[0], week1.summaries[0]
    assert earlier["share_of_voice"] == 0 and domain["share_of_voice"] == 1
    assert domain["share_of_voice_delta"] is None  # week 2 asks one more provider: no domain trend
    brands = {(r["model"], r["brand"]): r for r in store.read("competitor_summaries", "w2").to_dicts()}
    evernote = brands[("good-a", "Evernote")]
    assert evernote["mention_rate"] == 0 and evernote["mention_rate_delta"] == pytest.approx(-0.8)
    assert evernote["share_of_voice_delta"] == pytest.approx(-1) and evernote["previous_run_id"] == "w1"
    assert brands[("good-a", "nimbusnotes.example")]["is_site"]
    assert ("denied", "Evernote") not in brands  # no scored answer: no share of voice


def test_responses_are_sleuth_analyze_input_as_they_are(monitored, tmp_path):
    data_dir, _, between, _ = monitored
    partition = between.paths["responses"]
    records, errors, _ = load_records(partition)
    assert len(records) == 5 and not errors
    assert {r.provider for r in records} == {"fake"} and all(r.claims and r.query_set_id for r in records)
    assert (
        main(["analyze", partition, "--ground-truth", PAGES, "--data-dir", str(tmp_path), "--run-id", "re"])
        == 0
    )
    assert ParquetStore(str(tmp_path)).read("analyses", "re").height == 5


def test_a_monitor_where_every_provider_failed_ends_failed_with_its_tables(prefect_harness, tmp_path):
    fake = FakeAssistant({})
    try:
        state = monitor(
            QUERY_SET,
            PAGES,
            [f"openai/denied,base_url={fake.base_url}"],
            run_id="all-failed",
            data_dir=str(tmp_path),
            return_state=True,
        )
    finally:
        fake.close()
    assert (
        state.is_failed() and "no provider answered" in state.message and "Incorrect API key" in state.message
    )
    with pytest.raises(NoProviderAnswered) as raised:
        state.result()
    assert raised.value.result.run_id == "all-failed"
    store = ParquetStore(str(tmp_path))
    assert store.read("collections", "all-failed")["status"].to_list() == ["failed"]  # written all the same
    assert store.read("runs", "all-failed")["failed"].to_list() == [5]


def test_cli_collect_exits_1_when_every_provider_fails(prefect_harness, tmp_path, capsys):
    fake = FakeAssistant({})
    try:
        args = [
            "collect",
            QUERY_SET,
            "--provider",
            f"openai/denied,base_url={fake.base_url}",
            "--data-dir",
            str(tmp_path),
        ]
        assert main(args) == 1
        captured = capsys.readouterr()
        assert "denied failed" in captured.out and "Incorrect API key" in captured.out
        assert "no provider answered" in captured.err
        drafts = tmp_path / "drafts.jsonl"
        drafts.write_text(open(QUERY_SET).read().replace('"approved"', '"draft"'))
        provider = f"openai/x,base_url={fake.base_url}"
        assert main(["collect", str(drafts), "--provider", provider, "--data-dir", str(tmp_path)]) == 2
        assert "unreviewed drafts" in capsys.readouterr().err
    finally:
        fake.close()


def test_cli_monitor_prints_providers_side_by_side(prefect_harness, tmp_path, capsys, queries):
    fake = FakeAssistant({q.query: q.expected_answer for q in queries})
    try:
        args = [
            "monitor",
            QUERY_SET,
            "--ground-truth",
            PAGES,
            "--data-dir",
            str(tmp_path),
            "--run-id",
            "cli-1",
            "--provider",
            f"openai/good,base_url={fake.base_url},label=fake",
            "--provider",
            f"openai/refuse,base_url={fake.base_url},label=fake",
            "--provider-concurrency",
            "2",
            "--rpm",
            "600",
        ]
        assert main(args) == 0
        out = capsys.readouterr().out
        assert "providers side by side" in out and "provider_summaries" in out
        assert "providers' visibility beside tracked competitors" in out and "share of voice" in out
        side, visibility = out.split("providers' visibility", 1)
        lines = [line.split() for line in side.splitlines() if line.startswith("nimbusnotes.example  fake/")]
        # provider / model, state, rank: best first
        assert [x[1:4] for x in lines] == [["fake/good", "ok", "1"], ["fake/refuse", "ok", "2"]]
        lines = [
            re.split(r"\s{2,}", line.strip())
            for line in visibility.splitlines()
            if line.startswith("nimbusnotes.example  fake/")
        ]
        # mentioned, cited, named first, share of voice, each with its 95% interval over the 5
        # answers: one expected answer names "Nimbus Notes"
        assert [x[1:6] for x in lines] == [
            ["fake/good", "20% (4-62)", "0% (0-43)", "20% (4-62)", "100% (21-100)"],
            ["fake/refuse", "0% (0-43)", "0% (0-43)", "0% (0-43)", "-"],
        ]
    finally:
        fake.close()


def test_cli_collect_counts_refusals_apart_from_answers(prefect_harness, tmp_path, capsys):
    """A refusal is a call that got no answer worth auditing: the summary line says how many."""
    fake = FakeAssistant({})
    try:
        providers = ["--provider", f"openai/good,base_url={fake.base_url},label=a"]
        providers += ["--provider", f"openai/refuse,base_url={fake.base_url},label=b"]
        assert main(["collect", QUERY_SET, *providers, "--data-dir", str(tmp_path)]) == 0
    finally:
        fake.close()
    out = capsys.readouterr().out
    assert "10 calls: 5 answered, 5 refused, 0 empty, 0 without an answer (errors)" in out, out


def test_samples_ask_each_query_again_and_a_resume_keeps_what_it_has(queries):
    """``samples``: every query asked N times, each ask its own answer keyed (query, sample); the
    answers come back in query order, and answers carried from an earlier run are not asked."""
    fake = FakeAssistant(
        {q.query: q.expected_answer for q in queries},
        rival_answers={q.query: "Try Evernote instead." for q in queries},
        answer_rate=0.5,
        seed=3,
    )
    try:
        run = ask_provider(spec(fake, "sometimes"), queries[:2], samples=3)
        assert [a.key for a in run.answers] == [(q.query_id, s) for q in queries[:2] for s in (1, 2, 3)]
        assert len(fake.requests) == 6 and run.stats()["queries"] == 6
        texts = {a.response for a in run.answers}
        assert "Try Evernote instead." in texts and texts - {"Try Evernote instead."}  # answers vary by call
        carried = {a.key: a for a in run.answers[:4]}
        again = ask_provider(spec(fake, "sometimes"), queries[:2], samples=3, carried=carried)
        assert len(fake.requests) == 8  # only the two without an answer
        assert [a.response for a in again.answers[:4]] == [a.response for a in run.answers[:4]]
        with pytest.raises(ValueError, match="samples must be >= 1"):
            ask_provider(spec(fake, "sometimes"), queries[:1], samples=0)
    finally:
        fake.close()


def test_cli_monitor_with_samples_writes_each_ask_and_prints_calls_time_and_cost(
    prefect_harness, tmp_path, capsys, queries
):
    fake = FakeAssistant(
        {q.query: q.expected_answer for q in queries},
        rival_answers={q.query: "Try Evernote, it is the best note app." for q in queries},
        answer_rate=0.6,
    )
    try:
        providers = []
        for model in ("sometimes", "gpt-4o-mini"):  # LiteLLM prices the second
            providers += ["--provider", f"openai/{model},base_url={fake.base_url},label=fake"]
        args = ["monitor", QUERY_SET, "--ground-truth", PAGES, "--data-dir", str(tmp_path), *providers]
        with pytest.raises(SystemExit) as refused:  # before any run starts
            main([*args, "--samples", "0"])
        assert refused.value.code == 2
        assert (
            capsys.readouterr().err.splitlines()[-1].endswith("argument --samples: must be at least 1, got 0")
        )
        assert main([*args, "--run-id", "s3", "--samples", "3"]) == 0
    finally:
        fake.close()
    out = capsys.readouterr().out
    assert re.search(
        r"asked 30 calls \(5 queries x 3 samples x 2 providers\) in [\d.]+ s; cost \$0\.\d{4}", out
    ), out
    store = ParquetStore(tmp_path)
    responses = store.read("responses", "s3")
    assert responses.height == 30 and sorted(set(responses["sample"])) == [1, 2, 3]
    assert responses.group_by("query_id", "model").len()["len"].to_list() == [3] * 10
    analyses = store.read("analyses", "s3")
    assert analyses.height == 30 and analyses["id"].n_unique() == 30  # identical answers stay apart
    assert sorted(set(analyses["sample"])) == [1, 2, 3]
    assert store.read("runs", "s3")["samples"].to_list() == [3]
    assert store.read("collections", "s3")["samples"].to_list() == [3, 3]
    summary = store.read("provider_summaries", "s3").filter(pl.col("model") == "sometimes").row(0, named=True)
    assert summary["scored_count"] == 15 and 0 < summary["mention_rate"] < 1
