#!/usr/bin/env python3
"""PyTorch (CPU) peer of the character model's training step (org.ndrt.examples.CharModelling, in
the shape of Deeplearning4j's LSTMCharModellingExample): one-hot characters [32, 50, V] -> LSTM(200)
-> LSTM(200) -> Linear(V) -> cross-entropy at every step, backward, Adam(0.005) with L2 0.0001 --
one truncated-BPTT segment of 50 steps, the state carried from the previous segment (detached), as
Deeplearning4j's tBPTT does. Prints the median milliseconds per segment over --reps timed runs of
--steps segments each (after --warmup segments).

Usage: char_torch.py --threads T [--vocab 77] [--hidden 200] [--batch 32] [--tbptt 50]
                     [--steps 20] [--warmup 5] [--reps 5]
"""
import argparse
import json
import os
import statistics
import time

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--vocab", type=int, default=77)
    ap.add_argument("--hidden", type=int, default=200)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--tbptt", type=int, default=50)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    V, H, B, T = args.vocab, args.hidden, args.batch, args.tbptt
    lstm = torch.nn.LSTM(V, H, num_layers=2, batch_first=True)
    out = torch.nn.Linear(H, V)
    params = list(lstm.parameters()) + list(out.parameters())
    opt = torch.optim.Adam(params, lr=0.005, weight_decay=0.0001)
    g = torch.Generator().manual_seed(2)
    text = torch.randint(0, V, (B, (args.steps + args.warmup) * T + 1), generator=g)
    eye = torch.eye(V)
    state = None

    def segment(k):
        nonlocal state
        chars = text[:, k * T:(k + 1) * T + 1]
        x, y = eye[chars[:, :-1]], chars[:, 1:]
        h, state = lstm(x, state)
        state = tuple(s.detach() for s in state)
        loss = torch.nn.functional.cross_entropy(out(h).reshape(B * T, V), y.reshape(B * T))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss.item()

    for k in range(args.warmup):
        segment(k)
    times = []
    for _ in range(args.reps):
        t0 = time.perf_counter()
        for k in range(args.steps):
            segment(args.warmup + k)
        times.append((time.perf_counter() - t0) / args.steps * 1e3)
    print(json.dumps({"peer": "torch " + torch.__version__, "threads": args.threads, "ms_per_segment": statistics.median(times),
                      "all_ms": times, "env": {k: os.environ[k] for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS") if k in os.environ}}))


if __name__ == "__main__":
    main()
