#!/usr/bin/env python3
"""Paper 002: side runs behind the explanations of doc/reproduction-002.md.
Run after test/bench/paper002/run.py --perms 5 (it reuses the permutation
files in $BK_TMP, default /tmp/repro/paper002):

    python3 test/bench/paper002/extra.py

1. BPA-S with C = 1 (instead of the searched C) on the whole a9a stream
   (Table 2, B = 1325) and for the a9a.test accuracy (Table 3, gamma 1/32,
   B = 2077; the B of run.py --perms 5): how much of
   BPA-S's lead over the paper is the choice of C?
2. SPA's eta on a9a: the step tau = min(eta / rho, loss / k(x, x)) does not
   depend on eta once eta / rho exceeds the PA step; count how often the
   online mistake rate changes with eta on permutation 0 (whole stream).
Output: Markdown on stdout (also test/bench/paper002/extra.md).
"""
import json
import math
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
BENCH = os.path.join(ROOT, "test", "bench", "bk_bench")
TMP = os.environ.get("BK_TMP", "/tmp/repro/paper002")
PERMS = 5


def bench(train, params, gamma, test=None):
    cmd = [BENCH, "--train", train, "--dim", "123",
           "--params", params + ",kernel=rbf,gamma=%.10g" % gamma]
    if test:
        cmd += ["--test", test]
    out = subprocess.run(cmd, env=dict(os.environ, OPENBLAS_NUM_THREADS="1"),
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def ms(v):
    m = sum(v) / len(v)
    return m, math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1))


def main():
    out = ["#### 1. BPA-S with C = 1\n",
           "| setting | C | result (%) |", "| --- | ---: | ---: |"]
    for C in (0.5, 1.0):
        r = [bench(os.path.join(TMP, "a9a.p%d" % p), "algorithm=bpa,variant=s,budget=1325,C=%g" % C, 0.4)
             for p in range(PERMS)]
        m, s = ms([100 * x["online_mistake_rate"] for x in r])
        out.append("| Table 2 a9a online mistake rate, B = 1325, gamma 0.4 | %g | %.2f ± %.2f |" % (C, m, s))
    for C in (0.125, 1.0):
        r = [bench(os.path.join(TMP, "a9a.train.p%d" % p), "algorithm=bpa,variant=s,budget=2077,C=%g" % C,
                   0.03125, test=os.path.join(TMP, "a9a.test")) for p in range(PERMS)]
        m, s = ms([100 * x["accuracy"] for x in r])
        out.append("| Table 3 a9a.test accuracy, B = 2077, gamma 1/32 | %g | %.2f ± %.2f |" % (C, m, s))
    out += ["\n#### 2. SPA (alpha 1, beta 20, average) on the whole a9a permutation 0, gamma 0.4\n",
            "| eta | online mistake rate (%) | #SV |", "| ---: | ---: | ---: |"]
    for eta in (1000, 1, 0.1, 0.05, 0.01, 0.001):
        r = bench(os.path.join(TMP, "a9a.p0"),
                  "algorithm=spa,alpha=1,beta=20,output=average,seed=1,eta=%g" % eta, 0.4)
        out.append("| %g | %.2f | %d |" % (eta, 100 * r["online_mistake_rate"], r["n_sv"]))
    text = "\n".join(out) + "\n"
    with open(os.path.join(HERE, "extra.md"), "w") as fh:
        fh.write(text)
    print(text)


if __name__ == "__main__":
    main()
