"""Imports point one way: ``flows`` -> ``modules``; ``evals`` and ``tests`` may use both; nothing
else uses ``evals``. Within ``modules/`` and ``flows/`` every first-party import is at the top of its
module (none hidden in a function to dodge a cycle), and the module-level import graph has no cycle.

The rules read the source with ``ast``; nothing is imported."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

FIRST_PARTY = ("modules", "flows", "evals", "tests")
PRODUCT = ("modules", "flows")

#: Who may import whom, by top-level folder: an import of a first-party folder not listed fails.
ALLOWED = {
    "modules": {"modules"},
    "flows": {"flows", "modules"},
    "evals": {"evals", "modules", "flows"},  # scripts: evals and benchmarks
    "tests": {"tests", "modules", "flows", "evals"},
}

#: Files of modules/ or flows/ allowed to import first-party modules inside a function, with why.
#: Keep it short: a lazy import is for a genuinely heavy import, never to dodge a cycle (the
#: acyclic-graph test below would not see one). Third-party imports are not checked at all.
LAZY_FIRST_PARTY = {
    # The `sleuth` CLI (the package flows/cli/: main, and one module per command area): each
    # command handler imports its flow or module when it runs, so that `sleuth --help`, an option
    # error or `sleuth runs` answer in ~0.1 s instead of the ~5 s Prefect, DSPy and torch take to
    # import, and so that main() sets HF_HUB_OFFLINE and Prefect's analytics switch before any of
    # them is imported. options.py and output.py import nothing first-party.
    "flows/cli/__init__.py",
    "flows/cli/analysis.py",
    "flows/cli/optimize.py",
    "flows/cli/queries.py",
    "flows/cli/rerank.py",
    "flows/cli/research.py",
    "flows/cli/runs.py",
    "flows/cli/server.py",
    "flows/cli/lm.py",
    "flows/cli/completion.py",
    "flows/cli/verdicts.py",
}


def _sources() -> list[Path]:
    return sorted(p for top in FIRST_PARTY for p in (ROOT / top).rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(node: ast.Import | ast.ImportFrom, path: Path) -> list[str]:
    """The absolute module names an import statement names (``from X import Y``: ``X.Y`` as well,
    Y may be a submodule)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level:
        package = _module_name(path).split(".")
        if path.name != "__init__.py":
            package = package[:-1]
        base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    return [base] + [f"{base}.{a.name}" for a in node.names]


