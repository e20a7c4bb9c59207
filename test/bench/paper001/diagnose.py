#!/usr/bin/env python3
"""Paper 001: the side experiments behind the explanations in
doc/reproduction-001.md.  Run after test/bench/paper001/run.py (it reuses its
permutation files in $BK_TMP, default /tmp/repro/paper001):

    python3 test/bench/paper001/diagnose.py

1. BDUOL removal / nearest on a9a (permutation 0, 10,000 rows, B = 100)
   over C: is the gap to projection a matter of C?
2. The final classifier of each BDUOL variant (B = 100, trained on the first
   3,000 rows of permutation 0) scored on all 10,000 rows of the
   permutation, and the share of rows it calls positive: does removal drift
   to one class?
3. BDUOL nearest at larger budgets on a9a, to see where
   nearest reaches projection's B = 200 mistake rate.
4. DUOL, the BDUOL variants and Projectron++ on a9a at gamma = 1/128 and
   at gamma = 1/8 (the other reading of "width 8"), and a sanity check that
   BDUOL without maintenance (B above the rows) is DUOL.
Output: Markdown on stdout (also test/bench/paper001/diagnose.md).
"""
import json
import os
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
BENCH = os.path.join(ROOT, "test", "bench", "bk_bench")
TMP = os.environ.get("BK_TMP", "/tmp/repro/paper001")
G = "gamma=0.0078125,kernel=rbf"
P0 = os.path.join(TMP, "a9a.online10000.p0")


def bench(params, train=P0, test=None, max_rows=0, gamma=None):
    g = G if gamma is None else "gamma=%.10g,kernel=rbf" % gamma
    cmd = [BENCH, "--train", train, "--dim", "123", "--params", params + "," + g]
    if test:
        cmd += ["--test", test]
    if max_rows:
        cmd += ["--max-rows", str(max_rows)]
    out = subprocess.run(cmd, env=dict(os.environ, OPENBLAS_NUM_THREADS="1"),
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    import sys
    only4 = "--only-4" in sys.argv  # run section 4 only, appending to diagnose.md
    if not os.path.exists(P0):
        raise SystemExit("run test/bench/paper001/run.py first (needs %s)" % P0)
    out = []
    if not only4:

        out.append("#### 1. a9a, permutation 0, 10,000 rows, B = 100: online mistake rate (%) over C\n")
        out.append("| C | removal | nearest |\n| ---: | ---: | ---: |")
        for C in (1 / 64, 1 / 16, 0.25, 1.0):
            r = [bench("algorithm=bduol,C=%.10g,rho=0,budget=100,maintenance=%s" % (C, m))
                 for m in ("removal", "nearest")]
            out.append("| %g | %.2f | %.2f |" % (C, 100 * r[0]["online_mistake_rate"],
                                                100 * r[1]["online_mistake_rate"]))

        # 2. final classifier: accuracy on all 10,000 rows, and on a copy of
        # the rows with every label set to +1 (= share of rows called positive)
        with open(P0) as fh:
            rows = [l for l in fh if l.strip()]
        pos = sum(1 for l in rows if l.split(" ", 1)[0] == "1")
        allpos = tempfile.NamedTemporaryFile("w", suffix=".allpos", dir=TMP, delete=False)
        for l in rows:
            allpos.write("1 " + l.split(" ", 1)[1] if " " in l else "1\n")
        allpos.close()
        out.append("\n#### 2. final classifier (B = 100, C = 0.25, first 3,000 rows of permutation 0) on its 10,000 rows "
                   "(%.1f %% positive)\n" % (100.0 * pos / len(rows)))
        out.append("| maintenance | online mistake rate (%) | accuracy on the 10,000 rows (%) | rows predicted +1 (%) |\n"
                   "| --- | ---: | ---: | ---: |")
        for m in ("removal", "nearest", "approx_projection", "projection"):
            prm = "algorithm=bduol,C=0.25,rho=0,budget=100,maintenance=%s" % m
            a = bench(prm, test=P0, max_rows=3000)
            b = bench(prm, test=allpos.name, max_rows=3000)
            out.append("| %s | %.2f | %.2f | %.1f |" % (m, 100 * a["online_mistake_rate"],
                                                       100 * a["accuracy"], 100 * b["accuracy"]))
        os.unlink(allpos.name)

        out.append("\n#### 3. a9a, permutation 0, 10,000 rows, C = 0.25: nearest at larger budgets "
                   "(projection not run: O(B^3) a step)\n")
        out.append("| B | nearest: mistake rate (%) | train s |\n| ---: | ---: | ---: |")
        for B in (100, 200, 400, 800, 1600):
            n = bench("algorithm=bduol,C=0.25,rho=0,budget=%d,maintenance=nearest" % B)
            out.append("| %d | %.2f | %.2f |" % (B, 100 * n["online_mistake_rate"], n["train_s"]))
    # 4. the other reading of "width 8", gamma = 1/8, and a sanity check
    out.append("\n#### 4. a9a, permutation 0, 10,000 rows (23.5 % positive), B = 100: gamma = 1/128 against gamma = 1/8\n")
    out.append("| algorithm | C | gamma 1/128 (%) | gamma 1/8 (%) |\n| --- | ---: | ---: | ---: |")
    algs = [("DUOL", "algorithm=duol,rho=0,max_sv=60000,C=%g"),
            ("BDUOL-remo", "algorithm=bduol,rho=0,budget=100,maintenance=removal,C=%g"),
            ("BDUOL-near", "algorithm=bduol,rho=0,budget=100,maintenance=nearest,C=%g"),
            ("BDUOL-appr", "algorithm=bduol,rho=0,budget=100,maintenance=approx_projection,C=%g"),
            ("BDUOL-proj", "algorithm=bduol,rho=0,budget=100,maintenance=projection,C=%g"),
            ("Projectron++", "algorithm=projectron_pp,budget=100%.0s")]
    for label, prm in algs:
        for C in ((0.25, 1.0) if "DUOL" in label else (0,)):
            r = [bench(prm % C, gamma=g) for g in (1 / 128, 1 / 8)]
            out.append("| %s | %s | %.2f | %.2f |" % (label, "%g" % C if "DUOL" in label else "-",
                                                   100 * r[0]["online_mistake_rate"],
                                                   100 * r[1]["online_mistake_rate"]))
    d = bench("algorithm=duol,rho=0,max_sv=60000,C=0.25", max_rows=3000)
    b = bench("algorithm=bduol,rho=0,budget=3001,maintenance=projection,C=0.25", max_rows=3000)
    out.append("\nSanity: on the first 3,000 rows, DUOL makes %d mistakes (%d SVs) and BDUOL with B = 3,001 "
               "(no maintenance) %d (%d SVs)." % (d["online_mistakes"], d["n_sv"], b["online_mistakes"], b["n_sv"]))
    text = "\n".join(out) + "\n"
    with open(os.path.join(HERE, "diagnose.md"), "a" if only4 else "w") as fh:
        fh.write(text)
    print(text)


if __name__ == "__main__":
    main()
