"""Paper 000: Wang & Vucetic, Online Passive-Aggressive Algorithms on a Budget.

Table 1 ("Results on 7 benchmark datasets"): test accuracy (mean +- std over
10 random permutations of the training stream), B = 100 and 200, RBF kernel,
features standardised to mean 0 / std 1, C and sigma^2 chosen by cross
validation per algorithm, data set and budget.

This file is read by test/bench/harness.py.  A paper module defines:

  PAPER      short id, used in file names (params-PAPER.tsv,
             doc/reproduction-PAPER.md)
  TITLE      the paper's title
  DATASETS   data set name -> loader spec (see harness.DATASET_KEYS)
  ALGORITHMS list of (row name, bk_train parameters, budgeted?)
  BUDGETS    the budgets of the budgeted rows
  PAPER_TABLE  (row name, data set, B or None) -> (mean, std, #SV or None)
  NOT_HELD   data sets of the paper that we do not hold, with the reason
  NOT_IMPLEMENTED  rows of the paper's table without an algorithm yet
  NOTES      extra text for the report (the protocol differences)
"""

PAPER = "000"
TITLE = "Wang & Vucetic, Online Passive-Aggressive Algorithms on a Budget (Table 1)"

# Loader specs: train / test files (relative to the data directory), the
# dimension, an optional label map, and an optional seeded split of a file
# without one (train_rows rows for training, the rest - or test_rows of the
# rest - for testing).
DATASETS = {
    "adult": {
        "title": "Adult (a9a)",
        "train": "a9a.train", "test": "a9a.test", "dim": 123,
        "paper": "Adult 21K x 123, 75%",
        "ours": "a9a.train 32,561 rows -> a9a.test 16,281 rows",
    },
    "banana": {
        "title": "Banana",
        "file": "banana", "dim": 2, "train_rows": 4300,
        "paper": "Banana 4.3K x 2, 55%",
        "ours": "banana 5,300 rows, seeded split: 4,300 train / 1,000 test",
    },
    "checkerboard": {
        "title": "Checkerboard",
        "train": "checkerboard.train", "test": "checkerboard.test", "dim": 2,
        "paper": "Checkerb 10K x 2, 50%",
        "ours": "checkerboard.train 10,000 -> checkerboard.test 10,000",
    },
    "ncheckerboard": {
        "title": "NCheckerboard",
        "train": "ncheckerboard.train", "test": "checkerboard.test", "dim": 2,
        "paper": "NCheckerb 10K x 2, 50% (tested on the noise-free Checkerboard)",
        "ours": "ncheckerboard.train 10,000 (15% labels flipped) -> clean checkerboard.test 10,000",
    },
    "cover": {
        "title": "Cover",
        "file": "covtype20k.binary", "dim": 54, "train_rows": 10000,
        "paper": "Cover 10K x 54, 51%",
        "ours": ("covtype20k.binary (the FIRST 20,000 rows of UCI Covertype, type 2 vs rest, 70% "
                 "negative), seeded split: 10,000 train / the other 10,000 test"),
    },
    "usps": {
        "title": "USPS",
        "train": "usps.train", "test": "usps.test", "dim": 256,
        # even digits -> -1, odd digits -> +1
        "label_map": {0: -1, 2: -1, 4: -1, 6: -1, 8: -1, 1: 1, 3: 1, 5: 1, 7: 1, 9: 1},
        "paper": "USPS 7.3K x 256, 52%",
        "ours": ("usps.train 7,291 -> usps.test 2,007; two classes = even digits (-1) vs odd "
                 "digits (+1): 51.9% majority on the training part, the paper's 52%"),
    },
}

BUDGETS = [100, 200]

# (row name, parameters without kernel/C/gamma/budget, budgeted?)
ALGORITHMS = [
    ("Pcptrn",   {"algorithm": "perceptron"}, False),
    ("PA",       {"algorithm": "pa", "loss": "hinge"}, False),
    ("PA^R",     {"algorithm": "pa", "loss": "ramp"}, False),
    ("Stptrn",   {"algorithm": "stoptron"}, True),
    ("Rand",     {"algorithm": "rbp"}, True),
    ("PA+Rnd",   {"algorithm": "pa_random", "loss": "hinge"}, True),
    ("Fogtrn",   {"algorithm": "forgetron"}, True),
    ("Pjtrn++",  {"algorithm": "projectron_pp"}, True),
    ("BPA-S",    {"algorithm": "bpa", "variant": "s", "loss": "hinge"}, True),
    ("BPA^R-S",  {"algorithm": "bpa", "variant": "s", "loss": "ramp"}, True),
    ("BPA-NN",   {"algorithm": "bpa", "variant": "nn", "loss": "hinge"}, True),
    ("BPA^R-NN", {"algorithm": "bpa", "variant": "nn", "loss": "ramp"}, True),
    ("BPA-P",    {"algorithm": "bpa", "variant": "p", "loss": "hinge"}, True),
    ("BPA^R-P",  {"algorithm": "bpa", "variant": "p", "loss": "ramp"}, True),
]

