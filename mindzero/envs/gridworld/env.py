"""Gymnasium environment for the helper's single-agent view of GridWorld "Construction"."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from mindzero.core.human import HumanParams
from mindzero.envs.gridworld.episodes import Episode, generate_episode
from mindzero.envs.gridworld.human import HumanModel
from mindzero.envs.gridworld.layout import COLORS, SHAPES
from mindzero.envs.gridworld.render import render_ascii, render_rgb
from mindzero.envs.gridworld.world import ACTION_NAMES, N_ACTIONS, Observation, WorldState, goal_achieved, step


class HelperEnv(gym.Env):
    """
    ## Description

    The helper (red robot) shares a grid with a simulated human (green robot) who wants to place
    two of the objects next to each other (paper MindZero, App. B). The human acts inside the
    environment with :class:`~mindzero.envs.gridworld.human.HumanModel` (ε-random moves, pauses
    after each move while carrying); its goal is hidden from the agent and revealed in ``info``.
    Both act simultaneously each tick: moves first, then pick/put, the human's before the helper's.
    Episodes are drawn with ``generate_episode`` (layout family ``family``) from the env's seeded
    generator, or given with ``reset(options={"episode": Episode})``.

    ## Action Space

    ``Discrete(7)``: 0 stay, 1 up (+y), 2 down, 3 left (−x), 4 right, 5 pick (an object lying on
    the helper's cell), 6 put (fails if an object already lies on the cell). Blocked moves and
    invalid pick/put leave the state unchanged.

    ## Observation Space

    ``Dict`` (positions are (x, y) cells, up = +y; ``n`` = ``n_objects``):

    - ``human``, ``helper``: ``MultiDiscrete([width, height])`` agent cells
    - ``objects``: ``MultiDiscrete`` of shape (n, 2): object cells (a carried object is at its carrier)
    - ``carried_by``: ``MultiDiscrete([3] * n)``: 0 on the ground, 1 carried by the human, 2 by the helper
    - ``object_color``, ``object_shape``: ``MultiDiscrete``: index into ``layout.COLORS`` / ``layout.SHAPES``
    - ``obstacles``: ``MultiBinary((width, height))``, indexed ``[x, y]``
    - ``human_rest``: ``Discrete(2)``: 1 if the human must pause this tick (moved while carrying)
    - ``last_human_action``: ``Discrete(8)``: the human's previous action, 7 before its first
    - ``t``: ``Discrete(max_steps + 1)``: ticks elapsed

    ## Rewards

    −1 per tick, so the return is minus the episode length: maximising it is finishing the human's
    goal sooner (the paper's speedup metric compares these lengths with the human acting alone).

    ## Termination

    Terminated when the human's goal is achieved (both goal objects on the ground, Manhattan
    distance 1, by whichever agent put them there); truncated after ``max_steps`` ticks (50, the
    assistance limit).

    ## Info

    ``goal`` (object indices), ``goal_labels``, ``human_action`` (the human's action this tick;
    ``None`` after reset), ``human_action_name``, ``state`` (the :class:`WorldState`) and, after a
    step, ``observation``: the :class:`Observation` (state before the tick, human action) that
    online reasoners consume. The
    current :class:`Episode` (layout and goal) is the attribute ``env.unwrapped.episode``.

    ## Rendering

    ``render_mode="rgb_array"``: the paper-style image with the human's fading trail;
    ``"ansi"``: the ASCII grid of paper Fig. 11 under a ``t=`` line.
    """

    metadata = {"render_modes": ["rgb_array", "ansi"], "render_fps": 4}

    def __init__(
        self,
        family: str | None = None,
        human: HumanParams = HumanParams(),
        max_steps: int = 50,
        size: int = 10,
        n_objects: int = 8,
        render_mode: str | None = None,
        cell_px: int = 48,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.family, self.human, self.max_steps = family, human, max_steps
        self.size, self.n_objects = size, n_objects
        self.render_mode, self.cell_px = render_mode, cell_px
        grid = [size, size]
        self.action_space = spaces.Discrete(N_ACTIONS)
        self.observation_space = spaces.Dict(
            {
                "human": spaces.MultiDiscrete(grid),
                "helper": spaces.MultiDiscrete(grid),
                "objects": spaces.MultiDiscrete(np.full((n_objects, 2), size)),
                "carried_by": spaces.MultiDiscrete([3] * n_objects),
                "object_color": spaces.MultiDiscrete([len(COLORS)] * n_objects),
                "object_shape": spaces.MultiDiscrete([len(SHAPES)] * n_objects),
                "obstacles": spaces.MultiBinary(grid),
                "human_rest": spaces.Discrete(2),
                "last_human_action": spaces.Discrete(N_ACTIONS + 1),
                "t": spaces.Discrete(max_steps + 1),
            }
        )
        self.episode: Episode | None = None
        self.state: WorldState | None = None
        self.trail: list[int] = []
        self._human: HumanModel | None = None
        self._last_human_action = N_ACTIONS
        self._static: dict[str, np.ndarray] = {}

    # --- gymnasium API ----------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Start an episode: ``options["episode"]`` if given, else one drawn from ``np_random``."""
        super().reset(seed=seed)
        episode = (options or {}).get("episode")
        if episode is None:
            episode = generate_episode(self.np_random, self.family, n_objects=self.n_objects, size=self.size)
        lay = episode.layout
        if (lay.width, lay.height, len(lay.objects)) != (self.size, self.size, self.n_objects):
            raise ValueError(
                f"episode is {lay.width}x{lay.height} with {len(lay.objects)} objects; this env expects "
                f"{self.size}x{self.size} with {self.n_objects}"
            )
        self.episode = episode
        self.state = episode.initial_state()
        self.trail = [self.state.human]
        self._human = HumanModel(lay, **asdict(self.human))
        self._last_human_action = N_ACTIONS
        self._static = self._static_obs()
        return self._obs(), self._info(None)

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """One tick: the human samples its action in the current state, then both act at once."""
        if self.state is None or self.episode is None or self._human is None:
            raise RuntimeError("call reset() before step()")
        if not self.action_space.contains(action):
            raise ValueError(f"invalid action {action!r}; expected an int in [0, {N_ACTIONS})")
        before = self.state
        human_action = self._human.sample(before, self.episode.goal, self.np_random)
        self.state = step(self.episode.layout, before, human_action, int(action))
        self.trail.append(self.state.human)
        self._last_human_action = human_action
        terminated = goal_achieved(self.state, self.episode.goal, self.episode.layout)
        truncated = not terminated and self.state.t >= self.max_steps
        info = self._info(human_action)
        info["observation"] = Observation(before, human_action)
        return self._obs(), -1.0, terminated, truncated, info

    def render(self) -> np.ndarray | str | None:
        """RGB array or ASCII text of the current state, per ``render_mode`` (None without one)."""
        if self.render_mode is None or self.state is None or self.episode is None:
            return None
        lay = self.episode.layout
        if self.render_mode == "rgb_array":
            return render_rgb(lay, self.state, self.trail, self.cell_px, title=f"t={self.state.t}")
        return f"t={self.state.t}\n{render_ascii(lay, self.state)}\n"

    # --- helpers ----------------------------------------------------------------------------
    def _static_obs(self) -> dict[str, np.ndarray]:
        lay = self.episode.layout  # type: ignore[union-attr]
        obstacles = np.zeros((lay.width, lay.height), dtype=np.int8)
        for x, y in lay.obstacles:
            obstacles[x, y] = 1
        return {
            "object_color": np.array([COLORS.index(o.color) for o in lay.objects], dtype=np.int64),
            "object_shape": np.array([SHAPES.index(o.shape) for o in lay.objects], dtype=np.int64),
            "obstacles": obstacles,
        }

    def _obs(self) -> dict[str, np.ndarray]:
        lay, s = self.episode.layout, self.state  # type: ignore[union-attr]
        carried = np.zeros(self.n_objects, dtype=np.int64)
        if s.human_carry >= 0:
            carried[s.human_carry] = 1
        if s.helper_carry >= 0:
            carried[s.helper_carry] = 2
        return {
            "human": np.array(lay.cell(s.human), dtype=np.int64),
            "helper": np.array(lay.cell(s.helper), dtype=np.int64),
            "objects": np.array([lay.cell(c) for c in s.objects], dtype=np.int64),
            "carried_by": carried,
            **{k: v.copy() for k, v in self._static.items()},
            "human_rest": int(s.human_rest),
            "last_human_action": int(self._last_human_action),
            "t": int(min(s.t, self.max_steps)),
        }

    def _info(self, human_action: int | None) -> dict[str, Any]:
        ep = self.episode
        return {
            "goal": ep.goal,  # type: ignore[union-attr]
            "goal_labels": tuple(ep.layout.objects[k].label for k in ep.goal),  # type: ignore[union-attr]
            "human_action": human_action,
            "human_action_name": None if human_action is None else ACTION_NAMES[human_action],
            "state": self.state,
        }
