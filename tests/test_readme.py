"""The README shows what the commands really print."""

from __future__ import annotations

from pathlib import Path

from mindzero.commands.assist_runs import HEADER

README = (Path(__file__).parent.parent / "README.md").read_text()


def test_the_main_jobs_sample_table_has_the_real_columns() -> None:
    sample = next(line for line in README.splitlines() if line.startswith("reasoner  speedup"))
    assert sample.split() == list(HEADER)


def _learning_claims(text: str) -> str:
    return text.split("<!-- learning-claims -->\n")[1].split("<!-- /learning-claims -->")[0]


def test_the_learning_claim_is_one_table_quoted_alike_and_consistent() -> None:
    """README and docs/ssrl.md quote the same table (benchmarks/learning_claims.py --docs), and its
    mean line is the mean of its rows' final accuracies."""
    import statistics

    quoted = _learning_claims(README)
    assert quoted == _learning_claims((Path(__file__).parent.parent / "docs" / "ssrl.md").read_text())
    rows = [line.split("|")[1:-1] for line in quoted.splitlines() if line.startswith("| ") and "seed" not in line]
    finals = [float(r[-1]) for r in rows]
    mean = float(quoted.split("mean ± sd over ")[1].split(": ")[1].split(" ± ")[0])
    assert rows and abs(statistics.mean(finals) - mean) < 0.0005
