"""``mindzero train``: SSRL (GRPO via TRL) on any domain's tasks, the format warm start, and the PBM."""

from __future__ import annotations

import argparse
import dataclasses
import json
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np

from mindzero.core.config import add_dataclass_flags, apply_preset, config_from_args, config_from_file
from mindzero.core.errors import UserError
from mindzero.core.outputs import add_output_flags, claim_out
from mindzero.core.results import atomic_write_text, dumps_json, write_results
from mindzero.domains import get_domain
from mindzero.domains.gridworld import EpisodeConfig, episodes
from mindzero.envs.household.episodes import EPISODE_TICKS, benchmark_episodes
from mindzero.envs.household.human import HOUSEHOLD_HUMAN
from mindzero.inference.llm import LLMReasoner, LLMSettings
from mindzero.llm import load_backend
from mindzero.report.plots import plot_ablation, plot_learning_curves
from mindzero.report.tables import format_table, step_accuracy_table
from mindzero.tasks.assist import AssistSettings, paired_share, run_assist, stderr
from mindzero.train.base import checkpoints, read_log
from mindzero.train.format_sft import FormatSFTConfig, train_format_sft
from mindzero.train.pbm import PBMConfig, train_pbm
from mindzero.train.ssrl import ABLATIONS, PRESETS, SSRLConfig, resolve_config, train_ssrl
from mindzero.train.trace_policy import TracePolicyConfig, train_trace_policy


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
    add_output_flags(ssrl, resume=False)
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
    add_output_flags(fmt, resume=False)
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
    add_output_flags(pbm, resume=False)
    pbm.set_defaults(func=cmd_pbm)

    policy = verbs.add_parser(
        "trace-policy",
        help="a small model that writes DEL-ToM belief traces (SFT on gold traces; the policy of BoN search)",
        description="TRL SFTTrainer on gold DEL-ToM traces of generated stories (DEL-ToM prompt without the "
        "worked example). --preset cpu-tiny: a 365 k-parameter Llama from scratch with a tokenizer trained on "
        "the traces. Writes OUT/checkpoint-*/, OUT/final/ (use as --policy OUT/final) and OUT/train_log.jsonl.",
    )
    add_dataclass_flags(policy, TracePolicyConfig)
    add_output_flags(policy, resume=False)
    policy.set_defaults(func=cmd_trace_policy)

    ablation = verbs.add_parser(
        "ablation",
        help="paper Table 2 at small scale: the SSRL reward's ablations, trained and evaluated on assistance",
        description="For each --rows entry (none = full model, no-prior, single = one hypothesis, no-entropy) "
        "and each --seeds seed: train ssrl --domain D --task assist with that reward, then run D's assistance "
        "benchmark with the trained model as the helper's reasoner (--domain household: the test apartments, "
        "as `household assist`), beside the random and exact reasoners on the same runs. Writes "
        "OUT/<row>/seed<k>/ (training), OUT/results.json + OUT/samples.jsonl (one row per row x seed x "
        "episode run) and OUT/ablation.png.",
    )
    add_dataclass_flags(ablation, AblationConfig)
    add_output_flags(ablation)
    ablation.set_defaults(func=cmd_ablation)


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def cmd_ssrl(args: argparse.Namespace) -> int:
    config = config_from_args(SSRLConfig, args)
    folder = claim_out(config.out, "train ssrl", config, args.overwrite, config.resume)
    with folder.run():
        summary = train_ssrl(config)
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
        curves = read_log(Path(summary["curves"])) if summary["curves"] else []
        if curves:
            plot = plot_learning_curves(curves, Path(summary["curves"]).with_name("curves.png"), "SSRL held-out curve")
            print("held-out curve: " + ", ".join(f"{k} {_num(v)}" for k, v in curves[-1].items() if k != "n"))
            print(f"plot: {plot}")
    return 0


def cmd_format_sft(args: argparse.Namespace) -> int:
    config = config_from_args(FormatSFTConfig, args)
    folder = claim_out(config.out, "train format-sft", config, args.overwrite, config.resume)
    with folder.run():
        summary = train_format_sft(config)
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
    config = config_from_args(PBMConfig, args)
    folder = claim_out(config.out, "train pbm", config, args.overwrite, config.resume)
    with folder.run():
        summary = train_pbm(config)
        print(
            f"trained {summary['steps']} steps on {summary['train_rows']} traces in {summary['seconds']:.0f} s, "
            f"loss {summary['train_loss']:.4f}"
        )
        if summary["eval"]:
            record = {"pbm": summary["final_model"], "data": "heldout.jsonl"}
            out = folder.path / "eval"
            path = write_results(out, "stories/pbm-eval", record, summary["eval"], summary["eval_samples"])
            print(step_accuracy_table(summary["eval"]))
            print(f"at 0.5 instead: {summary['eval']['at_half']['avg']:.4f}")
            print(f"held-out results: {path}")
        if summary["thresholds"]:
            chosen = ", ".join(f"{k} {v:g}" for k, v in summary["thresholds"].items())
            print(f"thresholds chosen on {summary['validation_rows']} validation traces: {chosen}")
    print(f"model: {summary['final_model']}")
    return 0


