"""The domain interface: what a world supplies so that generic reasoners, benchmarks and trainers
can infer minds in it.

A domain bundles, for one kind of world (GridWorld, Household, ...):

- its **simulator** per episode (:class:`Simulator`): the simulated human, whose policy is also the
  likelihood, the helper that acts on a posterior, and the two-agent dynamics;
- its **hypothesis space** per episode and its **reasoners** by name (exact inference and the
  model-free baselines), all built from the same :class:`~mindzero.core.human.HumanParams`, which
  the domain settles from the ``--human-*`` flags (:meth:`Domain.human`);
- its **prompts and parsers**: the assistance prompt (particles requested), the particle parser, the
  QA prompt and the QA option probabilities of a posterior;
- its **SSRL tasks** (:class:`SSRLTask`): unlabeled training rows and, per row, a
  :class:`RewardContext` holding log P(actions | m) and log P(m) over the whole hypothesis space
  and the parser of a completion. The reward itself (:mod:`mindzero.domains.reward`) is generic.

Nothing outside ``mindzero/domains/<name>`` and ``mindzero/envs/<name>`` knows a domain's types:
``mindzero.tasks`` and ``mindzero.train`` take a :class:`Domain` and call these methods only.
Register a domain with :func:`mindzero.domains.register`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from mindzero.core.errors import UserError
from mindzero.core.human import HumanParams
from mindzero.core.parsing import ParseResult
from mindzero.core.posterior import Posterior
from mindzero.core.reasoner import Reasoner


@dataclass(frozen=True)
class RewardContext:
    """What scoring a prompt's completions needs, computed once per prompt.

    ``logliks``/``logprior``: log P(a_1:t | m) and log P(m) in nats for every hypothesis m of the
    prompt's space; ``index``: hypothesis → position in those lists; ``parse``: completion text →
    :class:`ParseResult` whose hypotheses are keys of ``index``."""

    logliks: Sequence[float]
    logprior: Sequence[float]
    index: Mapping[Hashable, int]
    parse: Callable[[object], ParseResult]


#: How a reward or an exact/SMC reasoner estimates log P(actions | m): the domain's simulated human
#: (``model``) or a language model's log-probability of the actions written as text (``llm``).
LIKELIHOODS = ("model", "llm")
#: How it estimates log P(m): ``uniform``, the domain's symbolic ``rules``, or a language model's
#: plausibility judgement (``llm``).
PRIORS = ("uniform", "rules", "llm")


@dataclass(kw_only=True, unsafe_hash=True)
class Estimators:
    """The likelihood and prior estimators of paper Eq. 4 (Fig. 2b): declared once, as top-level
    options (``--likelihood``, ``--prior``) of every command whose reward or inference scores
    hypotheses; a domain that has only its planner and a uniform prior rejects the others."""

    likelihood: str = field(
        default="model",
        metadata={"help": "model (the simulated human's planner) | llm (log-prob of the actions as text)",
                  "choices": LIKELIHOODS},
    )  # fmt: skip
    prior: str = field(
        default="uniform",
        metadata={"help": "uniform | rules (symbolic task rules) | llm (plausibility judged by --estimator-model)",
                  "choices": PRIORS},
    )  # fmt: skip
    estimator_model: str | None = field(
        default=None, metadata={"help": "model spec that scores the llm likelihood and prior (e.g. smollm2-135m)"}
    )
    estimator_cache: str | None = field(
        default=None,
        metadata={"help": "folder of the LLM estimators' score caches (default: $MINDZERO_CACHE/estimators)"},
    )

    def uses_llm(self) -> bool:
        return self.likelihood == "llm" or self.prior == "llm"


#: The simulated human's planner and a uniform prior: what every domain supports.
DEFAULT_ESTIMATORS = Estimators()


def estimators_of(config: Any) -> Estimators:
    """The :class:`Estimators` part of a config that inherits it (a hashable value)."""
    return Estimators(**{name: getattr(config, name) for name in Estimators.__dataclass_fields__})


def with_estimators(task: Any, estimators: Estimators) -> Any:
    """``task`` scoring with ``estimators``: the task's ``with_estimators`` if it has one; a task
    without it takes only the defaults (its simulated human, a uniform prior)."""
    if estimators == DEFAULT_ESTIMATORS:
        return task
    if not hasattr(task, "with_estimators"):
        raise UserError(
            f"--likelihood {estimators.likelihood} --prior {estimators.prior}: this task scores with its "
            "simulated human and a uniform prior only (household assist has the others)"
        )
    return task.with_estimators(estimators)


@dataclass
class TrainData:
    """Options of the unlabeled training rows: declared once, read by every domain's tasks and by
    every trainer that makes rows (``train ssrl --data-*``, ``train format-sft --data-*``). ``None``
    means "the preset's value" in a trainer; a task is always handed a filled one."""

    episodes: int | None = field(
        default=200,
        metadata={"help": "unlabeled episodes to make training rows from (household qa: questions)", "ge": 1,
                  "le": 1_000_000},
    )  # fmt: skip
    seed: int = field(default=0, metadata={"help": "seed of the generated episodes", "ge": 0})
    every: int = field(
        default=2, metadata={"help": "assist: keep every k-th timestep of each episode", "ge": 1, "le": 1_000}
    )
    n_particles: int = field(default=1, metadata={"help": "assist: particles requested per prompt", "ge": 1, "le": 256})
    prompt_style: str | None = field(
        default="compact",
        metadata={
            "help": "full (paper transcript) | compact (CPU) | relative or anchored (gridworld, scratch models) | "
            "facts (household questions, scratch models)"
        },
    )
    path: str | None = field(
        default=None, metadata={"help": "rows from this JSONL (e.g. qa-data's train.jsonl) instead of generating"}
    )


class SSRLTask(Protocol):
    """A trainable task of a domain: rows without mental-state labels, and how to score them."""

    #: the benchmark that measures it: ``qa`` (two-option questions) or ``assist`` (particles)
    kind: str
    #: dataset columns the reward reads, beside ``prompt`` (together they identify a prompt)
    columns: tuple[str, ...]
    #: completion token budget of small CPU models (a letter, one particle, ...)
    completion_tokens: int
    #: tokens of a completion that carry its choice (e.g. the letter): the format warm start
    #: leaves them out of its loss, so it teaches the answer's form and never biases the choice
    choice_tokens: tuple[str, ...]

    def rows(self, data: TrainData) -> list[dict]:
        """Rows with a text ``prompt`` and the :attr:`columns`; never a goal label the reward reads."""
        ...

    def context(self, row: Mapping[str, Any], human: HumanParams) -> RewardContext: ...

    def random_completion(self, row: Mapping[str, Any], n_particles: int, rng: np.random.Generator) -> str:
        """A well-formed completion that ignores the row's actions: the label-free format warm
        start's target (random particles, a random letter)."""
        ...


