"""``mindzero train``: self-supervised RL (GRPO via TRL) of language models on GridWorld tasks."""

from __future__ import annotations

import argparse

from mindzero.core.config import add_dataclass_flags, config_from_args
from mindzero.pbm.train import add_pbm_verb


def register(areas: argparse._SubParsersAction) -> None:
    parser = areas.add_parser("train", help="train language models: SSRL with GRPO (TRL)")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)

    from mindzero.train.ssrl import SSRLConfig

    ssrl = verbs.add_parser(
        "ssrl",
        help="GRPO on unlabeled GridWorld data with the SSRL reward (paper §3-4, App. A.1)",
        description="Train with TRL's GRPOTrainer: --task qa answers (a)/(b) rewarded by the action "
        "log-likelihood under the chosen goal; --task assist writes goal particles rewarded by Eq. 4. "
        "--preset fills every option not given (cpu-small: SmolLM2-135M on CPU; gpu-paper: App. A.1 "
        "with vLLM, launch with `accelerate launch --config_file configs/accelerate/deepspeed_zero2.yaml "
        "-m mindzero train ssrl ...`). Writes OUT/train_log.jsonl, OUT/checkpoint-*/ and OUT/final/.",
    )
    add_dataclass_flags(ssrl, SSRLConfig)
    ssrl.set_defaults(func=cmd_ssrl)
    add_pbm_verb(verbs)


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def cmd_ssrl(args: argparse.Namespace) -> int:
    from mindzero.train.ssrl import SSRLConfig, train_ssrl

    summary = train_ssrl(config_from_args(SSRLConfig, args))
    last = summary["last"]
    print(f"trained {summary['steps']} steps on {summary['rows']} rows in {summary['seconds']:.0f} s")
    if last:
        keys = ("reward_mean", "parse_failure_rate", "hypothesis_entropy", "frac_zero_variance_groups")
        print("last step: " + ", ".join(f"{k} {_num(last.get(k))}" for k in keys))
    print(f"model: {summary['final_model']}  log: {summary['log']}")
    return 0
