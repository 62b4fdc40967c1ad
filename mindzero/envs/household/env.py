"""Gymnasium environment for the helper's single-agent view of Household."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from mindzero.core.human import HumanParams
from mindzero.envs.household.apartment import bundled_apartment
from mindzero.envs.household.episodes import EPISODE_TICKS, Episode, make_episode, world_of
from mindzero.envs.household.human import HOUSEHOLD_HUMAN, HouseholdHuman
from mindzero.envs.household.render import render_grid, render_image, render_transcript
from mindzero.envs.household.world import GRAB, NOOP, PUTIN, PUTON, VERBS, WALK, Action, goal_text


class HouseholdEnv(gym.Env):
    """
    ## Description

    The helper shares an apartment with a simulated human who puts 2–6 objects on or inside one
    target (set up the table, put in the fridge / dishwasher, prepare food, watch TV). The human
    acts inside the environment with :class:`~mindzero.envs.household.human.HouseholdHuman`
    (a Boltzmann-noisy subgoal planner on its partial-view belief, ε random actions); its goal is
    hidden from the agent and revealed in ``info``. Each tick the human acts first, then the helper
    (:mod:`mindzero.envs.household.world` has the rules). Episodes come from
    ``make_episode(apartment, seed)`` with a seed drawn from the env's generator.

    ## Action Space

    ``MultiDiscrete([8, A, F])``: (verb, x, y) with verbs noop, walk (x = furniture index, or
    F + room index), open / close / switchon (x = furniture), grab (x = object), putback / putin
    (x = object, y = furniture); x and y are taken modulo what the verb indexes. An action whose
    preconditions fail does nothing; arguments a verb does not use are set to 0.

    ## Observation Space

    ``Box`` of int64: the compact state (``World`` docstring), fixed length per apartment.

    ## Rewards

    −1 per tick: the return is minus the episode length.

    ## Termination

    Terminated when the goal holds; truncated after ``max_steps`` ticks.

    ## Rendering

    ``"ansi"``: the paper Fig. 9 transcript under a top-down character map; ``"rgb_array"``: a
    top-down plan (``render.render_image``).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(
        self,
        apartment: str = "apt0",
        max_steps: int = EPISODE_TICKS,
        human: HumanParams = HOUSEHOLD_HUMAN,
        render_mode: str | None = None,
    ) -> None:
        self.apartment = bundled_apartment(apartment)
        self.world = world_of(self.apartment)
        self.human = HouseholdHuman(self.world, human)
        self.max_steps = max_steps
        self.render_mode = render_mode
        w = self.world
        size = max(w.n_nodes, w.n)
        self.action_space = spaces.MultiDiscrete([len(VERBS), size, w.F])
        length = w.LOC + 2 * w.n
        self.observation_space = spaces.Box(-2, np.iinfo(np.int64).max, shape=(length,), dtype=np.int64)
        self.episode: Episode | None = None

    def _obs(self) -> np.ndarray:
        return np.array(self.state, dtype=np.int64)

    def _info(self, human_action: Action | None) -> dict[str, Any]:
        return {
            "goal": self.episode.goal,
            "goal_text": goal_text(self.world, self.episode.goal),
            "human_action": human_action,
            "human_action_text": None if human_action is None else self.world.action_text(human_action),
        }

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.episode = make_episode(self.apartment, int(self.np_random.integers(2**31)))
        self.state = self.episode.initial_state()
        self.history: list[Action] = []
        return self._obs(), self._info(None)

    def step(self, action):
        verb, x, y = (int(v) for v in action)
        w = self.world
        if verb == NOOP:
            x = 0
        elif verb == WALK:
            x %= w.n_nodes
        elif verb in (GRAB, PUTON, PUTIN):
            x %= w.n
        else:
            x %= w.F
        if verb not in (PUTON, PUTIN):
            y = 0
        human_action = self.human.sample(self.state, self.episode.goal, self.np_random)
        self.history.append(human_action)
        self.state = w.step(self.state, human_action, (verb, x, y))
        terminated = w.achieved(self.state, self.episode.goal)
        truncated = not terminated and self.state[0] >= self.max_steps
        return self._obs(), -1.0, terminated, truncated, self._info(human_action)

    def render(self) -> str | np.ndarray | None:
        if self.render_mode == "rgb_array":
            return render_image(self.world, self.state)
        if self.render_mode != "ansi":
            return None
        text = render_transcript(self.world, self.state, self.history, None)
        return f"t={self.state[0]}\n{render_grid(self.world, self.state)}\n{text}"
