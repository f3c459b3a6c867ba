#!/usr/bin/env python3
"""Table of ndrt (cuda:0) vs its raw CUDA peer and vs PyTorch, from run_gpu.sh's raw results.

Usage: report_gpu.py DIR   (ndrt_*.json from ndrt_bench_gpu, torch_*.json from peer_torch_gpu.py)

Per case: ndrt's median time per call over every repetition of every round, and its rate (GB/s for
the bandwidth cases, bytes moved per call / time; TFLOP/s for matmul; images/s for the LeNet step).
raw: the peer in the same binary (cudaMemcpyAsync D2D for the bandwidth cases, cublasGemmEx with the
same types for matmul, a 4-byte cudaMemsetAsync for the launch-overhead case); "of raw" = ndrt's
rate / raw's rate (1.00 = as fast as the hardware path; for bandwidth, the fraction of copy
bandwidth). torch: the fastest of its formulations (its name in the last column); ratio = torch
time / ndrt time: > 1 means ndrt is faster. spread = interquartile range / median (ndrt/torch).
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_ops import median, read_json, spread  # noqa: E402

BANDWIDTH = ["add", "mul", "exp", "relu", "sum_all", "max_all"]
ORDER = BANDWIDTH + ["matmul_f32", "matmul_tf32", "matmul_bf16", "neg_1"]
ORDER += [f"conv{i}_{p}_b{n}" for n in (64, 512) for i in (1, 2) for p in ("fwd", "fwdbwd")]
ORDER += ["lenet_step_b64", "lenet_step_b512"]
RAW = {**{b: "memcpy_d2d" for b in BANDWIDTH}, "matmul_f32": "cublas_f32", "matmul_tf32": "cublas_tf32",
       "matmul_bf16": "cublas_bf16", "neg_1": "memset_4B"}
RAW_CASES = ["memcpy_d2d", "cublas_f32", "cublas_tf32", "cublas_bf16", "memset_4B"]
GIB = 1 << 30
# Work per call where neither side's JSON says (it always should).
WORK = {"add": ("bytes", 3 * GIB), "mul": ("bytes", 3 * GIB), "exp": ("bytes", 2 * GIB), "relu": ("bytes", 2 * GIB),
        "sum_all": ("bytes", GIB), "max_all": ("bytes", GIB), "memcpy_d2d": ("bytes", 2 * GIB),
        **{f"{p}_{k}": ("flop", 2 * 8192 ** 3) for p in ("matmul", "cublas") for k in ("f32", "tf32", "bf16")}}
NS_PER = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def fmt_t(s):
    if s is None:
        return "-"
    if s >= 1e-1:
        return f"{s * 1e3:.0f} ms"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    if s >= 1e-6:
        return f"{s * 1e6:.1f} us"
    return f"{s * 1e9:.0f} ns"


def case_of(name):
    return name.split("/")[0]


def load(d):
    ndrt, torch, work, ctx = {}, {}, {}, {"errors": [], "load": []}
    for path in sorted(glob.glob(os.path.join(d, "ndrt_*.json"))):
        doc = read_json(path, ctx)
        if doc is None:
            continue
        c = doc.get("context", {})
        ctx.setdefault("ndrt", c)
        if "load_avg" in c:
            ctx["load"].append(c["load_avg"][0])
        for b in doc.get("benchmarks", []):
            case = case_of(b.get("run_name", b["name"]))
            if b.get("error_occurred"):
                ctx["errors"].append(f"ndrt {b['name']}: {b.get('error_message')}")
                continue
            if b.get("run_type") != "iteration":
                continue
            ndrt.setdefault(case, []).append(b["real_time"] * NS_PER[b.get("time_unit", "ns")])
            for k in ("bytes", "flop"):
                if b.get(k):
                    work[case] = (k, float(b[k]))
    for path in sorted(glob.glob(os.path.join(d, "torch_*.json"))):
        doc = read_json(path, ctx)
        if doc is None:
            continue
        ctx.setdefault("torch", doc.get("context", {}))
        ctx["load"].extend(doc.get("context", {}).get("load_avg", [])[:1])
        ctx["errors"].extend("torch " + e for e in doc.get("errors", []))
        for r in doc["results"]:
            torch.setdefault((r["case"], r["variant"], r["label"]), []).extend(r["wall_s"])
            for k in ("bytes", "flop"):
                if r.get(k) and r["case"] not in work:
                    work[r["case"]] = (k, float(r[k]))
    for case, w in WORK.items():
        work.setdefault(case, w)
    return ndrt, torch, work, ctx


def rate(case, t, work, batch_images):
    """GB/s, TFLOP/s or images/s of one call taking t seconds (None for a case without work)."""
    if t is None:
        return None
    if case in work:
        kind, amount = work[case]
        return amount / t / 1e9 if kind == "bytes" else amount / t / 1e12
    if case in batch_images:
        return batch_images[case] / t
    return None


def fmt_rate(case, r, work, batch_images):
    if r is None:
        return "-"
    if case in work:
        return f"{r:.0f} GB/s" if work[case][0] == "bytes" else f"{r:.1f} TFLOP/s"
    if case in batch_images:
        return f"{r:.0f} img/s"
    return "-"


def print_table(rows):
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for i, r in enumerate(rows):
        print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")
        if i == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


def torch_best(torch, case):
    cands = {(v, l): median(s) for (c, v, l), s in torch.items() if c == case}
    if not cands:
        return None, None
    best = min(cands, key=cands.get)
    return best, cands[best]


def main(d):
    ndrt, torch, work, ctx = load(d)
    images = {c: int(m.group(1)) for c in set(ndrt) | {k[0] for k in torch} for m in [re.search(r"^lenet_step_b(\d+)$", c)] if m}
    cases = sorted({c for c in ndrt if c not in RAW_CASES} | {k[0] for k in torch if k[0] not in RAW_CASES},
                   key=lambda c: (ORDER.index(c) if c in ORDER else 99, c))
    rows = [("op", "ndrt", "ndrt rate", "raw peer", "raw", "of raw", "torch", "torch rate", "ratio", "spread ndrt/torch",
             "torch fastest as")]
    met = [0, 0]
    for case in cases:
        n = median(ndrt.get(case, []))
        nr = rate(case, n, work, images)
        peer = RAW.get(case)
        r = median(ndrt.get(peer, [])) if peer else None
        if peer and n and r:
            # Rates in the same work units: for bandwidth both in bytes moved; otherwise the same work.
            rr = rate(peer, r, work, images)
            frac = (nr / rr) if (nr is not None and rr) else r / n
            of_raw = f"{frac:.2f}"
        else:
            of_raw = "-"
        best, p = torch_best(torch, case)
        ratio = p / n if n and p else None
        if ratio is not None:
            met[0] += ratio >= 1
            met[1] += 1
        sn = spread(ndrt.get(case, []))
        sp = spread(torch.get((case,) + best, [])) if best else None
        rows.append((case, fmt_t(n), fmt_rate(case, nr, work, images), peer or "-",
                     fmt_t(r) if peer else "-", of_raw, fmt_t(p), fmt_rate(case, rate(case, p, work, images), work, images),
                     "-" if ratio is None else f"{ratio:.2f}",
                     "/".join("-" if x is None else f"{x * 100:.0f}%" for x in (sn, sp)),
                     "-" if not best else f"{best[0]}, {best[1]}"))
    print_table(rows)
    print()
    raw_rows = [("raw peer", "time", "rate", "torch equivalent", "torch rate")]
    for case in RAW_CASES:
        t = median(ndrt.get(case, []))
        if t is None:
            continue
        _, p = torch_best(torch, case)
        raw_rows.append((case, fmt_t(t), fmt_rate(case, rate(case, t, work, images), work, images),
                         fmt_t(p) if p else "-", fmt_rate(case, rate(case, p, work, images), work, images) if p else "-"))
    if len(raw_rows) > 1:
        print_table(raw_rows)
        print()
    print(f"ndrt at least as fast as torch's best: {met[0]} of {met[1]}")
    nc, tc = ctx.get("ndrt", {}), ctx.get("torch", {})
    notes = [f"gpu {nc.get('gpu_name', tc.get('gpu_name', '?'))}",
             f"ndrt {nc.get('ndrt_version', '?')} (bench build {nc.get('ndrt_bench_build_type', '?')}, CUDA runtime "
             f"{nc.get('cuda_runtime', '?')}; LeNet dense: {nc.get('lenet_dense', '?')}, update: {nc.get('lenet_update', '?')}"
             f"; batch {nc.get('batch_ms', '?')} ms)",
             f"torch {tc.get('torch_version', '?')} (CUDA {tc.get('torch_cuda', '?')}, cuDNN {tc.get('cudnn', '?')}, "
             f"cudnn.benchmark {tc.get('cudnn_benchmark', '?')})"]
    if ctx["load"]:
        notes.append(f"1-min load average during the runs {min(ctx['load']):.1f}..{max(ctx['load']):.1f}")
    print("; ".join(notes))
    if nc.get("ndrt_bench_build_type") not in (None, "Release"):
        print("WARNING: ndrt_bench_gpu was not built as Release: host-side numbers (launch overhead) say little.")
    for e in ctx["errors"]:
        print("ERROR:", e)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
