"""Household simulator: apartments, preconditions of every action, the observability rule,
determinism, rendering, gymnasium registration and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from mindzero.cli import main
from mindzero.core.errors import UserError
from mindzero.envs.household import ENV_IDS
from mindzero.envs.household.apartment import TEST_APARTMENTS, TRAIN_APARTMENTS, bundled_apartment, parse_apartment
from mindzero.envs.household.episodes import make_episode, parse_goal, world_of
from mindzero.envs.household.human import HouseholdHuman
from mindzero.envs.household.render import AGENT_RGB, CELL_PX, render_image, render_transcript
from mindzero.envs.household.world import (
    CLOSE,
    GRAB,
    HELPER,
    HUMAN,
    NOOP_ACTION,
    OPEN,
    PUTIN,
    PUTON,
    SWITCHON,
    WALK,
    World,
)

#: Two rooms side by side, one door; kitchen: fridge (0), kitchentable (1); livingroom: tv (2),
#: coffeetable (3). Objects: plate 0 (kitchentable), pudding 1 (fridge), remotecontrol 2 (coffeetable).
TINY = {
    "name": "tiny",
    "rooms": {"kitchen": [0, 0, 2, 2], "livingroom": [3, 0, 5, 2]},
    "doors": [[[2, 1], [3, 1]]],
    "furniture": [
        {"class": "fridge", "at": [0, 0]},
        {"class": "kitchentable", "at": [1, 2]},
        {"class": "tv", "at": [5, 0]},
        {"class": "coffeetable", "at": [4, 2]},
    ],
    "objects": [
        {"class": "plate", "count": 1, "places": ["kitchentable"]},
        {"class": "pudding", "count": 1, "places": ["fridge"]},
        {"class": "remotecontrol", "count": 1, "places": ["coffeetable"]},
    ],
}
FRIDGE, TABLE, TV, COFFEETABLE = 0, 1, 2, 3
PLATE, PUDDING, REMOTE = 0, 1, 2


@pytest.fixture
def world() -> World:
    return World(parse_apartment(TINY, "tiny"))


def at(world: World, f: int) -> int:
    return world.fcell[f]


def start(world: World, human_at: int, helper_at: int | None = None) -> list[int]:
    helper = world.apartment.node_cell[world.F + 1] if helper_at is None else helper_at
    return world.initial_state(human_at, helper, [TABLE, FRIDGE, COFFEETABLE])


def test_bundled_apartments_split_and_load() -> None:
    assert len(TRAIN_APARTMENTS) == 5 and len(TEST_APARTMENTS) == 2
    assert not set(TRAIN_APARTMENTS) & set(TEST_APARTMENTS)
    for name in TRAIN_APARTMENTS + TEST_APARTMENTS:
        apt = bundled_apartment(name)
        assert set(apt.rooms) == {"bathroom", "bedroom", "kitchen", "livingroom"}
        assert min(min(d) for d in apt.dist) == 0 and apt.n_objects >= 20


def test_walk_moves_one_cell_per_tick_along_a_shortest_path(world: World) -> None:
    s = start(world, at(world, FRIDGE))
    d = world.apartment.dist[COFFEETABLE][s[1]]
    for k in range(d):
        assert world.valid(s, HUMAN, (WALK, COFFEETABLE, 0))
        s = world.step(s, (WALK, COFFEETABLE, 0), NOOP_ACTION)
        assert world.apartment.dist[COFFEETABLE][s[1]] == d - k - 1
    assert s[1] == at(world, COFFEETABLE) and s[0] == d
    assert not world.valid(s, HUMAN, (WALK, COFFEETABLE, 0))  # already there


def test_open_close_need_a_closed_or_open_container_close_by(world: World) -> None:
    s = start(world, at(world, FRIDGE))
    assert not world.valid(s, HUMAN, (CLOSE, FRIDGE, 0))
    assert not world.valid(s, HUMAN, (OPEN, TABLE, 0))  # not a container
    far = start(world, at(world, TABLE))
    assert not world.valid(far, HUMAN, (OPEN, FRIDGE, 0))  # not close to it
    s = world.step(s, (OPEN, FRIDGE, 0), NOOP_ACTION)
    assert world.is_open(s, FRIDGE) and not world.valid(s, HUMAN, (OPEN, FRIDGE, 0))
    s = world.step(s, (CLOSE, FRIDGE, 0), NOOP_ACTION)
    assert not world.is_open(s, FRIDGE)


def test_grab_needs_a_visible_object_close_by_and_a_free_hand(world: World) -> None:
    s = start(world, at(world, FRIDGE))
    assert not world.valid(s, HUMAN, (GRAB, PUDDING, 0))  # inside a closed fridge
    assert not world.valid(s, HUMAN, (GRAB, PLATE, 0))  # not close to the table
    s = world.step(s, (OPEN, FRIDGE, 0), NOOP_ACTION)
    s = world.step(s, (GRAB, PUDDING, 0), NOOP_ACTION)
    assert world.holding(s, HUMAN) == [PUDDING] and s[World.LOC + PUDDING] == -1
    assert not world.valid(s, HUMAN, (GRAB, PUDDING, 0))  # already held
    full = start(world, at(world, TABLE))
    full[3:5] = [REMOTE, PUDDING]  # both hands taken
    full[World.LOC + REMOTE] = full[World.LOC + PUDDING] = -1
    assert not world.valid(full, HUMAN, (GRAB, PLATE, 0))


def test_put_on_a_surface_and_inside_an_open_container(world: World) -> None:
    s = start(world, at(world, TABLE))
    s = world.step(s, (GRAB, PLATE, 0), NOOP_ACTION)
    assert not world.valid(s, HUMAN, (PUTIN, PLATE, TABLE))  # a table is not a container
    assert not world.valid(s, HUMAN, (PUTON, PUDDING, TABLE))  # not held
    assert world.valid(s, HUMAN, (PUTON, PLATE, TABLE))
    for _ in range(world.apartment.dist[FRIDGE][s[1]]):
        s = world.step(s, (WALK, FRIDGE, 0), NOOP_ACTION)
    assert not world.valid(s, HUMAN, (PUTON, PLATE, FRIDGE))  # a fridge is no surface
    assert not world.valid(s, HUMAN, (PUTIN, PLATE, FRIDGE))  # closed
    s = world.step(s, (OPEN, FRIDGE, 0), NOOP_ACTION)
    s = world.step(s, (PUTIN, PLATE, FRIDGE), NOOP_ACTION)
    assert s[World.LOC + PLATE] == FRIDGE and world.holding(s, HUMAN) == []


def test_switch_on_needs_a_switch_off_and_closed(world: World) -> None:
    s = start(world, at(world, TV))
    assert world.valid(s, HUMAN, (SWITCHON, TV, 0))
    s = world.step(s, (SWITCHON, TV, 0), NOOP_ACTION)
    assert s[8] >> TV & 1 and not world.valid(s, HUMAN, (SWITCHON, TV, 0))
    f = start(world, at(world, FRIDGE))
    f = world.step(f, (OPEN, FRIDGE, 0), NOOP_ACTION)
    assert not world.valid(f, HUMAN, (SWITCHON, FRIDGE, 0))  # open
    c = start(world, at(world, COFFEETABLE))
    assert not world.valid(c, HUMAN, (SWITCHON, COFFEETABLE, 0))  # no switch


def test_valid_actions_are_exactly_the_valid_ones(world: World) -> None:
    rng = np.random.default_rng(0)
    human = HouseholdHuman(world)
    goal = ("put_fridge", FRIDGE, (("plate", 1),))
    s = start(world, at(world, TABLE))
    every = [(v, x, y) for v in range(8) for x in range(max(world.n_nodes, world.n)) for y in range(world.F)]
    for _ in range(40):
        listed = set(world.valid_actions(s, HUMAN))
        assert listed == {a for a in every if world.valid(s, HUMAN, a)}
        s = world.step(s, human.sample(s, goal, rng), NOOP_ACTION)


def test_conflicting_grabs_go_to_the_human(world: World) -> None:
    s = start(world, at(world, TABLE), at(world, TABLE))
    s = world.step(s, (GRAB, PLATE, 0), (GRAB, PLATE, 0))
    assert world.holding(s, HUMAN) == [PLATE] and world.holding(s, HELPER) == []


def test_observability_rule_and_belief(world: World) -> None:
    s = start(world, at(world, FRIDGE))
    furniture, seen = world.visible(s, HUMAN)
    assert furniture == (1 << FRIDGE) | (1 << TABLE)
    assert seen == [PLATE]  # the pudding is in the closed fridge, the remote in another room
    bel = world.BEL
    assert s[bel + PLATE] == 1 << TABLE
    assert s[bel + PUDDING] == 1 << FRIDGE  # not seen, but the fridge is its only possible place
    s = world.step(s, (OPEN, FRIDGE, 0), NOOP_ACTION)
    assert world.visible(s, HUMAN)[1] == [PLATE, PUDDING]
    # the helper takes the remote in the living room: the human does not see it go
    s[2] = at(world, COFFEETABLE)
    s = world.step(s, NOOP_ACTION, (GRAB, REMOTE, 0))
    assert s[bel + REMOTE] == 1 << COFFEETABLE
    assert world.visible(s, HELPER)[1] == [REMOTE]
    # the helper walks into the kitchen holding it: now the human sees it in the helper's hands
    while world.room_of(s, HELPER) != world.room_of(s, HUMAN):
        s = world.step(s, NOOP_ACTION, (WALK, FRIDGE, 0))
    assert REMOTE in world.visible(s, HUMAN)[1]
    assert s[bel + REMOTE] == world.held_bits[HELPER]


def test_seen_empty_place_is_ruled_out() -> None:
    apt = bundled_apartment("apt0")
    world = world_of(apt)
    ep = make_episode(apt, 4)
    s = ep.initial_state()
    room = world.room_of(s, HUMAN)
    view = world.room_surfaces[room]
    for o in range(world.n):
        if s[World.LOC + o] >= 0 and not view >> s[World.LOC + o] & 1:
            assert not s[world.BEL + o] & view  # a surface in view without it is ruled out
            assert s[world.BEL + o]  # and the belief is never empty


def test_same_seed_same_episode_and_trajectory() -> None:
    apt = bundled_apartment("apt2")
    a, b, c = make_episode(apt, 7), make_episode(apt, 7), make_episode(apt, 8)
    assert a == b and a != c
    world = world_of(apt)
    human = HouseholdHuman(world)

    def roll(seed: int) -> list:
        s, rng, out = a.initial_state(), np.random.default_rng(seed), []
        for _ in range(60):
            act = human.sample(s, a.goal, rng)
            s = world.step(s, act, NOOP_ACTION)
            out.append((act, tuple(s)))
        return out

    assert roll(1) == roll(1) and roll(1) != roll(2)


def test_text_rendering_has_the_fig9_sections() -> None:
    apt = bundled_apartment("apt5")
    world = world_of(apt)
    ep = make_episode(apt, 0)
    text = render_transcript(world, ep.initial_state(), [], (WALK, 0, 0))
    assert text.startswith("[current state]\nThe apartment has 4 rooms: bathroom, bedroom, kitchen, livingroom.")
    assert "Human has not taken any key action yet." in text
    assert f"Human walks towards the {apt.furniture[0]}" in text
    assert "Human is holding nothing." in text
    assert "The kitchen has " in text and "contains" in text


@pytest.mark.parametrize("env_id", sorted(ENV_IDS))
@pytest.mark.parametrize("render_mode", [None, "ansi", "rgb_array"])
def test_gymnasium_env_passes_the_checker(env_id: str, render_mode: str | None) -> None:
    env = gym.make(env_id, render_mode=render_mode)
    check_env(env.unwrapped, skip_render_check=False)
    obs, info = env.reset(seed=3)
    obs2, info2 = env.reset(seed=3)
    assert (obs == obs2).all() and info["goal"] == info2["goal"]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.pop("rooms"), "field 'rooms' is missing"),
        (lambda d: d["rooms"].update(attic=[6, 0, 7, 1]), "field 'rooms.attic'"),
        (lambda d: d["furniture"][0].update({"at": [9, 9]}), "field 'furniture[0].at'"),
        (lambda d: d["furniture"][1].update({"class": "piano"}), "field 'furniture[1].class'"),
        (lambda d: d["objects"][0].update({"class": "banana"}), "unknown object class 'banana'"),
        (lambda d: d["objects"][0].update({"count": 0}), "field 'objects[0].count'"),
        (lambda d: d["objects"][0].update({"places": ["tv"]}), "field 'objects[0].places'"),
        (lambda d: d.update(doors=[]), "field 'doors'"),
        (lambda d: d["doors"][0].__setitem__(1, [4, 2]), "field 'doors[0]'"),
    ],
)
def test_malformed_apartments_name_the_field(edit, message: str) -> None:
    data = json.loads(json.dumps(TINY))
    edit(data)
    with pytest.raises(UserError, match=message.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        parse_apartment(data, "tiny")


def test_goal_text_and_impossible_goals() -> None:
    apt = bundled_apartment("apt5")
    goal = parse_goal("on(plate, kitchentable): 2, on(cutleryfork, kitchentable): 1", apt)
    assert goal[0] == "setup_table" and goal[2] == (("cutleryfork", 1), ("plate", 2))
    for text, message in [
        ("on(banana, kitchentable): 1", "unknown object class"),
        ("on(plate, kitchentable): 40", "impossible goal .*: apt5 has 2 plates$"),
        ("on(plate, kitchentable): 0", "a count must be at least 1, got 0 plates$"),
        ("on(wineglass, kitchentable): 9", "has 2 wineglasses$"),
        ("on(plate, kitchentable): 1, inside(plate, fridge): 1", "several targets"),
        ("inside(plate, bathroomcabinet): 1", "impossible goal"),
        ("plates on the table", "not predicate counts"),
    ]:
        with pytest.raises(UserError, match=message):
            parse_goal(text, apt)
    with pytest.raises(UserError) as err:  # a huge goal is quoted short
        parse_goal("on(plate, kitchentable): 1, " * 5000 + "x", apt)
    assert len(str(err.value)) < 400 and "(140,001 characters)" in str(err.value)


def test_cli_bad_inputs_are_one_line_exit_2(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.json"
    data = json.loads(json.dumps(TINY))
    data["furniture"][0]["class"] = "piano"
    bad.write_text(json.dumps(data))
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    cases = [
        ["--apartment", str(bad)],
        ["--apartment", str(broken)],
        ["--goal", "on(banana, kitchentable): 1"],
        ["--goal", "on(plate, kitchentable): 40"],
        ["--reasoner", "llm"],  # no --model
        ["--smc-particles", "0"],
    ]
    for k, extra in enumerate(cases):
        out = tmp_path / f"out{k}"
        assert main(["household", "assist", "--out", str(out), "--episodes", "1", *extra]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("mindzero: error:") and "\n" not in err
        assert not out.exists() or not any(out.iterdir())


def test_image_rendering_draws_the_agents_where_they_are() -> None:
    apt = bundled_apartment("apt6")
    world = world_of(apt)
    s = make_episode(apt, 2).initial_state()
    if s[1] == s[2]:
        s[2] = apt.furniture_cell[0]
    image = render_image(world, s)
    assert image.shape == (apt.height * CELL_PX + 1, apt.width * CELL_PX + 1, 3)
    for agent in (HUMAN, HELPER):
        x, y = apt.cells[s[1 + agent]]
        # a pixel of the disc, off its centre letter
        pixel = image[y * CELL_PX + CELL_PX // 2 + 7, x * CELL_PX + CELL_PX // 2]
        assert tuple(pixel) == AGENT_RGB[agent]
    env = gym.make("mindzero/Household-apt6-v0", render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render().shape == image.shape


def test_belief_agrees_with_the_visibility_rule_along_episodes() -> None:
    """The fast perception update and the readable :meth:`World.visible` say the same: what the
    human sees is known exactly, and no unseen object is believed to be where it could be seen."""
    apt = bundled_apartment("apt4")
    world = world_of(apt)
    human = HouseholdHuman(world)
    rng = np.random.default_rng(5)
    for seed in range(6):
        ep = make_episode(apt, seed)
        s = ep.initial_state()
        for _ in range(50):
            furniture, seen = world.visible(s, HUMAN)
            view = furniture & (world.placeable & ~sum(1 << f for f in range(world.F) if world.container[f]))
            view |= furniture & s[7]  # open containers of the room
            for o in range(world.n):
                belief, loc = s[world.BEL + o], s[World.LOC + o]
                assert belief
                if o in seen:
                    assert belief == world.loc_bit[loc + 2]
                else:
                    assert not belief & view
            helper = rng.choice(world.valid_actions(s, HELPER))
            s = world.step(s, human.sample(s, ep.goal, rng), tuple(int(v) for v in helper))
