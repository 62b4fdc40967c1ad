"""Rendering (RGB, ASCII, Fig. 11 transcript) and the gymnasium helper env."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from PIL import Image

from mindzero.core.human import HumanParams
from mindzero.envs.gridworld import ENV_IDS
from mindzero.envs.gridworld.env import HelperEnv
from mindzero.envs.gridworld.episodes import Episode
from mindzero.envs.gridworld.layout import parse_layout
from mindzero.envs.gridworld.render import (
    HELPER_RGB,
    HUMAN_RGB,
    OBJECT_RGB,
    OBSTACLE_RGB,
    anchored_view,
    distance_view,
    pixel_center,
    render_ascii,
    render_rgb,
    save_png,
    transcript,
)
from mindzero.envs.gridworld.world import Action, WorldState, step

GRID = """\
#....0
......
.H....
..2...
......
P...#1

0: red square
1: blue circle
2: yellow star
"""
CELL = 24


@pytest.fixture(scope="module")
def layout():
    return parse_layout(GRID)


def mask_of(img: np.ndarray, rgb: tuple[int, int, int]) -> np.ndarray:
    return (img == np.array(rgb, dtype=np.uint8)).all(axis=-1)


# --- environment ---------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", sorted(ENV_IDS))
@pytest.mark.parametrize("render_mode", [None, "rgb_array", "ansi"])
def test_check_env_passes_for_every_registered_id(env_id, render_mode):
    env = gym.make(env_id, render_mode=render_mode, cell_px=16)
    check_env(env.unwrapped, skip_render_check=False)
    env.close()


def test_family_variant_draws_its_obstacle_count():
    env = gym.make("mindzero/GridWorldHelper-Obstacles15-v0")
    obs, _ = env.reset(seed=3)
    assert obs["obstacles"].sum() == 15
    obs, _ = gym.make("mindzero/GridWorldHelper-Empty-v0").reset(seed=3)
    assert obs["obstacles"].sum() == 0


def rollout(seed: int, n: int = 40):
    env = gym.make("mindzero/GridWorldHelper-v0")
    obs, info = env.reset(seed=seed)
    actions = np.random.default_rng(seed).integers(0, 7, size=n)
    trace = [(obs, 0.0, info["human_action"])]
    for a in actions:
        obs, r, term, trunc, info = env.step(int(a))
        trace.append((obs, r, info["human_action"]))
        if term or trunc:
            break
    return info["goal"], trace


def test_same_seed_gives_identical_episode():
    goal_a, trace_a = rollout(7)
    goal_b, trace_b = rollout(7)
    assert goal_a == goal_b and len(trace_a) == len(trace_b) > 5
    for (oa, ra, ha), (ob, rb, hb) in zip(trace_a, trace_b):
        assert ra == rb and ha == hb
        assert oa.keys() == ob.keys()
        for k in oa:
            np.testing.assert_array_equal(oa[k], ob[k])
    _, trace_c = rollout(8)
    assert any(not np.array_equal(x[0]["objects"], y[0]["objects"]) for x, y in zip(trace_a, trace_c))


def test_given_episode_reward_termination_and_info(layout):
    episode = Episode(layout, (0, 2))
    with pytest.raises(ValueError, match="expects"):
        HelperEnv(size=10, n_objects=3).reset(seed=0, options={"episode": episode})
    env = HelperEnv(human=HumanParams(epsilon=0.0), size=6, n_objects=3)
    obs, info = env.reset(seed=0, options={"episode": episode})
    assert info["goal"] == (0, 2) and info["goal_labels"] == ("red square", "yellow star")
    assert tuple(obs["human"]) == (1, 3) and tuple(obs["helper"]) == (0, 0)
    assert obs["last_human_action"] == 7 and obs["t"] == 0
    total, done = 0.0, False
    while not done:
        obs, r, term, trunc, info = env.step(Action.STAY)
        total += r
        assert obs["last_human_action"] == info["human_action"] == info["observation"].human_action
        assert info["observation"].state.t == info["state"].t - 1
        done = term or trunc
    assert term and not trunc
    # 2 moves to the star, pick, 5 carried moves with a pause after each but the last (the put
    # is taken as soon as possible, before the pause), put: 2 + 1 + 9 + 1 ticks.
    assert total == -obs["t"] and obs["t"] == 13
    assert env.state.human_carry == -1 and abs(obs["objects"][0] - obs["objects"][2]).sum() == 1


def test_truncation_at_max_steps():
    env = HelperEnv(max_steps=3)
    env.reset(seed=1)
    flags = [env.step(Action.STAY)[2:4] for _ in range(3)]
    assert flags == [(False, False), (False, False), (False, True)]


def test_helper_pick_is_reported_in_observation():
    env = HelperEnv(human=HumanParams(epsilon=0.0))
    env.reset(seed=5)
    ep, s = env.episode, env.state
    target = ep.layout.cell(s.objects[next(k for k in range(8) if k not in ep.goal)])
    # Walk the helper to a non-goal object along a BFS path, then pick it.
    for _ in range(30):
        if ep.layout.cell(env.state.helper) == target:
            break
        d = ep.layout.distance[:, ep.layout.index(target)]
        moves = ep.layout.next_cell[env.state.helper, 1:5]
        env.step(1 + int(np.argmin(d[moves])))
    obs, *_ = env.step(Action.PICK)
    k = ep.layout.object_cells.index(target)
    assert obs["carried_by"][k] == 2 and env.state.helper_carry == k


# --- rendering -----------------------------------------------------------------------------
def test_rgb_shape_colors_and_up_is_plus_y(layout):
    state = WorldState.initial(layout)
    img = render_rgb(layout, state, cell_px=CELL, title="t=0")
    margin = CELL // 2
    assert img.dtype == np.uint8 and img.shape == (margin + 6 * CELL + margin, margin + 6 * CELL, 3)
    for obj, cell in zip(layout.objects, layout.object_cells):
        assert tuple(img[pixel_center(layout, cell, CELL, "t=0")]) == OBJECT_RGB[obj.color]
    # red square at (5, 5): its pixels are all in the top grid row of the image (up = +y).
    rows, cols = np.nonzero(mask_of(img, OBJECT_RGB["red"]))
    assert rows.size > 0 and rows.min() >= margin and rows.max() < margin + CELL
    assert cols.min() >= margin + 5 * CELL
    # obstacle at (0, 5) (top-left) and (4, 0); robots in their cells with their colours.
    assert tuple(img[pixel_center(layout, (0, 5), CELL, "t=0")]) == OBSTACLE_RGB
    assert tuple(img[pixel_center(layout, (4, 0), CELL, "t=0")]) == OBSTACLE_RGB
    for rgb, (x, y) in ((HUMAN_RGB, (1, 3)), (HELPER_RGB, (0, 0))):
        r, c = pixel_center(layout, (x, y), CELL, "t=0")
        box = mask_of(img, rgb)[r - CELL // 2 : r + CELL // 2, c - CELL // 2 : c + CELL // 2]
        assert box.mean() > 0.15 and mask_of(img, rgb).sum() == box.sum()


def test_trail_fades_with_age(layout):
    idx = layout.index
    trail = [idx((1, 3)), idx((2, 3)), idx((3, 3)), idx((3, 2)), idx((3, 1))]
    state = WorldState(human=idx((3, 1)), helper=idx((0, 0)), objects=WorldState.initial(layout).objects)
    img = render_rgb(layout, state, trail=trail, cell_px=CELL, coords=False).astype(int)
    lightness = [img[pixel_center(layout, layout.cell(i), CELL, coords=False)].sum() for i in trail[:-1]]
    assert all(a > b for a, b in zip(lightness, lightness[1:])), lightness
    assert lightness[0] < 3 * 255  # the oldest step is still drawn
    no_trail = render_rgb(layout, state, cell_px=CELL, coords=False)
    assert no_trail[pixel_center(layout, (2, 3), CELL, coords=False)].sum() == 3 * 255


def test_carried_object_drawn_on_its_carrier(layout):
    s0 = WorldState.initial(layout)
    star = layout.index((2, 2))
    state = WorldState(human=star, helper=s0.helper, objects=s0.objects)
    state = step(layout, state, Action.PICK, Action.STAY)
    state = step(layout, state, Action.UP, Action.STAY)
    assert state.human_carry == 2 and layout.cell(state.human) == (2, 3)
    img = render_rgb(layout, state, cell_px=CELL)
    rows, cols = np.nonzero(mask_of(img, OBJECT_RGB["yellow"]))
    r, c = pixel_center(layout, (2, 3), CELL)
    assert rows.size > 0
    assert (abs(rows - r) <= CELL // 2).all() and (abs(cols - c) <= CELL // 2).all()
    assert not mask_of(img, OBJECT_RGB["yellow"])[pixel_center(layout, (2, 2), CELL)]


def test_shared_cell_shows_both_robots_and_the_object(layout):
    s0 = WorldState.initial(layout)
    star = layout.index((2, 2))
    state = WorldState(human=star, helper=star, objects=s0.objects)
    img = render_rgb(layout, state, cell_px=CELL)
    r, c = pixel_center(layout, (2, 2), CELL)
    cell = img[r - CELL // 2 : r + CELL // 2, c - CELL // 2 : c + CELL // 2]
    for rgb in (HUMAN_RGB, HELPER_RGB, OBJECT_RGB["yellow"]):
        assert mask_of(cell, rgb).sum() > 5


def test_save_png_roundtrip(layout, tmp_path):
    img = render_rgb(layout, WorldState.initial(layout), cell_px=CELL)
    path = tmp_path / "sub" / "x.png"
    save_png(img, path)
    np.testing.assert_array_equal(np.asarray(Image.open(path).convert("RGB")), img)
    assert [p.name for p in path.parent.iterdir()] == ["x.png"]


def test_ascii_rows_top_first(layout):
    s0 = WorldState.initial(layout)
    assert render_ascii(layout, s0) == GRID.split("\n\n")[0]
    state = step(layout, s0, Action.UP, Action.RIGHT)  # human (1,3)->(1,4); helper (0,0)->(1,0)
    rows = render_ascii(layout, state).splitlines()
    assert rows == ["#....0", ".H....", "......", "..2...", "......", ".P..#1"]
    on_star = WorldState(human=layout.index((2, 2)), helper=s0.helper, objects=s0.objects)
    carrying = step(layout, on_star, Action.PICK, Action.STAY)
    carrying = step(layout, carrying, Action.RIGHT, Action.STAY)
    assert render_ascii(layout, carrying).splitlines()[3] == "...H.."  # carried star not on the grid


def test_transcript_matches_paper_format(layout):
    s0 = WorldState.initial(layout)
    actions = [Action.RIGHT, Action.DOWN, Action.STAY]
    states = [s0]
    for a in actions:
        states.append(step(layout, states[-1], a, Action.STAY))
    text = transcript(layout, states, actions, question="Which object? (a) red square. (b) blue circle.")
    headers = [
        "State and trajectory details:",
        "Agents:",
        "Obstacles:",
        "Objects (by label):",
        "Action deltas (dx,dy):",
        "Action trajectory (human, name+delta):",
        "Action trajectory (human positions):",
        "ASCII state:",
        "Step 3",
    ]
    positions = [text.index(h + "\n") for h in headers]
    assert positions == sorted(positions)
    assert text.startswith("You are a helper agent in a GridWorld environment. You are the red robot")
    assert "objects: red square, blue circle, and yellow star." in text
    assert "- Human pos: (2, 2)\n- Helper pos: (0, 0)\nObstacles:\n[(0, 5), (4, 0)]\n" in text
    assert "{'red square': (5, 5), 'blue circle': (5, 0), 'yellow star': (2, 2)}" in text
    assert "t=1: right(1,0); t=2: down(0,-1); t=3: stay(0,0)" in text
    assert "t=1: (2,3); t=2: (2,2); t=3: (2,2)" in text
    assert "Step 3\n#....0\n......\n......\n..H...\n......\nP...#1\n\nWhich object?" in text
    assert text.endswith("(b) blue circle.")
    assert "Human holding" not in text
    holding = step(layout, states[-1], Action.PICK, Action.STAY)
    assert "- Human holding: yellow star\n" in transcript(layout, [*states, holding], [*actions, Action.PICK])
    with pytest.raises(ValueError):
        transcript(layout, states[:2], actions)


def test_env_renders_trail_and_ascii():
    env = HelperEnv(render_mode="rgb_array", cell_px=16)
    env.reset(seed=2)
    for _ in range(4):
        env.step(Action.STAY)
    assert len(env.trail) == 5 and env.trail[-1] == env.state.human
    frame = env.render()
    assert frame.shape[2] == 3 and frame.dtype == np.uint8
    env_txt = HelperEnv(render_mode="ansi")
    env_txt.reset(seed=2)
    assert env_txt.render().splitlines()[1:] == render_ascii(env_txt.episode.layout, env_txt.state).splitlines()


def test_distance_view_counts_moves_gained_toward_each_object(layout):
    """``d g``: path distance now, and moves gained since the path window began (walls counted)."""
    states = [WorldState.initial(layout)]
    for action in (Action.DOWN, Action.RIGHT):  # towards the yellow star (object 2), away from the red square
        states.append(step(layout, states[-1], action, Action.STAY))
    views = [tuple(map(int, v.split())) for v in distance_view(layout, states, range(3))]
    for k, (d, gained) in enumerate(views):
        cell = states[-1].objects[k]
        assert d == layout.distance[cell, states[-1].human]
        assert gained == layout.distance[cell, states[0].human] - d
    assert views[2][1] == 2 and views[0][1] == 0  # one move away from the red square, one towards it


def test_anchored_view_measures_progress_from_the_last_pick_and_distances_from_the_start(layout):
    """``d g s``: distance now, moves gained since the pick (since the start before it), distance
    at the start — the numbers that tell a carried object's partner from the window's progress."""
    states = [WorldState.initial(layout)]
    walk = (Action.DOWN, Action.RIGHT, Action.PICK, Action.RIGHT, Action.DOWN, Action.DOWN)  # star to the circle
    for action in walk:
        states.append(step(layout, states[-1], action, Action.STAY))
    assert states[-1].human_carry == 2
    first, pick_cell, now = states[0], states[3].human, states[-1]

    def numbers(states):
        return [tuple(map(int, v.split())) for v in anchored_view(layout, states, range(3))]

    for k, (d, gained, start) in enumerate(numbers(states)):
        assert d == layout.distance[now.objects[k], now.human]
        assert gained == layout.distance[now.objects[k], pick_cell] - d
        assert start == layout.distance[first.objects[k], first.human]
    circle_since_start = layout.distance[now.objects[1], first.human] - layout.distance[now.objects[1], now.human]
    assert numbers(states)[1][1] == 1 != circle_since_start  # anchored at the pick, not the start
    before_pick = numbers(states[:3])  # no pick yet: gained since the start
    for k, (d, gained, _) in enumerate(before_pick):
        assert gained == layout.distance[states[2].objects[k], first.human] - d
