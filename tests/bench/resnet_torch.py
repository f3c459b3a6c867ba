#!/usr/bin/env python3
"""PyTorch (CPU) peer of the Java ResNet benchmark (java/src/bench/.../ResNetBench.java).

The network of ResNetMnist.resnet(seed, width, stages, blocks): a stem (conv 3x3 'same' -> batch norm
-> ReLU), then `stages` stages of `blocks` residual blocks (conv 3x3 -> BN -> ReLU -> conv 3x3 -> BN,
plus the block's input, then ReLU); each stage after the first doubles the channels and halves the
image with a stride-2 first convolution, its skip path a 1x1 stride-2 convolution + BN. Global average
pooling, linear 10, cross-entropy (softmax + NLL, mean over the batch). Convolutions with biases (as
ndrt's ConvolutionLayer), He normal weights (Deeplearning4j's RELU: Normal(0, sqrt(2 / fanIn))), the
output Xavier normal, zero biases; BN momentum 0.1 (DL4J decay 0.9), eps 1e-5; Adam lr 0.002, betas
(0.9, 0.999), eps 1e-8; inputs pixel / 255. Stride-2 'same' convolutions pad 1 on each side here and
0 before / 1 after in ndrt: the same output sizes and work.

Usage:
  resnet_torch.py speed --threads T --data DIR [--iters 50] [--warmup 10] [--reps 5] [--max-seconds 0]
                        [--batch 64] [--width 32] [--stages 3] [--blocks 1]
                        [--variants all|eager,channels_last,...] [--label NAME]
  resnet_torch.py infer (the options of speed; --batch defaults to 256)
  resnet_torch.py accuracy --data DIR [--epochs 3] [--seeds 1] [--threads T] [--batch 128]

DIR holds the split written by `LeNetBench export-split`. speed / infer print one JSON line per variant
and repetition, as lenet_torch.py does (same fields, "variant" names the formulation, "net" the size),
after `warmup` steps on the preloaded, cycled minibatches. Variants: eager (NCHW), channels_last,
trace (torch.jit.trace), channels_last_trace, no_mkldnn (torch.backends.mkldnn off). The caller sets
OMP_NUM_THREADS / OPENBLAS_NUM_THREADS / MKL_NUM_THREADS before torch loads (run_resnet.sh does).
accuracy: per seed, `epochs` epochs (reshuffled every epoch) and one JSON line per epoch with the test
accuracy.
"""
import argparse
import contextlib
import json
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lenet_torch import load_part, system_busy_s  # noqa: E402  (the split's reader, /proc/stat)


def conv_bn(c_in, c_out, k, stride):
    return nn.Sequential(nn.Conv2d(c_in, c_out, k, stride, k // 2, bias=True), nn.BatchNorm2d(c_out, eps=1e-5,
                                                                                           momentum=0.1))


class Block(nn.Module):
    def __init__(self, c_in, c_out, stride):
        super().__init__()
        self.a = conv_bn(c_in, c_out, 3, stride)
        self.b = conv_bn(c_out, c_out, 3, 1)
        self.proj = conv_bn(c_in, c_out, 1, stride) if stride != 1 or c_in != c_out else None

    def forward(self, x):
        y = self.b(F.relu(self.a(x)))
        return F.relu(y + (x if self.proj is None else self.proj(x)))


class ResNet(nn.Module):
    def __init__(self, width, stages, blocks):
        super().__init__()
        self.stem = conv_bn(1, width, 3, 1)
        layers, c = [], width
        for s in range(stages):
            for b in range(blocks):
                c_out = width << s
                layers.append(Block(c, c_out, 2 if s > 0 and b == 0 else 1))
                c = c_out
        self.blocks = nn.Sequential(*layers)
        self.fc = nn.Linear(c, 10)

    def forward(self, x):
        x = self.blocks(F.relu(self.stem(x)))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def make_model(seed, args):
    torch.manual_seed(seed)
    m = ResNet(args.width, args.stages, args.blocks)
    for mod in m.modules():
        if isinstance(mod, nn.Conv2d):
            nn.init.kaiming_normal_(mod.weight, mode="fan_in", nonlinearity="relu")
            nn.init.zeros_(mod.bias)
    nn.init.xavier_normal_(m.fc.weight)
    nn.init.zeros_(m.fc.bias)
    return m


