#!/usr/bin/env python3
"""Paper 002 (Lu, Zhao, Hoi: Online Sparse Passive Aggressive Learning with
Kernels, SDM 2016) - Table 2 (online mistake rates, a9a and w7a) and
Table 3 (test accuracy of the final classifier on a9a).

Run from the repository root after `make test/bench/bk_bench`:

    python3 test/bench/paper002/run.py                 # both tables, 5 permutations
    python3 test/bench/paper002/run.py --perms 3 --only table2   # quicker

Data come from $BK_DATA_DIR (default ../shared/data); temporary files go to
$BK_TMP (default /tmp/repro/paper002).  Raw results are appended to
test/bench/paper002/results.jsonl (cached by a key: a run already there is
not repeated; delete the file to start over); the tables are printed as
Markdown and written to test/bench/paper002/tables.md.

Table 2 protocol (paper §4.2), deviations in doc/reproduction-002.md:
  * a9a = a9a.train followed by a9a.test (48,842 rows); "w7a" = our
    w8a.train (49,749 rows, the size the paper's Table 1 gives w7a).
  * k(x, x') = exp(-0.4 ||x - x'||^2) for every algorithm.
  * SPA: alpha = 1, beta = 20 (a9a) / 200 (w7a); its online predictions use
    the averaged classifier (output=average), as the paper reports.
  * B of every budget algorithm = SPA's mean #SV over the permutations.
  * eta of OGD, BOGD and SPA from {10^3, ..., 10^-3}, C of PA-I and BPA-S
    from {0.25, 0.5, 1, 2}: each by the online mistake rate on the first
    --search-rows rows of permutation 0 (the paper searches on a whole
    random permutation).
Table 3 protocol (paper §4.5): train on a9a.train (permuted), test on
a9a.test; alpha = 1, beta = 5; B of BPA-S and BOGD = SPA's mean #SV;
parameters by a hold-out split of a9a.train (see --help / the doc).
"""
import argparse
import concurrent.futures as cf
import json
import math
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
BENCH = os.path.join(ROOT, "test", "bench", "bk_bench")
DATA = os.environ.get("BK_DATA_DIR", os.path.join(ROOT, "..", "shared", "data"))
TMP = os.environ.get("BK_TMP", "/tmp/repro/paper002")
RESULTS = os.path.join(HERE, "results.jsonl")

GAMMA = 0.4
ETA_GRID = [10.0 ** e for e in range(3, -4, -1)]
C_GRID = [0.25, 0.5, 1.0, 2.0]

DATASETS = {
    # name: (files, dim, beta)
    "a9a": (["a9a.train", "a9a.test"], 123, 20),
    "w7a": (["w8a.train"], 300, 200),
}

# Paper 002 Table 2: online accuracy (%) = 100 - mistake rate, std, #SV
PAPER_T2 = {
    "a9a": {"Perceptron": (79.40, 0.11, "9.9k"), "OGD": (83.41, 0.05, "23.5k"),
            "PA-I": (84.07, 0.08, "22.8k"), "RBP": (78.83, 0.38, "1,350"),
            "Forgetron": (78.08, 0.22, "1,350"), "Projectron": (79.25, 0.13, "1,350"),
            "Projectron++": (79.35, 0.13, "1,350"), "BPA-S": (80.44, 0.14, "1,350"),
            "BOGD": (80.97, 0.04, "1,350"), "SPA": (82.04, 0.25, "1,350")},
    "w7a": {"Perceptron": (97.64, 0.04, "1.1k"), "OGD": (98.06, 0.02, "10.1k"),
            "PA-I": (98.16, 0.02, "19.6k"), "RBP": (96.78, 0.16, "175"),
            "Forgetron": (96.36, 0.06, "175"), "Projectron": (95.19, 0.39, "175"),
            "Projectron++": (95.90, 0.38, "175"), "BPA-S": (96.83, 0.23, "175"),
            "BOGD": (96.75, 0.03, "175"), "SPA": (None, None, "175")},
}
# Paper 002 Table 3, a9a column: test accuracy (%), std, #SV
PAPER_T3 = {"BOGD": (82.49, 1.22, 2079), "BPA-S": (82.11, 0.83, 2079),
            "SPA-last": (82.97, 2.59, 2079), "SPA-avg": (84.88, 0.10, 2079)}


def read_rows(files):
    rows = []
    for f in files:
        with open(os.path.join(DATA, f)) as fh:
            rows += [l.strip() for l in fh if l.strip()]
    return rows


def write(path, rows):
    if not os.path.exists(path):
        with open(path, "w") as fh:
            fh.write("\n".join(rows) + "\n")
    return path


def perm_files(tag, rows, perms, seed0):
    out = []
    for p in range(perms):
        r = rows[:]
        random.Random(seed0 + p).shuffle(r)
        out.append(write(os.path.join(TMP, "%s.p%d" % (tag, p)), r))
    return out


def run(train, dim, params, gamma, max_rows=0, test=None):
    cmd = [BENCH, "--train", train, "--dim", str(dim),
           "--params", params + ",kernel=rbf,gamma=%.10g" % gamma]
    if max_rows:
        cmd += ["--max-rows", str(max_rows)]
    if test:
        cmd += ["--test", test]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        return {"error": out.stderr.strip()}
    return json.loads(out.stdout.strip().splitlines()[-1])


CACHE = {}
KEYS = {}  # short key -> full key (with parameters) of the runs of this invocation


def load_cache():
    if os.path.exists(RESULTS):
        with open(RESULTS) as fh:
            for line in fh:
                r = json.loads(line)
                CACHE[r["key"]] = r


def execute(jobs, workers):
    """jobs: dicts with key, train, dim, params, gamma, [max_rows, test]."""
    for j in jobs:  # the full key names the exact run: data, parameters, kernel
        short = j["key"]
        j["key"] = "%s|%s|gamma=%.10g" % (short, j["params"], j["gamma"])
        KEYS[short] = j["key"]
    todo = [j for j in jobs if j["key"] not in CACHE]
    if todo:
        with cf.ThreadPoolExecutor(max_workers=workers) as ex, open(RESULTS, "a") as out:
            futs = {ex.submit(run, j["train"], j["dim"], j["params"], j["gamma"],
                              j.get("max_rows", 0), j.get("test")): j for j in todo}
            for f in cf.as_completed(futs):
                j = futs[f]
                r = dict(key=j["key"], params=j["params"], gamma=j["gamma"],
                         train=os.path.basename(j["train"]), **f.result())
                CACHE[j["key"]] = r
                out.write(json.dumps(r) + "\n")
                out.flush()
                print("  %-60s mr=%s acc=%s sv=%s t=%s" % (
                    j["key"], r.get("online_mistake_rate", r.get("error")),
                    r.get("accuracy"), r.get("n_sv"), r.get("train_s")),
                    file=sys.stderr, flush=True)
    return [CACHE[j["key"]] for j in jobs]


def ms(vals):
    m = sum(vals) / len(vals)
    s = math.sqrt(sum((v - m) ** 2 for v in vals) / (len(vals) - 1)) if len(vals) > 1 else 0.0
    return m, s


def search(tag, path, dim, template, grid, gamma, rows, workers, metric="online_mistake_rate",
           test=None):
    """Return (best value, [(value, score)]) minimising metric (or maximising accuracy)."""
    jobs = [dict(key="%s/search/%s/%s/rows=%d" % (tag, template, v, rows), train=path, dim=dim,
                 params=template.format(v="%.10g" % v), gamma=gamma, max_rows=rows, test=test)
            for v in grid]
    rs = execute(jobs, workers)
    scores = []
    for v, r in zip(grid, rs):
        if metric not in r:
            scores.append((v, None))
        else:
            scores.append((v, r[metric]))
    ok = [s for s in scores if s[1] is not None]
    if metric == "accuracy":
        best = max(ok, key=lambda s: s[1])[0]
    else:
        best = min(ok, key=lambda s: s[1])[0]
    return best, scores


def fmt_search(scores, pct=True):
    return ", ".join("%g: %s" % (v, "err" if s is None else ("%.2f%%" % (100 * s) if pct else "%.4f" % s))
                     for v, s in scores)