def cmd_trace_policy(args: argparse.Namespace) -> int:
    config = config_from_args(TracePolicyConfig, args)
    folder = claim_out(config.out, "train trace-policy", config, args.overwrite, config.resume)
    with folder.run():
        summary = train_trace_policy(config)
    print(
        f"trained {summary['steps']} steps ({summary['parameters']:,} parameters) on {summary['questions']} "
        f"questions ({summary['tokens_per_row']:.0f} tokens each) in {summary['seconds']:.0f} s, "
        f"loss {summary['train_loss']:.4f}"
    )
    print(f"model: {summary['final_model']}")
    return 0


#: The domains ``train ablation`` trains and evaluates on (each has an assistance protocol below).
ABLATION_DOMAINS = ("gridworld", "household")


@dataclass
class AblationConfig:
    """``mindzero train ablation``: rows x seeds of SSRL training, each evaluated on assistance."""

    out: str = field(default="runs/ablation", metadata={"help": "output folder"})
    domain: str = field(
        default="gridworld",
        metadata={
            "help": "the domain every row trains on and helps in: gridworld | household (household: a recipe or "
            "preset prompt style that is not Household's, such as cpu-tiny's anchored, becomes compact)",
            "choices": ABLATION_DOMAINS,
        },
    )
    preset: str = field(
        default="cpu-tiny", metadata={"help": "training preset of every row (unless --train-config names one)"}
    )
    train_config: str | None = field(
        default=None,
        metadata={
            "help": "a `train ssrl` YAML every run starts from (e.g. configs/ssrl/cpu-tiny-assist.yaml, the recipe "
            "that learns on a CPU; configs/ssrl/cpu-tiny-household-assist.yaml for --domain household); the "
            "ablation sets its row, seed, out, domain, task and particles (and --max-steps if given)"
        },
    )
    rows: list[str] = field(
        default_factory=lambda: list(ABLATIONS),
        metadata={"help": "reward ablations (paper Table 2 rows)", "choices": ABLATIONS},
    )
    seeds: list[int] = field(default_factory=lambda: [0, 1, 2], metadata={"help": "training seeds per row", "ge": 0})
    max_steps: int | None = field(
        default=None, metadata={"help": "GRPO steps per run (the same budget for all)", "ge": 1, "le": 1_000_000}
    )
    n_particles: int = field(
        default=8, metadata={"help": "particles per completion (the single row asks for 1)", "ge": 1, "le": 256}
    )
    episodes: int = field(
        default=20,
        metadata={
            "help": "assistance episodes per evaluation seed (household: per test apartment, as `household assist`)",
            "ge": 1,
            "le": 10_000,
        },
    )
    eval_seeds: list[int] = field(default_factory=lambda: [10, 20, 30], metadata={"help": "assistance seeds", "ge": 0})
    temperature: float = field(
        default=0.0,
        metadata={
            "help": "the helper's sampling temperature (0: one greedy answer per decision, the paper's read-out; "
            "the cpu-tiny recipe reads 0.7 with --samples 16, docs/ssrl.md)",
            "ge": 0,
        },
    )
    samples: int = field(
        default=1,
        metadata={"help": "answers per decision, their particles pooled (> 1 needs a temperature)", "ge": 1, "le": 256},
    )
    jobs: int = field(
        default=1,
        metadata={
            "help": "row x seed runs trained side by side, each in its own process with cores / jobs torch threads "
            "and its output in OUT/<row>/seed<k>.log (1: one after another, in this process)",
            "ge": 1,
            "le": 64,
        },
    )


