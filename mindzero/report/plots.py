"""Figures of the papers, drawn with matplotlib (Agg backend, no display needed).

matplotlib is imported on first use, so the command modules that import this one keep
``mindzero --help`` fast.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from mindzero.core.results import atomic_write_bytes


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: str | Path) -> Path:
    """Save ``fig`` as PNG atomically and close it."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120, bbox_inches="tight")
    pyplot().close(fig)
    atomic_write_bytes(path, buf.getvalue())
    return Path(path)


def plot_goal_accuracy(
    curves: dict[str, list[float | None]], path: str | Path, title: str = "", metric: str = "MAP-goal accuracy"
) -> Path:
    """Paper Fig. 5: a domain's goal score (``metric``: GridWorld's MAP-goal accuracy, Household's
    goal F1) vs task progress, one line per method."""
    fig, ax = pyplot().subplots(figsize=(5.5, 3.6))
    for name, curve in curves.items():
        n = len(curve)
        xs = [(i + 0.5) / n for i, v in enumerate(curve) if v is not None]
        ys = [v for v in curve if v is not None]
        ax.plot(xs, ys, marker="o", ms=3, label=name)
    ax.set_xlabel("task progress (fraction of episode)")
    ax.set_ylabel(metric)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title, fontsize=10)
    return save_figure(fig, path)


def plot_scaling(metrics: dict, path: str | Path, title: str = "") -> Path:
    """DEL-ToM Fig. 3: average accuracy vs N, (a) vanilla and (b) weighted BoN, majority dashed.

    ``metrics`` is scale-eval's: ``accuracy[method][N]["avg"]`` with methods ``vanilla-<how>``,
    ``weighted-<how>`` (one line per aggregation ``how``) and ``majority``.
    """
    acc = metrics["accuracy"]
    ns = sorted(int(n) for n in acc["majority"])
    aggregations = [name.split("-", 1)[1] for name in acc if name.startswith("vanilla-")]
    fig, axes = pyplot().subplots(1, 2, figsize=(9, 3.4), sharey=True)
    for ax, strategy, label in zip(axes, ("vanilla", "weighted"), ("(a) Vanilla BoN", "(b) Weighted BoN")):
        for how in aggregations:
            ax.plot(ns, [acc[f"{strategy}-{how}"][str(n)]["avg"] for n in ns], marker="o", ms=3, label=how)
        ax.plot(ns, [acc["majority"][str(n)]["avg"] for n in ns], "k--", marker="x", ms=3, label="majority")
        ax.set_xscale("log", base=2)
        ax.set_xticks(ns, [str(n) for n in ns])
        ax.set_xlabel("N (traces)")
        ax.set_title(label, fontsize=10)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("accuracy (mean over orders)")
    axes[1].legend(fontsize=8)
    if title:
        fig.suptitle(title, fontsize=10)
    return save_figure(fig, path)


def plot_learning_curves(rows: list[dict], path: str | Path, title: str = "") -> Path:
    """The SSRL learning curve (``OUT/curves.jsonl``) against its reference lines.

    QA rows: held-out accuracy with exact inference (1.0, it made the labels) and chance (0.5).
    Assist rows: KL(exact ‖ model) with the uniform posterior's, and p(true goal) with exact's
    and the uniform's."""
    steps = [r["step"] for r in rows]
    if "accuracy" in rows[0]:
        panels = [("held-out QA accuracy", [("model", "accuracy")], [("exact inference", 1.0), ("chance", 0.5)])]
    else:
        last = rows[-1]
        panels = [
            ("KL(exact ‖ model), nats", [("model", "kl_to_exact")], [("uniform", last["uniform_kl_to_exact"])]),
            (
                "p(true goal)",
                [("model", "true_goal_prob")],
                [("exact inference", last["exact_true_goal_prob"]), ("uniform", last["uniform_true_goal_prob"])],
            ),
        ]
    fig, axes = pyplot().subplots(1, len(panels), figsize=(5.2 * len(panels), 3.4), squeeze=False)
    for ax, (label, series, references) in zip(axes[0], panels):
        for name, key in series:
            ax.plot(steps, [r[key] for r in rows], marker="o", ms=3, label=name)
        for (name, value), style in zip(references, ("--", ":")):
            ax.axhline(value, color="gray", linestyle=style, label=name)
        ax.set_xlabel("GRPO step")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    if title:
        fig.suptitle(title, fontsize=10)
    return save_figure(fig, path)


def plot_ablation(
    summary: dict[str, dict], path: str | Path, title: str = "", references: dict[str, dict] | None = None
) -> Path:
    """Paper Table 2 as bars: assistance speedup (± stderr) and KL to exact inference per row; the
    ``references`` (reasoner name -> metrics, e.g. random and exact) as dashed speedup lines."""
    names = list(summary)
    fig, (left, right) = pyplot().subplots(1, 2, figsize=(9, 3.2))
    left.bar(names, [summary[n]["speedup_mean"] for n in names], yerr=[summary[n]["speedup_stderr"] for n in names])
    for (name, metrics), color in zip((references or {}).items(), ("tab:gray", "tab:green", "tab:red")):
        left.axhline(metrics["speedup_mean"], color=color, linestyle="--", linewidth=1, label=name)
    if references:
        left.legend(fontsize=8)
    left.set_ylabel("assistance speedup")
    right.bar(names, [summary[n]["kl_to_exact_mean"] for n in names], color="tab:orange")
    right.set_ylabel("KL(exact ‖ model), nats")
    for ax in (left, right):
        ax.grid(alpha=0.3, axis="y")
        ax.tick_params(axis="x", labelsize=8)
    if title:
        fig.suptitle(title, fontsize=10)
    return save_figure(fig, path)
