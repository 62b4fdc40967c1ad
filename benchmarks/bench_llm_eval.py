"""LLM-in-the-loop evaluation speed: decisions per second one at a time against batched, with the
decisions checked identical, and a served model's requests one at a time against concurrent.

    OMP_NUM_THREADS=1 HF_HUB_OFFLINE=1 python benchmarks/bench_llm_eval.py --tiny /tmp/tiny/final  # ~10 min
    python benchmarks/bench_llm_eval.py --tiny /tmp/tiny/final --quick     # about a minute

``--tiny`` is a cpu-tiny model folder (``mindzero train ssrl --preset cpu-tiny --task assist
--max-steps 2 --out /tmp/tiny``; its card says how to prompt it). For each model (the cpu-tiny one,
then SmolLM2-135M-Instruct unless ``--smollm2-episodes 0``) the same GridWorld assistance runs go
through ``tasks.assist.run_assist`` twice: one episode at a time (``batch=1``, the path before
batching) on the first ``--reference-episodes`` episodes, and all ``--episodes`` in lock-step
(``batch`` = the number of episodes: every pending decision of a tick in one padded ``generate``).
The rate is decisions per second of wall time of the whole run (simulator, prompts and parsing
included); the check is that the batched run's samples of the reference episodes equal the
one-at-a-time samples, timing aside. SmolLM2 takes about 5 s a decision on one thread, so its part
is 8 episodes of at most 15 ticks, 2 of them one at a time (``--smollm2-*``). Targets (issue 46):
batched >= 10x on cpu-tiny, >= 4x on SmolLM2; docs/llm.md has the measured figures and why a CPU
thread stops short of them.

Then ``--concurrency 8`` against ``1``: ``--questions`` GridWorld QA questions answered by
``LLMQAAnswerer`` through ``OpenAIBackend`` from a served model: llama.cpp's ``llama-server`` on the
packaged SmolLM2 GGUF with 8 slots, greedy (``--llama-server BIN``, by default ``$MINDZERO_LLAMA_SERVER``
or ``llama-server`` on PATH; docs/llm.md says how to build it), or, without one, the test suite's
server (``tests/llm/fake_openai_server.py``) with ``--server-delay`` seconds of latency per request.
Target (issue 46): >= 4x against the real server.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from mindzero.domains import get_domain  # noqa: E402
from mindzero.domains.gridworld import EpisodeConfig, episodes  # noqa: E402
from mindzero.domains.gridworld.qa import build_split  # noqa: E402
from mindzero.inference.llm import LLMQAAnswerer, LLMReasoner, LLMSettings  # noqa: E402
from mindzero.llm import OpenAIBackend, TransformersBackend  # noqa: E402
from mindzero.llm.card import ModelCard  # noqa: E402
from mindzero.llm.models import packaged_gguf  # noqa: E402
from mindzero.tasks.assist import AssistSettings, run_assist  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "llm"))
from fake_openai_server import FakeOpenAIServer  # noqa: E402
from llama_server import BINARY_VARIABLE, find_llama_server, llama_server  # noqa: E402

DOMAIN = get_domain("gridworld")


def llm_settings(model: str) -> LLMSettings:
    """How the model is asked: its card's prompt style, particles and budget, else the defaults."""
    card = ModelCard.read(model)
    if card is None:
        return LLMSettings(max_new_tokens=64)
    return LLMSettings(card.prompt_style, card.n_particles, max_new_tokens=card.max_new_tokens or 64)


def timed_assist(backend: TransformersBackend, llm: LLMSettings, runs: list, settings: AssistSettings, batch: int):
    """(decisions per second of wall time, decisions, seconds, samples without their timing)."""
    start = time.perf_counter()
    metrics, samples, _ = run_assist(
        DOMAIN, runs, settings, lambda seed: LLMReasoner(DOMAIN, backend, llm, seed), progress=False, batch=batch
    )
    seconds = time.perf_counter() - start
    for s in samples:
        s["reasoner"].pop("decisions_per_second")
    return metrics["decisions"] / seconds, metrics["decisions"], seconds, samples


