"""The LM runner: a node runs its DSPy program when an LM is configured, else (or on failure) its
baseline. Shared by every node (research, relevance, the response judge, query drafting).

LM output that stays unparseable after ``retries`` attempts, and LM transport errors, make the
node run its baseline program instead; the step records ``fallback`` and why.
"""

from __future__ import annotations

import html
import logging
import os
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any

import dspy
from pydantic import BaseModel, BeforeValidator, Field

from .env import positive_number
from .nodes import budget_of

log = logging.getLogger(__name__)


#: ``--lm-context``: the context window assumed when none is given (a local 8k model fits).
DEFAULT_CONTEXT_TOKENS = 8192
#: Seconds one LM request may take (``$SLEUTH_LM_TIMEOUT``): a hosted model answers in seconds; the
#: local CPU model needs minutes for a judge's or a rerank's reply (``--lm local`` sets 600).
DEFAULT_TIMEOUT_S = 60.0
TIMEOUT_ENV = "SLEUTH_LM_TIMEOUT"


def default_timeout() -> float:
    """``$SLEUTH_LM_TIMEOUT`` seconds, else :data:`DEFAULT_TIMEOUT_S`."""
    return positive_number(TIMEOUT_ENV, DEFAULT_TIMEOUT_S, "seconds")


#: Characters per token when sizing prompts: English prose runs ~4; 3.5 leaves a margin.
CHARS_PER_TOKEN = 3.5
#: Longest URL shown to a node: longer ones are author-chosen noise (or an injection vehicle).
MAX_URL_CHARS = 200

_FIELD_MARKER = re.compile(r"\[\[|\]\]")


def as_data(text: str, quote: bool = False) -> str:
    """Untrusted text (page sentences, snippets, titles, URLs, facts) made safe to place in a
    prompt: markup escaped so that it cannot close a ``<document>`` tag, and DSPy's field markers
    (``[[ ## name ## ]]``) broken so that it cannot open a section of its own."""
    escaped = html.escape(text, quote=quote)
    return _FIELD_MARKER.sub(lambda m: "&#91;&#91;" if m.group() == "[[" else "&#93;&#93;", escaped)


class LMSettings(BaseModel):
    """The LM a run's nodes use, as one setting of every command and flow that can use one:
    any DSPy/LiteLLM model string (none: the baseline programs), an optional OpenAI-compatible
    server, and how calls are retried, timed out and fitted. :meth:`from_env` fills what is not
    given from ``SLEUTH_LM``, ``SLEUTH_LM_BASE_URL`` and ``SLEUTH_LM_CONTEXT``; it runs once, where
    a run is configured (the CLI, or a deployment's parameters on its worker)."""

    model: str | None = Field(None, description="DSPy/LiteLLM model string; none runs the baseline programs")
    base_url: str | None = Field(None, description="OpenAI-compatible server (llama.cpp, vLLM, Ollama)")
    retries: int = Field(2, ge=0, description="further attempts after unparseable output before the baseline")
    timeout_s: float = Field(
        default_factory=default_timeout, gt=0, description="per LM request (default $SLEUTH_LM_TIMEOUT or 60)"
    )
    max_tokens: int = Field(
        1500, ge=1, description="the default reply cap; each node's own is in modules.nodes"
    )
    context_tokens: int = Field(
        DEFAULT_CONTEXT_TOKENS,
        ge=2048,
        description="the model's context window; prompts and replies fit in it",
    )

    @classmethod
    def from_env(
        cls, model: str | None = None, base_url: str | None = None, context_tokens: int | None = None
    ) -> LMSettings:
        context = context_tokens or int(os.environ.get("SLEUTH_LM_CONTEXT") or DEFAULT_CONTEXT_TOKENS)
        return cls(
            model=model or os.environ.get("SLEUTH_LM") or None,
            base_url=base_url or os.environ.get("SLEUTH_LM_BASE_URL") or None,
            context_tokens=context,
        )

    def runner(self) -> NodeRunner:
        """A runner for these settings: the LM, its retries and its context window."""
        return NodeRunner(lm=self.build(), retries=self.retries, context_tokens=self.context_tokens)

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


def _model_string(value: Any) -> Any:
    return LMSettings.from_env(value) if isinstance(value, str) else value


