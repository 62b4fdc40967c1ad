"""Model-based answers to MMToM-QA questions: Bayesian inverse planning of a person searching an
apartment for one object class, with Watch-And-Help visibility.

Why not the full Household simulator: MMToM-QA's text gives rooms, furniture and contents but no
coordinates, so path lengths — what our planner's likelihood is made of — are unknown. The
likelihood here is the same kind of search policy with the one distance the text gives: whether a
place is in the room the person is in (β per room crossed).

The mind: a goal class G and a *belief* bit per place ("G may be there"), drawn from a prior —
``prior_likely`` where our bundled training apartments allow G at that kind of furniture
(``places`` of their object classes), ``prior_unlikely`` elsewhere; both 0.5 by default, i.e. no
commonsense. The person sees every surface of the room they are in and the inside of a container
they open; what they have seen replaces the bit by the truth. Each walk picks one place they
believe holds G (Boltzmann over rooms crossed), mixed with ε of a uniform choice over all places;
with no such place left only the ε part remains. A walk to another room is two picks: the room
(any believed place in it), then — having seen its surfaces — the place. Opening a container that
holds G and closing it without taking G has probability ε.

Belief questions (1.x) compare P(bit of (G, C) = 1 | actions) with its complement — the truth once
C was opened; goal questions (2.x) compare the likelihoods of the two goals with the bits summed
out. The bits are summed out by Monte Carlo over ``samples`` prior draws shared by both options
(common random numbers), from a fixed seed, so answers are deterministic.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from mindzero.domains.household.mmtom.reader import Reading
from mindzero.envs.household.apartment import TRAIN_APARTMENTS, bundled_apartment

#: A probability strictly between 0 and 1 (a log of it is taken).
OPEN_UNIT = {"gt": 0, "lt": 1}


@dataclass(frozen=True)
class MMToMModel:
    """The inverse-planning model's constants (none fitted; how they were chosen: docs/mmtom.md)."""

    epsilon: float = field(
        default=0.1,
        metadata={"help": "probability of a random walk / of leaving G behind (Household's ε)", "gt": 0, "lt": 1},
    )
    beta: float = field(default=1.0, metadata={"help": "log-preference per room crossed", "ge": 0})
    prior_likely: float = field(
        default=0.5, metadata={"help": "prior belief that G is at a kind of furniture it is kept at", **OPEN_UNIT}
    )
    prior_unlikely: float = field(
        default=0.5, metadata={"help": "prior belief that G is at any other furniture", **OPEN_UNIT}
    )
    samples: int = field(
        default=4096, metadata={"help": "Monte Carlo draws of the belief bits", "ge": 1, "le": 1_000_000}
    )
    seed: int = field(default=0, metadata={"help": "seed of the belief draws", "ge": 0})


@functools.cache
def kept_at() -> dict[str, frozenset[str]]:
    """Object class -> furniture kinds it may start at in the bundled training apartments."""
    out: dict[str, set[str]] = {}
    for name in TRAIN_APARTMENTS:
        apt = bundled_apartment(name)
        for cls, mask in zip(apt.object_classes, apt.object_places):
            out.setdefault(cls, set()).update(apt.furniture[f] for f in range(apt.n_furniture) if mask >> f & 1)
    return {cls: frozenset(kinds) for cls, kinds in out.items()}


def belief_prior(kinds: list[str], goal: str, model: MMToMModel) -> np.ndarray:
    """Prior probability of each place's belief bit for goal class ``goal`` (places by furniture kind;
    a class our apartments do not know gets ``prior_likely`` everywhere)."""
    kept = kept_at().get(goal)
    return np.array([model.prior_likely if kept is None or k in kept else model.prior_unlikely for k in kinds])


def choice_weights(believed: np.ndarray, room: np.ndarray, cur: str, beta: float) -> np.ndarray:
    """Unnormalized goal-directed choice weights (rows of ``believed``: places thought to hold G):
    exp(−β) per room crossed; all zero when the person thinks G is nowhere left."""
    return believed * np.exp(-beta * (room != cur))


