"""A trained model folder records how it was trained to be asked, and evaluators use it."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("trl")
sys.path.insert(0, str(Path(__file__).parent))

from mindzero.cli import main  # noqa: E402
from mindzero.commands.llm_options import AssistLLMOptions, LLMOptions  # noqa: E402
from mindzero.core.errors import UserError  # noqa: E402
from mindzero.domains.gridworld.qa import PROMPT_STYLES  # noqa: E402
from mindzero.llm.card import CARD_FILE, ModelCard  # noqa: E402
from mindzero.train.base import ScratchSpec  # noqa: E402
from mindzero.train.ssrl import SSRLConfig, train_ssrl  # noqa: E402


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("card") / "run"
    base = SSRLConfig()
    config = replace(
        base, preset="cpu-tiny", task="qa", out=str(out), scratch=ScratchSpec(hidden=32, layers=1, heads=2, vocab=400),
        data=replace(base.data, episodes=4), warm_start=replace(base.warm_start, steps=2), max_steps=2,
        prompts_per_step=2, num_generations=2, eval_every=0, save_steps=1,
    )  # fmt: skip
    return Path(train_ssrl(config)["final_model"])


def test_every_saved_model_folder_carries_its_card(trained: Path) -> None:
    card = json.loads((trained / CARD_FILE).read_text())
    assert card == {"domain": "gridworld", "task": "qa", "prompt_style": "anchored", "n_particles": 1,
                    "trainer": "ssrl", "max_new_tokens": 8}  # fmt: skip
    checkpoints = sorted(trained.parent.glob("checkpoint-*"))
    assert checkpoints and all((c / CARD_FILE).is_file() for c in checkpoints)
    assert (trained.parent / "format" / "final" / CARD_FILE).is_file()  # the warm start's model too


def test_evaluators_default_to_the_card_and_refuse_a_contradiction(trained: Path) -> None:
    assert LLMOptions(model=str(trained)).llm_settings(PROMPT_STYLES).prompt_style == "anchored"
    with pytest.raises(UserError, match="--prompt-style compact contradicts the model, trained with --prompt-style "
                                        "anchored"):  # fmt: skip
        LLMOptions(model=str(trained), prompt_style="compact").llm_settings(PROMPT_STYLES)
    forced = LLMOptions(model=str(trained), prompt_style="compact", force_model_options=True)
    assert forced.llm_settings(PROMPT_STYLES).prompt_style == "compact"
    assert AssistLLMOptions(model=str(trained)).assist_settings(PROMPT_STYLES).n_particles == 1
    assert LLMOptions(model=str(trained)).llm_settings(PROMPT_STYLES).max_new_tokens == 8  # the trained budget
    assert LLMOptions(model=str(trained), max_new_tokens=32).llm_settings(PROMPT_STYLES).max_new_tokens == 32
    assert LLMOptions(model="smollm2-135m").card() is None  # no card: the evaluator's defaults


def test_qa_eval_names_both_styles_in_one_line(trained: Path, tmp_path: Path, capsys) -> None:
    data = tmp_path / "d"
    assert main(["gridworld", "qa-data", "--out", str(data), "--train-episodes", "1", "--test-episodes", "3",
                 "--images", "false"]) == 0  # fmt: skip
    argv = ["gridworld", "qa-eval", "--data", str(data / "test.jsonl"), "--reasoner", "llm", "--model", str(trained),
            "--out", str(tmp_path / "e")]  # fmt: skip
    capsys.readouterr()
    assert main([*argv, "--prompt-style", "compact"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "compact" in err and "anchored" in err
    assert main([*argv, "--limit", "3"]) == 0  # no flag: the card's style and budget
    settings = json.loads((tmp_path / "e" / "results.json").read_text())["config"]
    assert settings["prompt_style"] == "anchored" and settings["max_new_tokens"] == 8, settings
    ModelCard.read(str(trained))  # still readable after evaluation
