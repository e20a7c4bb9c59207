#!/usr/bin/env python3
"""Split covtype20k.binary (20,000 rows, 54 features, labels -1/+1) into
15,000 training and 5,000 test rows by the benchmark harness's seeded
order (rows sorted by md5("split:" + row number), row numbers from 1; the
first 15,000 train, as for doc/comparison-libsvm.md), standardise both
with the training rows' statistics (population sd; a constant feature
only centred), and write LIBSVM text, the training rows in that seeded
order: OUT/covtype.std.train and OUT/covtype.std.test.

    python3 prep_covtype.py DATA_DIR OUT_DIR
"""
import hashlib
import math
import os
import sys

D = 54
NTRAIN = 15000


def read(path):
    X, Y = [], []
    for line in open(path):
        t = line.split()
        if not t:
            continue
        Y.append(int(float(t[0])))
        x = [0.0] * D
        for kv in t[1:]:
            k, v = kv.split(":")
            x[int(k) - 1] = float(v)
        X.append(x)
    return X, Y


data, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
X, Y = read(os.path.join(data, "covtype20k.binary"))
order = sorted(range(1, len(X) + 1), key=lambda i: hashlib.md5(("split:%d" % i).encode()).hexdigest())
tr, te = order[:NTRAIN], order[NTRAIN:]
n = len(tr)
mean = [sum(X[i - 1][j] for i in tr) / n for j in range(D)]
sd = [math.sqrt(sum((X[i - 1][j] - mean[j]) ** 2 for i in tr) / n) for j in range(D)]


def z(x):
    return [(x[j] - mean[j]) / sd[j] if sd[j] > 0 else x[j] - mean[j] for j in range(D)]


def line(y, x):
    return ("+1" if y > 0 else "-1") + "".join(" %d:%.9g" % (j + 1, v) for j, v in enumerate(x) if v != 0.0) + "\n"


for name, rows in (("covtype.std.train", tr), ("covtype.std.test", te)):
    with open(os.path.join(out, name), "w") as f:
        for i in rows:
            f.write(line(Y[i - 1], z(X[i - 1])))
