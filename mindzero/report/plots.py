"""Figures of the papers, drawn with matplotlib (Agg backend, no display needed)."""

from __future__ import annotations

import io
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from mindzero.core.results import atomic_write_bytes  # noqa: E402


def save_figure(fig: plt.Figure, path: str | Path) -> Path:
    """Save ``fig`` as PNG atomically and close it."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120, bbox_inches="tight")
    plt.close(fig)
    atomic_write_bytes(path, buf.getvalue())
    return Path(path)


def plot_goal_accuracy(curves: dict[str, list[float | None]], path: str | Path, title: str = "") -> Path:
    """Paper Fig. 5: MAP-goal accuracy vs task progress, one line per method."""
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    for name, curve in curves.items():
        n = len(curve)
        xs = [(i + 0.5) / n for i, v in enumerate(curve) if v is not None]
        ys = [v for v in curve if v is not None]
        ax.plot(xs, ys, marker="o", ms=3, label=name)
    ax.set_xlabel("task progress (fraction of episode)")
    ax.set_ylabel("goal accuracy (MAP = true goal)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title, fontsize=10)
    return save_figure(fig, path)