def cmd_ablation(args: argparse.Namespace) -> int:
    config = config_from_args(AblationConfig, args)
    recipe = _domain_recipe(  # a bad recipe fails before the output folder is claimed
        config,
        config_from_file(SSRLConfig, config.train_config, preset=config.preset)
        if config.train_config
        else SSRLConfig(preset=config.preset),
    )
    for row in config.rows:  # so does a row the domain cannot train (its task, prompt style, model size)
        resolve_config(_run_config(config, recipe, row, config.seeds[0], Path(config.out)))
    LLMSettings(temperature=config.temperature, samples=config.samples)  # so does a bad read-out
    folder = claim_out(config.out, "train ablation", config, args.overwrite, args.resume)
    with folder.run():
        samples, summary = _ablation_rows(config, recipe, folder.path)
        references, exact = _reference_rows(config)
        for row, metrics in summary.items():  # each row's share of exact's speedup, paired run by run
            metrics.update(_share([s for s in samples if s["row"] == row], exact))
        extra = {"references": references}
        kind = f"{config.domain}/ablation"
        path = write_results(folder.path, kind, dataclasses.asdict(config), summary, samples, extra)
        title = f"SSRL reward ablations (paper Table 2, small scale): {config.domain}"
        plot = plot_ablation(summary, folder.path / "ablation.png", title, references)
    table = [_table_row(row, m) for row, m in summary.items()]
    table += [_table_row(f"({name})", m) for name, m in references.items()]
    print(f"{config.domain} assistance on {REFERENCE_NOTES[config.domain]}; of_exact: the share of its speedup")
    print(format_table(["row", "speedup", "of_exact", "KL_exact", "p_true", "parse_fail", "TFLOPs/dec"], table))
    print(f"results: {path}  plot: {plot}")
    return 0


#: What each domain's ablation runs on and what its ``(exact)`` reference row is.
REFERENCE_NOTES = {
    "gridworld": "generated episodes; (exact): Bayesian inverse planning over every goal",
    "household": "the test apartments; (exact): Bayes' rule over every goal of the apartment (planner "
    "likelihood, uniform prior), the strongest model-based Household reasoner (smc approximates it)",
}


def _domain_recipe(config: AblationConfig, recipe: SSRLConfig) -> SSRLConfig:
    """The recipe every run of ``--domain`` starts from. A recipe that names another domain than the
    default one is an error (it was written for that domain); a Household recipe whose prompt style
    (its own or its preset's: cpu-tiny's anchored) is not Household's asks in ``compact`` prompts."""
    default = next(f.default for f in dataclasses.fields(SSRLConfig) if f.name == "domain")
    if recipe.domain not in (config.domain, default):
        raise UserError(
            f"--train-config {config.train_config} trains domain {recipe.domain}; pass --domain {recipe.domain}"
        )
    style = apply_preset(recipe, PRESETS).data.prompt_style
    if config.domain == "household" and style not in get_domain("household").prompt_styles:
        recipe = dataclasses.replace(recipe, data=dataclasses.replace(recipe.data, prompt_style="compact"))
    return recipe


def _run_config(config: AblationConfig, recipe: SSRLConfig, row: str, seed: int, out: Path) -> SSRLConfig:
    """The ``train ssrl`` config of one row x seed: the recipe with the row's reward switch and particle
    count (``single``: 1), the seed and the domain, trained into OUT/<row>/seed<k>/ (resumed from its
    last checkpoint if it has one)."""
    folder = out / row / f"seed{seed}"
    n_particles = 1 if row == "single" else config.n_particles
    return dataclasses.replace(
        recipe,
        out=str(folder),
        domain=config.domain,
        task="assist",
        ablation=row,
        data=dataclasses.replace(recipe.data, n_particles=n_particles),
        seed=seed,
        max_steps=config.max_steps or recipe.max_steps,
        resume=bool(checkpoints(folder)),
    )


def _assist_protocol(config: AblationConfig) -> tuple:
    """(domain, settings, episodes) of the assistance evaluation every row and reference shares:
    GridWorld's generated episodes, or ``household assist``'s (its test apartments, --episodes each,
    its simulated human and tick limit); calibrated, so every row has its KL to exact inference."""
    if config.domain == "household":
        runs = benchmark_episodes("test", config.episodes)
        settings = AssistSettings(seeds=config.eval_seeds, human=HOUSEHOLD_HUMAN, max_steps=EPISODE_TICKS)
        return get_domain("household"), settings, runs
    runs = episodes(EpisodeConfig(episodes=config.episodes))
    return get_domain("gridworld"), AssistSettings(seeds=config.eval_seeds), runs


def _share(samples: list[dict], exact: list[dict]) -> dict:
    """A row's share of exact's speedup on the same runs (:func:`paired_share`; None where undefined)."""
    share = paired_share(samples, exact)
    return {"share_of_exact": share and share[0], "share_of_exact_stderr": share and share[1]}


