#!/usr/bin/env python3
"""Markdown tables from run_lenet_dist.sh's JSON lines (LeNetBench speed and dist-speed,
lenet_torch.py speed, lenet_ddp_torch.py), each tagged by the script with its configuration
("config"), round and load average.

Usage: report_lenet_dist.py RESULTS.jsonl [--ranks 2]

Per configuration (and torch formulation): the median img/s over rounds (images of all ranks per
second for the distributed runs), min, max, the median cores other processes kept busy meanwhile
(others_busy, where the run measured it) and the load averages. torch's 1-process and DDP peers are
their best formulation by median. Ratios: scaling efficiency = (N-rank img/s) / (N x 1-process-
1-thread img/s) for each side; ndrt-dist / torch-ddp; ndrt 1 process / torch 1 process; and ndrt's N
ranks x 1 thread against its 1 process x N threads (the same cores, processes against threads).
"""
import argparse
import json
import statistics
import sys
from collections import defaultdict


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results")
    p.add_argument("--ranks", type=int, default=2)
    args = p.parse_args()
    rows = []
    with open(args.results) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    if not rows:
        sys.exit("report_lenet_dist.py: no results")
    n = args.ranks

    by = defaultdict(list)  # (config, formulation) -> rows
    for r in rows:
        form = r.get("variant", "") if r["impl"] in ("torch", "torch-ddp") else ""
        by[(r["config"], form)].append(r)

    def med(runs):
        return statistics.median(r["img_s"] for r in runs)

    print(f"| configuration | formulation | median img/s | min | max | runs | others_busy median | load1 |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for (config, form), runs in sorted(by.items()):
        s = [r["img_s"] for r in runs]
        busy = [r["others_busy"] for r in runs if r.get("others_busy", -1) >= 0]
        loads = [r.get("load1", float("nan")) for r in runs]
        print(f"| {config} | {form or '-'} | {statistics.median(s):,.0f} | {min(s):,.0f} | {max(s):,.0f} | {len(s)}"
              f" | {statistics.median(busy):.2f} | {min(loads):.2f}-{max(loads):.2f} |" if busy else
              f"| {config} | {form or '-'} | {statistics.median(s):,.0f} | {min(s):,.0f} | {max(s):,.0f} | {len(s)}"
              f" | - | {min(loads):.2f}-{max(loads):.2f} |")

    def best(config):
        """(median img/s, formulation) of the configuration's best formulation, or (None, None)."""
        forms = {f: v for (c, f), v in by.items() if c == config}
        if not forms:
            return None, None
        f = max(forms, key=lambda k: med(forms[k]))
        return med(forms[f]), f

    ndrt1, _ = best("ndrt 1x1")
    ndrt1n, _ = best(f"ndrt 1x{n}")
    ndrtd, _ = best(f"ndrt dist {n}x1")
    torch1, torch1f = best("torch 1x1")
    ddpm, ddpf = best(f"torch ddp {n}x1")

    def ratio(a, b, scale=1.0):
        return f"{a / (scale * b):.2f}" if a and b else "n/a"

    print()
    print("| ratio | value | from (median img/s) |")
    print("| --- | ---: | --- |")
    print(f"| ndrt scaling efficiency: {n} ranks x 1 thread / ({n} x 1 process x 1 thread) | {ratio(ndrtd, ndrt1, n)}"
          f" | {ndrtd or 0:,.0f} / ({n} x {ndrt1 or 0:,.0f}) |")
    print(f"| torch scaling efficiency: DDP {n} ranks x 1 thread / ({n} x 1 process x 1 thread) | {ratio(ddpm, torch1, n)}"
          f" | {ddpm or 0:,.0f} ({ddpf}) / ({n} x {torch1 or 0:,.0f} ({torch1f})) |")
    print(f"| ndrt-dist / torch-ddp ({n} ranks x 1 thread) | {ratio(ndrtd, ddpm)} | {ndrtd or 0:,.0f} / {ddpm or 0:,.0f} ({ddpf}) |")
    print(f"| ndrt / torch, 1 process x 1 thread | {ratio(ndrt1, torch1)} | {ndrt1 or 0:,.0f} / {torch1 or 0:,.0f} ({torch1f}) |")
    print(f"| ndrt: {n} ranks x 1 thread / 1 process x {n} threads (same cores) | {ratio(ndrtd, ndrt1n)}"
          f" | {ndrtd or 0:,.0f} / {ndrt1n or 0:,.0f} |")


if __name__ == "__main__":
    main()
