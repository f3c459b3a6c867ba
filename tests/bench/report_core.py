#!/usr/bin/env python3
"""Pairs ndrt_bench results "<case>/ndrt" with "<case>/peer" and prints medians, ratio, target.

Usage: report_core.py results.json   (Google Benchmark JSON, run with repetitions + aggregates)
"""
import json
import re
import sys

NS_PER = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}

# case regex -> (metric, peer description, target kind, target value)
#   metric "time": lower is better, ratio = ndrt time / peer time (x slower)
#   metric "bw" / "gflops": higher is better, ratio = ndrt / peer
#   target kinds: "abs_ns_max" (ndrt time <= value), "ratio_min" (ratio >= value), None (informative)
RULES = [
    (r"^exec_add1$", "time", "C call", "abs_ns_max", 150.0),
    (r"^exec_add1_newout$", "time", "-", None, None),
    (r"^add16M/", "bw", "triad", "ratio_min", 0.85),
    (r"^matmul\d+/", "gflops", "sgemm", "ratio_min", 0.97),
    (r"^alloc_1MiB$", "time", "malloc+free", None, None),
]
# Cases where both sides run on the calling thread alone: there the ratio of cpu times is a
# cross-check that a loaded machine (time lost to preemption) distorts far less than wall time.
SINGLE_THREADED = re.compile(r"^(exec_add1|exec_add1_newout|alloc_1MiB|add16M/threads:1)$")
NAME = re.compile(r"^(?P<case>.+)/(?P<side>ndrt|peer)(?P<rest>/.*)?$")


def rule_index(case):
    for i, rule in enumerate(RULES):
        if re.search(rule[0], case):
            return i
    return len(RULES)


def rule_for(case):
    i = rule_index(case)
    return RULES[i][1:] if i < len(RULES) else ("time", "?", None, None)


def case_key(case):
    """Table order: RULES order, then by name with numbers compared as numbers."""
    parts = re.split(r"(\d+)", case)
    return (rule_index(case), [int(x) if x.isdigit() else x for x in parts])


def value(run, metric):
    if metric == "time":
        return run["real_time"] * NS_PER[run.get("time_unit", "ns")]
    if metric == "bw":
        return run["bytes_per_second"] / 1e9
    return run["GFLOP/s"]


def fmt(v, metric):
    if v is None:
        return "-"
    if metric == "time":
        return f"{v / 1e3:.2f} us" if v >= 1e4 else f"{v:.1f} ns"
    if metric == "bw":
        return f"{v:.2f} GB/s"
    return f"{v:.1f} GFLOP/s"


def main(path):
    with open(path) as f:
        doc = json.load(f)
    ctx = doc.get("context", {})
    med, cpu, cv, errors, order = {}, {}, {}, {}, []
    for b in doc["benchmarks"]:
        m = NAME.match(b.get("run_name", b["name"]))
        if not m:
            continue
        key = (m["case"], m["side"])
        if m["case"] not in order:
            order.append(m["case"])
        if b.get("error_occurred"):
            errors[key] = b.get("error_message", "error")
        metric = rule_for(m["case"])[0]
        agg = b.get("aggregate_name")
        if b.get("run_type") == "aggregate" and agg in ("median", "cv"):
            if agg == "median":
                med[key] = value(b, metric)
                cpu[key] = b["cpu_time"] * NS_PER[b.get("time_unit", "ns")]
            else:  # cv of the time; the rate counters have the same relative spread
                cv[key] = b["real_time"]
        elif b.get("run_type") == "iteration" and key not in med and not b.get("error_occurred"):
            med[key] = value(b, metric)  # a run without repetitions: take the single value
            cpu[key] = b["cpu_time"] * NS_PER[b.get("time_unit", "ns")]

    rows = [("benchmark", "ndrt median", "peer median", "ratio", "target", "met", "cv ndrt/peer", "cpu-time ratio")]
    for case in sorted(order, key=case_key):
        metric, peer, kind, tv = rule_for(case)
        n, p = med.get((case, "ndrt")), med.get((case, "peer"))
        ratio, ratio_s = None, "-"
        if n is not None and p is not None and p > 0 and n > 0:
            if metric == "time":
                ratio = n / p
                ratio_s = f"{ratio:.2f}x time"
            else:
                ratio = n / p
                ratio_s = f"{ratio * 100:.1f}%"
        if kind == "abs_ns_max":
            target = f"<= {tv:.0f} ns"
            met = "-" if n is None else ("yes" if n <= tv else "NO")
        elif kind == "ratio_min":
            target = f">= {tv * 100:.0f}% of {peer}"
            met = "-" if ratio is None else ("yes" if ratio >= tv else "NO")
            if ratio is not None and ratio > 1.15:  # same work, same threads: far ahead is a smell
                met += " (suspect: ndrt far ahead; same thread count on both sides?)"
        else:
            target, met = "(info)", ""
        for side in ("ndrt", "peer"):
            if (case, side) in errors:
                met = f"ERROR ({side}): {errors[(case, side)]}"
        cvs = "/".join("-" if (case, s) not in cv else f"{cv[(case, s)] * 100:.1f}%" for s in ("ndrt", "peer"))
        peer_s = fmt(p, metric) + (f" ({peer})" if p is not None else "")
        cpu_s = ""
        nc, pc = cpu.get((case, "ndrt")), cpu.get((case, "peer"))
        if SINGLE_THREADED.match(case) and nc and pc:
            cpu_s = f"{nc / pc:.2f}x time" if metric == "time" else f"{pc / nc * 100:.1f}%"
        rows.append((case, fmt(n, metric), peer_s, ratio_s, target, met, cvs, cpu_s))

    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for i, r in enumerate(rows):
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        if i == 0:
            print("  ".join("-" * w for w in widths))
    print()
    notes = [f"host {ctx.get('host_name', '?')}, {ctx.get('num_cpus', '?')} cpus @ {ctx.get('mhz_per_cpu', '?')} MHz",
             f"ndrt {ctx.get('ndrt_version', '?')}, bench build {ctx.get('ndrt_bench_build_type', '?')}",
             f"default cpu.threads {ctx.get('ndrt_default_cpu_threads', '?')}"]
    if "load_avg" in ctx:
        notes.append("load avg " + " ".join(f"{x:.2f}" for x in ctx["load_avg"]))
    print("; ".join(notes))
    if ctx.get("ndrt_bench_build_type") not in (None, "Release"):
        print("WARNING: ndrt_bench was not built as Release: these numbers say nothing about speed.")
    if ctx.get("cpu_scaling_enabled"):
        print("note: cpu frequency scaling is enabled; expect extra noise.")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
