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
import os
import sys

from libsvm_std import line, read, standardiser

D = 54
NTRAIN = 15000

data, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
X, Y = read(os.path.join(data, "covtype20k.binary"), D)
order = sorted(range(1, len(X) + 1), key=lambda i: hashlib.md5(("split:%d" % i).encode()).hexdigest())
tr, te = order[:NTRAIN], order[NTRAIN:]
z = standardiser([X[i - 1] for i in tr], D)

for name, rows in (("covtype.std.train", tr), ("covtype.std.test", te)):
    with open(os.path.join(out, name), "w") as f:
        for i in rows:
            f.write(line(Y[i - 1], z(X[i - 1])))
