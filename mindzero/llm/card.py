"""A trained model's card: how it was trained to be asked, written beside its weights.

A model trained on one prompt style answers at chance in another, so every model folder the
trainers write (``final/`` and each ``checkpoint-N/``) carries ``mindzero_model.json`` with its
domain, task, prompt style, particle count and completion budget, and every evaluator takes those as
its defaults (:meth:`ModelCard.settle`). Models without a card (SmolLM2, served models) keep the evaluator's own
defaults.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from mindzero.core.errors import UserError
from mindzero.core.results import atomic_write_text

#: The card's file name inside a model folder.
CARD_FILE = "mindzero_model.json"


@dataclass(frozen=True)
class ModelCard:
    """How a model was trained to be asked (see the module docstring)."""

    domain: str
    task: str
    prompt_style: str
    n_particles: int
    trainer: str  # ssrl | format-sft
    #: Completion tokens the model was trained to answer in (a card written before it was recorded: None).
    max_new_tokens: int | None = None

    def write(self, folder: str | Path) -> None:
        atomic_write_text(Path(folder) / CARD_FILE, json.dumps(asdict(self), indent=2, sort_keys=True) + "\n")

    @classmethod
    def read(cls, model: str | None) -> ModelCard | None:
        """The card of a local model folder, or None (no folder, no card, a packaged or served model)."""
        if not model or ":" in model:
            return None
        path = Path(model) / CARD_FILE
        if not path.is_file():
            return None
        try:
            return cls(**json.loads(path.read_text()))
        except (json.JSONDecodeError, TypeError, UnicodeDecodeError) as err:
            raise UserError(f"{path}: not a model card ({str(err)[:120]}); delete it to use the defaults") from None

    def settle(self, name: str, given: object, recorded: object, force: bool) -> object:
        """The value an evaluator uses for option ``name``: the recorded one unless ``given``; a
        given value that contradicts the record is an error unless ``force``."""
        if given is None or given == recorded or force:
            return recorded if given is None else given
        flag = "--" + name.replace("_", "-")
        raise UserError(
            f"{flag} {given} contradicts the model, trained with {flag} {recorded} ({CARD_FILE}); "
            f"drop the flag, or add --force-model-options to evaluate it that way anyway"
        )
