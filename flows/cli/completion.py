"""completion: shell completion generated from the argparse parser itself, so it always knows
the commands, options and choices this version has (no extra dependency)."""

from __future__ import annotations

import argparse
import shlex

from .options import command


def _commands(parser: argparse.ArgumentParser, path: str = "") -> dict[str, argparse.ArgumentParser]:
    """Every (sub)command's parser by its path: ``""``, ``"/analyze"``, ``"/queries/generate"``."""
    found = {path: parser}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.update(_commands(sub, f"{path}/{name}"))
    return found


def _words(parser: argparse.ArgumentParser) -> tuple[list[str], list[str], dict[str, list[str]]]:
    """(subcommands and positional choices, options, choices of each option that takes one)."""
    words, options, choices = [], [], {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            words += list(action.choices)
        elif not action.option_strings:
            words += [str(c) for c in action.choices or []]
        elif action.help != argparse.SUPPRESS:
            options += [o for o in action.option_strings if o.startswith("--")] or action.option_strings
            if action.choices:
                for o in action.option_strings:
                    choices[o] = [str(c) for c in action.choices]
    return words, options, choices


_EMPTY = '""'


def bash_script(parser: argparse.ArgumentParser) -> str:
    """A bash ``complete -F`` function for ``parser.prog``: subcommands, then options (``-``),
    an option's choices after it, file names where nothing else fits."""
    prog = parser.prog
    func = "_" + prog.replace("-", "_") + "_complete"
    commands = _commands(parser)
    paths = [p for p in commands if p]
    walk = "|".join(shlex.quote(p) for p in paths)
    cases, value_cases = [], []
    for path, sub in commands.items():
        words, options, choices = _words(sub)
        cases.append(
            f"    {shlex.quote(path) or _EMPTY}) words={shlex.quote(' '.join(words))}; "
            f"options={shlex.quote(' '.join(options))} ;;"
        )
        for option, values in choices.items():
            value_cases.append(
                f"    {shlex.quote(path + ' ' + option)}) COMPREPLY=($(compgen -W "
                f'{shlex.quote(" ".join(values))} -- "$cur")); return ;;'
            )
    return "\n".join(
        [
            f'# bash completion for {prog}: eval "$({prog} completion bash)"',
            f"{func}() {{",
            '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" path="" i words options',
            "  for ((i = 1; i < COMP_CWORD; i++)); do",
            '    case "$path/${COMP_WORDS[i]}" in',
            f'      {walk}) path="$path/${{COMP_WORDS[i]}}" ;;',
            "    esac",
            "  done",
            '  case "$path $prev" in',
            *value_cases,
            "  esac",
            '  case "$path" in',
            *cases,
            "  esac",
            '  if [[ "$cur" == -* ]]; then',
            '    COMPREPLY=($(compgen -W "$options" -- "$cur"))',
            "  else",
            '    COMPREPLY=($(compgen -W "$words" -- "$cur"))',
            "  fi",
            "}",
            f"complete -o default -F {func} {prog}",
            "",
        ]
    )


def cmd_completion(args: argparse.Namespace) -> int:
    """print a shell completion script (commands, options, choices)

    Load it in the shell's startup file: bash: eval "$(sleuth completion bash)"; zsh: eval
    "$(sleuth completion zsh)".
    """
    from . import build_parser

    script = bash_script(build_parser())
    if args.shell == "zsh":  # zsh runs bash completion functions through bashcompinit
        script = "autoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n" + script
    print(script, end="")
    return 0


def register(sub) -> None:
    command(sub, "completion", cmd_completion).add_argument("shell", choices=["bash", "zsh"])
