"""Every size, count and length option has an upper bound from what this machine can do: one step
past it is a one-line error before any work (no allocation, no progress bar of 63 million hours)."""

from __future__ import annotations

import resource
import time

import pytest

from mindzero.cli import main

PROBES = [
    ["gridworld", "assist", "--size", "33"],
    ["gridworld", "assist", "--size", "3000"],
    ["gridworld", "assist", "--size", "100000"],
    ["gridworld", "assist", "--size", "200", "--seeds", "1,2,3,4,5,6,7,8,9,10"],
    ["gridworld", "assist", "--episodes", "10001"],
    ["gridworld", "assist", "--episodes", "1000000000000"],
    ["gridworld", "assist", "--max-steps", "10001"],
    ["gridworld", "assist", "--n-objects", "11"],
    ["gridworld", "qa-data", "--train-episodes", "100001", "--out", "/tmp/never"],
    ["gridworld", "qa-data", "--test-episodes", "100001", "--out", "/tmp/never"],
    ["household", "assist", "--episodes", "10001"],
    ["household", "assist", "--max-steps", "10001"],
    ["household", "mmtom-data", "--per-type", "10001"],
    ["household", "mmtom-eval", "--data", "x.jsonl", "--inference-samples", "1000001"],
    ["household", "ask", "--story", "x.txt", "--inference-samples", "1000001"],
    ["stories", "generate", "--n", "1000001"],
    ["stories", "scale-eval", "--stories", "100001"],
    ["stories", "scale-eval", "--pool", "1025"],
    ["stories", "scale-eval", "--ns", "1,2048"],
    ["stories", "scale-eval", "--trials", "10001"],
    ["stories", "scale-eval", "--max-new-tokens", "32769"],
    ["stories", "scale-eval", "--beam-k", "257"],
    ["stories", "scale-eval", "--beam-b", "257"],
    ["stories", "pbm-data", "--samples", "1025"],
    ["stories", "pbm-data", "--max-new-tokens", "32769"],
    ["gridworld", "qa-eval", "--data", "x.jsonl", "--max-new-tokens", "32769"],
    ["gridworld", "assist", "--reasoner", "llm", "--max-new-tokens", "32769"],
    ["household", "assist", "--max-new-tokens", "32769"],
    ["household", "mmtom-eval", "--data", "x.jsonl", "--max-new-tokens", "32769"],
    ["serve", "--max-sessions", "100001"],
    ["serve", "--study-tasks", "1001"],
    ["train", "ablation", "--episodes", "10001"],
    ["train", "ssrl", "--eval-questions", "100001"],
    ["train", "ssrl", "--data-episodes", "1000001"],
]


@pytest.mark.parametrize("argv", PROBES, ids=[" ".join(a[:4]) for a in PROBES])
def test_an_option_past_its_bound_is_a_one_line_error(argv: list[str], capsys) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "must be in [" in err, err
    assert time.perf_counter() - started < 2.0
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 1_000_000  # kB: under 1 GB more



def test_a_huge_option_value_is_quoted_short(capsys) -> None:
    assert main(["gridworld", "assist", "--protocol", "x" * 5000]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < 400 and "(5,000 characters)" in err
