#!/usr/bin/env python3
"""Markdown tables from run_lenet.sh's JSON lines (LeNetBench speed/infer/sgemm, lenet_torch.py
speed/infer/accuracy, LeNetMnist's accuracy lines turned into JSON by run_lenet.sh).

Usage: report_lenet.py RESULTS.jsonl [--clean 0.25]

Speed, per pass (quiet, and contended: a busy loop on one core) and mode (training, inference): per
thread count, the median img/s over rounds of ndrt-java and of every torch formulation (variant +
thread environment); torch's peer is the formulation with the best median, and the ratio is ndrt /
that. On a shared machine other processes take cores: each run records how many they kept busy during
its timed steps (others_busy), and the medians use only the runs where that stayed at or below --clean
cores (in the contended pass: 1 + --clean, the busy loop's core expected), when a formulation has any.
The best single runs are shown too (the least disturbed). load1 is the 1-minute load average read
before each run. Next to each figure, in parentheses, its compute-limit fraction: img/s x FLOPs per
image / the quiet pass's sgemm rate at the same thread count (ndrt's f32 matmul, LeNetBench sgemm).
The contended pass also gets contended T threads / quiet T-1 threads of each implementation (one core
taken: T threads should not be slower than T-1 on free cores; target >= 0.95). Lines without "mode"
are training, without "contended" the quiet pass (older result files). Accuracy: test accuracy per
epoch for each implementation and seed, and the 3-epoch comparison.
"""
import argparse
import json
import statistics
import sys
from collections import defaultdict

MODES = {"speed": "training", "infer": "inference"}
PASSES = {0: "quiet", 1: "contended (one core busy with another process)"}
TARGET = 0.95  # contended T threads / quiet T-1 threads


def lenet_flops():
    """(training, inference) FLOPs per image of LeNet: conv 5x5x20 on 28x28x1, maxpool 2, conv 5x5x50,
    maxpool 2, dense 800->500, dense 500->10. A multiply-add is 2 FLOPs; pooling, biases, activations and
    the loss are left out (under 1%). Training = forward + backward, and the backward pass costs each
    layer's forward twice (data and weight gradients), less conv1's data gradient (nobody needs the
    input's)."""
    macs, hw, c = [], 28, 1
    for c_out, k in ((20, 5), (50, 5)):
        hw -= k - 1
        macs.append(hw * hw * c_out * k * k * c)
        hw, c = hw // 2, c_out  # maxpool 2
    n = hw * hw * c  # 800
    for n_out in (500, 10):
        macs.append(n * n_out)
        n = n_out
    fwd = 2 * sum(macs)
    return {"speed": 3 * fwd - 2 * macs[0], "infer": fwd}


FLOPS = lenet_flops()  # 13.18 and 4.59 MFLOP


def fmt(v, digits=0):
    return f"{v:,.{digits}f}"


def median_or_nan(v):
    return statistics.median(v) if v else float("nan")


def is_clean(r, clean):
    """Other processes kept at most `clean` cores busy (besides the busy loop in the contended pass)."""
    return 0 <= r.get("others_busy", -1) <= clean + r.get("contended", 0)


def pick(runs, clean, key="img_s"):
    """(median, runs it is over, mark): of the clean runs when there are any, else of all (mark *)."""
    good = [r[key] for r in runs if is_clean(r, clean)]
    return (statistics.median(good), len(good), "") if good else (
        statistics.median(r[key] for r in runs), len(runs), "*")


def formulation(r):
    form = r.get("variant", "")
    if r["impl"] == "torch" and r.get("label"):
        form += " " + r["label"]
    return form


def group(rows):
    """(pass, mode, threads, impl, formulation) -> runs."""
    by = defaultdict(list)
    for r in rows:
        by[(r.get("contended", 0), r.get("mode", "speed"), r["threads"], r["impl"], formulation(r))].append(r)
    return by


def peers(by, cont, mode, t, clean):
    """(ndrt-java runs, torch's best formulation by clean median, its runs, every torch formulation), or
    None where a side has no runs."""
    java = by.get((cont, mode, t, "ndrt-java", "f32"))
    torch = {k[4]: v for k, v in by.items() if k[:4] == (cont, mode, t, "torch")}
    if not java or not torch:
        return None
    best = max(torch, key=lambda f: pick(torch[f], clean)[0])
    return java, best, torch[best], torch


def sgemm_rates(rows, clean):
    """threads -> {pass: (median GFLOP/s, clean runs, runs, mark, best)}."""
    by = defaultdict(list)
    for r in rows:
        by[(r["threads"], r.get("contended", 0))].append(r)
    out = defaultdict(dict)
    for (t, cont), runs in by.items():
        m, n, mark = pick(runs, clean, "gflops")
        out[t][cont] = (m, n if not mark else 0, len(runs), mark, max(r["gflops"] for r in runs))
    return out


