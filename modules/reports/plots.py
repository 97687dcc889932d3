"""Plots for run reports, rendered by matplotlib to inline SVG (text kept as text, no external
font or image): the page stays one file that opens anywhere."""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import datetime, timedelta
from functools import cache

from ..response.tables import METRICS


@cache
def _pyplot():
    """matplotlib's pyplot, set up at the first plot: importing it takes ~0.6 s that every
    flow would pay at start (they import the report module for its markdown and tables)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {
            "svg.fonttype": "none",
            "svg.hashsalt": "sleuth",
            "font.size": 9,
            "axes.spines.top": False,
            "axes.spines.right": False,
        }
    )
    return plt


TIERS = ("excellent", "good", "fair", "poor")
TIER_COLOURS = {"excellent": "#137333", "good": "#81c995", "fair": "#fbbc04", "poor": "#d93025"}
PALETTE = ["#1a73e8", "#e8710a", "#9334e6", "#12b5cb", "#d01884", "#188038", "#f9ab00", "#5f6368"]


def colours(n: int) -> list[str]:
    """``n`` distinct colours, one per group: the palette, then as many more as needed (an
    agency auditing nine sites, a run of twelve providers) from matplotlib's 20-colour map,
    repeating only past 28 groups."""
    if n <= len(PALETTE):
        return PALETTE[:n]
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    extra = [to_hex(c) for c in colormaps["tab20"].colors]
    extra = [c for c in extra if c not in PALETTE]
    pool = PALETTE + extra
    return [pool[i % len(pool)] for i in range(n)]


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": "sleuth"})
    _pyplot().close(fig)
    text = buf.getvalue()
    return text[text.index("<svg") :]


def histograms(values: dict[str, dict[str, list[float]]], title_prefix: str = "") -> str:
    """One panel per metric: the score histogram (0-100, 10 bins) of each group (domain, provider)."""
    fig, axes = _pyplot().subplots(1, len(METRICS), figsize=(10, 2.6), sharey=True)
    bins = list(range(0, 101, 10))
    for ax, metric in zip(axes, METRICS):
        groups = [(g, v[metric]) for g, v in values.items() if v.get(metric)]
        if groups:
            ax.hist(
                [v for _, v in groups],
                bins=bins,
                label=[g for g, _ in groups],
                color=colours(len(groups)),
                stacked=True,
            )
        ax.set_title(f"{title_prefix}{metric}")
        ax.set_xlim(0, 100)
        ax.set_xlabel("score")
    axes[0].set_ylabel("answers")
    if len(values) > 1:
        axes[-1].legend(fontsize=7, frameon=False)
    return _svg(fig)


def tier_bars(counts: dict[str, dict[str, dict[str, int]]]) -> str:
    """Stacked bars of tier counts: one bar per group and metric (``counts[group][metric][tier]``)."""
    labels, stacks = [], {t: [] for t in TIERS}
    for group, per_metric in counts.items():
        for metric in METRICS:
            labels.append(f"{group} · {metric}")
            for t in TIERS:
                stacks[t].append(per_metric.get(metric, {}).get(t, 0))
    fig, ax = _pyplot().subplots(figsize=(10, 0.35 * len(labels) + 0.8))
    left = [0] * len(labels)
    for t in TIERS:
        ax.barh(labels, stacks[t], left=left, color=TIER_COLOURS[t], label=t)
        left = [a + b for a, b in zip(left, stacks[t])]
    ax.invert_yaxis()
    ax.set_xlabel("answers")
    ax.legend(ncol=4, fontsize=7, frameon=False, loc="lower right", bbox_to_anchor=(1, 1))
    return _svg(fig)


def trends(
    series: dict[str, list[tuple[datetime, float | None]]],
    current: datetime | None,
    title: str,
    ylabel: str = "mean score",
) -> str:
    """A value per run over time (mean scores, or shares of answers in %), one line per series;
    the current run marked."""
    fig, ax = _pyplot().subplots(figsize=(10, 2.6))
    for (name, points), colour in zip(series.items(), colours(len(series))):
        pts = [(t, v) for t, v in points if v is not None]
        if pts:
            ax.plot([t for t, _ in pts], [v for _, v in pts], marker="o", color=colour, label=name)
    if current is not None:
        ax.axvline(current, color="#999", linestyle=":", linewidth=1)
    times = sorted({t for points in series.values() for t, _ in points} | ({current} if current else set()))
    if times and (times[-1] - times[0]).total_seconds() < 3600:  # one run: a day around it, not years
        ax.set_xlim(times[0] - timedelta(hours=12), times[-1] + timedelta(hours=12))
    from matplotlib.dates import ConciseDateFormatter

    ax.xaxis.set_major_formatter(ConciseDateFormatter(ax.xaxis.get_major_locator()))
    ax.set_ylim(0, 100)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=7, frameon=False)
    return _svg(fig)


def grouped_bars(groups: Sequence[str], values: dict[str, Sequence[float | None]], title: str) -> str:
    """Mean scores per metric, side by side per group (providers on one query set)."""
    fig, ax = _pyplot().subplots(figsize=(10, 2.8))
    width = 0.8 / max(len(values), 1)
    for i, ((name, vals), colour) in enumerate(zip(values.items(), colours(len(values)))):
        xs = [j + i * width for j in range(len(groups))]
        ax.bar(xs, [v or 0 for v in vals], width=width, color=colour, label=name)
    ax.set_xticks([j + width * (len(values) - 1) / 2 for j in range(len(groups))], groups, fontsize=8)
    ax.set_ylim(0, 100)
    ax.set_title(title)
    ax.legend(fontsize=7, frameon=False, ncol=min(len(values), 6))
    return _svg(fig)


def share_bars(groups: Sequence[str], shares: dict[str, Sequence[float | None]], title: str) -> str:
    """One stacked bar per group (provider), split by each brand's share (0-1) of it: share of
    voice, the site first in the legend."""
    fig, ax = _pyplot().subplots(figsize=(10, 0.45 * len(groups) + 1.0))
    left = [0.0] * len(groups)
    for (name, vals), colour in zip(shares.items(), colours(len(shares))):
        widths = [100 * (v or 0) for v in vals]
        ax.barh(list(groups), widths, left=left, color=colour, label=name)
        for y, (x0, w) in enumerate(zip(left, widths)):
            if w >= 6:
                ax.text(x0 + w / 2, y, f"{w:.0f}%", ha="center", va="center", fontsize=7, color="white")
        left = [a + b for a, b in zip(left, widths)]
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of the tracked brands' mentions")
    ax.set_title(title)
    ax.legend(
        ncol=min(len(shares), 6), fontsize=7, frameon=False, loc="lower right", bbox_to_anchor=(1, 1.08)
    )
    return _svg(fig)


def confidence_curve(steps: Sequence[tuple[int, float | None, str]], title: str) -> str:
    """Confidence after each step of a research thread, each point labelled with what was searched."""
    fig, ax = _pyplot().subplots(figsize=(10, 2.4))
    pts = [(s, c, a) for s, c, a in steps if c is not None]
    if pts:
        ax.plot([s for s, _, _ in pts], [c for _, c, _ in pts], marker="o", color=PALETTE[0])
        for s, c, a in pts:
            ax.annotate(a, (s, c), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=6)
    ax.set_ylim(0, 1.1)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("step")
    ax.set_ylabel("confidence")
    ax.set_title(title)
    return _svg(fig)
