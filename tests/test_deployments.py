"""sleuth as its users deploy it: a real ``prefect server start`` (with its scheduler), the
``prefect`` CLI, ``prefect deploy --all`` from prefect.yaml, and a process worker started in
another folder that runs deployments end to end, including a review that pauses and resumes.

The test harness's temporary server runs no scheduler and no worker, so only this test sees
what a scheduled deployment meets (e.g. SQLAlchemy 2.1 breaking the scheduler, FastAPI >= 0.151
answering the CLI's null request fields with 422). Every process it starts is stopped.
"""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml
from prefect.flow_runs import resume_flow_run
from prefect.settings import PREFECT_API_URL, temporary_settings

from modules.store import ParquetStore
from tests.conftest import ROOT
from tests.prefect_server import api_call, prefect_server, stop

pytestmark = pytest.mark.slow

DEPLOYMENTS = {d["name"]: d for d in yaml.safe_load((ROOT / "prefect.yaml").read_text())["deployments"]}
SCHEDULED = sorted(name for name, d in DEPLOYMENTS.items() if d.get("schedules"))


def _cli(env: dict, *args: str, cwd: Path = ROOT, timeout: float = 240) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "prefect", "--no-prompt", *args],
        cwd=cwd,
        env={**env, "COLUMNS": "300"},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, (
        f"prefect {' '.join(args)} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return done.stdout


def _post(api: str, path: str, body: dict) -> list[dict]:
    response = api_call("POST", f"{api}{path}", json=body)
    response.raise_for_status()
    return response.json()


def _runs(api: str, deployment_id: str, states: list[str] | None = None) -> list[dict]:
    flow_runs: dict = {"deployment_id": {"any_": [deployment_id]}}
    if states:
        flow_runs["state"] = {"type": {"any_": states}}
    return _post(
        api, "/flow_runs/filter", {"flow_runs": flow_runs, "limit": 200, "sort": "EXPECTED_START_TIME_ASC"}
    )


def _wait_for(what: str, check, timeout: float, logs: list[Path]):
    deadline = time.time() + timeout
    while time.time() < deadline:
        found = check()
        if found:
            return found
        time.sleep(1)
    tails = "\n".join(f"--- {p.name}\n{p.read_text()[-4000:]}" for p in logs if p.exists())
    pytest.fail(f"{what}: not within {timeout:.0f} s\n{tails}")


def test_deployments_schedule_run_and_review_under_a_real_server(tmp_path):
    settings = {"PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS": "2", "PREFECT_UI_ENABLED": "false"}
    with prefect_server(tmp_path, **settings) as (api, env):
        server_log = tmp_path / "server.log"
        _cli(env, "work-pool", "create", "local", "--type", "process")
        deployed = _cli(env, "deploy", "--all")  # from the repository root, as README says
        assert "research-with-review" in deployed

        # the CLI's list commands answer (FastAPI >= 0.151 answered them with 422)
        listed = _cli(env, "deployment", "ls")
        assert all(name in listed for name in DEPLOYMENTS)
        _cli(env, "work-pool", "ls")
        _cli(env, "artifact", "ls")
        _cli(env, "flow-run", "ls")

        deployments = {d["name"]: d for d in _post(api, "/deployments/filter", {"limit": 50})}
        assert set(deployments) == set(DEPLOYMENTS)
        for name, spec in DEPLOYMENTS.items():
            got = deployments[name]
            assert (got["global_concurrency_limit"] or {}).get("limit") == spec.get("concurrency_limit"), name
            step = got["pull_steps"][0]["prefect.deployments.steps.set_working_directory"]
            assert Path(step["directory"]) == ROOT.resolve(), (
                name
            )  # recorded at deploy time, no shell variable

        # the scheduler creates the scheduled deployments' runs (SQLAlchemy 2.1 broke this)
        _wait_for(
            "scheduled runs for every scheduled deployment",
            lambda: all(_runs(api, deployments[n]["id"], ["SCHEDULED"]) for n in SCHEDULED),
            90,
            [server_log],
        )
        assert "bulk DML" not in server_log.read_text()

        # a worker started in another folder runs deployments end to end
        data_dir = tmp_path / "worker-data"
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        worker_env = {
            **env,
            "SLEUTH_DATA_DIR": str(data_dir),
            "PREFECT_WORKER_QUERY_SECONDS": "2",
            "PREFECT_WORKER_PREFETCH_SECONDS": "5",
            "HF_HUB_OFFLINE": "1",
        }
        worker_log = tmp_path / "worker.log"
        # a near-term schedule: the scheduler makes the run, the worker picks it up when it is due
        on_demand = deployments["response-analysis-on-demand"]["id"]
        soon = (datetime.now(UTC) + timedelta(seconds=8)).isoformat()
        _post(
            api,
            f"/deployments/{on_demand}/schedules",
            [{"schedule": {"interval": 3600, "anchor_date": soon}, "active": True}],
        )
        analysis = _wait_for(
            "the scheduler to schedule the near-term run",
            lambda: next(iter(_runs(api, on_demand, ["SCHEDULED"])), None),
            60,
            [server_log],
        )
        assert analysis["auto_scheduled"]
        review = _post(
            api,
            f"/deployments/{deployments['research-with-review']['id']}/create_flow_run",
            {"parameters": {"options": {"max_steps": 2}}},
        )
        with open(worker_log, "w") as log:
            worker = subprocess.Popen(
                [sys.executable, "-m", "prefect", "worker", "start", "--pool", "local"],
                cwd=elsewhere,
                env=worker_env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        logs = [worker_log, server_log]
        try:

            def state_of(flow_run: dict) -> str:
                return api_call("GET", f"{api}/flow_runs/{flow_run['id']}").json()["state"]["type"]

            def final_state(what: str, flow_run: dict, timeout: float) -> str:
                return _wait_for(
                    f"the {what} run to finish",
                    lambda: state_of(flow_run) in ("COMPLETED", "FAILED", "CRASHED") and state_of(flow_run),
                    timeout,
                    logs,
                )

            assert final_state("analysis", analysis, 400) == "COMPLETED", worker_log.read_text()[-4000:]
            store = ParquetStore(str(data_dir))
            runs = store.read("runs")
            row = runs.filter(runs["flow_run_id"] == analysis["id"]).row(
                0, named=True
            )  # traced to its flow run
            assert row["flow"] == "analyze" and row["deployment"] == "response-analysis-on-demand"
            assert store.read("analyses", row["run_id"]).height == 15
            assert (data_dir / "analyses" / f"run_id={row['run_id']}").is_dir()
            tags = api_call("GET", f"{api}/flow_runs/{analysis['id']}").json()["tags"]
            assert f"sleuth-run:{row['run_id']}" in tags

            # the review pauses; an answer without a reason is refused and it stays paused; accept resumes it
            _wait_for("the review to pause", lambda: state_of(review) == "PAUSED", 400, logs)
            with temporary_settings({PREFECT_API_URL: api}):  # through the client, as a script would
                with pytest.raises(RuntimeError, match="text"):
                    resume_flow_run(review["id"], run_input={"verdict": "reject", "text": ""})
                assert state_of(review) == "PAUSED"
                resume_flow_run(review["id"], run_input={"verdict": "accept"})
            assert final_state("review", review, 120) == "COMPLETED", worker_log.read_text()[-4000:]
            runs = store.read("runs")
            reviewed = runs.filter(runs["flow_run_id"] == review["id"]).row(0, named=True)
            assert reviewed["deployment"] == "research-with-review"
            assert store.read("feedback", reviewed["run_id"])["verdict"].to_list() == ["accept"]
            artifacts = _post(
                api, "/artifacts/filter", {"flow_runs": {"id": {"any_": [analysis["id"], review["id"]]}}}
            )
            keys = {a["key"] for a in artifacts}
            assert (
                f"analyze-report-{row['run_id'].lower()}" in keys
                and f"research-report-{reviewed['run_id'].lower()}" in keys
            )
        finally:
            stop(worker)
