"""The trained sentence picker: which sentence of a result is its key sentence, the one a reader
needs for the question (the anchored ``sentence``, its brief answer and its highlight).

A question rarely shares most words with the sentence that answers it: in "What is the highest
peak of the North African range that ... belonged to the Central Pangean Mountains?" the page
about the Atlas Mountains answers in "The range's highest peak is Toubkal", not in its first
sentence, which shares more words. So the pick is learned from what the baseline reads of each
sentence (:data:`FEATURES`: its MiniLM cosine and query terms, beside the paragraph's best; the
terms of the asked attribute, apart from the names; its place; whether it names another result's
subject or a thing the question names; whether it holds a number or a year the question asks
for) by a linear score per sentence, fitted on the softmax over the sentences of a paragraph by
``python -m evals.train_picker`` (the model card is ``picker/MODEL_CARD.md``) on the supporting
sentences of the research question sets' train parts; never on a dev or test part. It decides when results are encoded with the MiniLM it was
trained on; with any other embedder the hand-set pick decides.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..embeddings import BUNDLED
from ..mlp import SmallMLP
from ..text import Span, comparison_order, content_terms

HOME = Path(__file__).resolve().parent / "picker"
WEIGHTS = HOME / "sentence-picker.safetensors"
#: the embedding the features were trained on
EMBEDDING = BUNDLED

#: what is read of each sentence of a result, in this order (:func:`sentence_features`)
FEATURES = (
    "cos",  # MiniLM cosine of the sentence to the query
    "cos_gap",  # its cosine minus the paragraph's best
    "attribute_cos",  # MiniLM cosine to the query less the things it names: the relation asked
    "attribute_cos_gap",  # minus the paragraph's best
    "terms",  # share of the query's content terms it states
    "terms_idf",  # the same, idf-weighted within the results
    "terms_idf_gap",  # minus the paragraph's best
    "attribute",  # idf-weighted share of the query's terms that name no result: what is asked
    "attribute_gap",  # minus the paragraph's best
    "first",  # 1 for the paragraph's first sentence
    "position",  # its place, 0 (first) to 1 (last)
    "links_other",  # it names another result's subject that the query does not name
    "names_asked",  # it names a thing the query names, other than its own subject
    "names_own",  # it names its own subject (the title less its qualifier, a surname)
    "pronoun",  # it opens with a pronoun (it, he, she, they, its ...): about the subject, not naming it
    "about",  # the result is about a thing the query names: 1 whole, 0.5 a part of its name
    "about_first",  # about x first
    "about_links",  # about x links_other
    "unnamed_attribute",  # (1 - about) x attribute: the second hop states what is asked
    "number_asked",  # the query asks how many / much / long, or which of two is larger, longer ...,
    # and the sentence has a number
    "year_asked",  # the query asks when / what year, or which of two came first, and the sentence has a year
    "new_names",  # capitalised words it has that the query lacks, / 5, at most 1
    "length",  # log(1 + words) / log(50)
)

_PRONOUN = re.compile(r"^(?:it|its|he|his|she|her|they|their|this|these)\b", re.IGNORECASE)
_ASKS_NUMBER = re.compile(
    r"\bhow (?:many|much|long|old|tall|high|large|big|far|deep|wide|heavy)\b|\bwhat (?:is|was) the "
    r"(?:population|area|height|length|depth|elevation)\b|\bat what age\b",
    re.IGNORECASE,
)
_ASKS_YEAR = re.compile(
    r"\bwhen\b|\b(?:what|which|in what|in which) (?:year|decade|century|date)\b", re.IGNORECASE
)
#: two options offered: "..., A or B?"
_CHOICE = re.compile(r"\w\s+or\s+\w")
_NUMBER = re.compile(r"\d")
_YEAR = re.compile(r"(?<!\d)(?:1[0-9]{3}|20[0-9]{2}|[1-9][0-9]{1,2}\s*(?:BC|BCE|AD|CE))(?!\d)")
_CAPITALISED = re.compile(r"\b[A-Z][\w'’-]+")


def _asks_number_or_year(query: str) -> tuple[bool, bool]:
    """Whether ``query`` asks for a number, and whether for a year: asked outright ("how many",
    "when"), or a choice between two ordered by amount ("which river is longer, A or B") or by time
    ("which came first, A or B")."""
    order = comparison_order(query) if _CHOICE.search(query) else ""
    return (
        bool(_ASKS_NUMBER.search(query)) or order in ("more", "fewer"),
        bool(_ASKS_YEAR.search(query)) or order in ("older", "younger"),
    )


def _names_in(patterns: Sequence[re.Pattern], text: str) -> bool:
    return any(p.search(text) for p in patterns)


def name_pattern(name: str) -> re.Pattern:
    """A name as a whole word or words."""
    return re.compile(r"(?<!\w)" + re.escape(name) + r"(?!\w)")


def sentence_features(
    query: str,
    sentences: Sequence[Span],
    sent_cos: np.ndarray,
    attribute_cos: np.ndarray,
    idf: dict[str, float],
    name_terms: set[str],
    *,
    own_names: Sequence[str],
    about: float,
    links: Sequence[bool],
    asked_names: Sequence[re.Pattern],
) -> np.ndarray:
    """(sentences, len(FEATURES)) readings of one result's sentences.

    ``attribute_cos``: each sentence's cosine to the query less the things it names; ``idf``: the
    query's content terms and their idf within the results; ``name_terms``: the
    content terms of every result's title (what is named, not asked); ``about``: 1 when the query
    names the result's subject whole, 0.5 in part; ``links[k]``: sentence k names another result's
    subject that the query does not name; ``asked_names``: the things the query names, less this
    result's own subject."""
    n = len(sentences)
    q_terms = set(idf)
    total = sum(idf.values()) or 1.0
    attribute_terms = q_terms - name_terms
    attribute_total = sum(idf[t] for t in attribute_terms) or 1.0
    own = [name_pattern(x) for x in own_names if len(x) >= 3]
    asks_number, asks_year = _asks_number_or_year(query)
    q_words = {w.lower() for w in _CAPITALISED.findall(query)}
    rows = []
    for k, s in enumerate(sentences):
        terms = content_terms(s.text) & q_terms
        new = {w.lower() for w in _CAPITALISED.findall(s.text)[1:]} - q_words
        row = dict.fromkeys(FEATURES, 0.0)  # the gaps and crossings are filled in below
        row |= {
            "cos": float(sent_cos[k]),
            "attribute_cos": float(attribute_cos[k]),
            "terms": len(terms) / max(len(q_terms), 1),
            "terms_idf": sum(idf[t] for t in terms) / total,
            "attribute": sum(idf[t] for t in terms & attribute_terms) / attribute_total,
            "first": float(k == 0),
            "position": k / (n - 1) if n > 1 else 0.0,
            "links_other": float(links[k]),
            "names_asked": float(_names_in(asked_names, s.text)),
            "names_own": float(_names_in(own, s.text)),
            "pronoun": float(bool(_PRONOUN.match(s.text))),
            "about": about,
            "number_asked": float(asks_number and bool(_NUMBER.search(s.text))),
            "year_asked": float(asks_year and bool(_YEAR.search(s.text))),
            "new_names": min(1.0, len(new) / 5),
            "length": math.log1p(len(s.text.split())) / math.log(50),
        }
        rows.append([row[f] for f in FEATURES])
    x = np.array(rows, dtype=np.float32).reshape(n, len(FEATURES))
    col = FEATURES.index
    if n:
        for name in ("cos", "attribute_cos", "terms_idf", "attribute"):
            x[:, col(f"{name}_gap")] = x[:, col(name)] - x[:, col(name)].max()
        x[:, col("about_first")] = about * x[:, col("first")]
        x[:, col("about_links")] = about * x[:, col("links_other")]
        x[:, col("unnamed_attribute")] = (1 - about) * x[:, col("attribute")]
    return x