def make_optimizer(model):
    return torch.optim.Adam(model.parameters(), lr=0.002, betas=(0.9, 0.999), eps=1e-8)


def train_step(model, opt, x, y):
    opt.zero_grad(set_to_none=True)
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss


VARIANTS = ("eager", "channels_last", "trace", "channels_last_trace", "no_mkldnn")


def build_variant(name, args, example, infer):
    """(model, input converter, context manager factory) for one formulation."""
    if name not in VARIANTS:
        raise SystemExit(f"resnet_torch.py: unknown variant {name} (known: {', '.join(VARIANTS)})")
    model = make_model(args.seed, args)
    if infer:
        model.eval()
    convert = lambda x: x  # noqa: E731
    if name.startswith("channels_last"):
        model = model.to(memory_format=torch.channels_last)
        convert = lambda x: x.contiguous(memory_format=torch.channels_last)  # noqa: E731
    if name.endswith("trace"):
        with torch.inference_mode(infer):
            model = torch.jit.trace(model, convert(example))
    mkldnn = name != "no_mkldnn"
    return model, convert, lambda: torch.backends.mkldnn.flags(enabled=mkldnn)


def speed(args):
    infer = args.mode == "infer"
    x, y = load_part(args.data, "train")
    n = x.shape[0] // args.batch
    if n == 0:
        raise SystemExit(f"resnet_torch.py: fewer than {args.batch} train images")
    net = f"resnet_w{args.width}_s{args.stages}_b{args.blocks}"
    for variant in VARIANTS if args.variants == "all" else args.variants.split(","):
        with torch.backends.mkldnn.flags(enabled=True):
            model, convert, flags = build_variant(variant, args, x[:args.batch], infer)
        b = args.batch
        batches = [(convert(x[i * b:(i + 1) * b].clone()), y[i * b:(i + 1) * b].clone()) for i in range(n)]
        if infer:
            step, mode = lambda xb, yb: model(xb), torch.inference_mode  # noqa: E731
        else:
            opt = make_optimizer(model)
            step, mode = lambda xb, yb: train_step(model, opt, xb, yb), contextlib.nullcontext  # noqa: E731
        nxt = 0

        def steps(count, t0):
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
                line = {"impl": "torch", "mode": "infer" if infer else "train", "net": net, "variant": variant,
                        "label": args.label, "threads": args.threads, "batch": args.batch, "iters": done, "rep": rep,
                        "img_s": round(done * args.batch / wall, 1), "ms_per_iter": round(wall * 1e3 / done, 3),
                        "cpu_util": round(cpu / wall, 2), "others_busy": round(others, 2)}
                if not infer:
                    value = out.item()
                    if value != value or abs(value) == float("inf"):
                        raise SystemExit(f"resnet_torch.py: {variant}: loss {value}")
                    line["loss"] = round(value, 4)
                print(json.dumps(line), flush=True)


def accuracy(args):
    xtr, ytr = load_part(args.data, "train")
    xte, yte = load_part(args.data, "test")
    for seed in (int(s) for s in args.seeds.split(",")):
        model = make_model(seed, args)
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
    p.add_argument("--batch", type=int, default=0, help="default 64 (infer: 256, accuracy: 128)")
    p.add_argument("--iters", type=int, default=50)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--max-seconds", type=float, default=0.0, help="cap of warm-up and of each run (0: none)")
    p.add_argument("--seed", type=int, default=123, help="speed, infer: the weights' seed")
    p.add_argument("--width", type=int, default=32)
    p.add_argument("--stages", type=int, default=3)
    p.add_argument("--blocks", type=int, default=1)
    p.add_argument("--variants", default="all", help=f"comma-separated, of {', '.join(VARIANTS)}; or all")
    p.add_argument("--label", default="", help="names the thread environment in the output")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--seeds", default="1")
    args = p.parse_args()
    args.batch = args.batch or {"infer": 256, "accuracy": 128}.get(args.mode, 64)
    if min(args.batch, args.iters, args.reps, args.epochs, args.width, args.stages, args.blocks) < 1 \
            or args.warmup < 0 or args.max_seconds < 0:
        p.error("batch, iters, reps, epochs, width, stages, blocks must be >= 1, warmup and max-seconds >= 0")
    torch.set_num_interop_threads(1)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    args.threads = torch.get_num_threads()
    accuracy(args) if args.mode == "accuracy" else speed(args)


if __name__ == "__main__":
    sys.exit(main())
