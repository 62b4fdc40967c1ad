"""Study mode: counterbalanced plans, atomic logs that a reload continues from, and
`mindzero report study` (paper Table 3) computed from the logs."""

from __future__ import annotations

import json
import math
import threading
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from mindzero.cli import main
from mindzero.core.errors import UserError
from mindzero.web.study import StudyLogs, StudySettings, analyse, read_logs


def test_plans_are_counterbalanced() -> None:
    settings = StudySettings(Path("unused"), tasks=2, conditions=["solo", "exact"])
    assert settings.plan(0) == [(0, "solo"), (1, "solo"), (0, "exact"), (1, "exact")]
    assert settings.plan(1) == [(1, "exact"), (0, "exact"), (1, "solo"), (0, "solo")]
    three = StudySettings(Path("unused"), tasks=3, conditions=["solo", "exact", "oracle"])
    firsts = [three.plan(k)[0] for k in range(3)]
    assert firsts == [(0, "solo"), (1, "exact"), (2, "oracle")]  # each condition and task leads once
    for k in range(6):
        assert sorted(three.plan(k)) == sorted((t, c) for t in range(3) for c in three.conditions)


def run_study(client, participant: str, moves: int = 2) -> list[dict]:
    """A participant who plays ``moves`` ticks of stay per task (the tick limit ends each task)."""
    answers = [client.post("/api/study", json={"participant": participant}).json()]
    while not answers[-1].get("finished"):
        sid = answers[-1]["session"]
        for _ in range(moves):
            answers[-1] = client.post(f"/api/play/{sid}/act", json={"action": "stay"}).json()
        answers.append(client.post(f"/api/study/{sid}/next").json())
    return answers


