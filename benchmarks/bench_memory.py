"""Peak memory of the assistance benchmark against its number of episodes: episodes are made on
demand and samples stream to disk, so peak RSS should not grow with ``--episodes``.

    python benchmarks/bench_memory.py [--episodes 1000,100000] [--seeds 10] [--reasoner none]

Each size runs ``mindzero gridworld assist`` in its own subprocess; its peak RSS comes from the
kernel's rusage of that child (``os.wait4``), in MiB, beside the wall time.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time


def measure(episodes: int, seeds: str, reasoner: str, out: str) -> tuple[float, float]:
    """(peak RSS in MiB, seconds) of one ``gridworld assist`` run in a child process."""
    argv = [sys.executable, "-m", "mindzero", "gridworld", "assist", "--episodes", str(episodes)]
    argv += ["--seeds", seeds, "--reasoner", reasoner, "--out", out]
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed with exit status {os.waitstatus_to_exitcode(status)}")
    return usage.ru_maxrss / 1024, seconds  # ru_maxrss is in KiB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", default="1000,100000", help="comma list of episode counts (per seed)")
    parser.add_argument("--seeds", default="10", help="agent seeds of every run")
    parser.add_argument("--reasoner", default="none", help="the cheapest reasoner measures the benchmark itself")
    args = parser.parse_args()
    print(f"gridworld assist --reasoner {args.reasoner} --seeds {args.seeds}")
    print(f"{'episodes':>10}  {'peak RSS (MiB)':>14}  {'seconds':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(x) for x in args.episodes.split(",")):
            rss, seconds = measure(n, args.seeds, args.reasoner, os.path.join(tmp, str(n)))
            print(f"{n:>10}  {rss:>14.1f}  {seconds:>8.1f}", flush=True)


if __name__ == "__main__":
    main()
