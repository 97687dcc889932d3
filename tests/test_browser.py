"""In a real headless browser (Debian's chromium, driven by Playwright): a run report, and the
paused research run's review form in the Prefect UI, filled in and submitted there.

Chromium is installed by this test's setup when missing (apt-get, as root); where that is
impossible the test is skipped and says why. Screenshots go to the test's tmp dir, and also to
``$SLEUTH_SCREENSHOTS`` when set (that is how README's screenshots are made).
"""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from modules.reports import write_run_report
from modules.store import ParquetStore
from tests.conftest import ROOT, SAMPLES
from tests.prefect_server import api_call
from tests.prefect_server import prefect_server as real_prefect_server

QUESTION = "Were Scott Derrickson and Ed Wood of the same nationality?"
ADDED = "Say which country each man was from."


def _chromium() -> str:
    found = shutil.which("chromium")
    if found:
        return found
    if shutil.which("apt-get") and hasattr(os, "geteuid") and os.geteuid() == 0:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        for step in (
            ["apt-get", "install", "-y", "-q", "chromium"],
            ["apt-get", "update", "-q"],
            ["apt-get", "install", "-y", "-q", "chromium"],
        ):
            done = subprocess.run(step, env=env, capture_output=True, timeout=900)
            if step[1] == "install" and done.returncode == 0:
                break
        found = shutil.which("chromium")
        if found:
            return found
        reason = "apt-get install chromium failed"
    else:
        reason = "chromium is not installed and this user cannot apt-get install it"
    pytest.skip(f"no headless browser: {reason} (Debian package chromium, /usr/bin/chromium)")


@pytest.fixture(scope="module")
def browser():
    executable = _chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def prefect_server(tmp_path_factory):
    """A real Prefect server with its UI (the test harness's temporary server has none)."""
    with real_prefect_server(tmp_path_factory.mktemp("server")) as (api, _):
        yield api


def _runs(api: str, state: str) -> list[dict]:
    body = {
        "flow_runs": {"state": {"type": {"any_": [state]}}},
        "limit": 50,
        "offset": 0,
        "sort": "START_TIME_DESC",
    }
    return api_call("POST", f"{api}/flow_runs/filter", json=body).json()


def _wait_paused(api: str, exclude: set[str], proc: subprocess.Popen, timeout: float = 300) -> str:
    deadline = time.time() + timeout
    while time.time() < deadline:
        paused = [r["id"] for r in _runs(api, "PAUSED") if r["id"] not in exclude]
        if paused:
            return paused[0]
        if proc.poll() is not None:
            pytest.fail(
                f"the research flow exited ({proc.returncode}) before pausing: {proc.stdout.read()[-3000:]}"
            )
        time.sleep(1)
    pytest.fail("no paused research run")


def _save(page, tmp_path: Path, name: str, full_page: bool = False) -> Path:
    path = tmp_path / name
    page.screenshot(path=str(path), full_page=full_page)
    if os.environ.get("SLEUTH_SCREENSHOTS"):
        shutil.copy(path, Path(os.environ["SLEUTH_SCREENSHOTS"]) / name)
    assert path.stat().st_size > 10_000
    return path


