#!/bin/sh
# setup_torch.sh DEST -- a private venv at DEST with PyTorch, numpy, ONNX
# Runtime and onnx from PyPI, for tests/torch (kforge import/export against
# real nn.Modules) and tests/e2e/test_anchor_scripts.sh (the anchor scripts).
# Idempotent: nothing to do when DEST/bin/python imports torch.  PyPI's x86-64
# torch is a CUDA build: ~5.4 GB with its NVIDIA libraries and triton, about a
# minute to install here; it runs on the CPU without a GPU.
# Optional env: TORCH_SPEC (default "torch"), PYTHON (default python3).
set -eu
DEST=${1:?usage: setup_torch.sh DEST}
PY=${PYTHON:-python3}
if [ -x "$DEST/bin/python" ] && "$DEST/bin/python" -c 'import torch, numpy, onnxruntime, onnx' >/dev/null 2>&1; then
    echo "setup_torch: already installed in $DEST" >&2
    exit 0
fi
[ -x "$DEST/bin/python" ] || "$PY" -m venv "$DEST"
"$DEST/bin/python" -m pip install --quiet --disable-pip-version-check ${TORCH_SPEC:-torch} numpy onnxruntime onnx >&2
"$DEST/bin/python" -c 'import torch; print("setup_torch: torch", torch.__version__, "in '"$DEST"'")' >&2
