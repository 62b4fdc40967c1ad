"""Every training recipe, shrunk to a few steps, and what it produced: the per-step train log (its
deterministic fields) or, for recipes whose model is not on this machine, the resolved trainer
arguments and training data. ``tests/data/recipe_logs.json`` holds the record made before the
trainer redesign (issue 44); ``test_recipes_unchanged.py`` checks that every recipe still gives it.

    python tests/train/recipes.py --write   # re-record (only when a change is meant to alter a recipe)
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

RECORD = Path(__file__).parent.parent / "data" / "recipe_logs.json"
CONFIGS = Path(__file__).parent.parent.parent / "configs"
#: Log fields that measure time or depend on the machine, not on the recipe.
UNTIMED = ("second", "runtime", "per_second", "time", "flos", "memory")


def _log(out: Path) -> list[dict]:
    rows = [json.loads(line) for line in (out / "train_log.jsonl").read_text().splitlines()]
    return [{k: v for k, v in r.items() if not any(word in k for word in UNTIMED)} for r in rows]


def _ssrl_config(config_file: str | None, data: dict, warm_start: dict, options: dict, out: Path):
    """A recipe's config: its YAML (or the defaults), with ``data`` / ``warm_start`` fields and
    ``options`` changed."""
    from mindzero.core.config import config_from_file
    from mindzero.train.ssrl import SSRLConfig

    base = config_from_file(SSRLConfig, CONFIGS / "ssrl" / config_file) if config_file else SSRLConfig()
    sections = {"data": replace(base.data, **data), "warm_start": replace(base.warm_start, **warm_start)}
    return replace(base, **sections, **options, out=str(out))


def _ssrl_run(config_file: str | None, data: dict, warm_start: dict, **options) -> Callable[[Path], list[dict]]:
    def run(out: Path) -> list[dict]:
        from mindzero.train.base import ScratchSpec
        from mindzero.train.ssrl import train_ssrl

        tiny = {"scratch": ScratchSpec(hidden=32, layers=1, heads=2, vocab=400)}
        train_ssrl(_ssrl_config(config_file, data, warm_start, {**tiny, **options}, out))
        return _log(out)

    return run


def _ssrl_resolved(config_file: str | None, data: dict | None = None, **options) -> Callable[[Path], dict]:
    """The GRPO arguments and training data a recipe resolves to (its model is not loaded)."""

    def run(out: Path) -> dict:
        from mindzero.train.ssrl import grpo_args, resolve_config

        config = resolve_config(_ssrl_config(config_file, data or {}, {}, options, out))
        gpu = {"bf16": config.bf16, "use_vllm": config.use_vllm}  # recorded, then off: this machine has no GPU
        args = grpo_args(replace(config, bf16=False, use_vllm=False), out).to_dict()
        keep = {k: v for k, v in sorted(args.items()) if k not in ("output_dir", "logging_dir", "run_name")}
        return {"grpo": json.loads(json.dumps(keep, default=str)), "data": vars(config.data),
                "model": config.model, **gpu}

    return run


def _pbm_run(out: Path) -> list[dict]:
    from mindzero.train.pbm import PBMConfig, train_pbm
    from mindzero.train.trace_policy import TraceScratch

    train_pbm(PBMConfig(preset="cpu-tiny", out=str(out), stories=6, max_steps=2, batch_size=2, save_steps=1,
                        copy_warmup_steps=2, scratch=TraceScratch(hidden=16, layers=1, heads=2, vocab=1200)))
    return _log(out)


def _trace_policy_run(out: Path) -> list[dict]:
    from mindzero.train.trace_policy import TracePolicyConfig, TraceScratch, train_trace_policy

    train_trace_policy(TracePolicyConfig(out=str(out), scratch=TraceScratch(hidden=16, layers=1, heads=2, vocab=1200),
                                         stories=4, max_steps=2, batch_size=2, save_steps=1, copy_warmup_steps=2))
    return _log(out)


SHORT = {"max_steps": 2, "prompts_per_step": 2, "num_generations": 2, "eval_every": 0, "save_steps": 1}
RECIPES: dict[str, Callable[[Path], object]] = {
    "ssrl cpu-tiny qa": _ssrl_run(None, {"episodes": 4}, {"steps": 2}, preset="cpu-tiny", task="qa", **SHORT),
    "ssrl cpu-tiny-assist.yaml": _ssrl_run("cpu-tiny-assist.yaml", {"episodes": 2}, {"steps": 2}, **SHORT),
    "ssrl cpu-small qa": _ssrl_resolved(None, preset="cpu-small", task="qa"),
    "ssrl cpu-small-assist.yaml": _ssrl_resolved("cpu-small-assist.yaml"),
    "ssrl cpu-small-qa.yaml": _ssrl_resolved("cpu-small-qa.yaml", {"path": None}),
    "ssrl gpu-paper-assist.yaml": _ssrl_resolved("gpu-paper-assist.yaml"),
    "ssrl gpu-paper-qa.yaml": _ssrl_resolved("gpu-paper-qa.yaml", {"path": None}),
    "pbm cpu-tiny": _pbm_run,
    "trace policy": _trace_policy_run,
}


def run(name: str) -> object:
    with tempfile.TemporaryDirectory() as tmp:
        return RECIPES[name](Path(tmp) / "run")


def same(a: object, b: object) -> bool:
    """Equal, floats to 1e-6 relative (NaN equals NaN): the logged values are float32 sums, whose last
    bits move with the order a library version adds them in (the trace policy's train_loss moved by
    7e-8 on a fresh install of 2026-12-05); a changed recipe moves them by orders of magnitude more."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


if __name__ == "__main__":
    if "--write" not in sys.argv:
        sys.exit("usage: python tests/train/recipes.py --write")
    RECORD.write_text(json.dumps({name: run(name) for name in RECIPES}, indent=1, sort_keys=True) + "\n")
    print(f"wrote {RECORD}")