def _reference_rows(config: AblationConfig) -> tuple[dict[str, dict], list[dict]]:
    """(speedup, KL, p(true goal) and share of exact's speedup of the random and exact reasoners on
    the ablation's episodes — the floor and the ceiling a trained row sits between — and exact's
    run samples, which each row's share is paired with). Planner only: about a second each in GridWorld;
    Household's exact takes about a second per run (docs/household.md)."""
    domain, settings, runs = _assist_protocol(config)
    runs_of, references = {}, {}
    for name in ("random", "exact"):
        metrics, samples, _ = run_assist(
            domain, runs, settings, lambda seed, name=name: domain.reasoner(name, seed, settings.human), label=name
        )
        keys = ("speedup_mean", "speedup_stderr", "kl_to_exact_mean", "true_goal_prob_mean")
        references[name] = {k: metrics[k] for k in keys}
        runs_of[name] = samples
    for name, metrics in references.items():
        metrics.update(_share(runs_of[name], runs_of["exact"]))
    return references, runs_of["exact"]


def _train_logged(run: SSRLConfig, threads: int, log: Path, evaluate: tuple | None = None) -> None:
    """One run of :func:`_train_runs`' pool: ``threads`` torch threads, stdout and stderr into ``log``;
    with ``evaluate`` = (ablation config, row, seed, out), the run's assistance evaluation follows in the
    same process, so evaluations share the cores with the runs still training instead of queueing
    after the last one."""
    import os
    import sys

    import torch

    torch.set_num_threads(threads)
    with log.open("a") as stream:
        os.dup2(stream.fileno(), sys.stdout.fileno())
        os.dup2(stream.fileno(), sys.stderr.fileno())
        train_ssrl(run)
        if evaluate is not None:
            _evaluate_run(*evaluate)


