"""The ambiguous protocol's episode filters and the published evaluation's teleport rule."""

from __future__ import annotations

import numpy as np
import pytest

from mindzero.core.human import HumanParams
from mindzero.domains import get_domain
from mindzero.domains.gridworld import EpisodeConfig, GridWorldSimulator, episodes
from mindzero.envs.gridworld.episodes import (
    AMBIGUOUS_MOVES,
    AMBIGUOUS_PHASE_TICKS,
    AMBIGUOUS_SEPARATION,
    EMPTY_SHARE,
    Episode,
    generated_episode,
)
from mindzero.envs.gridworld.layout import parse_layout
from mindzero.tasks.assist import AssistSettings, run_episode

DOMAIN = get_domain("gridworld")


def test_ambiguous_episodes_pass_every_filter_and_are_reproducible():
    runs = episodes(EpisodeConfig(episodes=EMPTY_SHARE[1] + 2, episode_seed=4, protocol="ambiguous"))
    for k, ep in enumerate(runs):
        lay = ep.layout
        h = lay.index(lay.human_start)
        a, b = (lay.index(lay.object_cells[g]) for g in ep.goal)
        assert min(lay.distance[a, b], lay.distance[h, a], lay.distance[h, b]) > AMBIGUOUS_SEPARATION
        assert min(ep.phase_ticks()) >= AMBIGUOUS_PHASE_TICKS and ep.plan_length() <= 50
        assert ep.fits_ambiguous_protocol()
        if k % EMPTY_SHARE[1] < EMPTY_SHARE[0]:
            assert not lay.obstacles
        assert ep.to_dict() == generated_episode(k, 4, protocol="ambiguous").to_dict()
    assert sum(not ep.layout.obstacles for ep in runs) >= EMPTY_SHARE[0]
    quick = episodes(EpisodeConfig(episodes=40, protocol="quick"))
    assert np.mean([e.plan_length() for e in runs]) > np.mean([e.plan_length() for e in quick]) + 3


def corner_episode(star_row: int, star_col: int) -> Episode:
    """10x10, human at (0, 0): goal red square (9, 0) + blue circle (9, 9); the yellow star decoy where given."""
    rows = [["."] * 10 for _ in range(10)]  # rows[y], y = 0 at the bottom
    rows[0][0], rows[1][0], rows[0][9], rows[9][9] = "H", "P", "0", "1"
    rows[star_row][star_col] = "2"
    text = "\n".join("".join(r) for r in reversed(rows))
    return Episode(parse_layout(f"{text}\n\n0: red square\n1: blue circle\n2: yellow star\n"), (0, 1))


def test_ambiguity_filter_needs_a_decoy_on_the_humans_first_moves():
    """Red square first (9 moves right along the bottom): a star beside the red square shares the
    first moves, a star up the left edge does not."""
    shared = corner_episode(1, 9)
    assert min(shared.phase_ticks()) >= AMBIGUOUS_PHASE_TICKS and shared.fits_ambiguous_protocol()
    assert not corner_episode(5, 0).fits_ambiguous_protocol()
    assert corner_episode(1, AMBIGUOUS_MOVES + 2).fits_ambiguous_protocol()  # 1 up, 3+ right: on the way
    assert not corner_episode(AMBIGUOUS_MOVES + 1, 1).fits_ambiguous_protocol()  # needs ≥ 3 moves up


class RecordingDomain:
    """GridWorld whose simulator records each teleport (with its state) and each posterior the helper acts on."""

    def __init__(self) -> None:
        self.inner, self.teleports, self.acted_on = DOMAIN, [], []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def simulator(self, episode, human):
        world = GridWorldSimulator(episode, human)
        teleport = world.teleport

        def recorded(state, goal):
            self.teleports.append((state, goal))
            return teleport(state, goal)

        def helper_action(state, posterior, rng):
            self.acted_on.append((len(self.teleports), posterior))
            return act(state, posterior, rng)

        world.teleport, act, world.helper_action = recorded, world.helper_action, helper_action
        return world


@pytest.mark.parametrize("reasoner", ["exact", "oracle"])
def test_human_holds_teleport_fires_once_when_the_human_holds_a_goal_object(reasoner):
    domain = RecordingDomain()
    settings = AssistSettings(seeds=[1], teleport=2, teleport_when="human-holds", human=HumanParams())
    fired = 0
    for ep in episodes(EpisodeConfig(episodes=6)):
        domain.teleports.clear()
        domain.acted_on.clear()
        run_episode(domain, ep, DOMAIN.reasoner(reasoner, 1, settings.human), 1, settings)
        assert len(domain.teleports) <= 1
        for state, goal in domain.teleports:  # then the helper commits to that goal, whatever the posterior says
            assert state.human_carry in goal
            assert all(p.hypotheses == (goal,) for after, p in domain.acted_on if after)
        fired += len(domain.teleports)
    assert fired >= 3
