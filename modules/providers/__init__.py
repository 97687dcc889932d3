"""AI providers: a query set asked of one or more assistants (any LiteLLM model string), politely
and accountably: per-provider limits, retries, cost, checkpoints, and the tables of what they
answered."""

from .collect import (
    KEPT_STATUSES,
    Answer,
    Cancellation,
    ProviderRun,
    ask_provider,
    ask_providers,
)
from .plan import (
    CollectionPlan,
    checkpoint_answer,
    plan_collection,
    provider_specs,
    specs_json,
    start_checkpoint,
)
from .spec import ProviderSpec, parse_provider
from .tables import (
    COLLECTIONS_SCHEMA,
    RESPONSES_SCHEMA,
    collection_row,
    response_rows,
)

__all__ = [
    "Answer",
    "COLLECTIONS_SCHEMA",
    "Cancellation",
    "CollectionPlan",
    "KEPT_STATUSES",
    "ProviderRun",
    "ProviderSpec",
    "RESPONSES_SCHEMA",
    "ask_provider",
    "ask_providers",
    "checkpoint_answer",
    "collection_row",
    "parse_provider",
    "plan_collection",
    "provider_specs",
    "response_rows",
    "specs_json",
    "start_checkpoint",
]
