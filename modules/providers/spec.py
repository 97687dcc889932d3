"""A provider as a DSPy/LiteLLM model string plus how to call it.

On the command line: ``MODEL[,key=value...]``, e.g. ``openai/gpt-4o-mini``,
``anthropic/claude-sonnet-4-5,rpm=50``, ``ollama_chat/llama3.1``, or an OpenAI-compatible server
``openai/qwen2.5,base_url=http://127.0.0.1:8080/v1,label=local-qwen``.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, fields
from urllib.parse import urlparse


@dataclass(frozen=True)
class ProviderSpec:
    model: str  # any LiteLLM model string: provider/model
    base_url: str | None = None  # an OpenAI-compatible endpoint (llama.cpp, vLLM, Ollama, a gateway)
    label: str | None = (
        None  # the `provider` recorded in tables (default: the model's prefix, or the base URL's host)
    )
    api_key_env: str | None = (
        None  # environment variable holding the key (default: LiteLLM's own, e.g. OPENAI_API_KEY)
    )
    temperature: float | None = None  # None: the provider's default, as an assistant's users get it
    max_tokens: int = 1024
    system_prompt: str | None = None  # None: the query alone, as a user would type it
    concurrency: int = 4  # calls in flight at once for this provider
    rpm: float | None = None  # requests per minute; None: no limit but the provider's own 429s
    timeout_s: float = 60.0
    retries: int = 3  # retries of a transient failure (rate limit, timeout, connection, 5xx)
    backoff_s: float = 1.0  # first backoff; doubles per retry, with jitter
    max_wait_s: float = 60.0  # the longest Retry-After or backoff honoured before giving up
    abort_after: int = (
        3  # permanent failures (auth, unknown model) with no success before the rest are skipped
    )
    # ask the provider to search the web and cite its sources (LiteLLM's ``web_search_options``:
    # Anthropic's web_search tool, Gemini's googleSearch); Perplexity and OpenAI's search models
    # search anyway, other models may reject it
    web_search: bool = False

    def __post_init__(self):
        if not self.model or "/" not in self.model and not self.base_url:
            raise ValueError(
                f"provider {self.model!r}: use a LiteLLM model string such as openai/gpt-4o-mini "
                "(or give base_url for an OpenAI-compatible server)"
            )
        for name in ("concurrency", "max_tokens", "abort_after"):
            if getattr(self, name) < 1:
                raise ValueError(f"provider {self.model}: {name} must be >= 1")
        for name in ("timeout_s", "max_wait_s"):
            if getattr(self, name) <= 0:
                raise ValueError(f"provider {self.model}: {name} must be > 0")
        if self.retries < 0 or self.backoff_s < 0 or (self.rpm is not None and self.rpm <= 0):
            raise ValueError(f"provider {self.model}: retries and backoff must be >= 0, rpm > 0")
        if self.base_url and urlparse(self.base_url).scheme not in ("http", "https"):
            raise ValueError(f"provider {self.model}: base_url must be an http(s) URL, got {self.base_url!r}")

    @property
    def provider(self) -> str:
        if self.label:
            return self.label
        if self.base_url:
            parsed = urlparse(self.base_url)
            return parsed.netloc or self.base_url
        return self.model.split("/", 1)[0]

    @property
    def model_name(self) -> str:
        return self.model.split("/", 1)[1] if "/" in self.model else self.model

    @property
    def key(self) -> tuple[str, str]:
        return (self.provider, self.model_name)

    def parameters(self) -> dict:
        """What shapes the answer, recorded with every response."""
        return {
            "model": self.model,
            "base_url": self.base_url,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "system_prompt": self.system_prompt,
            "web_search": self.web_search,
        }

    def api_key(self) -> str | None:
        if self.api_key_env:
            key = os.environ.get(self.api_key_env)
            if not key:
                raise ValueError(f"provider {self.model}: environment variable {self.api_key_env} is not set")
            return key
        if self.base_url:  # local servers often need no key, but the OpenAI client insists on one
            return os.environ.get("SLEUTH_LM_API_KEY") or "none"
        return None  # LiteLLM reads the provider's usual variable

    def as_dict(self) -> dict:
        return asdict(self)


_ALIASES = {
    "timeout": "timeout_s",
    "backoff": "backoff_s",
    "max_wait": "max_wait_s",
    "key_env": "api_key_env",
}
_FLOATS = {"temperature", "rpm", "timeout_s", "backoff_s", "max_wait_s"}
_INTS = {"max_tokens", "concurrency", "retries", "abort_after"}
_BOOLS = {"web_search"}
_TRUTH = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}


def parse_provider(text: str, **defaults) -> ProviderSpec:
    """``MODEL[,key=value...]`` -> ProviderSpec; ``defaults`` (from command-line options) apply
    unless the spec sets the same key."""
    model, *pairs = [p.strip() for p in text.split(",")]
    known = {f.name for f in fields(ProviderSpec)} - {"model"}
    values = {k: v for k, v in defaults.items() if v is not None}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        key = _ALIASES.get(key.strip(), key.strip())
        if not sep or key not in known:
            raise ValueError(
                f"provider {text!r}: expected key=value with key in {sorted(known)}, got {pair!r}"
            )
        if key in _BOOLS:
            if raw.strip().lower() not in _TRUTH:
                raise ValueError(f"provider {text!r}: {key} must be true or false, got {raw!r}")
            values[key] = _TRUTH[raw.strip().lower()]
            continue
        try:
            values[key] = float(raw) if key in _FLOATS else int(raw) if key in _INTS else raw.strip()
        except ValueError:
            raise ValueError(f"provider {text!r}: {key} must be a number, got {raw!r}") from None
    return ProviderSpec(model=model, **values)


def unique_specs(specs: list[ProviderSpec]) -> list[ProviderSpec]:
    """Providers must be told apart in the tables: the same (provider, model) twice needs a label."""
    seen: dict[tuple[str, str], ProviderSpec] = {}
    for spec in specs:
        if spec.key in seen:
            raise ValueError(
                f"provider {spec.model} is given twice as {spec.key}; add label=NAME to tell them apart"
            )
        seen[spec.key] = spec
    if not specs:
        raise ValueError("no provider: give at least one --provider MODEL")
    return specs


__all__ = ["ProviderSpec", "parse_provider", "unique_specs"]
