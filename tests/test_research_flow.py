"""The research flow end to end: contract tables, the LM path through a fake OpenAI-compatible
server (good, malformed, refusing and slow), feedback re-opening a thread, batches and the CLI."""

import json

import duckdb
import polars as pl
import pytest

from flows.cli import main
from flows.research import research, research_batch, research_feedback
from modules.lm import LMSettings
from modules.research.batch import load_questions
from modules.research.session import ResearchOptions
from modules.store import ParquetStore
from modules.testing import BAD_CITATION, GOOD_CITATION, FakeLM, prompt_tokens
from tests.conftest import SAMPLES, write_jsonl

QUESTION = "Were Scott Derrickson and Ed Wood of the same nationality?"
CONTRACT = {
    "reports": [
        "question_id",
        "question",
        "answer",
        "confidence",
        "status",
        "stop_reason",
        "journey",
        "cited_urls",
    ],
    "steps": [
        "question_id",
        "step",
        "node",
        "action",
        "query_or_url",
        "engine",
        "outcome",
        "reasoning",
        "n_results",
        "new_facts",
        "confidence",
        "fallback",
        "tokens",
        "duration_ms",
    ],
    "sources": ["question_id", "url", "title", "engine", "rank", "step", "analyzed", "cited"],
    "memory": ["question_id", "fact_id", "text", "quote", "source_url", "step", "confidence", "status"],
}
OFFLINE = ResearchOptions(corpus=str(SAMPLES / "corpus.jsonl"), max_steps=6)


@pytest.fixture(scope="module")
def baseline_run(prefect_harness, tmp_path_factory):
    data_dir = str(tmp_path_factory.mktemp("research"))
    return research(QUESTION, options=OFFLINE, run_id="r-base", data_dir=data_dir), data_dir


def test_baseline_flow_writes_the_contract_tables(baseline_run):
    result, data_dir = baseline_run
    store = ParquetStore(data_dir)
    for table, columns in CONTRACT.items():
        frame = pl.read_parquet(f"{data_dir}/{table}/**/*.parquet", hive_partitioning=True)
        assert frame.columns[: len(columns)] == columns and "run_id" in frame.columns, table
        assert frame.height, table
    con = duckdb.connect()
    n = con.execute(
        f"select count(*) from read_parquet('{data_dir}/steps/**/*.parquet', hive_partitioning=true) "
        "where run_id = 'r-base'"
    ).fetchone()[0]
    assert n == store.read("steps", "r-base").height
    report = store.read("reports", "r-base").row(0, named=True)
    sources = store.read("sources", "r-base")
    analyzed = set(sources.filter(pl.col("analyzed"))["url"])
    assert set(report["cited_urls"]) <= analyzed
    assert set(sources.filter(pl.col("cited"))["url"]) == set(report["cited_urls"])
    assert {
        "https://en.wikipedia.org/wiki/Scott_Derrickson",
        "https://en.wikipedia.org/wiki/Ed_Wood",
    } <= analyzed
    memory = store.read("memory", "r-base")
    assert set(memory["source_url"]) <= analyzed and set(memory["status"]) <= {
        "supported",
        "conflicting",
        "unverified",
    }
    assert (
        report["status"] in {"answered", "handed_over", "incomplete"}
        and "Stopped because" in report["journey"]
    )
    assert result.reports[0]["answer"] == report["answer"]
    runs = store.read("runs", "r-base").row(0, named=True)
    assert runs["flow"] == "research" and runs["total"] == 1
    # the run records which trained answer ranker chose its short answers
    assert json.loads(runs["config_json"])["answer_ranker"].startswith("answer-ranker-")


