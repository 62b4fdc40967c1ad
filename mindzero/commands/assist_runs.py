"""The assistance benchmark's runs, shared by every domain's ``assist`` verb: each reasoner gets
``OUT/<reasoner>/`` (samples streamed to ``samples.jsonl`` as the episodes run, then
``results.json``), one row of the printed table and one line of the Fig. 5 plot."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from mindzero.core.outputs import OutputFolder
from mindzero.core.results import read_json, write_results
from mindzero.domains.base import Domain
from mindzero.inference.base import Reasoner
from mindzero.report.plots import plot_goal_accuracy
from mindzero.tasks.assist import AssistSettings, AssistTotals, assist_samples

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
]


def _fmt(value: object, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def table_row(name: str, metrics: dict) -> list[str]:
    """One printed row; ``-`` for what the run did not measure (KL uncalibrated, costs of non-LLMs)."""
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
    ]


def run_reasoners(
    domain: Domain,
    runs: Sequence[object],
    settings: AssistSettings,
    factories: dict[str, Callable[[int], Reasoner]],
    folder: OutputFolder,
    config: object,
) -> tuple[list[list[str]], Path]:
    """Run every reasoner (``factories``: name -> reasoner for a seed); (table rows, Fig. 5 plot).
    Each reasoner's record is the command's ``config`` with ``reasoner`` set to that name."""
    rows, curves = [], {}
    for name, make in factories.items():
        record = dataclasses.asdict(dataclasses.replace(config, reasoner=name))
        sub = name if len(factories) > 1 else "."
        metrics, curves[name] = assist_reasoner(domain, runs, settings, make, folder, sub, record)
        rows.append(table_row(name, metrics))
    title = f"{domain.name} online goal inference"
    return rows, plot_goal_accuracy(curves, folder.path / "goal_accuracy.png", title, domain.goal_metric)


def assist_reasoner(
    domain: Domain,
    runs: Sequence[object],
    settings: AssistSettings,
    make_reasoner: Callable[[int], Reasoner],
    folder: OutputFolder,
    sub: str,
    record: dict,
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
        for sample in assist_samples(domain, runs, settings, make_reasoner, totals, label=record["reasoner"]):
            stream.write(sample)
            stream.checkpoint((totals, seconds + time.perf_counter() - start))
    metrics, curve = totals.metrics(), totals.curve()
    metrics["seconds"] = seconds + time.perf_counter() - start
    extra = {"goal_metric": domain.goal_metric, "goal_accuracy_curve": curve}
    write_results(results.parent, f"{domain.name}/assist", record, metrics, None, extra)
    return metrics, curve
