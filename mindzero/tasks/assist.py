"""Proactive-assistance benchmark (paper §5.2, App. A.2, Fig. 5), for any domain.

Each episode is run twice with the same human random stream: alone (the helper stands still)
and helped (the helper acts on the reasoner's posterior). speedup = T_alone / T_helped − 1,
averaged over episodes and seeds; a failed run counts as ``max_steps`` ticks.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from tqdm import tqdm

from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.core.posterior import Posterior
from mindzero.core.reasoner import Reasoner
from mindzero.domains.base import Domain

#: Bins of task progress (fraction of the helped episode elapsed) for the Fig. 5 curve.
PROGRESS_BINS = 10


TELEPORT_RULES = ("map-stable", "human-holds")


@dataclass
class AssistSettings:
    """How each episode is run (paper: seeds 10/20/30, ε = 0.15, 50 ticks); the episodes themselves
    are the domain's."""

    seeds: list[int] = field(default_factory=lambda: [10, 20, 30], metadata={"help": "agent seeds", "ge": 0})
    human: HumanParams = field(default_factory=HumanParams, metadata={"help": "the simulated human"})
    max_steps: int = field(default=50, metadata={"help": "tick limit of an episode", "ge": 1, "le": 10_000})
    teleport: int | None = field(
        default=None,
        metadata={
            "help": "teleport the helper to its object once the MAP goal is stable this many updates "
            "(and as --teleport-when says)",
            "ge": 0,
            "le": 10_000,
        },
    )
    calibrate: bool = field(
        default=True,
        metadata={"help": "track KL(exact ‖ reasoner) every tick (runs the domain's exact inference beside it)"},
    )
    teleport_when: str = field(
        default="map-stable",
        metadata={
            "help": "map-stable: the MAP goal has p ≥ 0.5, after each change of it; human-holds (the published "
            "evaluation's rule): the human holds an object of the MAP goal, once, and the helper then "
            "commits to that goal",
            "choices": TELEPORT_RULES,
        },
    )


@dataclass
class EpisodeRun:
    ticks: int
    success: bool
    goal_score: list[float]  # per tick, before acting: the domain's goal score of the posterior
    true_goal_prob: list[float]
    kl_to_exact: list[float] = field(default_factory=list)  # per tick (when calibrated): KL(exact ‖ reasoner), nats


#: Floor on the reasoner's probability of each goal pair in :func:`kl_to_exact` (a particle set
#: names only a few pairs; without a floor every unnamed pair with exact mass makes KL infinite).
KL_FLOOR = 1e-4


def kl_to_exact(exact: Posterior, model: Posterior, floor: float = KL_FLOOR) -> float:
    """KL(exact ‖ model) in nats over the exact posterior's goal pairs, with model mass floored at
    ``floor`` and renormalised: a calibration score (0 = the reasoner is the exact posterior)."""
    p = exact.probs
    q = np.maximum(model.dense(exact.hypotheses), floor)
    q = q / q.sum()
    nz = p > 0
    return float((p[nz] * np.log(p[nz] / q[nz])).sum())


def run_episode(
    domain: Domain,
    episode: object,
    reasoner: Reasoner | None,
    seed: int,
    settings: AssistSettings,
    exact_name: str = "exact",
) -> EpisodeRun:
    """Run one episode; ``reasoner=None`` runs the human alone (the helper stands still).

    With ``settings.calibrate`` the domain's ``exact`` reasoner runs beside the reasoner as the
    calibration reference."""
    return run_episodes(domain, [episode], [reasoner], [seed], settings, exact_name)[0]


