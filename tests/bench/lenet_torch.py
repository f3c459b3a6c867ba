#!/usr/bin/env python3
"""PyTorch (CPU) peer of the Java LeNet benchmark (java/src/bench/.../LeNetBench.java).

The network of LeNetMnist.lenet: conv 5x5x20, maxpool 2, conv 5x5x50, maxpool 2, dense 500 relu,
linear 10, cross-entropy (softmax + NLL, mean over the batch); Xavier normal weights
(Normal(0, sqrt(2 / (fanIn + fanOut))), as Deeplearning4j's XAVIER), zero biases; SGD with Nesterov
momentum 0.9, lr 0.01, weight decay 0.0005 on the weights only (DL4J's coupled l2); inputs pixel / 255.

Usage:
  lenet_torch.py speed --threads T --data DIR [--iters 100] [--warmup 20] [--reps 5] [--max-seconds 0]
                       [--batch 64] [--variants all|eager,channels_last,...] [--label NAME]
  lenet_torch.py infer (the options of speed; --batch defaults to 256)
  lenet_torch.py accuracy --data DIR [--epochs 3] [--seeds 1,2,3] [--threads T] [--batch 64]

DIR holds the split written by `LeNetBench export-split` (train-images-idx3-ubyte, ...).

speed: one JSON line per variant and repetition, {"impl":"torch","variant":...,"threads":T,"img_s":...}.
The train part's minibatches are preloaded as tensors and cycled: `warmup` steps, then `reps` timed
runs of `iters` steps (time.perf_counter); warm-up and each run stop early once --max-seconds have
passed, when it is above 0 (the line gives the steps done). cpu_util = process cpu time / wall time;
others_busy = cores that other processes kept busy meanwhile (from /proc/stat; -1 where there is
none). Variants: eager (NCHW), channels_last, trace (torch.jit.trace of the module), their mix
channels_last_trace, and no_mkldnn (torch.backends.mkldnn off: the im2col + BLAS convolutions).
torch.set_num_threads(T) and set_num_interop_threads(1) are called first; the caller sets
OMP_NUM_THREADS / OPENBLAS_NUM_THREADS / MKL_NUM_THREADS (they must be set before torch loads) and
names the setting with --label. Debian's torch does its matrix products in OpenBLAS, whose own
threads compete with torch's OpenMP pool: OPENBLAS_NUM_THREADS=1 is its fastest setting here.

infer: as speed, but each step is one forward pass of the model in eval mode under
torch.inference_mode() (no autograd records, no optimizer), the peer of `LeNetBench infer`; the lines
carry "mode":"infer" and no loss. Every variant applies (trace traces the eval-mode model).

accuracy: per seed, trains `epochs` epochs (train part reshuffled every epoch by a generator seeded
from the seed) and prints one JSON line per epoch with the test accuracy over the whole test part.
"""
import argparse
import contextlib
import json
import os
import struct
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def read_idx_ubyte(path):
    """An unsigned-byte IDX file as a uint8 tensor with its dims."""
    if not os.path.isfile(path):
        raise SystemExit(f"lenet_torch.py: no {path} (write the split with LeNetBench export-split)")
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] != 0x08:
        raise ValueError(f"{path}: not an unsigned-byte IDX file")
    rank = raw[3]
    dims = struct.unpack(">" + "I" * rank, raw[4:4 + 4 * rank])
    count = 1
    for d in dims:
        count *= d
    body = raw[4 + 4 * rank:]
    if len(body) != count:
        raise ValueError(f"{path}: dims {dims} need {count} bytes, the file has {len(body)}")
    return torch.frombuffer(bytearray(body), dtype=torch.uint8).reshape(dims)


