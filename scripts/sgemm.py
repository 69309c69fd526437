"""Vendor reference for the GPU benchmark: cuBLAS single-precision GEMM through PyTorch, with
TF32 off (full FP32 products, what the WGSL kernel computes), at the sizes of
examples/gpu_bench.rs. CUDA events around `reps` products, median of 5 runs."""
import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.set_float32_matmul_precision("highest")
print(f"cuda device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
for n in (1024, 2048, 4096):
    a = torch.rand(n, n, device="cuda") * 2 - 1
    b = torch.rand(n, n, device="cuda") * 2 - 1
    reps = 5 if n >= 4096 else 20
    for _ in range(3):
        a @ b
    times = []
    for _ in range(5):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            a @ b
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / reps / 1e3)
    s = sorted(times)[2]
    print(f"cublas sgemm (tf32 off) n={n}: {s * 1e3:.3f} ms, {2 * n**3 / s / 1e9:.0f} GFLOP/s")
