"""Story generation + DEL labelling throughput (issue 3 acceptance figures).

    python benchmarks/bench_stories.py            # 20,000 one-chapter stories (target <= 60 s, <= 1 GiB)
    python benchmarks/bench_stories.py --n 2000   # quick run

Prints: wall time and peak RSS for generating ``--n`` one-chapter stories, each with one question
per order 0-4 and the engine's belief label after every line for every question; per-story time
for lengths 1, 2 and 3; the number of worlds in the largest epistemic model met; and the cost of
rendering + checking the gold traces; then the same rate for the multi-room mode.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mindzero.stories.generator import generate_stories  # noqa: E402
from mindzero.stories.traces import check_trace, render_gold_trace  # noqa: E402


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000, help="one-chapter stories for the main figure")
    parser.add_argument("--per-length", type=int, default=500, help="stories per length for per-story times")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--semantics", choices=("hitom", "del"), default="hitom")
    args = parser.parse_args()

    rss0 = peak_rss_mib()
    t0 = time.perf_counter()
    stories = list(generate_stories(args.n, args.seed, lengths=(1,), semantics=args.semantics, progress=True))
    elapsed = time.perf_counter() - t0
    labels = sum(len(row) for s in stories for row in s.labels)
    questions = sum(len(s.questions) for s in stories)
    print(f"semantics                    {args.semantics}")
    print(f"one-chapter stories          {args.n}")
    print(f"questions (orders 0-4)       {questions}")
    print(f"per-line labels              {labels}")
    print(f"wall time                    {elapsed:.1f} s  ({1000 * elapsed / args.n:.3f} ms/story)")
    print(f"peak RSS                     {peak_rss_mib():.0f} MiB (before: {rss0:.0f} MiB)")
    print(f"largest model (worlds)       {max(s.max_worlds for s in stories)}")

    for length in (1, 2, 3):
        t0 = time.perf_counter()
        batch = list(generate_stories(args.per_length, args.seed + length, lengths=(length,), semantics=args.semantics))
        per = (time.perf_counter() - t0) / args.per_length
        lines = sum(len(s.events) for s in batch) / len(batch)
        print(
            f"length {length}: {1000 * per:.3f} ms/story, {lines:.1f} lines/story, "
            f"largest model {max(s.max_worlds for s in batch)} worlds"
        )

    sample = stories[: min(1000, len(stories))]
    t0 = time.perf_counter()
    n_traces = 0
    for s in sample:
        for q, row, answer in zip(s.questions, s.labels, s.answers):
            check = check_trace(render_gold_trace(s.events, q, row), row, answer)
            assert check.first_error is None and check.final_correct
            n_traces += 1
    per_trace = (time.perf_counter() - t0) / n_traces
    print(f"gold trace render+check      {1e6 * per_trace:.0f} us/trace ({n_traces} traces, all pass)")

    t0 = time.perf_counter()
    multi = list(generate_stories(args.n, args.seed, semantics=args.semantics, mode="multiroom"))
    elapsed = time.perf_counter() - t0
    lines = sum(len(s.events) for s in multi) / len(multi)
    print(
        f"multiroom stories            {args.n} in {elapsed:.1f} s ({1000 * elapsed / args.n:.3f} ms/story, "
        f"{lines:.1f} lines/story, largest model {max(s.max_worlds for s in multi)} worlds)"
    )


if __name__ == "__main__":
    main()
