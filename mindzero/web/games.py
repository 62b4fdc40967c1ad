"""Human play, generic over domains: a person supplies the human's actions, the domain's helper acts
on a reasoner's posterior each tick, exactly as in the assistance benchmark.

A domain joins the browser surface with a :class:`GameView` (its action names, which moves are
possible, its state as JSON, its episodes) registered in :data:`VIEWS`; the play loop, the session
store, study mode and the viewer need nothing else: GridWorld's view is
:class:`mindzero.web.gridworld.GridWorldView`, Household's
:class:`mindzero.web.household.HouseholdView`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Protocol

import numpy as np

from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.core.posterior import Posterior
from mindzero.core.reasoner import Reasoner
from mindzero.core.results import to_jsonable
from mindzero.domains.base import Domain

#: Goals listed in the posterior panel (the rest is summed into ``other``).
TOP_GOALS = 10


class BadMove(Exception):
    """An action the player cannot take now (nothing to pick up, episode over): the server answers
    409 with this message and the state is unchanged."""

    status = 409


class UnknownAction(BadMove):
    """A name that is no action of the domain at all: answered 400."""

    status = 400


class GameView(Protocol):
    """What the browser needs of a domain beyond its :class:`~mindzero.domains.base.Simulator`."""

    #: the registered domain name (``mindzero.domains.get_domain``), the board's renderer in app.js
    domain: str
    #: the verbs of the action names the client may send (GridWorld: the names themselves)
    actions: tuple[str, ...]

    def episodes(self, run_config: dict) -> Sequence[Any]:
        """The episodes an assistance run with this ``results.json`` config ran (or serve plays)."""
        ...

    def action(self, episode: Any, state: Any, name: str) -> Any:
        """The simulator action for ``name`` in ``state``; :class:`BadMove` if it is impossible,
        :class:`UnknownAction` if ``name`` names no action."""
        ...

    def choices(self, episode: Any, state: Any) -> list[dict]:
        """The buttons of ``state``: ``{"action": name, "label": words, "group": heading}``."""
        ...

    def state_json(self, episode: Any, state: Any) -> dict:
        """Everything the client draws of ``state`` (positions, holdings), as plain JSON."""
        ...

    def goal_json(self, episode: Any) -> dict:
        """The player's goal: ``text`` (shown to the player) and ``hypothesis`` (JSON)."""
        ...

    def label(self, episode: Any, hypothesis: Hashable) -> str:
        """A hypothesis in words, for the posterior panel."""
        ...

    def action_name(self, episode: Any, action: Any) -> str: ...


#: Game views by domain name; a new domain's web module registers itself here.
VIEWS: dict[str, GameView] = {}


def posterior_json(view: GameView, episode: Any, posterior: Posterior, truth: Hashable, top: int = TOP_GOALS) -> dict:
    """The ``top`` most probable hypotheses (``p`` in [0, 1], the true one flagged) and the mass of
    the rest, for the bars of the posterior panel."""
    order = np.argsort(-posterior.probs, kind="stable")[:top]
    bars = [
        {
            "hypothesis": to_jsonable(posterior.hypotheses[i]),
            "label": view.label(episode, posterior.hypotheses[i]),
            "p": float(posterior.probs[i]),
            "true": posterior.hypotheses[i] == truth,
        }
        for i in order
    ]
    return {"bars": bars, "other": max(0.0, 1.0 - sum(b["p"] for b in bars))}


class SerialReasoner:
    """A reasoner whose updates take a shared lock: one model backend serves every session, one
    call at a time (backends are not safe to call from several threads at once). Its sessions tick
    in worker threads (:attr:`PlaySession.blocking`): a model call takes seconds."""

    def __init__(self, reasoner: Reasoner, lock: threading.Lock) -> None:
        self.reasoner, self.lock, self.name = reasoner, lock, reasoner.name

    def reset(self, episode: Any) -> Posterior:
        return self.reasoner.reset(episode)

    def update(self, observation: Any) -> Posterior:
        with self.lock:
            return self.reasoner.update(observation)


