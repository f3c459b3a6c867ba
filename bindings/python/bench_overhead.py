#!/usr/bin/python3
"""Per-op overhead of the Python binding: a 1-element f32 add with a given output.

    PYTHONPATH=bindings/python NDRT_LIBRARY=<build>/libndrt.so /usr/bin/python3 bindings/python/bench_overhead.py
    (or: cmake --build <build> --target python_bench_overhead)

Rows (median and best of R rounds of N calls each, ns per call):
  ndrt.ops.add(a, b, out=c)    the generated function (the path users take)
  ctypes ndrt_exec, prebuilt   ndrt_exec through ctypes (argtypes declared, as the package does)
                               with handle arrays built once: the floor of this binding
  ... without argtypes         the same call on a function object without argtypes: what skipping
                               ctypes' argument conversion would save (reference only; the
                               package always declares argtypes)
  torch.add(a, b, out=c)       PyTorch eager, for scale (skipped if torch is not importable)
  numpy.add(a, b, out=c)       numpy ufunc, for scale
The machine may be shared and noisy: rounds are interleaved across rows; compare rows of one run.
"""
import argparse
import ctypes
import statistics
import sys
import time

import numpy as np

import ndrt
from ndrt._lib import lib


def measure(cases, n, rounds):
    """cases: [(name, fn)]. Rounds are interleaved (each round runs every case once) so that load
    from other processes hits every row alike. Returns [(name, median ns, best ns)]."""
    for _, fn in cases:  # warm up
        for _ in range(max(1, n // 10)):
            fn()
    per = {name: [] for name, _ in cases}
    for _ in range(rounds):
        for name, fn in cases:
            t0 = time.perf_counter_ns()
            for _ in range(n):
                fn()
            per[name].append((time.perf_counter_ns() - t0) / n)
    return [(name, statistics.median(per[name]), min(per[name])) for name, _ in cases]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=20000, help="calls per round")
    ap.add_argument("-r", "--rounds", type=int, default=15)
    args = ap.parse_args()

    ndrt.attach("cpu:0")
    ndrt.config_set("cpu.threads", 1)
    a = ndrt.tensor(np.array([1.0], np.float32))
    b = ndrt.tensor(np.array([2.0], np.float32))
    c = ndrt.empty((1,), "f32")
    add = ndrt.ops.add
    cases = [("ndrt.ops.add(a, b, out=c)", lambda: add(a, b, out=c))]
    add(a, b, out=c)
    assert c.item() == 3.0

    op = ndrt.op_id("add")
    ins = (ctypes.c_int64 * 2)(a.handle, b.handle)
    outs = (ctypes.c_int64 * 1)(c.handle)
    ex = lib.ndrt_exec

    def raw():
        if ex(op, ins, 2, outs, 1, None, 0, None, 0):
            raise RuntimeError("exec failed")
    cases.append(("ctypes ndrt_exec, prebuilt arrays", raw))

    bare = ctypes.CDLL(ndrt.library_path).ndrt_exec  # reference row only: no argtypes
    bare.restype = ctypes.c_int32
    cases.append(("  ... without argtypes (reference)", lambda: bare(op, ins, 2, outs, 1, None, 0, None, 0)))

    try:
        import torch
        torch.set_num_threads(1)
        ta, tb, tc = torch.tensor([1.0]), torch.tensor([2.0]), torch.empty(1)
        cases.append(("torch.add(a, b, out=c) [torch %s]" % torch.__version__,
                      lambda: torch.add(ta, tb, out=tc)))
    except ImportError as e:
        print("torch not importable (%s): its row is skipped" % e)

    na, nb, nc = np.ones(1, np.float32), np.ones(1, np.float32), np.empty(1, np.float32)
    npadd = np.add
    cases.append(("numpy.add(a, b, out=c) [numpy %s]" % np.__version__, lambda: npadd(na, nb, out=nc)))
    rows = measure(cases, args.n, args.rounds)

    print("1-element f32 add with a given output; %d rounds x %d calls; python %s; ndrt %s (%s)"
          % (args.rounds, args.n, sys.version.split()[0], ndrt.__version__, ndrt.library_path))
    print("%-44s %12s %12s" % ("path", "median ns", "best ns"))
    for name, med, best in rows:
        print("%-44s %12.0f %12.0f" % (name, med, best))
    base = rows[0][1]
    for name, med, _ in rows[1:]:
        print("ndrt.ops.add / %-36s %6.2fx" % (name.split(" [")[0].strip(), base / med))


if __name__ == "__main__":
    main()
