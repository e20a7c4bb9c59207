"""What the data-preparation scripts beside this file share: reading
LIBSVM text into dense rows, standardising with the training rows'
statistics (population sd; a constant feature only centred), and writing
a row back as LIBSVM text (labels +1 / -1, zeros left out)."""
import math


def read(path, d):
    """The rows of a LIBSVM file as dense lists of d values, and the labels."""
    X, Y = [], []
    for line in open(path):
        t = line.split()
        if not t:
            continue
        Y.append(int(float(t[0])))
        x = [0.0] * d
        for kv in t[1:]:
            k, v = kv.split(":")
            x[int(k) - 1] = float(v)
        X.append(x)
    return X, Y


def standardiser(rows, d):
    """z(x): x standardised by the mean and deviation of rows (summed in
    their order)."""
    n = len(rows)
    mean = [sum(r[j] for r in rows) / n for j in range(d)]
    sd = [math.sqrt(sum((r[j] - mean[j]) ** 2 for r in rows) / n) for j in range(d)]

    def z(x):
        return [(x[j] - mean[j]) / sd[j] if sd[j] > 0 else x[j] - mean[j] for j in range(d)]
    return z


def line(y, x):
    return ("+1" if y > 0 else "-1") + "".join(" %d:%.9g" % (j + 1, v) for j, v in enumerate(x) if v != 0.0) + "\n"
