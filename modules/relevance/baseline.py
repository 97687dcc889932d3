"""The relevance analyzer's baseline program: the offline default and the LM fallback.

Each criterion is measured, not guessed, on 0-1:

- direct relevance: lexical coverage of the query's terms (idf-weighted within the result set)
  and embedding similarity of the best sentence and of the passage; a passage *about* an entity
  that the most relevant passages name (its title appears in them, not in the query) inherits
  part of their relevance: the second hop of a multi-hop question;
- depth: information density: sentences that bear on the query, and distinct content terms;
- plan alignment: similarity to the plan's queries, angles and reasoning (to the query
  when there is no plan);
- unexpectedness: novelty against the passages ranked above it (maximal marginal relevance)
  and similarity to the plan's surprises and challenged assumptions.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..embeddings import Embedder
from ..text import STOPWORDS, Span, content_terms, split_clauses, split_sentences, stem, words
from .anchor import anchors_of
from .highlight import highlight
from .picker import FEATURES as PICKER_FEATURES
from .picker import name_pattern, picker_for, sentence_features
from .ranker import GAPS, PAIR_FEATURES, READINGS, ranker_for
from .schema import RankedResult, Reranking, ResearchPlan, SearchResultIn, SubScores

MAX_CHARS = 20_000
NOVELTY_LO, NOVELTY_HI = 0.3, 0.85  # passage similarity from which a passage starts / stops being new
DEPTH_NOVELTY = 0.8  # share of depth that must be new (chosen on the eval: 0.5-0.8 x 0.3-0.5 x 0.85-0.95)
COS_LO, COS_HI = 0.1, 0.7  # MiniLM cosine: below, unrelated; above, as close as passages get
IDF_FLOOR = 0.1  # added to every query term's idf: a term in every result still counts a little

# Direct relevance: lexical coverage and dense similarity, plus a bonus for naming the query's subject.
DENSE_SENTENCE_W, DENSE_PASSAGE_W = 0.6, 0.4  # dense similarity: the best sentence's cosine, the passage's
LEXICAL_W, DENSE_W = 0.5, 0.5  # direct relevance: idf-weighted query-term coverage, dense similarity
ABOUT_BONUS = 0.15  # added when the passage is about a thing the query names (its title in the query)

# Depth: the share of direct relevance earned by sentences that bear on the query.
BEARING_COS = 0.3  # a sentence's cosine to the query from which (with a shared term) it bears on it
DEPTH_BASE, DEPTH_BEARING_W = 0.6, 0.4  # depth / direct with no bearing sentence; the rest, earned by them
BEARING_FULL = 3  # bearing sentences that earn the whole of DEPTH_BEARING_W

# Plan alignment: the closest facet and how many facets the passage matches.
PLAN_BEST_W, PLAN_COVERAGE_W = 0.7, 0.3  # the best facet's cosine, the share of facets matched
FACET_COS = 0.35  # a facet's cosine from which the passage matches it

# The key sentence without the trained picker (modules.relevance.picker): query terms and meaning,
# and a lead sentence defines the passage's subject.
PICK_LEXICAL_W, PICK_DENSE_W = 0.5, 0.5  # the sentence's share of query terms, its cosine to the query
FIRST_SENTENCE_BONUS = 0.08  # added for the passage's first sentence
LINK_BONUS = 0.1  # added for a sentence naming another result's subject: the hop of a bridge question (0.05-0.2 on dev)

# Unexpectedness: new against the passages above it and near the plan's surprises (times direct).
NOVELTY_W, SURPRISE_W = 0.5, 0.5  # novelty against better passages, similarity to surprises

# The second hop (_bridge): a passage about an entity that the top passages name.
HOP_BASE, HOP_COS_W = 0.6, 0.4  # a lead: its passage's direct relevance, by its sentence's cosine
BRIDGE_LEAD_W, BRIDGE_OWN_W = 0.85, 0.15  # a bridged passage's direct relevance: the lead's, its own
PART_LINK = 0.6  # a pair's link by a part of a name (a surname, the part before a comma), a whole name 1
BRIDGE_DEPTH = 0.9  # a bridged passage's depth is at least this share of its direct relevance

SENSES_COS = 0.15  # two sentences using a query term below this cosine use it in different senses

_LEADING = re.compile(
    r"^(?:and|but|or|so|which|who|that|while|whereas|although|because|as|it|he|she|they|this|these)\s+", re.I
)
_TITLE_QUALIFIER = re.compile(r"\s*\([^)]*\)\s*$")
_ASIDE = re.compile(r"\s*\([^()]*\)")


@dataclass
class Weights:
    """The seed's weights; they need not sum to 1 (the score is normalised by their sum)."""

    direct: float = 40
    depth: float = 30
    plan: float = 20
    unexpected: float = 10
    threshold: int = 60
    # the best page about each thing a question names is kept from this many points below it
    side_margin: int = 10

    def score(self, s: SubScores) -> int:
        """The weighted mean x 100. Without a plan (``planAlignment`` null) the query is the whole
        plan: its weight goes to direct relevance, so a score means the same with or without one."""
        plan = 0.0 if s.planAlignment is None else self.plan
        direct = self.direct + self.plan - plan
        total = direct + self.depth + plan + self.unexpected
        raw = (
            direct * s.directRelevance
            + self.depth * s.depth
            + plan * (s.planAlignment or 0.0)
            + self.unexpected * s.unexpectedness
        ) / (total or 1)
        return int(round(100 * min(1.0, max(0.0, raw))))


