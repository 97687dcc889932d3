"""The LM runner: a node runs its DSPy program when an LM is configured, else (or on failure) its
baseline. Shared by every node (research, relevance, the response judge, query drafting).

LM output that stays unparseable after ``retries`` attempts, and LM transport errors, make the
node run its baseline program instead; the step records ``fallback`` and why.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import dspy


@dataclass
class LMSettings:
    """``--lm`` / ``SLEUTH_LM`` (any DSPy/LiteLLM model string) and an optional OpenAI-compatible base URL."""

    model: str | None = None
    base_url: str | None = None
    retries: int = 2
    timeout_s: float = 60.0
    max_tokens: int = 1500

    @classmethod
    def from_env(cls, model: str | None = None, base_url: str | None = None) -> LMSettings:
        return cls(
            model=model or os.environ.get("SLEUTH_LM") or None,
            base_url=base_url or os.environ.get("SLEUTH_LM_BASE_URL") or None,
        )

    def build(self) -> dspy.LM | None:
        if not self.model:
            return None
        kwargs: dict[str, Any] = {
            "num_retries": 0,
            "timeout": self.timeout_s,
            "max_tokens": self.max_tokens,
            "cache": False,
        }
        if self.base_url:
            kwargs["api_base"] = self.base_url
            kwargs.setdefault(
                "api_key", os.environ.get("SLEUTH_LM_API_KEY") or os.environ.get("OPENAI_API_KEY") or "none"
            )
        return dspy.LM(self.model, **kwargs)


@dataclass
class NodeCall:
    """What one node call produced, and how."""

    output: Any
    fallback: bool = False
    error: str | None = None
    tokens: int = 0
    cost_usd: float = 0.0
    attempts: int = 0


@dataclass
class NodeRunner:
    """Runs a node's DSPy program on ``lm`` with ``retries``, falling back to its baseline; holds
    the tokens and cost its calls have spent (``usage``), shared by the nodes of a run."""

    lm: dspy.LM | None = None
    retries: int = 2
    usage: dict[str, float] = field(default_factory=lambda: {"tokens": 0, "cost_usd": 0.0})

    def run(
        self,
        program: dspy.Module | None,
        inputs: dict[str, Any],
        output_field: str,
        baseline: Callable[[], Any],
    ) -> NodeCall:
        if self.lm is None or program is None:
            return NodeCall(output=baseline())
        error = None
        before = len(self.lm.history)
        for attempt in range(1, self.retries + 2):
            try:
                with dspy.context(lm=self.lm):
                    prediction = program(**inputs)
                return NodeCall(
                    output=getattr(prediction, output_field), attempts=attempt, **self._spent(before)
                )
            except (
                dspy.utils.exceptions.AdapterParseError,
                ValueError,
            ) as exc:  # unparseable or invalid output
                error = f"unparseable LM output: {str(exc)[:300]}"
            except dspy.utils.exceptions.LMError as exc:
                error = f"LM error: {type(exc).__name__}: {str(exc)[:300]}"
            except Exception as exc:  # provider exceptions arrive through litellm in many types
                error = f"LM call failed: {type(exc).__name__}: {str(exc)[:300]}"
        return NodeCall(
            output=baseline(), fallback=True, error=error, attempts=self.retries + 1, **self._spent(before)
        )

    def _spent(self, since: int) -> dict[str, float]:
        """Tokens and cost of the LM calls since history entry ``since`` (failed attempts included)."""
        tokens, cost = 0, 0.0
        for entry in self.lm.history[since:]:
            tokens += int((entry.get("usage") or {}).get("total_tokens") or 0)
            cost += float(entry.get("cost") or 0.0)
        self.usage["tokens"] += tokens
        self.usage["cost_usd"] += cost
        return {"tokens": tokens, "cost_usd": round(cost, 6)}
