"""``sleuth completion bash``, run in a real bash as the shell runs a ``complete -F`` function."""

import shutil
import subprocess

import pytest

from flows.cli import build_parser, main
from flows.cli.completion import bash_script

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="no bash on this machine")


def _complete(*words: str) -> list[str]:
    """What bash offers for the command line ``words`` (the last one is being typed)."""
    line = " ".join(f"'{w}'" for w in words)
    program = f"{bash_script(build_parser())}\nCOMP_WORDS=({line}); COMP_CWORD={len(words) - 1}\n"
    program += '_sleuth_complete; printf "%s\\n" "${COMPREPLY[@]}"\n'
    done = subprocess.run(["bash", "--norc", "--noprofile", "-c", program], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return [w for w in done.stdout.splitlines() if w]


def test_completes_commands_options_and_choices():
    assert _complete("sleuth", "ana") == ["analyze"]
    assert set(_complete("sleuth", "re")) == {
        "reanalyze",
        "research",
        "research-batch",
        "rerank",
        "rerank-batch",
        "report",
    }
    assert _complete("sleuth", "analyze", "x.jsonl", "--ground") == ["--ground-truth"]
    assert _complete("sleuth", "analyze", "--chunking", "s") == ["sentences"]
    assert _complete("sleuth", "queries", "gen") == ["generate"]  # a nested command
    assert "--allow-drafts" not in _complete("sleuth", "queries", "generate", "--")
    assert _complete("sleuth", "runs", "--kind", "mon") == ["monitor"]
    assert _complete("sleuth", "--de") == ["--debug"]
    assert _complete("sleuth", "analyze", "datasets/sam") == []  # file names: bash's default (-o default)


def test_the_commands_print_the_scripts(capsys):
    assert main(["completion", "bash"]) == 0
    bash = capsys.readouterr().out
    assert "complete -o default -F _sleuth_complete sleuth" in bash
    assert main(["completion", "zsh"]) == 0
    zsh = capsys.readouterr().out
    assert zsh.startswith("autoload -U +X compinit") and zsh.endswith(bash)
