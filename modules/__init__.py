"""sleuth's nodes and their building blocks (embeddings, text, response analysis, storage)."""

import os

# LiteLLM (under DSPy and the AI-provider client) fetches its model price map from GitHub on
# import; sleuth is offline by default, so it uses the map bundled with the package unless the
# user asks otherwise (set LITELLM_LOCAL_MODEL_COST_MAP=False).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

__version__ = "0.1.0"
