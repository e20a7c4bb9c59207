"""The bare learning core against the bars of issue 57, in one run on one
machine: doc/performance-core.md (`bash test/bench/run.sh --only core`).

Everything here is CPU time of test/bench/bk_bench, the process's own
(getrusage of the child: user + system), which other processes' load
inflates less than wall time: a training's CPU seconds are those of a run
with --repeat N+1 less those of a run with --repeat 1, over N, which
cancels reading the file (the reference build has no CPU clock of its
own).  In rounds: each round runs every setting once on every build, the
builds' order reversed every other round, and the table gives the median
of the rounds' ratios, with their range.

- Pegasos-merge against BPA-S on a9a at B = 100 (the bar: at most 1.4x);
- BPA-P at B = 500, Projectron++ at B = 500 and BDUOL with projection
  against the last build on OpenBLAS and LAPACKE (commit 14dc29f, built
  here from the repository's history; the bar: no slower);
- bk_merge of 32 one-vs-rest parts against training the serial model
  (bk_bench --merge-parts 32: the merge's CPU, decoding included, over
  the serial training's; the bar: at most 2x) on usps and a9a.
"""
import os
import statistics
import subprocess

# the last commit whose core called OpenBLAS and LAPACKE (issue 32 replaced
# them by the fixed-order arithmetic of src/core/base/bk_linalg.c)
REF_COMMIT = "14dc29f"

# Pegasos-merge against BPA-S on a9a at B = 100: (setting, standardise, gamma)
PEGASOS_CASES = [
    ("a9a standardised, B = 100, gamma 0.0002541", True, "0.0002541"),
    ("a9a raw, B = 100, gamma 0.0002541", False, "0.0002541"),
    ("a9a raw, B = 100, gamma 0.0625", False, "0.0625"),
]
BPA_S = "algorithm=bpa,variant=s,loss=hinge,C=1,kernel=rbf,budget=100,gamma=%s"
PEGASOS_MERGE = "algorithm=pegasos,maintenance=merge,kernel=rbf,budget=100,gamma=%s"
# trainings per run for the Pegasos ratio, of which bk_bench gives the median
RATE_REPEAT = 9

REF_SETTINGS = [
    # (label, data file, dim, max rows, params, repeat)
    ("BPA-P, a9a, B = 500", "a9a.train", 123, None,
     "algorithm=bpa,variant=p,loss=hinge,kernel=rbf,budget=500,C=1,gamma=0.00101626", 3),
    ("BPA-P, a9a, B = 100", "a9a.train", 123, None,
     "algorithm=bpa,variant=p,loss=hinge,kernel=rbf,budget=100,C=1,gamma=0.00101626", 3),
    ("Projectron++, a9a, B = 500", "a9a.train", 123, None,
     "algorithm=projectron_pp,budget=500,kernel=rbf,gamma=0.00101626", 3),
    ("BPA-P, usps, B = 500", "usps.train", 256, None,
     "algorithm=bpa,variant=p,loss=hinge,kernel=rbf,budget=500,C=10,gamma=0.0078125", 1),
    ("BDUOL-projection, a9a first 2,000 rows, B = 100", "a9a.train", 123, 2000,
     "algorithm=bduol,maintenance=projection,budget=100,C=1,kernel=rbf,gamma=0.0002541", 1),
]

MERGE_SETTINGS = [
    ("usps, BPA-NN, B = 100", "usps.train", "usps.test", 256,
     "algorithm=bpa,variant=nn,budget=100,gamma=0.0625,C=1"),
    ("a9a, BPA-NN, B = 100", "a9a.train", "a9a.test", 123,
     "algorithm=bpa,variant=nn,budget=100,gamma=0.0625,C=0.1"),
]


def run_bench(h, binary, data_dir, train, dim, params, repeat=1, standardise=False,
              max_rows=None, extra=(), cpu=None):
    """harness.bare on a file of data_dir, pinned to cpu: on a shared virtual
    machine two vCPUs can run the same training 25 % apart for minutes, so
    the two sides of a ratio run on the same one"""
    return h.bare(os.path.join(data_dir, train), None, dim, params, repeat, max_rows,
                  binary=binary, standardise=standardise, extra=extra, cpu=cpu)


def train_cpu(h, binary, data_dir, train, dim, params, n, standardise=False, max_rows=None,
              cpu=None):
    """A training's CPU seconds: (--repeat n+1) - (--repeat 1), over n;
    and the last run's output"""
    one = run_bench(h, binary, data_dir, train, dim, params, 1, standardise, max_rows, cpu=cpu)
    more = run_bench(h, binary, data_dir, train, dim, params, n + 1, standardise, max_rows,
                     cpu=cpu)
    return (more["process_cpu_s"] - one["process_cpu_s"]) / n, more


