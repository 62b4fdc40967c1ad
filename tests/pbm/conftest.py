"""Fixtures for the PBM and belief-search tests: generated questions and a tiny local model."""

from __future__ import annotations

from pathlib import Path

import pytest

from mindzero.pbm.data import BeliefQuestion, questions_from_stories
from mindzero.stories.generator import generate_stories


@pytest.fixture(scope="session")
def questions() -> list[BeliefQuestion]:
    """100 one-chapter questions (20 per order), deterministic."""
    return list(questions_from_stories(generate_stories(20, seed=7, lengths=(1,))))


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("transformers")
    from mindzero.llm.tiny import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model", seed=0, hidden_size=64)
