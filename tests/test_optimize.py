"""Eval sets, node metrics and prompt optimization: labeled compilation offline (the program
loads back into the flows), and bootstrap / MIPROv2 / GEPA wired end to end through dspy.LM
against a fake OpenAI-compatible server (a smoke test of the wiring, not of quality)."""

import json

import dspy
import pytest

from flows.optimize import evaluate_node, optimize_node
from flows.research import research
from modules import programs as program_store
from modules.evaluation import SETS
from modules.evaluation.nodes import (
    EVALUATIONS,
    BaselineRunner,
    answer_scores,
    evaluate,
    load_examples,
    query_retrieves_gold,
    set_path,
)
from modules.lm import LMSettings
from modules.research.schema import Decision
from modules.research.session import ResearchOptions
from modules.store import ParquetStore
from modules.testing import FakeLM
from tests.conftest import SAMPLES, first_lines, optimize_under


def _subset(tmp_path, node, part, n):
    return str(first_lines(set_path(node, part), n, tmp_path))


def test_sets_are_split_by_question():
    split = json.loads((set_path("report", "dev").parent / "split.json").read_text())
    parts = ("train", "dev", "test")
    assert sum(len(split[p]) for p in parts) == len(set().union(*(split[p] for p in parts))) == 60
    for node in ("decision", "analyzer", "relevance", "report"):
        for part in parts:
            qids = {json.loads(x)["qid"] for x in set_path(node, part).read_text().splitlines()}
            assert qids and qids <= set(split[part]), (node, part)


def test_metrics_score_and_explain():
    assert answer_scores("Chief of Protocol", "She was Chief of Protocol.") == {
        "exact_match": 0.0,
        "f1": 0.75,
        "containment": 1.0,
    }
    assert answer_scores("the Yes", "yes")["exact_match"] == 1.0
    ex = load_examples("decision", part="dev")
    search = next(e for e in ex if e.row["gold_action"] == "search")
    crawl = dspy.Example(
        row={**search.row, "gold_action": "crawl_url", "acceptable": search.row["gold_urls"][:1]}
    )
    good = EVALUATIONS["decision"].metric(
        crawl,
        dspy.Prediction(**dict(Decision(next_action="crawl_url", query_or_url=crawl.row["acceptable"][0]))),
    )
    wrong = EVALUATIONS["decision"].metric(
        crawl, dspy.Prediction(**dict(Decision(next_action="send_to_hitl")))
    )
    assert good.score == 1.0 and wrong.score == 0.0 and "expected crawl_url" in wrong.feedback
    title = search.row["acceptable"][0]
    assert query_retrieves_gold(title, search.row) and not query_retrieves_gold("zzzz qqqq", search.row)


@pytest.mark.parametrize("node", ["decision", "analyzer", "relevance", "report"])
def test_every_baseline_runs_on_its_dev_set(node):
    examples = load_examples(node, part="dev")[:6]
    mean, rows = evaluate(node, BaselineRunner(node), examples)
    assert 0.0 < mean <= 1.0 and len(rows) == 6 and not any(r["error"] for r in rows)


def test_labeled_compilation_offline_and_the_program_loads_into_the_flow(prefect_harness, tmp_path):
    programs = tmp_path / "compiled"
    result = optimize_under(
        tmp_path,
        "report",
        trainset=_subset(tmp_path, "report", "train", 8),
        devset=_subset(tmp_path, "report", "dev", 4),
    )
    saved = program_store.versions("report", programs)
    assert len(saved) == 1 and result.program == str(saved[0]) and result.dev_score_before is None
    meta = program_store.metadata(saved[0])
    assert (
        meta["optimizer"] == "labeled"
        and len(meta["trainset_sha256_16"]) == 16
        and meta["baseline_dev_score"] > 0
    )
    loaded = program_store.load("report", saved[0])
    first_answer = loaded.demos[0]["answer"]
    assert len(loaded.demos) == 6 and first_answer
    evaluations = ParquetStore(str(tmp_path / "data")).read("evaluations", result.run_id)
    assert set(evaluations["program"]) == {"baseline"} and evaluations.height == 4

    fake = FakeLM("good")
    try:
        options = ResearchOptions(
            corpus=str(SAMPLES / "corpus.jsonl"),
            lm=LMSettings(model="openai/fake-model", base_url=fake.base_url),
            max_steps=1,
            programs=str(programs),
        )
        out = research(
            "Were Scott Derrickson and Ed Wood of the same nationality?",
            options=options,
            run_id="with-program",
            data_dir=str(tmp_path / "data"),
        )
    finally:
        fake.close()
    assert json.loads(out.reports[0]["programs"])["report"] == saved[0].stem
    report_prompts = [r for r in fake.requests if "`key_sources`" in json.dumps(r["messages"][0])]
    assert report_prompts and json.dumps(first_answer)[1:-1] in json.dumps(report_prompts[0]["messages"])


