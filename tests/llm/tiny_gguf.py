"""Write a Hugging Face Llama folder as a GGUF file, the way llama.cpp's converter lays it out.

Used to test the GGUF → safetensors conversion in seconds on the tiny model instead of the real
SmolLM2 file (tensors stay F32; transformers still loads any GGUF as a quantised model).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def _permute(w: np.ndarray, heads: int) -> np.ndarray:
    """llama.cpp's rotary layout for q/k projections (transformers undoes it on load)."""
    return w.reshape(heads, 2, w.shape[0] // heads // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def write_tiny_gguf(model_dir: Path, out: Path) -> Path:
    import gguf
    from safetensors.numpy import load_file

    config = json.loads((model_dir / "config.json").read_text())
    tok = json.loads((model_dir / "tokenizer.json").read_text())
    template = (model_dir / "chat_template.jinja").read_text()
    vocab: dict[str, int] = dict(tok["model"]["vocab"])
    special = {t["content"]: t["id"] for t in tok["added_tokens"]}
    vocab.update(special)
    tokens = [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    merges = [m if isinstance(m, str) else " ".join(m) for m in tok["model"]["merges"]]

    writer = gguf.GGUFWriter(str(out), "llama")
    writer.add_name("tiny llama")
    writer.add_block_count(config["num_hidden_layers"])
    writer.add_context_length(config["max_position_embeddings"])
    writer.add_embedding_length(config["hidden_size"])
    writer.add_feed_forward_length(config["intermediate_size"])
    writer.add_head_count(config["num_attention_heads"])
    writer.add_head_count_kv(config["num_key_value_heads"])
    writer.add_rope_dimension_count(config["hidden_size"] // config["num_attention_heads"])
    writer.add_rope_freq_base(config["rope_parameters"]["rope_theta"])
    writer.add_layer_norm_rms_eps(config["rms_norm_eps"])
    writer.add_vocab_size(len(tokens))
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("smollm")
    writer.add_token_list(tokens)
    writer.add_token_types([3 if t in special else 1 for t in tokens])
    writer.add_token_merges(merges)
    writer.add_bos_token_id(config["bos_token_id"])
    writer.add_eos_token_id(config["eos_token_id"])
    writer.add_pad_token_id(config["pad_token_id"])
    writer.add_add_bos_token(False)
    writer.add_chat_template(template)

    names = {
        "self_attn.q_proj": "attn_q",
        "self_attn.k_proj": "attn_k",
        "self_attn.v_proj": "attn_v",
        "self_attn.o_proj": "attn_output",
        "mlp.gate_proj": "ffn_gate",
        "mlp.up_proj": "ffn_up",
        "mlp.down_proj": "ffn_down",
        "input_layernorm": "attn_norm",
        "post_attention_layernorm": "ffn_norm",
    }
    for name, w in load_file(str(model_dir / "model.safetensors")).items():
        w = w.astype(np.float32)
        if name == "model.embed_tokens.weight":
            writer.add_tensor("token_embd.weight", w)
        elif name == "model.norm.weight":
            writer.add_tensor("output_norm.weight", w)
        elif name == "lm_head.weight":
            writer.add_tensor("output.weight", w)
        else:
            parts = name.split(".")  # model.layers.<i>.<module>.weight
            layer, module = parts[2], ".".join(parts[3:-1])
            if module == "self_attn.q_proj":
                w = _permute(w, config["num_attention_heads"])
            elif module == "self_attn.k_proj":
                w = _permute(w, config["num_key_value_heads"])
            writer.add_tensor(f"blk.{layer}.{names[module]}.weight", w)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return out