class _Episode:
    """A reading's places as arrays, and its story replayed against belief bits for one goal."""

    def __init__(self, reading: Reading, model: MMToMModel) -> None:
        self.reading, self.model = reading, model
        self.ids = sorted(reading.scene.places)  # draws do not depend on the order of mention
        self.index = {p: i for i, p in enumerate(self.ids)}
        places = [reading.scene.places[p] for p in self.ids]
        self.room = np.array([p.room for p in places])
        self.container = np.array([p.container for p in places], dtype=bool)
        self.kind = [p.kind for p in places]

    def truth(self, goal: str) -> np.ndarray:
        return np.array([self.reading.scene.holds(p, goal) for p in self.ids], dtype=bool)

    def prior(self, goal: str) -> np.ndarray:
        return belief_prior(self.kind, goal, self.model)

    def seen_at_end(self) -> np.ndarray:
        return self.replay("", np.zeros((1, len(self.ids)), dtype=bool))[1]

    def replay(self, goal: str, bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(log-likelihood of the story per row of ``bits``, places seen by the end)."""
        eps, n = self.model.epsilon, len(self.ids)
        truth = self.truth(goal)
        seen = np.zeros(n, dtype=bool)
        story = self.reading.story
        cur = story.start
        seen |= (self.room == cur) & ~self.container
        loglik = np.zeros(len(bits))
        for step, visit in enumerate(story.visits):
            # walking to a place in another room: first the choice of that room, then, having
            # seen the room's surfaces, the choice of the place
            if visit.room != cur:
                loglik += np.log(self._choice(bits, truth, seen, cur, self.room == visit.room))
                cur = visit.room
                seen |= (self.room == cur) & ~self.container
            if visit.place is not None:
                loglik += np.log(self._choice(bits, truth, seen, cur, np.array(self.ids) == visit.place))
            if visit.place is not None and visit.opened:
                t = self.index[visit.place]
                seen[t] = True
                left = visit.closed or step < len(story.visits) - 1
                if truth[t] and left:
                    loglik += np.log(eps)
        return loglik, seen

    def _choice(self, bits: np.ndarray, truth: np.ndarray, seen: np.ndarray, cur: str, target: np.ndarray):
        """Probability per row of ``bits`` that the next walk goes to one of the ``target`` places."""
        eps, n = self.model.epsilon, len(self.ids)
        weights = choice_weights(np.where(seen, truth, bits), self.room, cur, self.model.beta)
        goal_directed = (weights * target).sum(1) / np.maximum(weights.sum(1), 1e-300)
        # a room whose furniture the reader missed still counts as one place for the random part
        return (1 - eps) * goal_directed + eps * max(int(target.sum()), 1) / n


def _logmeanexp(x: np.ndarray) -> float:
    top = float(x.max())
    return top + float(np.log(np.mean(np.exp(x - top))))


def option_scores(reading: Reading, model: MMToMModel) -> tuple[list[float], list[float], str]:
    """(log P(story | option), log P(option), basis) for each option, in nats.

    Goal questions: the goal classes with the belief bits summed out, flat prior. Belief
    questions: the bit of (G, C) set either way, the other bits summed out, the bit's prior —
    unless C was seen by the end, when the belief is the truth (``basis`` "seen": the other option
    has likelihood 0, i.e. −inf)."""
    ep = _Episode(reading, model)
    q = reading.query
    uniform = np.random.default_rng(model.seed).random((model.samples, len(ep.ids)))
    if q.kind == "belief":
        c = ep.index[q.place]
        prior = ep.prior(q.goal)
        if ep.seen_at_end()[c]:
            inside = bool(ep.truth(q.goal)[c])
            logliks, logpriors, basis = [0.0 if inside else -np.inf, -np.inf if inside else 0.0], [0.0, 0.0], "seen"
        else:
            bits = uniform < prior
            logliks = []
            for value in (True, False):
                b = bits.copy()
                b[:, c] = value
                logliks.append(_logmeanexp(ep.replay(q.goal, b)[0]))
            logpriors, basis = [float(np.log(prior[c])), float(np.log1p(-prior[c]))], "inferred"
        if q.inside != 0:  # option (a) says "not inside"
            logliks, logpriors = logliks[::-1], logpriors[::-1]
        return logliks, logpriors, basis
    logliks = []
    for goal in q.options:
        bits = uniform < ep.prior(goal)
        if q.given is not None and q.given[0] == goal:
            bits[:, ep.index[q.given[1]]] = False
        logliks.append(_logmeanexp(ep.replay(goal, bits)[0]))
    return logliks, [0.0] * len(logliks), "inferred"


def answer(reading: Reading, model: MMToMModel) -> dict:
    """Posterior over the options, ``option_probs`` [P(a), P(b), ...], and what it rests on."""
    logliks, logpriors, basis = option_scores(reading, model)
    joint = np.add(logliks, logpriors)
    probs = np.exp(joint - np.logaddexp.reduce(joint))
    out = {"option_probs": [float(p) for p in probs], "basis": basis}
    if reading.query.kind == "belief":
        return out | {"p_inside": out["option_probs"][0 if reading.query.inside == 0 else 1]}
    return out | {"loglik": logliks}
