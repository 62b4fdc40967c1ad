"""Which rewrites the household reader reads differently from an earlier commit: per robustness set,
the rows that stopped (or started) agreeing with their source question's reading, and the rows that
became unreadable or answerable. Row ids only, never their text: held-out sets stay held out.

    python benchmarks/reader_drift.py --base e559383 [--mmtom ../shared/data/mmtom_qa/questions.jsonl]

Reads every set with this checkout and with ``--base`` (a git worktree in a temporary folder, run in
its own process). A row "agrees" when its scene, story and query equal its source's, each read by
the same code; "blocked" when it cannot be answered (an error, or an unread sentence the answer
depends on)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = Path("benchmarks/data/mmtom_robust")


def readings(path: Path) -> dict[str, object]:
    """Per row id: [scene places, story, query] and whether it is blocked, or "error"."""
    from mindzero.core.errors import UserError
    from mindzero.domains.household.mmtom.reader import read_question

    out: dict[str, object] = {}
    for n, line in enumerate(path.read_text().splitlines()):
        row = json.loads(line)
        try:
            reading = read_question(row["question"])
        except UserError:
            out[row.get("id", str(n))] = "error"
            continue
        state = reading.to_json()
        state["story"].pop("person")
        blocked = bool(reading.blockers())
        out[row.get("id", str(n))] = [state["scene"]["places"], state["story"], state["query"], blocked]
    return out


def read_all(root: Path, mmtom: Path, sets: list[Path]) -> dict:
    """{path: readings} of MMToM-QA and every set, computed by the code under ``root`` (its own
    process, ``root`` first on the path)."""
    script = (
        "import json, runpy, sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); "
        "readings = runpy.run_path(sys.argv[2])['readings']; "
        "print(json.dumps({p: readings(Path(p)) for p in sys.argv[3:]}))"
    )
    argv = [sys.executable, "-c", script, str(root), __file__, str(mmtom), *map(str, sets)]
    done = subprocess.run(argv, env={**os.environ, "OMP_NUM_THREADS": "1"}, capture_output=True, text=True,
                          check=True, cwd=root)  # fmt: skip
    return json.loads(done.stdout)


def agrees(state, sources: dict, source: int) -> bool:
    src = sources.get(str(source))
    return isinstance(state, list) and isinstance(src, list) and state[:3] == src[:3]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the earlier commit (any git revision)")
    parser.add_argument("--mmtom", default="../shared/data/mmtom_qa/questions.jsonl", help="MMToM-QA questions")
    args = parser.parse_args()
    mmtom = Path(args.mmtom).resolve()
    sets = sorted((ROOT / DATA).glob("*.jsonl"))
    sets = [p for p in sets if "source" in json.loads(p.read_text().splitlines()[0])]
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(base), args.base], cwd=ROOT, check=True)
        try:
            old = read_all(base, mmtom, sets)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, check=True)
    new = read_all(ROOT, mmtom, sets)
    src_old, src_new = old.pop(str(mmtom)), new.pop(str(mmtom))
    changed = [k for k in src_old if src_old[k] != src_new[k]]
    print(f"MMToM-QA sources read differently: {len(changed)} {changed}")
    print(f"{'set':28} {'rows':>5}  lost agreement / gained  |  newly blocked / unblocked")
    for path in sets:
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        a, b = old[str(path)], new[str(path)]
        lost = [r["id"] for r in rows if agrees(a[r["id"]], src_old, r["source"])
                and not agrees(b[r["id"]], src_new, r["source"])]  # fmt: skip
        gained = [r["id"] for r in rows if agrees(b[r["id"]], src_new, r["source"])
                  and not agrees(a[r["id"]], src_old, r["source"])]  # fmt: skip
        blocked = [k for k in a if _blocked(b[k]) and not _blocked(a[k])]
        freed = [k for k in a if _blocked(a[k]) and not _blocked(b[k])]
        print(f"{path.stem:28} {len(rows):>5}  {lost or 0} / {len(gained)}  |  {blocked or 0} / {len(freed)}")


def _blocked(state) -> bool:
    return state == "error" or state[3]


if __name__ == "__main__":
    main()
