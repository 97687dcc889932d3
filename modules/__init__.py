"""sleuth's nodes and their building blocks (embeddings, text, response analysis, storage)."""

__version__ = "0.1.0"
