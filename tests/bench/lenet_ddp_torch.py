#!/usr/bin/env python3
"""PyTorch DDP peer of the distributed LeNet benchmark (tests/bench/run_lenet_dist.sh).

The model, initialisation and optimizer of lenet_torch.py (LeNetMnist's network) wrapped in
torch.nn.parallel.DistributedDataParallel on the gloo backend (CPU), one process per rank, started
by mpirun: the rank and size come from Open MPI's environment (OMPI_COMM_WORLD_RANK/SIZE), the
rendezvous is TCP on 127.0.0.1 (--port). Each rank trains on its own slice of every global batch
(rank r takes [r*b, (r+1)*b) of batch-sized steps over the exported train split) with DDP's default
25 MiB buckets and its overlap of gradient allreduce with the backward pass.

Usage (under mpirun, T intra-op threads per rank):
  mpirun -np 2 lenet_ddp_torch.py --data DIR --threads 1 [--batch 64] [--iters 100] [--warmup 20]
                                  [--reps 3] [--variant eager|channels_last] [--port 29531]

Rank 0 prints one JSON line per rep: {"impl":"torch-ddp","ranks":N,"img_s": images of all ranks per
second, "ms_per_iter": ..., ...}.
"""
import argparse
import json
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lenet_torch  # noqa: E402  (model, optimizer, data loading shared with the 1-process peer)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--batch", type=int, default=64, help="per rank")
    p.add_argument("--iters", type=int, default=100)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--variant", default="eager", choices=("eager", "channels_last"))
    p.add_argument("--port", type=int, default=29531)
    p.add_argument("--seed", type=int, default=123)
    args = p.parse_args()

    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", "0"))
    size = int(os.environ.get("OMPI_COMM_WORLD_SIZE", "1"))
    torch.set_num_threads(args.threads)
    torch.set_num_interop_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{args.port}", rank=rank, world_size=size)

    x, y = lenet_torch.load_part(args.data, "train")
    b = args.batch
    steps_per_epoch = x.shape[0] // (b * size)
    if steps_per_epoch == 0:
        raise SystemExit(f"lenet_ddp_torch.py: fewer than {b * size} train images")
    model = lenet_torch.make_model(args.seed)
    convert = lambda t: t  # noqa: E731
    if args.variant == "channels_last":
        model = model.to(memory_format=torch.channels_last)
        convert = lambda t: t.contiguous(memory_format=torch.channels_last)  # noqa: E731
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    opt = lenet_torch.make_optimizer(ddp.module)
    batches = []
    for s in range(steps_per_epoch):
        lo = (s * size + rank) * b
        batches.append((convert(x[lo:lo + b].clone()), y[lo:lo + b].clone()))

    nxt = 0

    def steps(count):
        nonlocal nxt
        loss = None
        for _ in range(count):
            xb, yb = batches[nxt]
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(ddp(xb), yb)
            loss.backward()
            opt.step()
            nxt = (nxt + 1) % len(batches)
        return loss

    steps(args.warmup)
    for rep in range(args.reps):
        dist.barrier()
        t0 = time.perf_counter()
        loss = steps(args.iters)
        dist.barrier()
        wall = time.perf_counter() - t0
        if rank == 0:
            print(json.dumps({"impl": "torch-ddp", "variant": args.variant, "ranks": size, "threads": args.threads,
                              "batch_per_rank": b, "iters": args.iters, "rep": rep,
                              "img_s": round(args.iters * b * size / wall, 1),
                              "ms_per_iter": round(wall * 1e3 / args.iters, 3), "loss": round(loss.item(), 4)}),
                  flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
