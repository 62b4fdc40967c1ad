"""Regenerate the README figure ``docs/gridworld.png``: a mid-episode GridWorld state.

Run ``python docs/make_figures.py``; the picture depends only on ``SEED`` (same seed, same bytes).
The episode runs with the simulated human (ε = 0.15, as in evaluation) and an oracle helper that
knows the goal, and stops a few carried moves after the human's pick, so the figure shows the
human carrying an object, its fading trail, and the helper at work.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import numpy as np

from mindzero.core.human import HumanParams
from mindzero.core.posterior import Posterior
from mindzero.envs.gridworld.episodes import generate_episode
from mindzero.envs.gridworld.helper import HelperPlanner
from mindzero.envs.gridworld.human import HumanModel
from mindzero.envs.gridworld.render import render_rgb, save_png
from mindzero.envs.gridworld.world import step

SEED = 5
HUMAN = HumanParams(epsilon=0.15)  # the evaluation human
CARRIED_MOVES = 3  # ticks with the human carrying before the snapshot
CELL_PX = 56
OUT = Path(__file__).resolve().parent / "gridworld.png"


def make_gridworld_png(seed: int = SEED, out: Path = OUT) -> Path:
    """Play the seeded episode to the snapshot tick and save its rendering to ``out``."""
    rng = np.random.default_rng(seed)
    episode = generate_episode(rng, family="obstacles10")
    layout, goal = episode.layout, episode.goal
    human, helper = HumanModel(layout, **asdict(HUMAN)), HelperPlanner(layout)
    belief = Posterior.point(goal)
    state = episode.initial_state()
    trail, carried = [state.human], 0
    while carried < CARRIED_MOVES and state.t < 50:
        human_action = human.sample(state, goal, rng)
        state = step(layout, state, human_action, helper.act(state, belief, rng))
        trail.append(state.human)
        carried += state.human_carry >= 0
    names = " + ".join(layout.objects[k].label for k in goal)
    image = render_rgb(layout, state, trail, CELL_PX, title=f"t={state.t}   human's goal: {names}")
    save_png(image, out)
    return out


if __name__ == "__main__":
    print(make_gridworld_png())
