# The search's regression benchmark (doc/refit.md, "The search's final
# regressor"): four small in-memory tables, and scikit-learn's SVR tuned on
# the same training rows.  Writes OUT/reg_NAME.tsv (id, part, target,
# features as jsonb or a float8[] literal) for search_regression.sql, and
# prints each table's tuned SVR test R^2.  Run with Debian's
# /usr/bin/python3 (python3-sklearn), from the repository root:
#   /usr/bin/python3 test/bench/refit/search_regression.py [OUT]   (OUT: /tmp)
#
# Tables: f506 (make_friedman1, noise 1, 506 training rows, 2,000 test),
# cal506 and cal8000 (California housing: 506 / 8,000 training rows of a
# seeded permutation, the next 4,000 for testing; 8 numeric columns, one
# text column, missing values), dia8000 (diamonds: 8,000 training rows,
# 4,000 test; 6 numeric, 3 text columns).  SVR as a user prepares it: the
# median for a missing number, text one-hot, inputs and target standardised,
# GridSearchCV(SVR(epsilon=0.1), 3 folds, R^2) over C in {0.1, 1, 10, 100}
# and gamma in {0.25, 0.5, 1, 2} / n_features.
import csv, gzip, io, json, os, sys, time
import numpy as np
from sklearn.datasets import make_friedman1
from sklearn.metrics import r2_score
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR

OUT = sys.argv[1] if len(sys.argv) > 1 else "/tmp"
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")


def csv_table(fname, target, ntr, nte, seed):
    with gzip.open(os.path.join(DATA, fname), "rt", newline="") as f:
        rows = list(csv.reader(f))
    header, rows = rows[0], rows[1:]
    perm = np.random.RandomState(seed).permutation(len(rows))
    tr, te = perm[:ntr], perm[ntr:ntr + nte]
    tcol = header.index(target)
    num, cat = [], []
    for j in range(len(header)):
        if j == tcol:
            continue
        try:
            [float(r[j]) for r in rows if r[j] != ""]
            num.append(j)
        except ValueError:
            cat.append(j)
    return header, rows, tr, te, tcol, num, cat


def sk_arrays(rows, tr, te, tcol, num, cat):
    Xn = np.array([[float(r[j]) if r[j] != "" else np.nan for j in num] for r in rows])
    med = np.nanmedian(Xn[tr], axis=0)
    Xn = np.where(np.isnan(Xn), med, Xn)
    oh = []
    for j in cat:
        levels = sorted(set(rows[i][j] for i in tr))
        oh.append(np.array([[1.0 if r[j] == v else 0.0 for v in levels] for r in rows]))
    X = np.hstack([Xn] + oh)
    y = np.array([float(r[tcol]) for r in rows])
    return X[tr], y[tr], X[te], y[te]


def tuned_svr(name, Xtr, ytr, Xte, yte):
    d = Xtr.shape[1]
    xs = StandardScaler().fit(Xtr)
    ym, ysd = ytr.mean(), ytr.std()
    grid = {"C": [0.1, 1.0, 10.0, 100.0], "gamma": [g / d for g in (0.25, 0.5, 1.0, 2.0)]}
    t0 = time.process_time()
    gs = GridSearchCV(SVR(epsilon=0.1), grid, cv=KFold(3), scoring="r2", n_jobs=1)
    gs.fit(xs.transform(Xtr), (ytr - ym) / ysd)
    cpu = time.process_time() - t0
    pred = gs.predict(xs.transform(Xte)) * ysd + ym
    print("%-8s train %5d test %5d  tuned SVR test R2 %.4f  (C %g, gamma %.3g, CV R2 %.4f, search CPU %.1f s)"
          % (name, len(ytr), len(yte), r2_score(yte, pred), gs.best_params_["C"], gs.best_params_["gamma"],
             gs.best_score_, cpu), flush=True)


def write(name, ids_parts, ys, feats):
    with open(os.path.join(OUT, "reg_%s.tsv" % name), "w") as f:
        for (i, p), y, x in zip(ids_parts, ys, feats):
            f.write("%d\t%s\t%.17g\t%s\n" % (i, p, y, x))


# f506: arrays
X, y = make_friedman1(n_samples=2506, n_features=10, noise=1.0, random_state=7)
write("f506", [(i + 1, "train" if i < 506 else "test") for i in range(len(y))], y,
      ["{%s}" % ",".join("%.17g" % v for v in X[i]) for i in range(len(y))])
tuned_svr("f506", X[:506], y[:506], X[506:], y[506:])

# California housing and diamonds: named features (jsonb), text as text
for name, fname, target, ntr in (("cal506", "cal_housing.csv.gz", "median_house_value", 506),
                                 ("cal8000", "cal_housing.csv.gz", "median_house_value", 8000),
                                 ("dia8000", "diamonds.csv.gz", "price", 8000)):
    header, rows, tr, te, tcol, num, cat = csv_table(fname, target, ntr, 4000, 0)
    feats, ids, ys = [], [], []
    for part, idx in (("train", tr), ("test", te)):
        for i in idx:
            r = rows[i]
            obj = {}
            for j in num:
                obj[header[j]] = float(r[j]) if r[j] != "" else None
            for j in cat:
                obj[header[j]] = r[j] if r[j] != "" else None
            feats.append(json.dumps(obj))
            ids.append((int(i) + 1, part))
            ys.append(float(r[tcol]))
    write(name, ids, ys, feats)
    tuned_svr(name, *sk_arrays(rows, tr, te, tcol, num, cat))
