"""The README shows what the commands really print."""

from __future__ import annotations

from pathlib import Path

from mindzero.commands.assist_runs import HEADER

README = (Path(__file__).parent.parent / "README.md").read_text()


def test_the_main_jobs_sample_table_has_the_real_columns() -> None:
    sample = next(line for line in README.splitlines() if line.startswith("reasoner  speedup"))
    assert sample.split() == list(HEADER)
