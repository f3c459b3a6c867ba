#!/usr/bin/env python3
"""Summary tables from run_resnet.sh's JSON lines (ResNetBench speed/infer, resnet_torch.py
speed/infer/accuracy, ResNetMnist's accuracy lines).

Usage: report_resnet.py RESULTS.jsonl [--clean 0.25]

Per mode (training, inference) and thread count: the median img/s over rounds of ndrt-java's ResNet and
of every torch formulation (variant + thread environment); torch's peer is the formulation with the
best median; ratio = ndrt img/s / torch img/s = torch time / ndrt time (> 1: ndrt is faster). The
medians use the runs whose others_busy (cores other processes kept busy meanwhile) stayed at or below
--clean, when a formulation has any such run; "runs" says how many counted of how many. Then, where
run, LeNet as a ComputationGraph against LeNet as the MultiLayerNetwork (the graph's execution cost on
the same layers), and the test accuracy per epoch of each side.
"""
import argparse
import json
import statistics
import sys
from collections import defaultdict

MODES = {"train": "training", "infer": "inference"}


def median_of(runs, clean):
    quiet = [r for r in runs if 0 <= r.get("others_busy", -1) <= clean]
    use = quiet or runs
    return statistics.median(r["img_s"] for r in use), len(use), len(runs)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results")
    p.add_argument("--clean", type=float, default=0.25)
    args = p.parse_args()
    rows = []
    with open(args.results) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    speed = defaultdict(list)  # (mode, threads, who) -> runs
    for r in rows:
        if r.get("mode") not in MODES:
            continue
        if r["impl"] == "torch":
            who = f"torch {r['variant']} ({r['label']})"
        else:
            who = "ndrt " + r["variant"]
        speed[(r["mode"], r["threads"], who)].append(r)
    for mode, title in MODES.items():
        threads = sorted({k[1] for k in speed if k[0] == mode})
        if not threads:
            continue
        print(f"### ResNet {title}, batch {next(r['batch'] for k, v in speed.items() if k[0] == mode for r in v)}")
        print()
        print("| threads | ndrt img/s (runs) | torch best img/s (runs) | torch formulation | ratio ndrt/torch |")
        print("| --- | --- | --- | --- | --- |")
        for t in threads:
            mine = {k[2]: v for k, v in speed.items() if k[0] == mode and k[1] == t}
            ndrt = [w for w in mine if w.startswith("ndrt resnet")]
            torch = {w: median_of(v, args.clean) for w, v in mine.items() if w.startswith("torch")}
            best = max(torch, key=lambda w: torch[w][0]) if torch else None
            n = median_of(mine[ndrt[0]], args.clean) if ndrt else None
            cell_n = f"{n[0]:,.0f} ({n[1]}/{n[2]})" if n else "-"
            cell_t = f"{torch[best][0]:,.0f} ({torch[best][1]}/{torch[best][2]})" if best else "-"
            ratio = f"{n[0] / torch[best][0]:.2f}" if n and best else "-"
            print(f"| {t} | {cell_n} | {cell_t} | {best[6:] if best else '-'} | {ratio} |")
        print()
        others = sorted((k[1], k[2]) for k in speed if k[0] == mode and k[2].startswith("torch"))
        if others:
            print(f"every torch formulation ({title}): " + "; ".join(
                f"{t} thr {w[6:]} {median_of(speed[(mode, t, w)], args.clean)[0]:,.0f}" for t, w in others))
            print()
        lenet = {k[1:]: median_of(v, args.clean)[0] for k, v in speed.items()
                 if k[0] == mode and k[2] in ("ndrt lenet-graph", "ndrt lenet-mln")}
        if lenet:
            print(f"LeNet from Java ({title}): graph vs MultiLayerNetwork img/s, same layers: " + "; ".join(
                f"{t} thr {lenet.get((t, 'ndrt lenet-graph'), float('nan')):,.0f} vs "
                f"{lenet.get((t, 'ndrt lenet-mln'), float('nan')):,.0f} "
                f"({lenet.get((t, 'ndrt lenet-graph'), float('nan')) / lenet.get((t, 'ndrt lenet-mln'), float('nan')):.2f})"
                for t in sorted({k[0] for k in lenet})))
            print()
    acc = [r for r in rows if r.get("mode") == "accuracy"]
    if acc:
        print("### Test accuracy per epoch")
        print()
        for r in acc:
            print(f"- {r['impl']} seed {r['seed']}: epoch {r['epoch']}/{r['epochs_total']}: {r['test_acc']:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