def _cos01(c: float, lo: float = COS_LO, hi: float = COS_HI) -> float:
    """MiniLM cosine to 0-1: below ``lo`` unrelated, above ``hi`` as close as passages get."""
    return float(min(1.0, max(0.0, (c - lo) / (hi - lo))))


_SHIPPED = object()


class BaselineRelevance:
    """``ranker``: the trained ranker whose probability is direct relevance (by default the
    shipped one when ``embedder`` is the MiniLM it was trained on); None for the hand-set blend.
    ``picker``: the trained sentence picker that chooses each result's key sentence (the shipped
    one likewise); None for the hand-set pick."""

    def __init__(self, embedder: Embedder, weights: Weights | None = None, ranker=_SHIPPED, picker=_SHIPPED):
        self.embedder = embedder
        self.weights = weights or Weights()
        model = getattr(embedder, "name", None)
        self.ranker = ranker_for(model) if ranker is _SHIPPED else ranker
        self.picker = picker_for(model) if picker is _SHIPPED else picker

    def features(self, query: str, results: Sequence[SearchResultIn]) -> tuple[np.ndarray, np.ndarray]:
        """The ranker's inputs: one row per result (:data:`~modules.relevance.ranker.FEATURES`)
        and one per pair of results (n, n, :data:`~modules.relevance.ranker.PAIR_FEATURES`)."""
        per, _, d_vecs, _, _, idf = self._measure(query, ResearchPlan(), results)
        return ranking_features(per), pair_readings(query, per, d_vecs, idf)

    def sentence_readings(
        self, query: str, results: Sequence[SearchResultIn]
    ) -> list[tuple[list[Span], np.ndarray]]:
        """The picker's inputs: per result, its sentences and their readings
        (:data:`~modules.relevance.picker.FEATURES`)."""
        per, *_ = self._measure(query, ResearchPlan(), results)
        return [(p["sentences"], p["sentence_features"]) for p in per]

    def __call__(self, query: str, plan: ResearchPlan, results: Sequence[SearchResultIn]) -> Reranking:
        if not results:
            return Reranking(results=[], introduction="No results to analyse.")
        per, texts, d_vecs, s_vecs, df, idf = self._measure(query, plan, results)
        if self.ranker is not None and len(per) >= 2:  # one result alone: the hand-set blend decides
            pairs = pair_readings(query, per, d_vecs, idf)
            for p, prob in zip(per, self.ranker.probabilities(ranking_features(per), pairs)):
                p["direct"] = float(prob)
                p["depth"] = p["direct"] * (DEPTH_BASE + DEPTH_BEARING_W * p["bearing"])
                if p["hop"]:
                    p["depth"] = max(p["depth"], BRIDGE_DEPTH * p["direct"])
        for p, (novelty, surprise) in zip(per, _novelty(per, d_vecs, s_vecs)):
            p["depth"], p["unexpected"] = _discounted(p, novelty, surprise)
        return self._ranking(query, plan, results, per, texts, df)

    def _measure(self, query: str, plan: ResearchPlan, results: Sequence[SearchResultIn]):
        """Each result's readings (``per``), its text, the passage and surprise vectors, the
        results' term counts, and the query terms' idf (what :func:`pair_readings` weighs)."""
        texts = [r.text[:MAX_CHARS] for r in results]
        sentences = [split_sentences(t) or [Span(0, len(t), t)] for t in texts]
        flat = [s.text for ss in sentences for s in ss]
        facets = plan.facets() or [query]
        surprises = plan.surprises + plan.assumptions
        heads = [f"{r.title}. {t[:1000]}" if r.title else t[:1000] for r, t in zip(results, texts)]
        all_names = [subject_names(r.title) for r in results]
        all_named = [_named_in(query, names) for names in all_names]
        asked_relation = _without_names(query, [n for named in all_named for n in named])
        # short and long texts in separate calls: a batch is padded to its longest text
        vectors = self.embedder.encode([query, asked_relation] + facets + surprises + flat)
        d_vecs = self.embedder.encode(heads)
        q_vec, relation_vec = vectors[0], vectors[1]
        f_vecs = vectors[2 : 2 + len(facets)]
        s_vecs = vectors[2 + len(facets) : 2 + len(facets) + len(surprises)]
        sent_vecs = vectors[2 + len(facets) + len(surprises) :]

        q_terms = content_terms(query)
        df = Counter(t for text in texts for t in content_terms(text))
        idf = {t: math.log(1 + len(texts) / (1 + df[t])) + IDF_FLOOR for t in q_terms}
        q_weight = sum(idf.values()) or 1.0

        links = _link_pattern(query, results)
        name_terms = {t for names in all_names if names for t in content_terms(names[0])}
        per: list[dict] = []
        offset = 0
        for i, (r, text) in enumerate(zip(results, texts)):
            ss = sentences[i]
            sv = sent_vecs[offset : offset + len(ss)]
            offset += len(ss)
            terms = content_terms(f"{r.title} {text}")
            lexical = sum(idf[t] for t in q_terms & terms) / q_weight
            sent_cos = sv @ q_vec
            best_cos = float(sent_cos.max()) if len(sent_cos) else 0.0
            passage_cos = float(d_vecs[i] @ q_vec)
            dense = DENSE_SENTENCE_W * _cos01(best_cos) + DENSE_PASSAGE_W * _cos01(passage_cos)
            names, named = all_names[i], all_named[i]
            about = about_bonus(names, named)
            direct = min(1.0, LEXICAL_W * lexical + DENSE_W * dense + about)
            # depth: how much of the passage bears on the query (several sentences, not one mention)
            bearing = [
                k for k, s in enumerate(ss) if sent_cos[k] >= BEARING_COS and content_terms(s.text) & q_terms
            ]
            bearing_share = min(1.0, len(bearing) / BEARING_FULL)
            depth = direct * (DEPTH_BASE + DEPTH_BEARING_W * bearing_share)
            facet_cos = f_vecs @ d_vecs[i] if len(f_vecs) else np.zeros(1)
            if len(sv) and len(f_vecs):
                facet_cos = np.maximum(facet_cos, (sv @ f_vecs.T).max(axis=0))
            plan_alignment = PLAN_BEST_W * _cos01(float(facet_cos.max())) + PLAN_COVERAGE_W * float(
                (facet_cos >= FACET_COS).mean()
            )
            # the key sentence: the trained picker's, else the hand-set pick's
            linked = [_links_other(links, s.text, i) for s in ss]
            asked = {n for j, ns in enumerate(all_named) if j != i for n in ns if n not in names}
            readings = sentence_features(
                query,
                ss,
                sent_cos,
                sv @ relation_vec,
                idf,
                name_terms,
                own_names=names,
                about=about / ABOUT_BONUS,
                links=linked,
                asked_names=[name_pattern(n) for n in sorted(asked)],
            )
            best = self.picker.pick(readings) if self.picker else int(hand_set_pick(readings).argmax())
            title_terms = content_terms(names[0]) if names else set()
            per.append(
                {
                    "direct": direct,
                    "depth": depth,
                    "plan": plan_alignment,
                    "sentences": ss,
                    "best": best,
                    "sentence_features": readings,
                    "sent_cos": sent_cos,
                    "sent_vecs": sv,
                    "terms": terms,
                    "names": names,
                    "side": max(named, key=len).lower() if named else None,  # the thing it is about
                    # the ranker's readings (ranking_features)
                    "lexical": lexical,
                    "sentence_cos": best_cos,
                    "passage_cos": passage_cos,
                    "about": about / ABOUT_BONUS,
                    "own_direct": direct,
                    "hop": 0.0,
                    "links_other": float(any(linked)),
                    "bearing": bearing_share,
                    "title_in_query": len(title_terms & q_terms) / len(title_terms) if title_terms else 0.0,
                }
            )

        _merge_sides(per)
        self._bridge(query, per, texts)
        for p, (novelty, surprise) in zip(per, _novelty(per, d_vecs, s_vecs)):  # the hand-set score's
            depth, unexpected = _discounted(p, novelty, surprise)
            p["novelty"] = novelty
            sub = SubScores(
                directRelevance=p["direct"], depth=depth, planAlignment=None, unexpectedness=unexpected
            )
            p["hand_score"] = self.weights.score(sub) / 100
        _sides(per)
        return per, texts, d_vecs, s_vecs, df, idf

    def _ranking(self, query, plan, results, per, texts, df) -> Reranking:
        if not plan.facets():  # no plan: alignment is not applicable (null), not relevance again
            for p in per:
                p["plan"] = None
        ranked = []
        for i, (r, p) in enumerate(zip(results, per)):
            sub = SubScores(
                directRelevance=round(p["direct"], 3),
                depth=round(p["depth"], 3),
                planAlignment=None if p["plan"] is None else round(p["plan"], 3),
                unexpectedness=round(p["unexpected"], 3),
            )
            score = self.weights.score(sub)
            sentence = p["sentences"][p["best"]]
            brief = brief_answer(query, sentence)
            core = core_terms(query, sentence.text, df, len(texts), brief)
            start, end = anchors_of(sentence.text)
            ranked.append(
                RankedResult(
                    originalIndex=i,
                    id=r.id or str(i),
                    title=r.title,
                    url=r.url,
                    score=score,
                    kept=score >= self.weights.threshold,
                    briefAnswer=brief,
                    sentenceStart=start,
                    sentenceEnd=end,
                    sentence=sentence.text,
                    coreTerms=core,
                    relevanceNote=self._note(query, plan, sub, p, brief),
                    highlighted=highlight(texts[i], sentence, core),
                    subscores=sub,
                    anchor="exact",
                )
            )
        # equal scores (the many near 0 beside a needed pair) in the order of their unrounded relevance
        ranked.sort(key=lambda x: (-(x.score or 0), -per[x.originalIndex]["direct"], x.originalIndex))
        self._each_side_first(query, ranked, per)
        self._keep_each_side(ranked, per)
        return Reranking(
            results=ranked,
            introduction=introduction(query, ranked, self.weights.threshold),
            semanticNote=semantic_note(query, results, per),
        )

    def _each_side_first(self, query: str, ranked: list[RankedResult], per: list[dict]) -> None:
        """A comparison of two named things ("who is younger, Keith Bostic or Jerry Glanville?")
        needs a page about each among the first two: where the first two are both about one side
        (a person's page and a disambiguation page of the same name), the best page about the
        other side is worth as much as the second and ranks above it. Only a query that compares
        in so many words (:data:`_COMPARES`: "or", "both", "the same"): a bridge question may name
        a thing it only passes through, and ordering words ("the first", "more") are as common in
        bridges."""
        if len(ranked) < 3 or not _COMPARES.search(query):
            return
        if len({p["side"] for p in per if p["side"]}) != 2:
            return
        first, second = (per[r.originalIndex]["side"] for r in ranked[:2])
        if first is None or first != second:
            return
        other = next((r for r in ranked[2:] if per[r.originalIndex]["side"] not in (None, first)), None)
        if other is None:
            return
        other.score = max(other.score or 0, ranked[1].score or 0)
        other.kept = other.kept or other.score >= self.weights.threshold
        ranked.remove(other)
        ranked.insert(1, other)

    def _keep_each_side(self, ranked: list[RankedResult], per: list[dict]) -> None:
        """A question that names several things ("Were Scott Derrickson and Ed Wood of the same
        nationality?") needs a page about each: the best page about each named thing is kept
        when it scores within ``side_margin`` points below the threshold."""
        sides = {p["side"] for p in per if p["side"]}
        if len(sides) < 2:
            return
        for side in sides:
            best = next(r for r in ranked if per[r.originalIndex]["side"] == side)
            if (best.score or 0) >= self.weights.threshold - self.weights.side_margin:
                best.kept = True

    @staticmethod
    def _bridge(query: str, per: list[dict], texts: list[str]) -> None:
        """A passage about an entity that the most relevant passages, or the page about a thing
        the query names, name (and the query does not) shares their relevance: the second hop of
        a multi-hop question. Names are the title, its part before a comma ("Brown County,
        Kansas") and a person's surname ("Richard Nixon" -> "Nixon" as a capitalised word), as
        written or in capitals."""
        q_low = query.lower()
        top = set(sorted(range(len(per)), key=lambda i: -per[i]["direct"])[:2])
        for side in {p["side"] for p in per if p["side"]}:  # the first hop: the page about each named thing
            top.add(
                max(
                    (i for i, p in enumerate(per) if p["side"] == side),
                    key=lambda i: (per[i]["about"], per[i]["direct"]),
                )
            )
        for i, p in enumerate(per):
            names = [n for n in p["names"] if len(n) >= 3 and n.lower() not in q_low]
            if not names:
                continue
            pattern = _names_pattern(names)
            best = 0.0
            for j in top:
                if j == i:
                    continue
                for k, sentence in enumerate(per[j]["sentences"]):
                    if pattern.search(
                        sentence.text
                    ):  # named in a sentence that bears on the query: a strong lead
                        best = max(
                            best,
                            per[j]["direct"] * (HOP_BASE + HOP_COS_W * _cos01(float(per[j]["sent_cos"][k]))),
                        )
            p["hop"] = best
            if best:
                p["direct"] = max(p["direct"], BRIDGE_LEAD_W * best + BRIDGE_OWN_W * p["direct"])
                p["depth"] = max(p["depth"], BRIDGE_DEPTH * p["direct"])

    @staticmethod
    def _note(query: str, plan: ResearchPlan, sub: SubScores, p: dict, brief: str) -> str:
        """What the result adds (its brief answer), the criterion it is strongest on, and the
        query words it shares. Without a plan, plan alignment is relevance to the query itself,
        so it is neither named as a strength nor shown twice."""
        criteria = [
            ("relevance to the query", sub.directRelevance),
            ("substance (several sentences on it)", sub.depth),
            ("a new angle beside the results above it", sub.unexpectedness),
        ]
        if plan.facets():
            criteria.append(("the research plan", sub.planAlignment))
        strongest = max(criteria, key=lambda x: x[1])[0]
        matched = sorted(content_terms(query) & p["terms"])
        figures = f"relevance {sub.directRelevance:.2f}, depth {sub.depth:.2f}, " + (
            f"plan {sub.planAlignment:.2f}, " if plan.facets() else ""
        )
        return (
            f'Adds: "{brief}"; strongest on {strongest}'
            + (f"; shares {', '.join(matched[:5])} with the query" if matched else "")
            + f"; {figures}novelty {sub.unexpectedness:.2f}"
        )


