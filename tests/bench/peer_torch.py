#!/usr/bin/env python3
"""PyTorch (CPU) side of the op-set benchmarks: the cases of bench_ops.cpp, same shapes, same dtype.

Usage: peer_torch.py --threads T [--out results.json] [--min-time 0.2] [--repetitions 3]
                     [--filter REGEX] [--label NAME]

One process per thread count: torch.set_num_threads(T) is called before any op, and the caller
(run_ops.sh) may also set OMP_NUM_THREADS / OMP_WAIT_POLICY etc. in the environment; --label names
that setting in the results. A case may have several torch formulations (e.g. relu has no out=, so
both torch.relu(x) and torch.clamp_min(x, 0, out=y) are timed); report_ops.py reports torch's fastest.

Timing, as Google Benchmark does it for ndrt: warm-up, then each repetition runs the case in a loop
for at least --min-time seconds and records the mean wall time per call (time.perf_counter) and the
process CPU time per call (time.process_time, all threads); report_ops.py takes medians.
"""
import argparse
import json
import math
import os
import re
import sys
import time

import torch
import torch.nn.functional as F

BIG = 16 << 20
SIDE = 4096


# The case builders take a device (peer_torch_gpu.py builds the same cases on "cuda").
def conv_case(n, c, h, w, k, r, backward, device="cpu"):
    g = torch.Generator(device=device).manual_seed(1)
    x = torch.rand(n, c, h, w, generator=g, device=device)
    wt = (torch.rand(k, c, r, r, generator=g, device=device) - 0.5) * 0.2
    b = (torch.rand(k, generator=g, device=device) - 0.5) * 0.2
    dy = torch.rand(n, k, h - r + 1, w - r + 1, generator=g, device=device) * 2 - 1
    if not backward:
        def fwd():
            with torch.no_grad():
                return F.conv2d(x, wt, b)
        return {"autograd-free": fwd}
    xg, wg, bg = x.clone().requires_grad_(), wt.clone().requires_grad_(), b.clone().requires_grad_()

    def fwdbwd():
        y = F.conv2d(xg, wg, bg)
        return torch.autograd.grad(y, (xg, wg, bg), dy)  # dx, dw, db; no accumulation into .grad
    return {"autograd": fwdbwd}


