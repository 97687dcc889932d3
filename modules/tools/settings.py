"""Keys and endpoints for the tool nodes: from the environment or a TOML config file.

Never from code. The config file is ``$SLEUTH_CONFIG`` (default ``./sleuth.toml`` when it
exists), for example::

    [search.google]
    api_key = "..."
    cx = "..."

    [search.serper]
    api_key = "..."

    [search.searxng]
    url = "http://127.0.0.1:8888"

An environment variable wins over the file.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any


class MissingSetting(ValueError):
    """A required key or URL is configured nowhere; the message names the variable."""


def load_config(path: str | os.PathLike | None = None) -> dict[str, Any]:
    path = (
        path or os.environ.get("SLEUTH_CONFIG") or ("sleuth.toml" if Path("sleuth.toml").exists() else None)
    )
    if not path:
        return {}
    try:
        return tomllib.loads(Path(path).read_text())
    except FileNotFoundError:
        raise MissingSetting(f"config file not found: {path} (from SLEUTH_CONFIG)") from None
    except tomllib.TOMLDecodeError as exc:
        raise MissingSetting(f"config file {path} is not valid TOML: {exc}") from None


def setting(
    env: str, section: str, key: str, config: dict[str, Any] | None = None, *, required: bool = True
) -> str | None:
    """``$env``, else ``[section] key`` of the config file; a clear error if required and absent."""
    value = os.environ.get(env)
    if not value:
        node: Any = load_config() if config is None else config
        for part in section.split("."):
            node = node.get(part, {}) if isinstance(node, dict) else {}
        value = node.get(key) if isinstance(node, dict) else None
    if required and not value:
        raise MissingSetting(
            f"{env} is not set: export {env}=... or set [{section}] {key} in the config file (SLEUTH_CONFIG)"
        )
    return value or None