def _novelty(per: list[dict], d_vecs: np.ndarray, s_vecs: np.ndarray) -> list[tuple[float, float]]:
    """Per passage, (novelty, surprise): novelty against every passage of higher direct relevance
    (maximal marginal relevance), closeness to the plan's surprises (novelty again without them)."""
    out = [(0.0, 0.0)] * len(per)
    ranked_vecs: list[np.ndarray] = []
    for i in sorted(range(len(per)), key=lambda i: -per[i]["direct"]):
        sim = max((float(d_vecs[i] @ v) for v in ranked_vecs), default=0.0)
        novelty = 1.0 - _cos01(sim, NOVELTY_LO, NOVELTY_HI)
        surprise = _cos01(float((s_vecs @ d_vecs[i]).max())) if len(s_vecs) else novelty
        out[i] = (novelty, surprise)
        ranked_vecs.append(d_vecs[i])
    return out


def _discounted(p: dict, novelty: float, surprise: float) -> tuple[float, float]:
    """A passage's (depth, unexpectedness) given its novelty: a near-copy of a better passage
    teaches nothing new; unexpectedness is new *and* relevant."""
    depth = p["depth"] * (1 - DEPTH_NOVELTY + DEPTH_NOVELTY * novelty)
    return min(1.0, depth), min(1.0, p["direct"] * (NOVELTY_W * novelty + SURPRISE_W * surprise))


