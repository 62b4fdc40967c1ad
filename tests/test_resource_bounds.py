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
    ["gridworld", "assist", "--batch-size", "1025"],
    ["household", "assist", "--batch-size", "1025"],
    ["household", "mmtom-eval", "--data", "x.jsonl", "--batch-size", "1025"],
    ["gridworld", "qa-eval", "--data", "x.jsonl", "--concurrency", "257"],
    ["serve", "--max-sessions", "100001"],
    ["serve", "--study-tasks", "1001"],
    ["train", "ablation", "--episodes", "10001"],
    ["train", "ssrl", "--eval-questions", "100001"],
    ["train", "ssrl", "--data-episodes", "1000001"],
    ["train", "ssrl", "--max-steps", "1000001"],
    ["train", "ssrl", "--prompts-per-step", "4097"],
    ["train", "ssrl", "--num-generations", "1025"],
    ["train", "ssrl", "--max-completion-length", "32769"],
    ["train", "ssrl", "--scratch-hidden", "8193"],
    ["train", "ssrl", "--scratch-layers", "129"],
    ["train", "ssrl", "--scratch-vocab", "262145"],
    ["train", "ssrl", "--data-n-particles", "257"],
    ["train", "format-sft", "--warm-start-steps", "1000001"],
    ["train", "pbm", "--stories", "1000001"],
    ["train", "pbm", "--max-length", "32769"],
    ["train", "trace-policy", "--batch-size", "4097"],
    ["household", "assist", "--smc-particles", "100001"],
    ["gridworld", "assist", "--reasoner", "llm", "--n-particles", "257"],
    ["gridworld", "assist", "--teleport", "10001"],
    ["stories", "scale-eval", "--batch", "4097"],
]

#: Options each within its bound, together past this machine's memory: refused by the estimate.
TOO_BIG = [
    ["train", "ssrl", "--preset", "cpu-tiny", "--scratch-hidden", "8192", "--scratch-layers", "128"],
    ["train", "ssrl", "--preset", "cpu-tiny", "--scratch-vocab", "262144", "--prompts-per-step", "4096",
     "--num-generations", "1024", "--max-completion-length", "32768"],
    ["train", "format-sft", "--model", "scratch", "--scratch-hidden", "8192", "--scratch-layers", "128"],
    ["train", "pbm", "--model", "scratch", "--scratch-hidden", "8192", "--scratch-layers", "64"],
    ["train", "trace-policy", "--model", "scratch", "--scratch-hidden", "4096", "--scratch-layers", "128"],
]  # fmt: skip


def refused(argv: list[str], capsys) -> str:
    """The one-line error ``argv`` gets, checked to come in under 2 s and 1 GB more memory."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert time.perf_counter() - started < 2.0
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 1_000_000  # kB: under 1 GB more
    return err


@pytest.mark.parametrize("argv", PROBES, ids=[" ".join(a[:4]) for a in PROBES])
def test_an_option_past_its_bound_is_a_one_line_error(argv: list[str], capsys) -> None:
    assert "must be in [" in refused(argv, capsys)


@pytest.mark.parametrize("argv", TOO_BIG, ids=[" ".join(a[:2] + a[-4:]) for a in TOO_BIG])
def test_a_run_past_the_machines_memory_is_refused_with_its_estimate(argv: list[str], tmp_path, capsys) -> None:
    err = refused([*argv, "--out", str(tmp_path / "run")], capsys)
    assert "needs about" in err and "GiB available" in err, err
    assert not [p for p in (tmp_path / "run").rglob("*") if p.is_file()]  # nothing written


def test_the_estimate_lets_through_what_fits(monkeypatch) -> None:
    """The cpu-tiny recipe fits in 1 GiB by the estimate, and not in 1 MiB."""
    from mindzero.core.errors import UserError
    from mindzero.train.base import ScratchSpec

    monkeypatch.setenv("MINDZERO_MEMORY_BYTES", str(2**30))
    ScratchSpec().require_memory(512, 8)
    monkeypatch.setenv("MINDZERO_MEMORY_BYTES", str(2**20))
    with pytest.raises(UserError, match="needs about"):
        ScratchSpec().require_memory(512, 8)


def test_every_count_option_states_its_upper_bound() -> None:
    """Each integer option but a seed shows its range in --help, so no count is unbounded."""
    import argparse

    from mindzero.cli import build_parser

    unbounded = []

    def walk(parser: argparse.ArgumentParser, path: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{path} {name}")
            elif action.option_strings and "INT" in str(action.metavar) and "seed" not in action.dest:
                if "at most" not in (action.help or "") and "in [" not in (action.help or ""):
                    unbounded.append(f"{path} {action.option_strings[-1]}")

    walk(build_parser(), "mindzero")
    assert unbounded == []


def test_a_huge_option_value_is_quoted_short(capsys) -> None:
    assert main(["gridworld", "assist", "--protocol", "x" * 5000]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < 400 and "(5,000 characters)" in err
