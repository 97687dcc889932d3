"""sleuth diff: which answers moved between two runs, with the claim and the evidence."""

import json

import polars as pl

from flows.cli import main
from modules.response import diff_runs
from tests.conftest import SAMPLES


def _row(
    query_id: str, claims: dict, wrong: list[dict], named: bool, cited: bool, status: str = "ok"
) -> dict:
    feedback = {
        "claims": {
            verdict: [
                {"claim": {"id": cid, "text": f"claim {cid}"}, "evidence": f"evidence {cid}"}
                for cid, v in claims.items()
                if v == verdict
            ]
            for verdict in ("found", "missing", "contradicted")
        },
        "contradictions": wrong,
    }
    return {
        "domain": "site.example",
        "query_id": query_id,
        "provider": "openai",
        "model": "m",
        "status": status,
        "result_json": json.dumps({"feedback": feedback}),
        "first_mention_in": "text" if named else "none",
        "site_cited": cited,
        "has_url_citation": cited,
        "has_domain_mention": False,
        "has_brand_mention": named,
    }


def test_diff_names_each_changed_verdict_wrong_fact_and_visibility():
    wrong = {"statement": "Plus costs $9.99", "detail": "$6 (page) vs $9.99 (response)"}
    before = pl.DataFrame(
        [
            _row("price", {"c1": "contradicted", "c2": "found"}, [wrong], named=False, cited=True),
            _row("same", {"c1": "found"}, [], named=True, cited=False),
            _row("gone", {}, [], named=False, cited=False),
        ]
    )
    after = pl.DataFrame(
        [
            _row("price", {"c1": "found", "c2": "found"}, [], named=True, cited=True),
            _row("same", {"c1": "found"}, [], named=True, cited=False),
            _row("new", {}, [], named=False, cited=False, status="ok"),
        ]
    )
    result = diff_runs(before, after)
    assert result["matched"] == 2
    assert [a["query_id"] for a in result["changed"]] == ["price"]  # "same" did not change
    changes = result["changed"][0]["changes"]
    assert {
        "what": "verdict",
        "claim": "claim c1",
        "before": "contradicted",
        "after": "found",
        "evidence": "evidence c1",
    } in changes
    assert {
        "what": "wrong fact",
        "change": "gone",
        "statement": "Plus costs $9.99",
        "evidence": wrong["detail"],
    } in changes
    assert {"what": "named", "before": False, "after": True} in changes
    assert not any(c["what"] == "cited" for c in changes)  # cited in both
    assert [k["query_id"] for k in result["only_before"]] == ["gone"]
    assert [k["query_id"] for k in result["only_after"]] == ["new"]


def test_the_cli_diffs_two_runs_and_refuses_a_run_without_analyses(prefect_harness, tmp_path, capsys):
    data = ["--data-dir", str(tmp_path)]
    pages = str(SAMPLES / "pages.jsonl")
    assert (
        main(["analyze", str(SAMPLES / "responses.jsonl"), "--ground-truth", pages, "--run-id", "a", *data])
        == 0
    )
    changed = tmp_path / "pages.jsonl"
    changed.write_text((SAMPLES / "pages.jsonl").read_text().replace("$6 per month", "$9.99 per month"))
    assert main(["reanalyze", "a", "--ground-truth", str(changed), "--run-id", "b", *data]) == 0
    capsys.readouterr()
    assert main(["diff", "a", "b", *data]) == 0
    out = capsys.readouterr().out
    assert out.startswith("a -> b: 15 answers in both, ")
    assert 'wrong fact new: "Nimbus Notes Plus costs $6 per month when billed annually"' in out
    assert main(["diff", "a", "b", "--json", *data]) == 0
    assert json.loads(capsys.readouterr().out)["matched"] == 15
    assert main(["diff", "a", "missing", *data]) == 2
    assert "run 'missing' has no analyses" in capsys.readouterr().err
