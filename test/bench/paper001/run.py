#!/usr/bin/env python3
"""Paper 001 (Zhao, Wang, Wu, Jin, Hoi: Budget Double Updating Online
Learning) - online mistake rates of BDUOL's four budget maintenance
strategies beside DUOL, Perceptron, RBP, Forgetron, Projectron and
Projectron++ (the rows of the paper's Tables 2 and 3).

Run from the repository root after `make test/bench/bk_bench`:

    python3 test/bench/paper001/run.py                  # everything
    python3 test/bench/paper001/run.py --perms 3 --max-rows 10000

Data come from $BK_DATA_DIR (default ../shared/data); temporary files go to
$BK_TMP (default /tmp/repro/paper001).  Raw results are appended to
test/bench/paper001/results.jsonl (one JSON object a run, cached: a run
already in the file is not repeated, delete the file to start over) and the
tables are printed as Markdown (also written to
test/bench/paper001/tables.md).

Protocol (paper 001 §4, with the deviations listed in
doc/reproduction-001.md):
  * Gaussian kernel of width sigma = 8 for every algorithm and data set,
    taken as k(x, x') = exp(-||x - x'||^2 / (2 sigma^2)), i.e. gamma = 1/128.
  * Each data set is split once (seed 0) into two halves: a cross-validation
    half and an online-learning half.  C of DUOL is chosen on the CV half
    (online mistake rate of DUOL on its first --cv-rows rows, grid
    2^{-4,-2,0,2,4,6}) and used for DUOL and every BDUOL variant; rho = 0.
  * The online half (at most --max-rows rows) is streamed in --perms seeded
    permutations; every algorithm sees the same permutations.
  * Budgets B = 100 and 200 (reported as a fraction of the Perceptron's #SV).
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
TMP = os.environ.get("BK_TMP", "/tmp/repro/paper001")
RESULTS = os.path.join(HERE, "results.jsonl")
GAMMA = 1.0 / 128.0          # width 8: exp(-d^2 / (2 * 8^2))
C_GRID = [2.0 ** e for e in (-4, -2, 0, 2, 4, 6)]
BUDGETS = [100, 200]
cv_rows = 0


def usps_binary(label):
    return "1" if int(label) % 2 else "-1"   # odd -> +1, even -> -1


DATASETS = {
    # name: (files, dim, label map)
    "a9a": (["a9a.train", "a9a.test"], 123, None),
    "w8a": (["w8a.train"], 300, None),
    "usps": (["usps.train", "usps.test"], 256, usps_binary),
}


def load(name):
    files, dim, lmap = DATASETS[name]
    rows = []
    for f in files:
        with open(os.path.join(DATA, f)) as fh:
            for line in fh:
                line = line.strip()
                if not line:
                    continue
                lab, _, rest = line.partition(" ")
                if lmap:
                    lab = lmap(lab)
                rows.append(lab + (" " + rest if rest else ""))
    return rows, dim


def write(path, rows):
    with open(path, "w") as fh:
        fh.write("\n".join(rows) + "\n")


def prepare(name, perms, max_rows):
    """CV file and permuted online files; returns (cv path, [online paths], dim, n)."""
    rows, dim = load(name)
    rows = rows[:]
    random.Random(0).shuffle(rows)
    half = len(rows) // 2
    cv, online = rows[:half], rows[half:]
    if max_rows:
        online = online[:max_rows]
    global cv_rows
    cv_rows = len(cv)
    cv_path = os.path.join(TMP, "%s.cv" % name)
    if not os.path.exists(cv_path):
        write(cv_path, cv)
    paths = []
    for p in range(perms):
        path = os.path.join(TMP, "%s.online%d.p%d" % (name, len(online), p))
        if not os.path.exists(path):
            r = online[:]
            random.Random(1000 + p).shuffle(r)
            write(path, r)
        paths.append(path)
    return cv_path, paths, dim, len(online)


def run(train, dim, params, max_rows=0):
    """One bk_bench run with the kernel of GAMMA."""
    cmd = [BENCH, "--train", train, "--dim", str(dim),
           "--params", params + ",kernel=rbf,gamma=%.10g" % GAMMA]
    if max_rows:
        cmd += ["--max-rows", str(max_rows)]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        return {"error": out.stderr.strip()}
    return json.loads(out.stdout.strip().splitlines()[-1])


def load_cache():
    cache = {}
    if os.path.exists(RESULTS):
        with open(RESULTS) as fh:
            for line in fh:
                r = json.loads(line)
                cache[r["key"]] = r
    return cache


def execute(jobs, cache, workers):
    """jobs: list of (key, train, dim, params, max_rows, meta)."""
    todo = [j for j in jobs if j[0] not in cache]
    if not todo:
        return
    with cf.ThreadPoolExecutor(max_workers=workers) as ex, open(RESULTS, "a") as out:
        futs = {ex.submit(run, j[1], j[2], j[3], j[4]): j for j in todo}
        for f in cf.as_completed(futs):
            j = futs[f]
            r = dict(j[5], key=j[0], params=j[3], train=os.path.basename(j[1]), **f.result())
            cache[j[0]] = r
            out.write(json.dumps(r) + "\n")
            out.flush()
            print("  %-70s %s" % (j[0], r.get("online_mistake_rate", r.get("error"))),
                  file=sys.stderr, flush=True)


def ms(vals):
    m = sum(vals) / len(vals)
    s = math.sqrt(sum((v - m) ** 2 for v in vals) / (len(vals) - 1)) if len(vals) > 1 else 0.0
    return m, s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--perms", type=int, default=3)
    ap.add_argument("--max-rows", type=int, default=10000,
                    help="rows of the online half streamed (0 = all)")
    ap.add_argument("--cv-rows", type=int, default=8000)
    ap.add_argument("--datasets", default="a9a,w8a,usps")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--gamma", type=float, default=1.0 / 128.0,
                    help="kernel gamma (default 1/128 = width 8 read as exp(-d^2/(2*8^2)); "
                         "0.125 is the other reading, exp(-d^2/8))")
    ap.add_argument("--no-projection-200", action="store_true",
                    help="skip BDUOL-projection at B=200 (the slow run)")
    args = ap.parse_args()
    global GAMMA
    GAMMA = args.gamma
    default_gamma = abs(GAMMA - 1.0 / 128.0) < 1e-12
    os.makedirs(TMP, exist_ok=True)
    cache = load_cache()
    names = args.datasets.split(",")
    tables = []

    for name in names:
        cv_path, paths, dim, n = prepare(name, args.perms, args.max_rows)
        data = name
        # keys of the default kernel carry no gamma (older results stay valid)
        name = name if default_gamma else "%s@gamma=%g" % (name, GAMMA)
        print("%s: online %d rows, %d permutations" % (name, n, len(paths)), file=sys.stderr)
        # 1. C of DUOL on the CV half
        jobs = [("%s/cv/duol/C=%g/rows=%d" % (name, C, args.cv_rows), cv_path, dim,
                 "algorithm=duol,C=%.10g,rho=0,max_sv=60000" % C, args.cv_rows,
                 {"dataset": name, "stage": "cv", "C": C}) for C in C_GRID]
        execute(jobs, cache, args.jobs)
        cv = [(cache[j[0]]["online_mistake_rate"], j[5]["C"]) for j in jobs]
        best_C = min(cv)[1]
        # 2. the algorithms on each permutation
        algs = [("Perceptron", None, "algorithm=perceptron,max_sv=60000"),
                ("DUOL", None, "algorithm=duol,C=%.10g,rho=0,max_sv=60000" % best_C)]
        for B in BUDGETS:
            algs += [
                ("RBP", B, "algorithm=rbp,budget=%d,seed={seed}" % B),
                ("Forgetron", B, "algorithm=forgetron,budget=%d" % B),
                ("Projectron", B, "algorithm=projectron,budget=%d" % B),
                ("Projectron++", B, "algorithm=projectron_pp,budget=%d" % B),
            ]
            for mt, label in (("removal", "BDUOL-remo"), ("nearest", "BDUOL-near"),
                              ("approx_projection", "BDUOL-appr"),
                              ("projection", "BDUOL-proj")):
                if mt == "projection" and B == 200 and args.no_projection_200:
                    continue
                algs.append((label, B, "algorithm=bduol,C=%.10g,rho=0,budget=%d,maintenance=%s"
                             % (best_C, B, mt)))
        jobs = []
        # slow projection runs first so the two workers stay busy
        order = sorted(algs, key=lambda a: 0 if "proj" in a[0] else 1)
        for label, B, params in order:
            for p, path in enumerate(paths):
                prm = params.replace("{seed}", str(p + 1))
                key = "%s/n=%d/%s/B=%s/p%d" % (name, n, label, B, p)
                jobs.append((key, path, dim, prm, 0,
                             {"dataset": name, "stage": "online", "alg": label, "B": B,
                              "perm": p, "n": n}))
        execute(jobs, cache, args.jobs)

        # 3. table
        perc_sv = ms([cache["%s/n=%d/Perceptron/B=None/p%d" % (name, n, p)]["n_sv"]
                      for p in range(len(paths))])[0]
        lines = ["### %s (%d online rows, %d permutations, C = %g, gamma = %g)" % (
            data, n, len(paths), best_C, GAMMA), "",
            "DUOL C search on the CV half (first %d rows): %s" % (
                min(args.cv_rows, cv_rows), ", ".join("C=%g: %.2f%%" % (c, 100 * r) for r, c in sorted(cv, key=lambda t: t[1]))),
            "",
            "| algorithm | B (% of Perceptron #SV) | mistake rate (%) | #SV | train s |",
            "| --- | ---: | ---: | ---: | ---: |"]
        seen = []
        for label, B, _ in algs:
            if (label, B) in seen:
                continue
            seen.append((label, B))
            rs = [cache.get("%s/n=%d/%s/B=%s/p%d" % (name, n, label, B, p)) for p in range(len(paths))]
            rs = [r for r in rs if r and "online_mistake_rate" in r]
            if not rs:
                continue
            m, s = ms([100 * r["online_mistake_rate"] for r in rs])
            sv = ms([r["n_sv"] for r in rs])[0]
            t = ms([r["train_s"] for r in rs])
            bcol = "-" if B is None else "%d (%.1f%%)" % (B, 100.0 * B / perc_sv)
            lines.append("| %s | %s | %.2f ± %.2f | %.0f | %.3f ± %.3f |" % (
                label, bcol, m, s, sv, t[0], t[1]))
        tables.append("\n".join(lines))

        # the check: nearest vs projection
        for B in BUDGETS:
            def get(label):
                rs = [cache.get("%s/n=%d/%s/B=%s/p%d" % (name, n, label, B, p)) for p in range(len(paths))]
                rs = [r for r in rs if r and "online_mistake_rate" in r]
                return rs
            near, proj = get("BDUOL-near"), get("BDUOL-proj")
            if near and proj:
                mn = ms([100 * r["online_mistake_rate"] for r in near])[0]
                mp = ms([100 * r["online_mistake_rate"] for r in proj])[0]
                tn = ms([r["train_s"] for r in near])[0]
                tp = ms([r["train_s"] for r in proj])[0]
                tables.append("Check %s B=%d: nearest %.2f%% vs projection %.2f%%: gap %+.2f points; "
                              "time %.3f s vs %.3f s (nearest = %.4f x projection)" % (
                                  name, B, mn, mp, mn - mp, tn, tp, tn / tp))
    text = "\n\n".join(tables) + "\n"
    out_name = "tables.md" if default_gamma else "tables-gamma%g.md" % GAMMA
    with open(os.path.join(HERE, out_name), "w") as fh:
        fh.write(text)
    print(text)


if __name__ == "__main__":
    main()