#: The LM field of an options model: a :class:`LMSettings`, or a bare model string (``lm:
#: openai/gpt-4o-mini`` in a deployment's parameters), which takes the environment's server and
#: window.
LMOption = Annotated[LMSettings, BeforeValidator(_model_string)]


@dataclass
class NodeCall:
    """What one node call produced, and how."""

    output: Any
    fallback: bool = False
    error: str | None = None
    tokens: int = 0
    cost_usd: float = 0.0
    attempts: int = 0


def output_model(model: type[BaseModel], prediction: Any) -> BaseModel:
    """The pydantic contract a node's separate output fields make up (fields the signature does
    not ask for keep their defaults); invalid values raise ``ValueError`` (pydantic's)."""
    return model.model_validate({name: prediction[name] for name in model.model_fields if name in prediction})


@dataclass
class NodeRunner:
    """Runs a node's DSPy program with the node's budget (reply cap, temperature), retrying
    unparseable output, and falls back to the node's baseline program; holds the tokens and cost
    its calls have spent (``usage``), shared by the nodes of a run."""

    lm: dspy.LM | None = None
    retries: int = 2
    usage: dict[str, float] = field(default_factory=lambda: {"tokens": 0, "cost_usd": 0.0})
    context_tokens: int = DEFAULT_CONTEXT_TOKENS
    #: what the LM did with the calls it was given: ``calls[node]`` answered, and the calls that
    #: fell back to the baseline by node and reason (:func:`fallback_reason`)
    answered: Counter = field(default_factory=Counter)
    fell_back: Counter = field(default_factory=Counter)
    #: per node: characters its compiled program's demos add to every prompt (:meth:`fit_program`)
    demo_chars: dict[str, int] = field(default_factory=dict)
    _node_lms: dict[str, Any] = field(default_factory=dict, repr=False)

    def reply_tokens(self, node: str) -> int:
        """The node's reply cap: its budget's, or half the context window where that is smaller
        (rerank's 3,000 would leave a 4k model no room for the results)."""
        return min(budget_of(node).max_tokens, self.context_tokens // 2)

    def input_chars(self, node: str, fixed: int = 0) -> int:
        """Characters the node's variable inputs may fill: its share of the context window once
        its reply cap is set aside, less ``fixed`` characters of inputs it always sends and the
        characters of its compiled program's demos."""
        budget = budget_of(node)
        tokens = (self.context_tokens - self.reply_tokens(node)) * budget.input_share
        return max(500, int(tokens * CHARS_PER_TOKEN) - fixed - self.demo_chars.get(node, 0))

    def fit_program(self, node: str, program: Any) -> Any:
        """``program`` fitted to the node's prompts here: its demos come before the inputs in
        every call, so the inputs give up the room they take, and demos beyond half of that room
        are left out (the last first; a compiled judge's four demos with their page excerpts
        would otherwise overflow a small window). Returns the program to run (a copy when demos
        were left out)."""
        self.demo_chars.pop(node, None)
        room = self.input_chars(node) // 2
        kept = program
        if demo_chars(program) > room:
            kept = program.deepcopy()
            for predictor in kept.predictors():
                while predictor.demos and demo_chars(kept) > room:
                    predictor.demos = predictor.demos[:-1]
            log.info("%s: %d demos fit this %d-token window", node, _demos(kept), self.context_tokens)
        self.demo_chars[node] = demo_chars(kept)
        return kept

    def lm_for(self, node: str) -> Any:
        """The LM with the node's reply cap and temperature: one copy per node, writing to the
        LM's own history (where tokens are counted)."""
        if not isinstance(self.lm, dspy.LM):
            return self.lm
        if node not in self._node_lms:
            budget = budget_of(node)
            copy = self.lm.copy(max_tokens=self.reply_tokens(node), temperature=budget.temperature)
            copy.history = self.lm.history
            self._node_lms[node] = copy
        return self._node_lms[node]

    def run(
        self,
        program: dspy.Module | None,
        inputs: dict[str, Any],
        output: str | type[BaseModel],
        baseline: Callable[[], Any],
        node: str = "",
    ) -> NodeCall:
        """``output``: the prediction field the node returns, or the pydantic model its output
        fields make up (:func:`output_model`)."""
        if self.lm is None or program is None:
            return NodeCall(output=baseline())
        lm = self.lm_for(node) if node else self.lm
        error = None
        before = len(lm.history)
        for attempt in range(1, self.retries + 2):
            try:
                with dspy.context(lm=lm):
                    prediction = program(**inputs)
                value = (
                    getattr(prediction, output)
                    if isinstance(output, str)
                    else output_model(output, prediction)
                )
                self.answered[node or "lm"] += 1
                return NodeCall(output=value, attempts=attempt, **self._spent(lm, before))
            except (
                dspy.utils.exceptions.AdapterParseError,
                ValueError,
            ) as exc:  # unparseable or invalid output
                error = f"unparseable LM output: {str(exc)[:300]}"
            except dspy.utils.exceptions.LMError as exc:
                error = f"LM error: {type(exc).__name__}: {str(exc)[:300]}"
            except Exception as exc:  # provider exceptions arrive through litellm in many types
                error = f"LM call failed: {type(exc).__name__}: {str(exc)[:300]}"
        reason = fallback_reason(error)
        self.fell_back[(node or "lm", reason)] += 1
        # one message per reason: a quiet command counts them on stderr at the end
        log.warning(f"LM calls answered by the offline baseline instead ({reason})")
        return NodeCall(
            output=baseline(),
            fallback=True,
            error=error,
            attempts=self.retries + 1,
            **self._spent(lm, before),
        )

    def calls(self) -> dict[str, Any]:
        """The LM calls of this runner: answered and fallen back, per node and reason (what
        ``reports.lm`` and ``runs.config_json`` record)."""
        return calls_summary(self.answered, self.fell_back)

    def _spent(self, lm: Any, since: int) -> dict[str, float]:
        """Tokens and cost of the LM calls since history entry ``since`` (failed attempts included)."""
        tokens, cost = 0, 0.0
        for entry in lm.history[since:]:
            tokens += int((entry.get("usage") or {}).get("total_tokens") or 0)
            cost += float(entry.get("cost") or 0.0)
        self.usage["tokens"] += tokens
        self.usage["cost_usd"] += cost
        return {"tokens": tokens, "cost_usd": round(cost, 6)}


def demo_chars(program: Any) -> int:
    """Characters the demos of a DSPy program's predictors hold (0 for none, or no program)."""
    if program is None or not hasattr(program, "predictors"):
        return 0
    total = 0
    for predictor in program.predictors():
        shown = set(predictor.signature.fields)  # a demo's other keys (the labeled row) stay out of prompts
        for demo in getattr(predictor, "demos", None) or []:
            values = demo.toDict() if hasattr(demo, "toDict") else dict(demo)
            total += sum(len(str(v)) for k, v in values.items() if k in shown)
    return total


def _demos(program: Any) -> int:
    return sum(len(getattr(p, "demos", None) or []) for p in program.predictors())


def fallback_reason(error: str | None) -> str:
    """A fallback's cause in a few words: ``timeout`` (the LM did not answer in
    ``--lm-timeout``), ``transport`` (no connection, a dropped one), ``missing claim`` (the judge
    left a claim without a verdict), ``unparseable output``, else the error's kind with its
    exception type (``LM call failed: AuthenticationError``: a missing credential is not unusable
    output)."""
    text = error or "unknown"
    if "gave no verdict for claim" in text:
        return "missing claim"
    if text.startswith("unparseable"):
        return "unparseable output"
    lowered = text.lower()
    if "timed out" in lowered or "timeout" in lowered:
        return "timeout"
    if any(k in lowered for k in ("transport", "connection", "connecterror", "remoteprotocol")):
        return "transport"
    head, _, rest = text.partition(": ")
    kind = rest.split(":", 1)[0].strip()
    return f"{head}: {kind}" if kind and " " not in kind else head


def calls_summary(answered: Counter, fell_back: Counter) -> dict[str, Any]:
    """``{"answered": n, "fell_back": n, "by_node": {node: {"answered": n, "fell_back": n}},
    "fallback_reasons": {reason: n}}``: how many calls the LM answered and how many fell back."""
    nodes = sorted(set(answered) | {node for node, _ in fell_back})
    reasons: Counter = Counter()
    for (_, reason), n in fell_back.items():
        reasons[reason] += n
    return {
        "answered": sum(answered.values()),
        "fell_back": sum(fell_back.values()),
        "by_node": {
            node: {
                "answered": answered.get(node, 0),
                "fell_back": sum(n for (k, _), n in fell_back.items() if k == node),
            }
            for node in nodes
        },
        "fallback_reasons": dict(reasons.most_common()),
    }