class PlaySession:
    """One episode played by a person. ``reasoner=None`` plays solo (the helper stays idle).

    Each :meth:`act` is one tick, as in :func:`mindzero.tasks.assist.run_episode`: the helper acts
    on the posterior from the ticks before, both actions resolve, and the reasoner then observes
    the person's action. The helper's random stream is seeded by ``seed``, so the same actions
    from the same seed give the same episode.

    A person may do what the model of the human never does (e.g. carry an object away and drop
    it), which exact inference cannot explain (zero likelihood under every goal); a reasoner may
    also fail (an unreachable model server). Either way the helper keeps its last posterior, the
    tick goes on, and :attr:`note` says so (counted in :attr:`helper_failures`)."""

    def __init__(
        self,
        view: GameView,
        domain: Domain,
        episode: Any,
        human: HumanParams,
        reasoner: Reasoner | None,
        seed: int,
        max_steps: int,
        show_posterior: bool = True,
    ) -> None:
        self.view, self.domain, self.episode = view, domain, episode
        self.world = domain.simulator(episode, human)
        self.reasoner = reasoner
        self.condition = "solo" if reasoner is None else reasoner.name
        self.seed, self.max_steps, self.show_posterior = seed, max_steps, show_posterior
        self.helper_rng = np.random.default_rng([seed, 1])
        self.state = self.world.initial_state()
        self.posterior = reasoner.reset(episode) if reasoner is not None else None
        self.actions: list[str] = []
        self.helper_actions: list[str] = []
        self.action_ms: list[int] = []  # ms from the session's start to each action
        self.started = time.time()
        self.done = self.success = False
        self.note: str | None = None
        self.helper_failures = 0
        self.blocking = isinstance(reasoner, SerialReasoner)
        self.lock = threading.Lock()

    def act(self, name: str) -> None:
        """One tick with the person's action ``name``; :class:`BadMove` leaves the state as it was."""
        with self.lock:
            if self.done:
                raise BadMove("the episode is over; start a new one")
            human_action = self.view.action(self.episode, self.state, name)
            helper_action = self.world.idle
            if self.posterior is not None and self.reasoner.name != "none":
                helper_action = self.world.helper_action(self.state, self.posterior, self.helper_rng)
            next_state = self.world.step(self.state, human_action, helper_action)
            self.note = None
            if self.reasoner is not None:
                try:
                    self.posterior = self.reasoner.update(self.world.observation(self.state, human_action))
                except UserError as err:
                    self.helper_failures += 1
                    self.note = f"the helper keeps its last belief: {err}"
            self.state = next_state
            self.actions.append(name)
            self.helper_actions.append(self.view.action_name(self.episode, helper_action))
            self.action_ms.append(round(1000 * (time.time() - self.started)))
            self.success = self.world.done(self.state)
            self.done = self.success or self.ticks >= self.max_steps

    @property
    def ticks(self) -> int:
        return self.world.ticks(self.state)

    def snapshot(self) -> dict:
        """The client's view: state, goal, time, the helper's last action and (unless hidden) the
        helper's goal distribution."""
        snap = {
            "domain": self.view.domain,
            "episode_id": self.domain.episode_id(self.episode),
            "condition": self.condition,
            "state": self.view.state_json(self.episode, self.state),
            "goal": self.view.goal_json(self.episode),
            "t": self.ticks,
            "max_steps": self.max_steps,
            "done": self.done,
            "success": self.success,
            "actions": self.view.choices(self.episode, self.state),
            "helper_action": self.helper_actions[-1] if self.helper_actions else None,
            "note": self.note,
            "posterior": None,
        }
        if self.show_posterior and self.posterior is not None:
            snap["posterior"] = posterior_json(self.view, self.episode, self.posterior, self.domain.goal(self.episode))
        return snap

    def record(self) -> dict:
        """What a study log keeps of the finished episode (actions in order, times in ms)."""
        return {
            "episode_id": self.domain.episode_id(self.episode),
            "condition": self.condition,
            "seed": self.seed,
            "ticks": self.ticks,
            "success": self.success,
            "max_steps": self.max_steps,
            "helper_failures": self.helper_failures,
            "actions": self.actions,
            "helper_actions": self.helper_actions,
            "action_ms": self.action_ms,
        }


#: Builds a fresh reasoner by name and seed (``None`` for ``solo``); raises UserError for a name
#: this server cannot run.
ReasonerFactory = Callable[[str, int], Reasoner | None]