def test_a_study_through_the_api_logs_every_task(client_for, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    client = client_for(study_logs=str(logs), study_tasks=2, study_conditions=["solo", "oracle"], max_steps=2)
    first = client.post("/api/study", json={"participant": "p0"}).json()
    assert first["study"] == {"participant": "p0", "step": 0, "steps": 4, "task": 0}
    assert first["condition"] == "solo" and first["posterior"] is None
    early = client.post(f"/api/study/{first['session']}/next")
    assert early.status_code == 409 and "finish the current task" in early.json()["error"]
    client.post(f"/api/play/{first['session']}/act", json={"action": "stay"})
    # A reload mid-task restarts that task; the log holds only the start row so far.
    again = client.post("/api/study", json={"participant": "p0"}).json()
    assert again["study"]["step"] == 0 and again["t"] == 0
    answers = run_study(client, "p0")
    assert answers[-1] == {"finished": True, "participant": "p0"}
    assert [a["condition"] for a in answers[:-1]] == ["solo", "solo", "oracle", "oracle"]
    p1 = run_study(client, "p1")
    assert [a["condition"] for a in p1[:-1]] == ["oracle", "oracle", "solo", "solo"]  # counterbalanced
    assert all(a["posterior"] is None for a in p1[:-1])  # blind by default
    rows = [json.loads(line) for line in (logs / "p1.jsonl").read_text().splitlines()]
    assert [r["event"] for r in rows] == ["start", "task", "task", "task", "task"]
    assert rows[0]["order"] == 1 and rows[0]["plan"] == [[1, "oracle"], [0, "oracle"], [1, "solo"], [0, "solo"]]
    assert [(r["task"], r["condition"], r["ticks"], r["actions"]) for r in rows[1:3]] == [
        (1, "oracle", 2, ["stay", "stay"]),
        (0, "oracle", 2, ["stay", "stay"]),
    ]
    assert client.post("/api/study", json={"participant": "p1"}).json()["finished"] is True
    bad = client.post("/api/study", json={"participant": "../etc"})
    assert bad.status_code == 400 and "participant id" in bad.json()["error"]
    assert len(read_logs(logs)) == 8


def test_concurrent_appends_keep_every_row_whole(tmp_path: Path) -> None:
    logs = StudyLogs(StudySettings(tmp_path, tasks=1))
    logs.join("p")
    record = {"condition": "solo", "ticks": 3, "success": True, "actions": ["up"] * 50}
    threads = [threading.Thread(target=logs.log_task, args=("p", 0, k, 0, record)) for k in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rows = [json.loads(line) for line in (tmp_path / "p.jsonl").read_text().splitlines()]
    assert len(rows) == 41 and sorted(r["step"] for r in rows[1:]) == list(range(40))
    assert [p.name for p in tmp_path.iterdir()] == ["p.jsonl"]  # no temporary file left behind


def task_rows(table: dict[str, dict[int, dict[str, int]]]) -> list[dict]:
    return [
        {"participant": p, "task": t, "condition": c, "ticks": n, "success": True}
        for p, tasks in table.items()
        for t, conds in tasks.items()
        for c, n in conds.items()
    ]


def test_analysis_matches_a_hand_computation() -> None:
    table = {
        "a": {0: {"solo": 20, "exact": 10, "oracle": 10}, 1: {"solo": 30, "exact": 30, "oracle": 15}},
        "b": {0: {"solo": 24, "exact": 16, "oracle": 14}, 1: {"solo": 36, "exact": 24, "oracle": 18}},
        "c": {0: {"solo": 18, "exact": 18, "oracle": 8}},
    }
    result = analyse(task_rows(table))
    assert result["conditions"] == ["solo", "exact", "oracle"] and result["participants"] == 3
    task0 = result["tasks"][0]
    assert task0["steps"] == {"solo": pytest.approx(62 / 3), "exact": pytest.approx(44 / 3), "oracle": 32 / 3}
    s = np.array([20 / 10, 24 / 16, 18 / 18]) - 1
    assert task0["speedup"]["exact"]["mean"] == pytest.approx(s.mean())
    assert task0["speedup"]["exact"]["stderr"] == pytest.approx(s.std(ddof=1) / math.sqrt(3))
    d = np.array([20 - 10, 24 - 16, 18 - 18])
    t_stat = d.mean() / (d.std(ddof=1) / math.sqrt(3))
    assert task0["speedup"]["exact"]["p_steps"] == pytest.approx(2 * stats.t.sf(abs(t_stat), df=2))
    oracle = task0["speedup"]["oracle"]  # every participant saved 10 steps: the t-test is undefined
    assert oracle["mean"] == pytest.approx(np.mean([1, 10 / 14, 10 / 8])) and oracle["p_steps"] is None
    overall = result["overall"]["exact"]
    assert overall["n"] == 5 and overall["mean"] == pytest.approx(np.mean([1, 0.5, 0, 0, 0.5]))
    (between,) = result["between"]
    assert (between["a"], between["b"], between["n"]) == ("exact", "oracle", 5)


def test_analysis_refuses_logs_it_cannot_use() -> None:
    with pytest.raises(UserError, match="both solo and helped"):
        analyse(task_rows({"a": {0: {"solo": 5}}}))
    twice = task_rows({"a": {0: {"solo": 5}}}) * 2
    with pytest.raises(UserError, match="task 0 twice under solo"):
        analyse(twice)


def test_report_study_prints_table_3(tmp_path: Path, capsys) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    table = {p: {0: {"solo": 20 + k, "exact": 10 + k}, 1: {"solo": 30, "exact": 20 + k}} for k, p in enumerate("ab")}
    table |= {p: {0: {"solo": 21 + k, "exact": 12}, 1: {"solo": 31, "exact": 26 - k}} for k, p in enumerate("cd")}
    (logs / "all.jsonl").write_text("".join(json.dumps({"event": "task", **r}) + "\n" for r in task_rows(table)))
    assert main(["report", "study", "--logs", str(logs), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "study: 4 participants, conditions solo, exact" in out
    expected = analyse(read_logs(logs))
    words = [line.split() for line in out.splitlines()]
    lines = {w[0]: " ".join(w) for w in words if w and w[0] in ("0", "1", "all")}
    mean, se = expected["tasks"][1]["speedup"]["exact"]["mean"], expected["tasks"][1]["speedup"]["exact"]["stderr"]
    assert f"{100 * mean:+.1f} ± {100 * se:.1f} (n=4)" in lines["1"] and se > 0
    assert f"{expected['overall']['exact']['p_steps']:.3g}" in lines["all"]
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["task"] == "report/study" and results["metrics"]["overall"]["exact"]["n"] == 8


def test_report_study_names_a_bad_log_line(tmp_path: Path, capsys) -> None:
    (tmp_path / "p.jsonl").write_text('{"event": "task", "participant": "p", "task": "one"}\n')
    assert main(["report", "study", "--logs", str(tmp_path)]) == 2
    assert f"{tmp_path / 'p.jsonl'}:1: field 'task' must be int" in capsys.readouterr().err