@pytest.mark.parametrize("mode", ["good", "malformed", "refusal", "slow"])
def test_flow_through_a_fake_openai_compatible_server(prefect_harness, tmp_path, mode):
    fake = FakeLM(mode, delay_s=2.5)
    try:
        lm = LMSettings(model="openai/fake-model", base_url=fake.base_url, retries=1, timeout_s=1.0)
        options = OFFLINE.model_copy(update={"lm": lm, "max_steps": 2})
        research(QUESTION, options=options, run_id=f"r-{mode}", data_dir=str(tmp_path))
    finally:
        fake.close()
    store = ParquetStore(str(tmp_path))
    steps = store.read("steps", f"r-{mode}")
    report = store.read("reports", f"r-{mode}").row(0, named=True)
    lm_steps = steps.filter(pl.col("node").is_in(["decision", "analyzer", "report"]))
    assert fake.requests and set(fake.nodes()) >= {"decision", "analysis"}
    if mode == "good":
        assert not any(lm_steps["fallback"]) and all(t > 0 for t in lm_steps["tokens"])
        assert report["cited_urls"] == [GOOD_CITATION]  # the never-retrieved citation was removed
        # the model's text stands; its short answer ("American" to a yes/no question) is not of
        # the asked kind, so calibration withholds it and says so
        assert report["answer"].endswith("Scott Derrickson is American [1].") and report["tokens"] > 0
        assert report["short_answer"] == "" and '"American", is more likely wrong' in report["answer"]
        assert steps.filter(pl.col("node") == "decision")["query_or_url"][0] == "Scott Derrickson nationality"
    else:
        # every LM node retried (2 attempts) and then ran its baseline program, saying why
        assert all(lm_steps["fallback"]) and all(lm_steps["error"].is_not_null())
        expected = "LM error" if mode == "slow" else "unparseable LM output"
        assert all(e.startswith(expected) for e in lm_steps["error"])
        assert fake.nodes().count("decision") >= 2
        assert report["answer"] and BAD_CITATION not in report["cited_urls"]


