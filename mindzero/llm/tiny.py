"""Small randomly initialised Llamas with a real tokenizer and chat template, built offline.

:func:`build_scratch_model` is the ``cpu-tiny`` SSRL preset's starting point: a few million
parameters and a tokenizer trained on the task's own prompts and answers.

Tests of generation, scoring and training need a real transformers model but not a good one:
this one builds in about a second, needs no hub access, and loads like any Hugging Face folder
(``AutoModelForCausalLM.from_pretrained(path)``, ``load_backend(f"hf:{path}")``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
"""ChatML, the template of SmolLM2-Instruct, so prompts look like the real model's."""

#: Words and numbers a scratch tokenizer keeps whole, each with the space before it if any: letter
#: runs that are not JSON keys (a key is followed by ``":``, possibly after digits as in
#: ``object1``), decimals, signed integers.
ATOMS = r' ?(?<![A-Za-z])[A-Za-z]+(?![A-Za-z])(?!\d*":)| ?\d+\.\d+| ?-?\d+(?!\d*":)'

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|pad|>"]

_CORPUS = [
    "The agent walks to the red triangle and then to the blue square.",
    "Which two objects is the agent going to? Answer with a single letter: A or B.",
    '{"particles": [{"object1": {"color": "red", "shape": "circle"}, '
    '"object2": {"color": "green", "shape": "square"}, "p": 0.75}]}',
    "Sally puts the ball in the basket. Anne moves the ball to the box. Where will Sally look?",
    "up down left right stay pick 0 1 2 3 4 5 6 7 8 9 yes no true false",
    "You are a helpful assistant. Think step by step, then answer in JSON.",
]


def build_tiny_model(
    path: str | os.PathLike[str],
    *,
    seed: int = 0,
    vocab_size: int = 400,
    hidden_size: int = 32,
    num_hidden_layers: int = 2,
) -> Path:
    """Save a tiny random Llama (about 30 k parameters) plus tokenizer to ``path``; return it.

    The tokenizer is a byte-level BPE trained on a few sentences of this project's domains, so any
    text encodes; ``<|im_end|>`` is its end-of-sequence token, as in SmolLM2-Instruct. The same
    ``seed`` gives the same weights.
    """
    return build_scratch_model(
        path,
        _CORPUS,
        seed=seed,
        vocab_size=vocab_size,
        hidden_size=hidden_size,
        intermediate_size=2 * hidden_size,
        num_hidden_layers=num_hidden_layers,
        num_attention_heads=2,
        word_split=True,
    )


def build_scratch_model(
    path: str | os.PathLike[str],
    texts: Iterable[str],
    *,
    seed: int = 0,
    vocab_size: int = 1024,
    hidden_size: int = 128,
    intermediate_size: int = 512,
    num_hidden_layers: int = 4,
    num_attention_heads: int = 4,
    max_positions: int = 1024,
    word_split: bool = False,
    atoms: str = ATOMS,
    whole: Sequence[str] = (),
    number_features: int = 0,
) -> Path:
    """Save a randomly initialised Llama and a byte-level BPE tokenizer trained on ``texts`` to
    ``path`` (an ordinary HF folder with the ChatML template); return it.

    Byte-level BPE encodes any text and decodes it back exactly. Unless ``word_split`` (GPT-2's
    split into words and punctuation runs), the text is first cut into :data:`ATOMS` — value words
    and numbers, each kept whole, so "purple" is the same token in a prompt and in an answer — and
    the glue between them, whose recurring runs (``"},"object2":{"color":"``) merge into single
    tokens: a goal particle is about 10 tokens. The same ``texts`` and ``seed`` give the same bytes.
    ``atoms`` replaces that regex (e.g. a task's own value words); each string of ``whole`` (e.g. a
    fixed instruction block) becomes one token wherever it occurs. ``number_features`` > 0 gives
    every integer token its value in that many embedding dimensions (:func:`number_embedding`).
    """
    import torch
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    out = Path(path)
    out.mkdir(parents=True, exist_ok=True)

    bpe = Tokenizer(models.BPE())
    if word_split:
        bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    else:  # value words and numbers stay whole; the glue between them merges into single tokens
        split = pre_tokenizers.Split(Regex(atoms), behavior="isolated")
        bpe.pre_tokenizer = pre_tokenizers.Sequence(
            [split, pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
        )
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(texts, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        bos_token="<|im_start|>",
        eos_token="<|im_end|>",
        pad_token="<|pad|>",
        unk_token="<|endoftext|>",
    )
    tokenizer.add_tokens(list(whole))
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.save_pretrained(out)

    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=intermediate_size,
        num_hidden_layers=num_hidden_layers,
        num_attention_heads=num_attention_heads,
        num_key_value_heads=num_attention_heads,
        max_position_embeddings=max_positions,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = LlamaForCausalLM(config)
    if number_features:
        number_embedding(model.get_input_embeddings().weight, tokenizer, number_features)
    model.generation_config = GenerationConfig(
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    model.save_pretrained(out)
    return out


NUMBER = re.compile(r"-?\d+")
#: Size of the value code next to the other dimensions' random init (std 0.02).
NUMBER_AMPLITUDE = 0.05


def number_embedding(weight, tokenizer, features: int) -> None:
    """Write each integer token's value into the first ``features`` embedding dimensions (zero
    there for every other token): ``tanh((v - t_j) / w)`` for thresholds t_j spread over the
    vocabulary's range of integers, so "which of two numbers is larger" is linear in the
    embeddings from the first step instead of being learned from the reward token by token. A
    scratch model's number tokens are otherwise unrelated vectors, and comparing two distances
    that differ by 2 was the last thing the ``cpu-tiny`` QA model learned (``docs/ssrl.md``)."""
    import torch

    values = {}
    for token, index in tokenizer.get_vocab().items():
        text = tokenizer.convert_tokens_to_string([token]).strip()
        if NUMBER.fullmatch(text):
            values[index] = int(text)
    if not values:
        return
    low, high = min(values.values()), max(values.values())
    thresholds = torch.linspace(low, high, features + 2)[1:-1]
    width = max((high - low) / (features + 1), 1.0)
    with torch.no_grad():
        weight[:, :features] = 0.0
        index = torch.tensor(list(values))
        value = torch.tensor(list(values.values()), dtype=weight.dtype)
        weight[index, :features] = NUMBER_AMPLITUDE * torch.tanh((value[:, None] - thresholds) / width)
