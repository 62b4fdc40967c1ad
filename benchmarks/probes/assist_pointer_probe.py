"""How fast can the cpu-tiny model learn which objects a GridWorld human is after, given full information?

The assist task's first letter is a pointer over the prompt's 8 objects. Two objectives train the
untrained cpu-tiny Llama (same tokenizer and ``relative`` prompts as ``train ssrl --preset
cpu-tiny``) on 64 prompts per step, lr 1e-3, and measure how often its most likely first letter
names an object of the exact MAP pair on held-out prompts (chance 0.25):

- ``supervised``: cross-entropy to the first letter of the MAP pair (uses the exact posterior:
  a diagnostic, never a product path);
- ``elbo``: label-free — the model's letter distribution pi(o) maximises the SSRL objective
  sum_o pi(o) [log sum_{m containing o} P(a | m) - log pi(o)] (uniform prior) with the expectation
  over o taken exactly instead of sampled as GRPO does;
- ``sampled``: what GRPO does — ``--group`` letters drawn per prompt, advantages their reward minus
  the group mean, divided by the group's std (``--scale std``, TRL's default); ``--entropy`` adds
  -log pi(o) to each reward (``train ssrl --policy-entropy``).

Comparing either with the held-out curve of ``train ssrl --task assist --n-particles 1`` separates
what the prompt lets the model learn from what GRPO's sampled gradient gets out of it.

    OMP_NUM_THREADS=1 python benchmarks/probes/assist_pointer_probe.py --objective elbo [--steps 400]
    python benchmarks/probes/assist_pointer_probe.py --objective sampled [--entropy] [--scale none] [--group 32]
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np
import torch
from scipy.special import logsumexp

from mindzero.core.human import HumanParams
from mindzero.domains.base import TrainData
from mindzero.domains.gridworld.hypotheses import OBJECT_LETTERS
from mindzero.domains.gridworld.ssrl import assist_rows, goal_logliks
from mindzero.envs.gridworld.world import goal_pairs
from mindzero.llm.models import load_language_model
from mindzero.train.base import CHAT_ROLES, ScratchSpec, build_scratch, load_tokenizer


def prompts(episodes: int, seed: int) -> list[tuple[str, np.ndarray, set[int]]]:
    """(prompt, log sum_{m containing o} P(a | m) per object o, objects of the MAP pair) per row."""
    out = []
    for row in assist_rows(TrainData(episodes=episodes, seed=seed, every=2, n_particles=1, prompt_style="relative")):
        logliks = goal_logliks(row["layout"], row["actions"], HumanParams())
        goals = goal_pairs(8)
        per_object = np.array([logsumexp([ll for g, ll in zip(goals, logliks) if o in g]) for o in range(8)])
        out.append((row["prompt"], per_object, set(goals[int(np.argmax(logliks))])))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objective", choices=("supervised", "elbo", "sampled"), default="elbo")
    parser.add_argument("--group", type=int, default=8, help="letters drawn per prompt for --objective sampled")
    parser.add_argument(
        "--scale", choices=("std", "none"), default="std", help="sampled: divide advantages by the group's std"
    )
    parser.add_argument(
        "--entropy", action="store_true", help="sampled: reward r(o) - log pi(o) (the ELBO's entropy term)"
    )
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    args = parser.parse_args()
    torch.manual_seed(0)
    train, test = prompts(600, 0), prompts(40, 99)[::3]
    with tempfile.TemporaryDirectory() as folder:
        texts = [p for p, _, _ in train[:3000]] + [f"{a} {b}" for a in OBJECT_LETTERS[:8] for b in OBJECT_LETTERS[:8]]
        path = build_scratch(folder, [*texts, *CHAT_ROLES], ScratchSpec(), 0)
        tokenizer, model = load_tokenizer(path), load_language_model(path)
    tokenizer.padding_side = "left"
    letters = [tokenizer.convert_tokens_to_ids(tokenizer.tokenize(x))[0] for x in OBJECT_LETTERS[:8]]
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)

    def letter_logits(batch: list) -> torch.Tensor:
        chats = [[{"role": "user", "content": p}] for p, _, _ in batch]
        texts = [tokenizer.apply_chat_template(c, tokenize=False, add_generation_prompt=True) for c in chats]
        return model(**tokenizer(texts, return_tensors="pt", padding=True)).logits[:, -1, letters]

    rng, started = np.random.default_rng(0), time.perf_counter()
    print("step  first letter in the MAP pair (held-out)  entropy of pi (nats)  seconds")
    for step in range(args.steps + 1):
        if step % 50 == 0:
            with torch.no_grad():
                held_out = torch.log_softmax(letter_logits(test), -1)
            picks = held_out.argmax(-1).tolist()
            entropy = -(held_out.exp() * held_out).sum(-1).mean()
            hits = np.mean([pick in pair for pick, (_, _, pair) in zip(picks, test)])
            print(f"{step:4d}  {hits:.3f}  {entropy:.2f}  {time.perf_counter() - started:.0f}", flush=True)
        batch = [train[k] for k in rng.choice(len(train), 64)]
        logp = torch.log_softmax(letter_logits(batch), -1)
        if args.objective == "supervised":
            target = torch.tensor([min(pair) for _, _, pair in batch])
            loss = torch.nn.functional.nll_loss(logp, target)
        elif args.objective == "elbo":
            reward = torch.tensor(np.stack([r for _, r, _ in batch]), dtype=torch.float32)
            loss = -(logp.exp() * (reward - logp)).sum(-1).mean()
        else:
            reward = torch.tensor(np.stack([r for _, r, _ in batch]), dtype=torch.float32)
            drawn = torch.multinomial(logp.exp().detach(), args.group, replacement=True)
            r = reward.gather(1, drawn) - (logp.detach().gather(1, drawn) if args.entropy else 0)
            advantage = r - r.mean(1, keepdim=True)
            if args.scale == "std":
                advantage = advantage / (r.std(1, keepdim=True) + 1e-4)
            loss = -(advantage * logp.gather(1, drawn)).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
