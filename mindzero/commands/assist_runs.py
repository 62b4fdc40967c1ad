"""The assistance benchmark's runs, shared by every domain's ``assist`` verb: each reasoner gets
``OUT/<reasoner>/`` (samples streamed to ``samples.jsonl`` as the episodes run, then
``results.json``), one row of the printed table and one line of the Fig. 5 plot. When ``exact`` runs
beside others, each of them also gets its share of exact's speedup on the same runs
(``OUT/share_of_exact.json``, column ``of_exact``)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from mindzero.core.outputs import OutputFolder
from mindzero.core.reasoner import Reasoner
from mindzero.core.results import atomic_write_text, dumps_json, read_json, read_jsonl, write_results
from mindzero.domains.base import Domain
from mindzero.report.plots import plot_goal_accuracy
from mindzero.tasks.assist import AssistSettings, AssistTotals, assist_samples, paired_share

HEADER = [
    "reasoner",
    "speedup",
    "success",
    "T_alone",
    "T_helped",
    "goal",
    "p_true",
    "KL_exact",
    "parse_fail",
    "TFLOPs/dec",
    "of_exact",
]


def _fmt(value: object, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def table_row(name: str, metrics: dict, share: dict | None = None) -> list[str]:
    """One printed row; ``-`` for what the run did not measure (KL uncalibrated, costs of non-LLMs,
    the share of exact's speedup when exact did not run)."""
    return [
        name,
        f"{metrics['speedup_mean']:+.3f} ± {metrics['speedup_stderr']:.3f}",
        _fmt(metrics["success_rate"], ".2f"),
        _fmt(metrics["t_alone_mean"], ".1f"),
        _fmt(metrics["t_helped_mean"], ".1f"),
        _fmt(metrics["goal_accuracy_mean"], ".2f"),
        _fmt(metrics["true_goal_prob_mean"], ".2f"),
        _fmt(metrics["kl_to_exact_mean"], ".2f"),
        _fmt(metrics.get("parse_failure_rate"), ".2f"),
        _fmt(metrics.get("tflops_per_decision"), ".3g"),
        "-" if share is None else f"{share['share']:.2f} ± {share['stderr']:.2f}",
    ]


def run_reasoners(
    domain: Domain,
    runs: Sequence[object],
    settings: AssistSettings,
    factories: dict[str, Callable[[int], Reasoner]],
    folder: OutputFolder,
    config: object,
    batch: int = 1,
) -> tuple[list[list[str]], Path]:
    """Run every reasoner (``factories``: name -> reasoner for a seed), ``batch`` episodes in
    lock-step; (table rows, Fig. 5 plot). Each reasoner's record is the command's ``config`` with
    ``reasoner`` set to that name."""
    metrics, curves = {}, {}
    for name, make in factories.items():
        record = dataclasses.asdict(dataclasses.replace(config, reasoner=name))
        sub = name if len(factories) > 1 else "."
        metrics[name], curves[name] = assist_reasoner(domain, runs, settings, make, folder, sub, record, batch)
    shares = shares_of_exact(folder.path, list(factories))
    rows = [table_row(name, metrics[name], shares.get(name)) for name in factories]
    title = f"{domain.name} online goal inference"
    return rows, plot_goal_accuracy(curves, folder.path / "goal_accuracy.png", title, domain.goal_metric)


def shares_of_exact(out: Path, names: list[str]) -> dict[str, dict]:
    """Each reasoner's share of exact's speedup on the same (episode, seed) runs, with its paired
    standard error (:func:`share_of`), written to ``OUT/share_of_exact.json``; empty without exact
    or where the share is undefined."""
    if "exact" not in names or len(names) < 2:
        return {}
    exact = read_jsonl(out / "exact" / "samples.jsonl")
    shares = {}
    for name in names:
        share = None if name == "exact" else paired_share(read_jsonl(out / name / "samples.jsonl"), exact)
        if share is not None:
            shares[name] = {"share": share[0], "stderr": share[1], "runs": len(exact)}
    atomic_write_text(out / "share_of_exact.json", dumps_json(shares))
    return shares


def assist_reasoner(
    domain: Domain,
    runs: Sequence[object],
    settings: AssistSettings,
    make_reasoner: Callable[[int], Reasoner],
    folder: OutputFolder,
    sub: str,
    record: dict,
    batch: int = 1,
) -> tuple[dict, list[float | None]]:
    """(metrics, goal-score curve) of one reasoner, written to OUT/SUB. A resumed run reads back a
    reasoner it finished and continues one it had begun from its last checkpoint."""
    results = folder.path / sub / "results.json"
    if folder.resume and results.is_file():
        done = read_json(results)
        return done["metrics"], done["goal_accuracy_curve"]
    start = time.perf_counter()
    with folder.stream(f"{sub}/samples.jsonl") as stream:
        totals, seconds = stream.state or (AssistTotals(), 0.0)
        samples = assist_samples(domain, runs, settings, make_reasoner, totals, record["reasoner"], batch=batch)
        for sample in samples:
            stream.write(sample)
            stream.checkpoint((totals, seconds + time.perf_counter() - start))
    metrics, curve = totals.metrics(), totals.curve()
    metrics["seconds"] = seconds + time.perf_counter() - start
    extra = {"goal_metric": domain.goal_metric, "goal_accuracy_curve": curve}
    write_results(results.parent, f"{domain.name}/assist", record, metrics, None, extra)
    return metrics, curve
