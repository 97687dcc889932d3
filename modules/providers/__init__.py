"""AI provider abstraction: ask a query set of one or more assistants, politely and accountably."""

from .spec import ProviderSpec, parse_provider
from .collect import Answer, ProviderRun, ask_provider

__all__ = ["Answer", "ProviderRun", "ProviderSpec", "ask_provider", "parse_provider"]