def _imports(path: Path) -> list[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement of a file, and whether it sits inside a function."""
    found: list[tuple[ast.Import | ast.ImportFrom, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append((child, in_function))
            visit(
                child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            )

    visit(ast.parse(path.read_text(encoding="utf-8"), str(path)), False)
    return found


def _where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(ROOT).as_posix()}:{node.lineno}"


def test_the_sources_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in _sources()}
    assert {
        "flows/runtime.py",
        "modules/store/runs.py",
        "evals/build_sets.py",
        "tests/test_architecture.py",
    } <= names
    assert all((ROOT / f).exists() for f in LAZY_FIRST_PARTY)


def test_imports_point_one_way():
    """modules never imports flows, evals or tests; flows never evals or tests; only evals and
    tests import evals."""
    wrong = []
    for path in _sources():
        top = path.relative_to(ROOT).parts[0]
        for node, _ in _imports(path):
            for name in _imported(node, path)[:1]:
                root = name.split(".")[0]
                if root in FIRST_PARTY and root not in ALLOWED[top]:
                    wrong.append(f"{_where(path, node)} ({top} imports {name})")
    assert not wrong, "imports that point the wrong way:\n" + "\n".join(wrong)


def test_no_function_level_first_party_imports():
    """A first-party import inside a function hides a dependency (and, often, a cycle)."""
    hidden = []
    for path in _sources():
        rel = path.relative_to(ROOT)
        if rel.parts[0] not in PRODUCT or rel.as_posix() in LAZY_FIRST_PARTY:
            continue
        for node, in_function in _imports(path):
            name = _imported(node, path)[0]
            if in_function and name.split(".")[0] in FIRST_PARTY:
                hidden.append(f"{_where(path, node)} ({name})")
    assert not hidden, "first-party imports inside functions (move them to the top):\n" + "\n".join(hidden)


def _graph() -> dict[str, set[str]]:
    """Module -> the first-party modules it imports at module level (modules/ and flows/)."""
    files = {_module_name(p): p for p in _sources() if p.relative_to(ROOT).parts[0] in PRODUCT}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        targets = set()
        for node, in_function in _imports(path):
            if in_function:
                continue
            base, *members = _imported(node, path)
            submodules = [m for m in members if m in files]
            targets.update(submodules or ([base] if base in files else []))
        graph[name] = targets - {name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = 2
        path.pop()
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_the_module_import_graph_has_no_cycle():
    cycle = _cycle(_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


@pytest.mark.parametrize(
    "source, problem",
    [
        ("import flows.runtime\n", "wrong way"),
        ("from evals import hotpot\n", "wrong way"),
        ("def f():\n    from modules import text\n", "function"),
        ("def f():\n    from . import text\n", "function"),
        ("def f():\n    import numpy\n", None),
    ],
)
def test_the_rules_catch_what_they_say(tmp_path, monkeypatch, source, problem):
    """The checks above, on a planted file under modules/."""
    fake_root = tmp_path / "root"
    (fake_root / "modules").mkdir(parents=True)
    (fake_root / "modules" / "planted.py").write_text(source)
    for top in ("flows", "evals", "tests"):
        (fake_root / top).mkdir()
    monkeypatch.setattr(sys.modules[__name__], "ROOT", fake_root)
    failures = []
    for check in (test_imports_point_one_way, test_no_function_level_first_party_imports):
        try:
            check()
        except AssertionError as exc:
            failures.append(str(exc))
    if problem is None:
        assert not failures
    else:
        assert len(failures) == 1 and (("wrong way" in failures[0]) == (problem == "wrong way")), failures


def test_a_cycle_is_found():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_no_private_names_imported_across_modules():
    """A leading underscore marks a name as its module's own: modules/, flows/ and evals/ never
    import one from another module (a helper two modules share gets a public name in its home;
    tests may import one to test it directly)."""
    private = []
    for path in _sources():
        if path.relative_to(ROOT).parts[0] == "tests":
            continue
        for node, _ in _imports(path):
            if isinstance(node, ast.ImportFrom):
                names = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
                private += [f"{_where(path, node)} ({node.module or '.'}.{n})" for n in names]
    assert not private, "private names imported from another module:\n" + "\n".join(private)


def _packages() -> list[Path]:
    """The packages of modules/ (folders with Python files)."""
    return sorted(p for p in (ROOT / "modules").iterdir() if p.is_dir() and any(p.glob("*.py")))


def _declared_all(package: Path) -> list[str]:
    """The package's ``__all__`` (importing the package loads only what it imports itself)."""
    import importlib

    if not (package / "__init__.py").exists():
        return []
    return list(getattr(importlib.import_module(f"modules.{package.name}"), "__all__", []))


def test_every_package_of_modules_has_a_facade():
    """Each package of modules/ says what it offers: an ``__init__.py`` with ``__all__``, every
    name of which exists (a name the facade imports, or a submodule it exposes as it is)."""
    import importlib

    missing = [p.name for p in _packages() if not _declared_all(p)]
    assert not missing, f"packages without __init__.py and __all__: {missing}"
    for package in _packages():
        module = importlib.import_module(f"modules.{package.name}")
        for name in _declared_all(package):
            assert hasattr(module, name) or (package / f"{name}.py").exists(), (
                f"modules.{package.name}.{name}"
            )


def test_flows_import_modules_through_the_facades():
    """flows/ imports a package of modules/ only through its facade (``from modules.research
    import X``, X in its ``__all__``), never a module inside it; a single-file module
    (``modules.lm``, ``modules.text``) is its own facade."""
    facades = {p.name: set(_declared_all(p)) for p in _packages()}
    wrong = []
    for path in sorted((ROOT / "flows").rglob("*.py")):
        for node, _ in _imports(path):
            if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith("modules"):
                continue
            parts = node.module.split(".")
            if len(parts) > 2 and parts[1] in facades:
                wrong.append(f"{_where(path, node)} (from {node.module})")
            elif len(parts) == 2 and parts[1] in facades:
                wrong += [
                    f"{_where(path, node)} ({node.module}.{a.name} not in its __all__)"
                    for a in node.names
                    if a.name not in facades[parts[1]]
                ]
    assert not wrong, "flows imports past a facade:\n" + "\n".join(wrong)


def test_a_light_module_does_not_load_its_whole_package():
    """Facades load what they offer on first use: a report reading a research run's rendering,
    or a query set's attribution check, imports neither DSPy nor the research loop."""
    import subprocess

    probe = (
        "import sys, modules.research.render, modules.response.attribution, modules.relevance.schema, "
        "modules.tools.settings; "
        "print(sorted(m for m in ('dspy', 'modules.research.loop', 'modules.research.session', "
        "'modules.relevance.analyzer') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout
