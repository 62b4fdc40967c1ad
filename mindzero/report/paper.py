"""The papers' tables and figures from results folders (``mindzero report paper``).

Every ``results.json`` under the given folders is read and filed under the artefact its ``task``
belongs to; each artefact becomes a Markdown section with our rows (model, scale, machine) and,
beside them, the paper's published numbers, labelled as such — they are copied from the papers,
never re-measured. An artefact no run covers is listed as missing with the command that makes it,
and an unreadable file is listed, not fatal: a partial run still gives a report.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mindzero.core.errors import UserError
from mindzero.core.results import read_json
from mindzero.report.plots import plot_goal_accuracy, plot_scaling
from mindzero.report.tables import markdown_table

#: Published numbers (MindZero: speedup in %, TFLOPs as printed; DEL-ToM: step accuracy in %).
PUBLISHED = {
    "table1a": [
        ("Random Goal", "0.0", "N/A"),
        ("Qwen3-VL-4B (base)", "1.4", "151.7"),
        ("Qwen3-VL-8B (base)", "-0.1", "295.2"),
        ("Qwen3-VL-235B-A22B", "1.0", "808.6"),
        ("GPT-5.2", "0.0", "proprietary"),
        ("Gemini-3-Flash", "0.0", "proprietary"),
        ("MindZero w/ Qwen3-VL-4B", "23.0", "161.4"),
        ("MindZero w/ Qwen3-VL-8B", "24.5", "291.8"),
    ],
    "table1b": [
        ("Random Goal", "-2.2", "N/A"),
        ("Llama-3.2-3B (base)", "2.3", "244.3"),
        ("Llama-3.1-8B (base)", "1.7", "656.1"),
        ("Qwen3-4B (base)", "2.3", "213.1"),
        ("Qwen3-235B-A22B", "12.3", "1101.6"),
        ("GPT-5.2", "9.4", "proprietary"),
        ("Gemini-3-Flash", "17.7", "proprietary"),
        ("MindZero w/ Llama-3.2-3B", "4.3", "235.1"),
        ("MindZero w/ Llama-3.1-8B", "17.4", "608.4"),
        ("MindZero w/ Qwen3-4B", "19.1", "201.2"),
    ],
    "table2": [
        ("MindZero", "19.1", "201.2"),
        ("w/o prior modelling", "17.0", "200.5"),
        ("w/o multiple hypotheses", "10.3", "132.6"),
        ("w/o entropy bonus", "5.2", "245.1"),
    ],
    "table4a": [
        ("Qwen3-VL-4B (base)", "37.7", "3.6"),
        ("Qwen3-VL-8B (base)", "43.3", "7.2"),
        ("Qwen3-VL-235B-A22B", "39.3", "21.9"),
        ("GPT-5.2", "50.7", "proprietary"),
        ("Gemini-3-Pro", "83.7", "proprietary"),
        ("AutoToM w/ Qwen3-VL-8B", "52.3", "741.2"),
        ("MindZero w/ Qwen3-VL-4B", "95.0", "3.6"),
        ("MindZero w/ Qwen3-VL-8B", "92.3", "7.2"),
    ],
    "deltom_table4": [
        ("Llama3.1-8B PBM", "99.2", "94.6", "89.0", "87.0", "79.9", "90.0"),
        ("Llama3.2-3B PBM", "99.1", "91.9", "84.9", "83.8", "73.8", "86.7"),
    ],
}


@dataclass
class Run:
    """One results file: where it is and what it holds."""

    path: Path
    results: dict

    @property
    def task(self) -> str:
        return str(self.results.get("task", ""))

    @property
    def config(self) -> dict:
        config = self.results.get("config")
        return config if isinstance(config, dict) else {}

    @property
    def metrics(self) -> dict:
        metrics = self.results.get("metrics")
        return metrics if isinstance(metrics, dict) else {}

    def machine(self) -> str:
        """The machine the run was measured on, as recorded (older results did not record it)."""
        machine = self.results.get("machine")
        if not isinstance(machine, dict):
            return "not recorded"
        return machine.get("gpu") or f"{machine.get('cpus', '?')} CPU cores"


@dataclass
class Artefact:
    """A paper table or figure: which tasks feed it, how to make them, how to write it."""

    key: str
    title: str
    tasks: tuple[str, ...]  # task names or prefixes ending in "/"
    command: str  # what makes a run of it
    write: Callable[[list[Run], Path], tuple[list[str], list[Path]]]  # (Markdown lines, figures)

    def covers(self, run: Run) -> bool:
        return any(run.task == t or (t.endswith("/") and run.task.startswith(t)) for t in self.tasks)


@dataclass
class Report:
    markdown: str
    figures: list[Path] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)


def find_runs(folders: Sequence[str | Path]) -> tuple[list[Run], list[str]]:
    """Every ``results.json`` under ``folders`` (sorted by path), and one line per unreadable one."""
    runs, unreadable = [], []
    for folder in folders:
        folder = Path(folder)
        if not folder.is_dir():
            raise UserError(f"{folder}: no such folder of results")
        for path in sorted(folder.rglob("results.json")):
            try:
                results = read_json(path)
            except UserError as err:
                unreadable.append(str(err))
                continue
            if isinstance(results, dict) and "task" in results:
                runs.append(Run(path, results))
            else:
                unreadable.append(f"{path}: not a mindzero results file (no task)")
    return runs, unreadable


def _pct(value: object, stderr: object = None) -> str:
    """A fraction as percent, with its standard error when given."""
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return "-"
    text = f"{100 * value:+.1f}"
    return f"{text} ± {100 * stderr:.1f}" if isinstance(stderr, (int, float)) else text


def _num(value: object, fmt: str = ".3g") -> str:
    return format(value, fmt) if isinstance(value, (int, float)) and math.isfinite(value) else "-"


def _model(run: Run) -> str:
    """The reasoner and, for an LLM, which model."""
    config = run.config
    reasoner = str(config.get("reasoner", ""))
    model = config.get("model")
    return f"{reasoner} ({_folder_name(model)})" if reasoner == "llm" and model else reasoner


def _folder_name(path: object) -> str:
    """A model folder by its name, with its run's name when it is a run's ``final``."""
    path = Path(str(path))
    return f"{path.parent.name}/{path.name}" if path.name == "final" else path.name


def _source(run: Run, root: Path) -> str:
    try:
        return str(run.path.parent.relative_to(root))
    except ValueError:
        return str(run.path.parent)


def _published(key: str, header: Sequence[str]) -> list[str]:
    return [
        "",
        "Published (the paper's numbers, copied, not re-measured):",
        "",
        *markdown_table(header, PUBLISHED[key]),
    ]


def _assist_table(key: str, curve: str, label: str) -> Callable[[list[Run], Path], tuple[list[str], list[Path]]]:
    """Table 1a/1b: one row per assistance run; the Fig. 5 curve of each run in one plot."""

    def write(runs: list[Run], out: Path) -> tuple[list[str], list[Path]]:
        rows, curves = [], {}
        for run in runs:
            m, c = run.metrics, run.config
            teleport = "off" if c.get("teleport") is None else f"{c.get('teleport_when', 'map-stable')} {c['teleport']}"
            name = _model(run)
            rows.append(
                [
                    name,
                    str(c.get("protocol", "-")),
                    teleport,
                    _pct(m.get("speedup_mean"), m.get("speedup_stderr")),
                    _num(m.get("success_rate"), ".2f"),
                    _num(m.get("kl_to_exact_mean"), ".2f"),
                    _num(m.get("tflops_per_decision")),
                    str(m.get("n_runs", "-")),
                    run.machine(),
                    _source(run, out),
                ]
            )
            if isinstance(run.results.get(curve), list):
                curves[f"{name} ({_source(run, out)})"] = run.results[curve]
        header = ["reasoner", "protocol", "teleport", "speedup %", "success", "KL exact", "TFLOPs/dec", "runs"]
        lines = markdown_table([*header, "machine", "results"], rows)
        lines += _published(key, ["method", "speedup %", "TFLOPs"])
        figures = []
        if curves:
            figures.append(plot_goal_accuracy(curves, out / f"fig5-{key}.png", f"Fig. 5: {label} vs task progress"))
        return lines, figures

    return write


def _qa_table(runs: list[Run], out: Path) -> tuple[list[str], list[Path]]:
    rows = []
    for run in runs:
        m = run.metrics
        splits = ", ".join(
            f"{k[len('accuracy_split_') :]} {v:.2f}" for k, v in m.items() if k.startswith("accuracy_split_")
        )
        rows.append(
            [
                _model(run),
                _num(100 * m["accuracy"] if isinstance(m.get("accuracy"), (int, float)) else None, ".1f"),
                splits or "-",
                _num(m.get("tflops_per_decision")),
                str(m.get("n", m.get("decisions", "-"))),
                run.machine(),
                _source(run, out),
            ]
        )
    lines = markdown_table(
        ["reasoner", "accuracy %", "by split", "TFLOPs/question", "questions", "machine", "results"], rows
    )
    return lines + _published("table4a", ["method", "accuracy %", "TFLOPs"]), []


#: Our Table 2 runs, by results kind: the heading line of each domain's rows.
ABLATION_DOMAINS = {
    "gridworld/ablation": "Ours, GridWorld assistance (`mindzero train ablation`):",
    "household/ablation": "Ours, Household assistance, test apartments (`mindzero train ablation --domain household`):",
}


def _ablation_table(runs: list[Run], out: Path) -> tuple[list[str], list[Path]]:
    """Table 2: our rows of each domain a run covers, under its own heading and with the random and
    exact references of the same runs in brackets; then the paper's (Household) numbers."""
    lines = []
    for kind, heading in ABLATION_DOMAINS.items():
        rows = []
        for run in (run for run in runs if run.task == kind):
            references = run.results.get("references")
            trained = [(name, row, str(run.config.get("preset", "-"))) for name, row in run.metrics.items()]
            named = [*trained, *((f"({k})", row, "-") for k, row in (references or {}).items())]
            for name, row, preset in named:
                if isinstance(row, dict):
                    rows.append(
                        [
                            name,
                            _pct(row.get("speedup_mean"), row.get("speedup_stderr")),
                            _num(row.get("kl_to_exact_mean"), ".2f"),
                            _num(row.get("tflops_per_decision")),
                            preset,
                            _source(run, out),
                        ]
                    )
        if rows:
            header = ["row", "speedup %", "KL exact", "TFLOPs/dec", "preset", "results"]
            lines += [*([""] if lines else []), heading, "", *markdown_table(header, rows)]
    return lines + _published("table2", ["method (Household, Qwen3-4B)", "speedup %", "TFLOPs"]), []