def _named_in(query: str, names: Sequence[str]) -> list[str]:
    """Which of a result's ``names`` (:func:`subject_names`) the query names: its whole name in any
    case, a part of it (a surname, the part before a comma) only as a name, capitalised ("Arena"
    of "Dwyer Arena" is not named by "the arena")."""
    return [
        n
        for k, n in enumerate(names)
        if re.search(r"(?<!\w)" + re.escape(n) + r"(?!\w)", query, 0 if k else re.IGNORECASE)
    ]


#: the words of a question that compares the things it names ("A or B", "both", "the same")
_COMPARES = re.compile(r"\b(?:or|both|same|different|either|neither|compared?)\b", re.I)


def _merge_sides(per: list[dict]) -> None:
    """A result whose surname alone the query names ("Kenton Richardson" for "Terry Richardson") is
    about the longer name's side: the two compete for one place."""
    named = {p["side"] for p in per if p["side"]}
    for p in per:
        if p["side"]:
            part = name_pattern(p["side"])  # "richardson" in "terry richardson", as whole words
            p["side"] = max((n for n in named if part.search(n)), key=len)


def _sides(per: list[dict]) -> None:
    """The things the query names that results are about ("Ed Wood", "Scott Derrickson"): per
    result, how many the query names (``sides``, at most 2, / 2) and its rank among the results
    about the same thing (``side_rank``: 1 for the best, 1/2 for the second; 0 when it is about
    none). A comparison needs the best page about each side, not two pages about one. A result the
    query names whole ranks above one it names in part, then by the hand-set score."""
    sides = {p["side"] for p in per if p["side"]}
    for p in per:
        p["sides"] = min(len(sides), 2) / 2
        p["side_rank"] = 0.0
    for side in sides:
        about = sorted((p for p in per if p["side"] == side), key=lambda p: (-p["about"], -p["hand_score"]))
        for rank, p in enumerate(about):
            p["side_rank"] = 1.0 / (1 + rank)


