# Friedman #1 tables for the refit benchmark (doc/refit.md): make_friedman1,
# noise sd 1, 2,000 test rows; writes /tmp/bk_refit_f506.csv and
# /tmp/bk_refit_f4000.csv, then tunes scikit-learn SVR on the same rows.
# Run with Debian's /usr/bin/python3 (python3-sklearn).
import sys, time, numpy as np
from sklearn.datasets import make_friedman1
from sklearn.svm import SVR
from sklearn.model_selection import GridSearchCV
from sklearn.preprocessing import StandardScaler
from sklearn.pipeline import make_pipeline
from sklearn.metrics import r2_score
for name, n in (("f506", 506), ("f4000", 4000)):
    X, y = make_friedman1(n_samples=n + 2000, n_features=10, noise=1.0, random_state=7)
    with open(f"/tmp/bk_refit_{name}.csv", "w") as f:
        for i in range(len(y)):
            f.write("%d,%s,{%s},%.17g\n" % (i + 1, "train" if i < n else "test", ",".join("%.17g" % v for v in X[i]), y[i]))
    Xtr, ytr, Xte, yte = X[:n], y[:n], X[n:], y[n:]
    grid = {"svr__C": [1, 3, 10, 30, 100], "svr__gamma": [0.01, 0.03, 0.1, 0.3], "svr__epsilon": [0.1, 0.5]}
    t = time.time()
    gs = GridSearchCV(make_pipeline(StandardScaler(), SVR()), grid, cv=3, n_jobs=1).fit(Xtr, ytr)
    print(name, "tuned SVR", gs.best_params_, "test R2 %.4f" % r2_score(yte, gs.predict(Xte)), "search %.1fs" % (time.time() - t), flush=True)
    d = make_pipeline(StandardScaler(), SVR()).fit(Xtr, ytr)
    print(name, "SVR defaults test R2 %.4f" % r2_score(yte, d.predict(Xte)), flush=True)
