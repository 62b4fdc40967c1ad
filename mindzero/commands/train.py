"""``mindzero train``: SSRL (GRPO via TRL) on any domain's tasks, the format warm start, and the PBM."""

from __future__ import annotations

import argparse
from pathlib import Path

from mindzero.commands.stories import step_accuracy_table
from mindzero.core.config import add_dataclass_flags, config_from_args
from mindzero.core.results import write_results
from mindzero.train.format_sft import FormatSFTConfig, train_format_sft
from mindzero.train.pbm import PBMConfig, train_pbm
from mindzero.train.ssrl import SSRLConfig, train_ssrl


def register(areas: argparse._SubParsersAction) -> None:
    parser = areas.add_parser("train", help="train language models: SSRL with GRPO (TRL)")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)

    ssrl = verbs.add_parser(
        "ssrl",
        help="GRPO on a domain's unlabeled data with the SSRL reward (paper §3-4, App. A.1)",
        description="Train with TRL's GRPOTrainer: --task qa answers (a)/(b) rewarded by the action "
        "log-likelihood under the chosen goal; --task assist writes goal particles rewarded by Eq. 4 "
        "(--ablation no-prior | single | no-entropy: paper Table 2). "
        "--preset fills every option not given (cpu-small: SmolLM2-135M on CPU; gpu-paper: App. A.1 "
        "with vLLM, launch with `accelerate launch --config_file configs/accelerate/deepspeed_zero2.yaml "
        "-m mindzero train ssrl ...`). Writes OUT/train_log.jsonl, OUT/checkpoint-*/ and OUT/final/.",
    )
    add_dataclass_flags(ssrl, SSRLConfig)
    ssrl.set_defaults(func=cmd_ssrl)

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

    pbm = verbs.add_parser(
        "pbm",
        help="train a Process Belief Model (DEL-ToM §4.2.2) with transformers' Trainer",
        description="A causal LM learns to write '+'/'-' after every step of a DEL-ToM trace "
        "(cross-entropy on those tokens only). --preset fills unset options (cpu-small: SmolLM2-135M; "
        "gpu-paper: Llama-3.1-8B-Instruct, 1 epoch, lr 2e-6). Without --data, trains on gold + corrupted "
        "traces of generated stories. Writes OUT/checkpoint-*/, OUT/final/, OUT/train_log.jsonl and "
        "OUT/eval/results.json (held-out step accuracy per order).",
    )
    add_dataclass_flags(pbm, PBMConfig)
    pbm.set_defaults(func=cmd_pbm)


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def cmd_ssrl(args: argparse.Namespace) -> int:
    summary = train_ssrl(config_from_args(SSRLConfig, args))
    last = summary["last"]
    print(f"trained {summary['steps']} steps on {summary['rows']} rows in {summary['seconds']:.0f} s")
    if last:
        keys = (
            "reward_mean",
            "parse_failure_rate",
            "hypothesis_entropy",
            "answer_entropy",
            "frac_zero_variance_groups",
        )
        print("last step: " + ", ".join(f"{k} {_num(last.get(k))}" for k in keys))
    print(f"model: {summary['final_model']}  log: {summary['log']}")
    return 0


def cmd_format_sft(args: argparse.Namespace) -> int:
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


def cmd_pbm(args: argparse.Namespace) -> int:
    summary = train_pbm(config_from_args(PBMConfig, args))
    print(
        f"trained {summary['steps']} steps on {summary['train_rows']} traces in {summary['seconds']:.0f} s, "
        f"loss {summary['train_loss']:.4f}"
    )
    if summary["eval"]:
        config = {"pbm": summary["final_model"], "data": "heldout.jsonl"}
        out = Path(summary["config"]["out"]) / "eval"
        path = write_results(out, "stories/pbm-eval", config, summary["eval"], summary["eval_samples"])
        print(step_accuracy_table(summary["eval"]["step_accuracy"]))
        print(f"held-out results: {path}")
    print(f"model: {summary['final_model']}")
    return 0