def speed_tables(rows, clean, cont, mode, limit):
    """Summary and per-formulation tables of one pass and mode; limit: threads -> quiet sgemm GFLOP/s."""
    by = group(rows)

    def frac(img_s, t):  # the compute-limit fraction, where the quiet sgemm rate is known
        return f" ({img_s * FLOPS[mode] / (limit[t] * 1e9):.0%})" if t in limit else ""

    out = ["| threads | ndrt-java img/s | torch img/s (best formulation) | ratio ndrt/torch | ndrt-java best"
           " | torch best | ratio of bests | clean runs ndrt / torch | load1 |",
           "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    detail = ["| threads | impl | formulation | median img/s (clean runs) | median img/s (all) | min | max"
              " | clean / runs | others_busy median |",
              "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for t in sorted({k[2] for k in by if k[:2] == (cont, mode)}):
        for (_, _, _, impl, form), runs in sorted((k, v) for k, v in by.items() if k[:3] == (cont, mode, t)):
            s = [r["img_s"] for r in runs]
            m, n, mark = pick(runs, clean)
            busy = [r["others_busy"] for r in runs if r.get("others_busy", -1) >= 0]
            detail.append(f"| {t} | {impl} | {form} | {fmt(m) + mark}{frac(m, t)} | {fmt(statistics.median(s))}"
                          f" | {fmt(min(s))} | {fmt(max(s))} | {n if not mark else 0} / {len(runs)}"
                          f" | {median_or_nan(busy):.2f} |")
        p = peers(by, cont, mode, t, clean)
        if not p:
            continue
        java, best, best_runs, torch = p
        jm, jn, jmark = pick(java, clean)
        tm, tn, tmark = pick(best_runs, clean)
        jbest = max(r["img_s"] for r in java)
        tbest_form = max(torch, key=lambda f: max(r["img_s"] for r in torch[f]))
        tbest = max(r["img_s"] for r in torch[tbest_form])
        loads = [r.get("load1", float("nan")) for v in [java] + list(torch.values()) for r in v]
        out.append(f"| {t} | {fmt(jm) + jmark}{frac(jm, t)} | {fmt(tm) + tmark}{frac(tm, t)} ({best}) | {jm / tm:.2f}x"
                   f" | {fmt(jbest)}{frac(jbest, t)} | {fmt(tbest)}{frac(tbest, t)} ({tbest_form}) | {jbest / tbest:.2f}x"
                   f" | {jn if not jmark else 0} / {tn if not tmark else 0} of {len(java)}"
                   f" | {min(loads):.2f}-{max(loads):.2f} |")
    return out, detail


def contention_table(rows, clean):
    """Per mode and implementation: contended T threads / quiet T-1 threads (clean medians; torch: its best
    formulation in each pass)."""
    by = group(rows)
    out = ["| mode | threads: quiet / contended | impl | quiet img/s | contended img/s | ratio | >= "
           f"{TARGET} |", "| --- | ---: | --- | ---: | ---: | ---: | --- |"]
    for mode in MODES:
        for t in sorted({k[2] for k in by if k[:2] == (1, mode)}):
            q, c = peers(by, 0, mode, t - 1, clean), peers(by, 1, mode, t, clean)
            if t < 2 or not q or not c:
                continue
            for impl, i in (("ndrt-java", 0), ("torch", 2)):
                (qm, _, qmark), (cm, _, cmark) = pick(q[i], clean), pick(c[i], clean)
                names = f" ({q[1]} / {c[1]})" if impl == "torch" else ""
                out.append(f"| {MODES[mode]} | {t - 1} / {t} | {impl}{names} | {fmt(qm) + qmark} | {fmt(cm) + cmark}"
                           f" | {cm / qm:.2f} | {'yes' if cm / qm >= TARGET else 'no'} |")
    return out if len(out) > 2 else []


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
    sgemm = [r for r in speed if r.get("mode") == "sgemm"]
    speed = [r for r in speed if r.get("mode") != "sgemm"]
    rates = sgemm_rates(sgemm, args.clean)
    limit = {t: v[0][0] for t, v in rates.items() if 0 in v}
    if rates:
        print(f"### sgemm: ndrt's f32 matmul, {sgemm[0].get('size', '?')}^2 (GFLOP/s, median of each run's products)\n")
        print("The compute limit of the fractions below: the quiet pass's median at each thread count.\n")
        print("| threads | quiet GFLOP/s | best | clean / runs | contended GFLOP/s | best | clean / runs |")
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for t, v in sorted(rates.items()):
            cells = [f"{fmt(m, 1) + mark} | {fmt(b, 1)} | {n} / {runs}" if m is not None else " | | "
                     for m, n, runs, mark, b in (v.get(c, (None,) * 5) for c in (0, 1))]
            print(f"| {t} | " + " | ".join(cells) + " |")
        print()
    batch = {mode: sorted({r.get("batch", 64) for r in speed if r.get("mode", "speed") == mode}) for mode in MODES}
    for cont, name in PASSES.items():
        for mode, what in MODES.items():
            if not any(r.get("contended", 0) == cont and r.get("mode", "speed") == mode for r in speed):
                continue
            summary, detail = speed_tables(speed, args.clean, cont, mode, limit)
            allowed = args.clean + cont
            print(f"### LeNet {what} speed, {name}: batch {', '.join(map(str, batch[mode]))}, f32 (img/s)\n")
            frac = (f" (x%) = compute-limit fraction: img/s x {FLOPS[mode] / 1e6:.2f} MFLOP per image / the quiet"
                    " sgemm GFLOP/s at those threads." if limit else "")
            print(f"Medians over the clean runs (other processes kept <= {allowed} cores busy); * = no clean run,"
                  f" median of all. Best = the fastest single run.{frac}\n")
            print("\n".join(summary))
            print("\nEvery formulation:\n")
            print("\n".join(detail))
            print()
    ratios = contention_table(speed, args.clean)
    if ratios:
        print(f"### One core taken: contended T threads / quiet T-1 threads (target >= {TARGET})\n")
        print("\n".join(ratios))
        print()
    if acc:
        print("### Test accuracy on the same split (8,000 train / 2,000 test, seed 123), batch 64\n")
        print("\n".join(accuracy_tables(acc)))
    if not speed and not sgemm and not acc:
        sys.exit("report_lenet.py: no results in " + args.results)


if __name__ == "__main__":
    main()
