"""``mindzero report``: ``paper`` writes the papers' tables and figures from results folders;
``study`` computes paper Table 3 from the interaction logs of ``mindzero serve --study-logs``."""

from __future__ import annotations

import argparse
from pathlib import Path

from mindzero.core.outputs import add_output_flags, claim_out
from mindzero.core.results import atomic_write_text, write_results
from mindzero.report.paper import build_report
from mindzero.report.tables import format_table
from mindzero.web.study import analyse, read_logs, study_table


def register(areas: argparse._SubParsersAction) -> None:
    parser = areas.add_parser("report", help="reports: the papers' tables and figures, study logs")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    paper = verbs.add_parser(
        "paper",
        help="Markdown + PNG of every paper table and figure that the given results folders cover",
        description="Read every results.json under RESULTS (any depth) and write OUT/report.md: per paper "
        "artefact (MindZero Tables 1a/1b, 2, 4a, Fig. 5; DEL-ToM Table 4, Fig. 3; Table 3) our rows with "
        "model and machine beside the paper's published numbers; what no run covers is listed as missing.",
    )
    paper.add_argument("results", nargs="+", help="folders holding results (e.g. a reproduce --out)")
    paper.add_argument("--out", required=True, help="folder for report.md and its figures")
    add_output_flags(paper, resume=False)
    paper.set_defaults(func=cmd_paper)
    study = verbs.add_parser(
        "study",
        help="per-task steps and speedup ± s.e. with paired t-tests (paper Table 3)",
        description="Read every participant log (*.jsonl) of a study folder; per task, mean steps per "
        "condition and speedup = T_solo / T_helped - 1 over participants with its standard error and the "
        "paired t-test of steps; then the same over all tasks, and paired t-tests between helpers.",
    )
    study.add_argument("--logs", required=True, help="the folder given to `mindzero serve --study-logs`")
    study.add_argument("--out", default=None, help="also write OUT/results.json and OUT/samples.jsonl")
    add_output_flags(study, resume=False)
    study.set_defaults(func=cmd_study)


def cmd_study(args: argparse.Namespace) -> int:
    config = {"logs": args.logs}
    folder = claim_out(args.out, "report study", config, args.overwrite) if args.out else None
    rows = read_logs(args.logs)
    analysis = analyse(rows)
    header, table = study_table(analysis)
    print(f"study: {analysis['participants']} participants, conditions {', '.join(analysis['conditions'])}")
    print(format_table(header, table))
    for test in analysis["between"]:
        p = "-" if test["p_speedup"] is None else f"{test['p_speedup']:.3g}"
        print(f"paired t-test of speedup, {test['a']} vs {test['b']}: p = {p} (n={test['n']})")
    if folder is not None:
        samples = [{k: r[k] for k in ("participant", "task", "condition", "ticks", "success")} for r in rows]
        with folder.run():
            path = write_results(folder.path, "report/study", config, analysis, samples)
        print(f"results: {path}")
    return 0


def cmd_paper(args: argparse.Namespace) -> int:
    config = {"results": [str(Path(r)) for r in args.results]}
    folder = claim_out(args.out, "report paper", config, args.overwrite)
    with folder.run():
        report = build_report(args.results, folder.path)
        atomic_write_text(folder.path / "report.md", report.markdown)
    for line in report.unreadable:
        print(f"skipped: {line}")
    for line in report.missing:
        print(f"missing: {line}")
    covered = len(report.figures)
    print(f"report: {folder.path / 'report.md'} ({covered} figures, {len(report.missing)} artefacts missing)")
    return 0
