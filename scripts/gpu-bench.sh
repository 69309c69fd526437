#!/usr/bin/env bash
# The GPU benchmark of BENCHMARKS.md ("On a real GPU"), for a machine with an NVIDIA GPU, its
# Vulkan driver and PyTorch: the WGSL kernels through native wgpu (examples/gpu_bench.rs) and
# cuBLAS SGEMM with TF32 off (scripts/sgemm.py) in the same run.
#   bash scripts/gpu-bench.sh [path/to/gpu_bench]   (default: builds it with cargo)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-}"
if [ -z "$bin" ]; then
  cargo build --profile train --example gpu_bench
  bin=target/train/examples/gpu_bench
fi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true
"$bin" static/model/
python3 scripts/sgemm.py