def _pbm_table(runs: list[Run], out: Path) -> tuple[list[str], list[Path]]:
    rows = []
    for run in runs:
        acc, plus = run.metrics.get("step_accuracy", {}), run.metrics.get("always_plus", {})
        orders = sorted(acc.get("by_order", {}))
        cells = [
            f"{100 * acc['by_order'][o]:.1f} ({100 * plus.get('by_order', {}).get(o, math.nan):.1f})" for o in orders
        ]
        pbm = _folder_name(run.config.get("pbm", "-"))
        rows.append([pbm, *cells, f"{100 * acc.get('avg', math.nan):.1f} ({100 * plus.get('avg', math.nan):.1f})"])
        rows[-1] += [run.machine(), _source(run, out)]
    header = ["PBM", *(f"order {k}" for k in range(5)), "avg"]
    lines = [
        "Step accuracy % per belief order (always-`+` in brackets):",
        "",
        *markdown_table([*header, "machine", "results"], rows),
    ]
    return lines + _published("deltom_table4", header), []


def _scaling(runs: list[Run], out: Path) -> tuple[list[str], list[Path]]:
    rows, figures = [], []
    for k, run in enumerate(runs):
        acc, c = run.metrics.get("accuracy", {}), run.config
        ns = sorted(int(n) for n in acc.get("majority", {}))
        if not ns:
            continue
        top = str(ns[-1])
        at_top = {
            m: _num(acc.get(m, {}).get(top, {}).get("avg"), ".3f")
            for m in ("weighted-min", "weighted-prod", "majority")
        }
        rows.append(
            [
                run.task.rsplit("/", 1)[-1],
                Path(str(c.get("policy", "-"))).name,
                Path(str(c.get("verifier", "-"))).name,
                _num(acc.get("majority", {}).get("1", {}).get("avg"), ".3f"),
                top,
                at_top["weighted-min"],
                at_top["weighted-prod"],
                at_top["majority"],
                _source(run, out),
            ]
        )
        figures.append(plot_scaling(run.metrics, out / f"fig3-{k}.png", f"Fig. 3: {rows[-1][0]}, {rows[-1][2]}"))
    header = ["questions", "policy", "verifier", "N=1", "N", "weighted-min", "weighted-prod", "majority", "results"]
    return markdown_table(header, rows), figures


