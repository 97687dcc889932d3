"""An analyst's verdicts (``sleuth verdicts override``): recorded against a run's answers, checked
one by one, applied wherever the answers are scored again, counted in the summaries, and
exported as labeled examples the judge's evaluation reads."""

import json

import polars as pl
import pytest

from flows.analyze import analyze_responses
from flows.cli import main
from modules.response import AnalysisResult, AnalyzerConfig
from modules.response.overrides import VerdictOverride, apply_overrides, standing
from modules.store import ParquetStore
from tests.conftest import SAMPLES

PAGES = str(SAMPLES / "pages.jsonl")
#: "Notes are encrypted, and support can always recover your notes if you lose your key. ..."
RECOVER = "support can always recover your notes if you lose your key"


@pytest.fixture(scope="module")
def audited(prefect_harness, tmp_path_factory):
    data = str(tmp_path_factory.mktemp("verdicts"))
    analyze_responses(str(SAMPLES / "responses.jsonl"), PAGES, run_id="a", data_dir=data)
    return data, ParquetStore(data).read("analyses", "a")


def _answer(analyses: pl.DataFrame, query_id: str, provider: str) -> dict:
    return analyses.filter((pl.col("query_id") == query_id) & (pl.col("provider") == provider)).row(
        0, named=True
    )