def own_train_cpu(h, binary, data_dir, train, dim, params, n, standardise, cpu):
    """A training's CPU seconds as bk_bench times it: the median of n
    trainings' process CPU clock, around the training loop alone (the
    14dc29f build has no such clock; the two sides of the Pegasos ratio
    are both this build)"""
    return run_bench(h, binary, data_dir, train, dim, params, n, standardise, cpu=cpu)["train_cpu_s"]


def round_cpu(r):
    """the CPU that round r runs on: the machine's CPUs in turn"""
    cpus = sorted(os.sched_getaffinity(0))
    return cpus[r % len(cpus)]


def reference_build(h):
    """bk_bench of REF_COMMIT, built once under test/bench/out."""
    d = os.path.join(h.OUT, "core-ref-" + REF_COMMIT)
    binary = os.path.join(d, "test", "bench", "bk_bench")
    if os.path.exists(binary):
        return binary
    os.makedirs(d, exist_ok=True)
    arch = subprocess.run(["git", "-C", h.ROOT, "archive", REF_COMMIT], capture_output=True)
    if arch.returncode != 0:
        raise RuntimeError("git archive %s failed (a shallow clone? fetch the history): %s"
                           % (REF_COMMIT, arch.stderr.decode(errors="replace")))
    subprocess.run(["tar", "-x", "-C", d], input=arch.stdout, check=True)
    p = subprocess.run(["make", "-s", "-C", d, "test/bench/bk_bench"], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("building %s's bk_bench failed (it needs liblapacke-dev and "
                           "libopenblas-dev): %s" % (REF_COMMIT, p.stderr[-2000:]))
    return binary


def spread(values):
    return "%.2f (%.2f–%.2f)" % (statistics.median(values), min(values), max(values))


def core_mode(h, args):
    rounds = 3 if args.quick else 7
    data = args.data_dir
    now = h.BK_BENCH
    ref = reference_build(h)
    mi = h.machine_info()
    load0 = os.getloadavg()

    # rate[case] = ([BPA-S CPU s by round], [Pegasos-merge CPU s by round])
    rate = {i: ([], []) for i in range(len(PEGASOS_CASES))}
    refc = {i: {"now": [], "ref": [], "mist": None} for i in range(len(REF_SETTINGS))}
    merge = {i: [] for i in range(len(MERGE_SETTINGS))}
    for r in range(rounds):
        h.log("== core: round %d of %d" % (r + 1, rounds))
        pin = round_cpu(r)
        runs = [(i, k) for i in range(len(PEGASOS_CASES)) for k in (0, 1)]
        for i, k in (runs if r % 2 == 0 else reversed(runs)):
            _, std, gamma = PEGASOS_CASES[i]
            params = (BPA_S, PEGASOS_MERGE)[k] % gamma
            rate[i][k].append(own_train_cpu(h, now, data, "a9a.train", 123, params, RATE_REPEAT,
                                            std, pin))
        for i, (_, f, dim, mx, params, rep) in enumerate(REF_SETTINGS):
            order = [("ref", ref), ("now", now)] if r % 2 == 0 else [("now", now), ("ref", ref)]
            for name, binary in order:
                cpu, out = train_cpu(h, binary, data, f, dim, params, rep, max_rows=mx, cpu=pin)
                refc[i][name].append(cpu)
                refc[i]["mist_" + name] = out["online_mistakes"]
        for i, (_, f, test, dim, params) in enumerate(MERGE_SETTINGS):
            out = run_bench(h, now, data, f, dim, params, 1,
                            extra=["--test", os.path.join(data, test), "--merge-parts", "32"])
            merge[i].append(out)

    L = ["# The bare core against its bars\n",
         "Generated by the benchmark harness - do not edit by hand. Command:\n",
         "```sh\n%s\n```\n" % args.command, h.machine_md(mi) + "\n",
         "Load average %.2f / %.2f / %.2f at the start, %.2f / %.2f / %.2f at the end.\n"
         % (load0 + os.getloadavg()),
         "CPU seconds of `test/bench/bk_bench` (the bare learning core, no PostgreSQL). Against "
         "the OpenBLAS build: the process's user and system time of a run with `--repeat N+1` "
         "less that of a run with `--repeat 1`, over N (N = 3, 1 for usps BPA-P and BDUOL), which "
         "cancels reading the file (that build has no clock of its own around the training). "
         "Pegasos-merge against BPA-S: bk_bench's own process CPU clock around the training "
         "loop, the median of %d trainings in one run (these trainings last 0.05-0.1 s, less "
         "than reading the file, whose own variation swamped the difference of two runs). The "
         "merges' figures are bk_bench's own clock around the merge and around the serial "
         "training. %d rounds; each round runs every setting once on every build, all on one "
         "CPU (the machine's CPUs in turn, round by round: two vCPUs of a shared machine can "
         "run the same training 25 %% apart), the order reversed every other round; a ratio is "
         "taken within a round, and the tables give the median of the rounds' ratios with "
         "their range. The training files in file order, from `../shared/data`."
         % (RATE_REPEAT, rounds),
         "\n## Pegasos-merge against BPA-S (a9a, B = 100)\n",
         "Issue 57's bar: Pegasos-merge's CPU time at most 1.4 times BPA-S's. The first pair is "
         "the performance run's setting (standardised features, gamma = 1/(2 d/4)); the last "
         "is merge-accuracy.md's (raw features, gamma = 0.0625), where most partners of a merge "
         "lie too far for the merge search's tight bounds (doc/benchmarks.md).\n",
         "| setting | BPA-S CPU s | Pegasos-merge CPU s | Pegasos-merge / BPA-S |",
         "| --- | ---: | ---: | ---: |"]
    for i, (label, _std, _gamma) in enumerate(PEGASOS_CASES):
        bpa_s, pegasos = rate[i]
        ratios = [p / b for p, b in zip(pegasos, bpa_s)]
        L.append("| %s | %.3f | %.3f | %s |" % (label, statistics.median(bpa_s),
                                                statistics.median(pegasos), spread(ratios)))
    L += ["\n## Against the OpenBLAS build\n",
          "Issue 57's bar: BPA-P at B = 500 on a9a and BDUOL with projection no slower than "
          "the last build whose core called OpenBLAS 0.3.21 and LAPACKE (commit %s, built here "
          "with `make test/bench/bk_bench` from `git archive %s`; `OPENBLAS_NUM_THREADS=1`, "
          "OpenBLAS's own choice of kernel for this CPU, with FMA where the CPU has it). The "
          "current core computes every product in a fixed order without FMA, so that a model's "
          "bytes are the same on every CPU. Online mistakes differ where OpenBLAS's last bits "
          "turned a near tie.\n" % (REF_COMMIT, REF_COMMIT),
          "| setting | OpenBLAS build CPU s | this build CPU s | this / OpenBLAS | online mistakes (OpenBLAS; this) |",
          "| --- | ---: | ---: | ---: | ---: |"]
    for i, (label, *_rest) in enumerate(REF_SETTINGS):
        c = refc[i]
        ratios = [n / o for n, o in zip(c["now"], c["ref"])]
        L.append("| %s | %.3f | %.3f | %s | %s; %s |" % (
            label, statistics.median(c["ref"]), statistics.median(c["now"]), spread(ratios),
            "{:,}".format(c["mist_ref"]), "{:,}".format(c["mist_now"])))
    L += ["\n## Merging 32 one-vs-rest parts\n",
          "Issue 57's bar: `bk_merge` of 32 one-vs-rest BPA-NN parts on usps at most twice the "
          "CPU time of training the serial model. `bk_bench --merge-parts 32` trains 32 parts "
          "(part p the rows whose line number is p mod 32) and merges them as `bk_merge(m ORDER "
          "BY part)` does, decoding included; the serial model is trained on every row in file "
          "order. Accuracy on the test file.\n",
          "| data set | serial training CPU s | merge CPU s | merge / serial | serial accuracy % | merged accuracy % | part 0 accuracy % |",
          "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for i, (label, *_rest) in enumerate(MERGE_SETTINGS):
        outs = merge[i]
        ratios = [o["merge_cpu_s"] / o["merge_serial_cpu_s"] for o in outs]
        o = outs[-1]
        L.append("| %s | %.3f | %.3f | %s | %.2f | %.2f | %.2f |" % (
            label, statistics.median(x["merge_serial_cpu_s"] for x in outs),
            statistics.median(x["merge_cpu_s"] for x in outs), spread(ratios),
            o["merge_serial_acc"], o["merge_acc"], o["merge_part0_acc"]))
    L.append("")
    path = os.path.join(h.ROOT, "doc", "performance-core.md")
    with open(path, "w") as fh:
        fh.write("\n".join(L))
    h.log("== wrote %s" % os.path.relpath(path, h.ROOT))
