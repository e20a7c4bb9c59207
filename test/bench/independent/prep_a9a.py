#!/usr/bin/env python3
"""Standardise a9a with the training rows' statistics (population sd; a
constant feature only centred), shuffle the training rows with a seed, and
write LIBSVM text: OUT/a9a.std.shuf.SEED.train, OUT/a9a.std.test, and
OUT/a9a.std.test.allpos (every label +1: its accuracy is the fraction of
rows a model predicts positive).

    python3 prep_a9a.py DATA_DIR OUT_DIR SEED
"""
import os
import random
import sys

from libsvm_std import line, read, standardiser

D = 123

data, out, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(out, exist_ok=True)
Xtr, Ytr = read(os.path.join(data, "a9a.train"), D)
Xte, Yte = read(os.path.join(data, "a9a.test"), D)
n = len(Xtr)
z = standardiser(Xtr, D)

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
