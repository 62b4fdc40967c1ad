"""GridWorld "Construction" (paper §5.1–5.2) as a domain: the first implementation of
:class:`mindzero.domains.base.Domain`.

Episodes come from :class:`EpisodeConfig` (generated under a protocol, the user's layout files, or
an episodes file); the simulated human is :class:`~mindzero.envs.gridworld.human.HumanModel` with the
command's :class:`~mindzero.core.human.HumanParams`; the helper is
:class:`~mindzero.envs.gridworld.helper.HelperPlanner`; exact inference is
:class:`~mindzero.domains.gridworld.reasoners.ExactGoalInference` over the 28 goal pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache, partial
from typing import Any

import numpy as np

from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.core.parsing import ParseResult
from mindzero.core.posterior import Posterior
from mindzero.core.reasoner import Reasoner
from mindzero.domains.base import SSRLTask
from mindzero.domains.gridworld.hypotheses import (
    format_goal_particles,
    format_letter_particles,
    parse_goal_particles,
)
from mindzero.domains.gridworld.protocol import reference_episode
from mindzero.domains.gridworld.qa import PROMPT_STYLES, TEST_SPLITS, build_split, option_probs, qa_prompt
from mindzero.domains.gridworld.reasoners import BASELINE_REASONERS, make_reasoner
from mindzero.domains.gridworld.ssrl import AssistTask, QATask, assist_prompt, object_names, particle_form
from mindzero.envs.gridworld.episodes import (
    Episode,
    generate_episode,
    generated_episode,
    layout_episode,
    load_episodes,
    load_layouts,
)
from mindzero.envs.gridworld.helper import HelperPlanner
from mindzero.envs.gridworld.human import HumanModel, human_first_object
from mindzero.envs.gridworld.layout import FAMILIES
from mindzero.envs.gridworld.world import Action, Goal, Observation, WorldState, goal_achieved, goal_pairs, step

#: Random stream of held-out evaluation episodes (training episodes draw from ``[seed, k]``).
HELDOUT_STREAM = 7_000_001
#: Episode generators: ``reference`` (:mod:`~mindzero.domains.gridworld.protocol`; ``paper`` is
#: the same), and :mod:`~mindzero.envs.gridworld.episodes`' ``ambiguous`` and ``quick``.
PROTOCOLS = ("paper", "reference", "ambiguous", "quick")


@dataclass
class EpisodeConfig:
    """Which GridWorld episodes a benchmark runs (paper: 20 per seed on U(0, 20)-obstacle layouts)."""

    protocol: str = field(
        default="paper",
        metadata={
            "help": "episode generator: paper = reference (the published evaluation's generator: its "
            "layouts, far goal pairs, goal partly identifiable before the pick), ambiguous (long, goal "
            "ambiguous early on) or quick (plan of 12..36 ticks)",
            "choices": PROTOCOLS,
        },
    )
    episodes: int = field(default=20, metadata={"help": "episodes per seed", "ge": 1, "le": 10_000})
    episode_seed: int = field(default=0, metadata={"help": "seed of the episode generator", "ge": 0})
    family: str | None = field(
        default=None, metadata={"help": "layout family; None = U(0,20) obstacles", "choices": tuple(FAMILIES)}
    )
    layouts: str | None = field(default=None, metadata={"help": "layout file or folder of *.txt layouts"})
    episodes_file: str | None = field(
        default=None,
        metadata={
            "help": "JSONL of episodes (layout_text + goal per line, e.g. ../shared/data/gw_reference_episodes/"
            "episodes_seed0.jsonl): run its first --episodes instead of generated ones"
        },
    )
    size: int = field(
        default=10,
        metadata={
            # distance tables hold size^4 entries; 64 episodes are cached: 32 keeps them under 0.6 GB
            "help": "grid width and height of generated layouts",
            "ge": 3,
            "le": 32,
        },
    )
    n_objects: int = field(
        default=8, metadata={"help": "objects per generated layout (a goal is a pair of them)", "ge": 2, "le": 10}
    )


#: Episodes an :class:`Episodes` keeps for the next seed and reasoner (the paper's 20 all fit); each
#: holds its layout's distance tables, about 100 kB.
EPISODE_CACHE = 64


class Episodes(Sequence[Episode]):
    """``n`` episodes made on demand by ``make(k)``, at most :data:`EPISODE_CACHE` of them kept, so
    that a benchmark of any length runs in constant memory."""

    def __init__(self, n: int, make: Callable[[int], Episode]) -> None:
        self.n, self.make = n, lru_cache(maxsize=EPISODE_CACHE)(make)

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, k: int) -> Episode:  # type: ignore[override]
        if not -self.n <= k < self.n:
            raise IndexError(k)
        return self.make(k % self.n)


def episodes(config: EpisodeConfig) -> Episodes:
    """The benchmark's episodes: the first ``config.episodes`` of an episodes file; on the user's
    layouts (goals of a 12..36-tick plan); else generated under ``config.protocol``. The file is
    read in full and the first generated episode made at once, so that bad input fails before any work."""
    if config.episodes_file and config.layouts:
        raise UserError("give --episodes-file or --layouts, not both")
    generated = not (config.layouts or config.episodes_file)
    if generated and config.protocol != "quick" and config.n_objects < 3:
        raise UserError(
            f"--protocol {config.protocol} needs --n-objects of at least 3 (an object besides the goal pair), "
            f"got {config.n_objects}; use --protocol quick"
        )
    if config.episodes_file:
        loaded = load_episodes(config.episodes_file, config.size)
        if len(loaded) < config.episodes:
            raise UserError(
                f"{config.episodes_file}: has {len(loaded)} episodes; --episodes asks for {config.episodes}"
            )
        make = loaded.__getitem__
    elif config.layouts:
        make = partial(layout_episode, layouts=load_layouts(config.layouts), seed=config.episode_seed)
    elif config.protocol in ("paper", "reference"):
        if config.family is not None:
            raise UserError("--family does not apply to --protocol reference: its layouts follow the episode index")
        make = partial(reference_episode, seed=config.episode_seed, size=config.size, n_objects=config.n_objects)
    else:
        make = partial(
            generated_episode,
            seed=config.episode_seed,
            family=config.family,
            n_objects=config.n_objects,
            size=config.size,
            protocol=config.protocol,
        )
    runs = Episodes(config.episodes, make)
    runs[0]
    return runs


class GridWorldSimulator:
    """One GridWorld episode: the human picks and places, the helper acts on a posterior."""

    idle = Action.STAY

    def __init__(self, episode: Episode, human: HumanParams) -> None:
        self.episode = episode
        self.goal = episode.goal
        self.layout = episode.layout
        self.human = HumanModel(episode.layout, **asdict(human))
        self.helper = HelperPlanner(episode.layout)

    def initial_state(self) -> WorldState:
        return self.episode.initial_state()

    def human_action(self, state: WorldState, rng: np.random.Generator) -> int:
        return self.human.sample(state, self.goal, rng)

    def helper_action(self, state: WorldState, posterior: Posterior, rng: np.random.Generator) -> int:
        return self.helper.act(state, posterior, rng)

    def observation(self, state: WorldState, human_action: int) -> Observation:
        return Observation(state, human_action)

    def step(self, state: WorldState, human_action: int, helper_action: int) -> WorldState:
        return step(self.layout, state, human_action, helper_action)

    def done(self, state: WorldState) -> bool:
        return goal_achieved(state, self.goal, self.layout)

    def ticks(self, state: WorldState) -> int:
        return state.t

    def teleport(self, state: WorldState, goal: Goal) -> WorldState:
        """Move an empty-handed helper onto the object it would fetch for ``goal``."""
        _, other = human_first_object(state, self.layout, goal)
        if state.helper_carry >= 0 or not state.on_ground(other):
            return state
        return replace(state, helper=state.objects[other])

    def human_started(self, state: WorldState, goal: Goal) -> bool:
        return state.human_carry in goal


class GridWorldDomain:
    """GridWorld through the domain interface (see :mod:`mindzero.domains.base`)."""

    name = "gridworld"
    reasoners = BASELINE_REASONERS
    prompt_styles = PROMPT_STYLES
    goal_metric = "MAP-goal accuracy"

    def __init__(self) -> None:
        self.tasks: Mapping[str, SSRLTask] = {"qa": QATask(), "assist": AssistTask()}

    def human(self, flags: HumanParams) -> HumanParams:
        return flags

    def reasoner(self, name: str, seed: int, human: HumanParams) -> Reasoner:
        return make_reasoner(name, seed, human)

    def simulator(self, episode: Episode, human: HumanParams) -> GridWorldSimulator:
        return GridWorldSimulator(episode, human)

    def hypotheses(self, episode: Episode) -> tuple[Hashable, ...]:
        return tuple(goal_pairs(len(episode.layout.objects)))

    def goal(self, episode: Episode) -> Goal:
        return episode.goal

    def goal_record(self, episode: Episode) -> list[int]:
        return list(episode.goal)

    def goal_score(self, posterior: Posterior, goal: Goal) -> float:
        return float(posterior.map() == goal)

    def episode_id(self, episode: Episode) -> str:
        return episode.episode_id

    def heldout_episodes(self, n: int, seed: int) -> list[Episode]:
        """Episodes on generated layouts from a random stream no training row draws from."""
        return [
            generate_episode(np.random.default_rng([seed, HELDOUT_STREAM, k]), episode_id=f"heldout{seed}-{k:04d}")
            for k in range(n)
        ]

    def heldout_questions(self, n: int, seed: int) -> list[dict]:
        """Questions of the three test splits (unseen layout, colour, shape), 3 per episode."""
        episodes = max(1, n // 3)
        per_split = [episodes // 3 + (i < episodes % 3) for i in range(3)]
        return [row for split, k in zip(TEST_SPLITS, per_split) for row in build_split(split, k, seed, progress=False)]

    def assist_prompt(self, episode: Episode, observations: Sequence[Observation], n_particles: int, style: str) -> str:
        """The states are those before each observed action plus the human's move with the helper
        standing still, as in the training rows; the next observation supersedes the last."""
        states = [o.state for o in observations] or [episode.initial_state()]
        actions = [o.human_action for o in observations]
        if observations:
            last = observations[-1]
            states.append(step(episode.layout, last.state, last.human_action, Action.STAY))
        return assist_prompt(episode.layout, states, actions, n_particles, style)

    def parse_particles(self, text: object, episode: Episode, n_particles: int | None) -> ParseResult:
        return parse_goal_particles(text, object_names(episode.layout), n_particles)

    def hypothesis_texts(self, episode: Episode, style: str) -> list[tuple[Hashable, str]]:
        """Both object orders of every pair; in the letter form only the letters (``C G``: a
        prefix of every ``C G p`` a model writes, so its score is their total probability)."""
        objects = object_names(episode.layout)
        letters = particle_form(style) == "letters"
        texts = []
        for i, j in goal_pairs(len(objects)):
            for pair in ((i, j), (j, i)):
                if letters:
                    text = format_letter_particles([pair], [1.0]).rsplit(" ", 1)[0]
                else:
                    text = format_goal_particles([pair], [1.0], objects, digits=2)
                texts.append(((i, j), text))
        return texts

    def qa_prompt(self, row: Mapping[str, Any], style: str) -> str:
        return qa_prompt(row, style)  # type: ignore[arg-type]

    def qa_option_probs(self, row: Mapping[str, Any], reasoner: Reasoner) -> np.ndarray:
        return option_probs(row, reasoner)
