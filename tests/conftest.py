import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "datasets" / "samples"
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# Flow commands run on a temporary Prefect server each, as before the shared local server: no
# test leaves a server behind. tests/test_local_server.py turns it on, and stops what it starts.
os.environ["SLEUTH_LOCAL_SERVER"] = "0"


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