class Simulator(Protocol):
    """One episode's two-agent world. ``human_action`` samples the policy whose probabilities are
    the likelihood of the domain's exact reasoner; time is counted in ticks."""

    goal: Hashable
    idle: Any  # the helper's do-nothing action

    def initial_state(self) -> Any: ...

    def human_action(self, state: Any, rng: np.random.Generator) -> Any: ...

    def helper_action(self, state: Any, posterior: Posterior, rng: np.random.Generator) -> Any: ...

    def observation(self, state: Any, human_action: Any) -> Any:
        """What a reasoner is shown of this tick (the state and the human's action)."""
        ...

    def step(self, state: Any, human_action: Any, helper_action: Any) -> Any: ...

    def done(self, state: Any) -> bool: ...

    def ticks(self, state: Any) -> int: ...

    def teleport(self, state: Any, goal: Hashable) -> Any:
        """The reference evaluation's helper jump to what it would fetch for ``goal`` (or ``state``)."""
        ...

    def human_started(self, state: Any, goal: Hashable) -> bool:
        """Whether the human has visibly begun ``goal`` (GridWorld: holds one of its objects): when
        the published evaluation's helper teleports."""
        ...


class Domain(Protocol):
    """Everything generic code needs from a world; see the module docstring."""

    name: str
    #: trainable SSRL tasks by name (e.g. ``qa``, ``assist``)
    tasks: Mapping[str, SSRLTask]
    #: reasoners that need no model (``llm`` is added by the inference layer)
    reasoners: tuple[str, ...]
    #: how prompts may show an episode (``TrainData.prompt_style``, ``--prompt-style``)
    prompt_styles: tuple[str, ...]
    #: what :meth:`goal_score` measures, for tables and plots (e.g. ``MAP-goal accuracy``)
    goal_metric: str

    def human(self, flags: HumanParams) -> HumanParams:
        """The domain's human model given the ``--human-*`` flags, which parse with GridWorld's defaults:
        what the simulator, exact inference and the SSRL reward use."""
        ...

    def reasoner(self, name: str, seed: int, human: HumanParams) -> Reasoner: ...

    def simulator(self, episode: Any, human: HumanParams) -> Simulator: ...

    def hypotheses(self, episode: Any) -> tuple[Hashable, ...]: ...

    def goal(self, episode: Any) -> Hashable: ...

    def goal_record(self, episode: Any) -> Any:
        """The episode's goal as JSON for ``samples.jsonl`` (readable names where the domain has them)."""
        ...

    def goal_score(self, posterior: Posterior, goal: Hashable) -> float:
        """How well a posterior names the true goal, in [0, 1], scored every tick of an assisted
        episode (the Fig. 5 curve): GridWorld, whether the MAP goal is it; Household, the
        posterior-expected F1 of goal predicates (Watch-And-Help's metric)."""
        ...

    def heldout_episodes(self, n: int, seed: int) -> list[Any]:
        """``n`` evaluation episodes never used for training rows (unseen layouts)."""
        ...

    def heldout_questions(self, n: int, seed: int) -> list[dict]:
        """About ``n`` two-option questions with gold ``answer`` from the test splits, for
        evaluation only (labels never reach a trainer)."""
        ...

    def episode_id(self, episode: Any) -> str: ...

    def assist_prompt(self, episode: Any, observations: Sequence[Any], n_particles: int, style: str) -> str:
        """The prompt after ``observations`` (paper Figs. 7 + 11 for ``full``)."""
        ...

    def parse_particles(self, text: object, episode: Any, n_particles: int | None) -> ParseResult: ...

    def hypothesis_texts(self, episode: Any, style: str) -> list[tuple[Hashable, str]]:
        """``(hypothesis, text)`` for every way a one-particle answer to a ``style`` prompt names a
        hypothesis (several texts per hypothesis allowed): what ``--answer-mode score`` scores."""
        ...

    def qa_prompt(self, row: Mapping[str, Any], style: str) -> str: ...

    def qa_option_probs(self, row: Mapping[str, Any], reasoner: Reasoner) -> np.ndarray:
        """Probability behind each option of a QA row after the reasoner saw the row's actions."""
        ...