def load_part(data, part):
    """(images f32 [N, 1, 28, 28] in [0, 1], labels int64 [N]) of 'train' or 'test'."""
    x = read_idx_ubyte(os.path.join(data, f"{part}-images-idx3-ubyte"))
    y = read_idx_ubyte(os.path.join(data, f"{part}-labels-idx1-ubyte"))
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"{data}: {x.shape[0]} {part} images but {y.shape[0]} labels")
    return x.reshape(-1, 1, 28, 28).float() / 255.0, y.long()


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 20, 5)
        self.conv2 = nn.Conv2d(20, 50, 5)
        self.fc1 = nn.Linear(50 * 4 * 4, 500)
        self.fc2 = nn.Linear(500, 10)

    def forward(self, x):
        x = F.max_pool2d(self.conv1(x), 2, 2)
        x = F.max_pool2d(self.conv2(x), 2, 2)
        x = F.relu(self.fc1(torch.flatten(x, 1)))
        return self.fc2(x)


def make_model(seed):
    torch.manual_seed(seed)
    m = LeNet()
    for layer in (m.conv1, m.conv2, m.fc1, m.fc2):
        nn.init.xavier_normal_(layer.weight)  # fan_in = in * kh * kw, fan_out = out * kh * kw, as DL4J
        nn.init.zeros_(layer.bias)
    return m


def make_optimizer(model):
    weights = [p for n, p in model.named_parameters() if n.endswith("weight")]
    biases = [p for n, p in model.named_parameters() if n.endswith("bias")]
    return torch.optim.SGD([{"params": weights, "weight_decay": 5e-4}, {"params": biases, "weight_decay": 0.0}],
                           lr=0.01, momentum=0.9, nesterov=True)


def system_busy_s():
    """Busy cpu seconds of the whole machine so far (user, nice, system, irq, softirq, steal), or None."""
    try:
        with open("/proc/stat") as f:
            v = f.readline().split()
        return sum(int(v[i]) for i in (1, 2, 3, 6, 7, 8)) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def train_step(model, opt, x, y):
    opt.zero_grad(set_to_none=True)
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss


VARIANTS = ("eager", "channels_last", "trace", "channels_last_trace", "no_mkldnn")


def build_variant(name, seed, example, infer=False):
    """(model to train, or to infer with (eval mode), input converter, context manager factory) for one
    formulation."""
    if name not in VARIANTS:
        raise SystemExit(f"lenet_torch.py: unknown variant {name} (known: {', '.join(VARIANTS)})")
    model = make_model(seed)
    if infer:
        model.eval()
    convert = lambda x: x  # noqa: E731
    if name.startswith("channels_last"):
        model = model.to(memory_format=torch.channels_last)
        convert = lambda x: x.contiguous(memory_format=torch.channels_last)  # noqa: E731
    if name.endswith("trace"):
        with torch.inference_mode(infer):  # no autograd in an inference trace
            model = torch.jit.trace(model, convert(example))
    mkldnn = name != "no_mkldnn"
    return model, convert, lambda: torch.backends.mkldnn.flags(enabled=mkldnn)


