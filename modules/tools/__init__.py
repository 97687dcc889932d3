"""The research agent's tool nodes: web and local search, and the crawler."""