def conv_pool_case(n, c, h, w, k, r, device="cpu"):
    """The convolution and LeNet's 2x2 max pool after it, forward and backward (dx, dw, db)."""
    g = torch.Generator(device=device).manual_seed(1)
    x = torch.rand(n, c, h, w, generator=g, device=device).requires_grad_()
    wt = ((torch.rand(k, c, r, r, generator=g, device=device) - 0.5) * 0.2).requires_grad_()
    b = ((torch.rand(k, generator=g, device=device) - 0.5) * 0.2).requires_grad_()
    dy = torch.rand(n, k, (h - r + 1) // 2, (w - r + 1) // 2, generator=g, device=device) * 2 - 1

    def fwdbwd():
        y = F.max_pool2d(F.conv2d(x, wt, b), 2, 2)
        return torch.autograd.grad(y, (x, wt, b), dy)
    return {"autograd": fwdbwd}


def pool_case(n, c, h, w, backward, device="cpu"):
    """LeNet's 2x2 / stride 2 max pool. The backward gets the forward's saved indices (torch's way;
    ndrt's max_pool2d_bp finds the maxima in x again). Also timed on channels_last copies of the
    same tensors: torch 1.13's NCHW max pool forward is many times slower than its channels_last one."""
    g = torch.Generator(device=device).manual_seed(5)
    x = torch.rand(n, c, h, w, generator=g, device=device) * 2 - 1
    dy = torch.rand(n, c, h // 2, w // 2, generator=g, device=device) * 2 - 1
    k, s, p, d = [2, 2], [2, 2], [0, 0], [1, 1]
    cases = {}
    for name, fmt in (("", torch.contiguous_format), ("channels_last ", torch.channels_last)):
        xf, dyf = x.contiguous(memory_format=fmt), dy.contiguous(memory_format=fmt)
        if not backward:
            y, idx = torch.empty_like(dyf), torch.empty_like(dyf, dtype=torch.int64)

            def fwd(xf=xf):
                with torch.no_grad():
                    return F.max_pool2d(xf, 2, 2)
            cases[name + "no_grad"] = fwd
            cases[name + "with_indices out="] = (
                lambda xf=xf, y=y, idx=idx: torch.ops.aten.max_pool2d_with_indices.out(xf, k, s, p, d, False,
                                                                                       out=y, indices=idx))
            continue
        _, idx = F.max_pool2d(xf, 2, 2, return_indices=True)
        dx = torch.empty_like(xf)
        bwd = torch.ops.aten.max_pool2d_with_indices_backward
        cases[name + "saved indices"] = lambda xf=xf, dyf=dyf, idx=idx: bwd(dyf, xf, k, s, p, d, False, idx)
        cases[name + "saved indices out="] = (
            lambda xf=xf, dyf=dyf, idx=idx, dx=dx: bwd.grad_input(dyf, xf, k, s, p, d, False, idx, grad_input=dx))
    return cases


def big_buffers(n, device):
    g = torch.Generator(device=device).manual_seed(11)
    a = torch.rand(n, generator=g, device=device) * 6 - 3
    b = torch.rand(n, generator=g, device=device) * 6 - 3
    return a, b, torch.empty(n, device=device)


_BIG = {}


def big(n=BIG, device="cpu"):
    """Two random inputs and an output of n f32 elements, made once per (n, device)."""
    if (n, device) not in _BIG:
        _BIG[(n, device)] = big_buffers(n, device)
    return _BIG[(n, device)]


def elementwise_case(name, n=BIG, device="cpu"):
    a, b, c = big(n, device)
    if name == "add":
        return {"out=": lambda: torch.add(a, b, out=c), "alloc": lambda: a + b}
    if name == "mul":
        return {"out=": lambda: torch.mul(a, b, out=c), "alloc": lambda: a * b}
    if name == "relu":  # torch.relu has no out=
        return {"clamp_min out=": lambda: torch.clamp_min(a, 0, out=c), "alloc": lambda: torch.relu(a)}
    f = {"exp": torch.exp, "sigmoid": torch.sigmoid, "tanh": torch.tanh}[name]
    return {"out=": lambda: f(a, out=c), "alloc": lambda: f(a)}


def reduce_case(name, rows):
    a, _, _ = big()
    x = a.view(SIDE, SIDE) if rows else a
    y = torch.empty(SIDE) if rows else torch.empty(())
    dim = 1 if rows else 0
    f = {"sum": torch.sum, "max": torch.amax, "mean": torch.mean}[name]
    cases = {"out=": lambda: f(x, dim, out=y)}
    if not rows:
        cases["alloc"] = {"sum": lambda: torch.sum(a), "max": lambda: torch.max(a), "mean": lambda: torch.mean(a)}[name]
    else:
        cases["alloc"] = lambda: f(x, dim)
    return cases


def sce_case(n, classes):
    g = torch.Generator().manual_seed(21)
    logits = (torch.rand(n, classes, generator=g) * 8 - 4).requires_grad_()
    labels = torch.randint(0, classes, (n,), generator=g)

    def fwdbwd():
        loss = F.cross_entropy(logits, labels)  # log_softmax + nll, mean
        return torch.autograd.grad(loss, (logits,))
    return {"autograd": fwdbwd}


def lenet_model(device="cpu"):
    """Deeplearning4j's LeNet (Xavier weights, zero biases) and its weight and bias parameters."""
    torch.manual_seed(31)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(1, 20, 5), torch.nn.MaxPool2d(2, 2),
        torch.nn.Conv2d(20, 50, 5), torch.nn.MaxPool2d(2, 2),
        torch.nn.Flatten(), torch.nn.Linear(800, 500), torch.nn.ReLU(), torch.nn.Linear(500, 10)).to(device)
    for m in model:
        if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)):
            torch.nn.init.xavier_uniform_(m.weight)
            torch.nn.init.zeros_(m.bias)
    weights = [p for n_, p in model.named_parameters() if n_.endswith("weight")]
    biases = [p for n_, p in model.named_parameters() if n_.endswith("bias")]
    return model, weights, biases


def lenet_sgd(weights, biases, **kw):
    """Nesterov momentum 0.9, lr 0.01, L2 0.0005 on the weights only (torch adds it to the gradient)."""
    return torch.optim.SGD([{"params": weights, "weight_decay": 5e-4}, {"params": biases, "weight_decay": 0.0}],
                           lr=0.01, momentum=0.9, nesterov=True, **kw)


def lenet_case():
    model, weights, biases = lenet_model()
    opt = lenet_sgd(weights, biases)
    x = torch.rand(64, 1, 28, 28)
    y = torch.randint(0, 10, (64,))

    def step():
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return {"nn.Module+SGD(nesterov)": step}


