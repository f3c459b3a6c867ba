#!/usr/bin/env python3
"""PyTorch (CUDA, eager) side of the GPU benchmarks: the cases of bench_gpu.cpp, same shapes, same dtypes.

Usage: peer_torch_gpu.py [--out results.json] [--min-time 0.2] [--repetitions 3] [--batch-ms 10]
                         [--filter REGEX] [--label NAME]

Cases (names as bench_gpu.cpp's): add, mul, exp, relu (256M f32, out= and allocating), sum_all,
max_all, memcpy_d2d (dst.copy_(src), 1 GiB), matmul_f32 / matmul_tf32 / matmul_bf16 (8192^3;
torch.backends.cuda.matmul.allow_tf32 off for f32, on for tf32), neg_1 (torch.neg(x, out=y) on one
element), conv{1,2}_{fwd,fwdbwd}_b{64,512} (F.conv2d; fwdbwd: autograd dx, dw, db as bench_ops.cpp's
peer), lenet_step_b64 / _b512 (nn.Sequential + SGD nesterov, as peer_torch.py). A case may have
several formulations (variant); report_gpu.py reports torch's fastest.

Timing, as bench_gpu.cpp does it: warm-up, then batches of B calls issued back to back followed by
one torch.cuda.synchronize(), B chosen once per case so that a batch takes about --batch-ms; each
repetition runs batches for at least --min-time seconds and records the mean wall time per call
(time.perf_counter, waits included). cuDNN autotuning (torch.backends.cudnn.benchmark) stays at its
default (off) unless --cudnn-benchmark is given.

Output: the JSON shape of peer_torch.py ({"context": {...}, "results": [{"case", "threads",
"variant", "label", "wall_s": [...], "cpu_s": [...], "iterations"}]}), plus "bytes" / "flop" per call
where the case has them. Exit status 2 (with a message) when torch or CUDA is missing.
"""
import argparse
import json
import math
import os
import re
import sys
import time

try:
    import torch
    import torch.nn.functional as F
except ImportError as e:
    print(f"peer_torch_gpu.py: cannot import torch ({e}); install PyTorch with CUDA support", file=sys.stderr)
    sys.exit(2)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_torch  # noqa: E402  (the case builders, made for any device)

BIG = 256 << 20
MM = 8192
DEV = "cuda"


def big():
    return peer_torch.big(BIG, DEV)


def elementwise_case(name):
    return peer_torch.elementwise_case(name, BIG, DEV)


def reduce_case(name):
    a, _, _ = big()
    y = torch.empty((), device=DEV)
    f = {"sum": torch.sum, "max": torch.amax}[name]
    return {"out=": lambda: f(a, 0, out=y), "alloc": {"sum": lambda: torch.sum(a), "max": lambda: torch.max(a)}[name]}


def memcpy_case():
    a, _, c = big()
    return {"copy_": lambda: c.copy_(a)}


def matmul_case(kind):
    g = torch.Generator(device=DEV).manual_seed(51)
    dt = torch.bfloat16 if kind == "bf16" else torch.float32
    a = (torch.rand(MM, MM, generator=g, device=DEV) * 2 - 1).to(dt)
    b = (torch.rand(MM, MM, generator=g, device=DEV) * 2 - 1).to(dt)
    y = torch.empty(MM, MM, device=DEV, dtype=dt)
    tf32 = kind == "tf32"

    def with_mode(fn):
        def run():
            torch.backends.cuda.matmul.allow_tf32 = tf32
            return fn()
        return run
    return {"out=": with_mode(lambda: torch.matmul(a, b, out=y)), "alloc": with_mode(lambda: a @ b)}


def neg_case():
    x = torch.rand(1, device=DEV) * 0.5 + 0.5
    y = torch.empty(1, device=DEV)
    return {"out=": lambda: torch.neg(x, out=y), "alloc": lambda: torch.neg(x)}


def lenet_case(batch):
    model, weights, biases = peer_torch.lenet_model(DEV)
    variants = {}
    for name, kw in (("SGD(nesterov)", {}), ("SGD(nesterov, fused)", {"fused": True})):
        try:
            opt = peer_torch.lenet_sgd(weights, biases, **kw)
        except (TypeError, RuntimeError):  # a torch without the fused SGD
            continue
        x = torch.rand(batch, 1, 28, 28, device=DEV)
        y = torch.randint(0, 10, (batch,), device=DEV)

        def step(opt=opt, x=x, y=y):
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            return loss
        variants["nn.Module+" + name] = step
    return variants


