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

    from mindzero.train.format_sft import FormatSFTConfig

    fmt = verbs.add_parser(
        "format-sft",
        help="label-free format warm start for --task assist (SFT on random particle sets)",
        description="A few supervised steps (TRL SFTTrainer) on assist prompts whose targets are random "
        "valid particle sets over the scene's objects: teaches small models the answer format, nothing "
        "about goals. Then: mindzero train ssrl --task assist --model OUT/final. Writes OUT/final/, "
        "OUT/train_log.jsonl and OUT/summary.json (with a held-out greedy parse-failure rate).",
    )
    add_dataclass_flags(fmt, FormatSFTConfig)
    fmt.set_defaults(func=cmd_format_sft)
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


def cmd_format_sft(args: argparse.Namespace) -> int:
    from mindzero.train.format_sft import FormatSFTConfig, train_format_sft

    summary = train_format_sft(config_from_args(FormatSFTConfig, args))
    print(
        f"trained {summary['steps']} steps on {summary['rows']} rows in {summary['seconds']:.0f} s; "
        f"loss {_num(summary['first_loss'])} -> {_num(summary['last_loss'])}"
    )
    if summary["held_out"]:
        held = summary["held_out"]
        print(f"held-out greedy parse failures: {held['parse_failure_rate']:.0%} of {held['prompts']} prompts")
    print(f"model: {summary['final_model']}")
    return 0
