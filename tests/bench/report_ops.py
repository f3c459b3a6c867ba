#!/usr/bin/env python3
"""Table of ndrt vs PyTorch medians from run_ops.sh's raw results.

Usage: report_ops.py DIR   (ndrt_*.json from ndrt_bench_ops, torch_*.json from peer_torch.py)

Per case and thread count: ndrt's median wall time over every repetition of every round; torch's
median for each of its formulations (variant: e.g. out= vs allocating) and environment settings
(label), of which the fastest is reported (its name in the last column), so the ratio never flatters
ndrt. ratio = torch time / ndrt time: > 1 means ndrt is faster; met = ratio >= 1. Also the spread
(interquartile range / median, both sides) and, for one thread, the ratio of process cpu times, which
time lost to other processes on a loaded machine distorts far less than wall time.
"""
import glob
import json
import math
import os
import re
import statistics
import sys

ORDER = ["conv1_fwd", "conv1_fwdbwd", "conv2_fwd", "conv2_fwdbwd", "conv1_maxpool_fwdbwd", "conv2_maxpool_fwdbwd",
         "add", "mul", "relu", "exp", "sigmoid", "tanh",
         "sum_all", "max_all", "mean_all", "sum_rows", "max_rows", "mean_rows", "sce_64x10", "sce_4096x1000",
         "lenet_step_b64"]
NS_PER = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
NAME = re.compile(r"^(?P<case>[^/]+)/threads:(?P<t>\d+)")
NDRT_FILE = re.compile(r"ndrt_r\d+_g\d+_t\d+_(?P<label>\w+)\.json$")


def median(v):
    return statistics.median(v) if v else None


def spread(v):
    if len(v) < 4:
        return None
    q = statistics.quantiles(v, n=4)
    return (q[2] - q[0]) / statistics.median(v)


def fmt_t(s):
    if s is None:
        return "-"
    if s >= 1e-1:
        return f"{s * 1e3:.0f} ms"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} us"


def read_json(path, ctx):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:  # e.g. a run still writing it, or one that crashed
        ctx["errors"].append(f"skipped {os.path.basename(path)}: {e}")
        return None


def load(d):
    ndrt, ndrt_cpu, torch, torch_cpu, ctx = {}, {}, {}, {}, {"load": [], "errors": []}
    for path in sorted(glob.glob(os.path.join(d, "ndrt_*.json"))):
        fm = NDRT_FILE.search(path)
        label = fm["label"] if fm else "default"
        doc = read_json(path, ctx)
        if doc is None:
            continue
        c = doc.get("context", {})
        ctx.setdefault("ndrt", c)
        if "load_avg" in c:
            ctx["load"].append(c["load_avg"][0])
        for b in doc.get("benchmarks", []):
            m = NAME.match(b.get("run_name", b["name"]))
            if not m:
                continue
            key = (m["case"], int(m["t"]), label)
            if b.get("error_occurred"):
                ctx["errors"].append(f"ndrt {b['name']}: {b.get('error_message')}")
                continue
            if b.get("run_type") != "iteration":
                continue
            unit = NS_PER[b.get("time_unit", "ns")]
            ndrt.setdefault(key, []).append(b["real_time"] * unit)
            ndrt_cpu.setdefault(key, []).append(b["cpu_time"] * unit)
    for path in sorted(glob.glob(os.path.join(d, "torch_*.json"))):
        doc = read_json(path, ctx)
        if doc is None:
            continue
        ctx.setdefault("torch", doc.get("context", {}))
        ctx["load"].extend(doc.get("context", {}).get("load_avg", [])[:1])
        for r in doc["results"]:
            key = (r["case"], int(r["threads"]), r["variant"], r["label"])
            torch.setdefault(key, []).extend(r["wall_s"])
            torch_cpu.setdefault(key, []).extend(r["cpu_s"])
    return ndrt, ndrt_cpu, torch, torch_cpu, ctx