def bench_model(name: str, model: str, args: argparse.Namespace, n_episodes: int, n_reference: int) -> dict:
    runs = list(episodes(EpisodeConfig(protocol=args.protocol, episodes=n_episodes, episode_seed=args.episode_seed)))
    settings = AssistSettings(seeds=[10], max_steps=args.max_steps, calibrate=False)
    llm = llm_settings(model)
    backend = TransformersBackend(model, batch_size=n_episodes)
    backend.generate(["warm up"], max_new_tokens=2, temperature=0.0)  # first-call allocations
    one_rate, one_n, one_s, one = timed_assist(backend, llm, runs[:n_reference], settings, 1)
    many_rate, many_n, many_s, many = timed_assist(backend, llm, runs, settings, n_episodes)
    same = many[:n_reference] == one
    print(
        f"{name}: {llm.prompt_style}, {llm.n_particles} particle(s), {llm.max_new_tokens} new tokens; "
        f"one at a time {one_n} decisions ({n_reference} episodes) in {one_s:.1f} s = {one_rate:.2f}/s; "
        f"batched {many_n} decisions ({n_episodes} episodes in lock-step) in {many_s:.1f} s = {many_rate:.2f}/s; "
        f"speedup {many_rate / one_rate:.1f}x; decisions identical: {same}",
        flush=True,
    )
    return {"speedup": many_rate / one_rate, "identical": same}


def served_rates(url: str, model: str | None, rows: list, temperature: float) -> tuple[dict, float]:
    """Questions per second with --concurrency 1 and 8 against one server, and the share of questions
    whose answer text is the same both ways."""
    rates, answers = {}, {}
    for concurrency in (1, 8):
        backend = OpenAIBackend(url, model, concurrency=concurrency)
        answerer = LLMQAAnswerer(DOMAIN, backend, settings=LLMSettings(max_new_tokens=4, temperature=temperature))
        start = time.perf_counter()
        answers[concurrency] = [r["text"] for records, _ in answerer.answers(rows, seed=0, batch=16) for r in records]
        rates[concurrency] = len(rows) / (time.perf_counter() - start)
    return rates, sum(a == b for a, b in zip(answers[1], answers[8])) / len(rows)


def served_assist_rates(url: str, args: argparse.Namespace) -> tuple[dict, float]:
    """Assistance decisions per second with --concurrency 1 and 8 against one server, the episodes in
    lock-step (every pending decision of a tick sent at once), and the share of runs whose decisions
    are the same both ways. Decoding dominates here (up to 64 new tokens a decision), prefill in QA."""
    runs = list(episodes(EpisodeConfig(protocol=args.protocol, episodes=args.served_episodes, episode_seed=0)))
    settings = AssistSettings(seeds=[10], max_steps=args.served_max_steps, calibrate=False)
    rates, samples = {}, {}
    for concurrency in (1, 8):
        backend = OpenAIBackend(url, concurrency=concurrency)
        llm = LLMSettings(max_new_tokens=64, temperature=0.0)
        rates[concurrency], _, _, samples[concurrency] = timed_assist(backend, llm, runs, settings, len(runs))
    return rates, sum(a == b for a, b in zip(samples[1], samples[8])) / len(runs)


