#!/usr/bin/env bash
# The prepared GPU check (docs/gpu.md): one command, at most 8 minutes, on a bare GPU machine without
# network, given the project and a folder of the wheels that machine lacks. It runs the tests marked
# `gpu`, the cpu-tiny assist recipe for 20 steps in fp32 and in bf16, a ~34 M-parameter scratch model
# in bf16 for 5 steps and one assistance evaluation with the llm reasoner, and prints per phase the
# seconds, seconds per step, completion tokens/s, peak GPU memory and the seconds of each phase up to
# the first optimizer step (benchmarks/gpu_check.py; summary in OUT/gpu_check.json).
#
#   benchmarks/gpu_check.sh [--wheels DIR] [--out DIR] [--dry-run]
#   benchmarks/gpu_check.sh --wheel-specs      # NAME==VERSION of each wheel to carry, as installed here
#
# Gather the wheels here (Python 3.12 on the GPU image; the device README's pip download flags):
#   echo /.whl/ >> .git/info/exclude
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
#     -d .whl $(benchmarks/gpu_check.sh --wheel-specs)
# then run there with `.whl` carried: benchmarks/gpu_check.sh --wheels .whl --out /tmp/gc.
# --dry-run needs no GPU and no wheels: it prints every phase and parses each command with
# mindzero's own parser (tests/test_gpu_check.py runs it, so the script cannot rot).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# What the GPU image lacks or holds too old (KINDS.md: transformers 5.17, no trl, datasets, pydantic,
# gymnasium, starlette); their own needs that the image also lacks follow each.
WHEEL_PACKAGES=(
  trl datasets dill multiprocess
  transformers tokenizers kernels tomlkit huggingface_hub httpx2 httpcore2 truststore
  pydantic pydantic_core annotated-types typing-inspection
  gymnasium farama-notifications
  starlette uvicorn
)
WHEELS=""
OUT_DIR="/tmp/mindzero-gpu-check"
DRY=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --wheels) WHEELS="$2"; shift 2 ;;
    --out) OUT_DIR="$2"; shift 2 ;;
    --dry-run) DRY=(--dry-run); shift ;;
    --wheel-specs)
      python3 -c 'import sys; from importlib.metadata import version
print(" ".join(f"{n}=={version(n)}" for n in sys.argv[1:]))' "${WHEEL_PACKAGES[@]}"
      exit 0 ;;
    *) echo "gpu_check.sh: unknown option $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done

cd "$REPO"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false PYTHONUNBUFFERED=1
if [[ -n "$WHEELS" ]]; then
  if [[ ${#DRY[@]} -gt 0 ]]; then
    echo "gpu_check: would install $(ls "$WHEELS"/*.whl 2>/dev/null | wc -l) wheels from $WHEELS into /tmp/mindzero-site"
  else
    started=$(date +%s)
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target /tmp/mindzero-site "$WHEELS"/*.whl
    export PYTHONPATH="/tmp/mindzero-site${PYTHONPATH:+:$PYTHONPATH}"
    echo "gpu_check: wheels installed in $(( $(date +%s) - started )) s"
  fi
fi
export PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}"
python3 - <<'EOF'
import importlib.metadata as md
import torch
names = ("torch", "transformers", "trl", "datasets", "huggingface_hub", "pydantic", "gymnasium")
def have(name):
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return "MISSING"
gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no CUDA device"
print(f"gpu_check: {gpu}; CUDA {torch.version.cuda}; " + ", ".join(f"{n} {have(n)}" for n in names))
EOF
exec python3 benchmarks/gpu_check.py --out "$OUT_DIR" "${DRY[@]}"