@pytest.mark.parametrize("optimizer", ["bootstrap", "random-search", "mipro", "gepa"])
def test_lm_optimizers_run_end_to_end_against_a_fake_server(prefect_harness, tmp_path, optimizer):
    fake = FakeLM("generic")
    try:
        result = optimize_under(
            tmp_path,
            "report",
            optimizer,
            lm=LMSettings(model="openai/fake-model", base_url=fake.base_url),
            trainset=_subset(tmp_path, "report", "train", 4),
            devset=_subset(tmp_path, "report", "dev", 3),
        )
    finally:
        fake.close()
    assert fake.requests and result.dev_score_before is not None and result.dev_score_after is not None
    assert result.program and program_store.metadata(result.program)["optimizer"] == optimizer
    programs = set(ParquetStore(str(tmp_path / "data")).read("evaluations", result.run_id)["program"])
    assert programs == {"baseline", "current", "compiled"}


def test_promotion_only_when_better(prefect_harness, tmp_path):
    fake = FakeLM("generic")
    try:
        kwargs = dict(
            lm=LMSettings(model="openai/fake-model", base_url=fake.base_url),
            programs_dir=str(tmp_path / "compiled"),
            data_dir=str(tmp_path / "data"),
            trainset=_subset(tmp_path, "report", "train", 4),
            devset=_subset(tmp_path, "report", "dev", 3),
            promote_if_better=True,
        )
        first = optimize_node("report", optimizer="labeled", **kwargs)
        second = optimize_node("report", optimizer="labeled", **kwargs)
    finally:
        fake.close()
    # the fake answers every prompt alike: the same score is not an improvement
    assert first.dev_score_after == second.dev_score_after and not second.promoted


def test_eval_flow_prints_baseline_metrics(prefect_harness, tmp_path):
    result = evaluate_node("report", program="baseline", data_dir=str(tmp_path))
    assert set(result.scores) == {"baseline"} and {"f1", "containment", "exact_match"} <= set(
        result.metrics["baseline"]
    )
    from modules.reports import render_run_report

    html = render_run_report(result.run_id, str(tmp_path))
    assert "sleuth · program evaluation" in html and "<td>report</td><td>baseline</td>" in html
    assert f"{result.scores['baseline']:.3f}" in html