def test_flaky_output_is_retried_without_falling_back(prefect_harness, tmp_path):
    fake = FakeLM("flaky", flaky_failures=2)
    try:
        lm = LMSettings(model="openai/fake-model", base_url=fake.base_url)
        options = OFFLINE.model_copy(update={"lm": lm, "max_steps": 2})
        research(QUESTION, options=options, run_id="r-flaky", data_dir=str(tmp_path))
    finally:
        fake.close()
    steps = ParquetStore(str(tmp_path)).read("steps", "r-flaky")
    first = steps.filter(pl.col("node") == "decision").row(0, named=True)
    billed = [prompt_tokens(b) + len(fake.replies[id(b)]) // 4 for b in fake.requests[:3]]
    assert not first["fallback"] and first["tokens"] == sum(billed)  # 2 failed requests + 1 good, all counted


def test_feedback_reopens_the_thread_with_its_memory(baseline_run):
    _, data_dir = baseline_run
    store = ParquetStore(data_dir)
    parent_memory = set(store.read("memory", "r-base")["fact_id"])
    child = research_feedback(
        "r-base",
        "add",
        "Say which country each man was born in.",
        options=OFFLINE,
        run_id="r-child",
        data_dir=data_dir,
    )
    assert child.parent_run_id == "r-base"
    report = store.read("reports", "r-child").row(0, named=True)
    parent = store.read("reports", "r-base").row(0, named=True)
    assert report["parent_run_id"] == "r-base" and report["thread_id"] == parent["thread_id"]
    assert report["constraints"] == ["Say which country each man was born in."]
    assert parent_memory <= set(store.read("memory", "r-child")["fact_id"])
    feedback = store.read("feedback", "r-base").row(0, named=True)  # stored under the reviewed run
    assert feedback["verdict"] == "add" and feedback["child_run_id"] == "r-child"

    rejected = research_feedback(
        "r-child",
        "reject",
        "It never says whether they share a nationality.",
        options=OFFLINE,
        run_id="r-grandchild",
        data_dir=data_dir,
    )
    constraints = rejected.reports[0]["constraints"]
    assert constraints[0] == "Say which country each man was born in." and constraints[1].startswith(
        'The previous answer "yes" was rejected (It never says'
    )

    research_feedback("r-grandchild", "accept", options=OFFLINE, data_dir=data_dir)
    accepted = store.read("feedback", "r-grandchild").row(0, named=True)
    assert accepted["verdict"] == "accept" and accepted["child_run_id"] is None
    with pytest.raises(ValueError, match="needs a text"):
        research_feedback("r-base", "reject", "  ", options=OFFLINE, data_dir=data_dir)
    with pytest.raises(ValueError, match="no research reports"):
        research_feedback("r-missing", "accept", data_dir=data_dir)


def test_batch_runs_each_question_as_its_own_thread(prefect_harness, tmp_path):
    questions = [
        {"id": "derrickson", "question": QUESTION},
        {
            "id": "archer",
            "question": "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?",
        },
    ]
    result = research_batch(
        questions,
        options=OFFLINE.model_copy(update={"max_steps": 3}),
        run_id="r-batch",
        data_dir=str(tmp_path),
    )
    reports = ParquetStore(str(tmp_path)).read("reports", "r-batch")
    assert sorted(reports["question_id"]) == ["archer", "derrickson"] and len(result.reports) == 2
    assert reports["thread_id"].n_unique() == 2
    steps = ParquetStore(str(tmp_path)).read("steps", "r-batch")
    assert set(steps["question_id"]) == {"archer", "derrickson"}
    with pytest.raises(FileExistsError):
        research_batch(questions, options=OFFLINE, run_id="r-batch", data_dir=str(tmp_path))


def test_question_files_are_validated(tmp_path):
    good = write_jsonl(tmp_path / "q.jsonl", [{"id": 1, "question": "Who?"}, "", {"question": "What?"}])
    assert load_questions(good) == [{"id": "1", "question": "Who?"}, {"id": "line-3", "question": "What?"}]
    bad = write_jsonl(
        tmp_path / "bad.jsonl",
        [{"id": 1, "question": "Who?"}, "{not json", {"id": 1, "question": "Again"}, {"id": 2}],
    )
    with pytest.raises(ValueError) as err:
        load_questions(bad)
    assert (
        "line 2: not valid JSON" in str(err.value)
        and "duplicate id '1'" in str(err.value)
        and "line 4" in str(err.value)
    )


def test_cli_research_and_feedback(prefect_harness, tmp_path, capsys):
    corpus = str(SAMPLES / "corpus.jsonl")
    args = ["--corpus", corpus, "--max-steps", "2", "--data-dir", str(tmp_path), "--no-input"]
    assert main(["research", QUESTION, "--run-id", "cli-1", "--json", *args]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["run_id"] == "cli-1" and printed["reports"][0]["question"] == QUESTION
    assert main(["feedback", "cli-1", "--add", "Mention the birth years.", "--run-id", "cli-2", *args]) == 0
    out = capsys.readouterr().out
    assert "Answer:" in out and "re-opened from cli-1" in out
    assert "Reviewer's input:\n- Mention the birth years." in out  # what the reviewer added, shown
    steps = ParquetStore(tmp_path).read("steps", "cli-2")
    searches = steps.filter(steps["action"].str.starts_with("search_") & (steps["node"] == "tool"))
    assert QUESTION not in searches["query_or_url"].to_list()  # the parent's search is not run again
    questions = write_jsonl(tmp_path / "q.jsonl", [{"id": "a", "question": QUESTION}])
    assert main(["research-batch", str(questions), "--run-id", "cli-3", *args]) == 0
    out = capsys.readouterr().out
    short = ParquetStore(tmp_path).read("reports", "cli-3")["short_answer"][0]
    assert "cli-3" in out and "short answer" in out and short and short in out
    assert main(["research", "   ", *args]) == 2 and "question is empty" in capsys.readouterr().err


def _reviewed(data_dir, run_id, *, max_steps, timeout_s, **kw):
    """A research run of QUESTION that waits ``timeout_s`` for a reviewer's verdict."""
    return research(
        QUESTION,
        options=OFFLINE.model_copy(update={"max_steps": max_steps}),
        run_id=run_id,
        data_dir=data_dir,
        review=True,
        review_timeout_s=timeout_s,
        **kw,
    )


def _paused_runs(client):
    """The latest flow runs paused (for a reviewer), newest first."""
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterState, FlowRunFilterStateType
    from prefect.client.schemas.objects import StateType
    from prefect.client.schemas.sorting import FlowRunSort

    paused = FlowRunFilterState(type=FlowRunFilterStateType(any_=[StateType.PAUSED]))
    return client.read_flow_runs(
        flow_run_filter=FlowRunFilter(state=paused), limit=50, sort=FlowRunSort.ID_DESC
    )


def test_review_pauses_for_a_reviewer_and_resumes_with_their_input(baseline_run):
    """Under a Prefect server the flow waits for a reviewer (as from the UI), then acts on the verdict."""
    import threading
    import time

    from prefect.client.orchestration import get_client
    from prefect.flow_runs import resume_flow_run

    _, data_dir = baseline_run
    outcome = {}
    worker = threading.Thread(
        target=lambda: outcome.update(result=_reviewed(data_dir, "r-review", max_steps=2, timeout_s=120))
    )
    worker.start()
    paused = None
    with get_client(sync_client=True) as client:
        for _ in range(240):
            runs = _paused_runs(client)
            paused = next((r for r in runs if r.parameters.get("run_id") == "r-review"), None)
            if paused or not worker.is_alive():
                break
            time.sleep(0.5)
    assert paused is not None, "the flow never paused for review"
    for invalid in (
        {"verdict": "reject", "text": "  "},
        {"verdict": "add"},
    ):  # the form's schema says: a reason
        with pytest.raises(RuntimeError, match="text"):
            resume_flow_run(paused.id, run_input=invalid)
    with get_client(sync_client=True) as client:
        still = client.read_flow_run(paused.id).state
    assert still.is_paused() and still.state_details.pause_key == paused.state.state_details.pause_key
    resume_flow_run(paused.id, run_input={"verdict": "add", "text": "Name their professions."})
    for _ in range(240):  # the re-opened thread pauses again for its own review
        with get_client(sync_client=True) as client:
            again = [r for r in _paused_runs(client) if r.id == paused.id]
        if again and again[0].state.state_details.pause_key != paused.state.state_details.pause_key:
            break
        time.sleep(0.5)
    resume_flow_run(paused.id, run_input={"verdict": "accept"})
    worker.join(timeout=120)
    assert outcome["result"].parent_run_id == "r-review"
    store = ParquetStore(data_dir)
    assert store.read("feedback", "r-review")["verdict"].to_list() == ["add"]
    assert store.read("feedback", outcome["result"].run_id)["verdict"].to_list() == ["accept"]


def test_a_failing_thread_is_an_error_row_that_keeps_its_memory(baseline_run, monkeypatch):
    for var in (
        "SLEUTH_GOOGLE_API_KEY",
        "GOOGLE_API_KEY",
        "SLEUTH_GOOGLE_CSE_ID",
        "GOOGLE_CSE_ID",
        "SLEUTH_CONFIG",
    ):
        monkeypatch.delenv(var, raising=False)
    _, data_dir = baseline_run
    store = ParquetStore(data_dir)
    result = research_feedback(
        "r-base",
        "add",
        "Use Google.",
        options=ResearchOptions(search="google"),
        run_id="r-failed",
        data_dir=data_dir,
    )
    report = result.reports[0]
    assert report["status"] == "error" and "GOOGLE" in report["error"].upper()
    assert report["constraints"] == ["Use Google."]
    assert set(store.read("memory", "r-failed")["fact_id"]) == set(store.read("memory", "r-base")["fact_id"])


def test_an_unanswered_review_is_recorded_and_the_run_completes(baseline_run):
    _, data_dir = baseline_run
    state = _reviewed(data_dir, "r-unreviewed", max_steps=1, timeout_s=2, return_state=True)
    assert state.is_completed(), state.message
    assert state.result().review == "unreviewed"
    feedback = ParquetStore(data_dir).read("feedback", "r-unreviewed").row(0, named=True)
    assert feedback["verdict"] == "unreviewed" and "no verdict within 2 s" in feedback["text"]


def test_the_review_form_states_its_rule_and_an_answer_it_let_through_is_asked_again(
    prefect_harness, monkeypatch
):
    from prefect import flow
    from prefect._internal.pydantic.v2_schema import create_v2_schema
    from prefect.utilities.schema_tools import ValidationError as SchemaError
    from prefect.utilities.schema_tools import validate

    import flows.research as research_flows
    from flows.research import Feedback, ResearchRun, await_review

    schema = create_v2_schema("Feedback", model_base=Feedback)  # as Prefect stores it for the form
    for answer in (
        {"verdict": "reject", "text": ""},
        {"verdict": "add", "text": " \n"},
        {"verdict": "reject"},
    ):
        with pytest.raises(SchemaError):
            validate(answer, schema, raise_on_error=True)
        with pytest.raises(ValueError, match="say why"):
            Feedback.model_validate(answer)
    for answer in ({}, {"verdict": "accept"}, {"verdict": "add", "text": "Both were American."}):
        validate(answer, schema, raise_on_error=True)
        Feedback.model_validate(answer)

    forms = []

    def pause(wait_for_input, timeout):
        forms.append(wait_for_input._description)
        if len(forms) == 1:
            return Feedback.model_validate({"verdict": "reject", "text": " "})  # raises, as a load would
        return Feedback(verdict="add", text="Say which country.")

    monkeypatch.setattr(research_flows, "pause_flow_run", pause)
    got = flow(name="review-probe")(lambda: await_review(ResearchRun("r-x", "", None, {}, []), 600))()
    assert got.verdict == "add" and len(forms) == 2
    assert "not taken" not in forms[0] and "Your last answer was not taken: Value error, say why" in forms[1]
