"""Is a flat GRPO group a property of its prompt? What choosing prompts by their last group can gain.

A flat group (every rollout scored alike) gives GRPO no advantage and so no gradient. A sampler
that passes over a prompt whose last group was flat with probability s (tried as ``train ssrl
--flat-skip``, docs/experiments/2026-12-02-ssrl-flat-skip.md) can only lower the share of flat groups as far as flatness persists:
if a prompt that was not flat is nearly as likely to be flat next time as any other, skipping
gains nothing. This probe samples two groups for the same training prompts from one checkpoint (as
the trainer does: chat template, ``--group`` rollouts at ``--temperature``, rewards from the task's
:class:`SSRLReward`) and prints P(flat), P(flat again | flat), P(flat | not flat before), and the
flat share a batch drawn under each skip probability would have.

    OMP_NUM_THREADS=1 python benchmarks/probes/ssrl_flat_probe.py --model runs/tiny-qa/checkpoint-1000
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

from mindzero.domains import get_domain
from mindzero.domains.reward import SSRLReward
from mindzero.llm.models import load_language_model
from mindzero.train.base import load_tokenizer
from mindzero.train.ssrl import SSRLConfig, is_flat, resolve_config, training_rows


def flat_groups(model, tokenizer, rows: list[dict], reward: SSRLReward, args: argparse.Namespace) -> np.ndarray:
    """One group of ``args.group`` rollouts per row; True where every rollout got the same reward."""
    flat = []
    for lo in range(0, len(rows), args.batch):
        batch = rows[lo : lo + args.batch]
        texts = [tokenizer.apply_chat_template(r["prompt"], tokenize=False, add_generation_prompt=True) for r in batch]
        inputs = tokenizer(texts, return_tensors="pt", padding=True)
        with torch.no_grad():
            out = model.generate(
                **inputs,
                do_sample=True,
                temperature=args.temperature,
                top_k=0,
                max_new_tokens=args.max_new_tokens,
                num_return_sequences=args.group,
                pad_token_id=tokenizer.pad_token_id,
            )
        completions = tokenizer.batch_decode(out[:, inputs["input_ids"].shape[1] :], skip_special_tokens=True)
        repeated = [r for r in batch for _ in range(args.group)]
        columns = {k: [r[k] for r in repeated] for k in repeated[0] if k != "prompt"}
        rewards = np.array(reward([r["prompt"] for r in repeated], completions, **columns)).reshape(-1, args.group)
        flat.extend(is_flat(group) for group in rewards)
    return np.array(flat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="a train ssrl checkpoint or final folder")
    parser.add_argument("--task", default="qa")
    parser.add_argument("--prompts", type=int, default=640, help="training prompts probed")
    parser.add_argument("--group", type=int, default=8, help="rollouts per prompt (the run's --num-generations)")
    parser.add_argument("--temperature", type=float, default=1.5, help="the run's rollout temperature")
    parser.add_argument("--max-new-tokens", type=int, default=4)
    parser.add_argument("--batch", type=int, default=64, help="prompts per generate call")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    config = resolve_config(SSRLConfig(preset="cpu-tiny", task=args.task, max_completion_length=args.max_new_tokens))
    rows = training_rows(config, get_domain(config.domain).tasks[config.task])
    pick = np.random.default_rng(args.seed).choice(len(rows), size=min(args.prompts, len(rows)), replace=False)
    rows = [rows[i] for i in pick]
    tokenizer, model = load_tokenizer(args.model, padding_side="left"), load_language_model(args.model)
    reward = SSRLReward(get_domain(config.domain).tasks[args.task], config.human, name="probe")
    torch.manual_seed(args.seed)
    first, second = (flat_groups(model, tokenizer, rows, reward, args) for _ in range(2))
    p_flat = first.mean()
    again, after_varied = second[first].mean(), second[~first].mean()
    print(f"{len(rows)} prompts x {args.group} rollouts at T {args.temperature}")
    print(f"P(flat) {p_flat:.3f} (first group), {second.mean():.3f} (second)")
    print(f"P(flat | flat before) {again:.3f}   P(flat | not flat before) {after_varied:.3f}")
    for skip in (0.0, 0.5, 0.9, 0.99):
        kept = (1 - p_flat) + (1 - skip) * p_flat
        share = ((1 - p_flat) * after_varied + (1 - skip) * p_flat * again) / kept
        print(f"skip a last-flat prompt with p {skip}: flat share of a batch {share:.3f}")


if __name__ == "__main__":
    main()