NOT_HELD = {
    "Phoneme": "Phoneme (10K x 41, 18 vs 23 classes) is not in ../shared/data: no column for it.",
}

# rows of the paper's table that no algorithm of the extension implements yet
NOT_IMPLEMENTED = []

# Paper's Table 1: data-set order of the paper's columns.
_COLS = ["adult", "banana", "checkerboard", "ncheckerboard", "cover", None, "usps"]  # None = Phoneme


def _row(name, b, text, svs=None):
    out = {}
    vals = text.split()
    for i, ds in enumerate(_COLS):
        if ds is None:
            continue
        m, s = vals[i].split("+-")
        out[(name, ds, b)] = (float(m), float(s), svs[i] if svs else None)
    return out


PAPER_TABLE = {}
PAPER_TABLE.update(_row("Pcptrn", None, "80.2+-0.2 87.4+-1.5 96.3+-0.6 83.4+-0.7 76.0+-0.4 78.9+-0.6 94.6+-0.1",
                        ["4.5K", "0.6K", "0.5K", "2.8K", "2.8K", "2.4K", "0.4K"]))
PAPER_TABLE.update(_row("PA", None, "83.6+-0.2 89.1+-0.7 97.2+-0.1 95.8+-1.0 81.6+-0.2 82.6+-0.9 96.7+-0.1",
                        ["15K", "2K", "2.6K", "5.9K", "9.9K", "7.2K", "4.5K"]))
PAPER_TABLE.update(_row("PA^R", None, "84.1+-0.1 89.3+-0.7 97.5+-0.1 96.2+-0.8 82.7+-0.3 83.7+-0.7 96.7+-0.1",
                        ["4.4K", "1.5K", "2.6K", "3.3K", "9.8K", "6.5K", "4.5K"]))
