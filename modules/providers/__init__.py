"""AI provider abstraction: ask a query set of one or more assistants, politely and accountably."""

from .collect import Answer, Cancellation, ProviderRun, ask_provider, ask_providers
from .spec import ProviderSpec, parse_provider

__all__ = [
    "Answer",
    "Cancellation",
    "ProviderRun",
    "ProviderSpec",
    "ask_provider",
    "ask_providers",
    "parse_provider",
]
