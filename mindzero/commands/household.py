"""``mindzero household``: the proactive-assistance benchmark on the Household apartments."""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mindzero.core.config import add_dataclass_flags, config_from_args
from mindzero.core.errors import UserError
from mindzero.core.outputs import OutputFolder, add_output_flags, claim_out
from mindzero.core.results import read_json, write_results
from mindzero.domains import get_domain
from mindzero.domains.household.assist import RunSettings, episode_sample, run_episode
from mindzero.domains.household.smc import REASONERS, SMCSettings, make_reasoner
from mindzero.domains.household.ssrl import PROMPT_STYLES
from mindzero.envs.household.apartment import TEST_APARTMENTS, TRAIN_APARTMENTS, bundled_apartment, load_apartment
from mindzero.envs.household.episodes import Episode, make_episode, parse_goal
from mindzero.inference.base import Reasoner
from mindzero.inference.llm import LLMReasoner, LLMSettings
from mindzero.llm import EndpointOptions, load_backend
from mindzero.llm.transformers_backend import DTYPES
from mindzero.report.plots import pyplot, save_figure
from mindzero.report.tables import format_table
from mindzero.tasks.assist import Mean

#: Bins of task progress (fraction of the helped episode elapsed) of the goal-F1 curve.
PROGRESS_BINS = 10
SPLITS = {"train": TRAIN_APARTMENTS, "test": TEST_APARTMENTS}


@dataclass(kw_only=True)
class LLMOptions(EndpointOptions):
    """Options of ``--reasoner llm``: which model, how it is prompted and decoded."""

    model: str | None = field(
        default=None, metadata={"help": "--reasoner llm: smollm2-135m, a folder, or an hf:/vllm:/openai: spec"}
    )
    dtype: str = field(default="float32", metadata={"help": "weights dtype of local models", "choices": DTYPES})
    prompt_style: str = field(
        default="compact", metadata={"help": "full (paper Fig. 9) | compact (short, CPU)", "choices": PROMPT_STYLES}
    )
    n_particles: int = field(default=1, metadata={"help": "goal particles requested per decision", "ge": 1})
    temperature: float = field(default=0.0, metadata={"help": "0 = greedy decoding", "ge": 0})
    max_new_tokens: int = field(default=96, metadata={"help": "completion token budget", "ge": 1})


@dataclass
class AssistConfig(LLMOptions, RunSettings):
    """``household assist``: which reasoners, on which apartments and episodes."""

    reasoner: list[str] = field(
        default_factory=lambda: ["none", "random", "oracle", "smc"],
        metadata={"help": "comma list of reasoners (llm needs --model)", "choices": (*REASONERS, "llm")},
    )
    split: str = field(default="test", metadata={"help": "bundled apartments to run on", "choices": tuple(SPLITS)})
    apartment: str | None = field(default=None, metadata={"help": "an apartment JSON file instead of --split"})
    goal: str | None = field(
        default=None, metadata={"help": "fix every episode's goal, e.g. 'on(plate, kitchentable): 2'"}
    )
    episodes: int = field(default=10, metadata={"help": "episodes per apartment", "ge": 1})
    episode_seed: int = field(default=0, metadata={"help": "seed of the first episode", "ge": 0})
    seeds: list[int] = field(default_factory=lambda: [10, 20, 30], metadata={"help": "agent seeds", "ge": 0})
    smc: SMCSettings = field(default_factory=SMCSettings, metadata={"help": "SMC inference"})


