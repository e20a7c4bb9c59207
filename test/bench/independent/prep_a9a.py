#!/usr/bin/env python3
"""Standardise a9a with the training rows' statistics (population sd; a
constant feature only centred), shuffle the training rows with a seed, and
write LIBSVM text: OUT/a9a.std.shuf.SEED.train, OUT/a9a.std.test, and
OUT/a9a.std.test.allpos (every label +1: its accuracy is the fraction of
rows a model predicts positive).

    python3 prep_a9a.py DATA_DIR OUT_DIR SEED
"""
import math
import os
import random
import sys

D = 123


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


data, out, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(out, exist_ok=True)
Xtr, Ytr = read(os.path.join(data, "a9a.train"))
Xte, Yte = read(os.path.join(data, "a9a.test"))
n = len(Xtr)
mean = [sum(r[j] for r in Xtr) / n for j in range(D)]
sd = [math.sqrt(sum((r[j] - mean[j]) ** 2 for r in Xtr) / n) for j in range(D)]


def z(x):
    return [(x[j] - mean[j]) / sd[j] if sd[j] > 0 else x[j] - mean[j] for j in range(D)]


def line(y, x):
    return ("+1" if y > 0 else "-1") + "".join(" %d:%.9g" % (j + 1, v) for j, v in enumerate(x) if v != 0.0) + "\n"


idx = list(range(n))
random.Random(seed).shuffle(idx)
with open(os.path.join(out, "a9a.std.shuf.%d.train" % seed), "w") as f:
    for i in idx:
        f.write(line(Ytr[i], z(Xtr[i])))
with open(os.path.join(out, "a9a.std.test"), "w") as f, open(os.path.join(out, "a9a.std.test.allpos"), "w") as g:
    for x, y in zip(Xte, Yte):
        zx = z(x)
        f.write(line(y, zx))
        g.write(line(1, zx))