def speed(args):
    """The speed and infer modes: training steps, or forward passes in eval mode without autograd."""
    infer = args.mode == "infer"
    x, y = load_part(args.data, "train")
    n = x.shape[0] // args.batch
    if n == 0:
        raise SystemExit(f"lenet_torch.py: fewer than {args.batch} train images")
    for variant in VARIANTS if args.variants == "all" else args.variants.split(","):
        with torch.backends.mkldnn.flags(enabled=True):
            model, convert, flags = build_variant(variant, args.seed, x[:args.batch], infer)
        b = args.batch
        batches = [(convert(x[i * b:(i + 1) * b].clone()), y[i * b:(i + 1) * b].clone()) for i in range(n)]
        if infer:
            step, mode = lambda xb, yb: model(xb), torch.inference_mode  # noqa: E731
        else:
            opt = make_optimizer(model)
            step, mode = lambda xb, yb: train_step(model, opt, xb, yb), contextlib.nullcontext  # noqa: E731
        nxt = 0

        def steps(count, t0):  # up to count steps, fewer past the time cap; (steps done, last step's output)
            nonlocal nxt
            done, out = 0, None
            while done < count:
                out = step(*batches[nxt])
                nxt = (nxt + 1) % n
                done += 1
                if args.max_seconds > 0 and time.perf_counter() - t0 > args.max_seconds:
                    break
            return done, out

        with flags(), mode():
            steps(args.warmup, time.perf_counter())
            for rep in range(args.reps):
                b0, c0, t0 = system_busy_s(), time.process_time(), time.perf_counter()
                done, out = steps(args.iters, t0)
                wall = time.perf_counter() - t0
                cpu = time.process_time() - c0
                b1 = system_busy_s()
                others = -1 if b0 is None or b1 is None else max(0.0, b1 - b0 - cpu) / wall
                line = {"impl": "torch", "variant": variant, "label": args.label, "threads": args.threads,
                        "batch": args.batch, "iters": done, "rep": rep, "img_s": round(done * args.batch / wall, 1),
                        "ms_per_iter": round(wall * 1e3 / done, 3), "cpu_util": round(cpu / wall, 2),
                        "others_busy": round(others, 2)}
                if infer:
                    line = {"impl": "torch", "mode": "infer", **line}
                else:
                    value = out.item()
                    if value != value or abs(value) == float("inf"):
                        raise SystemExit(f"lenet_torch.py: {variant}: loss {value}")
                    line["loss"] = round(value, 4)
                print(json.dumps(line), flush=True)


def accuracy(args):
    xtr, ytr = load_part(args.data, "train")
    xte, yte = load_part(args.data, "test")
    for seed in (int(s) for s in args.seeds.split(",")):
        model = make_model(seed)
        opt = make_optimizer(model)
        gen = torch.Generator().manual_seed(seed)
        t0 = time.perf_counter()
        for epoch in range(1, args.epochs + 1):
            model.train()
            order = torch.randperm(xtr.shape[0], generator=gen)
            for i in range(0, xtr.shape[0], args.batch):
                idx = order[i:i + args.batch]
                train_step(model, opt, xtr[idx], ytr[idx])
            model.eval()
            with torch.no_grad():
                pred = torch.cat([model(xte[i:i + 1000]).argmax(1) for i in range(0, xte.shape[0], 1000)])
            acc = (pred == yte).float().mean().item()
            print(json.dumps({"impl": "torch", "mode": "accuracy", "seed": seed, "epochs_total": args.epochs,
                              "epoch": epoch, "test_acc": round(acc, 4),
                              "train_s": round(time.perf_counter() - t0, 1)}), flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", choices=("speed", "infer", "accuracy"))
    p.add_argument("--data", required=True, help="folder with the exported split")
    p.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: leave torch's default)")
    p.add_argument("--batch", type=int, default=0, help="default 64 (infer: 256)")
    p.add_argument("--iters", type=int, default=100)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--max-seconds", type=float, default=0.0,
                   help="speed, infer: cap of warm-up and of each run (0: none)")
    p.add_argument("--seed", type=int, default=123, help="speed, infer: the weights' seed")
    p.add_argument("--variants", default="all",
                   help=f"speed, infer: comma-separated, of {', '.join(VARIANTS)}; or all")
    p.add_argument("--label", default="", help="speed, infer: names the thread environment in the output")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--seeds", default="1,2,3")
    args = p.parse_args()
    args.batch = args.batch or (256 if args.mode == "infer" else 64)
    if args.batch < 1 or args.iters < 1 or args.reps < 1 or args.warmup < 0 or args.epochs < 1 or args.max_seconds < 0:
        p.error("batch, iters, reps, epochs must be >= 1, warmup and max-seconds >= 0")
    torch.set_num_interop_threads(1)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    args.threads = torch.get_num_threads()
    accuracy(args) if args.mode == "accuracy" else speed(args)


if __name__ == "__main__":
    sys.exit(main())