def run_episodes(
    domain: Domain,
    episodes: Sequence[object],
    reasoners: Sequence[Reasoner | None],
    seeds: Sequence[int],
    settings: AssistSettings,
    exact_name: str = "exact",
) -> list[EpisodeRun]:
    """Run episodes in lock-step, as :func:`run_episode` runs each: at every tick the reasoners of
    the episodes still running are updated together (:func:`update_all`), so a reasoner that
    batches its decisions (an LLM) asks its model once per tick instead of once per episode."""
    runs: list[EpisodeRun | None] = [None] * len(episodes)
    waiting: dict[int, tuple[Generator, object]] = {}  # episode -> (its run, the observation it waits on)

    def advance(i: int, run: Generator, posterior: Posterior | None) -> None:
        try:
            waiting[i] = (run, run.send(posterior))
        except StopIteration as stop:
            runs[i] = stop.value
            waiting.pop(i, None)

    for i, (episode, reasoner, seed) in enumerate(zip(episodes, reasoners, seeds, strict=True)):
        advance(i, _episode_steps(domain, episode, reasoner, seed, settings, exact_name), None)
    while waiting:
        ready = list(waiting)
        posteriors = update_all([reasoners[i] for i in ready], [waiting[i][1] for i in ready])
        for i, posterior in zip(ready, posteriors):
            advance(i, waiting[i][0], posterior)
    return runs


def update_all(reasoners: Sequence[Reasoner], observations: Sequence[object]) -> list[Posterior]:
    """Each reasoner's posterior after its observation; reasoners of a class with a static
    ``update_many(reasoners, observations)`` (LLMs: one model call) are updated together."""
    posteriors: list[Posterior | None] = [None] * len(reasoners)
    kinds: dict[type, list[int]] = {}
    for i, reasoner in enumerate(reasoners):
        kinds.setdefault(type(reasoner), []).append(i)
    for kind, index in kinds.items():
        many = getattr(kind, "update_many", None)
        if many is None:
            answers = [reasoners[i].update(observations[i]) for i in index]
        else:
            answers = many([reasoners[i] for i in index], [observations[i] for i in index])
        for i, posterior in zip(index, answers):
            posteriors[i] = posterior
    return posteriors


def _episode_steps(
    domain: Domain,
    episode: object,
    reasoner: Reasoner | None,
    seed: int,
    settings: AssistSettings,
    exact_name: str,
) -> Generator[object, Posterior, EpisodeRun]:
    """One episode as a generator: it yields each observed action the reasoner must fold in, is
    sent the reasoner's new posterior, and returns the :class:`EpisodeRun`."""
    world = domain.simulator(episode, settings.human)
    goal = world.goal
    human_rng = np.random.default_rng([seed, 0])
    helper_rng = np.random.default_rng([seed, 1])
    state = world.initial_state()
    posterior = reasoner.reset(episode) if reasoner is not None else None
    calibrated = reasoner is not None and settings.calibrate
    exact = domain.reasoner(exact_name, seed, settings.human) if calibrated else None
    exact_posterior = exact.reset(episode) if exact is not None else None
    scores, true_prob, kls = [], [], []
    stable, last_map, teleported_for, committed = 0, None, None, None
    teleport, holds_rule = settings.teleport, settings.teleport_when == "human-holds"
    for _ in range(settings.max_steps):
        human_action = world.human_action(state, human_rng)
        helper_action = world.idle
        if posterior is not None:
            goal_now = posterior.map() if posterior.hypotheses else None  # an empty belief names no goal
            scores.append(domain.goal_score(posterior, goal))
            true_prob.append(posterior.prob(goal))
            if exact is not None:
                kls.append(kl_to_exact(exact_posterior, posterior))
            if reasoner.name != "none":
                stable = stable + 1 if goal_now == last_map else 1
                last_map = goal_now
                if holds_rule:
                    ready = committed is None and world.human_started(state, goal_now)
                else:
                    ready = posterior.probs.max() >= 0.5 and teleported_for != goal_now
                if teleport is not None and stable >= teleport and ready:
                    teleported_for = goal_now
                    state = world.teleport(state, goal_now)
                    committed = goal_now if holds_rule else None
                acting_on = posterior if committed is None else Posterior.point(committed)
                helper_action = world.helper_action(state, acting_on, helper_rng)
        next_state = world.step(state, human_action, helper_action)
        if posterior is not None:
            observation = world.observation(state, human_action)
            posterior = yield observation
            if exact is not None:
                exact_posterior = exact.update(observation)
        state = next_state
        if world.done(state):
            return EpisodeRun(world.ticks(state), True, scores, true_prob, kls)
    return EpisodeRun(settings.max_steps, False, scores, true_prob, kls)


