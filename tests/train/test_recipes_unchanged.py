"""Every training recipe gives the train log (or, where its model is not here, the trainer
arguments and training data) recorded before the trainer redesign (``recipes.py``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("trl")
sys.path.insert(0, str(Path(__file__).parent))

from recipes import RECIPES, RECORD, run, same  # noqa: E402


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_recipe_gives_its_recorded_log(name: str) -> None:
    recorded = json.loads(RECORD.read_text())[name]
    assert same(run(name), recorded), f"{name} changed; if that is meant, re-record with recipes.py --write"