PAPER_TABLE.update(_row("Stptrn", 100, "76.5+-2.0 86.7+-2.1 87.3+-0.9 75.4+-4.3 64.2+-1.7 67.6+-2.7 89.1+-1.2"))
PAPER_TABLE.update(_row("Rand", 100, "76.2+-3.6 84.1+-2.6 85.6+-1.2 69.4+-2.9 61.3+-3.2 65.0+-4.4 87.1+-0.9"))
PAPER_TABLE.update(_row("PA+Rnd", 100, "78.4+-1.9 84.9+-2.1 83.3+-1.4 75.1+-3.6 63.1+-1.5 64.0+-3.9 86.2+-1.1"))
PAPER_TABLE.update(_row("Stptrn", 200, "78.7+-1.8 85.6+-1.5 92.8+-1.1 76.0+-3.1 65.5+-2.3 70.5+-2.6 92.3+-0.7"))
PAPER_TABLE.update(_row("Rand", 200, "76.4+-2.8 83.6+-2.0 90.3+-1.3 74.5+-2.1 62.4+-2.4 67.3+-2.5 89.8+-1.1"))
PAPER_TABLE.update(_row("PA+Rnd", 200, "80.1+-2.4 86.7+-1.9 87.0+-1.3 78.3+-1.8 64.2+-2.7 68.7+-4.3 88.8+-0.8"))
PAPER_TABLE.update(_row("Fogtrn", 100, "72.8+-6.1 82.8+-2.4 86.1+-1.0 68.2+-3.5 60.8+-2.7 65.6+-1.2 86.2+-2.1"))
PAPER_TABLE.update(_row("Pjtrn++", 100, "80.1+-0.1 89.5+-1.1 95.4+-0.7 88.1+-0.7 68.7+-1.0 74.6+-0.7 89.2+-0.7"))
PAPER_TABLE.update(_row("Fogtrn", 200, "72.9+-6.8 85.0+-1.3 90.9+-1.7 72.2+-4.4 62.1+-2.8 68.0+-2.3 90.3+-0.9"))
PAPER_TABLE.update(_row("Pjtrn++", 200, "82.9+-0.1 89.5+-1.2 95.8+-0.5 92.5+-1.0 75.1+-2.0 75.2+-0.6 93.2+-0.6"))
PAPER_TABLE.update(_row("BPA-S", 100, "82.4+-0.1 89.4+-1.3 90.0+-0.8 87.4+-0.7 68.6+-1.9 67.4+-3.0 89.6+-1.3"))
PAPER_TABLE.update(_row("BPA^R-S", 100, "82.4+-0.1 89.5+-1.7 90.0+-1.0 88.2+-1.2 69.3+-1.8 67.0+-3.2 89.3+-1.2"))
PAPER_TABLE.update(_row("BPA-NN", 100, "82.8+-0.4 89.6+-1.4 94.0+-1.2 90.2+-1.3 69.1+-1.8 74.3+-0.7 90.8+-0.9"))
PAPER_TABLE.update(_row("BPA^R-NN", 100, "83.1+-0.0 89.8+-1.1 94.2+-0.9 92.3+-0.5 70.3+-0.8 74.6+-0.8 90.8+-0.6"))
PAPER_TABLE.update(_row("BPA-P", 100, "83.0+-0.2 89.6+-1.1 95.4+-0.7 91.7+-0.8 74.3+-1.4 75.2+-1.0 92.8+-0.7"))
PAPER_TABLE.update(_row("BPA^R-P", 100, "84.0+-0.0 89.6+-0.8 95.2+-0.8 94.1+-0.9 75.0+-1.0 74.9+-0.6 92.6+-0.7"))
PAPER_TABLE.update(_row("BPA-S", 200, "82.7+-0.2 89.5+-0.7 93.4+-0.5 89.7+-0.9 71.7+-1.7 71.3+-2.3 92.6+-0.9"))
PAPER_TABLE.update(_row("BPA^R-S", 200, "83.1+-0.1 89.5+-0.9 93.9+-0.6 90.8+-0.8 71.7+-1.2 71.6+-2.2 92.1+-0.6"))
PAPER_TABLE.update(_row("BPA-NN", 200, "83.1+-0.4 89.6+-1.1 95.5+-0.4 91.7+-1.3 72.7+-1.0 75.8+-1.0 92.8+-0.6"))
PAPER_TABLE.update(_row("BPA^R-NN", 200, "83.3+-0.4 89.5+-1.4 95.2+-0.5 93.3+-0.6 72.7+-1.4 77.2+-1.7 94.0+-0.4"))
PAPER_TABLE.update(_row("BPA-P", 200, "83.8+-0.0 89.7+-0.7 95.9+-0.6 92.8+-0.7 76.0+-1.3 78.0+-0.3 94.8+-0.3"))
PAPER_TABLE.update(_row("BPA^R-P", 200, "84.6+-0.0 90.3+-1.5 95.6+-1.2 94.5+-1.1 76.3+-1.0 77.6+-0.6 94.8+-0.3"))

NOTES = """\
Differences from the paper's protocol, all deliberate and fixed in the harness:

- **Permutations**: the paper averages 10 random permutations of the
  training stream; this run uses the number given in the protocol line
  above (the harness's default is 5, the documented run uses 10). Permutation p orders the training rows by md5(p || ':' || id), so
  every run is reproducible.
- **Hyper-parameters**: the paper cross-validates C and sigma^2 for every
  algorithm, data set and budget. We choose them once with
  `bash test/bench/run.sh --tune` on a small grid, per data set,
  algorithm and budget, on a validation split of the training part (at
  most 6,000 rows for training and 2,000 for validation, seeded by
  md5('tune:' || id)), scoring each grid point by its mean validation
  accuracy over 3 permutations of the tuning stream (to avoid a grid point
  that is good on one stream only; on Adult that was not enough: see the
  notes); the chosen values are in
  test/bench/params-000.tsv and listed below. The paper cross-validates
  on the whole training part; our tuning set is smaller for Adult
  (6K of 32.5K rows) and slightly smaller elsewhere. Grid: C in {0.1, 1, 10},
  sigma^2 = d x {1/256, 1/64, 1/16, 1/4, 1, 4, 16} (gamma = 1/(2 sigma^2), d = dimension).
- **Data**: see the data-set table: Adult is a9a (32.5K training rows,
  the paper used 21K); Cover is the first 20K rows of Covertype (not a
  random sample; 70% majority class instead of the paper's 51%); USPS is
  even vs odd digits; Phoneme is not held.
- **Unbudgeted learners** (perceptron, PA, PA^R) run with max_sv = 100000
  (more than any training part), so they are never capped here.
- **Random choices**: Rand (rbp) and PA+Rnd (pa_random) draw the SV to
  remove from the extension's seeded generator with the default seed 0;
  the permutations of the stream still differ.
"""
