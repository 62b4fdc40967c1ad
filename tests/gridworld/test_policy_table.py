"""The fast per-state policy table equals the readable per-goal reference policy."""

from __future__ import annotations

import numpy as np

from mindzero.envs.gridworld.episodes import generate_episodes
from mindzero.envs.gridworld.human import HumanModel, _target_fields, free_neighbor_distance
from mindzero.envs.gridworld.layout import parse_layout
from mindzero.envs.gridworld.world import N_ACTIONS, Action, WorldState, goal_achieved, step


def visited_states(episode, rng, ticks: int = 60) -> list[WorldState]:
    """States of a noisy human (ε = 0.3) beside a random helper that picks whatever it stands on,
    so both agents carry and put objects (the human's goal objects included) from many cells."""
    human = HumanModel(episode.layout, epsilon=0.3)
    state, states = episode.initial_state(), []
    for _ in range(ticks):
        states.append(state)
        can_pick = state.helper_carry < 0 and state.ground_object_at(state.helper) >= 0
        helper_action = Action.PICK if can_pick else int(rng.integers(N_ACTIONS))
        state = step(episode.layout, state, human.sample(state, episode.goal, rng), helper_action)
        if goal_achieved(state, episode.goal, episode.layout):
            state = episode.initial_state()
    return states


def object_next_to_a_target(state: WorldState, layout) -> bool:
    """While carrying: an object lies on the ground next to another object's cell, where the put
    target's distance field needs its own search (else it follows from the object's row)."""
    mask = state.ground_mask(layout.n_cells)
    around = [c for k, c in enumerate(state.objects) if k != state.human_carry]
    next_to = layout.neighbors[np.array(around)]
    return bool((mask[next_to] & (next_to >= 0)).any())


def test_policy_table_equals_reference_policy_on_visited_states():
    rng = np.random.default_rng(0)
    n_states = carrying = helper_carrying = crowded = 0
    for episode in generate_episodes(30, seed=5, n_objects=6):
        for epsilon in (0.0, 0.15):
            model = HumanModel(episode.layout, epsilon=epsilon)
            for state in visited_states(episode, rng):
                fast = model._compute_policy_table(state)
                np.testing.assert_allclose(fast, model.reference_policy(state, model.all_goals), rtol=0, atol=1e-12)
                n_states += 1
                carrying += state.human_carry >= 0
                helper_carrying += state.helper_carry >= 0
                crowded += state.human_carry >= 0 and object_next_to_a_target(state, episode.layout)
    assert carrying > 200 and helper_carrying > 200 and crowded > 50, (n_states, carrying, helper_carrying, crowded)


def test_policy_table_on_a_disconnected_layout_falls_back_to_the_reference():
    layout = parse_layout(".#..\nH#.0\n.#P1\n\n0: red square\n1: blue circle\n")
    assert not layout.is_connected
    model = HumanModel(layout)
    state = WorldState.initial(layout)
    np.testing.assert_array_equal(model._compute_policy_table(state), model.reference_policy(state, model.all_goals))


def test_put_fields_equal_the_search_from_free_neighbours():
    """The shortcut (distance to the object minus one) equals searching from the free neighbours
    whenever no object lies next to a target; crowded targets are searched either way."""
    rng = np.random.default_rng(3)
    shortcut = 0
    for episode in generate_episodes(40, seed=8, n_objects=6):
        layout = episode.layout
        cells = np.arange(layout.n_cells)
        objects = tuple(layout.index(c) for c in layout.object_cells)
        for _ in range(3):
            occupied = np.zeros(layout.n_cells, dtype=bool)
            occupied[list(objects)] = True
            occupied[rng.choice(np.flatnonzero(~layout.blocked), size=int(rng.integers(0, 4)))] = True
            fields, _ = _target_fields(layout, objects, occupied.tobytes())
            searched = free_neighbor_distance(layout, cells, np.array(objects)[:, None], occupied).T
            free = ~layout.blocked
            np.testing.assert_array_equal(fields[free], searched[free])
            next_to = layout.neighbors[np.array(objects)]
            shortcut += not (occupied[next_to] & (next_to >= 0)).any()
    assert 20 < shortcut < 100, shortcut  # both branches taken
