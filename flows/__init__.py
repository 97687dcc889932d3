"""Prefect flows: orchestration only (tasks, retries, artifacts); the work lives in modules/."""