def table2(args, out):
    for name in args.datasets.split(","):
        files, dim, beta = DATASETS[name]
        rows = read_rows(files)
        paths = perm_files(name, rows, args.perms, 2000)
        n = len(rows)
        sr = args.search_rows
        p0 = paths[0]
        notes = []
        spa_t = "algorithm=spa,alpha=1,beta=%d,output=average,seed=1,eta={v}" % beta
        eta_spa, sc = search(name, p0, dim, spa_t, ETA_GRID, GAMMA, sr, args.jobs)
        notes.append("SPA eta: " + fmt_search(sc) + " -> %g" % eta_spa)
        eta_ogd, sc = search(name, p0, dim, "algorithm=ogd,max_sv=60000,eta={v}", ETA_GRID,
                             GAMMA, sr, args.jobs)
        notes.append("OGD eta: " + fmt_search(sc) + " -> %g" % eta_ogd)
        C_pa, sc = search(name, p0, dim, "algorithm=pa,loss=hinge,max_sv=60000,C={v}", C_GRID,
                          GAMMA, sr, args.jobs)
        notes.append("PA-I C: " + fmt_search(sc) + " -> %g" % C_pa)
        # SPA first: B follows its #SV
        spa = execute([dict(key="%s/n=%d/SPA/p%d" % (name, n, p), train=path, dim=dim, gamma=GAMMA,
                            params=spa_t.replace("seed=1", "seed=%d" % (p + 1)).format(v="%.10g" % eta_spa))
                       for p, path in enumerate(paths)], args.jobs)
        B = int(round(ms([r["n_sv"] for r in spa])[0]))
        # budget algorithms' searches at that B
        eta_bogd, sc = search(name, p0, dim,
                              "algorithm=bogd,budget=%d,seed=1,eta={v}" % B, ETA_GRID, GAMMA, sr,
                              args.jobs)
        notes.append("BOGD eta (B=%d, lambda default 1e-4): " % B + fmt_search(sc) + " -> %g" % eta_bogd)
        C_bpa, sc = search(name, p0, dim, "algorithm=bpa,variant=s,budget=%d,C={v}" % B, C_GRID,
                           GAMMA, sr, args.jobs)
        notes.append("BPA-S C (B=%d): " % B + fmt_search(sc) + " -> %g" % C_bpa)
        algs = [
            ("Perceptron", "algorithm=perceptron,max_sv=60000"),
            ("OGD", "algorithm=ogd,max_sv=60000,eta=%.10g" % eta_ogd),
            ("PA-I", "algorithm=pa,loss=hinge,max_sv=60000,C=%.10g" % C_pa),
            ("RBP", "algorithm=rbp,budget=%d,seed={seed}" % B),
            ("Forgetron", "algorithm=forgetron,budget=%d" % B),
            ("Projectron", "algorithm=projectron,budget=%d" % B),
            ("Projectron++", "algorithm=projectron_pp,budget=%d" % B),
            ("BPA-S", "algorithm=bpa,variant=s,budget=%d,C=%.10g" % (B, C_bpa)),
            ("BOGD", "algorithm=bogd,budget=%d,eta=%.10g,seed={seed}" % (B, eta_bogd)),
        ]
        jobs = []
        for label, prm in algs:
            for p, path in enumerate(paths):
                jobs.append(dict(key="%s/n=%d/%s/p%d" % (name, n, label, p), train=path, dim=dim,
                                 gamma=GAMMA, params=prm.replace("{seed}", str(p + 1))))
        execute(jobs, args.jobs)
        lines = ["### Table 2, %s (%d rows, %d permutations, gamma = %g, beta = %d, B = %d)" % (
            name, n, len(paths), GAMMA, beta, B), "",
            "Parameter search on the first %d rows of permutation 0 (online mistake rate):" % sr, ""]
        lines += ["* " + s for s in notes]
        lines += ["", "| algorithm | ours: mistake rate (%) | paper: mistake rate (%) | gap (points) | ours #SV | paper #SV | ours train s |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for label, _ in algs + [("SPA", None)]:
            rs = [CACHE.get(KEYS.get("%s/n=%d/%s/p%d" % (name, n, label, p))) for p in range(len(paths))]
            rs = [r for r in rs if r and "online_mistake_rate" in r]
            if not rs:
                lines.append("| %s | (failed: %s) | | | | | |" % (label, CACHE.get(KEYS.get("%s/n=%d/%s/p0" % (name, n, label)), {}).get("error")))
                continue
            m, s = ms([100 * r["online_mistake_rate"] for r in rs])
            sv = ms([r["n_sv"] for r in rs])[0]
            t = ms([r["train_s"] for r in rs])[0]
            pa = PAPER_T2[name].get(label)
            if pa and pa[0] is not None:
                pm = 100 - pa[0]
                pcol, gap = "%.2f ± %.2f" % (pm, pa[1]), "%+.2f" % (m - pm)
            else:
                pcol, gap = "(not legible)", ""
            lines.append("| %s | %.2f ± %.2f | %s | %s | %.0f | %s | %.2f |" % (
                label, m, s, pcol, gap, sv, pa[2] if pa else "", t))
        out.append("\n".join(lines))


def table3(args, out):
    dim = 123
    train = read_rows(["a9a.train"])
    test = write(os.path.join(TMP, "a9a.test"), read_rows(["a9a.test"]))
    # hold-out split of a9a.train for the parameter search
    r = train[:]
    random.Random(0).shuffle(r)
    ntr = 24000
    fit = write(os.path.join(TMP, "a9a.fit"), r[:ntr])
    val = write(os.path.join(TMP, "a9a.val"), r[ntr:])
    paths = perm_files("a9a.train", train, args.perms, 3000)
    notes = []
    # 1. gamma x eta for SPA-avg
    jobs = []
    grid = [(g, e) for g in (2.0 ** -5, 2.0 ** -4, 2.0 ** -3, 2.0 ** -2, 2.0 ** -1)
            for e in (0.01, 0.1, 1.0)]
    for g, e in grid:
        jobs.append(dict(key="t3/search/spa-avg/g=%g/eta=%g" % (g, e), train=fit, dim=dim, gamma=g,
                         params="algorithm=spa,alpha=1,beta=5,output=average,seed=1,eta=%.10g" % e,
                         test=val))
    rs = execute(jobs, args.jobs)
    (g_best, eta_spa), acc = max(zip(grid, [x.get("accuracy", 0) for x in rs]), key=lambda t: t[1])
    notes.append("SPA-avg (alpha 1, beta 5) gamma x eta on a 24,000 / 8,561 hold-out split of a9a.train: "
                 + ", ".join("(%g, %g): %.2f%%" % (g, e, 100 * x.get("accuracy", 0))
                             for (g, e), x in zip(grid, rs))
                 + " -> gamma %g, eta %g" % (g_best, eta_spa))
    # SPA-last eta at the same gamma
    eta_last, sc = search("t3", fit, dim, "algorithm=spa,alpha=1,beta=5,output=last,seed=1,eta={v}",
                          [0.01, 0.1, 1.0], g_best, 0, args.jobs, metric="accuracy", test=val)
    notes.append("SPA-last eta at gamma %g: " % g_best + fmt_search(sc) + " -> %g" % eta_last)
    spa = execute([dict(key="t3/SPA-avg/p%d" % p, train=path, dim=dim, gamma=g_best, test=test,
                        params="algorithm=spa,alpha=1,beta=5,output=average,seed=%d,eta=%.10g"
                        % (p + 1, eta_spa)) for p, path in enumerate(paths)], args.jobs)
    B = int(round(ms([x["n_sv"] for x in spa])[0]))
    C_bpa, sc = search("t3", fit, dim, "algorithm=bpa,variant=s,budget=%d,C={v}" % B,
                       [2.0 ** -5, 2.0 ** -3, 2.0 ** -1, 2.0, 8.0], g_best, 0, args.jobs,
                       metric="accuracy", test=val)
    notes.append("BPA-S C (B=%d, gamma %g): " % (B, g_best) + fmt_search(sc) + " -> %g" % C_bpa)
    bg = [(e, l) for e in (0.01, 0.1, 1.0, 10.0) for l in (1e-4, 1e-2)]
    rs = execute([dict(key="t3/search/bogd/B=%d/g=%g/eta=%g/lambda=%g" % (B, g_best, e, l), train=fit,
                       dim=dim, gamma=g_best, test=val,
                       params="algorithm=bogd,budget=%d,seed=1,eta=%.10g,lambda=%.10g" % (B, e, l))
                  for e, l in bg], args.jobs)
    (eta_bogd, lam_bogd), _ = max(zip(bg, [x.get("accuracy", 0) for x in rs]), key=lambda t: t[1])
    notes.append("BOGD eta x lambda (B=%d, gamma %g): " % (B, g_best)
                 + ", ".join("(%g, %g): %.2f%%" % (e, l, 100 * x.get("accuracy", 0)) for (e, l), x in zip(bg, rs))
                 + " -> eta %g, lambda %g" % (eta_bogd, lam_bogd))
    algs = [("SPA-last", "algorithm=spa,alpha=1,beta=5,output=last,seed={seed},eta=%.10g" % eta_last),
            ("BPA-S", "algorithm=bpa,variant=s,budget=%d,C=%.10g" % (B, C_bpa)),
            ("BOGD", "algorithm=bogd,budget=%d,seed={seed},eta=%.10g,lambda=%.10g" % (B, eta_bogd, lam_bogd))]
    # the paper's own gamma for comparison: SPA-avg / -last at gamma 0.4 with the same eta
    extra = [("SPA-avg, gamma 0.4", "algorithm=spa,alpha=1,beta=5,output=average,seed={seed},eta=%.10g" % eta_spa, 0.4),
             ("SPA-last, gamma 0.4", "algorithm=spa,alpha=1,beta=5,output=last,seed={seed},eta=%.10g" % eta_last, 0.4)]
    jobs = []
    for label, prm in algs:
        for p, path in enumerate(paths):
            jobs.append(dict(key="t3/%s/p%d" % (label, p), train=path, dim=dim, gamma=g_best, test=test,
                             params=prm.replace("{seed}", str(p + 1))))
    for label, prm, g in extra:
        for p, path in enumerate(paths):
            jobs.append(dict(key="t3/%s/p%d" % (label, p), train=path, dim=dim, gamma=g, test=test,
                             params=prm.replace("{seed}", str(p + 1))))
    execute(jobs, args.jobs)
    lines = ["### Table 3, a9a (train a9a.train 32,561 rows, %d permutations; test a9a.test 16,281 rows; gamma = %g, B = %d)"
             % (len(paths), g_best, B), ""]
    lines += ["* " + s for s in notes]
    lines += ["", "| algorithm | ours: test accuracy (%) | paper (%) | gap (points) | ours #SV | paper #SV | ours train s |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for label in ["BOGD", "BPA-S", "SPA-last", "SPA-avg", "SPA-last, gamma 0.4", "SPA-avg, gamma 0.4"]:
        rs = [CACHE.get(KEYS.get("t3/%s/p%d" % (label, p))) for p in range(len(paths))]
        rs = [x for x in rs if x and "accuracy" in x]
        if not rs:
            continue
        m, s = ms([100 * x["accuracy"] for x in rs])
        sv = ms([x["n_sv"] for x in rs])[0]
        t = ms([x["train_s"] for x in rs])[0]
        pa = PAPER_T3.get(label.split(",")[0])
        lines.append("| %s | %.2f ± %.2f | %s | %s | %.0f | %s | %.2f |" % (
            label, m, s, "%.2f ± %.2f" % pa[:2] if pa else "", "%+.2f" % (m - pa[0]) if pa else "",
            sv, pa[2] if pa else "", t))
    out.append("\n".join(lines))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--perms", type=int, default=5)
    ap.add_argument("--search-rows", type=int, default=10000)
    ap.add_argument("--datasets", default="a9a,w7a")
    ap.add_argument("--only", choices=["table2", "table3"])
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    os.makedirs(TMP, exist_ok=True)
    load_cache()
    out = []
    if args.only != "table3":
        table2(args, out)
    if args.only != "table2":
        table3(args, out)
    text = "\n\n".join(out) + "\n"
    name = "tables.md" if not args.only else "tables-%s.md" % args.only
    with open(os.path.join(HERE, name), "w") as fh:
        fh.write(text)
    print(text)


if __name__ == "__main__":
    main()