class Totals:
    """Running metrics of one reasoner and its goal-F1 curve (resumable: pickled at checkpoints)."""

    def __init__(self) -> None:
        self.means = {k: Mean() for k in ("speedup", "success", "success_alone", "t_alone", "t_helped", "goal_f1_mean")}
        self.f1 = np.zeros(PROGRESS_BINS)
        self.ticks = np.zeros(PROGRESS_BINS, dtype=np.int64)
        self.stats = None  # summed DecisionStats of reasoners that count their cost (LLMs)

    @property
    def runs(self) -> int:
        return self.means["speedup"].n

    def add(self, sample: dict) -> None:
        for key, mean in self.means.items():
            if sample[key] is not None:
                mean.add(sample[key])
        n = len(sample["goal_f1"])
        for t, value in enumerate(sample["goal_f1"]):
            b = min(PROGRESS_BINS - 1, PROGRESS_BINS * t // n)
            self.f1[b] += value
            self.ticks[b] += 1

    def metrics(self) -> dict:
        metrics = {
            f"{k}_mean" if not k.endswith("mean") else k: m.mean() if m.n else None for k, m in self.means.items()
        }
        metrics["speedup_stderr"] = self.means["speedup"].stderr()
        metrics["success_rate"] = metrics.pop("success_mean")
        metrics["success_rate_alone"] = metrics.pop("success_alone_mean")
        metrics["n_runs"] = self.runs
        if self.stats is not None:
            metrics.update(self.stats.metrics())
        return metrics

    def curve(self) -> list[float | None]:
        """Mean posterior-expected goal F1 per bin of task progress."""
        return [float(s / c) if c else None for s, c in zip(self.f1, self.ticks)]


def register(areas: argparse._SubParsersAction) -> None:
    parser = areas.add_parser("household", help="Household apartments: proactive assistance")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    assist = verbs.add_parser(
        "assist",
        help="proactive-assistance benchmark (speedup = T_alone / T_helped - 1)",
        description="Run the same episodes alone and helped; --reasoner takes a comma list "
        "(none,random,oracle,smc,exact,llm): each gets OUT/<reasoner>/results.json, plus the goal-F1 plot.",
    )
    add_dataclass_flags(assist, AssistConfig)
    assist.add_argument("--out", default="runs/household-assist", help="output folder")
    add_output_flags(assist)
    assist.set_defaults(func=cmd_assist)


def _episodes(config: AssistConfig) -> list[Episode]:
    apartments = (
        [load_apartment(config.apartment)] if config.apartment else [bundled_apartment(n) for n in SPLITS[config.split]]
    )
    out = []
    for apartment in apartments:
        goal = parse_goal(config.goal, apartment) if config.goal else None
        out += [make_episode(apartment, config.episode_seed + k, goal) for k in range(config.episodes)]
    return out


def cmd_assist(args: argparse.Namespace) -> int:
    config = config_from_args(AssistConfig, args)
    names = config.reasoner
    if "llm" in names and config.model is None:
        raise UserError("--reasoner llm needs --model SPEC (e.g. --model smollm2-135m or a trained OUT/final)")
    runs = _episodes(config)
    folder = claim_out(args.out, "household assist", config, args.overwrite, args.resume)
    settings = RunSettings(**{f.name: getattr(config, f.name) for f in dataclasses.fields(RunSettings)})
    factories = {n: (lambda seed, n=n: make_reasoner(n, seed, settings.human, config.smc)) for n in names}
    if "llm" in names:
        kwargs = {} if ":" in config.model else {"dtype": config.dtype}
        backend = load_backend(config.model, endpoint=config, **kwargs)
        llm = LLMSettings(config.prompt_style, config.n_particles, config.temperature, config.max_new_tokens)
        domain = get_domain("household")
        factories["llm"] = lambda seed: LLMReasoner(domain, backend, llm, seed)
    with folder.run():
        rows, curves = [], {}
        for name in names:
            record = dataclasses.asdict(dataclasses.replace(config, reasoner=[name]))
            sub = name if len(names) > 1 else "."
            metrics, curves[name] = _assist_reasoner(factories[name], runs, config, settings, folder, sub, record)
            rows.append(
                [
                    name,
                    f"{metrics['speedup_mean']:+.3f} ± {metrics['speedup_stderr']:.3f}",
                    f"{metrics['success_rate']:.2f}",
                    f"{metrics['t_alone_mean']:.1f}",
                    f"{metrics['t_helped_mean']:.1f}",
                    "-" if metrics["goal_f1_mean"] is None else f"{metrics['goal_f1_mean']:.2f}",
                    f"{metrics['parse_failure_rate']:.2f}" if "parse_failure_rate" in metrics else "-",
                    f"{metrics['seconds']:.1f}",
                ]
            )
        plot = _plot_f1(curves, folder.path / "goal_f1.png")
    where = config.apartment or f"{config.split} apartments {', '.join(SPLITS[config.split])}"
    print(f"Household assistance on {where}: {config.episodes} episodes each x seeds {config.seeds}")
    print(
        format_table(
            ["reasoner", "speedup", "success", "T_alone", "T_helped", "goal_F1", "parse_fail", "seconds"], rows
        )
    )
    print(f"results: {folder.path}  plot: {plot}")
    return 0


def _assist_reasoner(
    make: Callable[[int], Reasoner],
    runs: list[Episode],
    config: AssistConfig,
    settings: RunSettings,
    folder: OutputFolder,
    sub: str,
    record: dict,
) -> tuple[dict, list[float | None]]:
    """(metrics, F1 curve) of one reasoner, streamed to OUT/SUB/samples.jsonl then results.json."""
    results = folder.path / sub / "results.json"
    if folder.resume and results.is_file():
        done = read_json(results)
        return done["metrics"], done["goal_f1_curve"]
    start = time.perf_counter()
    with folder.stream(f"{sub}/samples.jsonl") as stream:
        totals, seconds = stream.state or (Totals(), 0.0)
        n = len(runs)
        for job in range(totals.runs, len(config.seeds) * n):
            seed, episode = config.seeds[job // n], runs[job % n]
            alone = run_episode(episode, None, seed, settings)
            reasoner = make(seed)
            helped = run_episode(episode, reasoner, seed, settings)
            sample = episode_sample(episode, seed, alone, helped)
            stats = getattr(reasoner, "stats", None)
            if stats is not None:
                sample["reasoner"] = stats.metrics()
                totals.stats = stats if totals.stats is None else totals.stats.merge(stats)
            totals.add(sample)
            stream.write(sample)
            stream.checkpoint((totals, seconds + time.perf_counter() - start))
    metrics, curve = totals.metrics(), totals.curve()
    metrics["seconds"] = seconds + time.perf_counter() - start
    write_results(results.parent, "household/assist", record, metrics, None, {"goal_f1_curve": curve})
    return metrics, curve


def _plot_f1(curves: dict[str, list[float | None]], path) -> str:
    """Paper Fig. 5b: online goal F1 vs task progress, one line per reasoner."""
    fig, ax = pyplot().subplots(figsize=(5.5, 3.6))
    for name, curve in curves.items():
        xs = [(i + 0.5) / len(curve) for i, v in enumerate(curve) if v is not None]
        ax.plot(xs, [v for v in curve if v is not None], marker="o", ms=3, label=name)
    ax.set_xlabel("task progress (fraction of the helped episode)")
    ax.set_ylabel("goal F1 (posterior-expected)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("Household online goal inference", fontsize=10)
    return str(save_figure(fig, path))