def bench_concurrency(args: argparse.Namespace) -> dict:
    rows = build_split("train", max(1, args.questions // 3), seed=0, progress=False)[: args.questions]
    if args.llama_server:  # its answers depend on which requests share a batch (llama.cpp#6950): not checked
        gguf = packaged_gguf("smollm2-135m")
        with llama_server(args.llama_server, gguf, parallel=8) as url:
            rates, same = served_rates(url, None, rows, temperature=0.0)
            assist, assist_same = served_assist_rates(url, args)
        what = f"llama-server, SmolLM2 {gguf.name}, 8 slots, greedy"
        print(
            f"served model ({what}): {args.served_episodes} assistance episodes of at most {args.served_max_steps} "
            f"ticks in lock-step; --concurrency 1 {assist[1]:.2f} decisions/s, --concurrency 8 {assist[8]:.2f}/s, "
            f"speedup {assist[8] / assist[1]:.1f}x; same decisions both ways: {assist_same:.2f} of runs",
            flush=True,
        )
        checked = True
    else:
        server = FakeOpenAIServer()
        server.delay = args.server_delay
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        try:
            rates, same = served_rates(server.url, FakeOpenAIServer.model, rows, temperature=1.0)
        finally:
            server.shutdown()
            server.server_close()
        what = f"test server, {args.server_delay:.2f} s per request"
        checked = same == 1.0
    print(
        f"served model ({what}): {len(rows)} questions; --concurrency 1 "
        f"{rates[1]:.2f}/s, --concurrency 8 {rates[8]:.2f}/s, speedup {rates[8] / rates[1]:.1f}x; "
        f"same answer both ways: {same:.2f}",
        flush=True,
    )
    return {"speedup": rates[8] / rates[1], "identical": checked}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiny", required=True, help="a cpu-tiny model folder (see the module docstring)")
    parser.add_argument("--episodes", type=int, default=20, help="assistance episodes per model, in lock-step")
    parser.add_argument("--reference-episodes", type=int, default=None, help="of them, run one at a time (all)")
    parser.add_argument("--smollm2-episodes", type=int, default=8, help="SmolLM2's episodes (0: skip it)")
    parser.add_argument("--smollm2-reference", type=int, default=2, help="SmolLM2's episodes run one at a time")
    parser.add_argument("--smollm2-max-steps", type=int, default=15, help="SmolLM2's tick limit (~5 s a decision)")
    parser.add_argument("--protocol", default="quick", help="GridWorld episode generator")
    parser.add_argument("--episode-seed", type=int, default=0)
    parser.add_argument("--max-steps", type=int, default=50)
    parser.add_argument("--questions", type=int, default=48, help="QA questions for the concurrency check")
    parser.add_argument("--server-delay", type=float, default=0.25, help="the served model's seconds per request")
    parser.add_argument(
        "--llama-server",
        default=find_llama_server(),
        help="llama-server binary (default: "
        f"${BINARY_VARIABLE} or PATH); 'none': the test server with --server-delay instead",
    )
    parser.add_argument("--served-episodes", type=int, default=8, help="assistance episodes through llama-server")
    parser.add_argument("--served-max-steps", type=int, default=10, help="their tick limit")
    parser.add_argument("--quick", action="store_true", help="6 cpu-tiny episodes, 10 ticks, no SmolLM2")
    args = parser.parse_args()
    args.llama_server = None if args.llama_server in (None, "none") else args.llama_server
    if args.quick:
        args.episodes, args.max_steps, args.smollm2_episodes, args.questions = 6, 10, 0, 16
    reference = min(args.reference_episodes or args.episodes, args.episodes)
    print(f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, load average {os.getloadavg()[0]:.2f}")
    results = {"cpu-tiny": bench_model("cpu-tiny", args.tiny, args, args.episodes, reference)}
    if args.smollm2_episodes:
        n = args.smollm2_episodes
        smollm2 = argparse.Namespace(**{**vars(args), "max_steps": args.smollm2_max_steps})
        results["smollm2"] = bench_model("SmolLM2-135M", "smollm2-135m", smollm2, n, min(args.smollm2_reference, n))
    results["served"] = bench_concurrency(args)
    targets = {"cpu-tiny": 10.0, "smollm2": 4.0, "served": 4.0}
    for name, target in targets.items():
        if name in results:
            speedup = results[name]["speedup"]
            verdict = "met" if speedup >= target else "MISSED"
            how = "--concurrency 8 over 1" if name == "served" else "batched"
            print(f"target {name} {how} >= {target:.0f}x: {verdict} ({speedup:.1f}x)")
    return 0 if all(r["identical"] for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
