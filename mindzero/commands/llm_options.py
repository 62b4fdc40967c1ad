"""The ``--model``/``--prompt-style``/decoding flags shared by every command that can run an LLM
reasoner (``gridworld``, ``household``, ``serve``), and how they become a backend and settings."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import ClassVar

from mindzero.core.errors import UserError
from mindzero.domains.gridworld.qa import PROMPT_STYLES as GRIDWORLD_STYLES
from mindzero.domains.household.ssrl import PROMPT_STYLES as HOUSEHOLD_STYLES
from mindzero.inference.llm import ANSWER_MODES, LLMSettings
from mindzero.llm import EndpointOptions, load_backend
from mindzero.llm.base import Backend
from mindzero.llm.card import ModelCard
from mindzero.llm.transformers_backend import DTYPES

#: Every domain's prompt styles; a command checks the one given against its domain's own.
ALL_PROMPT_STYLES = tuple(dict.fromkeys((*GRIDWORLD_STYLES, *HOUSEHOLD_STYLES)))


@dataclass(kw_only=True)
class ModelOptions(EndpointOptions):
    """Which model answers and how it decodes."""

    model: str | None = field(
        default=None, metadata={"help": "--reasoner llm: smollm2-135m, a folder, or an hf:/vllm:/openai: spec"}
    )
    dtype: str = field(default="float32", metadata={"help": "weights dtype of local models", "choices": DTYPES})
    temperature: float = field(default=0.0, metadata={"help": "0 = greedy decoding", "ge": 0})
    max_new_tokens: int | None = field(
        default=None,
        metadata={
            "help": "completion token budget; unset: the one a trained model's card records, else the "
            "command's own (64; 16 for questions, 96 for household particles)",
            "ge": 1,
            "le": 32_768,
        },
    )

    def card(self) -> ModelCard | None:
        return ModelCard.read(self.model)

    #: The completion budget of a model without a card; a command that needs fewer or more sets its own.
    default_new_tokens: ClassVar[int] = 64

    def new_tokens(self, card: ModelCard | None) -> int:
        """The completion budget: ``--max-new-tokens``, else ``card``'s (:meth:`card`), else the command's. A
        larger budget than the card's is no contradiction (the model stops by itself), so it needs no confirmation."""
        recorded = card.max_new_tokens if card is not None else None
        return self.max_new_tokens or recorded or self.default_new_tokens

    def require_model(self) -> None:
        if self.model is None:
            raise UserError("--reasoner llm needs --model SPEC (e.g. --model smollm2-135m or a trained OUT/final)")

    def backend(self, batch_size: int | None = None) -> Backend:
        """The backend of ``--model`` (a clear error when it is missing); ``--dtype`` for local models,
        and ``batch_size`` prompts per forward pass for transformers ones."""
        self.require_model()
        kwargs = {} if ":" in self.model else {"dtype": self.dtype}
        if batch_size is not None and not self.model.startswith(("vllm:", "openai:")):
            kwargs["batch_size"] = batch_size
        return load_backend(self.model, endpoint=self, **kwargs)


@dataclass(kw_only=True)
class BatchOptions:
    """``--batch-size`` of the evaluations that send many decisions to a model at once."""

    batch_size: int = field(
        default=16,
        metadata={
            "help": "decisions sent to the model together (llm): assistance episodes run in lock-step, "
            "questions per call; the answers do not depend on it",
            "ge": 1,
            "le": 1_024,
        },
    )


@dataclass(kw_only=True)
class LLMOptions(ModelOptions):
    """Options of ``--reasoner llm`` that prompts with a domain's own prompt styles."""

    prompt_style: str | None = field(
        default=None,
        metadata={
            "help": "compact (short, CPU) | full (paper transcript) | relative or anchored (gridworld, scratch "
            "models) | facts (household questions, scratch models); unset: the one a trained model's card "
            "records, else compact",
            "choices": ALL_PROMPT_STYLES,
        },
    )
    force_model_options: bool = field(
        default=False,
        metadata={"help": "evaluate with a --prompt-style / --n-particles that contradicts the model's card"},
    )

    def llm_settings(self, prompt_styles: tuple[str, ...], n_particles: int = 1, samples: int = 1) -> LLMSettings:
        """The reasoner's settings, once ``--model`` and ``--prompt-style`` are known to fit the domain;
        unset options come from the model's card (:class:`~mindzero.llm.card.ModelCard`)."""
        self.require_model()
        card = self.card()
        style = self.prompt_style or "compact"
        if card is not None:
            style = card.settle("prompt_style", self.prompt_style, card.prompt_style, self.force_model_options)
        if style not in prompt_styles:
            raise UserError(f"--prompt-style {style} is not one of this domain's: {', '.join(prompt_styles)}")
        return LLMSettings(style, n_particles, self.temperature, self.new_tokens(card), samples)

    def settled(self, settings: LLMSettings) -> LLMOptions:
        """These options with the values ``settings`` settled (some from the model's card), so that the
        run's record says how the model was asked."""
        return dataclasses.replace(self, prompt_style=settings.prompt_style, max_new_tokens=settings.max_new_tokens)


@dataclass(kw_only=True)
class AssistLLMOptions(LLMOptions):
    """Options of ``--reasoner llm`` in the assistance commands: also the particle count."""

    n_particles: int | None = field(
        default=None,
        metadata={
            "help": "goal particles requested per decision (llm; unset: the model card's, else 1)",
            "ge": 1,
            "le": 256,
        },
    )
    samples: int = field(
        default=1,
        metadata={
            "help": "completions sampled per decision at --temperature (> 0), their particles averaged (llm)",
            "ge": 1,
            "le": 256,
        },
    )

    answer_mode: str = field(
        default="generate",
        metadata={
            "help": "generate (sample particles, parsed) | score (one particle: the model's probability of "
            "naming each goal, no sampling or parsing; needs --n-particles 1) (llm)",
            "choices": ANSWER_MODES,
        },
    )

    def assist_settings(self, prompt_styles: tuple[str, ...]) -> LLMSettings:
        card = self.card()
        n = self.n_particles or 1
        if card is not None:
            n = card.settle("n_particles", self.n_particles, card.n_particles, self.force_model_options)
        settings = self.llm_settings(prompt_styles, n, self.samples)
        return dataclasses.replace(settings, answer_mode=self.answer_mode)

    def settled(self, settings: LLMSettings) -> AssistLLMOptions:
        return dataclasses.replace(super().settled(settings), n_particles=settings.n_particles)
