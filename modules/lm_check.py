"""Whether an LM (``--lm``) or an AI provider (``--provider``) can answer, checked before any work.

Without this a run with no key, a stopped server or a misspelt model searches, encodes and calls
for minutes, every LM step falls back, and the cause is buried in a table. The check is one cheap
request where the endpoint lists its models (an OpenAI-compatible server's ``/models``, or the
provider's own listing, sent with the key: that proves the key, the network and the model name at
once), else the provider's key rule. Kept free of DSPy and (for the providers below) LiteLLM, whose
imports alone take seconds, so that a missing key is one line at once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import httpx

#: How long the check waits for an endpoint: a server that takes longer to list its models would
#: time out on the first real call too.
TIMEOUT_S = 2.5


class LMUnavailableError(ValueError):
    """The LM or provider cannot answer; the message names the variable, URL or model to fix."""


@dataclass(frozen=True)
class _Provider:
    """A hosted provider: the variables its key is read from (LiteLLM's names, first preferred)
    and the URL that lists the models the key may use."""

    key_envs: tuple[str, ...]
    models_url: str | None = None
    style: str = "openai"  # how the listing is asked for and read: openai | anthropic | gemini


PROVIDERS: dict[str, _Provider] = {
    "openai": _Provider(("OPENAI_API_KEY",), "https://api.openai.com/v1/models"),
    "anthropic": _Provider(("ANTHROPIC_API_KEY",), "https://api.anthropic.com/v1/models", "anthropic"),
    "gemini": _Provider(
        ("GEMINI_API_KEY",), "https://generativelanguage.googleapis.com/v1beta/models", "gemini"
    ),
    "groq": _Provider(("GROQ_API_KEY",), "https://api.groq.com/openai/v1/models"),
    "mistral": _Provider(("MISTRAL_API_KEY",), "https://api.mistral.ai/v1/models"),
    "deepseek": _Provider(("DEEPSEEK_API_KEY",), "https://api.deepseek.com/models"),
    "openrouter": _Provider(("OPENROUTER_API_KEY",), "https://openrouter.ai/api/v1/models"),
    "xai": _Provider(("XAI_API_KEY",), "https://api.x.ai/v1/models"),
    "together_ai": _Provider(
        ("TOGETHERAI_API_KEY", "TOGETHER_API_KEY"), "https://api.together.xyz/v1/models"
    ),
    "perplexity": _Provider(("PERPLEXITYAI_API_KEY", "PERPLEXITY_API_KEY")),
}
#: Providers that run on the user's machine and need no key (LiteLLM's default URL, listing).
LOCAL_PROVIDERS: dict[str, tuple[str, str]] = {
    "ollama": ("http://localhost:11434", "/api/tags"),
    "ollama_chat": ("http://localhost:11434", "/api/tags"),
}
LOCAL_HINT = "or use the local model: --lm local"


def check(
    model: str,
    base_url: str | None = None,
    api_key: str | None = None,
    key_env: str | None = None,
    what: str = "--lm",
) -> None:
    """Raise :class:`LMUnavailableError` unless ``model`` can be called: at ``base_url`` (an
    OpenAI-compatible server, whose key is optional) or at its provider, with the key from
    ``key_env`` or the provider's variable. ``what`` names the option in the message."""
    if base_url:
        _check_server(model, base_url.rstrip("/"), api_key, what)
        return
    provider, name = model.split("/", 1) if "/" in model else ("", model)
    if provider in LOCAL_PROVIDERS:
        url, listing = LOCAL_PROVIDERS[provider]
        _listed(model, name, url + listing, {}, what, style="ollama")
        return
    known = PROVIDERS.get(provider)
    if known is None:
        provider, known = _litellm_provider(model, key_env, what)
        if known is None:
            return
        name = model.split("/", 1)[1] if model.startswith(provider + "/") else model
    envs = (key_env,) if key_env else known.key_envs
    key = next((os.environ[e] for e in envs if os.environ.get(e)), None)
    if not key:
        raise LMUnavailableError(
            f"{what} {model}: no API key: set {' or '.join(envs)}"
            + (f" ({LOCAL_HINT})" if what == "--lm" else "")
        )
    if known.models_url:
        headers, url = _auth(known.style, key, known.models_url)
        _listed(model, name, url, headers, what, style=known.style, key_env=envs[0])


def _auth(style: str, key: str, url: str) -> tuple[dict[str, str], str]:
    if style == "anthropic":
        return {"x-api-key": key, "anthropic-version": "2023-06-01"}, url
    if style == "gemini":
        return {"x-goog-api-key": key}, url + "?pageSize=1000"
    return {"Authorization": f"Bearer {key}"}, url


def _check_server(model: str, base_url: str, api_key: str | None, what: str) -> None:
    key = api_key or os.environ.get("SLEUTH_LM_API_KEY") or os.environ.get("OPENAI_API_KEY")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    name = model.split("/", 1)[1] if "/" in model else model
    _listed(model, name, base_url + "/models", headers, what, style="openai", key_env="SLEUTH_LM_API_KEY")


def _listed(
    model: str,
    name: str,
    url: str,
    headers: dict[str, str],
    what: str,
    style: str,
    key_env: str | None = None,
) -> None:
    """One GET of the models listing: unreachable, a refused key and an unlisted model raise;
    an endpoint without a listing (404, or a shape not known) passes."""
    try:
        response = httpx.get(url, headers=headers, timeout=TIMEOUT_S)
    except httpx.HTTPError as exc:
        reason = str(exc) or type(exc).__name__
        hint = "; start it with: sleuth lm start" if "127.0.0.1" in url or "localhost" in url else ""
        raise LMUnavailableError(f"{what} {model}: cannot reach {url} ({reason}){hint}") from None
    if response.status_code in (401, 403):
        raise LMUnavailableError(
            f"{what} {model}: {url} refused the key (HTTP {response.status_code})"
            + (f": check {key_env}" if key_env else "")
        )
    if response.status_code != 200:
        return
    try:
        served = _model_ids(response.json(), style)
    except (ValueError, TypeError, AttributeError, KeyError):
        return
    if served and name not in served:
        shown = ", ".join(sorted(served)[:8]) + (", ..." if len(served) > 8 else "")
        raise LMUnavailableError(f"{what} {model}: {url} does not serve {name!r} (it serves: {shown})")


def _model_ids(body: dict, style: str) -> set[str]:
    """The model names a listing holds, with the aliases an OpenAI-compatible server answers to."""
    if style == "gemini":
        return {m["name"].removeprefix("models/") for m in body.get("models", [])}
    if style == "ollama":
        return {n for m in body.get("models", []) for n in (m["name"], m["name"].removesuffix(":latest"))}
    ids = set()
    for m in body.get("data", []):
        ids.add(m["id"])
        ids.update(m.get("aliases") or [])
    return ids


def _litellm_provider(model: str, key_env: str | None, what: str) -> tuple[str, _Provider | None]:
    """A model string outside :data:`PROVIDERS`: LiteLLM names its provider (or rejects it) and,
    for a provider not listed here, applies its own key rule."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    try:
        provider = litellm.get_llm_provider(model)[1]
    except Exception:  # noqa: BLE001 - LiteLLM raises its BadRequestError for an unknown provider
        raise LMUnavailableError(
            f"{what} {model}: not a model LiteLLM knows: use provider/model, e.g. openai/gpt-4o-mini"
            + (f" ({LOCAL_HINT})" if what == "--lm" else "")
        ) from None
    if provider in PROVIDERS:
        return provider, PROVIDERS[provider]
    if key_env:
        if not os.environ.get(key_env):
            raise LMUnavailableError(f"{what} {model}: no API key: set {key_env}")
        return provider, None
    missing = litellm.validate_environment(model).get("missing_keys") or []
    if missing:
        raise LMUnavailableError(f"{what} {model}: no credentials: set {' and '.join(missing)}")
    return provider, None
