#!/usr/bin/env python3
"""Markdown tables from run_lenet.sh's JSON lines (LeNetBench speed, lenet_torch.py speed/accuracy,
LeNetMnist's accuracy lines turned into JSON by run_lenet.sh).

Usage: report_lenet.py RESULTS.jsonl [--clean 0.25]

Speed: per thread count, the median img/s over rounds of ndrt-java and of every torch formulation
(variant + thread environment); torch's peer is the formulation with the best median, and the ratio
is ndrt / that. On a shared machine other processes take cores: each run records how many they kept
busy during its timed steps (others_busy), and the medians use only the runs where that stayed at or
below --clean cores, when a formulation has any. The best single runs are shown too (the least
disturbed). load1 is the 1-minute load average read before each run. Accuracy: test accuracy per epoch
for each implementation and seed, and the 3-epoch comparison.
"""
import argparse
import json
import statistics
import sys
from collections import defaultdict


def fmt(v, digits=0):
    return f"{v:,.{digits}f}"


def median_or_nan(v):
    return statistics.median(v) if v else float("nan")


def speed_tables(rows, clean):
    """Summary and per-formulation tables. A run is clean when other processes kept at most `clean`
    cores busy during it (others_busy); the summary uses the clean runs of a formulation when it has
    any, else all of them (marked *)."""
    by = defaultdict(list)  # (threads, impl, formulation) -> rows
    for r in rows:
        form = r.get("variant", "")
        if r["impl"] == "torch" and r.get("label"):
            form += " " + r["label"]
        by[(r["threads"], r["impl"], form)].append(r)

    def pick(runs):
        good = [r["img_s"] for r in runs if 0 <= r.get("others_busy", -1) <= clean]
        return (statistics.median(good), len(good), "") if good else (
            statistics.median(r["img_s"] for r in runs), len(runs), "*")

    out = ["| threads | ndrt-java img/s | torch img/s (best formulation) | ratio ndrt/torch | ndrt-java best"
           " | torch best | ratio of bests | clean runs ndrt / torch | load1 |",
           "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    detail = ["| threads | impl | formulation | median img/s (clean runs) | median img/s (all) | min | max"
              " | clean / runs | others_busy median |",
              "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for t in sorted({k[0] for k in by}):
        for (tt, impl, form), runs in sorted(by.items()):
            if tt != t:
                continue
            s = [r["img_s"] for r in runs]
            m, n, mark = pick(runs)
            busy = [r["others_busy"] for r in runs if r.get("others_busy", -1) >= 0]
            detail.append(f"| {t} | {impl} | {form} | {fmt(m) + mark} | {fmt(statistics.median(s))} | {fmt(min(s))}"
                          f" | {fmt(max(s))} | {n if not mark else 0} / {len(runs)} | {median_or_nan(busy):.2f} |")
        java = by.get((t, "ndrt-java", "f32"))
        torch = {k[2]: v for k, v in by.items() if k[0] == t and k[1] == "torch"}
        if not java or not torch:
            continue
        jm, jn, jmark = pick(java)
        best = max(torch, key=lambda f: pick(torch[f])[0])
        tm, tn, tmark = pick(torch[best])
        jbest = max(r["img_s"] for r in java)
        tbest_form = max(torch, key=lambda f: max(r["img_s"] for r in torch[f]))
        tbest = max(r["img_s"] for r in torch[tbest_form])
        loads = [r.get("load1", float("nan")) for v in [java] + list(torch.values()) for r in v]
        out.append(f"| {t} | {fmt(jm) + jmark} | {fmt(tm) + tmark} ({best}) | {jm / tm:.2f}x | {fmt(jbest)}"
                   f" | {fmt(tbest)} ({tbest_form}) | {jbest / tbest:.2f}x | {jn if not jmark else 0} / "
                   f"{tn if not tmark else 0} of {len(java)} | {min(loads):.2f}-{max(loads):.2f} |")
    return out, detail


def accuracy_tables(rows):
    runs = defaultdict(dict)  # (impl, seed, epochs of the run) -> {epoch: acc}
    for r in rows:
        runs[(r["impl"], r["seed"], r.get("epochs_total", 0))][r["epoch"]] = r["test_acc"]
    if not runs:
        return []
    epochs = max(max(e) for e in runs.values())
    out = ["| impl | seed | run of | " + " | ".join(f"ep {e}" for e in range(1, epochs + 1)) + " |",
           "| --- | ---: | ---: |" + " ---: |" * epochs]
    for (impl, seed, total), acc in sorted(runs.items()):
        cells = [f"{acc[e]:.4f}" if e in acc else "" for e in range(1, epochs + 1)]
        out.append(f"| {impl} | {seed} | {total} | " + " | ".join(cells) + " |")
    out.append("")
    for impl in sorted({k[0] for k in runs}):
        at3 = {}  # seed -> accuracy after 3 epochs, from the shortest run of that seed
        for (i, seed, _), acc in sorted(runs.items(), key=lambda kv: kv[0][2]):
            if i == impl and 3 in acc:
                at3.setdefault(seed, acc[3])
        if at3:
            v = list(at3.values())
            out.append(f"- {impl} after 3 epochs: mean {statistics.mean(v):.4f} (min {min(v):.4f}, max {max(v):.4f},"
                       f" seeds {', '.join(str(s) for s in at3)})")
        for (i, seed, _), acc in sorted(runs.items()):
            last = max(acc)
            first98 = next((e for e in sorted(acc) if acc[e] >= 0.98), None)
            if i == impl and last > 3:
                out.append(f"- {impl} seed {seed}: {acc[last]:.4f} after {last} epochs, best {max(acc.values()):.4f};"
                           f" first epoch >= 0.98: {first98 if first98 else 'none'}")
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results")
    p.add_argument("--clean", type=float, default=0.25,
                   help="a run is clean when other processes kept at most this many cores busy (default 0.25)")
    args = p.parse_args()
    speed, acc = [], []
    with open(args.results) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"report_lenet.py: line {n}: {e}: {line}")
            (acc if r.get("mode") == "accuracy" else speed).append(r)
    if speed:
        summary, detail = speed_tables(speed, args.clean)
        print("### LeNet training speed, batch 64, f32 (img/s)\n")
        print(f"Medians over the clean runs (other processes kept <= {args.clean} cores busy); * = no clean run,"
              " median of all. Best = the fastest single run.\n")
        print("\n".join(summary))
        print("\nEvery formulation:\n")
        print("\n".join(detail))
    if acc:
        print("\n### Test accuracy on the same split (8,000 train / 2,000 test, seed 123), batch 64\n")
        print("\n".join(accuracy_tables(acc)))
    if not speed and not acc:
        sys.exit("report_lenet.py: no results in " + args.results)


if __name__ == "__main__":
    main()
