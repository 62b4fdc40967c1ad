"""The episode viewer's data: a recorded assistance episode, step by step, with the posterior the
helper acted on at every tick.

An assistance run's ``samples.jsonl`` holds one summary row per (seed, episode), not the steps;
its ``results.json`` holds the config. Since runs are deterministic by seed, the viewer re-runs
the row's helped episode through :func:`mindzero.tasks.assist.run_episode` itself, the benchmark's
own loop, with the simulator and the reasoner wrapped to record each tick, and checks the replay
against the recorded ``t_helped`` and ``success`` (a mismatch, e.g. after a code change, is
reported beside the frames, never hidden).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Any

from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.core.posterior import Posterior
from mindzero.core.reasoner import Reasoner
from mindzero.core.results import iter_jsonl, read_json
from mindzero.domains import get_domain
from mindzero.domains.base import Domain
from mindzero.tasks.assist import AssistSettings, run_episode
from mindzero.web.games import VIEWS, posterior_json

#: Runs listed by the viewer (the newest first), so a huge runs folder cannot flood the page.
MAX_RUNS = 500
#: Episode rows listed per run.
MAX_ROWS = 5000


def run_path(root: Path, rel: str) -> Path:
    """``root/rel`` if it is a ``samples.jsonl`` inside ``root`` (no escape by ``..`` or links)."""
    try:
        path = (root / rel).resolve()
        inside = path.name == "samples.jsonl" and path.is_relative_to(root.resolve())
        found = inside and path.is_file()
    except (OSError, ValueError):  # a NUL byte, a name too long for the file system
        inside = False
    if not inside:
        raise UserError(f"{rel[:200]!r}: not a samples.jsonl under the runs folder")
    if not found:
        raise FileNotFoundError(rel)
    return path


def run_config(samples: Path) -> dict:
    """The ``results.json`` beside ``samples``, checked to be an assistance run."""
    results = read_json(samples.with_name("results.json"), hint="the run did not finish")
    task = results.get("task") if isinstance(results, dict) else None
    if not isinstance(task, str) or not task.endswith("/assist") or task.split("/")[0] not in VIEWS:
        raise UserError(f"{samples.with_name('results.json')}: not an assistance run of a playable domain ({task})")
    return results


def list_runs(root: Path) -> list[dict]:
    """Assistance runs under ``root``: path relative to it, task, reasoner, newest first."""
    found = []
    for path in sorted(root.rglob("samples.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True):
        try:
            results = run_config(path)
        except UserError:
            continue
        config = results.get("config", {})
        found.append({"path": str(path.relative_to(root)), "task": results["task"], "reasoner": config.get("reasoner")})
        if len(found) >= MAX_RUNS:
            break
    return found


def list_episodes(samples: Path) -> list[dict]:
    """Index, id, seed and timing of the run's episodes (at most :data:`MAX_ROWS`)."""
    keys = ("episode_id", "seed", "t_alone", "t_helped", "success", "speedup")
    rows = []
    for n, (_, row) in enumerate(iter_jsonl(samples)):
        if n >= MAX_ROWS:
            break
        rows.append({"row": n, **{k: row.get(k) for k in keys}})
    return rows


class _RecordingReasoner:
    """Passes through a reasoner, keeping its latest posterior (the one the helper acts on next)."""

    def __init__(self, reasoner: Reasoner) -> None:
        self.reasoner, self.name = reasoner, reasoner.name
        self.posterior: Posterior | None = None

    def reset(self, episode: Any) -> Posterior:
        self.posterior = self.reasoner.reset(episode)
        return self.posterior

    def update(self, observation: Any) -> Posterior:
        self.posterior = self.reasoner.update(observation)
        return self.posterior


class _RecordingSimulator:
    """Passes through a simulator, recording (state, actions, posterior, next state) per step."""

    def __init__(self, world: Any, belief: _RecordingReasoner) -> None:
        self.world, self.belief = world, belief
        self.steps: list[tuple[Any, Any, Any, Posterior | None, Any]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.world, name)

    def step(self, state: Any, human_action: Any, helper_action: Any) -> Any:
        next_state = self.world.step(state, human_action, helper_action)
        self.steps.append((state, human_action, helper_action, self.belief.posterior, next_state))
        return next_state