def _study(runs: list[Run], out: Path) -> tuple[list[str], list[Path]]:
    lines = []
    for run in runs:
        overall = run.metrics.get("overall", {})
        lines.append(f"- {_source(run, out)}: {run.metrics.get('participants', '?')} participants; {overall}")
    return lines, []


ARTEFACTS = (
    Artefact(
        "table1a",
        "MindZero Table 1a: GridWorld proactive assistance (+ Fig. 5a)",
        ("gridworld/assist",),
        "mindzero gridworld assist --reasoner none,random,exact,oracle",
        _assist_table("table1a", "goal_accuracy_curve", "MAP-goal accuracy"),
    ),
    Artefact(
        "table1b",
        "MindZero Table 1b: Household proactive assistance (+ Fig. 5b)",
        ("household/assist",),
        "mindzero household assist --reasoner none,random,oracle,smc",
        _assist_table("table1b", "goal_accuracy_curve", "goal F1"),
    ),
    Artefact(
        "table4a",
        "MindZero Fig. 4a / Table 4a: GridWorld question answering",
        ("gridworld/qa",),
        "mindzero gridworld qa-data --out D && mindzero gridworld qa-eval --data D/test.jsonl",
        _qa_table,
    ),
    Artefact(
        "table2",
        "MindZero Table 2: SSRL reward ablations (ours: GridWorld and Household, small scale)",
        tuple(ABLATION_DOMAINS),
        "mindzero train ablation [--domain household]",
        _ablation_table,
    ),
    Artefact(
        "deltom_table4",
        "DEL-ToM Table 4: PBM step accuracy per belief order",
        ("stories/pbm-eval",),
        "mindzero train pbm ... (writes OUT/eval) or mindzero stories pbm-eval",
        _pbm_table,
    ),
    Artefact(
        "deltom_fig3",
        "DEL-ToM Fig. 3: Best-of-N scaling",
        ("stories/scale-eval/",),
        "mindzero stories scale-eval --data generated --policy synthetic --verifier oracle",
        _scaling,
    ),
    Artefact(
        "table3",
        "MindZero Table 3: human study",
        ("report/study",),
        "mindzero serve --study-logs D, then mindzero report study --logs D --out R",
        _study,
    ),
)


def build_report(folders: Sequence[str | Path], out: Path) -> Report:
    """The Markdown report of every artefact the runs under ``folders`` cover; figures go to ``out``."""
    runs, unreadable = find_runs(folders)
    report = Report("", unreadable=unreadable)
    lines = [
        "# Paper artefacts reproduced by mindzero",
        "",
        f"From {len(runs)} results files under {', '.join(map(str, folders))}.",
    ]
    for artefact in ARTEFACTS:
        mine = [run for run in runs if artefact.covers(run)]
        lines += ["", f"## {artefact.title}", ""]
        if not mine:
            report.missing.append(f"{artefact.title}: run `{artefact.command}`")
            lines.append(f"Missing: no run covers it. Make one with `{artefact.command}`.")
            continue
        body, figures = artefact.write(mine, out)
        lines += body
        lines += [
            line for f in figures for line in ("", f"![{f.stem}]({f.relative_to(out) if f.is_relative_to(out) else f})")
        ]
        report.figures += figures
    if unreadable:
        lines += ["", "## Unreadable results files", "", *(f"- {line}" for line in unreadable)]
    report.markdown = "\n".join(lines) + "\n"
    return report
