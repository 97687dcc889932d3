"""AI providers: a query set asked of one or more assistants (any LiteLLM model string), politely
and accountably: per-provider limits, retries, cost, checkpoints, and the tables of what they
answered."""

from ..facade import lazy_exports
from .collect import KEPT_STATUSES, Answer, Cancellation, ProviderRun, ask_provider, ask_providers
from .spec import ProviderSpec, parse_provider

#: what the package offers beyond what it imports itself, and the module each name lives in
_HOMES = {
    "COLLECTIONS_SCHEMA": "tables",
    "CollectionPlan": "plan",
    "RESPONSES_SCHEMA": "tables",
    "checkpoint_answer": "plan",
    "collection_row": "tables",
    "plan_collection": "plan",
    "provider_specs": "plan",
    "response_rows": "tables",
    "specs_json": "plan",
    "start_checkpoint": "plan",
}
__all__ = [
    "Answer",
    "Cancellation",
    "KEPT_STATUSES",
    "ProviderRun",
    "ProviderSpec",
    "ask_provider",
    "ask_providers",
    "parse_provider",
    *_HOMES,
]
__getattr__ = lazy_exports(__name__, _HOMES)