def main(d):
    ndrt, ndrt_cpu, torch, torch_cpu, ctx = load(d)
    ndrt_labels = sorted({k[2] for k in ndrt}, key=lambda l: (l != "default", l))
    main_label = ndrt_labels[0] if ndrt_labels else "default"
    keys = sorted({k[:2] for k in ndrt} | {k[:2] for k in torch},
                  key=lambda k: (ORDER.index(k[0]) if k[0] in ORDER else 99, k[0], k[1]))
    header = ["op", "threads", "ndrt median", "torch median", "ratio", "met"]
    header += [f"ndrt {l} (ratio)" for l in ndrt_labels[1:]]
    header += ["spread ndrt/torch", "cpu-time ratio", "torch fastest as"]
    rows = [tuple(header)]
    label_rel = {}  # torch setting -> list of (its median / best median) over cases, for the notes
    met_count = [0, 0]
    for key in keys:
        nkey = key + (main_label,)
        n = median(ndrt.get(nkey, []))
        cands = {(v, l): median(s) for (c, t, v, l), s in torch.items() if (c, t) == key}
        best = min(cands, key=cands.get) if cands else None
        p = cands[best] if best else None
        if best:
            per_label = {}
            for (v, l), m in cands.items():
                per_label[l] = min(per_label.get(l, math.inf), m)
            for l, m in per_label.items():
                label_rel.setdefault(l, []).append(m / p)
        ratio = p / n if n and p else None
        met = "-" if ratio is None else ("yes" if ratio >= 1 else "NO")
        if ratio is not None:
            met_count[0] += ratio >= 1
            met_count[1] += 1
        others = []
        for l in ndrt_labels[1:]:
            o = median(ndrt.get(key + (l,), []))
            others.append("-" if o is None else f"{fmt_t(o)} ({p / o:.2f})" if p else fmt_t(o))
        sn, sp = spread(ndrt.get(nkey, [])), spread(torch.get(key + best, [])) if best else None
        spread_s = "/".join("-" if x is None else f"{x * 100:.0f}%" for x in (sn, sp))
        cpu_s = ""
        if key[1] == 1 and best:
            nc, pc = median(ndrt_cpu.get(nkey, [])), median(torch_cpu.get(key + best, []))
            if nc and pc:
                cpu_s = f"{pc / nc:.2f}"
        name = key[0]
        if name.startswith("lenet") and n and p:
            name += f" ({64 / n:.0f} vs {64 / p:.0f} img/s)"
        rows.append(tuple([name, str(key[1]), fmt_t(n), fmt_t(p), "-" if ratio is None else f"{ratio:.2f}", met]
                          + others + [spread_s, cpu_s, "-" if not best else f"{best[0]}, {best[1]}"]))

    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for i, r in enumerate(rows):
        print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")
        if i == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    print()
    print(f"met (ndrt '{main_label}' at least as fast as torch's best): {met_count[0]} of {met_count[1]}")
    nc, tc = ctx.get("ndrt", {}), ctx.get("torch", {})
    loads = ctx["load"]
    notes = [f"host {nc.get('host_name', '?')}, {nc.get('num_cpus', '?')} cpus",
             f"ndrt {nc.get('ndrt_version', '?')} (bench build {nc.get('ndrt_bench_build_type', '?')}; LeNet dense: "
             f"{nc.get('lenet_dense', '?')}, update: {nc.get('lenet_update', '?')})",
             f"torch {tc.get('torch_version', '?')}"]
    if loads:
        notes.append(f"1-min load average during the runs {min(loads):.1f}..{max(loads):.1f}")
    print("; ".join(notes))
    if label_rel:
        parts = []
        for l, v in sorted(label_rel.items()):
            g = math.exp(sum(math.log(x) for x in v) / len(v))
            parts.append(f"{l} {g:.3f}")
        print("torch settings, geometric mean of (setting's median / best median) over all rows (1.000 = always best): "
              + ", ".join(parts))
    if nc.get("ndrt_bench_build_type") not in (None, "Release"):
        print("WARNING: ndrt_bench_ops was not built as Release: these numbers say nothing about speed.")
    for e in ctx["errors"]:
        print("ERROR:", e)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
