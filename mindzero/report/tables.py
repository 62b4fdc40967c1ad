"""The command line's tables: one printer (left-aligned columns under a dashed rule) and the
tables more than one command prints."""

from __future__ import annotations

from collections.abc import Sequence


def format_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Columns as wide as their widest cell, two spaces apart, a dashed rule under the header."""
    cells = [[str(c) for c in header], *[[str(c) for c in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def metric_rows(metrics: dict, digits: int = 4) -> list[list[str]]:
    """``[name, value]`` rows of the scalar entries of a metrics mapping (floats to ``digits``
    significant digits; nested mappings and lists are left to results.json)."""
    return [
        [k, f"{v:.{digits}g}" if isinstance(v, float) else str(v)]
        for k, v in metrics.items()
        if not isinstance(v, (dict, list))
    ]


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    """A GitHub-flavoured Markdown table, one line per row (``|`` in cells escaped)."""
    cell = lambda c: str(c).replace("|", "\\|")  # noqa: E731
    return [
        "| " + " | ".join(map(cell, header)) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(map(cell, row)) + " |" for row in rows),
    ]


def step_accuracy_table(metrics: dict) -> str:
    """PBM step accuracy per belief order and their mean beside always-``+`` (Table 4), and the PBM's
    accuracy over the steps up to each trace's first wrong one."""
    acc, plus, scoped = metrics["step_accuracy"], metrics["always_plus"], metrics["to_first_error"]
    rows = [
        [order, f"{value:.4f}", f"{plus['by_order'][order]:.4f}", f"{scoped['by_order'][order]:.4f}"]
        for order, value in acc["by_order"].items()
    ]
    avg = ["avg", f"{acc['avg']:.4f}", f"{plus['avg']:.4f}", f"{scoped['avg']:.4f}"]
    table = format_table(["order", "PBM", "always +", "PBM to first error"], [*rows, avg])
    lines = [
        f"a step is correct above {metrics['threshold']:g}",
        table,
        f"always + up to the first error: {scoped['always_plus']:.4f}",
    ]
    if scoped["auc"] is not None:
        lines.append(f"AUC of the scores up to the first error (right vs wrong steps): {scoped['auc']:.4f}")
    if scoped.get("first_errors_caught") is not None:
        lines.append(f"first wrong steps caught: {scoped['first_errors_caught']:.4f}")
    if len(acc.get("by_source", {})) > 1:
        lines.append("by kind of trace: " + ", ".join(f"{k} {v:.4f}" for k, v in acc["by_source"].items()))
    return "\n".join(lines)
