"""--fail-if: a run that crosses a threshold exits 1 with one line naming every breach."""

import pytest

from flows.cli import main
from modules.response import Threshold, failed_thresholds
from tests.conftest import SAMPLES

SUMMARIES = [
    {"domain": "a.example", "query_set_id": "qs", "accuracy_mean": 72.06, "wrong_fact_rate": 0.2857},
    {"domain": "b.example", "query_set_id": None, "accuracy_mean": 81.0, "wrong_fact_rate": None},
]


@pytest.mark.parametrize(
    ("text", "breaches"),
    [
        ("accuracy<75", ["a.example / qs: accuracy 72.1 < 75"]),
        ("accuracy <= 81", ["a.example / qs: accuracy 72.1 <= 81", "b.example / -: accuracy 81.0 <= 81"]),
        ("accuracy<70", []),
        ("wrong_fact_rate>0.1", ["a.example / qs: wrong_fact_rate 0.286 > 0.1"]),  # b: unknown, not judged
        ("share_of_voice<0.5", []),
    ],
)
def test_a_threshold_names_each_domain_that_crosses_it(text, breaches):
    assert Threshold.parse(text).breaches(SUMMARIES) == breaches


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("accuracy", "is not MEASURE<VALUE"),
        ("accuracy=70", "is not MEASURE<VALUE"),
        ("precision>0.5", "unknown measure 'precision'"),
        ("wrong_fact_rate>10", "a share from 0 to 1"),
    ],
)
def test_a_bad_threshold_is_refused_with_what_is_wrong(text, says):
    with pytest.raises(ValueError, match=says):
        Threshold.parse(text)


def test_no_breach_no_line():
    assert failed_thresholds([Threshold.parse("accuracy<10")], SUMMARIES) is None


def test_the_cli_exits_1_naming_the_breach_and_2_on_a_bad_threshold(prefect_harness, tmp_path, capsys):
    base = [
        "analyze",
        str(SAMPLES / "responses.jsonl"),
        "--ground-truth",
        str(SAMPLES / "pages.jsonl"),
        "--data-dir",
        str(tmp_path),
        "--json",
    ]
    assert main([*base, "--fail-if", "wrong_fact_rate>10"]) == 2  # before any work
    assert "a share from 0 to 1" in capsys.readouterr().err and not list(tmp_path.glob("runs/*"))
    assert main([*base, "--run-id", "strict", "--fail-if", "wrong_fact_rate>0.2"]) == 1
    err = capsys.readouterr().err
    assert "thresholds failed: en.wikipedia.org / wiki-science-2026-11: wrong_fact_rate 0.286 > 0.2" in err
    assert "nimbusnotes" not in err  # 12%: within the threshold
    assert main([*base, "--run-id", "lenient", "--fail-if", "wrong_fact_rate>0.5"]) == 0
