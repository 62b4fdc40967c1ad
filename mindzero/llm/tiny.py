"""A tiny randomly initialised Llama with a real tokenizer and chat template, built offline.

Tests of generation, scoring and training need a real transformers model but not a good one:
this one builds in about a second, needs no hub access, and loads like any Hugging Face folder
(``AutoModelForCausalLM.from_pretrained(path)``, ``load_backend(f"hf:{path}")``).
"""

from __future__ import annotations

import os
from pathlib import Path

CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
"""ChatML, the template of SmolLM2-Instruct, so prompts look like the real model's."""

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
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    out = Path(path)
    out.mkdir(parents=True, exist_ok=True)

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(_CORPUS, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        bos_token="<|im_start|>",
        eos_token="<|im_end|>",
        pad_token="<|pad|>",
        unk_token="<|endoftext|>",
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.save_pretrained(out)

    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=2 * hidden_size,
        num_hidden_layers=num_hidden_layers,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=1024,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = LlamaForCausalLM(config)
    model.generation_config = GenerationConfig(
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    model.save_pretrained(out)
    return out