def _names_pattern(names: Sequence[str]) -> re.Pattern:
    """A pattern for any of ``names`` as written, or in capitals: a name styled "WINNER" is still
    "Winner"."""
    forms = {f for n in names for f in (n, n.upper())}
    return re.compile(
        r"(?<!\w)(?:" + "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True)) + r")(?!\w)"
    )


def ranking_features(per: list[dict]) -> np.ndarray:
    """The ranker's inputs (:data:`~modules.relevance.ranker.FEATURES`): each result's readings,
    the gap of some of them to the best of the other results, and its rank by direct relevance."""
    own = np.array([[p[k] for k in READINGS] for p in per], dtype=np.float32).reshape(len(per), len(READINGS))
    gaps = []
    for name in GAPS:
        values = own[:, READINGS.index(name)]
        others = np.array(
            [np.delete(values, i).max() if len(values) > 1 else 0.0 for i in range(len(values))]
        )
        gaps.append(values - others)
    rank = np.argsort(np.argsort(-own[:, READINGS.index("direct")], kind="stable"), kind="stable")
    return np.column_stack([own, *gaps, 1.0 / (1.0 + rank)]).astype(np.float32)


def pair_readings(query: str, per: list[dict], d_vecs: np.ndarray, idf: dict[str, float]) -> np.ndarray:
    """The ranker's inputs for each pair of results (n, n,
    :data:`~modules.relevance.ranker.PAIR_FEATURES`, symmetric, zero on the diagonal): whether a
    sentence of one names the other (the hop of a bridge question: the page the query names
    names the page that answers), whether the two are a comparison's sides or two pages about one
    side, how much of the query's terms (``idf``-weighted) they state together, how alike their
    passages are (``d_vecs``), and how many of the two the query names."""
    n, q_low = len(per), query.lower()
    q_weight = sum(idf.values()) or 1.0
    whole, part, named = [], [], np.zeros(n)
    for k, p in enumerate(per):
        names = [name for name in p["names"] if len(name) >= 3]
        whole.append(_names_pattern(names[:1]) if names else None)
        part.append(_names_pattern(names[1:]) if len(names) > 1 else None)
        named[k] = float(bool(names) and names[0].lower() in q_low)
    link, link_cos = np.zeros((n, n)), np.zeros((n, n))  # [i, j]: a sentence of i names j
    for i, p in enumerate(per):
        for j in (j for j in range(n) if j != i):
            for k, sentence in enumerate(p["sentences"]):
                if whole[j] is not None and whole[j].search(sentence.text):
                    strength = 1.0
                elif part[j] is not None and part[j].search(sentence.text):
                    strength = PART_LINK
                else:
                    continue
                cos = float(p["sent_cos"][k])
                if strength > link[i, j]:
                    link[i, j], link_cos[i, j] = strength, cos
                elif strength == link[i, j]:
                    link_cos[i, j] = max(link_cos[i, j], cos)
    about = np.array([p["about"] for p in per])
    out = np.zeros((n, n, len(PAIR_FEATURES)), np.float32)
    for i in range(n):
        for j in range(i + 1, n):
            si, sj = per[i]["side"], per[j]["side"]
            together = sum(idf[t] for t in idf.keys() & (per[i]["terms"] | per[j]["terms"])) / q_weight
            row = (
                max(link[i, j], link[j, i]),
                min(link[i, j], link[j, i]),
                max(link_cos[i, j] if link[i, j] else 0.0, link_cos[j, i] if link[j, i] else 0.0),
                max(about[i] * link[i, j], about[j] * link[j, i]),
                max(link[i, j] * (1 - named[j]), link[j, i] * (1 - named[i])),
                float(si is not None and si == sj),
                float(si is not None and sj is not None and si != sj),
                together,
                together - max(per[i]["lexical"], per[j]["lexical"]),
                float(d_vecs[i] @ d_vecs[j]),
                named[i] + named[j],
            )
            out[i, j] = out[j, i] = row
    return out