def _mean(values: Sequence[float]) -> float | None:
    """Mean over an episode's ticks; None when it had none (finished at once, or not calibrated)."""
    return float(np.mean(values)) if len(values) else None


class Mean:
    """Running mean and standard error of a stream of numbers in constant memory. The sums are exact
    (fractions), so the result is correctly rounded and the same however a run was interrupted."""

    def __init__(self) -> None:
        self.n, self.sum, self.squares = 0, Fraction(0), Fraction(0)

    def add(self, value: float | None) -> None:
        """Add a value; None (not measured in this run) is skipped."""
        if value is None:
            return
        value = Fraction(value)
        self.n += 1
        self.sum += value
        self.squares += value * value

    def mean(self) -> float | None:
        """The mean, or None when nothing was measured."""
        return float(self.sum / self.n) if self.n else None

    def stderr(self) -> float:
        """Standard error of the mean (0 for a single value)."""
        if self.n < 2:
            return 0.0
        variance = (self.squares - self.sum * self.sum / self.n) / (self.n - 1)
        return math.sqrt(float(variance) / self.n)


def stderr(values: Iterable[float]) -> float:
    """Standard error of the mean of ``values`` (0 for a single value)."""
    mean = Mean()
    for value in values:
        mean.add(float(value))
    return mean.stderr()


def share_of(speedups: Sequence[float], reference: Sequence[float]) -> tuple[float, float] | None:
    """(mean(speedups) / mean(reference), its standard error) over the same runs, paired: run i of
    both lists is the same episode and seed, so the difficulty they share cancels (delta method).
    "Reaches 0.7 × exact's speedup" is this ratio, with ``reference`` exact's speedups. None where
    it is undefined: fewer than two runs, or a reference mean of 0."""
    a, b = np.asarray(speedups, dtype=float), np.asarray(reference, dtype=float)
    if a.shape != b.shape:
        raise UserError(f"a paired share needs the same runs: got {len(a)} and {len(b)}")
    if len(a) < 2 or b.mean() == 0:
        return None
    ratio = a.mean() / b.mean()
    residual = (a - ratio * b) / b.mean()  # the ratio's influence of each run
    return float(ratio), float(residual.std(ddof=1) / math.sqrt(len(a)))


def paired_share(samples: Sequence[dict], reference: Sequence[dict]) -> tuple[float, float] | None:
    """:func:`share_of` for run samples, each paired with the ``reference`` sample of the same episode
    and agent seed (several samples may share one reference run: one per training seed)."""
    by_run = {(r["episode_id"], r["seed"]): r["speedup"] for r in reference}
    return share_of([s["speedup"] for s in samples], [by_run[s["episode_id"], s["seed"]] for s in samples])


#: Per-run sample fields averaged into ``metrics[name]``.
MEANS = {
    "speedup_mean": "speedup",
    "success_rate": "success",
    "success_rate_alone": "success_alone",
    "t_alone_mean": "t_alone",
    "t_helped_mean": "t_helped",
    "goal_accuracy_mean": "goal_accuracy",
    "true_goal_prob_mean": "true_goal_prob_mean",
    "kl_to_exact_mean": "kl_to_exact_mean",
}


