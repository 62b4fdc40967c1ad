"""Study mode (paper §6.4, App. D, Table 3): every participant plays each task once per condition
(``solo`` and one or more helpers), in a counterbalanced order; every finished task is appended to
the participant's log ``LOGS/<participant>.jsonl``; :func:`analyse` turns the logs into per-task
steps, speedups with standard errors and paired t-tests.

Counterbalancing: participants are numbered in the order they join (0, 1, ...); participant ``k``
plays the condition blocks in the order of the condition list rotated by ``k`` (with solo and one
helper: every other participant starts helped), and the tasks within a block rotated by ``k`` too.

Logs are appended atomically (the file is rewritten through a temporary file and a rename, under
a lock), so a crash never leaves half a line; a participant who reloads the page continues at the
first task the log does not hold.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mindzero.core.errors import UserError
from mindzero.core.results import atomic_write_bytes, check_fields, dumps_row, iter_jsonl
from mindzero.tasks.assist import stderr

SOLO = "solo"
#: Participant ids: also file names, so no path characters.
PARTICIPANT = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: Fields of a finished-task row of a study log.
TASK_FIELDS = {"participant": str, "task": int, "condition": str, "ticks": int, "success": bool}


@dataclass
class StudySettings:
    """What each participant plays: ``tasks`` episodes (indices 0..tasks-1 of serve's episodes),
    each once under every condition (``solo`` or a reasoner name)."""

    logs: Path
    tasks: int = 4
    conditions: list[str] = field(default_factory=lambda: [SOLO, "exact"])
    show_posterior: bool = False  # blind by default: the helper's beliefs could steer the player

    def plan(self, order: int) -> list[tuple[int, str]]:
        """(task index, condition) in play order for participant number ``order``."""
        k = order % len(self.conditions)
        conditions = self.conditions[k:] + self.conditions[:k]
        t = order % self.tasks
        tasks = [*range(t, self.tasks), *range(t)]
        return [(task, condition) for condition in conditions for task in tasks]


def now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class StudyLogs:
    """The logs folder: one JSONL file per participant, a ``start`` row then one ``task`` row per
    finished task. Thread-safe; participants are numbered in the order they first join."""

    def __init__(self, settings: StudySettings) -> None:
        self.settings = settings
        self.folder = Path(settings.logs)
        self._lock = threading.Lock()

    def path(self, participant: str) -> Path:
        if not PARTICIPANT.fullmatch(participant):
            raise UserError("participant id: 1 to 64 letters, digits, '-' or '_'")
        return self.folder / f"{participant}.jsonl"

    def _rows(self, path: Path) -> list[dict]:
        return [row for _, row in iter_jsonl(path)] if path.is_file() else []

    def _append(self, path: Path, row: dict) -> None:
        old = path.read_bytes() if path.is_file() else b""
        atomic_write_bytes(path, old + dumps_row(row).encode("utf-8"))

    def join(self, participant: str) -> tuple[int, int]:
        """(participant number, index of the next task in their plan); a first join writes the
        ``start`` row with the plan."""
        path = self.path(participant)
        with self._lock:
            rows = self._rows(path)
            if rows:
                return int(rows[0]["order"]), sum(r.get("event") == "task" for r in rows)
            self.folder.mkdir(parents=True, exist_ok=True)
            order = len(list(self.folder.glob("*.jsonl")))
            plan = [list(p) for p in self.settings.plan(order)]
            start = {"event": "start", "participant": participant, "order": order, "plan": plan, "time": now()}
            self._append(path, start)
            return order, 0

    def log_task(self, participant: str, order: int, step: int, task: int, record: dict) -> None:
        """Append a finished task (``record``: :meth:`PlaySession.record`) as step ``step`` of the plan."""
        row = {"event": "task", "participant": participant, "order": order, "step": step, "task": task}
        with self._lock:
            self._append(self.path(participant), {**row, **record, "time": now()})


def read_logs(folder: str | Path) -> list[dict]:
    """The ``task`` rows of every ``*.jsonl`` in ``folder``; malformed lines are FILE:LINE errors."""
    folder = Path(folder)
    if not folder.is_dir():
        raise UserError(f"--logs {folder}: not a folder (start `mindzero serve --study-logs DIR` to collect logs)")
    rows = []
    for path in sorted(folder.glob("*.jsonl")):
        for n, row in iter_jsonl(path):
            if isinstance(row, dict) and row.get("event") == "task":
                check_fields(row, TASK_FIELDS, f"{path}:{n}")
                rows.append(row)
    if not rows:
        raise UserError(f"--logs {folder}: no finished tasks in its *.jsonl files")
    return rows


def paired_t(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Two-sided p-value of the paired t-test of ``a`` against ``b`` (None below 2 pairs or when
    every difference is equal, where the test is undefined)."""
    from scipy import stats  # scipy.stats takes ~0.3 s to import: only reports need it

    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    if len(d) < 2 or np.all(d == d[0]):
        return None
    return float(stats.ttest_rel(a, b).pvalue)


def analyse(rows: Iterable[dict]) -> dict:
    """Paper Table 3 from task rows: per task, mean steps per condition and, per helper condition,
    speedup = T_solo / T_helped − 1 averaged over participants (± standard error) with the paired
    t-test of their steps; overall, the same over every (participant, task) pair, and paired
    t-tests of speedup between helper conditions. A failed task counts its ``ticks`` (the limit)."""
    steps: dict[tuple[str, int], dict[str, int]] = defaultdict(dict)
    for row in rows:
        key = (row["participant"], row["task"])
        if row["condition"] in steps[key]:
            raise UserError(f"participant {row['participant']} has task {row['task']} twice under {row['condition']}")
        steps[key][row["condition"]] = row["ticks"]
    conditions = sorted({c for s in steps.values() for c in s}, key=lambda c: (c != SOLO, c))
    helpers = [c for c in conditions if c != SOLO]
    if SOLO not in conditions or not helpers:
        raise UserError("the logs need both solo and helped tasks to compute a speedup")
    tasks = sorted({task for _, task in steps})
    per_task = []
    for task in tasks:
        here = {p: s for (p, t), s in steps.items() if t == task}
        row: dict = {"task": task, "steps": {}, "speedup": {}}
        for c in conditions:
            values = [s[c] for s in here.values() if c in s]
            row["steps"][c] = float(np.mean(values)) if values else None
        for h in helpers:
            pairs = [(s[SOLO], s[h]) for s in here.values() if SOLO in s and h in s]
            row["speedup"][h] = _speedup(pairs)
        per_task.append(row)
    overall = {}
    for h in helpers:
        pairs = [(s[SOLO], s[h]) for s in steps.values() if SOLO in s and h in s]
        overall[h] = _speedup(pairs)
    between = []
    for i, h1 in enumerate(helpers):
        for h2 in helpers[i + 1 :]:
            both = [s for s in steps.values() if SOLO in s and h1 in s and h2 in s]
            s1 = [s[SOLO] / s[h1] - 1 for s in both]
            s2 = [s[SOLO] / s[h2] - 1 for s in both]
            between.append({"a": h1, "b": h2, "n": len(both), "p_speedup": paired_t(s1, s2)})
    participants = len({p for p, _ in steps})
    return {
        "conditions": conditions,
        "participants": participants,
        "tasks": per_task,
        "overall": overall,
        "between": between,
    }


def _speedup(pairs: list[tuple[int, int]]) -> dict:
    """Mean speedup ± standard error over (T_solo, T_helped) pairs and the paired t-test of steps."""
    if not pairs:
        return {"n": 0, "mean": None, "stderr": None, "p_steps": None}
    speedups = [solo / helped - 1 for solo, helped in pairs]
    solo, helped = zip(*pairs)
    return {
        "n": len(pairs),
        "mean": float(np.mean(speedups)),
        "stderr": stderr(speedups),
        "p_steps": paired_t(solo, helped),
    }


def study_table(analysis: dict) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of paper Table 3: mean steps per condition, speedup (%) ± s.e. per helper."""
    conditions = analysis["conditions"]
    helpers = [c for c in conditions if c != SOLO]
    header = ["task", *[f"steps {c}" for c in conditions], *[f"speedup {h} (%)" for h in helpers]]
    header += [f"p {h}" for h in helpers]

    def pct(s: dict) -> str:
        return "-" if s["mean"] is None else f"{100 * s['mean']:+.1f} ± {100 * s['stderr']:.1f} (n={s['n']})"

    def p(s: dict) -> str:
        return "-" if s["p_steps"] is None else f"{s['p_steps']:.3g}"

    rows = []
    for task in analysis["tasks"]:
        cells = ["-" if task["steps"][c] is None else f"{task['steps'][c]:.1f}" for c in conditions]
        rows.append([str(task["task"]), *cells, *[pct(task["speedup"][h]) for h in helpers]])
        rows[-1] += [p(task["speedup"][h]) for h in helpers]
    overall = analysis["overall"]
    rows.append(["all", *["" for _ in conditions], *[pct(overall[h]) for h in helpers]])
    rows[-1] += [p(overall[h]) for h in helpers]
    return header, rows