def trained_models(embedding_model: str | None) -> dict[str, str | None]:
    """The versions of the trained ranker and sentence picker that score results encoded with
    ``embedding_model`` (None: the hand-set blend or pick decides), for a run's record."""
    ranker, picker = ranker_for(embedding_model), picker_for(embedding_model)
    return {"ranker": ranker.version if ranker else None, "picker": picker.version if picker else None}


def hand_set_pick(readings: np.ndarray) -> np.ndarray:
    """The key sentence's score without the trained picker, from the picker's readings of each
    sentence: its share of query terms and its cosine, a bonus for the lead sentence and for one
    naming another result's subject."""
    col = PICKER_FEATURES.index
    return (
        PICK_LEXICAL_W * readings[:, col("terms")]
        + PICK_DENSE_W * readings[:, col("cos")]
        + FIRST_SENTENCE_BONUS * readings[:, col("first")]
        + LINK_BONUS * readings[:, col("links_other")]
    )


def about_bonus(names: Sequence[str], named: Sequence[str]) -> float:
    """What a passage gains for being about a thing the query names: :data:`ABOUT_BONUS` when the
    query names it whole (``names[0]``, the title less its qualifier), half when only a part of its
    name (a surname, the part before a comma): "Robert Erskine Childers" named in full beats
    "Erskine Barton Childers", whose surname alone the question shares."""
    if not named:
        return 0.0
    return ABOUT_BONUS if names and names[0] in named else ABOUT_BONUS / 2


