"""AI providers: a query set asked of one or more assistants (any LiteLLM model string), politely
and accountably: per-provider limits, retries, cost, checkpoints, and the tables of what they
answered."""

from ..facade import lazy_exports, lazy_names
from .collect import KEPT_STATUSES, Answer, Cancellation, ProviderRun, ask_provider, ask_providers
from .spec import ProviderSpec, parse_provider

#: each module of the package and the names it offers that the package does not import itself
_HOMES = """
    plan: CollectionPlan checkpoint_answer plan_collection provider_specs specs_json start_checkpoint
    tables: COLLECTIONS_SCHEMA RESPONSES_SCHEMA collection_row response_rows
"""
__all__ = [
    "Answer",
    "Cancellation",
    "KEPT_STATUSES",
    "ProviderRun",
    "ProviderSpec",
    "ask_provider",
    "ask_providers",
    "parse_provider",
    *lazy_names(_HOMES),
]
__getattr__ = lazy_exports(__name__, _HOMES)