def _train_runs(config: AblationConfig, recipe: SSRLConfig, out: Path) -> None:
    """Train every row x seed run not finished yet (a cut one resumes from its checkpoint), ``config.jobs``
    at a time. Side by side, each run is a spawned process (torch and TRL keep per-process state) with
    an equal share of the cores; its progress goes to OUT/<row>/seed<k>.log and one line per finished
    run comes here."""
    runs = [(row, seed) for row in config.rows for seed in config.seeds]
    todo = [(row, seed) for row, seed in runs if not _finished(config, out / row / f"seed{seed}")]
    if config.jobs == 1 or not todo:
        for row, seed in todo:
            train_ssrl(_run_config(config, recipe, row, seed, out))
        return
    import multiprocessing
    import os
    import time

    threads = max(1, (os.cpu_count() or 1) // config.jobs)
    print(f"training {len(todo)} runs, {config.jobs} at a time, {threads} threads each", flush=True)
    # a Pool, not a ProcessPoolExecutor: leaving the block terminates the other runs when one fails
    # (their checkpoints stay, so --resume continues them); one run a process, none inherits another's state
    with multiprocessing.get_context("spawn").Pool(min(config.jobs, len(todo)), maxtasksperchild=1) as pool:
        pending = {}
        for row, seed in todo:
            log = out / row / f"seed{seed}.log"
            log.parent.mkdir(parents=True, exist_ok=True)
            run = _run_config(config, recipe, row, seed, out)
            evaluate = (config, row, seed, out)
            pending[pool.apply_async(_train_logged, (run, threads, log, evaluate))] = (row, seed, log)
        done = 0
        while pending:
            for result in [r for r in pending if r.ready()]:
                row, seed, log = pending.pop(result)
                try:
                    result.get()
                except Exception as error:  # noqa: BLE001 — any failure of a run is reported with its log
                    what = f"{type(error).__name__}: {error}"
                    raise UserError(f"{row}/seed{seed} failed ({what}); its output: {log}") from error
                done += 1
                print(f"trained {row}/seed{seed} ({done} of {len(todo)}); its output: {log}", flush=True)
            time.sleep(0.5)


def _read_out(config: AblationConfig) -> dict:
    """What an assistance evaluation depends on besides the model: a kept one is reused while it is equal."""
    return {k: getattr(config, k) for k in ("episodes", "eval_seeds", "temperature", "samples")}


def _evaluation(config: AblationConfig, folder: Path) -> dict:
    """The run's kept evaluation (OUT/<row>/seed<k>/assist-eval.json) if it has this ablation's read-out, else {}."""
    cached = folder / "assist-eval.json"
    kept = json.loads(cached.read_text()) if cached.is_file() else {}
    return kept if kept.get("read_out") == _read_out(config) else {}


def _finished(config: AblationConfig, folder: Path) -> bool:
    """A run needs no training when its final model is there, or when it was evaluated with this read-out:
    a run folder kept without its weights (``ssrl_config.json`` and ``assist-eval.json``, a few hundred KB)
    still counts, so an ablation spread over machines or sessions can be merged by copying folders."""
    return (folder / "final" / "config.json").is_file() or bool(_evaluation(config, folder))


def _evaluate_run(config: AblationConfig, row: str, seed: int, out: Path, protocol: tuple | None = None) -> tuple:
    """(metrics, run samples) of one trained run on the assistance read-out, kept in
    OUT/<row>/seed<k>/assist-eval.json and reused while the read-out is the same (a run is evaluated
    once: by its training process as it finishes, or here)."""
    domain, settings, runs = protocol or _assist_protocol(config)
    n_particles = 1 if row == "single" else config.n_particles
    folder = out / row / f"seed{seed}"
    trained = json.loads((folder / "ssrl_config.json").read_text())  # decode as the model was trained
    if trained.get("domain", "gridworld") != config.domain:  # e.g. a row folder copied in from another ablation
        raise UserError(f"{folder} holds a {trained['domain']} run; this ablation is --domain {config.domain}")
    kept = _evaluation(config, folder)  # an evaluation outlives a cut ablation, as training does
    if kept:
        metrics, rows = kept["metrics"], kept["rows"]
    else:
        backend = load_backend(str(folder / "final"))
        llm = LLMSettings(
            prompt_style=trained["data"]["prompt_style"],
            n_particles=n_particles,
            max_new_tokens=trained["max_completion_length"],
            temperature=config.temperature,
            samples=config.samples,
        )
        metrics, rows, _ = run_assist(
            domain, runs, settings, partial(LLMReasoner, domain, backend, llm), label=f"{row}/seed{seed}"
        )
        record = {"read_out": _read_out(config), "metrics": metrics, "rows": rows}
        atomic_write_text(folder / "assist-eval.json", dumps_json(record))
    return metrics, rows


def _ablation_rows(config: AblationConfig, recipe: SSRLConfig, out: Path) -> tuple[list[dict], dict]:
    """(samples, summary per row): each row x seed trained into OUT/<row>/seed<k>/ (a
    finished run is reused and a cut one resumed: an ablation continued with --resume; ``config.jobs``
    at a time) and evaluated (the evaluation kept in OUT/<row>/seed<k>/assist-eval.json, reused while
    the read-out is the same)."""
    _train_runs(config, recipe, out)
    domain, settings, runs = _assist_protocol(config)
    samples, summary = [], {}
    for row in config.rows:
        per_seed = []
        for seed in config.seeds:
            metrics, rows = _evaluate_run(config, row, seed, out, (domain, settings, runs))
            per_seed.append(metrics)
            samples += [{"row": row, "train_seed": seed, **r} for r in rows]
        speedups = [s["speedup"] for s in samples if s["row"] == row]
        summary[row] = {
            "speedup_mean": float(np.mean(speedups)),
            "speedup_stderr": stderr(speedups),
            "speedup_by_seed": [m["speedup_mean"] for m in per_seed],
            "kl_to_exact_mean": float(np.mean([m["kl_to_exact_mean"] for m in per_seed])),
            "true_goal_prob_mean": float(np.mean([m["true_goal_prob_mean"] for m in per_seed])),
            "parse_failure_rate": float(np.mean([m["parse_failure_rate"] for m in per_seed])),
            "tflops_per_decision": float(np.mean([m["tflops_per_decision"] or 0.0 for m in per_seed])),
        }
    return samples, summary


def _table_row(name: str, m: dict) -> list[str]:
    """One line of the ablation table; a reference reasoner has no parse failures or model cost ("-")."""
    cells = [name, f"{m['speedup_mean']:+.3f} ± {m['speedup_stderr']:.3f}"]
    share = "-" if m["share_of_exact"] is None else f"{m['share_of_exact']:.2f} ± {m['share_of_exact_stderr']:.2f}"
    cells += [share, f"{m['kl_to_exact_mean']:.2f}"]
    cells.append(f"{m['true_goal_prob_mean']:.2f}")
    if "parse_failure_rate" not in m:
        return [*cells, "-", "-"]
    return [*cells, f"{m['parse_failure_rate']:.2f}", f"{m['tflops_per_decision']:.2g}"]