def all_cases():
    """(name, make, bytes per call, flop per call)."""
    cases = []
    for e in ("add", "mul", "exp", "relu"):
        cases.append((e, lambda e=e: elementwise_case(e), (3 if e in ("add", "mul") else 2) * BIG * 4, 0))
    for r in ("sum", "max"):
        cases.append((r + "_all", lambda r=r: reduce_case(r), BIG * 4, 0))
    cases.append(("memcpy_d2d", memcpy_case, 2 * BIG * 4, 0))
    for k in ("f32", "tf32", "bf16"):
        cases.append(("matmul_" + k, lambda k=k: matmul_case(k), 0, 2 * MM ** 3))
    cases.append(("neg_1", neg_case, 0, 0))
    for n in (64, 512):
        for tag, geo in (("conv1", (1, 28, 28, 20, 5)), ("conv2", (20, 12, 12, 50, 5))):
            for bwd in (False, True):
                name = f"{tag}_{'fwdbwd' if bwd else 'fwd'}_b{n}"
                cases.append((name, lambda n=n, geo=geo, bwd=bwd: peer_torch.conv_case(n, *geo, bwd, device=DEV), 0, 0))
    for n in (64, 512):
        cases.append((f"lenet_step_b{n}", lambda n=n: lenet_case(n), 0, 0))
    return cases


def run_batch(fn, k):
    t0 = time.perf_counter()
    for _ in range(k):
        fn()
    torch.cuda.synchronize()
    return time.perf_counter() - t0


def measure(fn, min_time, repetitions, batch_s):
    for _ in range(2):  # warm-up: allocator, cuBLAS/cuDNN handles and heuristics
        fn()
    torch.cuda.synchronize()
    k = 1
    while True:  # calls per batch, as bench_gpu.cpp's calibrate()
        dt = run_batch(fn, k)
        if dt >= 2e-3 or k >= 1 << 20:
            batch = max(1, min(1 << 20, math.ceil(batch_s * k / max(dt, 1e-9))))
            break
        k *= 4
    walls, cpus, iters = [], [], 0
    for _ in range(repetitions):
        n, c0, w0 = 0, time.process_time(), time.perf_counter()
        while True:
            run_batch(fn, batch)
            n += batch
            if time.perf_counter() - w0 >= min_time:
                break
        w1, c1 = time.perf_counter(), time.process_time()
        walls.append((w1 - w0) / n)
        cpus.append((c1 - c0) / n)
        iters = n
    return walls, cpus, iters, batch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="-")
    ap.add_argument("--min-time", type=float, default=0.2)
    ap.add_argument("--repetitions", type=int, default=3)
    ap.add_argument("--batch-ms", type=float, default=10.0)
    ap.add_argument("--filter", default="")
    ap.add_argument("--label", default="default")
    ap.add_argument("--cudnn-benchmark", action="store_true")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print(f"peer_torch_gpu.py: torch {torch.__version__} sees no CUDA device "
              f"(built with CUDA {torch.version.cuda})", file=sys.stderr)
        sys.exit(2)
    torch.backends.cudnn.benchmark = args.cudnn_benchmark
    torch.backends.cuda.matmul.allow_tf32 = False
    doc = {"context": {"torch_version": torch.__version__, "torch_cuda": torch.version.cuda,
                       "cudnn": torch.backends.cudnn.version(), "gpu_name": torch.cuda.get_device_name(0),
                       "threads": 1, "label": args.label, "cudnn_benchmark": args.cudnn_benchmark,
                       "batch_ms": args.batch_ms, "load_avg": list(os.getloadavg())},
           "results": []}
    pat = re.compile(args.filter) if args.filter else None
    for name, make, nbytes, flop in all_cases():
        if pat and not pat.search(name):
            continue
        try:
            variants = make()
        except RuntimeError as e:  # e.g. out of memory: report it, go on with the other cases
            print(f"torch {name}: setup failed: {e}", file=sys.stderr)
            doc.setdefault("errors", []).append(f"{name}: {e}")
            continue
        for variant, fn in variants.items():
            walls, cpus, iters, batch = measure(fn, args.min_time, args.repetitions, args.batch_ms * 1e-3)
            r = {"case": name, "threads": 1, "variant": variant, "label": args.label,
                 "wall_s": walls, "cpu_s": cpus, "iterations": iters, "batch": batch}
            if nbytes:
                r["bytes"] = nbytes
            if flop:
                r["flop"] = flop
            doc["results"].append(r)
            print(f"torch {name} [{variant}, {args.label}] {sorted(walls)[len(walls) // 2] * 1e6:.1f} us (batch {batch})",
                  file=sys.stderr)
        del variants
        torch.cuda.empty_cache()
    torch.backends.cuda.matmul.allow_tf32 = False
    text = json.dumps(doc, indent=1)
    if args.out == "-":
        print(text)
    else:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