def _without_names(query: str, names: Sequence[str]) -> str:
    """The query less the things it names (longest first): what it asks of them."""
    rest = query
    for name in sorted(set(names), key=len, reverse=True):
        rest = re.sub(r"(?<!\w)" + re.escape(name) + r"(?!\w)", " ", rest, flags=re.IGNORECASE)
    return " ".join(rest.split()) or query


def _link_pattern(query: str, results: Sequence[SearchResultIn]) -> list[re.Pattern | None]:
    """Per result, a pattern of its whole name (the title less its qualifier) when the query does not
    name it: a sentence of another result that names it links the two (the hop of a bridge question)."""
    out: list[re.Pattern | None] = []
    for r in results:
        names = subject_names(r.title or "")
        whole = r"(?<!\w)" + re.escape(names[0]) + r"(?!\w)" if names and len(names[0]) >= 4 else None
        named = whole is None or re.search(whole, query, re.IGNORECASE)
        out.append(None if named else _names_pattern(names[:1]))
    return out


def _links_other(links: list[re.Pattern | None], sentence: str, own: int) -> bool:
    return any(p is not None and j != own and p.search(sentence) for j, p in enumerate(links))


def subject_names(title: str) -> list[str]:
    """What a passage about ``title`` is called: the title less qualifiers, its head, a surname."""
    base = _TITLE_QUALIFIER.sub("", title).strip()
    if not base:
        return []
    names = [base]
    if "," in base:
        names.append(base.split(",", 1)[0].strip())
    tokens = base.split()
    if 2 <= len(tokens) <= 4 and all(t[:1].isupper() for t in tokens) and len(tokens[-1]) > 3:
        names.append(tokens[-1])
    return names


def core_terms(query: str, sentence: str, df: Counter, n_docs: int, brief: str = "", k: int = 7) -> list[str]:
    """3-7 words of the sentence: the query's terms found in it, then the words of its brief
    answer (what answers the query: "American" for a nationality), then its most distinctive
    words."""
    q_stems = {stem(w) for w in words(query)} & content_terms(query)
    found, seen = [], set()
    tokens = [w for w in re.findall(r"[\w'’-]+", sentence) if len(w) > 2]
    for w in tokens:
        s = stem(w.lower())
        if s in q_stems and s not in seen:
            seen.add(s)
            found.append(w)
    for w in re.findall(r"[\w'’-]+", brief):
        s = stem(w.lower())
        if len(w) > 2 and s not in seen and s in content_terms(w) and len(found) < k:
            seen.add(s)
            found.append(w)
    rest = sorted(
        (
            (math.log(1 + n_docs / (1 + df.get(stem(w.lower()), 0))), w)
            for w in tokens
            if stem(w.lower()) not in seen and stem(w.lower()) in content_terms(w)
        ),
        key=lambda x: -x[0],
    )
    for _, w in rest:
        if len(found) >= k:
            break
        if stem(w.lower()) not in seen:
            seen.add(stem(w.lower()))
            found.append(w)
    return found[:k]