class SentencePicker(SmallMLP):
    """The shipped picker: :meth:`pick` the key sentence of a result from its sentences' readings."""

    def __init__(self, path: Path = WEIGHTS):
        super().__init__(path)
        if self.n_features != len(FEATURES):
            raise ValueError(f"{path}: {self.n_features} features, sleuth computes {len(FEATURES)}")

    def scores(self, features: np.ndarray) -> np.ndarray:
        """(n,) one score per sentence; the softmax over a paragraph's is the chance each is the key."""
        return self.logits(features)[:, 0] if len(features) else np.zeros(0, np.float32)

    def pick(self, features: np.ndarray) -> int:
        return int(np.argmax(self.scores(features))) if len(features) else 0


@lru_cache(maxsize=1)
def shipped_picker() -> SentencePicker | None:
    """The picker shipped with sleuth, or None where its weights are absent."""
    return SentencePicker() if WEIGHTS.exists() else None


def picker_for(embedding_model: str | None) -> SentencePicker | None:
    """The picker for results encoded with ``embedding_model``: the shipped one for the MiniLM it
    was trained on, else none (the hand-set pick decides)."""
    return shipped_picker() if embedding_model == EMBEDDING else None


__all__ = [
    "EMBEDDING",
    "FEATURES",
    "SentencePicker",
    "name_pattern",
    "picker_for",
    "sentence_features",
    "shipped_picker",
]
