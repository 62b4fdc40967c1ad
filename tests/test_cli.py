"""Command areas register themselves: every module of ``mindzero.commands`` that defines
``register`` is an area of ``mindzero`` (sorted by name), and a new one needs no edit to cli.py."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest

from mindzero import cli, commands


def area_choices(parser: argparse.ArgumentParser) -> list[str]:
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(action.choices)


def test_every_module_with_register_is_an_area() -> None:
    folder = Path(commands.__file__).parent
    expected = sorted(p.stem for p in folder.glob("*.py") if "\ndef register(" in p.read_text(encoding="utf-8"))
    assert [m.__name__.rsplit(".", 1)[1] for m in cli.area_modules()] == expected
    assert {"gridworld", "household", "stories", "train", "serve", "report", "reproduce"} <= set(
        area_choices(cli.build_parser())
    )


def test_a_new_commands_module_becomes_an_area(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "zz_probe.py").write_text(
        "def register(areas):\n    areas.add_parser('probe', help='a throwaway area').set_defaults(func=lambda a: 7)\n"
    )
    (tmp_path / "zz_helper.py").write_text("VALUE = 1\n")  # no register: a helper, not an area
    monkeypatch.setattr(commands, "__path__", [*commands.__path__, str(tmp_path)])
    try:
        assert area_choices(cli.build_parser())[-1] == "probe"
        assert cli.main(["probe"]) == 7
    finally:
        sys.modules.pop("mindzero.commands.zz_probe", None)
        sys.modules.pop("mindzero.commands.zz_helper", None)