def test_report_and_review_form_in_a_browser(browser, prefect_server, tmp_path):
    api, data = prefect_server, str(tmp_path / "data")
    script = (
        "from flows.research import research\nfrom modules.research.session import ResearchOptions\n"
        f"research({QUESTION!r}, options=ResearchOptions(corpus={str(SAMPLES / 'corpus.jsonl')!r}, max_steps=4), "
        f"run_id='reviewed', data_dir={data!r}, review=True, review_timeout_s=600)\n"
    )
    env = {**os.environ, "PREFECT_API_URL": api, "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        flow_run = _wait_paused(api, set(), proc)

        # the run's report, as a file opened from disk
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        report = write_run_report("reviewed", data)
        page.goto(Path(report).as_uri())
        assert page.title() == "sleuth · research · run reviewed"
        assert page.locator("svg").count() >= 1 and page.get_by_text(QUESTION).count() >= 1
        assert page.locator('a[href="#q-q1-src-1"]').count() >= 1
        _save(page, tmp_path, "report-research.png", full_page=True)

        # the paused run's form in the Prefect UI: the report above a typed form
        page.goto(api.removesuffix("/api") + f"/runs/flow-run/{flow_run}")
        page.get_by_role("button", name="Resume").click()
        dialog = page.get_by_role("dialog")
        dialog.get_by_text("Review run reviewed").wait_for()
        assert dialog.get_by_text(QUESTION).count() >= 1 and dialog.get_by_text("Verdict").count() == 1
        dialog.locator(".p-select-button__control").focus()
        page.keyboard.press("ArrowDown")
        page.get_by_role("listbox").get_by_role("option", name="add", exact=True).click()
        dialog.get_by_role("button", name="Submit").click()  # "add" with no text: refused, still paused
        time.sleep(3)
        _save(page, tmp_path, "review-form-refused.png")
        assert dialog.is_visible() and [r["id"] for r in _runs(api, "PAUSED")] == [flow_run]
        dialog.locator("textarea").fill(ADDED)
        _save(page, tmp_path, "review-form.png")
        dialog.get_by_role("button", name="Submit").click()
        page.get_by_text("Flow run resumed").first.wait_for(timeout=30_000)

        # answering re-opened the thread as a child run, then paused for its review: accept it
        store, deadline = ParquetStore(data), time.time() + 300
        while (
            not store.run_exists("reviewed", ("feedback",)) and time.time() < deadline and proc.poll() is None
        ):
            time.sleep(1)
        child_pause = _wait_paused(api, set(), proc)
        resumed = api_call(
            "POST", f"{api}/flow_runs/{child_pause}/resume", json={"run_input": {"verdict": "accept"}}
        )
        assert resumed.status_code in (200, 201), resumed.text
        assert proc.wait(timeout=300) == 0, proc.stdout.read()[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
    store = ParquetStore(data)
    feedback = store.read("feedback", "reviewed").row(0, named=True)
    assert feedback["verdict"] == "add" and feedback["text"] == ADDED
    child = store.read("reports", feedback["child_run_id"]).row(0, named=True)
    assert child["parent_run_id"] == "reviewed" and any(ADDED in c for c in child["constraints"])


@pytest.mark.usefixtures("prefect_harness")
def test_share_of_voice_section_in_a_browser(browser, tmp_path):
    """The sample's analysis report opened from disk: the share-of-voice plot is drawn and the
    competitors named instead of the site are listed, marked (README's screenshot)."""
    from flows.analyze import analyze_responses

    data = str(tmp_path / "data")
    analyze_responses(
        str(SAMPLES / "responses.jsonl"), str(SAMPLES / "pages.jsonl"), run_id="sample", data_dir=data
    )
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(Path(write_run_report("sample", data)).as_uri())
    section = page.locator("#share-of-voice")
    assert section.locator("svg").count() == 1 and section.locator("svg").bounding_box()["height"] > 100
    assert section.get_by_text("nimbusnotes.example (us)").count() >= 3  # one row per provider
    assert section.locator('mark[title="competitor: Obsidian"]').count() == 2
    _section_shot(section, tmp_path, "report-response-share-of-voice.png")

    # the sources the assistants cite: the site's own domain, a competitor's, third parties
    sources = page.locator("#sources")
    assert sources.get_by_text("competitor (Obsidian)").count() == 1
    assert sources.get_by_text("the site", exact=True).count() == 2  # one row per audited site
    _section_shot(sources, tmp_path, "report-response-sources.png")

    # what to fix first: every answer with a wrong fact, the one citing the site leading, with
    # its two kinds of credit (cited, never named)
    worst = page.locator("#worst")
    assert worst.locator("h2").first.inner_text() == "Answers to fix: 3 with a wrong fact"
    first = worst.locator("h3").first
    assert first.inner_text().startswith("nimbus-price-plus")
    assert worst.get_by_text("(named 0, cited 75)").count() == 1
    _section_shot(worst, tmp_path, "report-response-worst.png")


def _section_shot(section, tmp_path: Path, name: str) -> None:
    """A screenshot of one report section, copied to ``$SLEUTH_SCREENSHOTS`` when set."""
    path = tmp_path / name
    section.screenshot(path=str(path))
    if os.environ.get("SLEUTH_SCREENSHOTS"):
        shutil.copy(path, Path(os.environ["SLEUTH_SCREENSHOTS"]) / path.name)
    assert path.stat().st_size > 10_000