def test_a_run_that_needs_an_lm_fails_before_any_work_without_one(prefect_harness, tmp_path, monkeypatch):
    """A scheduled re-optimization on a worker without SLEUTH_LM fails at once, writing nothing."""
    for var in ("SLEUTH_LM", "SLEUTH_LM_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    data = str(tmp_path / "data")
    for kwargs in (
        {"optimizer": "mipro", "promote_if_better": True},
        {"optimizer": "gepa"},
        {"optimizer": "labeled", "promote_if_better": True},
    ):
        state = optimize_node(
            "analyzer", data_dir=data, programs_dir=str(tmp_path / "compiled"), return_state=True, **kwargs
        )
        assert state.is_failed() and ("needs an LM" in state.message or "give an LM" in state.message), (
            state.message
        )
    assert ParquetStore(data).run_ids() == [] and not (tmp_path / "compiled").exists()


@pytest.mark.parametrize("node", ["analyzer", "relevance"])
def test_eval_sends_each_example_as_a_run_would_on_a_small_context(prefect_harness, tmp_path, node):
    """Web-length pages on a 4k model: every prompt is fitted to ``--lm-context`` (the fake server
    refuses longer ones, as a real one does) and carries the node's own reply cap and temperature."""
    from modules.nodes import budget_of
    from modules.testing import prompt_tokens, reply_cap

    filler = " ".join(json.loads(x)["question"] for x in set_path("report", "train").read_text().splitlines())
    rows = [json.loads(x) for x in set_path(node, "dev").read_text().splitlines()[:2]]
    for row in rows:  # pages and results as long as the web's: unfitted, they overflow 4k tokens
        if node == "analyzer":
            row["page"]["text"] = row["page"]["text"] + " " + filler[:20_000]
        else:
            row["results"] = [{**r, "text": r["text"] + " " + filler[:3_000]} for r in row["results"]]
    path = tmp_path / f"{node}-long.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    fake = FakeLM("generic", context_tokens=4096)
    try:
        result = evaluate_node(
            node,
            program="latest",
            lm=LMSettings(model="openai/fake-model", base_url=fake.base_url, context_tokens=4096),
            examples_path=str(path),
            programs_dir=str(tmp_path / "compiled"),
            data_dir=str(tmp_path / "data"),
        )
    finally:
        fake.close()
    budget = budget_of(node)
    assert fake.requests and all(prompt_tokens(r) + reply_cap(r) <= 4096 for r in fake.requests)
    assert {(reply_cap(r), r.get("temperature")) for r in fake.requests} == {
        (min(budget.max_tokens, 2048), budget.temperature)  # at most half the window
    }
    evaluations = ParquetStore(str(tmp_path / "data")).read("evaluations", result.run_id)
    dspy_rows = evaluations.filter(evaluations["program"] == "dspy")
    assert dspy_rows.height == 2 and dspy_rows["error"].null_count() == 2
    config = json.loads(ParquetStore(str(tmp_path / "data")).read("runs", result.run_id)["config_json"][0])
    assert config["lm_context"] == 4096


def test_a_compiled_judge_with_demos_still_fits_a_small_window(prefect_harness, tmp_path):
    """Four labeled demos with their page excerpts come before every input: the train examples
    are fitted to a share of the window and the live inputs give up the demos' room, so that
    every prompt of the compiled program fits a 4k model (the fake server refuses one that does
    not, which would show as an evaluation error)."""
    from modules.evaluation.judge import load_examples as judge_examples
    from modules.lm import NodeRunner, demo_chars
    from modules.nodes import budget_of
    from modules.testing import prompt_tokens, reply_cap

    sets = {
        part: str(first_lines(SETS / f"verdicts-{set_name}-{part}.jsonl", n, tmp_path))
        for part, set_name, n in (("train", "sites-e", 8), ("dev", "sites-d", 3))
    }
    fake = FakeLM("generic", context_tokens=4096)
    try:
        result = optimize_under(
            tmp_path,
            "judge",
            lm=LMSettings(model="openai/fake-model", base_url=fake.base_url, context_tokens=4096),
            trainset=sets["train"],
            devset=sets["dev"],
        )
    finally:
        fake.close()
    program = program_store.load("judge", result.program)
    assert len(program.demos) == 4 and demo_chars(program) > 2000
    assert fake.requests and all(prompt_tokens(r) + reply_cap(r) <= 4096 for r in fake.requests), max(
        prompt_tokens(r) + reply_cap(r) for r in fake.requests
    )
    evaluations = ParquetStore(str(tmp_path / "data")).read("evaluations", result.run_id)
    compiled = evaluations.filter(evaluations["program"] != "baseline")
    assert compiled.height == 6 and compiled["error"].null_count() == 6
    # a run fits the program the same way: the demos that fit half the inputs' room (one of the
    # four, on 4k), whose characters then come off that room
    runner = NodeRunner(context_tokens=4096)
    room = runner.input_chars("judge")
    fitted = runner.fit_program("judge", program)
    assert 1 <= len(fitted.demos) < len(program.demos) == 4 and demo_chars(fitted) <= room // 2
    assert runner.input_chars("judge") == room - demo_chars(fitted)
    assert NodeRunner(context_tokens=32768).fit_program("judge", program) is program  # all fit
    assert budget_of("judge").max_tokens > 0 and judge_examples(sets["dev"], runner)
