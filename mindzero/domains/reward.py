"""The SSRL reward of any domain's task as a TRL reward function (and veRL's ``compute_score``).

A task supplies, per prompt, a :class:`~mindzero.domains.base.RewardContext`: log-likelihoods and
log-priors over its hypothesis space and the parser of a completion. Scoring a completion is then
a parse and paper Eq. 4 over its few particles (:func:`~mindzero.core.reward.ssrl_reward`); a
completion that does not parse gets :func:`~mindzero.core.reward.failure_reward`, strictly below
every valid one. In a trainer's call, a failure gets ``failure_margin`` below the worst *valid
completion of the same prompt in that call* instead (when there is one): GRPO compares only those,
and the space-wide floor — often 100 nats lower — let the one failure of a group dominate its
advantages (a cpu-tiny run then mostly learned to avoid failures by turning deterministic).
Contexts are built once per distinct prompt of a call (GRPO repeats each prompt
``num_generations`` times), from the dataset columns the task names.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from mindzero.core.human import HumanParams
from mindzero.core.parsing import ParseResult, completion_text
from mindzero.core.reward import RewardConfig, failure_reward, ssrl_reward
from mindzero.domains import get_domain
from mindzero.domains.base import RewardContext, SSRLTask


def _freeze(value: Any) -> Hashable:
    """A hashable copy of a dataset cell (lists, e.g. of actions or option goals, become tuples)."""
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value) if value and isinstance(value[0], list) else tuple(value)
    return value


def earns_bonus(result: ParseResult) -> bool:
    """Whether a completion earns the policy-entropy bonus: valid and spelled canonically. A
    failure would be paid to write noise; a loose spelling (``  C G 1.00``) for varied spellings of
    one answer, which a policy paid for its own entropy learns instead of varied hypotheses."""
    return result.ok and result.canonical


class SSRLReward:
    """``f(prompts, completions, **columns) -> list[float]`` for one task of a domain.

    ``results`` holds the parse results of the last call, which the trainer reads for per-step and
    per-group statistics."""

    def __init__(
        self, task: SSRLTask, human: HumanParams, config: RewardConfig = RewardConfig(), name: str = "ssrl"
    ) -> None:
        self.task = task
        self.human = human
        self.config = config
        self.results: list[ParseResult] = []
        self.__name__ = name

    def context(self, row: Mapping[str, Any]) -> RewardContext:
        return self.task.context(row, self.human)

    def score_in(self, completion: object, context: RewardContext) -> float:
        """Reward of one completion of the prompt whose context is given (nats)."""
        result = context.parse(completion_text(completion))
        self.results.append(result)
        if not result.ok:
            return failure_reward(context.logliks, context.logprior, self.config)
        index, logliks, logprior = context.index, context.logliks, context.logprior
        rows = [index[h] for h in result.hypotheses]
        lls, lps = [logliks[r] for r in rows], [logprior[r] for r in rows]
        return ssrl_reward(result.probs, lls, lps, self.config, result.entropy)

    def score(self, completion: object, **row: Any) -> float:
        """Reward of one completion given its row's columns."""
        return self.score_in(completion, self.context(row))

    def __call__(
        self,
        prompts: Sequence[Any],
        completions: Sequence[Any],
        bonus: Sequence[float] | None = None,
        **columns: Any,
    ) -> list[float]:
        """``bonus``: nats added to each valid completion in its canonical spelling (:func:`earns_bonus`)
        before failures are placed below their group (the trainer's policy-entropy term)."""
        names = self.task.columns
        cells = [columns[name] if name in columns else [None] * len(completions) for name in names]
        contexts: dict[tuple, RewardContext] = {}
        self.results = []
        rewards, keys = [], []  # keys: each completion's prompt
        last, key, context = None, None, None
        for completion, values in zip(completions, zip(*cells)):
            if values != last:  # a GRPO group's rows are consecutive: compare before hashing
                key = tuple(map(_freeze, values))
                context = contexts.get(key)
                if context is None:
                    context = contexts[key] = self.context(dict(zip(names, values)))
                last = values
            rewards.append(self.score_in(completion, context))
            if bonus is not None and earns_bonus(self.results[-1]):
                rewards[-1] += bonus[len(rewards) - 1]
            keys.append(key)
        return self._failures_below_group(rewards, keys)

    def _failures_below_group(self, rewards: list[float], keys: list[tuple]) -> list[float]:
        """Each failure's reward: ``failure_margin`` below the worst valid reward of its prompt's
        completions in this call, or the space-wide floor when none of them is valid."""
        worst: dict[tuple, float] = {}
        for key, reward, result in zip(keys, rewards, self.results):
            if result.ok:
                worst[key] = min(reward, worst.get(key, reward))
        margin = self.config.failure_margin
        return [
            worst[key] - margin if not result.ok and key in worst else reward
            for key, reward, result in zip(keys, rewards, self.results)
        ]


def compute_score(data_source: str, solution_str: str, ground_truth=None, extra_info: dict | None = None) -> float:
    """veRL/EasyR1 reward entry point: ``data_source`` is ``<domain>/<task>``; ``extra_info``
    carries the row's columns (and may carry ``human``: a mapping of HumanParams fields)."""
    domain_name, _, task_name = data_source.partition("/")
    task = get_domain(domain_name).tasks.get(task_name)
    if task is None:
        raise ValueError(f"unknown data_source {data_source!r}; expected <domain>/<task>, e.g. gridworld/assist")
    info = dict(extra_info or {})
    human = HumanParams(**info.pop("human", {}))
    return SSRLReward(task, human).score(solution_str, **info)
