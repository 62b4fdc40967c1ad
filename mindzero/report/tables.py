"""The one table printer of the command line: left-aligned columns under a dashed rule."""

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
