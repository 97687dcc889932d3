import json
import math
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "datasets" / "samples"
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# Flow commands run on a temporary Prefect server each, as before the shared local server: no
# test leaves a server behind. tests/test_local_server.py turns it on, and stops what it starts.
os.environ["SLEUTH_LOCAL_SERVER"] = "0"

#: texts that hold "example.com" only inside another word or host: none mentions example.com
NOT_EXAMPLE_COM = [
    "counterexample.com.au is a different site",
    "see example.com.au",
    "myexample.com",
    "https://notexample.com/x",
    "example.community",
    "example-com",
]


@pytest.fixture(scope="session", autouse=True)
def _isolated_cache(tmp_path_factory):
    os.environ["SLEUTH_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="session")
def prefect_harness():
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=90):
        yield


@pytest.fixture(scope="session")
def analyzer():
    from modules.response import ResponseAnalyzer

    return ResponseAnalyzer()


@pytest.fixture(scope="session")
def embedder():
    from modules.embeddings import LocalEmbedder

    return LocalEmbedder()


@pytest.fixture(scope="session")
def sample_search():
    """The research sample corpus behind the local search backend (its index built once)."""
    from modules.tools.local_index import LocalSearch

    return LocalSearch(SAMPLES / "corpus.jsonl")


@pytest.fixture(scope="session")
def sample_pages():
    from modules.response import load_pages

    return load_pages(SAMPLES / "pages.jsonl")


def write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def monitor_samples(providers, run_id, data_dir):
    """A weekly monitor of the sample query set against the sample site's pages, its providers on
    a short timeout and backoff (a fake assistant answers at once)."""
    from flows.monitor import monitor

    return monitor(
        str(SAMPLES / "queries.jsonl"),
        str(SAMPLES / "pages.jsonl"),
        providers,
        run_id=run_id,
        data_dir=data_dir,
        defaults={"timeout_s": 5, "backoff_s": 0.05},
    )


def first_lines(source: Path, n: int, folder: Path) -> Path:
    """The labeled set ``source`` cut to its first ``n`` examples, under its own name in ``folder``."""
    path = folder / source.name
    path.write_text("\n".join(source.read_text().splitlines()[:n]) + "\n")
    return path


def optimize_under(tmp_path: Path, node: str, optimizer: str = "labeled", **kwargs):
    """``optimize_node`` with its compiled programs in ``tmp_path / "compiled"`` and its runs in
    ``tmp_path / "data"``."""
    from flows.optimize import optimize_node

    return optimize_node(
        node,
        optimizer=optimizer,
        programs_dir=str(tmp_path / "compiled"),
        data_dir=str(tmp_path / "data"),
        **kwargs,
    )


def trees_probability(spec: dict, row: list[float]) -> float:
    """The probability a shipped trees model (``checker/claim-*.json``) gives ``row``, read from
    the JSON as written (a row goes left at or below a node's threshold), apart from the
    runtime's reader."""

    def leaf(tree: dict) -> float:
        node = 0
        while tree["feature"][node] != -1:
            node = tree["left" if row[tree["feature"][node]] <= tree["threshold"][node] else "right"][node]
        return tree["value"][node]

    return 1 / (1 + math.exp(-(spec["baseline"] + sum(leaf(t) for t in spec["trees"]))))