def brief_answer(query: str, sentence: Span, max_words: int = 8) -> str:
    """The shortest informative span of the sentence: its clause that says most beyond the query.
    Parenthesised asides (life dates, another name) are left out first, so that a brief never
    stops inside one ("Edward Davis Wood Jr. (October 10" is no answer)."""
    q_terms = content_terms(query)
    plain = _ASIDE.sub("", sentence.text).strip()
    whole = Span(0, len(plain), plain)
    clauses = split_clauses(whole) or [whole]

    def value(c: Span) -> tuple[float, int]:
        terms = content_terms(c.text)
        return (len(terms - q_terms) + 0.5 * len(terms & q_terms), -len(c.text))

    text = max(clauses, key=value).text.strip()
    text = _LEADING.sub("", text).strip(" ,;:.")
    tokens = text.split()
    if len(tokens) > max_words:
        tokens = _whole_window(tokens, q_terms, max_words)
    answer = " ".join(tokens).strip(" ,;:")
    return answer[:1].upper() + answer[1:] if answer else ""


#: a phrase may start with an article; one cut before these words loses its complement
#: ("... film directed | by Scott Derrickson")
_ARTICLES = frozenset("a an the".split())
_COMPLEMENTS = frozenset("by of to for with from as".split())
#: lower-case words inside a name ("Deliver Us from Evil", "Isle of Man")
_NAME_JOINERS = frozenset("of from the de del da du von van la le".split())


def _in_name(tokens: list[str], i: int) -> bool:
    """``tokens[i]`` continues a name begun before it ("Wood Hollow", "... from Evil")."""
    if i <= 0 or i >= len(tokens) or not tokens[i][:1].isupper() or tokens[i - 1][-1:] in ".,;:!?":
        return False
    before = tokens[i - 1]
    return before[:1].isupper() or (before in _NAME_JOINERS and i >= 2 and tokens[i - 2][:1].isupper())


def _whole_window(tokens: list[str], q_terms: set[str], max_words: int, min_words: int = 5) -> list[str]:
    """The 5 to ``max_words`` words that say most beyond the query, neither starting nor ending
    inside a name, nor ending on a function word ("Evil is a 2014 American ..." and "... for
    Ed Wood" cut a name), and first those not cut before a complement ("... film directed | by");
    the densest window of ``max_words`` words when none is whole."""

    def fresh(a: int, b: int) -> int:
        return len(content_terms(" ".join(tokens[a:b])) - q_terms)

    whole = [
        (b == len(tokens) or tokens[b].lower() not in _COMPLEMENTS, fresh(a, b), a == 0, b - a, -a, a, b)
        for a in range(len(tokens))
        for b in range(a + min_words, min(a + max_words, len(tokens)) + 1)
        if not _in_name(tokens, a)
        and not _in_name(tokens, b)
        and (a == 0 or tokens[a].lower() in _ARTICLES or tokens[a].lower() not in STOPWORDS)
        and tokens[b - 1].lower().strip(",;:") not in STOPWORDS
    ]
    if whole:
        *_, a, b = max(whole)
        return tokens[a:b]
    a = max(range(len(tokens) - max_words + 1), key=lambda s: (fresh(s, s + max_words), -s))
    return tokens[a : a + max_words]


def introduction(query: str, ranked: list[RankedResult], threshold: int) -> str:
    kept = [r for r in ranked if r.kept]
    if not kept:
        return (
            f'None of the {len(ranked)} results reached the relevance threshold ({threshold}) for "{query}".'
        )
    best = kept[0]
    name = f'"{best.title}"' if best.title else f"result {best.id}"
    return (
        f'{len(kept)} of {len(ranked)} results are relevant to "{query}". '
        f"The strongest, {name}, answers: {best.briefAnswer}."
    )


def semantic_note(query: str, results: Sequence[SearchResultIn], per: list[dict]) -> str | None:
    """A query term used in clearly different senses across results: the sentences using it disagree."""
    notes = []
    surface = {stem(w): w for w in words(query)}  # report the query's word, not its stem
    for term in sorted(content_terms(query)):
        contexts = []
        for r, p in zip(results, per):
            k = next((k for k, s in enumerate(p["sentences"]) if term in content_terms(s.text)), None)
            if k is not None:
                contexts.append((r.title or r.id or "", p["sentences"][k].text, p["sent_vecs"][k]))
        if len(contexts) < 2:
            continue
        vecs = np.stack([c[2] for c in contexts[:6]])
        sims = vecs @ vecs.T
        i, j = np.unravel_index(np.argmin(sims), sims.shape)
        if sims[i, j] < SENSES_COS:
            notes.append(
                f'"{surface.get(term, term)}" is used in different senses: in {contexts[i][0] or "one result"} '
                f'("{contexts[i][1][:80]}") and in {contexts[j][0] or "another"} ("{contexts[j][1][:80]}").'
            )
    return " ".join(notes[:2]) or None
