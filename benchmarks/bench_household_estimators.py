"""Household's LLM estimators against the symbolic ones: how well a language model's likelihood
ranks goals like the planner's, and its plausibility prior like the rules; scores per second; the
cache's hit rate on a second identical pass.

    OMP_NUM_THREADS=1 python benchmarks/bench_household_estimators.py [--model smollm2-135m]
        [--histories 50] [--goals 10] [--cache DIR]

(history, goal) pairs: ``--histories`` moments of human-alone episodes on the train apartments
(1–30 ticks in), each with its true goal and ``--goals`` − 1 other goals of the apartment drawn
uniformly. Per history: Spearman ρ and Kendall τ between the llm and planner log-likelihoods, and
between the llm and rules priors, over its goals; then averaged over histories (a history whose
scores are all tied under one estimator is left out of that average and counted). Also the share
of histories whose true goal ranks first under each likelihood. ``--cache``: the score cache
folder (default: a fresh temporary one, so the first pass computes every score).
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np
from scipy.stats import kendalltau, spearmanr

from mindzero.domains.base import Estimators
from mindzero.domains.household.estimators import HouseholdEstimators, goal_phrase, rule_weight
from mindzero.domains.household.ssrl import goal_logliks, rollout
from mindzero.envs.household.apartment import TRAIN_APARTMENTS, bundled_apartment
from mindzero.envs.household.episodes import all_goals, make_episode
from mindzero.envs.household.human import HOUSEHOLD_HUMAN


def histories(n: int, n_goals: int, seed: int) -> list[dict]:
    """``n`` (apartment, episode, actions, goal indices with the true goal first) cases."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        name = TRAIN_APARTMENTS[k % len(TRAIN_APARTMENTS)]
        apartment = bundled_apartment(name)
        episode = make_episode(apartment, 50_000 + k)  # the seed goal_logliks rebuilds it from
        observations = rollout(episode, np.random.default_rng([seed, k]))
        t = int(rng.integers(1, min(30, len(observations)) + 1))
        goals = all_goals(apartment)
        true = goals.index(episode.goal)
        others = [i for i in rng.permutation(len(goals)) if i != true][: n_goals - 1]
        out.append(
            {
                "name": name,
                "episode": episode,
                "seed": 50_000 + k,
                "actions": [o.action for o in observations[:t]],
                "goals": [true, *others],
            }
        )
    return out


def agreement(a: np.ndarray, b: np.ndarray) -> tuple[float, float] | None:
    """(Spearman ρ, Kendall τ) of two score vectors, or None when either is constant."""
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return None
    return float(spearmanr(a, b).statistic), float(kendalltau(a, b).statistic)


def run_pass(cases: list[dict], settings: Estimators) -> tuple[HouseholdEstimators, list[dict], float]:
    """Score every case with fresh estimators (reading the cache); (estimators, scores, seconds)."""
    estimators = HouseholdEstimators(settings)
    rules = HouseholdEstimators(Estimators(prior="rules"))
    start = time.perf_counter()
    scored = []
    for case in cases:
        apartment = bundled_apartment(case["name"])
        goals = [all_goals(apartment)[i] for i in case["goals"]]
        llm_lik = estimators.text_logliks(apartment, case["episode"].initial_state(), case["actions"], goals)
        planner = goal_logliks(case["name"], case["seed"], case["actions"], HOUSEHOLD_HUMAN)[case["goals"]]
        judged = estimators.plausibility(apartment, goals)  # these goals only, not the whole apartment
        scored.append(
            {
                "llm_lik": llm_lik,
                "planner": planner,
                "llm_prior": judged,
                "rules": rules.logprior(apartment)[case["goals"]],
                "goals": goals,
                "apartment": apartment,
            }
        )
    return estimators, scored, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--histories", type=int, default=50)
    parser.add_argument("--goals", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache", default=None)
    args = parser.parse_args()
    folder = args.cache or tempfile.mkdtemp(prefix="estimator-cache-")
    settings = Estimators(likelihood="llm", prior="llm", estimator_model=args.model, estimator_cache=folder)
    cases = histories(args.histories, args.goals, args.seed)
    print(f"{len(cases)} histories x {args.goals} goals = {len(cases) * args.goals} (history, goal) pairs; "
          f"model {args.model}; cache {folder}")  # fmt: skip

    for label in ("first pass", "second pass"):
        estimators, scored, seconds = run_pass(cases, settings)
        stats = estimators.stats()
        computed = stats["likelihood_scores_computed"] + stats["prior_scores_computed"]
        asked = computed + stats["likelihood_scores_cached"] + stats["prior_scores_cached"]
        backend_s = stats["likelihood_seconds"] + stats["prior_seconds"]
        rate = computed / backend_s if backend_s else float("nan")
        print(
            f"{label}: {asked} scores asked, {computed} computed, cache hit rate {1 - computed / asked:.3f}; "
            f"{seconds:.1f} s wall; {rate:.2f} scores/s of the backend"
        )

    lik = [agreement(s["llm_lik"], s["planner"]) for s in scored]
    prior = [agreement(s["llm_prior"], s["rules"]) for s in scored]
    for name, values in (("llm likelihood vs planner", lik), ("llm prior vs rules", prior)):
        kept = [v for v in values if v is not None]
        rho, tau = np.mean([v[0] for v in kept]), np.mean([v[1] for v in kept])
        print(f"{name}: Spearman {rho:+.3f}, Kendall {tau:+.3f} (mean over {len(kept)} histories; "
              f"{len(values) - len(kept)} with tied scores left out)")  # fmt: skip
    top_llm = np.mean([int(np.argmax(s["llm_lik"]) == 0) for s in scored])
    top_planner = np.mean([int(np.argmax(s["planner"]) == 0) for s in scored])
    chance = 1 / args.goals
    print(f"true goal ranked first: planner {top_planner:.2f}, llm likelihood {top_llm:.2f} (chance {chance:.2f})")

    # What the small model gets wrong: its likelihood's favourite and its prior's extremes.
    print("examples (llm likelihood's top goal vs the planner's):")
    for s in scored[:3]:
        a, goals = s["apartment"], s["goals"]
        print(f"  llm: {goal_phrase(a, goals[int(np.argmax(s['llm_lik']))])}  |  "
              f"planner: {goal_phrase(a, goals[int(np.argmax(s['planner']))])}")  # fmt: skip
    judged = {
        goal_phrase(s["apartment"], g): (p, rule_weight(s["apartment"], g))
        for s in scored
        for g, p in zip(s["goals"], s["llm_prior"])
    }
    ranked = sorted(judged.items(), key=lambda kv: kv[1][0])
    print("llm prior, least plausible:", "; ".join(f"{k} ({p:.2f}, rules {r:.1f})" for k, (p, r) in ranked[:3]))
    print("llm prior, most plausible:", "; ".join(f"{k} ({p:.2f}, rules {r:.1f})" for k, (p, r) in ranked[-3:]))
    lengths = [len(g[2]) for s in scored for g in s["goals"]]
    print(f"llm prior vs number of object classes: Spearman "
          f"{spearmanr([p for s in scored for p in s['llm_prior']], lengths).statistic:+.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