def test_verdicts_overrule_the_judge_where_the_answers_are_scored_again(audited, capsys):
    data, analyses = audited
    encryption = _answer(analyses, "nimbus-encryption", "perplexity")
    everest = _answer(analyses, "everest-height", "anthropic")  # "8,848 m tall": no year measured
    assert not encryption["has_wrong_fact"] and everest["completeness_score"] == 50  # what the judge said
    override = ["verdicts", "override", "a", "--data-dir", data]
    assert (
        main(
            [
                *override,
                "--answer",
                encryption["id"][:8],
                "--wrong-fact",
                RECOVER,
                "--verdict",
                "wrong",
                "--note",
                "a lost key cannot be reset",
                "--run-id",
                "v1",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert f'"{RECOVER}": not_wrong -> wrong' in out
    assert f"`sleuth reanalyze a --ground-truth {PAGES}` rescores" in out
    assert main([*override, "--answer", everest["id"], "--claim", "claim-2", "--verdict", "missing"]) == 0
    assert main([*override, "--answer", everest["id"], "--claim", "claim-2", "--verdict", "found"]) == 0

    assert main(["reanalyze", "a", "--ground-truth", PAGES, "--run-id", "again", "--data-dir", data]) == 0
    assert "0 fallbacks (keyword matching or the offline judge), 2 rescored with an analyst's verdicts" in (
        capsys.readouterr().out
    )
    store = ParquetStore(data)
    again = store.read("analyses", "again")
    fixed = _answer(again, "nimbus-encryption", "perplexity")
    result = AnalysisResult.model_validate_json(fixed["result_json"])
    assert fixed["has_wrong_fact"] and "analyst_verdicts" in fixed["flags"]
    assert [(w.statement, w.source) for w in result.feedback.contradictions] == [(RECOVER, "analyst")]
    assert fixed["accuracy_tier"] == "fair"  # held below good by the wrong fact, by the one rule
    found = _answer(again, "everest-height", "anthropic")  # the latest verdict on a claim stands
    assert found["completeness_score"] == 100 and found["claims_found"] == 2
    summary = (
        store.read("summaries", "again").filter(pl.col("domain") == "nimbusnotes.example").row(0, named=True)
    )
    assert summary["overridden_count"] == 1 and summary["wrong_fact_rate"] == 0.25
    untouched = again.filter(~pl.col("flags").list.contains("analyst_verdicts"))
    assert untouched.height == analyses.height - 2

    assert main(["verdicts", "export", "--out", str(store.root) + "/set", "--data-dir", data]) == 0
    from modules.evaluation.judge import load_verdict_rows

    rows, pages = load_verdict_rows(f"{store.root}/set/verdicts-analyst.jsonl")
    by_id = {r["question_id"]: r for r in rows}
    assert by_id["everest-height"]["verdicts"] == {"claim-1": "found", "claim-2": "found"}
    recover = by_id["nimbus-encryption"]["wrong_facts"]
    text = by_id["nimbus-encryption"]["response"]
    assert [text[w["start"] : w["end"]] for w in recover] == [RECOVER]
    assert {p.domain for p in pages} == {"nimbusnotes.example", "en.wikipedia.org"}


@pytest.mark.parametrize(
    "args, error",
    [
        (
            ["--answer", "zzzzzzzz", "--claim", "claim-1", "--verdict", "found"],
            "answer zzzzzzzz: no scored answer",
        ),
        (["--answer", "abc", "--claim", "claim-1", "--verdict", "found"], "give 6 or more of its characters"),
        (
            ["--answer", "{id}", "--claim", "claim-9", "--verdict", "found"],
            "no claim 'claim-9' (its claims: ",
        ),
        (["--answer", "{id}", "--claim", "claim-1", "--verdict", "wrong"], "a claim takes found | missing"),
        (
            ["--answer", "{id}", "--wrong-fact", "the moon", "--verdict", "wrong"],
            "the answer does not say 'the moon'",
        ),
        (["--answer", "{id}", "--verdict", "found"], "give either a claim id or a wrong fact"),
    ],
)
def test_a_bad_verdict_is_one_error_line_and_records_nothing(audited, capsys, args, error):
    data, analyses = audited
    answer = _answer(analyses, "everest-height", "anthropic")["id"]
    before = ParquetStore(data).run_ids()
    argv = ["verdicts", "override", "a", "--data-dir", data, *(a.replace("{id}", answer) for a in args)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and error in err[0], err
    assert ParquetStore(data).run_ids() == before


def test_a_file_of_corrections_is_recorded_whole_or_not_at_all(audited, tmp_path, capsys):
    data, analyses = audited
    answer = _answer(analyses, "curie-nobel", "perplexity")["id"]
    good = {"answer": answer, "claim": "claim-2", "verdict": "found", "analyst": "ana"}
    corrections = tmp_path / "c.jsonl"
    corrections.write_text(json.dumps(good) + "\n" + json.dumps({**good, "claim": "nope"}) + "\n")
    before = ParquetStore(data).run_ids()
    assert main(["verdicts", "override", "a", "--file", str(corrections), "--data-dir", data]) == 2
    assert "correction 2" in capsys.readouterr().err and ParquetStore(data).run_ids() == before
    corrections.write_text(json.dumps(good) + "\n" + json.dumps({**good, "verdikt": "x"}) + "\n")
    assert main(["verdicts", "override", "a", "--file", str(corrections), "--data-dir", data]) == 2
    assert f"{corrections} line 2:" in capsys.readouterr().err


def test_apply_moves_a_claim_between_verdicts_and_rescores_by_the_one_rule(audited):
    _, analyses = audited
    row = _answer(analyses, "nimbus-price-plus", "perplexity")  # "$9.99 ... 1 TB": price contradicted
    result = AnalysisResult.model_validate_json(row["result_json"])
    assert {c.claim.id for c in result.feedback.claims.contradicted} == {"price", "storage"}
    config = AnalyzerConfig()
    verdict = {
        "claim_id": "price",
        "wrong_fact": None,
        "verdict": "found",
        "previous_verdict": "contradicted",
    }
    fixed = apply_overrides(result, [verdict], config)
    assert {c.claim.id for c in fixed.feedback.claims.found} == {"price"}
    assert {c.claim.id for c in fixed.feedback.claims.contradicted} == {"storage"}
    assert len(fixed.feedback.contradictions) == 1 and fixed.scores.completeness.score == 100
    # the storage claim (expected, not scored beside the required price) is still contradicted:
    # a wrong fact that breaks no scored claim is fair
    assert fixed.scores.accuracy.tier == "fair"
    both = apply_overrides(result, [verdict, {**verdict, "claim_id": "storage"}], config)
    assert not both.feedback.contradictions and both.scores.accuracy.tier in ("good", "excellent")
    assert [v.verdict for v in both.analyst_verdicts] == ["found", "found"]


def test_the_latest_verdict_on_a_claim_stands():
    rows = pl.DataFrame(
        [
            {"answer_id": "x", "claim_id": "c", "wrong_fact": None, "verdict": v, "recorded_at": t}
            for v, t in (("missing", 2), ("found", 1), ("contradicted", 3))
        ]
    )
    assert [v["verdict"] for v in standing(rows)["x"]] == ["contradicted"]


def test_a_verdict_names_one_target_of_the_right_kind():
    assert VerdictOverride(answer="abcdef", wrong_fact="x", verdict="not_wrong").claim is None
    with pytest.raises(ValueError, match="a wrong fact takes wrong | not_wrong"):
        VerdictOverride(answer="abcdef", wrong_fact="x", verdict="found")