class _RecordingDomain:
    """Passes through a domain whose simulators record (only the helped run asks for one)."""

    def __init__(self, domain: Domain, belief: _RecordingReasoner) -> None:
        self.domain, self.belief = domain, belief
        self.recorder: _RecordingSimulator | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.domain, name)

    def simulator(self, episode: Any, human: HumanParams) -> _RecordingSimulator:
        self.recorder = _RecordingSimulator(self.domain.simulator(episode, human), self.belief)
        return self.recorder


def replay(samples: Path, row: int, llm: Callable[[int], Reasoner] | None = None) -> dict:
    """Frames of the helped episode of ``samples`` row ``row``: the state and the posterior the
    helper acted on before each tick, then the final state; ``llm(seed)`` builds the reasoner of an
    ``llm`` run (None: such runs cannot be replayed here)."""
    results = run_config(samples)
    config = results.get("config", {})
    rows = [r for n, (_, r) in enumerate(iter_jsonl(samples)) if n == row]
    if not rows:
        raise LookupError(f"{samples.name} has no row {row}")
    sample = rows[0]
    domain_name = results["task"].split("/")[0]
    view, domain = VIEWS[domain_name], get_domain(domain_name)
    try:
        human = HumanParams(**config.get("human", {}))
        known = {f.name for f in fields(AssistSettings)} - {"seeds", "human"}
        settings = AssistSettings(seeds=[sample["seed"]], human=human, **{k: config[k] for k in known & set(config)})
        runs = view.episodes(config)
    except (KeyError, TypeError) as err:
        raise UserError(f"{samples.with_name('results.json')}: config lacks what a replay needs ({err})") from None
    episode = runs[row % len(runs)]  # samples run seed by seed over every episode
    if domain.episode_id(episode) != sample.get("episode_id"):
        raise UserError(f"row {row}: episode {sample.get('episode_id')!r} is not where the run's config puts it")
    name = config.get("reasoner")
    if name == "llm":
        if llm is None:
            raise UserError("replaying an llm run needs its model: start `mindzero serve --reasoner llm --model SPEC`")
        reasoner = llm(sample["seed"])
    elif name in domain.reasoners:
        reasoner = domain.reasoner(name, sample["seed"], human)
    else:
        raise UserError(f"unknown reasoner {name!r} in the run's config")
    belief = _RecordingReasoner(reasoner)
    recording = _RecordingDomain(domain, belief)
    run = run_episode(recording, episode, belief, sample["seed"], settings)  # type: ignore[arg-type]
    goal = domain.goal(episode)
    steps = recording.recorder.steps
    frames = [
        {
            "t": t,
            "state": view.state_json(episode, state),
            "human_action": view.action_name(episode, human_action),
            "helper_action": view.action_name(episode, helper_action),
            "posterior": posterior_json(view, episode, posterior, goal) if posterior is not None else None,
        }
        for t, (state, human_action, helper_action, posterior, _) in enumerate(steps)
    ]
    final = steps[-1][4] if steps else domain.simulator(episode, human).initial_state()
    frames.append(
        {
            "t": len(steps),
            "state": view.state_json(episode, final),
            "human_action": None,
            "helper_action": None,
            "posterior": posterior_json(view, episode, belief.posterior, goal),
        }
    )
    mismatch = []
    if run.ticks != sample.get("t_helped"):
        mismatch.append(f"the replay took {run.ticks} ticks, the run recorded {sample.get('t_helped')}")
    if run.success != sample.get("success"):
        mismatch.append(f"the replay {'succeeded' if run.success else 'failed'}, the run recorded the opposite")
    return {
        "domain": domain_name,
        "episode_id": sample.get("episode_id"),
        "seed": sample["seed"],
        "reasoner": name,
        "goal": view.goal_json(episode),
        "t_alone": sample.get("t_alone"),
        "t_helped": sample.get("t_helped"),
        "success": run.success,
        "frames": frames,
        "mismatch": "; ".join(mismatch) or None,
    }