class AssistTotals:
    """The benchmark's metrics and Fig. 5 curve, accumulated run by run: memory stays flat in the
    number of runs, and a checkpoint of the totals lets an interrupted benchmark continue."""

    def __init__(self) -> None:
        self.means = {name: Mean() for name in MEANS}
        self.bins = np.zeros(PROGRESS_BINS)  # summed goal scores per bin of task progress
        self.ticks = np.zeros(PROGRESS_BINS, dtype=np.int64)  # ticks per bin
        self.reasoner_stats = None  # summed DecisionStats of reasoners that count their cost (LLMs)

    @property
    def runs(self) -> int:
        return self.means["speedup_mean"].n

    def add(self, sample: dict, helped: EpisodeRun, stats: object) -> None:
        for name, key in MEANS.items():
            self.means[name].add(sample[key])
        n = len(helped.goal_score)
        for t, score in enumerate(helped.goal_score):
            b = min(PROGRESS_BINS - 1, int(PROGRESS_BINS * t / n))
            self.bins[b] += score
            self.ticks[b] += 1
        if stats is not None:
            self.reasoner_stats = stats if self.reasoner_stats is None else self.reasoner_stats.merge(stats)

    def metrics(self) -> dict:
        metrics = {name: mean.mean() for name, mean in self.means.items()}
        metrics["speedup_stderr"] = self.means["speedup_mean"].stderr()
        metrics["n_runs"] = self.runs
        if self.reasoner_stats is not None:
            metrics.update(self.reasoner_stats.metrics())
        return metrics

    def curve(self) -> list[float | None]:
        """Mean goal score per bin of task progress (fraction of the episode elapsed)."""
        return [float(s / c) if c else None for s, c in zip(self.bins, self.ticks)]


def assist_samples(
    domain: Domain,
    episodes: Sequence[object],
    settings: AssistSettings,
    make_reasoner: Callable[[int], Reasoner],
    totals: AssistTotals,
    label: str = "",
    progress: bool = True,
    batch: int = 1,
) -> Iterator[dict]:
    """Run a reasoner on every (seed, episode), seed by seed, from run ``totals.runs`` on (a resumed
    benchmark skips the runs it has); add each run to ``totals`` and yield its sample, in run order.
    ``batch`` helped runs go in lock-step (:func:`run_episodes`); a run's sample does not depend on
    the runs beside it. Episodes are fetched by index as they are needed, never listed."""
    n = len(episodes)
    if not n:
        raise UserError("no episodes to run")
    if batch < 1:
        raise UserError(f"batch must be at least 1 episode, got {batch}")
    end = len(settings.seeds) * n
    bar = tqdm(total=end - totals.runs, desc=f"assist[{label}]", disable=not progress, leave=False)
    for lo in range(totals.runs, end, batch):
        jobs = [(settings.seeds[job // n], episodes[job % n]) for job in range(lo, min(lo + batch, end))]
        reasoners = [make_reasoner(seed) for seed, _ in jobs]
        runs = run_episodes(domain, [e for _, e in jobs], reasoners, [seed for seed, _ in jobs], settings)
        for (seed, episode), reasoner, helped in zip(jobs, reasoners, runs):
            alone = run_episode(domain, episode, None, seed, settings)
            stats = getattr(reasoner, "stats", None)
            sample = {
                "episode_id": domain.episode_id(episode),
                "seed": seed,
                "goal": domain.goal_record(episode),
                "t_alone": alone.ticks,
                "t_helped": helped.ticks,
                "success_alone": alone.success,
                "success": helped.success,
                "speedup": alone.ticks / helped.ticks - 1.0,
                "goal_accuracy": _mean(helped.goal_score),
                "true_goal_prob_mean": _mean(helped.true_goal_prob),
                "kl_to_exact_mean": _mean(helped.kl_to_exact),
                **({"reasoner": stats.metrics()} if stats is not None else {}),
            }
            totals.add(sample, helped, stats)
            bar.update()
            yield sample
    bar.close()


def run_assist(
    domain: Domain,
    episodes: Sequence[object],
    settings: AssistSettings,
    make_reasoner: Callable[[int], Reasoner],
    label: str = "",
    progress: bool = True,
    batch: int = 1,
) -> tuple[dict, list[dict], list[float | None]]:
    """Evaluate a reasoner on every (seed, episode), ``batch`` episodes in lock-step; returns
    (metrics, per-episode samples, Fig. 5 accuracy curve). The samples are kept: a long benchmark
    streams :func:`assist_samples` instead."""
    totals = AssistTotals()
    samples = list(assist_samples(domain, episodes, settings, make_reasoner, totals, label, progress, batch))
    return totals.metrics(), samples, totals.curve()