def all_cases():
    cases = [
        ("conv1_fwd", lambda: conv_case(64, 1, 28, 28, 20, 5, False)),
        ("conv1_fwdbwd", lambda: conv_case(64, 1, 28, 28, 20, 5, True)),
        ("conv2_fwd", lambda: conv_case(64, 20, 12, 12, 50, 5, False)),
        ("conv2_fwdbwd", lambda: conv_case(64, 20, 12, 12, 50, 5, True)),
        ("conv1_maxpool_fwdbwd", lambda: conv_pool_case(64, 1, 28, 28, 20, 5)),
        ("conv2_maxpool_fwdbwd", lambda: conv_pool_case(64, 20, 12, 12, 50, 5)),
        ("conv1_pool_fwd", lambda: pool_case(64, 20, 24, 24, False)),
        ("conv1_pool_bp", lambda: pool_case(64, 20, 24, 24, True)),
        ("conv2_pool_fwd", lambda: pool_case(64, 50, 8, 8, False)),
        ("conv2_pool_bp", lambda: pool_case(64, 50, 8, 8, True)),
    ]
    for e in ("add", "mul", "relu", "exp", "sigmoid", "tanh"):
        cases.append((e, lambda e=e: elementwise_case(e)))
    for r in ("sum", "max", "mean"):
        cases.append((r + "_all", lambda r=r: reduce_case(r, False)))
    for r in ("sum", "max", "mean"):
        cases.append((r + "_rows", lambda r=r: reduce_case(r, True)))
    cases.append(("sce_64x10", lambda: sce_case(64, 10)))
    cases.append(("sce_4096x1000", lambda: sce_case(4096, 1000)))
    cases.append(("lenet_step_b64", lenet_case))
    for kind in ("lstm", "gru"):
        cases.append((kind + "_fwd", lambda kind=kind: rnn_case(kind, False)))
        cases.append((kind + "_fwdbwd", lambda kind=kind: rnn_case(kind, True)))
    return cases


def rnn_case(kind, backward, device="cpu"):
    """One torch.nn.LSTM / GRU layer, batch_first, batch 64, 100 steps, 256 -> 512, zero initial
    state (bench_ops.cpp's lstm_* / gru_*). Forward under no_grad; fwdbwd: forward + autograd.grad
    of y against dy for x, h0 (and c0) and every parameter (dx, dW, db as ndrt's _bp op gives)."""
    torch.manual_seed(11)
    B, T, I, H = 64, 100, 256, 512
    layer = (torch.nn.LSTM if kind == "lstm" else torch.nn.GRU)(I, H, batch_first=True).to(device)
    x = torch.rand(B, T, I, device=device) * 2 - 1
    h0 = torch.zeros(1, B, H, device=device)
    state = (h0, torch.zeros(1, B, H, device=device)) if kind == "lstm" else h0
    dy = torch.rand(B, T, H, device=device) * 2 - 1
    if not backward:
        def fwd():
            with torch.no_grad():
                return layer(x, state)
        return {"nn." + kind.upper(): fwd}
    xg = x.clone().requires_grad_()
    sg = tuple(t.clone().requires_grad_() for t in state) if kind == "lstm" else state.clone().requires_grad_()
    inputs = (xg,) + (sg if kind == "lstm" else (sg,)) + tuple(layer.parameters())

    def fwdbwd():
        y, _ = layer(xg, sg)
        return torch.autograd.grad(y, inputs, dy)
    return {"nn." + kind.upper(): fwdbwd}


def measure(fn, min_time, repetitions):
    for _ in range(2):  # warm-up: first-call allocations, oneDNN primitive creation
        fn()
    t0 = time.perf_counter()
    fn()
    one = max(time.perf_counter() - t0, 1e-7)
    iters = max(1, int(min_time / one))
    walls, cpus = [], []
    for _ in range(repetitions):
        c0, w0 = time.process_time(), time.perf_counter()
        for _ in range(iters):
            fn()
        w1, c1 = time.perf_counter(), time.process_time()
        walls.append((w1 - w0) / iters)
        cpus.append((c1 - c0) / iters)
    return walls, cpus, iters


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--out", default="-")
    ap.add_argument("--min-time", type=float, default=0.2)
    ap.add_argument("--repetitions", type=int, default=3)
    ap.add_argument("--filter", default="")
    ap.add_argument("--label", default="default")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    env_keys = ("OMP_NUM_THREADS", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "MKL_NUM_THREADS", "OMP_PROC_BIND")
    doc = {"context": {"torch_version": torch.__version__, "threads": args.threads,
                       "torch_num_threads": torch.get_num_threads(), "label": args.label,
                       "env": {k: os.environ[k] for k in env_keys if k in os.environ},
                       "mkldnn": torch.backends.mkldnn.is_available(),
                       "load_avg": list(os.getloadavg())},
           "results": []}
    pat = re.compile(args.filter) if args.filter else None
    for name, make in all_cases():
        if pat and not pat.search(name):
            continue
        for variant, fn in make().items():
            walls, cpus, iters = measure(fn, args.min_time, args.repetitions)
            doc["results"].append({"case": name, "threads": args.threads, "variant": variant, "label": args.label,
                                   "wall_s": walls, "cpu_s": cpus, "iterations": iters})
            print(f"torch {name}/threads:{args.threads} [{variant}, {args.label}] "
                  f"{sorted(walls)[len(walls) // 2] * 1e6:.1f} us", file=sys.stderr)
    text = json.dumps(doc, indent=1)
    if args.out == "-":
        print(text)
    else:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
