#!/usr/bin/env python3
"""test/bench/harness.py - reproduction and benchmark harness of budgetkernel.

Run it through test/bench/run.sh, which builds and installs the extension,
starts a throwaway cluster (PGHOST/PGPORT/PGUSER) and builds the bare-core
program test/bench/bk_bench.  Everything goes through psql and SQL:
loading (COPY), standardisation, training (bk_train), scoring (bk_predict)
and the online metrics (bk_info).  Standard library only.

Modes (see doc/benchmarks.md):
  table   the paper's table (doc/reproduction-PAPER.md)
  tune    choose C and gamma on a validation split (test/bench/params-PAPER.tsv)
  perf    in-database versus bare core, scaling, memory, LIBSVM (doc/performance.md)
  drift   streams with known drift: detectors and retraining strategies
          (doc/drift-benchmarks.md, test/bench/drift_bench.py)
  smoke   a few-second end-to-end check of all of the above (CI)
"""

import argparse
import datetime
import gzip
import hashlib
import importlib
import json
import math
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

DB = os.environ.get("BK_BENCH_DB", "bkbench")
OUT = os.path.join(HERE, "out")           # scratch files (ignored by git)
BK_BENCH = os.path.join(HERE, "bk_bench")
LOG_LOCK = threading.Lock()


def log(*a):
    with LOG_LOCK:
        print(*a, flush=True)


# ---------------------------------------------------------------------------
# psql
# ---------------------------------------------------------------------------

def psql(sql, db=None, stdin_data=None, check=True):
    """Run SQL with psql (unaligned, tuples only); return stdout."""
    cmd = ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
           "-d", db or DB, "-c", sql]
    p = subprocess.run(cmd, input=stdin_data, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise RuntimeError("psql failed (%d): %s\nSQL: %s" % (p.returncode, p.stderr.strip(), sql[:500]))
    return p.stdout


def psql_file(sql, db=None):
    """Run a multi-statement script (psql -f -)."""
    cmd = ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", db or DB, "-f", "-"]
    p = subprocess.run(cmd, input=sql, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("psql failed (%d): %s" % (p.returncode, p.stderr.strip()))
    return p.stdout


def psql_json(sql, db=None):
    out = psql(sql, db).strip().splitlines()
    return json.loads(out[-1])


SETUP_SQL = r"""
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS budgetkernel;
CREATE SCHEMA IF NOT EXISTS bench;

-- one training run and its scoring, timed inside the server
-- perm = 0: the table's id order; perm > 0: ORDER BY md5(perm || ':' || id)
CREATE OR REPLACE FUNCTION bench.run(train_tbl text, test_tbl text, params jsonb,
                                     perm int, max_id bigint DEFAULT NULL)
RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
    m bk_model;
    t0 timestamptz; t1 timestamptz; t2 timestamptz;
    acc float8;
    n_test bigint;
    ord text;
BEGIN
    ord := CASE WHEN perm = 0 THEN 'id' ELSE format('md5(%s || '':'' || id)', perm) END;
    t0 := clock_timestamp();
    EXECUTE format('SELECT bk_train(features, label, $1 ORDER BY %s) FROM bench.%I WHERE $2 IS NULL OR id <= $2',
                   ord, train_tbl) INTO m USING params, max_id;
    t1 := clock_timestamp();
    IF test_tbl IS NOT NULL THEN
        -- score with the model read from a table, as users do: a model passed
        -- as a parameter ($1, a PL/pgSQL variable) is much slower to score
        -- (doc/performance.md)
        DROP TABLE IF EXISTS pg_temp.bench_model;
        CREATE TEMP TABLE bench_model AS SELECT m AS model;
        -- its statistics, as doc/scoring-performance.md advises
        ANALYZE pg_temp.bench_model;
        t1 := clock_timestamp();
        EXECUTE format('SELECT avg((bk_predict(b.model, t.features) = t.label)::int)::float8, count(*) '
                       'FROM bench.%I t, pg_temp.bench_model b', test_tbl) INTO acc, n_test;
    END IF;
    t2 := clock_timestamp();
    RETURN bk_info(m) || jsonb_build_object(
        'train_s', extract(epoch FROM t1 - t0),
        'score_s', extract(epoch FROM t2 - t1),
        'accuracy', acc, 'test_rows', n_test);
END
$fn$;

-- the resident-set figures of this backend (kB), from /proc
CREATE OR REPLACE FUNCTION bench.mem() RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE s text; hwm bigint; rss bigint;
BEGIN
    s := pg_read_file('/proc/' || pg_backend_pid() || '/status');
    hwm := (regexp_match(s, 'VmHWM:\s+(\d+) kB'))[1]::bigint;
    rss := (regexp_match(s, 'VmRSS:\s+(\d+) kB'))[1]::bigint;
    RETURN jsonb_build_object('hwm_kb', hwm, 'rss_kb', rss,
        'anon_kb', (regexp_match(s, 'RssAnon:\s+(\d+) kB'))[1]::bigint);
END
$fn$;

-- backend pids of running measurements, so that the harness can follow
-- their private memory (RssAnon) from outside
CREATE TABLE IF NOT EXISTS bench.pids (token text PRIMARY KEY, pid int);
"""


def ensure_db():
    """The harness's own database (bkbench) is made afresh, so that it holds
    the SQL objects of the extension as installed now (a database kept from
    an earlier build keeps that build's objects); one named by BK_BENCH_DB
    is only created if missing."""
    if DB == "bkbench":
        psql("DROP DATABASE IF EXISTS %s" % DB, db="postgres")
    exists = psql("SELECT 1 FROM pg_database WHERE datname = '%s'" % DB, db="postgres").strip()
    if not exists:
        psql("CREATE DATABASE %s" % DB, db="postgres")
    psql_file(SETUP_SQL)


# ---------------------------------------------------------------------------
# data: LIBSVM -> tables, seeded splits, standardisation in SQL
# ---------------------------------------------------------------------------

def md5key(s):
    return hashlib.md5(s.encode()).hexdigest()


def split_order(n):
    """Row numbers 1..n in the harness's seeded order of random splits: a
    split takes its first rows for one part and the next for the other."""
    return sorted(range(1, n + 1), key=lambda i: md5key("split:%d" % i))


def write_doc(name, lines):
    """A generated page of doc/, from its lines."""
    out_md = os.path.join(ROOT, "doc", name)
    with open(out_md, "w") as f:
        f.write("\n".join(lines) + "\n")
    log("== wrote %s" % os.path.relpath(out_md, ROOT))


def read_libsvm(path, dim, label_map=None, limit=None):
    opener = gzip.open if path.endswith(".gz") else open
    rows = []
    with opener(path, "rt") as f:
        for line in f:
            toks = line.split()
            if not toks:
                continue
            y = int(toks[0])
            if label_map is not None:
                y = label_map[y]
            x = ["0"] * dim
            for t in toks[1:]:
                i, v = t.split(":", 1)
                x[int(i) - 1] = v
            rows.append((y, x))
            if limit and len(rows) >= limit:
                break
    return rows


def copy_rows(table, rows, ids=None):
    """COPY (id, label, features) rows into bench.table (created fresh)."""
    psql("DROP TABLE IF EXISTS bench.%s; CREATE TABLE bench.%s (id bigint, label int8, features float8[])"
         % (table, table))
    buf = []
    for k, (y, x) in enumerate(rows):
        i = ids[k] if ids is not None else k + 1
        buf.append("%d\t%d\t{%s}\n" % (i, y, ",".join(x)))
    psql("COPY bench.%s FROM STDIN" % table, stdin_data="".join(buf))


# How every table of the harness stores its features column, as the README
# advises: inline (STORAGE MAIN), compressed with lz4 where that makes the
# row smaller.  With PostgreSQL's defaults, rows of more than about 250
# standardised features (which do not compress) move out of line into the
# TOAST table, and each row read costs an index look-up there: usps
# trained 1.5x slower (doc/preparation.md, "Storing the features").
FEATURES_STORAGE = ("ALTER TABLE bench.%s ALTER COLUMN features SET STORAGE MAIN, "
                    "ALTER COLUMN features SET COMPRESSION lz4;")


def create_table_as(dst, select):
    """CREATE TABLE bench.<dst> AS <select>, with the features stored as
    FEATURES_STORAGE says (set before the rows are written)."""
    return (f"DROP TABLE IF EXISTS bench.{dst};\n"
            f"CREATE TABLE bench.{dst} AS {select} WITH NO DATA;\n"
            + FEATURES_STORAGE % dst + "\n"
            f"INSERT INTO bench.{dst} {select};\n")


def standardize_sql(name, raw_train, raw_test, train, test):
    """mean 0 / std 1 with the training part's statistics (population std;
    a constant feature is only centred), applied to both parts."""
    # serial: partial sums of parallel workers add up in varying order, and
    # the last bits of the statistics (so ncb1m's mistake counts) then
    # changed from run to run
    sql = f"""
SET max_parallel_workers_per_gather = 0;
DROP TABLE IF EXISTS bench.{name}_stats;
CREATE TABLE bench.{name}_stats AS
SELECT array_agg(mean ORDER BY i) AS mean, array_agg(sd ORDER BY i) AS sd FROM (
    SELECT u.i, avg(u.v) AS mean,
           CASE WHEN stddev_pop(u.v) > 0 THEN stddev_pop(u.v) ELSE 1 END AS sd
    FROM bench.{raw_train} r, unnest(r.features) WITH ORDINALITY AS u(v, i)
    GROUP BY u.i) s;
RESET max_parallel_workers_per_gather;
"""
    for src, dst in ((raw_train, train), (raw_test, test)):
        if src is None:
            continue
        sql += create_table_as(dst, f"""
SELECT r.id, r.label,
       (SELECT array_agg((u.v - s.mean[u.i]) / s.sd[u.i] ORDER BY u.i)
        FROM unnest(r.features) WITH ORDINALITY AS u(v, i)) AS features
FROM bench.{src} r, bench.{name}_stats s""") + f"""
ALTER TABLE bench.{dst} ADD PRIMARY KEY (id);
ANALYZE bench.{dst};
"""
    psql_file(sql)


def load_dataset(name, spec, data_dir, limit=None, tag=None, keep_raw=False):
    """Load a data set as bench.<tag>_train / bench.<tag>_test, standardised
    (keep_raw: and the values as read in bench.<tag>_rawtrain / _rawtest)."""
    tag = tag or name
    t0 = time.time()
    lm = spec.get("label_map")
    if "file" in spec:
        rows = read_libsvm(os.path.join(data_dir, spec["file"]), spec["dim"], lm)
        order = split_order(len(rows))
        ntr = spec["train_rows"]
        tr_ids = sorted(order[:ntr])
        te_ids = sorted(order[ntr:ntr + spec["test_rows"]] if "test_rows" in spec else order[ntr:])
        if limit:
            tr_ids = tr_ids[:limit]
        train = [rows[i - 1] for i in tr_ids]
        test = [rows[i - 1] for i in te_ids]
        copy_rows(tag + "_rawtrain", train, tr_ids)
        copy_rows(tag + "_rawtest", test, te_ids)
    else:
        train = read_libsvm(os.path.join(data_dir, spec["train"]), spec["dim"], lm, limit)
        copy_rows(tag + "_rawtrain", train)
        if spec.get("test"):
            test = read_libsvm(os.path.join(data_dir, spec["test"]), spec["dim"], lm)
            copy_rows(tag + "_rawtest", test)
    has_test = bool(spec.get("test") or "file" in spec)
    standardize_sql(tag, tag + "_rawtrain", tag + "_rawtest" if has_test else None,
                    tag + "_train", tag + "_test")
    if not keep_raw:
        psql("DROP TABLE bench.%s_rawtrain; DROP TABLE IF EXISTS bench.%s_rawtest" % (tag, tag))
    n = psql("SELECT (SELECT count(*) FROM bench.%s_train) || ' ' || "
             "coalesce((SELECT count(*) FROM bench.%s_test)::text, '0')" % (tag, tag)
             if has_test else "SELECT (SELECT count(*) FROM bench.%s_train) || ' 0'" % tag).split()
    log("  loaded %-14s train %s rows, test %s rows, dim %d (%.1fs)"
        % (tag, n[0], n[1], spec["dim"], time.time() - t0))
    return int(n[0]), int(n[1])


def export_libsvm(table, path, perm=0):
    """Write bench.table as a dense LIBSVM file in the stream order of
    permutation perm (the bare core and LIBSVM read exactly these rows)."""
    ord_ = "id" if perm == 0 else "md5(%d || ':' || id)" % perm
    sql = ("COPY (SELECT label || ' ' || (SELECT string_agg(u.i || ':' || u.v, ' ' ORDER BY u.i) "
           "FROM unnest(features) WITH ORDINALITY AS u(v, i)) FROM bench.%s ORDER BY %s) TO STDOUT"
           % (table, ord_))
    with open(path, "w") as f:
        p = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", DB, "-c", sql],
                           stdout=f, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError("export failed: " + p.stderr)


# ---------------------------------------------------------------------------
# parameters
# ---------------------------------------------------------------------------

C_GRID = [0.1, 1.0, 10.0]
S2_FACTORS = [1 / 256, 1 / 64, 1 / 16, 1 / 4, 1, 4, 16]   # sigma^2 = d * factor


def gamma_grid(dim):
    return [1.0 / (2.0 * dim * f) for f in S2_FACTORS]


def default_params(dim):
    # sigma^2 = d / 4 ... a middle value of the grid, C = 1
    return {"C": 1.0, "gamma": 1.0 / (2.0 * dim / 4)}


def params_path(paper):
    return os.path.join(HERE, "params-%s.tsv" % paper)


def read_params(paper):
    out = {}
    p = params_path(paper)
    if not os.path.exists(p):
        return out
    with open(p) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            ds, alg, b, c, g, *rest = line.rstrip("\n").split("\t")
            out[(ds, alg, None if b == "-" else int(b))] = {
                "C": float(c), "gamma": float(g),
                "val_acc": float(rest[0]) if rest and rest[0] else None}
    return out


# algorithms with an aggressiveness C (the perceptron family has none)
C_ALGORITHMS = {"pa", "bpa", "pa_random", "duol", "bduol"}


def takes_c(algorithm):
    return algorithm in C_ALGORITHMS


def make_params(base, hp, budgeted, b, dim):
    p = dict(base)
    p["kernel"] = "rbf"
    p["gamma"] = hp["gamma"]
    if takes_c(p["algorithm"]):
        p["C"] = hp["C"]
    if budgeted:
        p["budget"] = b
    else:
        p["max_sv"] = 100000
    return p


def run_one(train_tbl, test_tbl, params, perm, max_id=None):
    sql = "SELECT bench.run('%s', %s, '%s'::jsonb, %d, %s)" % (
        train_tbl, "'%s'" % test_tbl if test_tbl else "NULL", json.dumps(params), perm,
        "NULL" if max_id is None else str(max_id))
    return psql_json(sql)


# ---------------------------------------------------------------------------
# paper table
# ---------------------------------------------------------------------------

def mean_std(v):
    v = [x for x in v if x is not None]
    if not v:
        return float("nan"), float("nan")
    return statistics.mean(v), (statistics.stdev(v) if len(v) > 1 else 0.0)


def machine_info():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = "unknown"
    try:
        with open("/proc/meminfo") as f:
            kb = int(f.readline().split()[1])
            mem = "%.1f GiB" % (kb / 1048576)
    except OSError:
        pass
    pgv = psql("SHOW server_version").strip()
    sb = psql("SHOW shared_buffers").strip()
    ext = psql("SELECT extversion FROM pg_extension WHERE extname = 'budgetkernel'").strip()
    rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True).stdout.strip() or "unknown"
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--", "src", "sql"],
                           capture_output=True, text=True).stdout.strip()
    return {"nproc": os.cpu_count(), "cpu": cpu, "mem": mem, "kernel": platform.release(),
            "pg": pgv, "shared_buffers": sb, "ext": ext, "rev": rev + (" (with uncommitted changes in src/ or sql/)" if dirty else ""),
            "date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")}


def machine_md(mi):
    return ("Machine: %s, %s logical CPUs (`nproc`), %s RAM, Linux %s; PostgreSQL %s "
            "(shared_buffers %s), budgetkernel %s at commit %s; run %s."
            % (mi["cpu"], mi["nproc"], mi["mem"], mi["kernel"], mi["pg"], mi.get("shared_buffers", "not recorded"),
               mi["ext"], mi["rev"], mi["date"]))


def fmt_sv(n):
    if n is None or (isinstance(n, float) and math.isnan(n)):
        return "-"
    return "%.1fK" % (n / 1000) if n >= 1000 else "%d" % round(n)


def table_mode(paper, args, datasets_only=None, perms=None, budgets=None, algs=None,
               out_md=None, raw_out=None):
    mod = importlib.import_module("paper_%s" % paper)
    perms = perms or args.perms
    budgets = budgets or mod.BUDGETS
    algs = [a for a in mod.ALGORITHMS if algs is None or a[0] in algs]
    dsets = [d for d in mod.DATASETS if datasets_only is None or d in datasets_only]
    hps = read_params(paper)
    mi = machine_info()

    log("== loading %d data sets" % len(dsets))
    sizes = {}
    for ds in dsets:
        spec = dict(mod.DATASETS[ds])
        sizes[ds] = load_dataset(ds, spec, args.data_dir, limit=args.limit)

    # every run (data set, algorithm, B, permutation)
    jobs = []
    for ds in dsets:
        dim = mod.DATASETS[ds]["dim"]
        for name, base, budgeted in algs:
            for b in (budgets if budgeted else [None]):
                hp = hps.get((ds, name, b)) or default_params(dim)
                p = make_params(base, hp, budgeted, b, dim)
                for perm in range(1, perms + 1):
                    jobs.append((ds, name, b, perm, p, hp))

    # longest first (unbudgeted on the big sets) so the pool ends evenly
    def cost(j):
        ds, name, b, *_ = j
        return (0 if b is not None else 1) * sizes[ds][0] + (b or 0)
    jobs.sort(key=cost, reverse=True)
    log("== %d runs (%d permutations), %d parallel" % (len(jobs), perms, args.jobs))
    results = {}
    t_start = time.time()
    done = [0]

    def work(j):
        ds, name, b, perm, p, hp = j
        r = run_one(ds + "_train", ds + "_test", p, perm)
        with LOG_LOCK:
            done[0] += 1
            if args.verbose or done[0] % 25 == 0 or done[0] == len(jobs):
                print("  [%d/%d %.0fs] %s %s B=%s perm %d: acc %.4f n_sv %s train %.2fs"
                      % (done[0], len(jobs), time.time() - t_start, ds, name, b, perm,
                         r["accuracy"], r["n_sv"], r["train_s"]), flush=True)
        return j, r

    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        for j, r in ex.map(work, jobs):
            ds, name, b, perm, p, hp = j
            results.setdefault((ds, name, b), {"params": p, "hp": hp, "runs": []})["runs"].append(r)
    elapsed = time.time() - t_start

    os.makedirs(OUT, exist_ok=True)
    raw_out = raw_out or os.path.join(OUT, "table-%s.json" % paper)
    # A run of some rows (--algs) on every data set keeps the other rows of
    # the last full table run with the same permutations, so that adding a
    # row to the table does not mean running the whole table again.
    if args.algs and datasets_only is None and os.path.exists(raw_out):
        with open(raw_out.replace(".json", ".meta.json")) as f:
            old_meta = json.load(f)
        if old_meta["perms"] == perms and old_meta["budgets"] == budgets and \
           old_meta["datasets"] == dsets:
            with open(raw_out) as f:
                for e in json.load(f):
                    k = (e["dataset"], e["algorithm"], e["budget"])
                    if k not in results and e["algorithm"] in [a[0] for a in mod.ALGORITHMS]:
                        results[k] = {"params": e["params"], "hp": e["hp"], "runs": e["runs"]}
            names = set(old_meta["algs"]) | set(a[0] for a in algs)
            algs = [a for a in mod.ALGORITHMS if a[0] in names]
            log("== adding rows %s to the last table run" % " ".join(args.algs))
            elapsed += old_meta["elapsed"]
            # the document's command: the full run, then this one
            args.command = "%s\n# then the rows %s:\n%s" % (old_meta["command"], " ".join(args.algs),
                                                          args.command)
            log("== kept the other rows of the last table run (%s)" % os.path.relpath(raw_out, ROOT))
    with open(raw_out, "w") as f:
        json.dump([{"dataset": k[0], "algorithm": k[1], "budget": k[2], **v}
                   for k, v in results.items()], f, indent=1)

    with open(raw_out.replace(".json", ".meta.json"), "w") as f:
        json.dump({"paper": paper, "datasets": dsets, "algs": [a[0] for a in algs], "budgets": budgets,
                   "perms": perms, "sizes": sizes, "machine": mi, "elapsed": elapsed,
                   "jobs": args.jobs, "command": args.command}, f, indent=1)
    md = write_table_md(mod, dsets, algs, budgets, perms, results, hps, sizes, mi, elapsed, args)
    out_md = out_md or os.path.join(ROOT, "doc", "reproduction-%s.md" % paper)
    with open(out_md, "w") as f:
        f.write(md)
    log("== wrote %s (%.0fs of runs)" % (os.path.relpath(out_md, ROOT), elapsed))
    return results


def write_table_md(mod, dsets, algs, budgets, perms, results, hps, sizes, mi, elapsed, args):
    L = []
    L.append("# Reproduction of paper %s: %s\n" % (mod.PAPER, mod.TITLE))
    L.append("Generated by the benchmark harness - do not edit by hand. Command:\n")
    L.append("```sh\n%s\n```\n" % args.command)
    L.append(machine_md(mi) + "\n")
    L.append("Protocol: features standardised to mean 0 / std 1 with the training part's "
             "statistics (applied to the test part); RBF kernel exp(-gamma ||x - x'||^2), "
             "gamma = 1/(2 sigma^2); each cell is %d permutations of the training stream "
             "(ORDER BY md5(p || ':' || id), p = 1..%d), trained with `bk_train` and scored with "
             "`bk_predict` on the test part, through SQL. Accuracy is mean ± std (sample std) "
             "over the permutations, in %%; #SV, training time (seconds, inside the server, "
             "`clock_timestamp()` around the `bk_train` query, ORDER BY sort included) and the "
             "online (prequential) mistake rate over the stream (`bk_info`: each row predicted "
             "before it is learned) are means. **Paper** is Table 1's value (mean ± std over "
             "10 permutations, #SV in brackets for the unbudgeted rows). "
             "Δ = ours - paper in points; a cell is flagged (†) when |Δ| exceeds the paper's "
             "spread (its ± value), and Δ is in bold when ours is 2 points or more under "
             "the paper. "
             "Wall time of all runs: %.0f s with %d parallel sessions.\n"
             % (perms, perms, elapsed, args.jobs))
    L.append("## Data sets\n")
    L.append("| data set | paper | ours (train -> test) | rows loaded (train / test) |")
    L.append("| --- | --- | --- | --- |")
    for ds in dsets:
        s = mod.DATASETS[ds]
        L.append("| %s | %s | %s | %d / %d |" % (s["title"], s["paper"], s["ours"], sizes[ds][0], sizes[ds][1]))
    for k, v in mod.NOT_HELD.items():
        L.append("| %s | - | **not held**: %s | - |" % (k, v))
    L.append("")
    if getattr(mod, "NOT_IMPLEMENTED", None):
        L.append("Rows of the paper's table without an algorithm in the extension yet (not run): %s.\n"
                 % ", ".join(mod.NOT_IMPLEMENTED))

    flagged = []
    sections = [("Memory-unbounded online algorithms", None)] + \
        [("Budgeted online algorithms (B = %d)" % b, b) for b in budgets]
    for title, b in sections:
        rows = [a for a in algs if (a[2] and b is not None) or (not a[2] and b is None)]
        if not rows:
            continue
        L.append("## %s\n" % title)
        L.append("| algorithm | data set | ours: accuracy % | paper | Δ | #SV | train s | online mistake rate % | C | gamma |")
        L.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
        for name, base, budgeted in rows:
            for ds in dsets:
                r = results.get((ds, name, b))
                if not r:
                    continue
                accs = [x["accuracy"] * 100 for x in r["runs"]]
                m, s = mean_std(accs)
                nsv = statistics.mean(x["n_sv"] for x in r["runs"])
                tt = statistics.mean(x["train_s"] for x in r["runs"])
                omr = statistics.mean(x.get("online_mistake_rate", float("nan")) for x in r["runs"]) * 100
                pv = mod.PAPER_TABLE.get((name, ds, b))
                if pv:
                    pm, ps, psv = pv
                    d = m - pm
                    flag = abs(d) > ps + 0.05          # the paper's numbers are rounded to 0.1
                    under = d <= -2.0
                    ptxt = "%.1f ± %.1f%s" % (pm, ps, " (%s)" % psv if psv else "")
                    dtxt = "%s%+.1f%s%s" % ("**" if under else "", d, " †" if flag else "",
                                            "**" if under else "")
                    if flag:
                        flagged.append((name, ds, b, m, s, pm, ps, d, r))
                else:
                    ptxt, dtxt = "-", "-"
                L.append("| %s | %s | %.1f ± %.1f | %s | %s | %s | %.2f | %.1f | %s | %.4g |"
                         % (name, mod.DATASETS[ds]["title"], m, s, ptxt, dtxt, fmt_sv(nsv), tt, omr,
                            "%g" % r["params"]["C"] if "C" in r["params"] else "-", r["params"]["gamma"]))
        L.append("")

    # averages per algorithm over the data sets we hold
    L.append("## Averages over the data sets held\n")
    L.append("| algorithm | B | ours | paper (same data sets) |")
    L.append("| --- | ---: | ---: | ---: |")
    for title, b in sections:
        for name, base, budgeted in algs:
            if budgeted != (b is not None):
                continue
            ours, theirs = [], []
            for ds in dsets:
                r = results.get((ds, name, b))
                pv = mod.PAPER_TABLE.get((name, ds, b))
                if r:
                    ours.append(mean_std([x["accuracy"] * 100 for x in r["runs"]])[0])
                if pv:
                    theirs.append(pv[0])
            if ours:
                L.append("| %s | %s | %.1f | %s |" % (name, b or "-", statistics.mean(ours),
                                                      "%.1f" % statistics.mean(theirs) if theirs else "-"))
    L.append("")

    _base = {a[0]: a[1] for a in algs}
    L.append("## Hyper-parameters\n")
    if hps:
        L.append("C and gamma per data set and algorithm, from test/bench/params-%s.tsv "
                 "(written by `--tune`; validation accuracy in %%). A cell without an entry "
                 "uses the default C = 1, sigma^2 = d/4.\n" % mod.PAPER)
        L.append("| data set | algorithm | B | C | gamma | sigma^2 | validation accuracy |")
        L.append("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
        for ds in dsets:
            for name, _, budgeted in algs:
                for b in (budgets if budgeted else [None]):
                    h = hps.get((ds, name, b))
                    if h:
                        L.append("| %s | %s | %s | %s | %.4g | %.4g | %s |" % (
                            mod.DATASETS[ds]["title"], name, b or "-",
                            "%g" % h["C"] if takes_c(_base[name]["algorithm"]) else "-", h["gamma"],
                            1 / (2 * h["gamma"]),
                            "%.1f" % (h["val_acc"] * 100) if h["val_acc"] is not None else "-"))
    else:
        L.append("No tuned parameters (test/bench/params-%s.tsv missing): every cell uses "
                 "C = 1, sigma^2 = d/4.\n" % mod.PAPER)
    L.append("")
    L.append("## Protocol notes\n")
    L.append(mod.NOTES)

    L.append("## Cells that differ from the paper by more than the spread\n")
    if not flagged:
        L.append("None.\n")
    else:
        L.append("Generated list (Δ in points; the reasons found are in the section that follows, "
                 "written by hand in doc/reproduction-%s-notes.md and included here by the "
                 "harness).\n" % mod.PAPER)
        L.append("| algorithm | B | data set | ours | paper | Δ | accuracy of each permutation |")
        L.append("| --- | ---: | --- | ---: | ---: | ---: | --- |")
        for name, ds, b, m, s, pm, ps, d, r in sorted(flagged, key=lambda z: z[7]):
            L.append("| %s | %s | %s | %.1f ± %.1f | %.1f ± %.1f | %+.1f | %s |"
                     % (name, b or "-", mod.DATASETS[ds]["title"], m, s, pm, ps, d,
                        " ".join("%.1f" % (x["accuracy"] * 100) for x in r["runs"])))
        L.append("")
    notes = os.path.join(ROOT, "doc", "reproduction-%s-notes.md" % mod.PAPER)
    if os.path.exists(notes) and not args.smoke:
        with open(notes) as f:
            L.append(f.read())
    return "\n".join(L) + "\n"


def report_mode(paper, args):
    """Rewrite doc/reproduction-PAPER.md from the raw results of the last
    table run (test/bench/out/table-PAPER.json), e.g. after editing the
    hand-written notes; nothing is run."""
    mod = importlib.import_module("paper_%s" % paper)
    raw = os.path.join(OUT, "table-%s.json" % paper)
    with open(raw) as f:
        entries = json.load(f)
    with open(raw.replace(".json", ".meta.json")) as f:
        meta = json.load(f)
    results = {(e["dataset"], e["algorithm"], e["budget"]):
               {"params": e["params"], "hp": e["hp"], "runs": e["runs"]} for e in entries}
    algs = [a for a in mod.ALGORITHMS if a[0] in meta["algs"]]
    args.command = meta["command"]
    args.jobs = meta["jobs"]
    md = write_table_md(mod, meta["datasets"], algs, meta["budgets"], meta["perms"], results,
                        read_params(paper), {k: tuple(v) for k, v in meta["sizes"].items()},
                        meta["machine"], meta["elapsed"], args)
    out_md = os.path.join(ROOT, "doc", "reproduction-%s.md" % paper)
    with open(out_md, "w") as f:
        f.write(md)
    log("== rewrote %s from %s" % (os.path.relpath(out_md, ROOT), os.path.relpath(raw, ROOT)))


# ---------------------------------------------------------------------------
# tuning
# ---------------------------------------------------------------------------

TUNE_PERMS = [3]


def tune_mode(paper, args):
    TUNE_PERMS[0] = args.tune_perms
    mod = importlib.import_module("paper_%s" % paper)
    dsets = [d for d in mod.DATASETS if not args.datasets or d in args.datasets]
    log("== tuning paper %s on %s" % (paper, ", ".join(dsets)))
    old = read_params(paper)
    for ds in dsets:
        spec = mod.DATASETS[ds]
        dim = spec["dim"]
        # validation split of the training part: at most 6,000 + 2,000 rows
        n, _ = load_dataset(ds, spec, args.data_dir, tag=ds)
        ntr = min(6000, int(n * 0.75))
        nva = min(2000, n - ntr)
        psql_file(f"""
DROP TABLE IF EXISTS bench.tune_{ds}_train, bench.tune_{ds}_val;
CREATE TABLE bench.tune_{ds}_train AS
  SELECT row_number() OVER (ORDER BY md5('tune:' || id)) AS id, label, features FROM bench.{ds}_train;
CREATE TABLE bench.tune_{ds}_val AS SELECT * FROM bench.tune_{ds}_train WHERE id > {ntr} AND id <= {ntr + nva};
DELETE FROM bench.tune_{ds}_train WHERE id > {ntr};
""")
        jobs = []
        for name, base, budgeted in mod.ALGORITHMS:
            if args.algs and name not in args.algs:
                continue
            for b in (mod.BUDGETS if budgeted else [None]):
                for c in (C_GRID if takes_c(base["algorithm"]) else [1.0]):
                    for g in gamma_grid(dim):
                        p = make_params(base, {"C": c, "gamma": g}, budgeted, b, dim)
                        for perm in range(1, args.tune_perms + 1):
                            jobs.append((name, b, c, g, p, perm))

        def work(j):
            name, b, c, g, p, perm = j
            r = run_one("tune_%s_train" % ds, "tune_%s_val" % ds, p, perm)
            return j, r
        t0 = time.time()
        accs = {}
        with ThreadPoolExecutor(max_workers=args.jobs) as ex:
            for (name, b, c, g, p, perm), r in ex.map(work, jobs):
                accs.setdefault((name, b, c, g), []).append(r["accuracy"])
                if args.verbose:
                    log("  %s %s B=%s C=%g gamma=%.4g perm %d: %.4f" % (ds, name, b, c, g, perm, r["accuracy"]))
        best = {}
        for (name, b, c, g), v in accs.items():     # insertion order = grid order
            acc = statistics.mean(v)
            # ties: the first grid point in C-then-gamma order wins
            if (name, b) not in best or acc > best[(name, b)][2] + 1e-12:
                best[(name, b)] = (c, g, acc)
        for (name, b), (c, g, acc) in best.items():
            old[(ds, name, b)] = {"C": c, "gamma": g, "val_acc": acc}
            log("  %s %-9s B=%-4s C=%-4g gamma=%.4g  validation %.2f%%" % (ds, name, b or "-", c, g, acc * 100))
        log("  %s: %d runs in %.0fs" % (ds, len(jobs), time.time() - t0))
        write_params(paper, mod, old)


def write_params(paper, mod, hps):
    with open(params_path(paper), "w") as f:
        f.write("# Hyper-parameters of paper %s's table, written by: bash test/bench/run.sh --tune\n" % paper)
        f.write("# Chosen on a validation split of each training part (<= 6000 train / 2000 validation rows,\n")
        f.write("# seeded by md5('tune:' || id)), mean over %d permutations, each budget; grid C in %s,\n"
                % (TUNE_PERMS[0], C_GRID))
        f.write("# sigma^2 = d x %s, gamma = 1/(2 sigma^2).\n" % ["1/256", "1/64", "1/16", "1/4", "1", "4", "16"])
        f.write("# dataset\talgorithm\tbudget\tC\tgamma\tvalidation_accuracy\n")
        for ds in mod.DATASETS:
            for name, _, budgeted in mod.ALGORITHMS:
                for b in (mod.BUDGETS if budgeted else [None]):
                    h = hps.get((ds, name, b))
                    if h:
                        f.write("%s\t%s\t%s\t%g\t%.6g\t%s\n" % (
                            ds, name, b or "-", h["C"], h["gamma"],
                            "%.4f" % h["val_acc"] if h["val_acc"] is not None else ""))
    log("== wrote %s" % os.path.relpath(params_path(paper), ROOT))


# ---------------------------------------------------------------------------
# performance
# ---------------------------------------------------------------------------

def bare(train_file, test_file, dim, params, repeat=1, max_rows=None, binary=None,
         standardise=False, extra=(), cpu=None):
    """One run of bk_bench (binary, this build's by default): its JSON line,
    with the process's user and system CPU seconds as process_cpu_s.
    params: a dict, or bk_bench's "key=value,..." string.  cpu: pin the run
    to that CPU."""
    spec = params if isinstance(params, str) else ",".join("%s=%s" % (k, v) for k, v in params.items())
    cmd = [binary or BK_BENCH, "--train", train_file, "--dim", str(dim), "--params", spec,
           "--repeat", str(repeat)]
    if test_file:
        cmd += ["--test", test_file]
    if standardise:
        cmd.append("--standardize")
    if max_rows:
        cmd += ["--max-rows", str(max_rows)]
    cmd += list(extra)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    pin = (lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, preexec_fn=pin)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise RuntimeError("bk_bench failed: %s %s" % (" ".join(cmd), p.stderr))
    out = json.loads(p.stdout.strip().splitlines()[-1])
    out["process_cpu_s"] = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return out


def indb_stream(tbl, test_tbl, params, scans=1):
    """In-database training over bench.<tbl> (rows stored in stream order):
    bk_train without ORDER BY (scan order; the median of `scans` runs in the
    session, as the bare core's time is the median of its repeats in one
    process) and with ORDER BY id, and scoring with bk_predict, in one
    session; times from clock_timestamp()."""
    sql = f"""
DO $$
DECLARE t0 timestamptz; t1 timestamptz; t2 timestamptz; t3 timestamptz; t4 timestamptz; m1 bk_model; m2 bk_model; acc float8;
  scan_s float8[] := '{{}}';
BEGIN
  -- warm-up: the library and OpenBLAS are loaded by the first call of a session,
  -- and the session's first read of each shared buffer maps it into the backend
  -- (page faults: the bare core's rows are in its memory before it is timed, too)
  SELECT bk_train(features, label, '{json.dumps(params)}'::jsonb) INTO m1 FROM (SELECT * FROM bench.{tbl} LIMIT 20) w;
  PERFORM sum(cardinality(features)) FROM bench.{tbl};
  {"PERFORM sum(cardinality(features)) FROM bench." + test_tbl + ";" if test_tbl else ""}
  FOR i IN 1..{scans} LOOP
    t0 := clock_timestamp();
    SELECT bk_train(features, label, '{json.dumps(params)}'::jsonb) INTO m1 FROM bench.{tbl};
    t1 := clock_timestamp();
    scan_s := scan_s || extract(epoch FROM t1 - t0)::float8;
  END LOOP;
  SELECT bk_train(features, label, '{json.dumps(params)}'::jsonb ORDER BY id) INTO m2 FROM bench.{tbl};
  DROP TABLE IF EXISTS pg_temp.bench_model;
  CREATE TEMP TABLE bench_model AS SELECT m1 AS model;
  -- without statistics the planner takes the table for about 1,360 rows,
  -- and the join's estimated cost has PostgreSQL compile it with JIT
  ANALYZE pg_temp.bench_model;
  t2 := clock_timestamp();
  {"SELECT avg((bk_predict(b.model, t.features) = t.label)::int)::float8 INTO acc FROM bench." + test_tbl + " t, pg_temp.bench_model b;" if test_tbl else ""}
  t3 := clock_timestamp();
  {"SELECT avg((bk_predict((SELECT b.model FROM pg_temp.bench_model b), t.features) = t.label)::int)::float8 INTO acc FROM bench." + test_tbl + " t;" if test_tbl else ""}
  t4 := clock_timestamp();
  PERFORM set_config('bench.out', (bk_info(m1) || jsonb_build_object(
      'scan_s', (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FROM unnest(scan_s) v),
      'scan_runs_s', to_jsonb(scan_s),
      'ordered_s', extract(epoch FROM t2 - t1),
      'score_s', extract(epoch FROM t3 - t2), 'score_sub_s', extract(epoch FROM t4 - t3), 'accuracy', acc,
      'same_model', m1::text = m2::text))::text, false);
END $$;
SELECT current_setting('bench.out');"""
    return psql_json(sql)


def scan_floor(tbl):
    """PostgreSQL's own least cost of a training scan: `count(features)` over
    bench.<tbl> (the scan, the tuple deforming, one aggregate transition a
    row), the median of 3 runs after one read, in one session (seconds).
    Serial, as the training scans are: PERFORM, unlike SELECT INTO, may
    take a parallel plan, and on ncb1m two workers and a Gather doubled
    the time of a count(features) on this 2-CPU machine."""
    sql = f"""
SET max_parallel_workers_per_gather = 0;
DO $$
DECLARE t0 timestamptz; s float8[] := '{{}}';
BEGIN
  PERFORM count(features) FROM bench.{tbl};
  FOR i IN 1..3 LOOP
    t0 := clock_timestamp();
    PERFORM count(features) FROM bench.{tbl};
    s := s || extract(epoch FROM clock_timestamp() - t0)::float8;
  END LOOP;
  PERFORM set_config('bench.out', jsonb_build_object('floor_s',
      (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FROM unnest(s) v))::text, false);
END $$;
SELECT current_setting('bench.out');"""
    return psql_json(sql)["floor_s"]


# A setting whose bare run takes less than this (seconds) gets SHORT_ROUNDS
# rounds instead of `repeat`: the machine's spells last seconds, so a short
# setting's few runs can fall in one spell on one side only, and its ratio
# moved most between pages (a9a BOGD, B = 100: 1.00, then 1.21, with no change
# to its code; a9a BPA-S, B = 100: 1.33 from the medians of 5 rounds, where
# 8 rounds on the development machine the next day gave 1.15-1.20 each).
SHORT_S = 0.5
SHORT_ROUNDS = 9


def bare_and_indb(train_file, test_file, dim, params, tbl, test_tbl, repeat, runs_path):
    """The bare core and the server on the same stream, the runs of the two
    interleaved (bare, server, bare, server, ...), so that the machine's
    slower and faster spells fall on both sides; medians of each.  Each bare
    run is itself the median of 3 repeats in one process when repeat > 1.
    `repeat` rounds, or SHORT_ROUNDS when the first bare run is short.  Every
    run is appended to runs_path (JSON lines)."""
    bs, ins = [], []
    rounds = repeat
    while len(bs) < rounds:
        bs.append(bare(train_file, test_file, dim, params, repeat=3 if repeat > 1 else 1))
        ins.append(indb_stream(tbl, test_tbl, params, scans=3 if repeat > 1 else 1))
        if len(bs) == 1 and repeat > 1 and bs[0]["train_s"] < SHORT_S:
            rounds = max(repeat, SHORT_ROUNDS)
    # a ratio from each round's two adjacent measurements, then their median:
    # a spell that slows both sides of a round cancels out of its ratio
    ir_last = ins[-1]
    ir_last["ratios"] = {
        k: statistics.median(i[ik] / b[bk] for b, i in zip(bs, ins))
        for k, ik, bk in (("scan", "scan_s", "train_s"), ("ordered", "ordered_s", "train_s"),
                          ("join", "score_s", "score_s"), ("subquery", "score_sub_s", "score_s"))}
    with open(runs_path, "a") as f:
        f.write(json.dumps({"params": params, "table": tbl,
                            "bare": [{k: b.get(k) for k in ("train_s", "score_s", "train_runs_s")}
                                     for b in bs],
                            "indb": [{k: i.get(k) for k in ("scan_runs_s", "ordered_s", "score_s",
                                                            "score_sub_s")} for i in ins]}) + "\n")
    br, ir = bs[-1], ir_last
    for k in ("train_s", "score_s"):
        br[k] = statistics.median(b[k] for b in bs)
    for k in ("scan_s", "ordered_s", "score_s", "score_sub_s"):
        ir[k] = statistics.median(i[k] for i in ins)
    # the fastest of all the runs on each side: the machine's noise only adds time
    br["train_min_s"] = min(t for b in bs for t in b["train_runs_s"])
    ir["scan_min_s"] = min(t for i in ins for t in i["scan_runs_s"])
    return br, ir


def read_anon_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def mem_run(tbl, params, max_id=None):
    """Fresh connection: VmHWM before and after training, and the peak of the
    backend's private memory (RssAnon) sampled from outside every ~2 ms
    while it trains (kB)."""
    where = "" if max_id is None else " WHERE id <= %d" % max_id
    token = "m%d_%d" % (os.getpid(), int(time.time() * 1e6))
    sql = f"""
-- warm-up: load the library (and OpenBLAS) and touch the table's pages
SELECT bk_info(bk_train(features, label, '{json.dumps(params)}'::jsonb)) FROM (SELECT * FROM bench.{tbl} LIMIT 20) w;
SELECT count(*) FROM bench.{tbl}{where};
INSERT INTO bench.pids VALUES ('{token}', pg_backend_pid());
SELECT pg_sleep(0.3);
SELECT set_config('bench.before', bench.mem()::text, false);
DO $$
DECLARE t0 timestamptz; m bk_model;
BEGIN
  t0 := clock_timestamp();
  SELECT bk_train(features, label, '{json.dumps(params)}'::jsonb) INTO m FROM bench.{tbl}{where};
  PERFORM set_config('bench.out', (bk_info(m) || jsonb_build_object(
      'train_s', extract(epoch FROM clock_timestamp() - t0)))::text, false);
END $$;
SELECT jsonb_build_object('before', current_setting('bench.before')::jsonb, 'after', bench.mem())
       || current_setting('bench.out')::jsonb;"""
    cmd = ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", DB, "-f", "-"]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    proc.stdin.write(sql)
    proc.stdin.close()
    pid = None
    peak = 0
    while proc.poll() is None:
        if pid is None:
            out = psql("SELECT pid FROM bench.pids WHERE token = '%s'" % token).strip()
            pid = int(out) if out else None
            if pid is None:
                time.sleep(0.02)
            continue
        a = read_anon_kb(pid)
        if a is not None and a > peak:
            peak = a
        time.sleep(0.002)
    out = proc.stdout.read()      # a few short lines: the pipes never fill up
    err = proc.stderr.read()
    proc.wait()
    if proc.returncode != 0:
        raise RuntimeError("psql failed: " + err)
    psql("DELETE FROM bench.pids WHERE token = '%s'" % token)
    r = json.loads(out.strip().splitlines()[-1])
    r["delta_kb"] = r["after"]["hwm_kb"] - r["before"]["hwm_kb"]
    r["anon_before_kb"] = r["before"]["anon_kb"]
    r["anon_peak_kb"] = max(peak, r["after"]["anon_kb"], r["before"]["anon_kb"])
    r["anon_growth_kb"] = r["anon_peak_kb"] - r["before"]["anon_kb"]
    return r


def make_stream_table(src, dst, perm, limit=None):
    ord_ = "id" if perm == 0 else "md5(%d || ':' || id)" % perm
    lim = "" if limit is None else " LIMIT %d" % limit
    psql_file(create_table_as(dst, f"""
  SELECT row_number() OVER (ORDER BY {ord_}) AS id, label, features
  FROM (SELECT * FROM bench.{src} ORDER BY {ord_}{lim}) s ORDER BY 1""") + f"""
ALTER TABLE bench.{dst} ADD PRIMARY KEY (id);
VACUUM ANALYZE bench.{dst};
""")


# One setting of every learner for the smoke test's bare-core check.
SMOKE_LEARNERS = [
    {"algorithm": "perceptron", "max_sv": 1000},
    {"algorithm": "pa", "loss": "ramp", "max_sv": 1000},
    {"algorithm": "bpa", "variant": "p", "budget": 10},
    {"algorithm": "pegasos", "maintenance": "merge", "budget": 10},
    {"algorithm": "stoptron", "budget": 10},
    {"algorithm": "rbp", "budget": 10, "seed": 3},
    {"algorithm": "pa_random", "budget": 10, "seed": 3},
    {"algorithm": "budget_perceptron", "budget": 10},
    {"algorithm": "tighter_budget_perceptron", "budget": 10, "eval_set": "flip", "eval_size": 20},
    {"algorithm": "spa", "alpha": 1, "beta": 5, "seed": 3},
    {"algorithm": "ogd", "eta": 0.5, "max_sv": 1000},
    {"algorithm": "duol", "C": 4, "max_sv": 1000},
    {"algorithm": "bduol", "maintenance": "removal", "budget": 10, "C": 4},
    {"algorithm": "bduol", "maintenance": "nearest", "budget": 10, "C": 4},
    {"algorithm": "bduol", "maintenance": "approx_projection", "budget": 10, "C": 4},
    {"algorithm": "bduol", "maintenance": "projection", "budget": 10, "C": 4},
    {"algorithm": "bogd", "budget": 10, "eta": 0.5, "seed": 3},
    {"algorithm": "forgetron", "budget": 10},
    {"algorithm": "projectron", "budget": 10},
    {"algorithm": "projectron_pp", "budget": 10},
]


# performance rows without a tuned cell of their own, and whose cell they use
PERF_TUNED_AS = {"BDUOL-NN": "BPA-NN", "BOGD": "BPA-S", "Pegasos-merge": "BPA-NN"}


PERF_SETS = {
    "a9a": {"train": "a9a.train", "test": "a9a.test", "dim": 123},
    "usps": {"train": "usps.train", "test": "usps.test", "dim": 256,
             "label_map": {0: -1, 2: -1, 4: -1, 6: -1, 8: -1, 1: 1, 3: 1, 5: 1, 7: 1, 9: 1}},
    "ncb1m": {"train": "ncheckerboard1m.train.gz", "test": "checkerboard.test", "dim": 2},
}


def perf_mode(args):
    mi = machine_info()
    os.makedirs(OUT, exist_ok=True)
    # the runs behind the page, beside it when it is not doc/ (the smoke
    # test's), so that a smoke test keeps the last full run's
    runs_path = (os.path.join(os.path.dirname(args.perf_out), "perf-runs.jsonl")
                 if args.perf_out else os.path.join(OUT, "perf-runs.jsonl"))
    open(runs_path, "w").close()
    hps = read_params("000")
    quick = args.quick
    repeat = 1 if quick else 3
    sets = dict(PERF_SETS)
    if args.smoke:
        sets = {"cb": {"train": "checkerboard.train", "test": "checkerboard.test", "dim": 2}}
    L = ["# Performance\n",
         "Generated by the benchmark harness - do not edit by hand. Command:\n",
         "```sh\n%s\n```\n" % args.command, machine_md(mi) + "\n",
         "Parallel training, shards, the cost of a merge and scoring with many models are in\n"
         "[performance-scaleout.md](performance-scaleout.md) (`bash test/bench/run.sh --only scaleout`);\n"
         "the cost of the feature forms (arrays, prepared arrays, named features as jsonb) in\n"
         "[performance-features.md](performance-features.md) (`bash test/bench/run.sh --only features`).\n",
         "No timing here is asserted by a test. The machine is shared and its timings are "
         "noisy: figures are medians of %d runs where marked, and ratios are always taken "
         "between figures measured in the same run; in section 1 the bare and in-database "
         "runs alternate (each bare run the median of 3 repeats in one process; %d rounds, "
         "%d where a bare run takes under %g s), so that the "
         "machine's slower and faster spells fall on both sides.\n"
         % (repeat, repeat, max(repeat, SHORT_ROUNDS), SHORT_S)]
    t_all = time.time()

    # ---- 1. in-database versus bare core
    log("== perf: in-database versus bare core")
    L.append("## 1. In-database versus the bare core\n")
    L.append("Same rows, same order, same parameters on both sides. The training part is "
             "loaded and standardised in SQL (statistics of the training part), stored in a "
             "table in stream order (permutation 1: ORDER BY md5(1 || ':' || id)) whose features "
             "column is kept inline (`STORAGE MAIN`, `COMPRESSION lz4`, as doc/preparation.md "
             "\"Storing the features\" advises; standardised usps rows would otherwise go out "
             "of line), and "
             "exported from that table as a LIBSVM file for `test/bench/bk_bench` (the bare "
             "core: the same src/core sources, compiled with the unit tests' flags, rows in "
             "memory, only the learning / scoring loops timed with "
             "clock_gettime(CLOCK_MONOTONIC)). In-database time is measured inside the server "
             "with `clock_timestamp()` around the statement in a DO block: **scan** = "
             "`bk_train(...)` over the table in its physical (= stream) order, the median of 3 "
             "runs in one session, as the bare core's figure is the median of 3 repeats in one "
             "process (on both sides the first run is slower, its rows not yet in the CPU's "
             "caches: on the development machine, usps, BPA-NN, B = 100, 40 against 34 ms in the "
             "server, 53 against 28-37 ms bare), **ORDER BY** = "
             "`bk_train(... ORDER BY id)` (includes PostgreSQL's sort of the rows; one run); each follows, "
             "in the same session, one read of the training and test tables, as the bare core's "
             "rows are in its memory before it is timed (a session's first read of a shared buffer "
             "maps it into the backend: on the development machine, a virtual machine, that cost "
             "as much as the training, 188 against 95 ms for BPA-S on a9a at B = 100); scoring = "
             "with the model stored in a (temporary) table, in two forms: **join** = "
             "`avg((bk_predict(b.model, t.features) = t.label)::int) FROM test t, model_table b` "
             "(the README's pattern) and **subquery** = `bk_predict((SELECT model FROM "
             "model_table), t.features)`. Both decode the model once per query (the scoring "
             "cache, doc/scoring-performance.md); in the join form a model stored inline in its row "
             "(under about 2 kB) is compared byte for byte with the cached copy on every row. "
             "The model table is ANALYZEd after it is written, as doc/scoring-performance.md advises: "
             "without statistics the planner took the new table for 1,360 rows, and the "
             "join's estimated cost made PostgreSQL compile the query with JIT (a9a, BPA-NN, "
             "B = 100: 327 ms against 27 ms analyzed, or with jit = off; the join ratios of "
             "3 to 100 on the pages before this one were that compilation). Every timed statement is a PL/pgSQL SELECT INTO, which "
             "PostgreSQL runs without parallel workers, as the bare core runs on one CPU. "
             "Passing the model as a PL/pgSQL "
             "variable or query parameter ($1) was slower still in a separate check (a9a, "
             "BPA-P, B = 500, 16,281 rows: 2.44 s with a variable, 0.47 s joined from a table). "
             "Identical online-mistake counts on both sides confirm the same stream. "
             "rows/s in thousands (k), from the medians of the rounds; ratio = in-db time / "
             "bare time (1.0 = no overhead): each round's in-database figure over the bare figure "
             "measured just before it, and the median of those rounds' ratios (so that a slow "
             "spell over both sides of a round cancels out; the runs of each setting are kept in "
             "test/bench/out/perf-runs.jsonl); **ratio scan less floor** = the ratio less the floor / bare time, where the floor is PostgreSQL's own cost of the scan (below): what the extension adds; **ratio scan, fastest runs** = the fastest in-database scan "
             "over the fastest bare run, of all the runs of each side (%d rounds of 3, %d "
             "where a bare run takes under %g s; a "
             "single run where one is all a setting gets): on this "
             "shared machine a run is only ever slowed by what else runs, so the fastest "
             "runs are the closest to the code's own cost. "
             "Compilers: the extension is built by PGXS with `%s` plus -fPIC and the "
             "Makefile's -ffp-contract=off (and, for the learning core's files, "
             "-fno-wrapv -fstrict-aliasing, as its tests build it, and -fvisibility=hidden); the bare core with the "
             "unit tests' `gcc -std=c99 -O2 -ffp-contract=off`. Both compute with the core's own "
             "fixed-order arithmetic (src/core/base/bk_linalg.c, bk_fmath.c), no BLAS. **Roofline**: a "
             "row's least work, one product of the row against the B x d SV matrix (the core's "
             "fixed-order gemv) plus B exp() (and a B-length dot), is what the "
             "bare core's scoring does per row with the trained model; **%% roofline** = training "
             "rows/s as a percentage of the bare scoring rows/s, measured on this machine in "
             "this run (bare, and in-database scan). The roofline is that of the full budget: "
             "a short stream spends much of its time below it, with fewer SVs, and can then "
             "exceed 100 %%.\n" % (repeat, max(repeat, SHORT_ROUNDS), SHORT_S, pg_cflags()))
    L.append("| data set | algorithm | B | C | gamma | rows | bare train k rows/s | in-db scan k rows/s | ratio scan | ratio scan, fastest runs | ratio scan less floor | in-db ORDER BY k rows/s | ratio ORDER BY | bare score k rows/s | in-db score join k rows/s | ratio join | in-db score subquery k rows/s | ratio subquery | n_sv | mistakes bare / in-db | test acc % | bare % roofline | in-db % roofline |")
    L.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |")
    algs = [("BPA-S", {"algorithm": "bpa", "variant": "s", "loss": "hinge"}),
            ("BPA-NN", {"algorithm": "bpa", "variant": "nn", "loss": "hinge"}),
            ("BPA-P", {"algorithm": "bpa", "variant": "p", "loss": "hinge"})]
    if not args.smoke:
        # the other budgeted learners with an O(B d) or O(B^2) step
        algs += [("Fogtrn", {"algorithm": "forgetron"}),
                 ("Pjtrn++", {"algorithm": "projectron_pp"}),
                 ("BDUOL-NN", {"algorithm": "bduol", "maintenance": "nearest"}),
                 ("BOGD", {"algorithm": "bogd"}),
                 ("Pegasos-merge", {"algorithm": "pegasos", "maintenance": "merge"})]
    budgets = [10] if args.smoke else [100, 500]
    ratio_rows = []
    notes_perf = []
    floors = []
    for name, spec in sets.items():
        n_train, n_test = load_dataset(name, spec, args.data_dir,
                                       limit=(500 if args.smoke else args.limit), tag="p_" + name)
        make_stream_table("p_%s_train" % name, "p_%s_stream" % name, 1)
        trf = os.path.join(OUT, "%s.stream.libsvm" % name)
        tef = os.path.join(OUT, "%s.test.libsvm" % name)
        export_libsvm("p_%s_stream" % name, trf)
        export_libsvm("p_%s_test" % name, tef)
        dim = spec["dim"]
        floor_s = scan_floor("p_%s_stream" % name)
        floors.append((name, n_train, floor_s, []))
        hpk = {"a9a": "adult", "usps": "usps", "ncb1m": "ncheckerboard", "cb": "checkerboard"}[name]
        for an, base in algs:
            # Pegasos' merges on a million rows take many minutes a run: a9a and usps only
            if an == "Pegasos-merge" and n_train > 100000:
                continue
            # rows the table does not tune take the tuned cell of a relative
            hp = hps.get((hpk, PERF_TUNED_AS.get(an, an), 100)) or default_params(dim)
            for b in budgets:
                p = make_params(base, hp, True, b, dim)
                # BPA-P at B = 500 on 1M rows takes minutes per run: 1 run
                rep = 1 if (an == "BPA-P" and n_train > 100000) else repeat
                br, ir = bare_and_indb(trf, tef, dim, p, "p_%s_stream" % name,
                                       "p_%s_test" % name, rep, runs_path)
                rs = ir["ratios"]["scan"]
                rf = ir["scan_min_s"] / br["train_min_s"]
                rl = rs - floor_s / br["train_s"]
                floors[-1][3].append((an, b, br["train_s"], rs, rl))
                ro = ir["ratios"]["ordered"]
                rsc = ir["ratios"]["join"]
                rss = ir["ratios"]["subquery"]
                ratio_rows.append((name, an, b, rs, ro, rsc, rf, rl))
                roof = n_test / br["score_s"]
                L.append("| %s | %s | %d | %s | %.4g | %d | %.1f | %.1f | %.2f | %.2f | %.2f | %.1f | %.2f | %.1f | %.1f | %.2f | %.1f | %.2f | %d | %d / %d | %.1f | %.0f | %.0f |" % (
                    name, an, b, "%g" % p["C"] if "C" in p else "-", p["gamma"], n_train, n_train / br["train_s"] / 1e3, n_train / ir["scan_s"] / 1e3, rs, rf, rl,
                    n_train / ir["ordered_s"] / 1e3, ro, n_test / br["score_s"] / 1e3,
                    n_test / ir["score_s"] / 1e3, rsc, n_test / ir["score_sub_s"] / 1e3, rss,
                    ir["n_sv"], br["online_mistakes"], ir["online_mistakes"], ir["accuracy"] * 100,
                    100.0 * n_train / br["train_s"] / roof, 100.0 * n_train / ir["scan_s"] / roof))
                log("  %s %s B=%d: bare %.3fs in-db scan %.3fs (x%.2f, fastest x%.2f) ORDER BY %.2fs (x%.2f) score join x%.2f subquery x%.2f%s"
                    % (name, an, b, br["train_s"], ir["scan_s"], rs, rf, ir["ordered_s"], ro, rsc, rss,
                       "" if br["online_mistakes"] == ir["online_mistakes"] else "  MISTAKES DIFFER"))
                if ir["n_sv"] < b and n_train >= 20 * b:
                    why = ("BDUOL removes a support vector whose coefficient reaches 0, so it "
                           "can end below its budget" if an.startswith("BDUOL") else
                           "the BPA-P failure described in doc/reproduction-000.md (\"BPA-P: a "
                           "numerical failure while the budget is not full\")")
                    notes_perf.append("%s %s B = %d ended with only %d SVs after %d rows (online "
                                      "mistake rate %.1f %%): %s."
                                      % (name, an, b, ir["n_sv"], n_train,
                                         100.0 * ir["online_mistakes"] / n_train, why))
                if br["online_mistakes"] != ir["online_mistakes"] or not ir.get("same_model", True):
                    L.append("")
                    L.append("**Warning**: the two sides differ (mistakes %d vs %d, same model in both "
                             "in-db orders: %s)." % (br["online_mistakes"], ir["online_mistakes"],
                                                     ir.get("same_model")))
                    L.append("")
    L.append("")
    if ratio_rows:
        def within(i):
            return sum(1 for r in ratio_rows if round(r[i], 2) <= 1.2)
        L.append("**In-database / bare at most 1.2**: %d of %d settings by the scan ratio, "
                 "%d of %d by the fastest runs, %d of %d less PostgreSQL's own scan (the floor "
                 "below). Over 1.2 by the scan ratio: %s.\n" % (
                     within(3), len(ratio_rows), within(6), len(ratio_rows), within(7),
                     len(ratio_rows),
                     ", ".join("%s %s B = %d (%.2f; fastest %.2f, less floor %.2f)"
                               % (r[0], r[1], r[2], r[3], r[6], r[7])
                               for r in ratio_rows if round(r[3], 2) > 1.2) or "none"))
    for n_ in notes_perf:
        L.append("**Note**: " + n_ + "\n")
    L.append("**PostgreSQL's own cost of the scan.** Part of the in-database time is PostgreSQL "
             "reading the table, whatever the aggregate does: `SELECT count(features)` over the "
             "same table (the scan, the deforming of each row, one aggregate call a row; median "
             "of 3 runs in one session, after one read) is its least cost. Below, that floor per "
             "row, and as a share of the bare core's time for the fastest and the slowest learner "
             "at the smaller budget; **ratio less floor** = (in-db scan - floor) / bare, that is its ratio - floor / its bare time, what the extension "
             "itself adds.\n")
    L.append("| data set | rows | floor ms | floor us/row | fastest at B = %d (bare) | floor / its bare time | its ratio | its ratio less floor | slowest at B = %d | floor / its bare time |" % (min(budgets), min(budgets)))
    L.append("| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- | ---: |")
    for name, n_, fs, runs in floors:
        r100 = [r for r in runs if r[1] == min(budgets)]
        if not r100:
            continue
        fast = min(r100, key=lambda r: r[2])
        slow = max(r100, key=lambda r: r[2])
        L.append("| %s | %d | %.1f | %.3f | %s | %.0f %% | %.2f | %.2f | %s | %.0f %% |" % (
            name, n_, fs * 1e3, fs / n_ * 1e6, fast[0], 100 * fs / fast[2], fast[3],
            fast[4], slow[0], 100 * fs / slow[2]))
    L.append("")
    L.append("Parameters: C and gamma of the paper-000 table's tuned hinge-loss cell of the same "
             "data set (a9a = Adult, usps = USPS even/odd, ncb1m = NCheckerboard), or C = 1, "
             "sigma^2 = d/4 when untuned. BDUOL-NN and BOGD are not in that table: they take "
             "BPA-NN's and BPA-S's cell (BOGD only its gamma; eta 0.1, lambda 1e-4 and "
             "max_coef 4 are the defaults), and Pegasos-merge BPA-NN's gamma (lambda 1e-4, the "
             "default), so their accuracy is that of untuned settings.\n")

    # ---- 2. scaling and memory
    log("== perf: scaling 10k -> 1M and peak memory")
    L.append("## 2. Scaling with the number of rows, and peak backend memory\n")
    src = "p_cb_stream" if args.smoke else "p_ncb1m_stream"
    sizes = [100, 200, 500] if args.smoke else [10000, 100000, 1000000]
    if quick and not args.smoke:
        sizes = [10000, 100000]
    L.append("Prefixes of the ncheckerboard1m stream (table in stream order), `bk_train` without "
             "ORDER BY; each measurement in a fresh connection: VmHWM (peak resident set) and VmRSS "
             "of the backend read from /proc/<pg_backend_pid()>/status before and after training "
             "(through pg_read_file), and the backend's private memory (RssAnon: heap and "
             "anonymous mappings, without the shared buffers that a scan maps into VmRSS) "
             "sampled from outside every ~2 ms while it trains (the harness finds the backend's "
             "pid through a table). Before the measurement the session has loaded the library "
             "(a 20-row bk_train) and scanned the rows once (count(*)). **Private growth** = "
             "peak RssAnon during training - RssAnon before: the memory training needs. VmHWM "
             "also counts the shared-buffer pages the scan touches, so it grows with the table "
             "read, not with the model. Time inside the server with clock_timestamp(). "
             "µs/row constant = linear time.\n")
    L.append("| algorithm | B | rows | train s | µs / row | n_sv | private (RssAnon) before MB | private peak MB | private growth MB | VmHWM before MB | VmHWM after MB |")
    L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    dim = 2
    hp = hps.get(("ncheckerboard", "BPA-NN", 100)) or default_params(dim)
    for an, base in algs[:2]:
        for b in ([10] if args.smoke else [100]):
            p = make_params(base, hp, True, b, dim)
            for n in sizes:
                r = mem_run(src, p, max_id=n)
                L.append("| %s | %d | %d | %.3f | %.2f | %d | %.1f | %.1f | %.1f | %.1f | %.1f |" % (
                    an, b, n, r["train_s"], r["train_s"] / n * 1e6, r["n_sv"],
                    r["anon_before_kb"] / 1024, r["anon_peak_kb"] / 1024, r["anon_growth_kb"] / 1024,
                    r["before"]["hwm_kb"] / 1024, r["after"]["hwm_kb"] / 1024))
                log("  %s B=%d %d rows: %.2fs, private %d -> peak %d kB, HWM %d -> %d kB"
                    % (an, b, n, r["train_s"], r["anon_before_kb"], r["anon_peak_kb"],
                       r["before"]["hwm_kb"], r["after"]["hwm_kb"]))
    L.append("")

    # ---- 3. unbudgeted PA versus BPA-NN
    log("== perf: PA versus BPA-NN")
    L.append("## 3. Unbudgeted PA versus BPA-NN on the same stream\n")
    pa_sizes = [100, 200, 400] if args.smoke else [2500, 5000, 10000, 20000, 40000, 80000]
    if quick and not args.smoke:
        pa_sizes = [2500, 5000, 10000]
    L.append("Prefixes of the same ncheckerboard1m stream; unbudgeted PA (hinge) with max_sv = "
             "100000, stopped early - it is not run past %d rows (the paper stopped PA at 10,000 "
             "SVs) - because its time per row grows with the number of SVs (quadratic total). "
             "Each run in a fresh connection (peak growth measured as in section 2).\n" % pa_sizes[-1])
    L.append("| rows | PA s | PA n_sv | PA µs/row | PA private growth MB | BPA-NN (B=100) s | BPA-NN µs/row | BPA-NN private growth MB |")
    L.append("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    hp_pa = hps.get(("ncheckerboard", "PA", None)) or default_params(dim)
    for n in pa_sizes:
        pa = mem_run(src, make_params({"algorithm": "pa", "loss": "hinge"}, hp_pa, False, None, dim), max_id=n)
        nn = mem_run(src, make_params({"algorithm": "bpa", "variant": "nn", "loss": "hinge"}, hp, True,
                                      10 if args.smoke else 100, dim), max_id=n)
        L.append("| %d | %.3f | %d | %.1f | %.1f | %.3f | %.2f | %.1f |" % (
            n, pa["train_s"], pa["n_sv"], pa["train_s"] / n * 1e6, pa["anon_growth_kb"] / 1024,
            nn["train_s"], nn["train_s"] / n * 1e6, nn["anon_growth_kb"] / 1024))
        log("  %d rows: PA %.2fs (%d SVs), BPA-NN %.2fs" % (n, pa["train_s"], pa["n_sv"], nn["train_s"]))
    L.append("")

    # ---- 4. LIBSVM
    log("== perf: LIBSVM")
    L.append("## 4. LIBSVM (batch SVM): accuracy ceiling and time reference\n")
    L.append("`svm-train -s 0 -t 2 -c C -g gamma -m 200` and `svm-predict` (Debian package "
             "libsvm-tools, %s) on exactly the standardised rows the paper-000 table uses "
             "(exported from the database as LIBSVM files). gamma is the tuned value of the "
             "PA cell of the same data set (test/bench/params-000.tsv) and C = 1 for every "
             "set: LIBSVM is not tuned separately (its C is not PA's C), so its accuracy is "
             "a reference, not a tuned ceiling. Wall times of the two commands (process start and file parsing "
             "included). For reference, the best budgeted and unbudgeted online accuracies "
             "of doc/reproduction-000.md are beside them.\n" % libsvm_version())
    L.append("| data set | train rows | test rows | gamma | svm-train s | #SV | svm-predict s | LIBSVM accuracy % | best online (table) |")
    L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    mod = importlib.import_module("paper_000")
    lsets = ["checkerboard"] if args.smoke else list(mod.DATASETS)
    table_json = os.path.join(OUT, "table-000.json")
    best = {}
    if os.path.exists(table_json) and not args.smoke:
        with open(table_json) as f:
            for e in json.load(f):
                m = statistics.mean(x["accuracy"] for x in e["runs"]) * 100
                k = e["dataset"]
                if k not in best or m > best[k][0]:
                    best[k] = (m, "%s%s" % (e["algorithm"], " B=%s" % e["budget"] if e["budget"] else ""))
    if shutil.which("svm-train") is None:
        if not args.smoke:
            raise RuntimeError("svm-train not found (Debian package libsvm-tools)")
        log("  svm-train not installed (libsvm-tools): LIBSVM part skipped in the smoke test")
        lsets = []
        L.append("| (skipped: libsvm-tools not installed) | | | | | | | | |")
    for ds in lsets:
        spec = dict(mod.DATASETS[ds])
        ntr, nte = load_dataset(ds, spec, args.data_dir, limit=(500 if args.smoke else None), tag="l_" + ds)
        trf = os.path.join(OUT, "l_%s.train.libsvm" % ds)
        tef = os.path.join(OUT, "l_%s.test.libsvm" % ds)
        export_libsvm("l_%s_train" % ds, trf)
        export_libsvm("l_%s_test" % ds, tef)
        g = (hps.get((ds, "PA", None)) or default_params(spec["dim"]))["gamma"]
        model = os.path.join(OUT, "l_%s.model" % ds)
        pred = os.path.join(OUT, "l_%s.pred" % ds)
        t0 = time.time()
        subprocess.run(["svm-train", "-q", "-s", "0", "-t", "2", "-c", "1", "-g", repr(g), "-m", "200", trf, model],
                       check=True, capture_output=True)
        t1 = time.time()
        out = subprocess.run(["svm-predict", tef, model, pred], check=True, capture_output=True, text=True).stdout
        t2 = time.time()
        acc = float(re.search(r"Accuracy = ([0-9.]+)%", out).group(1))
        with open(model) as f:
            nsv = next(int(l.split()[1]) for l in f if l.startswith("total_sv"))
        L.append("| %s | %d | %d | %.4g | %.2f | %d | %.2f | %.1f | %s |" % (
            mod.DATASETS[ds]["title"], ntr, nte, g, t1 - t0, nsv, t2 - t1, acc,
            "%.1f (%s)" % best[ds] if ds in best else "-"))
        log("  LIBSVM %s: %.1f%% train %.1fs" % (ds, acc, t1 - t0))
    L.append("")
    L.append("Total time of this performance run: %.0f s.\n" % (time.time() - t_all))
    out_md = args.perf_out or os.path.join(ROOT, "doc", "performance.md")
    with open(out_md, "w") as f:
        f.write("\n".join(L) + "\n")
    log("== wrote %s" % os.path.relpath(out_md, ROOT))
    return ratio_rows


def pg_cflags():
    pgc = os.environ.get("PG_CONFIG", "/usr/lib/postgresql/15/bin/pg_config")
    try:
        flags = subprocess.run([pgc, "--cflags"], capture_output=True, text=True).stdout.split()
    except OSError:
        return "unknown flags"
    keep = [f for f in flags if f.startswith("-O") or f.startswith("-f")]
    return "gcc " + " ".join(dict.fromkeys(keep))


def libsvm_version():
    p = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libsvm-tools"], capture_output=True, text=True)
    return "version " + p.stdout.strip() if p.returncode == 0 and p.stdout.strip() else "version unknown"


# ---------------------------------------------------------------------------
# smoke
# ---------------------------------------------------------------------------

def smoke_mode(args):
    """A few seconds: 500 rows of checkerboard, 2 permutations, 2 algorithms,
    B = 10, the table writer, the bare core and the perf writer; then check
    what was written."""
    import tempfile
    tmp = tempfile.mkdtemp(prefix="bkbench-smoke.")
    args.perms = 2
    args.limit = 500
    md = os.path.join(tmp, "reproduction-000.md")
    results = table_mode("000", args, datasets_only=["checkerboard"], perms=2, budgets=[10],
                         algs=["PA", "BPA-NN"], out_md=md, raw_out=os.path.join(tmp, "table.json"))
    errors = []
    with open(md) as f:
        text = f.read()
    rows = [l for l in text.splitlines()
            if (l.startswith("| PA |") or l.startswith("| BPA-NN |")) and l.count("|") == 11]
    if len(rows) != 2:
        errors.append("expected 2 result rows in the table, found %d" % len(rows))
    for l in rows:
        cells = [c.strip() for c in l.strip("|").split("|")]
        m = re.match(r"^([0-9]+\.[0-9]) ± ([0-9]+\.[0-9])$", cells[2])
        if not m:
            errors.append("accuracy cell is not 'mean ± std': %r" % cells[2])
        elif not (50.0 <= float(m.group(1)) <= 100.0):
            errors.append("accuracy %s outside 50..100 on checkerboard" % m.group(1))
        if cells[0] == "PA" and not re.match(r"^[0-9.]+ ± [0-9.]+", cells[3]):
            errors.append("paper cell missing: %r" % cells[3])
    for (ds, name, b), r in results.items():
        if len(r["runs"]) != 2:
            errors.append("%s %s: %d runs, expected 2" % (ds, name, len(r["runs"])))
        if b is not None and any(x["n_sv"] > b for x in r["runs"]):
            errors.append("%s: n_sv above the budget" % name)
        if any(x["rows_seen"] != 500 for x in r["runs"]):
            errors.append("%s: rows_seen != 500" % name)
    # permutations differ, and repeat exactly
    a = run_one("checkerboard_train", None, results[("checkerboard", "BPA-NN", 10)]["params"], 1)
    if a["online_mistakes"] != results[("checkerboard", "BPA-NN", 10)]["runs"][0]["online_mistakes"]:
        errors.append("permutation 1 is not reproducible")
    # bare core on the same rows and order gives the same online mistakes
    trf = os.path.join(tmp, "cb.libsvm")
    export_libsvm("checkerboard_train", trf, perm=1)
    p = results[("checkerboard", "BPA-NN", 10)]["params"]
    br = bare(trf, None, 2, p)
    if br["train_rows"] != 500 or br["online_mistakes"] != a["online_mistakes"] or br["n_sv"] != a["n_sv"]:
        errors.append("bare core differs from bk_train on the same stream: %s vs %s"
                      % ((br["train_rows"], br["online_mistakes"], br["n_sv"]),
                         (a["rows_seen"], a["online_mistakes"], a["n_sv"])))
    # every learner: the bare core (which the paper 001 / 002 scripts run)
    # and bk_train agree on the same stream
    for spec in SMOKE_LEARNERS:
        q = dict(spec, kernel="rbf", gamma=16)
        a = run_one("checkerboard_train", None, q, 1)
        br = bare(trf, None, 2, q)
        if (br["train_rows"], br["online_mistakes"], br["n_sv"]) != \
           (a["rows_seen"], a["online_mistakes"], a["n_sv"]):
            errors.append("bare core differs from bk_train for %s: %s vs %s"
                          % (json.dumps(q), (br["train_rows"], br["online_mistakes"], br["n_sv"]),
                             (a["rows_seen"], a["online_mistakes"], a["n_sv"])))
    log("== smoke: bare core = bk_train for %d learner settings" % len(SMOKE_LEARNERS))
    # perf writer on tiny data
    args.perf_out = os.path.join(tmp, "performance.md")
    perf_mode(args)
    with open(args.perf_out) as f:
        perf = f.read()
    for h in ("## 1.", "## 2.", "## 3.", "## 4."):
        if h not in perf:
            errors.append("performance report lacks section %s" % h)
    if not re.search(r"\| cb \| BPA-NN \| 10 \| [0-9.]+ \| [0-9.]+ \| 500 \| [0-9.]+ \|( [0-9.]+ \|){10}", perf):
        errors.append("performance report lacks the in-db / bare row")
    if not re.search(r"\| cb \| 500 \| [0-9.]+ \| [0-9.]+ \| \S+ \| [0-9]+ % \| [0-9.]+ \| -?[0-9.]+ \| \S+ \| [0-9]+ % \|", perf):
        errors.append("performance report lacks the scan floor row")
    if not re.search(r"\*\*In-database / bare at most 1\.2\*\*: [0-9]+ of [0-9]+ settings", perf):
        errors.append("performance report lacks the count of ratios within 1.2")
    # regression mode on a few hundred rows of each table (it needs numpy
    # and scikit-learn, which run.sh installs and test/check.sh does not)
    import importlib.util
    have_sklearn = all(importlib.util.find_spec(m) is not None for m in ("numpy", "sklearn"))
    if have_sklearn:
        args.reg_out = os.path.join(tmp, "comparison-regression.md")
        reg = regression_mode(args)
        with open(args.reg_out) as f:
            page = f.read()
        for h in ("## The targets", "## Results", "### California housing", "### diamonds", "## Notes"):
            if h not in page:
                errors.append("regression page lacks %r" % h)
        if page.count("| budgetkernel, tuned (bk_cross_validate) |") != 2:
            errors.append("regression page lacks a tuned budgetkernel row for each table")
        for res in reg:
            keys = [m["key"] for m in res["models"]]
            for k in ("svr_tuned", "svr_default", "kernel_ridge", "linear", "bk_tuned", "bpa_p_300_0.1",
                      "bpa_p_1000_0.3", "pa_0.1"):
                if k not in keys:
                    errors.append("regression %s: no %s result" % (res["name"], k))
            for m in res["models"]:
                # every model's R^2 is a number at most 1; only ours must
                # beat the mean: a peer's figure on a 400-row sample
                # depends on the peer's version, and is not ours to assert
                ours = m["key"].startswith(("bk_", "bpa_", "pa_"))
                low = 0.0 if ours else float("-inf")
                if not (isinstance(m["r2"], float) and math.isfinite(m["r2"]) and low < m["r2"] <= 1.0):
                    errors.append("regression %s %s: test R^2 %r outside (%s, 1]"
                                  % (res["name"], m["key"], m["r2"], "0" if ours else "-inf"))
                b = re.match(r"bpa_p_(\d+)_", m["key"])
                if b and m["n_sv"] > int(b.group(1)):
                    errors.append("regression %s %s: %d support vectors" % (res["name"], m["key"], m["n_sv"]))
                if m["key"] == "bk_tuned" and not m.get("same_model"):
                    errors.append("regression %s: bk_train of the chosen setting is not the search's refit"
                                  % res["name"])
    else:
        log("== smoke: regression mode skipped (numpy and scikit-learn are not installed: python3-sklearn)")
    # the drift mode on short SEA streams (test/bench/drift_bench.py)
    import drift_bench
    errors += drift_bench.smoke(sys.modules[__name__], args, tmp)
    if errors:
        for e in errors:
            log("SMOKE FAIL: " + e)
        log("(outputs kept in %s)" % tmp)
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    log("smoke: OK (table rows, accuracies, reproducible permutations, bare core = bk_train, perf report, drift page%s)"
        % (", regression page" if have_sklearn else ""))
    return 0


# ---------------------------------------------------------------------------

# ---- scale-out: parallel workers, shards, merging, many models ----

def timed(sql, db=None, settings=""):
    """Run one statement in a fresh session (the library loaded first) and
    return (seconds from psql's \\timing, the result lines)."""
    script = ("SET client_min_messages = error;\nSELECT bk_shuffle_key(1, 1);\n%s\n"
              "\\timing on\n%s;\n" % (settings, sql.rstrip().rstrip(";")))
    cmd = ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", db or DB, "-f", "-"]
    p = subprocess.run(cmd, input=script, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("psql failed (%d): %s\nSQL: %s" % (p.returncode, p.stderr.strip(), sql[:300]))
    lines = p.stdout.strip().splitlines()
    secs = None
    out = []
    for l in lines[1:]:
        m = re.match(r"Time: ([0-9.]+) ms", l)
        if m:
            secs = float(m.group(1)) / 1000.0
        else:
            out.append(l)
    return secs, out


def median_timed(sql, repeat, db=None, settings=""):
    runs = [timed(sql, db, settings) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), runs[-1][1], [r[0] for r in runs]


SERIAL = "SET max_parallel_workers_per_gather = 0;"
# two workers on two cores: the leader only gathers
PARALLEL = ("SET max_parallel_workers_per_gather = 2; SET parallel_leader_participation = off; "
            "SET min_parallel_table_scan_size = 0;")


def accuracy_of(model_hex, test_tbl):
    # on standard input: a model's hex can exceed the longest argument
    return float(psql_file("SELECT avg((bk_predict('%s'::bytea::bk_model, features) = label)::int) "
                           "FROM bench.%s;" % (model_hex, test_tbl)).strip())


def parts_of(model_hex):
    return psql_file("SELECT bk_info('%s'::bytea::bk_model)->>'merged_models';" % model_hex).strip()


def copy_between(src_sql, db_to, table):
    """Rows of a query in the bench database into table of another database."""
    out = subprocess.run(["psql", "-X", "-q", "-d", DB, "-c", "\\copy (%s) TO STDOUT" % src_sql],
                         capture_output=True, check=True)
    subprocess.run(["psql", "-X", "-q", "-d", db_to, "-c", "\\copy %s FROM STDIN" % table],
                   input=out.stdout, capture_output=True, check=True)


def test_accuracies(table, model, test, keys):
    """{key: accuracy in %} of every model of table on the test table's rows,
    the key a tuple of the columns keys names, each read by its type."""
    cols = ", ".join("x.%s" % k for k, _ in keys)
    acc = {}
    for line in psql(f"SELECT {cols}, avg((bk_predict(x.{model}, t.features) = t.label)::int) "
                     f"FROM {table} x, {test} t GROUP BY {cols}").strip().splitlines():
        *key, a = line.split("|")
        acc[tuple(kind(v) for (_, kind), v in zip(keys, key))] = float(a) * 100
    return acc


def orders_section(L, runs, orders=3, ps=(2, 32)):
    """The many-parts table's serial, P = 2 and P = 32 cells in several
    seeded orders of the rows: file order is one draw."""
    log("== scale-out: merging in %d orders of the rows" % orders)
    L.append("### The same, in %d orders of the rows\n" % orders)
    L.append("The table above trains in file order, one draw of the rows' order. Here the parts "
             "and the serial model of a9a, usps and covtype20k (ncb1m's merges are above serial "
             "at every P) train in %d seeded orders (`ORDER BY bk_shuffle_key(id, s)`, "
             "s = 1 ... %d), the parts still `mod(id, P)`: the mean accuracy (%%) over the orders, "
             "and each P's gap to serial in the same order, mean (lowest, highest).\n" % (orders, orders))
    L.append("| data set | learner | serial | " + " | ".join("P = %d | gap" % p for p in ps) + " |")
    L.append("| --- | --- | ---: | " + " | ".join("---: | ---" for _ in ps) + " |")
    plist = ", ".join(str(p) for p in ps)
    for ds, tag, learner, params in runs:
        train, test = "bench.%s_train" % tag, "bench.%s_test" % tag
        pj = json.dumps(params)
        psql_file(f"""
DROP TABLE IF EXISTS bench.mo_models;
CREATE TABLE bench.mo_models AS
SELECT o.s, 1 AS p, (SELECT bk_train(features, label, '{pj}'::jsonb ORDER BY bk_shuffle_key(id, o.s)) FROM {train}) AS m
FROM generate_series(1, {orders}) o(s);
INSERT INTO bench.mo_models
SELECT x.s, x.p, bk_merge(x.m ORDER BY x.part)
FROM (SELECT o.s, q.p, mod(t.id, q.p)::int AS part,
             bk_train(t.features, t.label, '{pj}'::jsonb ORDER BY bk_shuffle_key(t.id, o.s)) AS m
      FROM generate_series(1, {orders}) o(s), unnest(ARRAY[{plist}]) q(p), {train} t
      GROUP BY 1, 2, 3) x
GROUP BY x.s, x.p;
""")
        acc = test_accuracies("bench.mo_models", "m", test, (("s", int), ("p", int)))
        cells = []
        for p in ps:
            gaps = [acc[(o, p)] - acc[(o, 1)] for o in range(1, orders + 1)]
            cells.append("%.2f | %+.2f (%+.2f, %+.2f)" % (
                sum(acc[(o, p)] for o in range(1, orders + 1)) / orders,
                sum(gaps) / orders, min(gaps), max(gaps)))
        serial = sum(acc[(o, 1)] for o in range(1, orders + 1)) / orders
        L.append("| %s | %s | %.2f | %s |" % (ds, learner, serial, " | ".join(cells)))
        log("  %s %s: serial %.2f, %s" % (ds, learner, serial, "; ".join(cells)))
    psql("DROP TABLE IF EXISTS bench.mo_models")
    L.append("")


def mixing_section(L, runs, orders=3, rounds=4):
    """Iterative parameter mixing over two shards (doc/distributed.md's
    Recipe 3, on one server): k rounds against one model of every row with
    as many passes, in several seeded orders of the rows."""
    log("== scale-out: iterative parameter mixing")
    L.append("### Iterative parameter mixing over two shards\n")
    L.append("The rows of section 5's training tables in %d seeded orders (`ORDER BY "
             "bk_shuffle_key(id, s)`, s = 1 ... %d), split into two shards by `mod(id, 2)`. "
             "**Round 0**: each shard's `bk_train` in that order, the two merged by `bk_merge`; "
             "**round r**: each shard `bk_continue`s the merged model of round r − 1 over its "
             "rows in a fresh order (`bk_shuffle_key(id, 100 s + r)`), and the two are merged "
             "(the recipe of [distributed.md](distributed.md#recipe-3-iterative-parameter-mixing), "
             "both shards on one server). **Serial**: one model of every row in the same order, "
             "with one pass and with %d (`\"epochs\": %d`, each pass reshuffled), as many passes "
             "as round %d has made. Accuracy (%%) on the test rows, the mean over the %d orders; "
             "the last column is round %d minus the %d serial passes, mean (lowest, highest) over "
             "the orders.\n" % (orders, orders, rounds + 1, rounds + 1, rounds, orders, rounds, rounds + 1))
    L.append("| data set | learner | " + " | ".join("round %d" % r for r in range(rounds + 1))
             + " | serial, 1 pass | serial, %d passes | round %d − serial |" % (rounds + 1, rounds))
    L.append("| --- | --- | " + " | ".join("---:" for _ in range(rounds + 3)) + " | --- |")
    for ds, tag, learner, params in runs:
        train, test = "bench.%s_train" % tag, "bench.%s_test" % tag
        pj = json.dumps(params)
        pe = json.dumps(dict(params, epochs=rounds + 1))
        sql = ["DROP TABLE IF EXISTS bench.mx_rounds;",
               "CREATE TABLE bench.mx_rounds (s int, r int, m bk_model);"]
        for o in range(1, orders + 1):
            sql.append(f"""
INSERT INTO bench.mx_rounds SELECT {o}, 0, bk_merge(m ORDER BY part)
FROM (SELECT mod(id, 2) AS part, bk_train(features, label, '{pj}'::jsonb ORDER BY bk_shuffle_key(id, {o})) AS m
      FROM {train} GROUP BY 1) p;""")
            for r in range(1, rounds + 1):
                sql.append(f"""
INSERT INTO bench.mx_rounds SELECT {o}, {r}, bk_merge(m ORDER BY part)
FROM (SELECT mod(id, 2) AS part,
             bk_continue(features, label, (SELECT x.m FROM bench.mx_rounds x WHERE x.s = {o} AND x.r = {r - 1})
                         ORDER BY bk_shuffle_key(id, {100 * o + r})) AS m
      FROM {train} GROUP BY 1) p;""")
            sql.append(f"""
INSERT INTO bench.mx_rounds SELECT {o}, -1, bk_train(features, label, '{pj}'::jsonb ORDER BY bk_shuffle_key(id, {o})) FROM {train};
INSERT INTO bench.mx_rounds SELECT {o}, -2, bk_train(features, label, '{pe}'::jsonb ORDER BY bk_shuffle_key(id, {o})) FROM {train};""")
        psql_file("\n".join(sql) + "\n")
        acc = test_accuracies("bench.mx_rounds", "m", test, (("s", int), ("r", int)))
        mean = {r: sum(acc[(o, r)] for o in range(1, orders + 1)) / orders for r in range(-2, rounds + 1)}
        gaps = [acc[(o, rounds)] - acc[(o, -2)] for o in range(1, orders + 1)]
        L.append("| %s | %s | %s | %.2f | %.2f | %+.2f (%+.2f, %+.2f) |" % (
            ds, learner, " | ".join("%.2f" % mean[r] for r in range(rounds + 1)), mean[-1], mean[-2],
            sum(gaps) / orders, min(gaps), max(gaps)))
        log("  %s %s: rounds %s, serial %.2f / %.2f" % (
            ds, learner, " ".join("%.2f" % mean[r] for r in range(rounds + 1)), mean[-1], mean[-2]))
    psql("DROP TABLE IF EXISTS bench.mx_rounds")
    L.append("")


def many_parts_section(L, args, hps, repeat):
    """Section 5 of performance-scaleout.md: the accuracy of bk_merge over
    P = 1 ... 32 parts, its time, and the spread of parallel training."""
    d = args.data_dir
    log("== scale-out: merging 1 to 32 parts")
    L.append("## 5. Merging many parts\n")
    L.append("Part p of P is `bk_train(features, label, params ORDER BY id)` over the training "
             "rows with `mod(id, P) = p`; the parts are merged by the aggregate "
             "`bk_merge(m ORDER BY part)`, which distils the union of their support vectors when "
             "that agrees with their average on more held-out points "
             "([distributed.md](distributed.md#how-bk_merge-reduces-many-parts)). "
             "a9a and usps: the files' rows and features as they are, in file order, B = 100, "
             "gamma 0.0625, BPA-NN with C 0.1 (a9a) or 1 (usps, one-vs-rest: 1,000 SVs in all), "
             "Pegasos-merge with lambda 1e-4 (the protocol of "
             "[merge-accuracy.md](merge-accuracy.md)); covtype20k: 7 classes, a seeded "
             "15,000 / 5,000 split standardised by the training part's mean and deviation, "
             "B = 100, gamma 1/54, C 1, Pegasos' default lambda; ncb1m: the stream of "
             "section 1, the paper-000 parameters. Accuracy (%) on the test rows; "
             "**serial**: P = 1, one model of every row; **one part**: part 0 of 32 alone; "
             "merge seconds: the `bk_merge` statement alone, the parts trained before.\n")
    # a9a and usps as the files are, then covtype20k's rows to split
    loads = "".join(f"""
TRUNCATE bench.mp_raw; ALTER SEQUENCE bench.mp_raw_id_seq RESTART;
\\copy bench.mp_raw(line) FROM '{os.path.join(d, f)}'
CREATE TABLE bench.mp_{tag} AS SELECT id, r.label, r.features FROM bench.mp_raw, LATERAL bk_libsvm(line, {dim}) r;
""" for f, tag, dim in (("a9a.train", "a9a_train", 123), ("a9a.test", "a9a_test", 123),
                        ("usps.train", "usps_train", 256), ("usps.test", "usps_test", 256)))
    psql_file(f"""
DROP TABLE IF EXISTS bench.mp_raw, bench.mp_a9a_train, bench.mp_a9a_test, bench.mp_usps_train,
  bench.mp_usps_test, bench.mp_cov_all, bench.mp_cov_train, bench.mp_cov_test;
CREATE TABLE bench.mp_raw (id bigserial, line text);
{loads}
TRUNCATE bench.mp_raw; ALTER SEQUENCE bench.mp_raw_id_seq RESTART;
\\copy bench.mp_raw(line) FROM '{os.path.join(d, "covtype20k")}'
CREATE TABLE bench.mp_cov_all AS
SELECT row_number() OVER (ORDER BY bk_shuffle_key(id, 7)) AS id, r.label, r.features
FROM bench.mp_raw, LATERAL bk_libsvm(line, 54) r;
-- summed in id order (no parallel partial sums): the same bits every run
CREATE TEMP TABLE mp_stats AS
SELECT i, avg(v ORDER BY id) AS mu, coalesce(nullif(stddev_pop(v ORDER BY id), 0), 1) AS sd
FROM bench.mp_cov_all, unnest(features) WITH ORDINALITY AS u(v, i) WHERE id <= 15000 GROUP BY i;
CREATE TABLE bench.mp_cov_train AS
SELECT a.id, a.label, array_agg((u.v - s.mu) / s.sd ORDER BY u.i) AS features
FROM bench.mp_cov_all a, unnest(a.features) WITH ORDINALITY AS u(v, i) JOIN mp_stats s USING (i)
WHERE a.id <= 15000 GROUP BY a.id, a.label;
CREATE TABLE bench.mp_cov_test AS
SELECT a.id, a.label, array_agg((u.v - s.mu) / s.sd ORDER BY u.i) AS features
FROM bench.mp_cov_all a, unnest(a.features) WITH ORDINALITY AS u(v, i) JOIN mp_stats s USING (i)
WHERE a.id > 15000 GROUP BY a.id, a.label;
DROP TABLE bench.mp_raw, bench.mp_cov_all;
""")
    hp = hps.get(("ncheckerboard", "BPA-NN", 100)) or default_params(2)
    ncb = make_params({"algorithm": "bpa", "variant": "nn", "loss": "hinge"}, hp, True, 100, 2)
    ncb_peg = {k: v for k, v in ncb.items() if k not in ("C", "loss", "variant")}
    ncb_peg.update({"algorithm": "pegasos", "maintenance": "merge"})
    runs = [
        ("a9a", "mp_a9a", "BPA-NN", {"algorithm": "bpa", "variant": "nn", "budget": 100, "gamma": 0.0625, "C": 0.1}),
        ("a9a", "mp_a9a", "Pegasos-merge", {"algorithm": "pegasos", "maintenance": "merge", "budget": 100, "gamma": 0.0625, "lambda": 1e-4}),
        ("usps", "mp_usps", "BPA-NN", {"algorithm": "bpa", "variant": "nn", "budget": 100, "gamma": 0.0625, "C": 1}),
        ("usps", "mp_usps", "Pegasos-merge", {"algorithm": "pegasos", "maintenance": "merge", "budget": 100, "gamma": 0.0625, "lambda": 1e-4}),
        ("covtype20k", "mp_cov", "BPA-NN", {"algorithm": "bpa", "variant": "nn", "budget": 100, "gamma": 1 / 54, "C": 1}),
        ("covtype20k", "mp_cov", "Pegasos-merge", {"algorithm": "pegasos", "maintenance": "merge", "budget": 100, "gamma": 1 / 54}),
        ("ncb1m", "s_ncb1m", "BPA-NN", ncb),
        ("ncb1m", "s_ncb1m", "Pegasos-merge", ncb_peg),
    ]
    ps = [2, 4, 8, 16, 32]
    L.append("| data set | learner | serial | one part | " + " | ".join("P = %d" % p for p in ps)
             + " | merge s, P = 2 / 32 |")
    L.append("| --- | --- | ---: | ---: | " + " | ".join("---:" for _ in ps) + " | ---: |")
    for ds, tag, learner, params in runs:
        train = "bench.%s_train" % tag if tag != "s_ncb1m" else "bench.s_ncb1m_stream"
        test = "bench.%s_test" % tag
        pj = json.dumps(params)
        psql_file(f"""
DROP TABLE IF EXISTS bench.mp_models;
CREATE TABLE bench.mp_models AS
SELECT 1 AS p, 'serial' AS kind, bk_train(features, label, '{pj}'::jsonb ORDER BY id) AS model FROM {train};
""")
        secs = {}
        for p in ps:
            psql_file(f"""
DROP TABLE IF EXISTS bench.mp_parts;
CREATE TABLE bench.mp_parts AS
SELECT mod(id, {p})::int AS part, bk_train(features, label, '{pj}'::jsonb ORDER BY id) AS m
FROM {train} GROUP BY 1;
VACUUM ANALYZE bench.mp_parts;
""")
            t, _, _ = median_timed("SELECT length(bk_merge(m ORDER BY part)::bytea) FROM bench.mp_parts",
                                   1, settings=SERIAL)
            secs[p] = t
            psql_file(f"""
INSERT INTO bench.mp_models SELECT {p}, 'merge', bk_merge(m ORDER BY part) FROM bench.mp_parts;
{"INSERT INTO bench.mp_models SELECT 32, 'part', m FROM bench.mp_parts WHERE part = 0;" if p == 32 else ""}
""")
        acc = test_accuracies("bench.mp_models", "model", test, (("p", int), ("kind", str)))
        L.append("| %s | %s | %.2f | %.2f | %s | %.2f / %.2f |" % (
            ds, learner, acc[(1, "serial")], acc[(32, "part")],
            " | ".join("%.2f" % acc[(p, "merge")] for p in ps), secs[2], secs[32]))
        log("  %s %s: serial %.2f, merged %s" % (ds, learner, acc[(1, "serial")],
                                                 " ".join("%.2f" % acc[(p, "merge")] for p in ps)))
    L.append("")
    orders_section(L, [r for r in runs if r[1] != "s_ncb1m"])
    mixing_section(L, [r for r in runs if r[1] != "s_ncb1m"])
    psql("DROP TABLE IF EXISTS bench.mp_parts, bench.mp_models, bench.mp_a9a_train, bench.mp_a9a_test, "
         "bench.mp_usps_train, bench.mp_usps_test, bench.mp_cov_train, bench.mp_cov_test")

    parallel_runs_section(L, args, ncb, ncb_peg)


def parallel_runs_section(L, args, ncb, ncb_peg, runs=5):
    """The spread of parallel training: runs with two workers against the
    serial model, on ncb1m (loaded by scaleout_mode) and on 10 million rows
    of the same distribution, drawn by the shared data's generator."""
    log("== scale-out: parallel training, %d runs" % runs)
    L.append("### Parallel training, run to run\n")
    L.append("The parallel `bk_train` of section 1 (two workers, the leader merging their two "
             "models; the rows each worker reads depend on timing), %d runs, against the "
             "serial model of the same rows: the test accuracy of each run (checkerboard.test). "
             "ncb1m is section 1's table; ncb10m is 10,000,000 rows of the same noisy "
             "checkerboard (`gen_checkerboard.py -n 10000000 --seed 5 --noise 0.15` of the "
             "shared data), standardised and stored in a seeded shuffle as ncb1m is.\n" % runs)
    L.append("| data set | learner | serial %% | %d parallel runs %% | min − serial | max − serial |" % runs)
    L.append("| --- | --- | ---: | --- | ---: | ---: |")
    tmp = tempfile.mkdtemp(prefix="bk_ncb10m.")
    gz = os.path.join(tmp, "ncheckerboard10m.train.gz")
    subprocess.run([sys.executable, os.path.join(args.data_dir, "gen_checkerboard.py"), "-n", "10000000",
                    "--seed", "5", "--noise", "0.15", "--out", gz], check=True)
    load_dataset("ncb10m", {"train": gz, "test": "checkerboard.test", "dim": 2}, args.data_dir,
                 tag="s_ncb10m")
    shutil.rmtree(tmp)
    make_stream_table("s_ncb10m_train", "s_ncb10m_stream", 1)
    for name in ("ncb1m", "ncb10m"):
        for learner, params in (("BPA-NN", ncb), ("Pegasos-merge", ncb_peg)):
            q = ("SELECT bk_train(features, label, '%s'::jsonb)::bytea FROM bench.s_%s_stream"
                 % (json.dumps(params), name))
            _, outs, _ = median_timed(q, 1, settings=SERIAL)
            serial = accuracy_of(outs[0], "s_%s_test" % name) * 100
            par = []
            for _ in range(runs):
                _, outp, _ = median_timed(q, 1, settings=PARALLEL)
                par.append(accuracy_of(outp[0], "s_%s_test" % name) * 100)
            L.append("| %s | %s | %.2f | %s | %+.2f | %+.2f |" % (
                name, learner, serial, ", ".join("%.2f" % a for a in par), min(par) - serial,
                max(par) - serial))
            log("  %s %s: serial %.2f, parallel %s" % (name, learner, serial,
                                                     " ".join("%.2f" % a for a in par)))
    psql("DROP TABLE IF EXISTS bench.s_ncb10m_train, bench.s_ncb10m_test, bench.s_ncb10m_stream")
    L.append("")


def scaleout_mode(args):
    mi = machine_info()
    os.makedirs(OUT, exist_ok=True)
    hps = read_params("000")
    repeat = 1 if args.quick else 3
    mod = importlib.import_module("paper_000")
    L = ["# Performance: scale-out\n",
         "Generated by the benchmark harness - do not edit by hand. Command:\n",
         "```sh\n%s\n```\n" % args.command, machine_md(mi) + "\n",
         "No timing here is asserted by a test. Times are psql's `\\timing` of one statement "
         "in a fresh session whose first statement loaded the library, medians of %d runs, "
         "measured one after the other in this run. Parallel workers load the library "
         "themselves, inside the timed statement.\n" % repeat]
    t_all = time.time()
    sets = {"ncb1m": PERF_SETS["ncb1m"], "cover": mod.DATASETS["cover"]}
    hpk = {"ncb1m": "ncheckerboard", "cover": "cover"}
    for name, spec in sets.items():
        load_dataset(name, spec, args.data_dir, limit=args.limit, tag="s_" + name)
        make_stream_table("s_%s_train" % name, "s_%s_stream" % name, 1)

    # ---- 1. serial versus two parallel workers
    log("== scale-out: serial versus 2 workers")
    L.append("## 1. Training: serial versus two parallel workers\n")
    L.append("`bk_train` without ORDER BY over the training table stored in a seeded "
             "shuffle (permutation 1). **serial**: `max_parallel_workers_per_gather = 0`; "
             "**2 workers**: `max_parallel_workers_per_gather = 2`, "
             "`parallel_leader_participation = off` (two workers train, the leader merges: "
             "Finalize Aggregate -> Gather -> Partial Aggregate -> Parallel Seq Scan), "
             "`min_parallel_table_scan_size = 0`, the planner's other costs at their defaults: "
             "it still keeps the 10,000 rows of cover serial (parts = 1: a parallel plan's "
             "setup cost of 1000 outweighs the work), and splits the 1,000,000 of ncb1m. "
             "Unordered parallel training is not reproducible: which rows each worker trains "
             "on depends on timing, so its accuracy moves from run to run (ncb1m BPA-NN gave "
             "92.9 % in an earlier run of the same command). Accuracy on the test part of the model each returned; "
             "parts = `merged_models`. Parameters: gamma (and C for BPA) of the paper-000 "
             "table's BPA-NN cell at B = 100 of the same data set, Pegasos' lambda its default.\n")
    L.append("| data set | algorithm | B | rows | serial s | 2 workers s | speed-up | serial acc % | parallel acc % | parts |")
    L.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in sets:
        hp = hps.get((hpk[name], "BPA-NN", 100)) or default_params(sets[name]["dim"])
        n = int(psql("SELECT count(*) FROM bench.s_%s_stream" % name).strip())
        for an, base in [("BPA-NN", {"algorithm": "bpa", "variant": "nn", "loss": "hinge"}),
                         ("Pegasos-merge", {"algorithm": "pegasos", "maintenance": "merge"})]:
            p = make_params(base, hp, True, 100, sets[name]["dim"])
            if base["algorithm"] == "pegasos":
                p.pop("C", None)
                p.pop("loss", None)
            q = ("SELECT bk_train(features, label, '%s'::jsonb)::bytea FROM bench.s_%s_stream"
                 % (json.dumps(p), name))
            ts, outs, _ = median_timed(q, repeat, settings=SERIAL)
            tp, outp, _ = median_timed(q, repeat, settings=PARALLEL)
            acc_s = accuracy_of(outs[0], "s_%s_test" % name)
            acc_p = accuracy_of(outp[0], "s_%s_test" % name)
            parts = parts_of(outp[0])
            L.append("| %s | %s | 100 | %d | %.3f | %.3f | %.2f | %.2f | %.2f | %s |"
                     % (name, an, n, ts, tp, ts / tp, acc_s * 100, acc_p * 100, parts))
            log("  %s %s: serial %.2fs parallel %.2fs (x%.2f), acc %.2f / %.2f"
                % (name, an, ts, tp, ts / tp, acc_s * 100, acc_p * 100))
    L.append("")

    # ---- 2. one shard versus two
    log("== scale-out: 1 versus 2 shards")
    L.append("## 2. One shard versus two (postgres_fdw)\n")
    L.append("The shards are two more databases of the same cluster, reached by postgres_fdw "
             "over the Unix socket with `extensions 'budgetkernel'` and `async_capable "
             "'true'`, so each shard's `bk_train` runs in its own backend (on one core: "
             "postgres_fdw's cursors never run in parallel). **1 shard**: every training row "
             "on one shard, one pushed-down `bk_train ORDER BY id`. **2 shards**: half of the "
             "rows (id % 2) on each, `bk_merge(m ORDER BY m::bytea)` of the two pushed-down "
             "models (two Async Foreign Scans). BPA-NN, B = 100, ncb1m.\n")
    L.append("| shards | rows | s | speed-up | acc % | parts |")
    L.append("| ---: | ---: | ---: | ---: | ---: | ---: |")
    host = os.environ.get("PGHOST", "/tmp")
    port = os.environ.get("PGPORT", "5432")
    hp = hps.get(("ncheckerboard", "BPA-NN", 100)) or default_params(2)
    p = make_params({"algorithm": "bpa", "variant": "nn", "loss": "hinge"}, hp, True, 100, 2)
    for sh in ("bkbench_shard_a", "bkbench_shard_b"):
        psql("DROP DATABASE IF EXISTS %s" % sh)
        psql("CREATE DATABASE %s" % sh)
        psql("CREATE EXTENSION budgetkernel; CREATE TABLE t_all (id bigint, label int8, features float8[]); "
             "CREATE TABLE t_half (id bigint, label int8, features float8[])", db=sh)
    copy_between("SELECT id, label, features FROM bench.s_ncb1m_stream", "bkbench_shard_a", "t_all")
    copy_between("SELECT id, label, features FROM bench.s_ncb1m_stream WHERE id % 2 = 0", "bkbench_shard_a", "t_half")
    copy_between("SELECT id, label, features FROM bench.s_ncb1m_stream WHERE id % 2 = 1", "bkbench_shard_b", "t_half")
    fdw = ["CREATE EXTENSION IF NOT EXISTS postgres_fdw",
           "DROP SERVER IF EXISTS bk_sa, bk_sb CASCADE"]
    for srv, db in (("bk_sa", "bkbench_shard_a"), ("bk_sb", "bkbench_shard_b")):
        fdw.append("CREATE SERVER %s FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '%s', port '%s', "
                   "dbname '%s', extensions 'budgetkernel', async_capable 'true')" % (srv, host, port, db))
        fdw.append("CREATE USER MAPPING FOR CURRENT_USER SERVER %s OPTIONS (user '%s')"
                   % (srv, os.environ.get("PGUSER", "postgres")))
    fdw += ["CREATE FOREIGN TABLE bench.f_all (id bigint, label int8, features float8[]) SERVER bk_sa OPTIONS (schema_name 'public', table_name 't_all')",
            "CREATE FOREIGN TABLE bench.f_a (id bigint, label int8, features float8[]) SERVER bk_sa OPTIONS (schema_name 'public', table_name 't_half')",
            "CREATE FOREIGN TABLE bench.f_b (id bigint, label int8, features float8[]) SERVER bk_sb OPTIONS (schema_name 'public', table_name 't_half')"]
    psql_file(";\n".join(fdw) + ";\n")
    pj = json.dumps(p)
    q1 = "SELECT bk_train(features, label, '%s'::jsonb ORDER BY id)::bytea FROM bench.f_all" % pj
    q2 = ("SELECT bk_merge(m ORDER BY m::bytea)::bytea FROM (SELECT bk_train(features, label, '%s'::jsonb ORDER BY id) AS m FROM bench.f_a "
          "UNION ALL SELECT bk_train(features, label, '%s'::jsonb ORDER BY id) FROM bench.f_b) s" % (pj, pj))
    n = int(psql("SELECT count(*) FROM bench.s_ncb1m_stream").strip())
    t1, o1, _ = median_timed(q1, repeat)
    t2, o2, _ = median_timed(q2, repeat)
    for k, t, o in ((1, t1, o1), (2, t2, o2)):
        parts = parts_of(o[0])
        L.append("| %d | %d | %.3f | %.2f | %.2f | %s |" % (k, n, t, t1 / t, accuracy_of(o[0], "s_ncb1m_test") * 100, parts))
    log("  1 shard %.2fs, 2 shards %.2fs (x%.2f)" % (t1, t2, t1 / t2))
    psql_file("DROP SERVER bk_sa, bk_sb CASCADE;\n")
    for sh in ("bkbench_shard_a", "bkbench_shard_b"):
        psql("DROP DATABASE %s" % sh)
    L.append("")

    # ---- 3. the cost of a merge
    log("== scale-out: cost of a merge")
    L.append("## 3. The cost of a merge\n")
    L.append("`bk_merge(a, b)` of the models of the two halves (id % 2) of the training "
             "table, BPA-NN: decoding both, the union of 2B support vectors, the projection "
             "back to B (K of the union factorised once, O((2B)^3), then O((2B)^2) a "
             "removal), the learner's state rebuilt and the result encoded and validated. "
             "Accuracy of the merged model beside that of one model of all rows (serial, "
             "stream order).\n")
    L.append("| data set | B | dim | merge s | merged acc % | all rows acc % |")
    L.append("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name in sets:
        dim = sets[name]["dim"]
        hp = hps.get((hpk[name], "BPA-NN", 100)) or default_params(dim)
        for b in (100, 500):
            p = make_params({"algorithm": "bpa", "variant": "nn", "loss": "hinge"}, hp, True, b, dim)
            pj = json.dumps(p)
            psql_file(f"""
DROP TABLE IF EXISTS bench.s_halves;
CREATE TABLE bench.s_halves AS
SELECT (SELECT bk_train(features, label, '{pj}'::jsonb ORDER BY id) FROM bench.s_{name}_stream WHERE id % 2 = 0) AS a,
       (SELECT bk_train(features, label, '{pj}'::jsonb ORDER BY id) FROM bench.s_{name}_stream WHERE id % 2 = 1) AS b,
       (SELECT bk_train(features, label, '{pj}'::jsonb ORDER BY id) FROM bench.s_{name}_stream) AS w;
""")
            tm, om, _ = median_timed("SELECT bk_merge(a, b)::bytea FROM bench.s_halves", repeat)
            whole = psql("SELECT w::bytea FROM bench.s_halves").strip()
            L.append("| %s | %d | %d | %.3f | %.2f | %.2f |" % (
                name, b, dim, tm, accuracy_of(om[0], "s_%s_test" % name) * 100,
                accuracy_of(whole, "s_%s_test" % name) * 100))
            log("  merge %s B=%d: %.3fs" % (name, b, tm))
    psql("DROP TABLE IF EXISTS bench.s_halves")
    L.append("")

    # ---- 4. scoring with many models
    log("== scale-out: scoring with 1, 16, 64 models")
    L.append("## 4. Scoring against many models in one query\n")
    L.append("The test part of cover (10,000 rows, 54 features) scored against k BPA-NN models "
             "(B = 100, each trained on the training part in its own seeded shuffle) in one "
             "join, `count(*) FILTER (WHERE bk_predict(m.model, t.features) = t.label) FROM "
             "test t, models m WHERE m.k <= k`, serial; time per scoring = time / (rows x k).\n")
    L.append("| models | scorings | s | µs per scoring |")
    L.append("| ---: | ---: | ---: | ---: |")
    hp = hps.get(("cover", "BPA-NN", 100)) or default_params(54)
    p = make_params({"algorithm": "bpa", "variant": "nn", "loss": "hinge"}, hp, True, 100, 54)
    psql_file(f"""
DROP TABLE IF EXISTS bench.s_models;
CREATE TABLE bench.s_models AS
SELECT k, bk_train(features, label, '{json.dumps(p)}'::jsonb || jsonb_build_object('seed', k)
                   ORDER BY bk_shuffle_key(id, k)) AS model
FROM bench.s_cover_train, generate_series(1, 64) k GROUP BY k;
VACUUM ANALYZE bench.s_models;
""")
    nt = int(psql("SELECT count(*) FROM bench.s_cover_test").strip())
    for k in (1, 16, 64):
        t, _, _ = median_timed("SELECT count(*) FILTER (WHERE bk_predict(m.model, t.features) = t.label) "
                               "FROM bench.s_cover_test t, bench.s_models m WHERE m.k <= %d" % k,
                               repeat, settings=SERIAL)
        L.append("| %d | %d | %.3f | %.2f |" % (k, nt * k, t, t / (nt * k) * 1e6))
        log("  %d models: %.2fs" % (k, t))
    psql("DROP TABLE IF EXISTS bench.s_models")
    L.append("")
    many_parts_section(L, args, hps, repeat)
    L.append("Total time of this run: %.0f s.\n" % (time.time() - t_all))
    write_doc("performance-scaleout.md", L)


def features_mode(args):
    """The cost of the feature forms: float8[] arrays as stored, arrays the
    model standardises itself ("scale"), and rows of named features (jsonb,
    stored or built from the row's columns by to_jsonb), training and
    scoring, on covtype20k.binary's 54 columns; sparse rows (bk_sparse)
    against dense ones on a9a (doc/performance-features.md)."""
    mi = machine_info()
    os.makedirs(OUT, exist_ok=True)
    repeat = 1 if args.quick else 3
    mod = importlib.import_module("paper_000")
    load_dataset("cover", mod.DATASETS["cover"], args.data_dir, limit=args.limit, tag="f_cover",
                 keep_raw=True)
    cols = ", ".join("r.features[%d] AS c%02d" % (i, i) for i in range(1, 55))
    arr = ", ".join("c%02d" % i for i in range(1, 55))
    psql_file(f"""
DROP TABLE IF EXISTS bench.f_train, bench.f_test, bench.f_cols, bench.f_test_cols;
CREATE TABLE bench.f_train AS
  SELECT row_number() OVER (ORDER BY md5('1:' || s.id)) AS id, s.label, {cols},
         s.features, r.features AS raw
  FROM bench.f_cover_train s JOIN bench.f_cover_rawtrain r USING (id) ORDER BY 1;
CREATE TABLE bench.f_test AS
  SELECT s.id, s.label, {cols}, s.features, r.features AS raw
  FROM bench.f_cover_test s JOIN bench.f_cover_rawtest r USING (id);
ALTER TABLE bench.f_train ADD COLUMN j jsonb;
UPDATE bench.f_train SET j = to_jsonb(f_train) - 'id' - 'label' - 'features' - 'raw' - 'j';
ALTER TABLE bench.f_test ADD COLUMN j jsonb;
UPDATE bench.f_test SET j = to_jsonb(f_test) - 'id' - 'label' - 'features' - 'raw' - 'j';
CREATE TABLE bench.f_cols AS SELECT id, label, {arr} FROM bench.f_train ORDER BY id;
CREATE TABLE bench.f_test_cols AS SELECT id, label, {arr} FROM bench.f_test ORDER BY id;
VACUUM ANALYZE bench.f_train, bench.f_test, bench.f_cols, bench.f_test_cols;
""")

    n_train = int(psql("SELECT count(*) FROM bench.f_train").strip())
    n_test = int(psql("SELECT count(*) FROM bench.f_test").strip())
    L = ["# Performance: feature forms\n",
         "Generated by the benchmark harness - do not edit by hand. Command:\n",
         "```sh\n%s\n```\n" % args.command, machine_md(mi) + "\n",
         "No timing here is asserted by a test. Times are psql's `\\timing` of one statement "
         "in a fresh session whose first statement loaded the library, serial, medians of %d "
         "runs measured one after the other in this run. Data: covtype20k.binary, the "
         "harness's seeded split, %d training rows (in a seeded shuffle, stored in that order "
         "and trained without `ORDER BY`) and %d test rows, 54 numeric columns with the "
         "file's values (integers: elevation, distances, 0/1 indicators). Forms, all "
         "standardised with the training rows' statistics, so that each learns the same "
         "model: `float8[]` standardised column, an array standardised once in SQL and "
         "stored, learned as it is (the baseline); `float8[]` + scale, the stored raw "
         "array with `\"scale\": \"standard\"` (the model fits and keeps the statistics, "
         "so training keeps its rows and learns them at the end); `ARRAY[c01, ...]` + "
         "scale, the array built from the 54 `float8` columns; `jsonb` column, a stored "
         "object of 54 named numbers; `to_jsonb(t)`, the object built from the row "
         "(`to_jsonb(t) - 'id' - 'label'`).\n" % (repeat, n_train, n_test)]
    forms = [
        ("`float8[]` standardised column", "features", "bench.f_train", "bench.f_test", False),
        ("`float8[]` + scale", "raw", "bench.f_train", "bench.f_test", True),
        ("`ARRAY[c01, ...]` + scale", "ARRAY[%s]" % arr, "bench.f_cols", "bench.f_test_cols", True),
        ("`jsonb` column", "j", "bench.f_train", "bench.f_test", False),
        ("`to_jsonb(t)`", "to_jsonb(t) - 'id' - 'label'", "bench.f_cols", "bench.f_test_cols", False),
    ]
    for budget in (100, 500):
        p = {"algorithm": "bpa", "variant": "nn", "budget": budget, "gamma": 1.0 / 54, "C": 1}
        L.append("\n## Training and scoring, BPA-NN, B = %d\n" % budget)
        L.append("| form | train s | µs/row | × float8[] | test accuracy | score s | µs/row | × float8[] |")
        L.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        base_t = base_s = None
        for title, expr, tbl, test_tbl, scale in forms:
            pp = dict(p)
            if scale:
                pp["scale"] = "standard"
            js = json.dumps(pp)
            psql_file(f"""
DROP TABLE IF EXISTS bench.f_model;
CREATE TABLE bench.f_model AS SELECT bk_train({expr}, label, '{js}') AS m FROM {tbl} t;
""")
            tt, _, _ = median_timed(f"SELECT length(bk_train({expr}, label, '{js}')::bytea) FROM {tbl} t",
                                    repeat, settings=SERIAL)
            ts, out, _ = median_timed(f"SELECT avg((bk_predict((SELECT m FROM bench.f_model), {expr}) = label)::int) "
                                      f"FROM {test_tbl} t", repeat, settings=SERIAL)
            acc = float(out[-1])
            if base_t is None:
                base_t, base_s = tt, ts
            L.append("| %s | %.3f | %.1f | %.2f | %.4f | %.3f | %.2f | %.2f |"
                     % (title, tt, tt / n_train * 1e6, tt / base_t, acc, ts, ts / n_test * 1e6, ts / base_s))
            log("  B=%d %-22s train %.3fs score %.3fs acc %.4f" % (budget, title, tt, ts, acc))
    # sparse rows: a9a (123 binary features, about 14 non-zero a row), dense against sparse
    a9a_train = os.path.abspath(os.path.join(args.data_dir, "a9a.train"))
    a9a_test = os.path.abspath(os.path.join(args.data_dir, "a9a.test"))
    psql_file(f"""
DROP TABLE IF EXISTS bench.f_raw, bench.f_a9a, bench.f_a9a_test;
CREATE TABLE bench.f_raw (id bigserial, line text);
\\copy bench.f_raw(line) FROM '{a9a_train}'
CREATE TABLE bench.f_a9a AS
  SELECT row_number() OVER (ORDER BY md5('1:' || id)) AS id, d.label, d.features AS dense, s.features AS sparse
  FROM bench.f_raw, LATERAL bk_libsvm(line, 123) d, LATERAL bk_libsvm_sparse(line, 123) s ORDER BY 1;
TRUNCATE bench.f_raw;
\\copy bench.f_raw(line) FROM '{a9a_test}'
CREATE TABLE bench.f_a9a_test AS
  SELECT d.label, d.features AS dense, s.features AS sparse
  FROM bench.f_raw, LATERAL bk_libsvm(line, 123) d, LATERAL bk_libsvm_sparse(line, 123) s;
DROP TABLE bench.f_raw;
VACUUM ANALYZE bench.f_a9a, bench.f_a9a_test;
""")
    na = int(psql("SELECT count(*) FROM bench.f_a9a").strip())
    nat = int(psql("SELECT count(*) FROM bench.f_a9a_test").strip())
    L.append("\n## Sparse rows: a9a\n")
    L.append("a9a.train (%d rows, in a seeded shuffle, stored in that order) and a9a.test (%d rows), "
             "123 binary features, about 14 non-zero a row, as `float8[]` (`bk_libsvm`) and as "
             "`bk_sparse` (`bk_libsvm_sparse`); BPA-NN, gamma 0.05, C 0.1. *Same model*: the two "
             "models' bytes are equal.\n" % (na, nat))
    L.append("| B | dense train s | sparse train s | sparse / dense | dense score s | sparse score s | sparse / dense | same model |")
    L.append("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for budget in (100, 500):
        js = json.dumps({"algorithm": "bpa", "variant": "nn", "budget": budget, "gamma": 0.05, "C": 0.1})
        res = {}
        for form in ("dense", "sparse"):
            psql_file(f"""
DROP TABLE IF EXISTS bench.f_model_{form};
CREATE TABLE bench.f_model_{form} AS SELECT bk_train({form}, label, '{js}') AS m FROM bench.f_a9a;
""")
            tt, _, _ = median_timed(f"SELECT length(bk_train({form}, label, '{js}')::bytea) FROM bench.f_a9a",
                                    repeat, settings=SERIAL)
            ts, _, _ = median_timed(f"SELECT avg((bk_predict((SELECT m FROM bench.f_model_{form}), {form}) = label)::int) "
                                    f"FROM bench.f_a9a_test", repeat, settings=SERIAL)
            res[form] = (tt, ts)
        same = psql("SELECT (SELECT m FROM bench.f_model_dense) = (SELECT m FROM bench.f_model_sparse)").strip()
        L.append("| %d | %.3f | %.3f | %.2f | %.3f | %.3f | %.2f | %s |"
                 % (budget, res["dense"][0], res["sparse"][0], res["sparse"][0] / res["dense"][0],
                    res["dense"][1], res["sparse"][1], res["sparse"][1] / res["dense"][1],
                    "yes" if same == "t" else "no"))
        log("  a9a B=%d dense %.3fs / %.3fs, sparse %.3fs / %.3fs, same %s"
            % (budget, res["dense"][0], res["dense"][1], res["sparse"][0], res["sparse"][1], same))
    psql("DROP TABLE IF EXISTS bench.f_a9a, bench.f_a9a_test, bench.f_model_dense, bench.f_model_sparse")
    # what building the object costs PostgreSQL itself (each float8 column to a jsonb numeric)
    tj, _, _ = median_timed("SELECT count(to_jsonb(t) - 'id' - 'label') FROM bench.f_cols t",
                            repeat, settings=SERIAL)
    L.append("\nBuilding the objects alone, `SELECT count(to_jsonb(t) - 'id' - 'label')` over the "
             "training rows: %.3f s (%.1f µs a row), PostgreSQL's own conversion of 54 `float8` "
             "columns to JSON numbers, which the `to_jsonb(t)` rows above include. A stored "
             "`jsonb` column, or columns of type `numeric` or `integer`, avoid most of it."
             % (tj, tj / n_train * 1e6))
    log("  to_jsonb alone %.3fs" % tj)
    psql("DROP TABLE IF EXISTS bench.f_model, bench.f_train, bench.f_test, bench.f_cols, bench.f_test_cols, "
         "bench.f_cover_train, bench.f_cover_test, bench.f_cover_stats, bench.f_cover_rawtrain, "
         "bench.f_cover_rawtest")
    L.append("")
    write_doc("performance-features.md", L)


# The learning curves: data sets of papers 000 (checkerboard, the long
# noisy ncheckerboard1m stream, a9a = Adult) and 004 (usps, 10 classes).
CURVE_SETS = {
    "checkerboard": ({"train": "checkerboard.train", "test": "checkerboard.test", "dim": 2}, "checkerboard"),
    "ncheckerboard1m": ({"train": "ncheckerboard1m.train.gz", "test": "checkerboard.test", "dim": 2},
                        "ncheckerboard"),
    "a9a": ({"train": "a9a.train", "test": "a9a.test", "dim": 123}, "adult"),
    "usps (10 classes)": ({"train": "usps.train", "test": "usps.test", "dim": 256}, None),
}
CURVE_LEARNERS = [
    ("BPA-S", {"algorithm": "bpa", "variant": "s", "loss": "hinge"}),
    ("BPA-NN", {"algorithm": "bpa", "variant": "nn", "loss": "hinge"}),
    ("Pegasos-merge", {"algorithm": "pegasos", "maintenance": "merge"}),
]


def curves_mode(args):
    """The online (prequential) mistake rate as the stream goes on, read
    from the models themselves (bk_learning_curve), at B = 100, one seeded
    shuffle: doc/learning-curves.md and doc/learning-curves.svg (gnuplot)."""
    mi = machine_info()
    hps = read_params("000")
    outdir = os.path.join(OUT, "curves")
    os.makedirs(outdir, exist_ok=True)
    L = ["# Learning curves\n",
         "Generated by the benchmark harness - do not edit by hand. Command:\n",
         "```sh\n%s\n```\n" % args.command, machine_md(mi) + "\n",
         "The online mistake rate of a training run — each row predicted before it is learned, "
         "so it needs no held-out rows — as the stream goes on: `bk_learning_curve(model)` reads "
         "the mistakes the model recorded at every power of two of rows (the points below), the "
         "rate so far and over each doubling window. One seeded shuffle of each training set "
         "(`ORDER BY bk_shuffle_key(id, 1)`), standardised features, B = 100; C and gamma "
         "from test/bench/params-000.tsv where paper 000's table tuned them (the same data set, "
         "learner and budget), else C = 1 and gamma = 1/(2 d/4); Pegasos with lambda = 1e-4. "
         "The rate over a window is what the model of that moment erred on the next rows: its "
         "fall is what the budget allows the learner to learn.\n",
         "![Online mistake rate against rows seen](learning-curves.svg)\n"]
    panels = []
    for title, (spec, hpkey) in CURVE_SETS.items():
        tag = "c_" + re.sub(r"[^a-z0-9]", "", title.split(" ")[0])
        load_dataset(title, spec, args.data_dir, limit=args.limit, tag=tag)
        dim = spec["dim"]
        L.append("\n## %s\n" % title)
        L.append("| rows | " + " | ".join("%s rate so far | %s window" % (n, n) for n, _ in CURVE_LEARNERS) + " |")
        L.append("| ---: |" + " ---: | ---: |" * len(CURVE_LEARNERS))
        curves = {}
        for name, base in CURVE_LEARNERS:
            hp = (hps.get((hpkey, name, 100)) if hpkey else None) or default_params(dim)
            p = make_params(base, hp, True, 100, dim)
            if base["algorithm"] == "pegasos":
                p.pop("C", None)
                p["lambda"] = 1e-4
            t0 = time.time()
            out = psql_file(f"""
SELECT c.rows, c.mistake_rate, coalesce(c.window_rate::text, '')
FROM (SELECT bk_train(features, label, '{json.dumps(p)}' ORDER BY bk_shuffle_key(id, 1)) AS m
      FROM bench.{tag}_train) s, LATERAL bk_learning_curve(s.m) c
ORDER BY c.rows;
""")
            rows = [l.split("|") for l in out.strip().splitlines() if l]
            curves[name] = [(int(r[0]), float(r[1]), float(r[2]) if r[2] else None) for r in rows]
            log("  %-18s %-14s %d points (%.1fs)" % (title, name, len(rows), time.time() - t0))
            dat = os.path.join(outdir, "%s-%s.dat" % (tag, name))
            with open(dat, "w") as f:
                for n, rate, w in curves[name]:
                    f.write("%d %.6f %s\n" % (n, rate, "%.6f" % w if w is not None else "NaN"))
        allrows = sorted({n for c in curves.values() for n, _, _ in c})
        for n in allrows:
            if n not in (1, 2) and not (n & (n - 1) == 0 and (n.bit_length() - 1) % 2 == 0) and n != allrows[-1]:
                continue    # every other power of two, and the end
            cells = []
            for name, _ in CURVE_LEARNERS:
                pt = [c for c in curves[name] if c[0] == n]
                cells += (["%.4f" % pt[0][1], "%.4f" % pt[0][2] if pt[0][2] is not None else ""]
                          if pt else ["", ""])
            L.append("| %d | %s |" % (n, " | ".join(cells)))
        panels.append((title, tag))
        psql("DROP TABLE IF EXISTS bench.%s_train, bench.%s_test, bench.%s_stats" % (tag, tag, tag))
    # the figure: one panel per data set, the rate so far against rows (log scale)
    svg = os.path.join(ROOT, "doc", "learning-curves.svg")
    gp = ["set terminal svg size 960,720 font 'sans,11'", "set output '%s'" % svg,
          "set multiplot layout 2,2", "set logscale x 4", "set format x '%.0f'", "set xtics rotate by -30",
          "set xlabel 'rows seen'", "set ylabel 'online mistake rate'", "set key top right",
          "set yrange [0:*]"]
    for title, tag in panels:
        gp.append("set title '%s'" % title)
        gp.append("plot " + ", ".join(
            "'%s' using 1:2 with linespoints title '%s'" % (os.path.join(outdir, "%s-%s.dat" % (tag, name)), name)
            for name, _ in CURVE_LEARNERS))
    gp.append("unset multiplot")
    subprocess.run(["gnuplot"], input="\n".join(gp) + "\n", text=True, check=True)
    out_md = os.path.join(ROOT, "doc", "learning-curves.md")
    with open(out_md, "w") as f:
        f.write("\n".join(L) + "\n")
    log("== wrote %s and %s" % (os.path.relpath(out_md, ROOT), os.path.relpath(svg, ROOT)))


def load_split(d, trf, tef, dim, ntrain):
    """A LIBSVM data set of the data directory d as dense (Xtr, ytr, Xte,
    yte): the files' own training and test rows, or (tef None) the
    harness's seeded split of one file, its first ntrain rows for training."""
    from sklearn.datasets import load_svmlight_file
    Xtr, ytr = load_svmlight_file(os.path.join(d, trf), n_features=dim)
    if tef:
        Xte, yte = load_svmlight_file(os.path.join(d, tef), n_features=dim)
    else:
        X, y = Xtr, ytr
        order = [i - 1 for i in split_order(X.shape[0])]
        tr, te = sorted(order[:ntrain]), sorted(order[ntrain:])
        Xtr, ytr, Xte, yte = X[tr], y[tr], X[te], y[te]
    return Xtr.toarray(), ytr, Xte.toarray(), yte


def svc_mode(args):
    """scikit-learn's SVC() with its default settings and
    HistGradientBoostingClassifier() beside one bk_cross_validate call with
    no grid (the search chooses gamma, C, the budget and the passes) and
    refit, on the same rows: doc/comparison-svc.md.  Needs python3-sklearn."""
    import numpy as np
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler
    from sklearn.svm import SVC
    import sklearn

    mi = machine_info()
    L = ["# budgetkernel against scikit-learn's SVC and gradient boosting\n",
         "Generated by the benchmark harness - do not edit by hand. Command:\n",
         "```sh\n%s\n```\n" % args.command, machine_md(mi) + "\n",
         "One fit each, on the same training and test rows. **SVC**: scikit-learn %s's "
         "`SVC()` with its default settings (RBF kernel, C = 1, gamma = 'scale'), after the "
         "preparation a scikit-learn user writes (StandardScaler; for the CSV tables "
         "SimpleImputer(mean) and OneHotEncoder(handle_unknown='ignore') in a "
         "ColumnTransformer). **HGB**: `HistGradientBoostingClassifier()` with its defaults "
         "on the same prepared rows. **budgetkernel**: one call "
         "`bk_cross_validate(source, 'features', 'label', 'id', '{\"seed\": 1, \"refit\": true}')` "
         "with no grid: the search chooses gamma, C (lambda), class weights, the budget and the "
         "passes itself by successive halving, of BPA-NN on two classes and of multi-class "
         "Pegasos on more (3 stratified folds), then the best setting "
         "is trained on every training row; the features are prepared by the model itself "
         "(`\"scale\": \"standard\"` for arrays, named features for the CSV tables), the "
         "rows in a seeded shuffle. Times are wall-clock seconds of each side's whole fit "
         "(budgetkernel's search included) and of scoring the test rows (budgetkernel: in the "
         "database), one run each, measured one after the other in the same run. The search's "
         "design (every round on every row; Pegasos on more than two classes) was chosen on a9a "
         "and usps, and its wider round (on two classes, when more passes win) on covtype20k; "
         "the other four tables played no part in it, and on them the wider round did not run."
         " One search is one draw: on covtype20k whether its wider rounds run depends on the search's "
         "seed and on the split, so its accuracy there varies by several points from seed to seed "
         "([functions.md](functions.md#the-search-without-a-grid) gives measured cases).\n"
         % sklearn.__version__,
         "| data set | train / test rows | SVC accuracy | SVC fit s | SVC predict s | HGB accuracy "
         "| HGB fit s | budgetkernel accuracy | search + refit s | score s | search / SVC fit "
         "| chosen setting |",
         "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    d = os.path.abspath(args.data_dir)

    def bk_side(train_sql, test_sql, feat, label_is_text):
        t0 = time.time()
        psql_file(f"""
DROP TABLE IF EXISTS bench.v_search;
CREATE TABLE bench.v_search AS
SELECT * FROM bk_cross_validate($q${train_sql}$q$, '{feat}', 'label', 'id', '{{"seed": 1, "refit": true}}');
""")
        t = time.time() - t0
        pred = "bk_predict_label" if label_is_text else "bk_predict"
        t0 = time.time()
        acc = float(psql(f"SELECT avg(({pred}((SELECT model FROM bench.v_search WHERE model IS NOT NULL), "
                         f"{feat}) = label)::int) FROM ({test_sql}) t").strip())
        ts = time.time() - t0
        best = psql("SELECT params - 'scale' FROM bench.v_search WHERE model IS NOT NULL").strip()
        return acc, t, ts, best

    def sk_side(est, Xtr, ytr, Xte, yte, pre=None):
        t0 = time.time()
        model = make_pipeline(pre if pre is not None else StandardScaler(), est)
        model.fit(Xtr, ytr)
        tf = time.time() - t0
        t0 = time.time()
        acc = float(np.mean(model.predict(Xte) == yte))
        return acc, tf, time.time() - t0

    def row(title, ntr, nte, svc, hgb, bk):
        L.append("| %s | %d / %d | %.4f | %.1f | %.1f | %.4f | %.1f | %.4f | %.1f | %.2f | %.2f | `%s` |"
                 % (title, ntr, nte, svc[0], svc[1], svc[2], hgb[0], hgb[1], bk[0], bk[1], bk[2],
                    bk[1] / svc[1], bk[3]))
        log("  %-22s SVC %.4f (%.1fs)  HGB %.4f (%.1fs)  budgetkernel %.4f (%.1fs) %s"
            % (title, svc[0], svc[1], hgb[0], hgb[1], bk[0], bk[1], bk[3]))

    # LIBSVM data sets: the files' own train/test, or a seeded split
    sets = [("a9a", "a9a.train", "a9a.test", 123, None),
            ("usps (10 classes)", "usps.train", "usps.test", 256, None),
            ("covtype20k, 15k / 5k", "covtype20k.binary", None, 54, 15000),
            ("banana, 4k / 1.3k", "banana", None, 2, 4000)]
    for title, trf, tef, dim, ntrain in sets:
        Xtr, ytr, Xte, yte = load_split(d, trf, tef, dim, ntrain)
        svc = sk_side(SVC(), Xtr, ytr, Xte, yte)
        hgb = sk_side(HistGradientBoostingClassifier(), Xtr, ytr, Xte, yte)
        # the same rows into the database
        for name, X, y in (("v_train", Xtr, ytr), ("v_test", Xte, yte)):
            rows = [(int(y[i]), ["%.17g" % v for v in X[i]]) for i in range(X.shape[0])]
            copy_rows(name, rows)
        psql("ALTER TABLE bench.v_train ADD COLUMN k int8; UPDATE bench.v_train SET k = bk_shuffle_key(id, 7)")
        bk = bk_side("SELECT id, label, features FROM bench.v_train ORDER BY k",
                     "SELECT label, features FROM bench.v_test", "features", False)
        row(title, Xtr.shape[0], Xte.shape[0], svc, hgb, bk)

    # CSV tables: the split of the pgTAP test (bk_shuffle_key(id, 3) % 4 = 0 held out)
    csvs = [("titanic", "titanic.csv", "survived", ["id", "name"],
             "id int, name text, survived text, sex text, age float8, passenger_class text"),
            ("arrests", "arrests.csv", "released", ["id"],
             "id int, released text, colour text, year int, age int, sex text, employed text, "
             "citizen text, checks int"),
            ("housevotes84", "housevotes84.csv", "party", ["id"],
             "id int, party text, " + ", ".join("v%d text" % i for i in range(1, 17)))]
    for title, f, lab, drop, cols in csvs:
        psql_file(f"""
DROP TABLE IF EXISTS bench.v_csv;
CREATE TABLE bench.v_csv ({cols});
\\copy bench.v_csv FROM '{os.path.join(d, f)}' CSV HEADER
""")
        out = psql("SELECT json_agg(json_build_object('r', to_jsonb(t), 'test', bk_shuffle_key(id, 3) % 4 = 0)) "
                   "FROM bench.v_csv t").strip()
        recs = json.loads(out)
        feats = [k for k in recs[0]["r"].keys() if k not in drop + [lab]]
        num = [k for k in feats if all(isinstance(r["r"][k], (int, float)) or r["r"][k] is None for r in recs)]
        cat = [k for k in feats if k not in num]

        def matrix(rs):
            return np.array([[r["r"][k] if r["r"][k] is not None else np.nan for k in num] +
                             [r["r"][k] if r["r"][k] is not None else "missing" for k in cat]
                             for r in rs], dtype=object)
        tr = [r for r in recs if not r["test"]]
        te = [r for r in recs if r["test"]]

        def prep():
            return ColumnTransformer([
                ("num", make_pipeline(SimpleImputer(strategy="mean"), StandardScaler()), list(range(len(num)))),
                ("cat", OneHotEncoder(handle_unknown="ignore"), list(range(len(num), len(num) + len(cat))))],
                sparse_threshold=0)
        Xtr, ytr = matrix(tr), np.array([r["r"][lab] for r in tr])
        Xte, yte = matrix(te), np.array([r["r"][lab] for r in te])
        svc = sk_side(SVC(), Xtr, ytr, Xte, yte, prep())
        hgb = sk_side(HistGradientBoostingClassifier(), Xtr, ytr, Xte, yte, prep())
        featsql = "to_jsonb(t) - %s" % " - ".join("'%s'" % k for k in drop + [lab, "k"])
        psql(f"ALTER TABLE bench.v_csv ADD COLUMN k int8; UPDATE bench.v_csv SET k = bk_shuffle_key(id, 7)")
        bk = bk_side(
            f"SELECT id, {lab} AS label, {featsql} AS features FROM bench.v_csv t "
            f"WHERE bk_shuffle_key(id, 3) % 4 <> 0 ORDER BY k",
            f"SELECT {lab} AS label, to_jsonb(t) AS features FROM bench.v_csv t WHERE bk_shuffle_key(id, 3) % 4 = 0",
            "features", True)
        row(title, len(tr), len(te), svc, hgb, bk)
    psql("DROP TABLE IF EXISTS bench.v_train, bench.v_test, bench.v_csv, bench.v_search")
    L.append("")
    write_doc("comparison-svc.md", L)


# ---- many classes: the search without a grid on tables of three classes
# and more, beside scikit-learn's SVC() (doc/comparison-classes.md) ----

# A synthetic stand-in for a many-class table (26 classes, 20,000 rows, 16
# features, the shape of UCI's letter table, which the repository does not
# have): each class is a mixture of twenty spherical Gaussians of standard
# deviation 0.15 around centres drawn uniformly in the unit cube, every
# number from md5 hashes of its position, so that every server writes the
# same table; a row of id i is of class (i - 1) % 26 and is held out for
# testing when i % 5 = 0 (16,000 training rows, 4,000 test rows).
BLOBS26_SQL = r"""
CREATE OR REPLACE FUNCTION bench.u01(t text) RETURNS float8 LANGUAGE sql IMMUTABLE AS
$$ SELECT ((('x' || substr(md5(t), 1, 13))::bit(52)::int8)::float8 + 0.5) / 4503599627370496.0 $$;
DROP TABLE IF EXISTS bench.c_blobs;
CREATE TABLE bench.c_blobs AS
SELECT i::int8 AS id, ((i - 1) % 26)::int8 AS label,
       ARRAY(SELECT bench.u01(format('c:%s:%s:%s', (i - 1) % 26, floor(bench.u01('j:' || i) * 20)::int, d))
                    + 0.15 * sqrt(-2 * ln(bench.u01(format('a:%s:%s', i, d))))
                           * cos(2 * pi() * bench.u01(format('b:%s:%s', i, d)))
             FROM generate_series(0, 15) AS d ORDER BY d)::float8[] AS features
FROM generate_series(1, 20000) AS i;
"""


def classes_mode(args):
    """One bk_cross_validate call with no grid (refit) beside scikit-learn's
    SVC() on the shared tables of three classes and more and on a synthetic
    26-class table (BLOBS26_SQL): accuracy, time, and the budget the search
    gave the classes: doc/comparison-classes.md.  Needs python3-sklearn.
    --datasets takes the short names (iris wine digits usps covtype blobs26)."""
    import numpy as np
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC
    import sklearn

    mi = machine_info()
    d = os.path.abspath(args.data_dir)
    L = ["# The search on many classes, beside scikit-learn's SVC\n",
         "Generated by the benchmark harness - do not edit by hand. Command:\n",
         "```sh\n%s\n```\n" % args.command, machine_md(mi) + "\n",
         "One fit each, on the same training and test rows. **SVC**: scikit-learn %s's `SVC()` "
         "with its defaults after `StandardScaler`. **budgetkernel**: one call "
         "`bk_cross_validate(source, 'features', 'label', 'id', '{\"seed\": 1, \"refit\": true}')` "
         "with no grid, which searches multi-class Pegasos on more than two classes (doc/functions.md, "
         "\"The search without a grid\"); the budget is that of the setting chosen, one set of support "
         "vectors shared by all the classes, and the column beside it that budget a class. A table "
         "without a test part is split by the harness's seeded order (two thirds to train). "
         "**blobs26** is synthetic, a stand-in for a many-class table of the shape of UCI's letter "
         "(26 classes, 20,000 rows, 16 features; `BLOBS26_SQL` in test/bench/harness.py): each class "
         "a mixture of twenty spherical Gaussians (standard deviation 0.15) around centres drawn in the "
         "unit cube, every fifth row held out. Times are wall-clock seconds, one run each, one after "
         "the other.\n" % sklearn.__version__,
         "| data set | classes | train / test rows | SVC accuracy | SVC fit s | budgetkernel accuracy "
         "| search + refit s | search / SVC fit | budget | a class | chosen setting |",
         "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    sets = [("iris", "iris", "iris", None, 4, 100),
            ("wine", "wine", "wine", None, 13, 119),
            ("digits", "digits", "digits", None, 64, 1198),
            ("usps", "usps", "usps.train", "usps.test", 256, None),
            ("covtype", "covtype20k, 15k / 5k", "covtype20k", None, 54, 15000),
            ("blobs26", "blobs26 (synthetic)", None, None, 16, None)]
    for key, title, trf, tef, dim, ntrain in sets:
        if args.datasets and key not in args.datasets:
            continue
        if trf is not None:
            Xtr, ytr, Xte, yte = load_split(d, trf, tef, dim, ntrain)
            for name, X, y in (("c_train", Xtr, ytr), ("c_test", Xte, yte)):
                copy_rows(name, [(int(y[i]), ["%.17g" % v for v in X[i]]) for i in range(X.shape[0])])
        else:
            psql_file(BLOBS26_SQL)
            psql_file("DROP TABLE IF EXISTS bench.c_train, bench.c_test;\n"
                      "CREATE TABLE bench.c_train AS SELECT * FROM bench.c_blobs WHERE id % 5 <> 0;\n"
                      "CREATE TABLE bench.c_test AS SELECT * FROM bench.c_blobs WHERE id % 5 = 0;\n")
            parts = []
            for t in ("c_train", "c_test"):
                rows = [r.split("|") for r in psql("SELECT label, array_to_string(features, ',') FROM bench.%s "
                                                    "ORDER BY id" % t).strip().splitlines()]
                parts.append((np.array([[float(v) for v in r[1].split(",")] for r in rows]),
                              np.array([int(r[0]) for r in rows])))
            (Xtr, ytr), (Xte, yte) = parts
        n_classes = len(set(ytr.tolist()))
        t0 = time.time()
        svc = make_pipeline(StandardScaler(), SVC()).fit(Xtr, ytr)
        svc_fit = time.time() - t0
        svc_acc = float(np.mean(svc.predict(Xte) == yte))
        psql("ALTER TABLE bench.c_train ADD COLUMN k int8; UPDATE bench.c_train SET k = bk_shuffle_key(id, 7)")
        t0 = time.time()
        psql_file("""
DROP TABLE IF EXISTS bench.c_search;
CREATE TABLE bench.c_search AS
SELECT * FROM bk_cross_validate('SELECT id, label, features FROM bench.c_train ORDER BY k',
                                'features', 'label', 'id', '{"seed": 1, "refit": true}');
""")
        t = time.time() - t0
        acc = float(psql("SELECT avg((bk_predict((SELECT model FROM bench.c_search WHERE model IS NOT NULL), "
                         "t.features) = t.label)::int) FROM bench.c_test t").strip())
        chosen = psql("SELECT params - 'scale' FROM bench.c_search WHERE model IS NOT NULL").strip()
        budget = int(json.loads(chosen).get("budget", 0))
        L.append("| %s | %d | %d / %d | %.4f | %.1f | %.4f | %.1f | %.1f | %d | %.0f | `%s` |"
                 % (title, n_classes, Xtr.shape[0], Xte.shape[0], svc_acc, svc_fit, acc, t, t / svc_fit,
                    budget, budget / n_classes, chosen))
        log("  %-22s SVC %.4f (%.1fs)  budgetkernel %.4f (%.1fs) %s"
            % (title, svc_acc, svc_fit, acc, t, chosen))
    psql("DROP TABLE IF EXISTS bench.c_train, bench.c_test, bench.c_search, bench.c_blobs")
    L.append("")
    if args.datasets:
        log("== --datasets given: doc/comparison-classes.md left as it is")
        log("\n".join(L[5:]))
    else:
        write_doc("comparison-classes.md", L)


# ---- regression: scikit-learn's SVR, KernelRidge and LinearRegression beside
# bk_train on a float8 target (doc/comparison-regression.md) ----

REG_DATA = os.path.join(HERE, "data")

# The regression tables kept in test/bench/data (README.md there): the file,
# the sha256 of its uncompressed bytes, its data rows, its target column, and
# how many of its training rows are used (None: all).  diamonds: the first
# 20,000 of its 40,455 training rows, because scikit-learn's SVR grid search
# on all of them would take hours on two cores.
REG_SETS = [
    {"name": "cal_housing", "title": "California housing", "file": "cal_housing.csv.gz",
     "sha256": "8a3727f4cf54ac1a327f69b1d5b4db54c5834ea81c6e4efc0d163300022a685e",
     "rows": 20640, "target": "median_house_value", "train_cap": None},
    {"name": "diamonds", "title": "diamonds", "file": "diamonds.csv.gz",
     "sha256": "9574730b03aba241d899c4a97511c5061b19358fab89510774fb6c24168345c4",
     "rows": 53940, "target": "price", "train_cap": 20000},
]
# scikit-learn's grid: C x gamma, gamma in multiples of 1 / n_features
REG_SVR_C = [0.1, 1.0, 10.0, 100.0]
REG_SVR_GAMMA = [0.5, 1.0, 2.0]
# the fixed settings of ours: BPA-P, 3 passes, gamma 2 / dim, (budget, C)
REG_FIXED = [(300, 0.1), (300, 0.3), (1000, 0.1), (1000, 0.3)]
# the search's seed is 1 (as in svc mode); these others show its spread
REG_OTHER_SEEDS = [0, 2, 3, 4]
# the issue's targets: R^2 within this of the tuned SVR, and a fit under this
# share of the SVR's, on at least this many training rows
REG_R2_GAP = 0.02
REG_TIME_SHARE = 0.1
REG_MIN_ROWS = 20000


def read_reg_table(spec):
    """A regression table of test/bench/data as (header, rows of strings),
    after checking the sha256 of the decompressed bytes."""
    import csv
    import io
    path = os.path.join(REG_DATA, spec["file"])
    with gzip.open(path, "rb") as f:
        raw = f.read()
    digest = hashlib.sha256(raw).hexdigest()
    if digest != spec["sha256"]:
        raise RuntimeError("%s: sha256 of the decompressed file is %s, expected %s (test/bench/data/README.md)"
                           % (os.path.relpath(path, ROOT), digest, spec["sha256"]))
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8"), newline="")))
    header, rows = rows[0], rows[1:]
    if len(rows) != spec["rows"] or any(len(r) != len(header) for r in rows):
        raise RuntimeError("%s: %d rows, expected %d of %d fields" % (spec["file"], len(rows), spec["rows"], len(header)))
    return header, rows


def copy_reg_rows(table, header, types, rows, ids):
    """COPY rows of strings into bench.table (created fresh): id int8 (the
    row's 1-based position in the file), then the file's columns, float8 or
    text, an empty field as NULL."""
    cols = ", ".join('"%s" %s' % (h, t) for h, t in zip(header, types))

    def esc(v):
        if v == "":
            return "\\N"
        return v.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
    buf = ["%d\t%s\n" % (i + 1, "\t".join(esc(v) for v in rows[i])) for i in ids]
    psql_file("DROP TABLE IF EXISTS bench.%s;\nCREATE TABLE bench.%s (id int8, %s);\nCOPY bench.%s FROM STDIN;\n%s\\.\n"
              "ANALYZE bench.%s;\n" % (table, table, cols, table, "".join(buf), table))


def regression_mode(args):
    """scikit-learn's SVR tuned by GridSearchCV, KernelRidge and
    LinearRegression beside bk_cross_validate with no grid (refit) and
    BPA-P at fixed settings, on the same rows of two public regression
    tables kept in test/bench/data: doc/comparison-regression.md.  Needs
    python3-sklearn.  With args.smoke: a few hundred rows of each, the page
    written to args.reg_out."""
    import numpy as np
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.linear_model import LinearRegression
    from sklearn.metrics import r2_score
    from sklearn.model_selection import GridSearchCV, KFold
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVR
    import sklearn

    smoke = getattr(args, "smoke", False)
    started = time.time()
    load_start = os.getloadavg()
    mi = machine_info()
    results = []
    warnings = []
    for spec in REG_SETS:
        header, rows = read_reg_table(spec)
        target = spec["target"]
        tcol = header.index(target)
        n = len(rows)
        # numeric: every non-empty field parses as a number
        types = []
        for j in range(len(header)):
            try:
                for r in rows:
                    if r[j] != "":
                        float(r[j])
                types.append("float8")
            except ValueError:
                types.append("text")
        num = [j for j in range(len(header)) if j != tcol and types[j] == "float8"]
        cat = [j for j in range(len(header)) if types[j] == "text"]
        # the split of scikit-learn's usual recipe (and of the baseline the
        # California numbers were checked against): a seeded permutation,
        # its first 75 % for training, kept in that order (unshuffled KFold
        # then takes its folds from it), the rest for testing
        perm = np.random.RandomState(0).permutation(n)
        ntr = int(0.75 * n)
        tr_all = perm[:ntr]
        tr = tr_all[:spec["train_cap"]] if spec["train_cap"] else tr_all
        te = np.sort(perm[ntr:])
        if smoke:
            tr, te, tr_all = tr[:400], te[:200], tr[:400]
        log("== regression: %s, %d rows (%d training of %d, %d test), %d numeric and %d text features"
            % (spec["title"], n, len(tr), ntr, len(te), len(num), len(cat)))
        res = {"name": spec["name"], "title": spec["title"], "rows": n, "train": len(tr), "train_all": ntr,
               "test": len(te), "target": target, "num": [header[j] for j in num],
               "cat": [header[j] for j in cat], "models": []}

        # --- scikit-learn: the median of the training rows for a missing
        # number, text one-hot (the training rows' values, sorted), every
        # column and the target standardised by the training rows
        Xnum = np.array([[float(r[j]) if r[j] != "" else np.nan for j in num] for r in rows])
        res["missing"] = int(np.isnan(Xnum).sum())
        med = np.nanmedian(Xnum[tr], axis=0)
        Xnum = np.where(np.isnan(Xnum), med, Xnum)
        onehot = []
        for j in cat:
            levels = sorted(set(rows[i][j] for i in tr))
            onehot.append(np.array([[1.0 if r[j] == v else 0.0 for v in levels] for r in rows]))
        X = np.hstack([Xnum] + onehot)
        d = X.shape[1]
        y = np.array([float(r[tcol]) for r in rows])
        xs = StandardScaler().fit(X[tr])
        Xtr, Xte = xs.transform(X[tr]), xs.transform(X[te])
        ym, ysd = y[tr].mean(), y[tr].std()
        ytr, yte = (y[tr] - ym) / ysd, y[te]
        res["n_features"] = d

        def sk(model):
            t0 = time.perf_counter()
            model.fit(Xtr, ytr)
            tf = time.perf_counter() - t0
            t0 = time.perf_counter()
            pred = model.predict(Xte) * ysd + ym
            tp = time.perf_counter() - t0
            return {"r2": float(r2_score(yte, pred)), "rmse": float(np.sqrt(np.mean((yte - pred) ** 2))),
                    "fit_s": tf, "predict_s": tp}

        def add(key, m):
            m["key"] = key
            res["models"].append(m)
            log("  %-30s R^2 %.4f  RMSE %10.1f  fit %7.2fs%s  %s"
                % (key, m["r2"], m["rmse"], m["fit_s"],
                   ("  search %7.1fs" % m["search_s"]) if m.get("search_s") is not None else "",
                   m.get("setting", "")))

        grid = {"C": REG_SVR_C, "gamma": [g / d for g in REG_SVR_GAMMA]}
        gs = GridSearchCV(SVR(kernel="rbf", epsilon=0.1), grid, cv=KFold(3), scoring="r2", n_jobs=1, refit=True)
        m = sk(gs)
        bp = gs.best_params_
        m.update(search_s=m["fit_s"], fit_s=float(gs.refit_time_), cv_r2=float(gs.best_score_),
                 setting="C = %g, gamma = %g/%d" % (bp["C"], bp["gamma"] * d, d),
                 n_sv=int(len(gs.best_estimator_.support_)))
        add("svr_tuned", m)
        m = sk(SVR(kernel="rbf", C=1.0, epsilon=0.1, gamma="scale"))
        m["setting"] = "C = 1, gamma = 'scale'"
        add("svr_default", m)
        m = sk(KernelRidge(kernel="rbf", alpha=1.0, gamma=1.0 / d))
        m["setting"] = "alpha = 1, gamma = 1/%d" % d
        add("kernel_ridge", m)
        m = sk(LinearRegression())
        m["setting"] = "-"
        add("linear", m)

        # --- ours: the same rows, as the file has them (a NULL for a
        # missing value, text as text); the model prepares them itself
        copy_reg_rows("g_train", header, types, rows, tr)
        copy_reg_rows("g_test", header, types, rows, te)
        feat = "to_jsonb(t) - 'id' - '%s'" % target
        src = 'SELECT t.id, t."%s" AS target, %s AS features FROM bench.%%s t' % (target, feat)
        samples = ', "samples": 3' if smoke else ""

        def score(model_sql):
            """R^2 and RMSE on the test rows, the seconds of that query, and
            the model's support vectors."""
            secs, out = timed('SELECT bk_metrics(t."%s", bk_predict_value((%s), %s)) FROM bench.g_test t;\n'
                              '\\timing off\nSELECT bk_info((%s))->>\'n_sv\''
                              % (target, model_sql, feat, model_sql))
            r = json.loads(out[0])
            return {"r2": r["r2"], "rmse": r["rmse"], "predict_s": secs, "n_sv": int(out[1])}

        def search(table, seed=1):
            """bk_cross_validate with no grid and refit, timed from here; its
            WARNINGs (the best at the end of a range) kept for the notes."""
            sql = (f"SET client_min_messages = warning;\n"
                   f"DROP TABLE IF EXISTS bench.g_search;\n"
                   f"CREATE TABLE bench.g_search AS\n"
                   f"SELECT * FROM bk_cross_validate($q${src % table}$q$, 'features', 'target', 'id', "
                   f"'{{\"seed\": {seed}, \"refit\": true{samples}}}');\n")
            t0 = time.time()
            p = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", DB, "-f", "-"],
                               input=sql, capture_output=True, text=True)
            t = time.time() - t0
            if p.returncode != 0:
                raise RuntimeError("bk_cross_validate failed: " + p.stderr.strip())
            for l in p.stderr.splitlines():
                if "WARNING" in l:
                    warnings.append("%s (%s training rows, seed %d): %s"
                                    % (spec["title"], "{:,}".format(len(tr_all) if table == "g_train_all" else len(tr)),
                                       seed, l.split("WARNING:", 1)[-1].strip()))
            best = json.loads(psql("SELECT json_build_object('params', params, 'mean', mean, 'stddev', stddev, "
                                   "'fingerprint', bk_info(model)->>'fingerprint', 'dim', bk_info(model)->'dim') "
                                   "FROM bench.g_search WHERE model IS NOT NULL").strip())
            return t, best

        t_search, best = search("g_train")
        params = best["params"]
        # the refitted setting's training alone, in the search's order: the
        # same model (the fingerprints are compared)
        order = "bk_shuffle_key(hashtextextended(id::text, 0), 1), id::text"
        t_fit, _ = timed(f"DROP TABLE IF EXISTS bench.g_refit; CREATE TABLE bench.g_refit AS "
                         f"SELECT bk_train(features, target, '{json.dumps(params)}' ORDER BY {order}) AS model "
                         f"FROM ({src % 'g_train'}) s")
        refit_fp = psql("SELECT bk_info(model)->>'fingerprint' FROM bench.g_refit").strip()
        # the search refits a regressor's coefficients (bk_refit) at the
        # lambda its folds chose: that scan is part of the fit, at the
        # candidate lambda whose model is the search's
        t_fit, refit_fp, ridge = reg_ridge_refit(src % 'g_train', order, t_fit, refit_fp, best["fingerprint"])
        dim = int(best["dim"])
        m = score("SELECT model FROM bench.g_search WHERE model IS NOT NULL")
        m.update(fit_s=t_fit, search_s=t_search, cv_r2=best["mean"], setting=json.dumps(params),
                 same_model=(refit_fp == best["fingerprint"]), ridge=ridge)
        add("bk_tuned", m)
        res["dim"] = dim

        # the same search with other seeds (its settings and its folds are
        # drawn from the seed): how much of the tuned model's R^2 is luck
        res["seeds"] = [{"seed": 1, "r2": m["r2"], "cv_r2": best["mean"], "search_s": t_search, "params": params}]
        for sd in ([] if smoke else REG_OTHER_SEEDS):
            t_s, b_s = search("g_train", sd)
            r_s = score("SELECT model FROM bench.g_search WHERE model IS NOT NULL")
            res["seeds"].append({"seed": sd, "r2": r_s["r2"], "cv_r2": b_s["mean"], "search_s": t_s,
                                 "params": b_s["params"]})
            log("  %-30s R^2 %.4f  search %6.1fs  %s" % ("bk_tuned, seed %d" % sd, r_s["r2"], t_s,
                                                       json.dumps(b_s["params"])))

        # fixed settings: BPA-P, 3 passes, gamma 2 / dim on the model's
        # standardised features; then unbudgeted PA, the same step with no
        # budget, to show what the budget costs
        gamma = float("%.3g" % (2.0 / dim))
        fixed = [("bpa_p_%d_%g" % (b, c), {"algorithm": "bpa", "variant": "p", "budget": b, "C": c,
                                            "gamma": gamma, "epochs": 3}) for b, c in REG_FIXED]
        fixed += [("pa_%g" % c, {"algorithm": "pa", "C": c, "gamma": gamma, "epochs": 3, "max_sv": 200000})
                  for c in (0.1, 0.3)]
        for key, p in fixed:
            t_fit, _ = timed(f"DROP TABLE IF EXISTS bench.g_fixed; CREATE TABLE bench.g_fixed AS "
                             f"SELECT bk_train({feat}, t.\"{target}\", '{json.dumps(p)}' "
                             f"ORDER BY bk_shuffle_key(id, 7)) AS model FROM bench.g_train t")
            m = score("SELECT model FROM bench.g_fixed")
            m.update(fit_s=t_fit, setting=json.dumps(p))
            add(key, m)

        # ours on every training row (diamonds): the same search, no subsample
        if len(tr_all) > len(tr) and not smoke:
            copy_reg_rows("g_train_all", header, types, rows, tr_all)
            t_search, best = search("g_train_all")
            m = score("SELECT model FROM bench.g_search WHERE model IS NOT NULL")
            t_fit, _ = timed(f"DROP TABLE IF EXISTS bench.g_refit; CREATE TABLE bench.g_refit AS "
                             f"SELECT bk_train(features, target, '{json.dumps(best['params'])}' ORDER BY {order}) "
                             f"AS model FROM ({src % 'g_train_all'}) s")
            t_fit, _, _ = reg_ridge_refit(src % 'g_train_all', order, t_fit,
                                          psql("SELECT bk_info(model)->>'fingerprint' FROM bench.g_refit").strip(),
                                          best["fingerprint"])
            m.update(fit_s=t_fit, search_s=t_search, cv_r2=best["mean"], setting=json.dumps(best["params"]),
                     train=len(tr_all))
            add("bk_tuned_all", m)
        psql("DROP TABLE IF EXISTS bench.g_train, bench.g_test, bench.g_train_all, bench.g_search, "
             "bench.g_refit, bench.g_ridge, bench.g_fixed")
        results.append(res)

    run = {"sklearn": sklearn.__version__, "numpy": np.__version__, "python": platform.python_version(),
           "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS", "unset"), "load_start": load_start,
           "load_end": os.getloadavg(), "elapsed_s": time.time() - started, "warnings": warnings,
           "smoke": smoke}
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "regression-smoke.json" if smoke else "regression.json"), "w") as f:
        json.dump({"machine": mi, "run": run, "results": results, "command": args.command}, f, indent=1)
    write_regression_md(results, run, mi, args.command,
                        getattr(args, "reg_out", None) or os.path.join(ROOT, "doc", "comparison-regression.md"))
    return results


# the ridges the search's folds choose among for a regressor's refit
REG_RIDGES = [1e-6, 1e-5, 1e-4, 1e-3]


def reg_ridge_refit(source, order, t_fit, fp, search_fp):
    """The search's refit of bench.g_refit (the chosen setting trained
    alone): when its fingerprint is not the search's model's, bk_refit at
    each ridge the search chooses among, until one is; returns the fit's
    seconds with that refit's added, the fingerprint reached and the
    ridge (None: no refit)."""
    if fp == search_fp:
        return t_fit, fp, None
    for lam in REG_RIDGES:
        secs, _ = timed(f"DROP TABLE IF EXISTS bench.g_ridge; CREATE TABLE bench.g_ridge AS "
                        f"SELECT bk_refit((SELECT model FROM bench.g_refit), s.features, s.target, "
                        f"'{{\"lambda\": {lam!r}}}' ORDER BY {order}) AS model FROM ({source}) s")
        got = psql("SELECT bk_info(model)->>'fingerprint' FROM bench.g_ridge").strip()
        if got == search_fp:
            return t_fit + secs, got, lam
    return t_fit, fp, None


REG_LABELS = {
    "svr_tuned": "scikit-learn SVR, tuned (GridSearchCV)",
    "svr_default": "scikit-learn SVR, defaults",
    "kernel_ridge": "scikit-learn KernelRidge",
    "linear": "scikit-learn LinearRegression",
    "bk_tuned": "budgetkernel, tuned (bk_cross_validate)",
    "bk_tuned_all": "budgetkernel, tuned, every training row",
}


def reg_label(key):
    if key in REG_LABELS:
        return REG_LABELS[key]
    m = re.match(r"bpa_p_(\d+)_([0-9.]+)$", key)
    if m:
        return "budgetkernel BPA-P, B = %s, C = %s" % (m.group(1), m.group(2))
    m = re.match(r"pa_([0-9.]+)$", key)
    if m:
        return "budgetkernel PA, unbudgeted, C = %s" % m.group(1)
    return key


def reg_setting(m):
    """A model's setting for the table: scikit-learn's as written, ours the
    parameters without the ones the row's title names."""
    s = m.get("setting", "")
    if not s.startswith("{"):
        return s
    p = json.loads(s)
    if m["key"].startswith("bpa_p_") or m["key"].startswith("pa_"):
        p = {k: v for k, v in p.items() if k in ("gamma", "epochs")}
    return "`%s`" % json.dumps(p)


def write_regression_md(results, run, mi, command, out_md):
    """doc/comparison-regression.md from the results of regression_mode."""
    def ours(res, same_rows=True):
        return [m for m in res["models"]
                if (m["key"].startswith("bk_") or m["key"].startswith("bpa_") or m["key"].startswith("pa_"))
                and not (same_rows and m["key"] == "bk_tuned_all")]

    def model(res, key):
        return next((m for m in res["models"] if m["key"] == key), None)

    la, le = run["load_start"], run["load_end"]
    L = ["# budgetkernel's regression against scikit-learn's SVR\n",
         "Generated by the benchmark harness - do not edit by hand. Command:\n",
         "```sh\n%s\n```\n" % command, machine_md(mi) + "\n",
         "Load average at the start of the run %.2f, %.2f, %.2f (1, 5, 15 minutes), at its end "
         "%.2f, %.2f, %.2f; the whole run (both tables, every model) took %.0f s of wall-clock time. "
         "Python %s, numpy %s, scikit-learn %s; OPENBLAS_NUM_THREADS=%s (one core for BLAS, as for "
         "each database backend)."
         % (la[0], la[1], la[2], le[0], le[1], le[2], run["elapsed_s"], run["python"], run["numpy"],
            run["sklearn"], run["blas_threads"]) + "\n"]
    if run["smoke"]:
        L.append("**Smoke run** (a few hundred rows of each table, a smaller search): "
                 "these numbers only check the harness.\n")

    # ---- the issue's targets
    L += ["## The targets\n",
          "The issue asks for budgetkernel's regression to reach (a) **R² within %.2f of "
          "scikit-learn's tuned SVR** (b) **at a budget that trains in under a tenth of SVR's fit "
          "time, on at least %s training rows**. Both are judged here on the numbers of this one run, "
          "on the same training and test rows. SVR's fit time is that of its tuned model: the refit "
          "of the best setting on every training row, the search's time not counted. Ours counts the "
          "same: one `bk_train` of the setting on the training rows, read from the table, the model's "
          "feature preparation included.\n" % (REG_R2_GAP, "{:,}".format(REG_MIN_ROWS)),
          "| data set | training rows | tuned SVR: R² | fit s | budgetkernel tuned: R² | gap | fit s "
          "| share of SVR's fit | (a) | (b) | settings of ours meeting (a) and (b) together |",
          "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |"]
    verdicts = []
    for res in results:
        svr, bk = model(res, "svr_tuned"), model(res, "bk_tuned")
        big = res["train"] >= REG_MIN_ROWS
        gap = bk["r2"] - svr["r2"]
        a_ok = gap >= -REG_R2_GAP
        b_ok = bk["fit_s"] < REG_TIME_SHARE * svr["fit_s"]
        both = [m for m in ours(res) if m["r2"] - svr["r2"] >= -REG_R2_GAP
                and m["fit_s"] < REG_TIME_SHARE * svr["fit_s"]]
        seeds = res.get("seeds", [])
        seed_ok = [x for x in seeds if x["r2"] - svr["r2"] >= -REG_R2_GAP]
        a_cell = "met" if a_ok else "**not met**"
        if len(seeds) > 1:
            a_cell += " (seed 1; %d of %d seeds)" % (len(seed_ok), len(seeds))
        L.append("| %s | %s | %.4f | %.2f | %.4f | %+.4f | %.2f | %.3f | %s | %s | %s |"
                 % (res["title"], "{:,}".format(res["train"]), svr["r2"], svr["fit_s"], bk["r2"], gap, bk["fit_s"],
                    bk["fit_s"] / svr["fit_s"], a_cell,
                    ("met" if b_ok else "**not met**") if big else
                    ("%s (fewer than %s rows: not the target's case)"
                     % ("under a tenth" if b_ok else "not under a tenth", "{:,}".format(REG_MIN_ROWS))),
                    "; ".join("%s (R² %.4f, %.2f s)" % (reg_label(m["key"]), m["r2"], m["fit_s"]) for m in both)
                    or "none"))
        best = max(ours(res), key=lambda m: m["r2"])
        seed_txt = ""
        if len(seeds) > 1:
            seed_txt = (" With the search's other seeds (%s) the tuned model's test R² spans %.4f to %.4f: "
                        "(a) holds for %d of the %d seeds."
                        % (", ".join(str(x["seed"]) for x in seeds[1:]), min(x["r2"] for x in seeds),
                           max(x["r2"] for x in seeds), len(seed_ok), len(seeds)))
        # a fit within 30 % of the limit is within this machine's timing noise
        close = [m for m in both if m["fit_s"] > REG_TIME_SHARE * svr["fit_s"] / 1.3]
        close_txt = ("" if not close else
                     " The fit of %s is within 30 %% of the limit (%.2f s), inside this machine's timing noise."
                     % (" and ".join(reg_label(m["key"]) for m in close), REG_TIME_SHARE * svr["fit_s"]))
        if big:
            if a_ok and b_ok:
                v = ("**both targets are met by the tuned model itself** (seed 1)%s"
                     % (", by %.4f R² to spare only" % (gap + REG_R2_GAP) if gap + REG_R2_GAP < 0.005 else ""))
            elif both:
                v = ("**both targets are met, but not by the tuned model**: only by fixed setting%s stated in "
                     "advance (%s). Those settings were not chosen by a search on the training rows; "
                     "the tuned model %s"
                     % ("s" if len(both) > 1 else "", ", ".join(reg_label(m["key"]) for m in both),
                        "misses (a) by %.4f" % (-gap - REG_R2_GAP) if not a_ok else "misses (b)"))
            else:
                v = "**the targets are not met together** by any setting of ours"
            verdicts.append("- **%s** (%s training rows): %s. The tuned SVR reached R² %.4f with a %.2f s fit; "
                            "ours tuned %.4f in %.2f s (%.1f %% of SVR's fit); the best of ours %.4f (%s, %.2f s).%s%s"
                            % (res["title"], "{:,}".format(res["train"]), v, svr["r2"], svr["fit_s"], bk["r2"],
                               bk["fit_s"], 100 * bk["fit_s"] / svr["fit_s"], best["r2"], reg_label(best["key"]),
                               best["fit_s"], seed_txt, close_txt))
        else:
            verdicts.append("- **%s** (%s training rows, fewer than %s, so (b) cannot be judged on it): (a) is "
                            "%s by the tuned model (R² %.4f against SVR's %.4f, %+.4f)%s; the best of ours is "
                            "%.4f (%s), %+.4f from SVR.%s"
                            % (res["title"], "{:,}".format(res["train"]), "{:,}".format(REG_MIN_ROWS),
                               "met" if a_ok else "**not met**", bk["r2"], svr["r2"], gap,
                               "" if a_ok else ", %.4f short" % (-gap - REG_R2_GAP),
                               best["r2"], reg_label(best["key"]), best["r2"] - svr["r2"], seed_txt))
    L.append("")
    L += verdicts
    L.append("")

    # ---- the results
    L += ["## Results\n",
          "Test R² and RMSE (in the target's units) on the test rows; *fit s*: one fit on the training "
          "rows (for the tuned models, the refit of the chosen setting); *search s*: the whole tuning "
          "call, the refit included; *predict s*: the test rows (ours: `bk_metrics` over "
          "`bk_predict_value` in the database). Wall-clock seconds, one run each.\n"]
    for res in results:
        svr = model(res, "svr_tuned")
        L += ["### %s\n" % res["title"],
              "%s rows: %s training (%s), %s test. Target `%s`; %d numeric columns (%s), %d text (%s); "
              "%d missing values. %d features for scikit-learn after one-hot encoding, %d for budgetkernel's "
              "model (`dim`).\n"
              % ("{:,}".format(res["rows"]), "{:,}".format(res["train"]),
                 "all of the split's" if res["train"] == res["train_all"] else
                 "the first %s of the split's %s" % ("{:,}".format(res["train"]), "{:,}".format(res["train_all"])),
                 "{:,}".format(res["test"]), res["target"], len(res["num"]), ", ".join(res["num"]), len(res["cat"]),
                 ", ".join(res["cat"]) or "none", res["missing"], res["n_features"], res["dim"]),
              "| model | setting | training rows | test R² | R² − tuned SVR | test RMSE | fit s | fit / tuned SVR's | "
              "search s | predict s | support vectors |",
              "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for m in res["models"]:
            L.append("| %s | %s | %s | %.4f | %+.4f | %.0f | %.2f | %.3f | %s | %.2f | %s |"
                     % (reg_label(m["key"]), reg_setting(m), "{:,}".format(m.get("train", res["train"])), m["r2"],
                        m["r2"] - svr["r2"], m["rmse"], m["fit_s"], m["fit_s"] / svr["fit_s"],
                        "%.1f" % m["search_s"] if m.get("search_s") is not None else "-", m["predict_s"],
                        "{:,}".format(m["n_sv"]) if m.get("n_sv") is not None else "-"))
        L.append("")
        if len(res.get("seeds", [])) > 1:
            L += ["The same `bk_cross_validate` call with other seeds (the seed draws the settings and "
                  "the folds; seed 1 is the tuned model above):\n",
                  "| seed | chosen setting | CV R² | test R² | R² − tuned SVR | search s |",
                  "| ---: | --- | ---: | ---: | ---: | ---: |"]
            for x in sorted(res["seeds"], key=lambda x: x["seed"]):
                L.append("| %d | `%s` | %.4f | %.4f | %+.4f | %.1f |"
                         % (x["seed"], json.dumps(x["params"]), x["cv_r2"], x["r2"], x["r2"] - svr["r2"],
                            x["search_s"]))
            L.append("")

    # ---- how
    L += ["## How it was measured\n",
          "- **Data**: two public tables kept in `test/bench/data` (gzip; the harness checks the "
          "sha256 of each decompressed file; provenance and licences in test/bench/data/README.md). "
          "The split is scikit-learn's usual recipe: `numpy.random.RandomState(0).permutation(n)`, its "
          "first 75 % for training, kept in that order, and the rest for testing. For California housing "
          "these are exactly the rows of the scikit-learn baseline the harness was checked against. "
          "For diamonds, the training part is cut to the first 20,000 of its 40,455 rows (still in the "
          "permutation's order, so a seeded random sample): SVR's grid search on all of them would take "
          "hours here (its fit grows faster than the square of the rows). The last row of the diamonds "
          "table trains ours on all 40,455.",
          "- **scikit-learn** (the preparation of its user, fitted on the training rows): a missing "
          "number replaced by the training rows' median, text one-hot encoded, every column "
          "standardised (StandardScaler), and the target standardised too (predictions mapped back). "
          "**SVR tuned**: `GridSearchCV(SVR(kernel='rbf', epsilon=0.1), cv=KFold(3), scoring='r2', "
          "n_jobs=1)` over C in {%s} x gamma in {%s}/n_features, refitted on every training row. "
          "**SVR defaults**: `SVR()` (C = 1, gamma = 'scale'). **KernelRidge**: `KernelRidge(kernel='rbf', "
          "alpha=1, gamma=1/n_features)`, one setting, no search. **LinearRegression**: ordinary least "
          "squares. Times are of `.fit()` and `.predict()` on the prepared arrays; the preparation is "
          "not counted."
          % (", ".join("%g" % c for c in REG_SVR_C), ", ".join("%g" % g for g in REG_SVR_GAMMA)),
          "- **budgetkernel**: the rows as the file has them, in tables with a float8 target, a NULL "
          "for a missing value and text as text. The features are named: `to_jsonb(t) - 'id' - "
          "'<target>'`. The model standardises numbers with its training rows, fills a missing one with "
          "their mean and one-hot encodes text (preparation.md), and standardises the target "
          "(`\"target_scale\": \"standard\"`, regression.md). **Tuned**: one call "
          "`bk_cross_validate(source, 'features', 'target', 'id', '{\"seed\": 1, \"refit\": true}')` with no "
          "grid. It searches gamma in [1/(16 dim), 8/dim], C in [0.01, 100] and epsilon in [0.01, 1] "
          "(standard deviations of the target) by successive halving of BPA-NN's budget (27 settings at "
          "B = 50, 9 at 150, 3 at 450 and the best of them with 3 passes). It uses 3 folds of its own "
          "(a seeded hash of the key), not scikit-learn's, and refits the best setting on every "
          "training row, its coefficients solved again over its support vectors (`bk_refit`) at the ridge "
          "the search's folds choose (doc/refit.md). Its *fit s* is that refit's `bk_train` and `bk_refit` "
          "run again alone, in the same order "
          "(%s). **Fixed settings**, chosen before the run and not by a search: BPA-P (the "
          "projection onto all support vectors), 3 passes, gamma = 2/dim rounded (%s), C in {0.1, 0.3}, B in {300, 1000}, the rows in a seeded shuffle "
          "(`bk_shuffle_key(id, 7)`). Unbudgeted PA with the same step and passes is a reference: it "
          "shows what the budget costs (with 3 passes a row can become a support vector once in each, so it "
          "may hold more support vectors than rows). Times are of the `bk_train` query, read from the table, "
          "the model's preparation included; *predict s* is that of the scoring query (a psql "
          "session of its own)."
          % ("the same model: the fingerprints agree" if all(model(r, "bk_tuned").get("same_model") for r in results)
             else "**not the same model as the search's refit on every table** (the fingerprints differ)",
             ", ".join("%.3g for the %d features of %s" % (2.0 / r["dim"], r["dim"], r["title"]) for r in results)),
          "- **Timing**: wall-clock seconds of one run of each, one after the other. SVR and the "
          "database backend use one core each. The machine has two, and other work on it (the load "
          "average above) slows either side by an unknown amount: **treat differences of less than "
          "about 30 % as noise**.",
          ""]

    # ---- notes
    N = []
    for res in results:
        svr, kr, bk = model(res, "svr_tuned"), model(res, "kernel_ridge"), model(res, "bk_tuned")
        fx = [m for m in ours(res) if m["key"].startswith("bpa_p_")]
        pa = [m for m in ours(res) if m["key"].startswith("pa_")]
        best_fx = max(fx, key=lambda m: m["r2"])
        best_pa = max(pa, key=lambda m: m["r2"])
        best = max(ours(res), key=lambda m: m["r2"])
        s = "**%s.** " % res["title"]
        if svr["r2"] > best["r2"]:
            s += ("scikit-learn's tuned SVR is the most accurate kernel model here, by %.4f R² over the best of "
                  "ours (%s)" % (svr["r2"] - best["r2"], reg_label(best["key"])))
        else:
            s += ("The best of ours (%s, R² %.4f) is level with or better than the tuned SVR (%.4f)"
                  % (reg_label(best["key"]), best["r2"], svr["r2"]))
        s += ("; KernelRidge at its one setting reaches %.4f (%s the tuned model of ours) in %.1f s."
              % (kr["r2"], "above" if kr["r2"] > bk["r2"] else "below", kr["fit_s"]))
        if best_fx["r2"] > bk["r2"] + 0.005:
            s += (" The search's choice (`%s`) is %.4f R² below the best fixed BPA-P setting (%s): the search "
                  "tries BPA-NN only, never BPA-P." % (json.dumps(json.loads(bk["setting"])),
                                          best_fx["r2"] - bk["r2"], reg_label(best_fx["key"])))
        b1000 = max([m for m in fx if "_1000_" in m["key"]], key=lambda m: m["r2"])
        s += (" Unbudgeted PA (%s support vectors) reaches %.4f against BPA-P's %.4f at B = 1000 (%s support vectors), "
              "so %s"
              % ("{:,}".format(best_pa["n_sv"]), best_pa["r2"], b1000["r2"], "{:,}".format(b1000["n_sv"]),
                 ("the budget costs little here%s" % (
                     ": what keeps ours below SVR is the online step (a few passes of one-row PA updates), "
                     "not the budget." if svr["r2"] > best_pa["r2"] + 0.01 else "."))
                 if best_pa["r2"] - b1000["r2"] < 0.01 else
                 "the budget of 1,000 costs %.4f R² here." % (best_pa["r2"] - b1000["r2"])))
        all_ = model(res, "bk_tuned_all")
        if all_:
            s += (" On all %s training rows (no subsample), the same search and refit reach R² %.4f "
                  "(search %.0f s, refit %.2f s), against SVR's %.4f on 20,000."
                  % ("{:,}".format(all_["train"]), all_["r2"], all_["search_s"], all_["fit_s"], svr["r2"]))
        N.append(s)
    wins = [r for r in results if model(r, "svr_tuned")["r2"] > max(m["r2"] for m in ours(r))]
    N.append("**Where scikit-learn is the better choice.** When the training rows fit in one process's "
             "memory and a fit of seconds to minutes is acceptable, a tuned SVR is the more accurate "
             "kernel model %s (R² %s), and KernelRidge at one setting, with no search at all, reaches %s. "
             "KernelRidge solves an n x n system: its time grows with n³ and its memory with n² "
             "(20,000 rows: a 3.2 GB kernel matrix). SVR's time grows between n² and n³, and its "
             "model keeps every support vector (%s here), which also makes its prediction slower. "
             "budgetkernel is the choice when the data lives in PostgreSQL and should stay there, when "
             "the table is too large for those fits, when the model must stay small (B support "
             "vectors) or keep learning from new rows (`bk_continue`), or when a search of minutes "
             "must take seconds. Tuned against tuned, ours then gives up %s."
             % ("on both tables" if len(wins) == len(results) else
                "on %s only" % (" and ".join(r["title"] for r in wins) or "neither table"),
                " and ".join("%.4f on %s" % (model(r, "svr_tuned")["r2"], r["title"]) for r in results),
                " and ".join("%.4f" % model(r, "kernel_ridge")["r2"] for r in results),
                " and ".join("{:,}".format(model(r, "svr_tuned")["n_sv"]) for r in results),
                " and ".join("%.4f R² on %s" % (model(r, "svr_tuned")["r2"] - model(r, "bk_tuned")["r2"], r["title"])
                             for r in results)))
    N.append("**The search's time.** scikit-learn's grid of %d settings x 3 folds took %s; bk_cross_validate's "
             "search of 40 settings (27 at B = 50, 9 at 150, 4 at 450) x 3 folds, refit included, took %s."
             % (len(REG_SVR_C) * len(REG_SVR_GAMMA),
                " and ".join("%.0f s on %s" % (model(r, "svr_tuned")["search_s"], r["title"]) for r in results),
                " and ".join("%.1f s" % model(r, "bk_tuned")["search_s"] for r in results)))
    N.append("**The preparations differ a little**: scikit-learn fills a missing value with the median and "
             "standardises the one-hot columns too, the model fills with the mean and leaves one-hot columns "
             "0/1. The tuned models also use different folds, and SVR keeps epsilon = 0.1 where the search "
             "chooses it. None of this is tuned on the test rows.")
    if run["warnings"]:
        N.append("**bk_cross_validate's warnings** in this run: " +
                 " ".join("%s." % w.rstrip(".") for w in run["warnings"]))
    L += ["## Notes\n"] + ["- " + n for n in N] + [""]
    with open(out_md, "w") as f:
        f.write("\n".join(L) + "\n")
    log("== wrote %s" % os.path.relpath(out_md, ROOT))


def weights_mode(args):
    """Class weights against oversampling by hand on w8a (3 % positives):
    doc/class-weights.md."""
    mi = machine_info()
    d = os.path.abspath(args.data_dir)
    rows = read_libsvm(os.path.join(d, "w8a.train"), 300)
    order = split_order(len(rows))
    ntest = len(rows) // 5
    te_ids, tr_ids = sorted(order[:ntest]), sorted(order[ntest:])
    copy_rows("w_train", [rows[i - 1] for i in tr_ids], tr_ids)
    copy_rows("w_test", [rows[i - 1] for i in te_ids], te_ids)
    npos = int(psql("SELECT count(*) FROM bench.w_train WHERE label = 1").strip())
    learners = [("BPA-NN, B = 200, C = 1", {"algorithm": "bpa", "budget": 200, "C": 1}),
                ("BPA-NN, B = 200, C = 0.1", {"algorithm": "bpa", "budget": 200, "C": 0.1}),
                ("Pegasos (merge), B = 200", {"algorithm": "pegasos", "budget": 200}),
                ("BDUOL, B = 200, C = 0.1", {"algorithm": "bduol", "budget": 200, "C": 0.1}),
                ("BOGD, B = 200", {"algorithm": "bogd", "budget": 200}),
                ("Projectron++, B = 200", {"algorithm": "projectron_pp", "budget": 200})]
    ways = [("none", None, 1), ("balanced", "balanced", 1), ("oversampled x10", None, 10),
            ("oversampled x30", None, 30)]
    L = ["# Class weights against oversampling by hand\n",
         "Generated by the benchmark harness - do not edit by hand. Command:\n",
         "```sh\n%s\n```\n" % args.command, machine_md(mi) + "\n",
         "w8a (300 binary features, %d training rows of which %d positive (%.1f %%), %d test rows: "
         "a seeded random split of the LIBSVM file). Every model standardises its features "
         "itself (`\"scale\": \"standard\"`) and reads the rows in a seeded shuffle "
         "(`bk_shuffle_key(id, 1)`). *balanced*: `\"class_weight\": \"balanced\"`, "
         "w_c = N / (K n_c), no row copied; *oversampled xk*: every positive row k times "
         "(k copies in the shuffle), the remedy before class weights. Balanced accuracy is the "
         "mean of the two classes' recalls (`bk_metrics`); training time is the aggregate's, "
         "one run.\n" % (len(tr_ids), npos, 100.0 * npos / len(tr_ids), len(te_ids)),
         "| learner | rows | training rows | accuracy | balanced accuracy | positive recall | train s |",
         "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for title, params in learners:
        for way, cw, k in ways:
            p = dict(params, scale="standard")
            if cw:
                p["class_weight"] = cw
            src = ("(SELECT r.id * 100 + c AS id, r.label, r.features FROM bench.w_train r, "
                   "generate_series(1, %d) c WHERE r.label = 1 OR c = 1)" % k) if k > 1 else "bench.w_train"
            t, _ = timed(f"""DROP TABLE IF EXISTS bench.w_model;
CREATE TABLE bench.w_model AS SELECT bk_train(features, label, '{json.dumps(p)}'
    ORDER BY bk_shuffle_key(id, 1)) AS m, count(*) AS n FROM {src} s""")
            r = json.loads(psql("SELECT json_build_object('n', (SELECT n FROM bench.w_model), 'r', "
                                "bk_metrics(t.label, bk_predict(w.m, t.features))) "
                                "FROM bench.w_test t, bench.w_model w").strip())
            rep = r["r"]
            rec = [c for c in rep["per_class"] if str(c["class"]) == "1"][0]["recall"]
            L.append("| %s | %s | %d | %.4f | %.4f | %.4f | %.2f |"
                     % (title, way, r["n"], rep["accuracy"], rep["balanced_accuracy"], rec, t))
            log("  %-26s %-16s acc %.4f balanced %.4f (%.2fs)"
                % (title, way, rep["accuracy"], rep["balanced_accuracy"], t))
    psql("DROP TABLE IF EXISTS bench.w_train, bench.w_test, bench.w_model")
    L.append("")
    write_doc("class-weights.md", L)


def targets_mode(args):
    """One bk_cross_validate call with no grid (refit), the README's
    recommended setting, beside LIBSVM tuned the same way (a grid of four
    settings chosen by 3-fold cross-validation on the training rows, then
    fitted on all of them) and LIBSVM's best of the four on the test rows
    (an optimistic reference): doc/comparison-libsvm.md."""
    mi = machine_info()
    d = os.path.abspath(args.data_dir)
    if shutil.which("svm-train") is None:
        raise RuntimeError("svm-train not found (Debian package libsvm-tools)")
    sets = [("a9a", "a9a.train", "a9a.test", 123, None),
            ("banana, 4,300 / 1,000", "banana", None, 2, 4300),
            ("usps (10 classes)", "usps.train", "usps.test", 256, None),
            ("covtype20k, 15k / 5k", "covtype20k.binary", None, 54, 15000)]
    L = ["# budgetkernel's search against LIBSVM\n",
         "Generated by the benchmark harness - do not edit by hand. Command:\n",
         "```sh\n%s\n```\n" % args.command, machine_md(mi) + "\n",
         "A search against a search, on the same training and test rows. **budgetkernel**: one call "
         "`bk_cross_validate('bench.t_train', 'features', 'label', 'id', '{\"seed\": 1, \"refit\": true}')` "
         "with no grid, the README's recommended setting (it chooses gamma, C or lambda, class "
         "weights, the budget and the passes by successive halving over 3 stratified folds, of "
         "BPA-NN on two classes and of multi-class Pegasos on more, standardises the features "
         "itself, and trains the best setting on every training row), timed whole. **LIBSVM, "
         "tuned**: `svm-train -s 0 -t 2 -m 500` (Debian libsvm-tools %s) on the same rows "
         "standardised with the training rows' statistics, C in {1, 10} and gamma in {1/d, 4/d} "
         "chosen by its own 3-fold cross-validation on the training rows (`-v 3`), then fitted on "
         "all of them; its time is the four cross-validations and that fit. **LIBSVM, best on "
         "test**: the best of the four fits judged on the test rows, an optimistic reference no "
         "user can reach without test labels. The split of a file without a test part is a "
         "seeded random one (the harness's md5 of the row number). Times are wall-clock seconds, "
         "one run; LIBSVM's eight single-threaded runs of a data set (four cross-validations, four "
         "fits) two at a time, one per core, each timed by itself; the search alone.\n"
         % libsvm_version(),
         "| data set | train / test rows | budgetkernel accuracy | search + refit s | chosen setting "
         "| LIBSVM tuned accuracy | LIBSVM C, gamma | LIBSVM CV + fit s | LIBSVM best on test "
         "| C, gamma |",
         "| --- | --- | ---: | ---: | --- | ---: | --- | ---: | ---: | --- |"]
    for title, trf, tef, dim, ntr in sets:
        lm = None
        tr = read_libsvm(os.path.join(d, trf), dim, lm)
        if tef:
            te = read_libsvm(os.path.join(d, tef), dim, lm)
        else:
            order = split_order(len(tr))
            te = [tr[i - 1] for i in sorted(order[ntr:ntr + 5000])]
            tr = [tr[i - 1] for i in sorted(order[:ntr])]
        # standardise with the training rows' statistics (population sd; constant: centred)
        cols = list(zip(*[[float(v) for v in x] for _, x in tr]))
        mean = [sum(c) / len(c) for c in cols]
        sd = [math.sqrt(max(sum((v - m) ** 2 for v in c) / len(c), 0.0)) for c, m in zip(cols, mean)]
        sd = [v if v > 0 else 1.0 for v in sd]
        paths = {}
        for part, rows in (("train", tr), ("test", te)):
            paths[part] = os.path.join(OUT, "t_%s.%s.libsvm" % (trf.replace(".", "_"), part))
            with open(paths[part], "w") as f:
                for y, x in rows:
                    f.write("%d %s\n" % (y, " ".join("%d:%.17g" % (i + 1, (float(v) - mean[i]) / sd[i])
                                                     for i, v in enumerate(x))))
        fits = {}
        cv = {}

        def libsvm_cv(c, g):
            t0 = time.time()
            out = subprocess.run(["svm-train", "-q", "-s", "0", "-t", "2", "-c", str(c), "-g", repr(g),
                                  "-m", "500", "-v", "3", paths["train"]],
                                 check=True, capture_output=True, text=True).stdout
            return (float(re.search(r"Cross Validation Accuracy = ([0-9.]+)%", out).group(1)) / 100,
                    time.time() - t0)

        def libsvm_fit(c, g):
            model = os.path.join(OUT, "t.%g.%r.model" % (c, g))
            t0 = time.time()
            subprocess.run(["svm-train", "-q", "-s", "0", "-t", "2", "-c", str(c), "-g", repr(g), "-m", "500",
                            paths["train"], model], check=True, capture_output=True)
            t = time.time() - t0
            out = subprocess.run(["svm-predict", paths["test"], model, model + ".pred"],
                                 check=True, capture_output=True, text=True).stdout
            return float(re.search(r"Accuracy = ([0-9.]+)%", out).group(1)) / 100, t

        # the eight single-threaded runs two at a time, one per core, each timed by itself
        grid = [(c, g) for c in (1, 10) for g in (1.0 / dim, 4.0 / dim)]
        with ThreadPoolExecutor(max_workers=2) as pool:
            jobs = {("cv", k): pool.submit(libsvm_cv, *k) for k in grid}
            jobs.update({("fit", k): pool.submit(libsvm_fit, *k) for k in grid})
            for k in grid:
                cv[k] = jobs[("cv", k)].result()
                fits[k] = jobs[("fit", k)].result()
                log("  LIBSVM %-22s C %g gamma %.4g: cv %.4f (%.1fs), test %.4f (%.1fs)"
                    % (title, k[0], k[1], cv[k][0], cv[k][1], fits[k][0], fits[k][1]))
        tuned = max(cv, key=lambda k: cv[k][0])
        tuned_s = sum(v[1] for v in cv.values()) + fits[tuned][1]
        oracle = max(fits, key=lambda k: fits[k][0])
        # the same raw rows into the database; the search standardises them itself
        copy_rows("t_train", tr)
        copy_rows("t_test", te)
        t0 = time.time()
        psql_file("""
DROP TABLE IF EXISTS bench.t_search;
CREATE TABLE bench.t_search AS
SELECT * FROM bk_cross_validate('bench.t_train', 'features', 'label', 'id', '{"seed": 1, "refit": true}');
""")
        t = time.time() - t0
        acc = float(psql("SELECT avg((bk_predict((SELECT model FROM bench.t_search WHERE model IS NOT NULL), "
                         "t.features) = t.label)::int) FROM bench.t_test t").strip())
        chosen = psql("SELECT params - 'scale' FROM bench.t_search WHERE model IS NOT NULL").strip()
        L.append("| %s | %d / %d | %.4f | %.1f | `%s` | %.4f | %g, %.4g | %.1f | %.4f | %g, %.4g |"
                 % (title, len(tr), len(te), acc, t, chosen, fits[tuned][0], tuned[0], tuned[1], tuned_s,
                    fits[oracle][0], oracle[0], oracle[1]))
        log("  %-22s budgetkernel %.4f (%.1fs)  LIBSVM tuned %.4f (%.1fs)  best on test %.4f"
            % (title, acc, t, fits[tuned][0], tuned_s, fits[oracle][0]))
    psql("DROP TABLE IF EXISTS bench.t_train, bench.t_test, bench.t_search")
    L.append("")
    write_doc("comparison-libsvm.md", L)


def search_mode(args):
    """bk_cross_validate's S settings x k folds, against the same models
    trained as the search trains them (the rows read once, one aggregate
    for all the models), one LATERAL aggregate per model, in one GROUP BY,
    in S x k scans, and one model on all rows: doc/performance-search.md."""
    mi = machine_info()
    d = os.path.abspath(args.data_dir)
    reps = 1 if args.quick else 3
    sets = [("usps (10 classes)", "usps.train", 256,
             {"algorithm": "pegasos", "budget": 100, "gamma": [0.002, 0.004, 0.008], "lambda": [1e-4, 1e-5]}),
            ("covtype20k (binary)", "covtype20k.binary", 54,
             {"algorithm": "bpa", "variant": "s", "budget": 100, "scale": "standard",
              "gamma": [0.05, 0.2, 0.8], "C": [0.1, 1]})]
    folds = 5
    # the search runs without JIT and without the run warnings
    # (sql/objects/14-cross-validation.sql): so does every query beside it.
    # The warnings' check scores up to 1,000 rows with each finished model
    # (doc/training.md): one model is also timed with them, as bk_train
    # runs by default
    nojit = "SET jit = off; SET budgetkernel.run_warnings = off;"
    L = ["# The cost of a search\n",
         "Generated by the benchmark harness - do not edit by hand. Command:\n",
         "```sh\n%s\n```\n" % args.command, machine_md(mi) + "\n",
         "`bk_cross_validate` reads the source once into the rows it keeps (features, label, shuffle "
         "key and fold, in a CTE that PostgreSQL materialises, as the query reads it more than once), "
         "trains every (setting, fold) model in one aggregate over those rows sorted once into the "
         "shuffle's order (`_bk_train_folds`: the rows kept once with their folds, each fold's "
         "preparation fitted and its rows prepared once for all its settings), which also scores each "
         "model on its held-out fold (those rows prepared once a fold too); its `train_seconds` (summed here over the settings) is the models' own training, "
         "without the shared read. Beside it, on the same rows, folds and settings: **one scan** = "
         "the same S x k models trained as the search trains them, without scoring (the search's "
         "training part: `_bk_train_folds` with no metric); **an aggregate a model** = the same models, one `LATERAL` aggregate each "
         "over the materialised rows, each sorting, keeping and preparing its own rows (how the "
         "search trained them in 0.4.0's development, before `_bk_train_folds`); **one GROUP BY** = the "
         "same models as the groups of one `GROUP BY` over the cross product of rows, settings and "
         "folds, sorted together (how the search trained them before 0.4.0); **S x k scans** = the "
         "same models, one `bk_train` query each (a scan of the table per model, as a hand-written "
         "loop does); **one model** = `bk_train` over all rows once. The search runs with "
         "`jit = off` and `budgetkernel.run_warnings = off`, and so here does every query beside it; "
         "**one model, warnings on** = the same model with the run warnings on, `bk_train`'s default "
         "(each finished model then scores the last 1,000 rows it kept, doc/training.md). "
         "The server's `work_mem` is %s. "
         "An aggregate a model can take longer than the whole search, for a reason outside both: "
         "on the development machine (PostgreSQL 17, covtype20k, glibc's malloc) its query took "
         "2.4-2.6 s with 128,000 minor page faults in the backend and 0.7 s of system time, the "
         "search's own query 1.2 s with 16,000 faults and 0.1 s: between its models the query gave "
         "the memory a model had freed (its sort's 8 MB among it) back to the kernel, and the next "
         "model faulted it in again. With the server started under "
         "`MALLOC_TRIM_THRESHOLD_=1073741824 MALLOC_MMAP_THRESHOLD_=33554432` it took 0.85-1.1 s "
         "with 11,500 faults. "
         "Every query here runs in a fresh session and pays that too, with the first touch of the "
         "memory it uses: there covtype20k's one model (`\"scale\": \"standard\"`, its rows "
         "buffered) took 0.19-0.21 s first in a session, 0.16-0.18 s when repeated in it, and "
         "0.05-0.06 s repeated under those settings (the search's train_seconds, its models' passes "
         "alone, are in the table). "
         "Wall-clock seconds from psql's `\\timing`, the median of %d runs each, interleaved.\n"
         % (psql("SHOW work_mem").strip(), reps),
         "| data set | rows | S x k | bk_cross_validate s | its train_seconds | one scan s | "
         "an aggregate a model s | one GROUP BY s | "
         "S x k scans s | one model s | one model, warnings on s | one scan / S x k scans | "
         "one scan / (S x k x one model) |",
         "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for title, f, dim, grid in sets:
        rows = read_libsvm(os.path.join(d, f), dim)
        copy_rows("s_rows", rows)
        psql(f"""ALTER TABLE bench.s_rows ADD COLUMN fold int;
UPDATE bench.s_rows r SET fold = s.fold FROM (
  SELECT id, (row_number() OVER (PARTITION BY label ORDER BY bk_shuffle_key(hashtextextended(id::text, 0), 0), id::text) - 1) % {folds} AS fold
  FROM bench.s_rows) s WHERE s.id = r.id;
ANALYZE bench.s_rows""")
        keys = [k for k, v in grid.items() if isinstance(v, list)]
        settings = [{}]
        for k in sorted(grid):
            v = grid[k]
            settings = [dict(s_, **{k: x}) for s_ in settings for x in (v if isinstance(v, list) else [v])]
        nset = len(settings)
        sj = json.dumps(settings)
        q_search = ("SELECT sum(train_seconds) FROM bk_cross_validate('bench.s_rows', 'features', 'label', 'id', "
                    "'%s')" % json.dumps({"grid": grid, "folds": folds}))
        # the models are used (summed sizes): an unused aggregate would not be computed
        q_scan = (f"""WITH r AS MATERIALIZED (
  SELECT features, label, fold, bk_shuffle_key(hashtextextended(id::text, 0), 0) AS k, id::text AS kt FROM bench.s_rows)
SELECT sum(length(u.model::bytea)) FROM (
  SELECT _bk_train_folds(r.features::bk_features, r.label::bk_label, r.fold::int8, '{sj}', {folds}, NULL ORDER BY r.k, r.kt) AS a
  FROM r) t, unnest(t.a) AS u""")
        q_lateral = (f"""WITH r AS MATERIALIZED (
  SELECT features, label, fold, bk_shuffle_key(hashtextextended(id::text, 0), 0) AS k, id::text AS kt FROM bench.s_rows)
SELECT sum(length(t.model::bytea)) FROM (
  SELECT st.p, f.fold FROM jsonb_array_elements('{sj}') WITH ORDINALITY AS st(p, i)
       CROSS JOIN generate_series(0, {folds - 1}) f(fold) ORDER BY st.i, f.fold) sf
  CROSS JOIN LATERAL (SELECT bk_train(r.features, r.label, sf.p ORDER BY r.k, r.kt) AS model
                      FROM r WHERE r.fold <> sf.fold) t""")
        q_group = (f"""SELECT sum(length(m.model::bytea)) FROM (SELECT bk_train(r.features, r.label, st.p ORDER BY bk_shuffle_key(hashtextextended(r.id::text, 0), 0)) AS model
FROM bench.s_rows r CROSS JOIN jsonb_array_elements('{sj}') AS st(p) CROSS JOIN generate_series(0, {folds - 1}) f
WHERE r.fold <> f GROUP BY st.p::text, f) m""")
        q_one = ("SELECT bk_train(features, label, '%s' ORDER BY bk_shuffle_key(hashtextextended(id::text, 0), 0)) "
                 "IS NOT NULL FROM bench.s_rows" % json.dumps(settings[0]))
        ts = {"search": [], "search_train": [], "scan": [], "lateral": [], "group": [], "scans": [], "one": [],
              "one_warn": []}
        for _ in range(reps):
            t_, out_ = timed(q_search)
            ts["search"].append(t_)
            ts["search_train"].append(float(out_[0]))
            ts["scan"].append(timed(q_scan, settings=nojit)[0])
            ts["lateral"].append(timed(q_lateral, settings=nojit)[0])
            ts["group"].append(timed(q_group, settings=nojit)[0])
            tot = 0.0
            for st in settings:
                for fo in range(folds):
                    tot += timed("SELECT bk_train(features, label, '%s' ORDER BY bk_shuffle_key(hashtextextended(id::text, 0), 0)) "
                                 "IS NOT NULL FROM bench.s_rows WHERE fold <> %d" % (json.dumps(st), fo),
                                 settings=nojit)[0]
            ts["scans"].append(tot)
            ts["one"].append(timed(q_one, settings=nojit)[0])
            ts["one_warn"].append(timed(q_one, settings="SET jit = off;")[0])
        med = {k: statistics.median(v) for k, v in ts.items()}
        L.append("| %s | %d | %d x %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.3f | %.3f | %.2f | %.2f |"
                 % (title, len(rows), nset, folds, med["search"], med["search_train"], med["scan"],
                    med["lateral"], med["group"],
                    med["scans"], med["one"], med["one_warn"], med["scan"] / med["scans"],
                    med["scan"] / (nset * folds * med["one"])))
        log("  %-22s search %.2fs, one scan %.2fs, an aggregate a model %.2fs, one GROUP BY %.2fs, %d scans %.2fs, "
            "one model %.3fs (%.3fs with warnings)"
            % (title, med["search"], med["scan"], med["lateral"], med["group"], nset * folds, med["scans"], med["one"],
               med["one_warn"]))
        log("    runs: %s" % json.dumps(ts))
    psql("DROP TABLE IF EXISTS bench.s_rows")
    L.append("")
    write_doc("performance-search.md", L)



# ---- support vectors stored as float4 ("sv_precision"): the bytes and the
# time of a kernel row (doc/performance-float4.md) ----

# (title, training file, test file or None for the seeded split, dimension,
# training rows of a split, the setting): budgets large enough that the
# support vectors hold megabytes
F4_SETS = [
    ("usps, Pegasos B = 1000 (10 classes, shared SVs)", "usps.train", "usps.test", 256, None,
     {"algorithm": "pegasos", "budget": 1000, "gamma": 0.0078125, "lambda": 1.4e-4}),
    ("usps, BPA-NN B = 450 (10 one-vs-rest machines)", "usps.train", "usps.test", 256, None,
     {"algorithm": "bpa", "budget": 450, "gamma": 0.0078125, "C": 1}),
    ("a9a, BPA-NN B = 1000", "a9a.train", "a9a.test", 123, None,
     {"algorithm": "bpa", "budget": 1000, "gamma": 0.0625, "C": 0.1}),
    ("covtype20k (binary), BPA-NN B = 1000, standardised", "covtype20k.binary", None, 54, 15000,
     {"algorithm": "bpa", "budget": 1000, "scale": "standard", "gamma": 0.0296, "C": 0.249}),
]


def precision_mode(args):
    """The same models with "sv_precision" "float8" and "float4": stored
    bytes, training and scoring time, test accuracy (doc/performance-float4.md)."""
    mi = machine_info()
    d = os.path.abspath(args.data_dir)
    reps = 1 if args.quick else 5
    L = ["# Support vectors stored as float4\n",
         "Generated by the benchmark harness - do not edit by hand. Command:\n",
         "```sh\n%s\n```\n" % args.command, machine_md(mi) + "\n",
         "Each setting trained twice on the same rows in the same order, with `\"sv_precision\": "
         "\"float8\"` (the default) and `\"float4\"`; **train s**: `bk_train` over the training "
         "rows; **score s**: `bk_predict` of the stored model over the test rows, three times over; "
         "wall-clock seconds from psql's `\\timing`, the median of %d runs, the two precisions "
         "interleaved. **bytes**: the stored model's `octet_length`. A float4 model rounds each "
         "row it learns to float4, so its accuracy may differ from the float8 model's in the last "
         "digits; its kernel rows read the support vectors as float4 (half the bytes) and sum them "
         "in the same fixed order as the float8 ones ([parameters.md](parameters.md#support-vectors-as-float4)).\n" % reps,
         "| setting | train / test rows | bytes float8 | bytes float4 | train s float8 | train s float4 "
         "| score s float8 | score s float4 | accuracy float8 | accuracy float4 |",
         "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for title, trf, tef, dim, ntrain, setting in F4_SETS:
        rows = read_libsvm(os.path.join(d, trf), dim)
        if tef:
            test = read_libsvm(os.path.join(d, tef), dim)
        else:
            order = [i - 1 for i in split_order(len(rows))]
            test = [rows[i] for i in sorted(order[ntrain:])]
            rows = [rows[i] for i in sorted(order[:ntrain])]
        copy_rows("f4_train", rows)
        copy_rows("f4_test", test)
        psql("CREATE TABLE IF NOT EXISTS bench.f4_models (precision text, model bk_model); "
             "TRUNCATE bench.f4_models; ANALYZE bench.f4_train, bench.f4_test")
        ts = {p_: {"train": [], "score": []} for p_ in ("float8", "float4")}
        for r in range(reps):
            for prec in ("float8", "float4"):
                pj = json.dumps(dict(setting, sv_precision=prec, seed=1))
                t_, _ = timed("INSERT INTO bench.f4_models SELECT '%s', bk_train(features, label, '%s' "
                              "ORDER BY id) FROM bench.f4_train" % (prec, pj))
                ts[prec]["train"].append(t_)
                t_, _ = timed("SELECT count(bk_predict(m.model, t.features)) FROM "
                              "(SELECT model FROM bench.f4_models WHERE precision = '%s' LIMIT 1) m, "
                              "bench.f4_test t, generate_series(1, 3)" % prec)
                ts[prec]["score"].append(t_)
        res = {}
        for prec in ("float8", "float4"):
            out = psql_file("SELECT octet_length(m.model::bytea), avg((bk_predict(m.model, t.features) = t.label)::int) "
                            "FROM (SELECT model FROM bench.f4_models WHERE precision = '%s' LIMIT 1) m, "
                            "bench.f4_test t GROUP BY 1;" % prec).strip().split("|")
            res[prec] = (int(out[0]), float(out[1]))
        med = {p_: {k: statistics.median(v) for k, v in ts[p_].items()} for p_ in ts}
        L.append("| %s | %d / %d | %d | %d | %.2f | %.2f | %.2f | %.2f | %.2f %% | %.2f %% |"
                 % (title, len(rows), len(test), res["float8"][0], res["float4"][0],
                    med["float8"]["train"], med["float4"]["train"], med["float8"]["score"],
                    med["float4"]["score"], 100 * res["float8"][1], 100 * res["float4"][1]))
        log("  %-50s bytes %d / %d, train %.2f / %.2f s, score %.2f / %.2f s"
            % (title, res["float8"][0], res["float4"][0], med["float8"]["train"], med["float4"]["train"],
               med["float8"]["score"], med["float4"]["score"]))
    psql("DROP TABLE IF EXISTS bench.f4_train, bench.f4_test, bench.f4_models")
    L.append("")
    write_doc("performance-float4.md", L)


# ---- novelty detection: scikit-learn's OneClassSVM and IsolationForest
# beside bk_train with "task": "novelty" (doc/comparison-novelty.md) ----

# (title, training file, test file or None for a seeded split, dimension,
# the normal class, training rows of a split): a detector learns the
# normal class's training rows and scores every test row, the other
# classes being the novel ones
NOV_SETS = [
    ("usps, digit 0 normal", "usps.train", "usps.test", 256, 0, None),
    ("covtype20k, class 2 normal", "covtype20k", None, 54, 2, 15000),
    ("banana, class -1 normal", "banana", None, 2, -1, 4000),
]
NOV_NU = 0.1
NOV_BUDGETS = (100, 500)
NOV_AUC_GAP = 0.02


def novelty_mode(args):
    """scikit-learn's OneClassSVM (nu 0.1, gamma 'scale') and
    IsolationForest beside bk_train with "task": "novelty" (the one-class SVM on
    a budget, one pass, the same nu and gamma), on the same rows: the AUC
    of each score against the classes the detector never saw, the fit's
    seconds, the share of normal test rows flagged.  Needs python3-sklearn."""
    import numpy as np
    from sklearn.ensemble import IsolationForest
    from sklearn.metrics import roc_auc_score
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import OneClassSVM
    import sklearn

    mi = machine_info()
    load_start = os.getloadavg()
    started = time.time()
    d = os.path.abspath(args.data_dir)
    results = []
    for title, trf, tef, dim, normal, ntrain in NOV_SETS:
        Xtr, ytr, Xte, yte = load_split(d, trf, tef, dim, ntrain)
        N = Xtr[ytr == normal]
        novel = (yte != normal).astype(int)
        res = {"title": title, "normal_rows": int(N.shape[0]), "test_rows": int(Xte.shape[0]),
               "novel_rows": int(novel.sum()), "dim": dim, "models": []}
        sc = StandardScaler().fit(N)
        Ns, Xts = sc.transform(N), sc.transform(Xte)
        # scikit-learn's gamma 'scale', 1 / (d var(X)) on the standardised rows
        gamma = float("%.4g" % (1.0 / (dim * Ns.var())))
        res["gamma"] = gamma

        def sk(key, est):
            t0 = time.perf_counter()
            est.fit(Ns)
            tf = time.perf_counter() - t0
            s = -est.decision_function(Xts)
            m = {"key": key, "auc": float(roc_auc_score(novel, s)), "fit_s": tf,
                 "flag_normal": float(np.mean(est.predict(Xts)[novel == 0] == -1)),
                 "n_sv": int(len(est.support_)) if hasattr(est, "support_") else None}
            res["models"].append(m)
            log("  %-26s %-30s AUC %.4f  fit %6.2fs  flags %.3f of normal test rows"
                % (title, key, m["auc"], tf, m["flag_normal"]))

        sk("One-class SVM (scikit-learn)", OneClassSVM(nu=NOV_NU, gamma=gamma))
        sk("IsolationForest (scikit-learn)", IsolationForest(random_state=0))
        # the same rows in the database: the normal training rows, and every
        # test row with whether it is novel; the model standardises its rows
        copy_rows("n_train", [(int(normal), ["%.17g" % v for v in N[i]]) for i in range(N.shape[0])])
        copy_rows("n_test", [(int(novel[i]), ["%.17g" % v for v in Xte[i]]) for i in range(Xte.shape[0])])
        for b in NOV_BUDGETS:
            p = {"task": "novelty", "budget": b, "nu": NOV_NU, "gamma": gamma, "scale": "standard"}
            t_fit, _ = timed("DROP TABLE IF EXISTS bench.n_model; CREATE TABLE bench.n_model AS "
                             "SELECT bk_train(features, NULL, '%s' ORDER BY bk_shuffle_key(id, 7)) AS model "
                             "FROM bench.n_train" % json.dumps(p))
            r = json.loads(psql(
                "SELECT json_build_object('auc', (bk_metrics(t.label, (bk_novelty(m.model, t.features) > 0)::int::int8, "
                "bk_novelty(m.model, t.features))->>'roc_auc')::float8, "
                "'flag_normal', avg((bk_novelty(m.model, t.features) > 0)::int) FILTER (WHERE t.label = 0), "
                "'n_sv', (bk_info(m.model)->>'n_sv')::int) "
                "FROM bench.n_test t, bench.n_model m GROUP BY m.model").strip())
            m = {"key": "budgetkernel, B = %d" % b, "auc": r["auc"], "fit_s": t_fit,
                 "flag_normal": r["flag_normal"], "n_sv": r["n_sv"], "budget": b}
            res["models"].append(m)
            log("  %-26s %-30s AUC %.4f  fit %6.2fs  flags %.3f of normal test rows"
                % (title, m["key"], m["auc"], t_fit, m["flag_normal"]))
        psql("DROP TABLE IF EXISTS bench.n_train, bench.n_test, bench.n_model")
        results.append(res)

    la, le = load_start, os.getloadavg()
    L = ["# budgetkernel's novelty detection against scikit-learn's OneClassSVM\n",
         "Generated by the benchmark harness - do not edit by hand. Command:\n",
         "```sh\n%s\n```\n" % args.command, machine_md(mi) + "\n",
         "Load average at the start of the run %.2f, %.2f, %.2f, at its end %.2f, %.2f, %.2f; "
         "the run took %.0f s. scikit-learn %s.\n"
         % (la[0], la[1], la[2], le[0], le[1], le[2], time.time() - started, sklearn.__version__),
         "Each detector learns the training rows of one class (the normal rows) and scores every "
         "test row; the other classes are the novel rows it never saw, and **AUC** is the area under "
         "the ROC curve of its score against them. **One-class SVM**: scikit-learn's `OneClassSVM("
         "nu=%g, gamma=G)`, G = its `gamma='scale'` on the standardised normal rows, after "
         "`StandardScaler` fitted on them. **IsolationForest**: its defaults (`random_state=0`) on "
         "the same rows. **budgetkernel**: `bk_train(features, NULL, '{\"task\": \"novelty\", \"budget\": B, \"nu\": %g, "
         "\"gamma\": G, \"scale\": \"standard\"}' ORDER BY bk_shuffle_key(id, 7))`: the one-class "
         "SVM on a budget (Pegasos' steps, merging), one pass over the rows, the features "
         "standardised by the model; its AUC is `bk_metrics`' `roc_auc` of `bk_novelty`. **flags "
         "normal** is the share of the normal test rows each flags (a one-class SVM's nu bounds it "
         "from above on the training rows). Fit seconds: scikit-learn's `fit`, ours one `bk_train` "
         "of the table's rows in a fresh session, one run each.\n" % (NOV_NU, NOV_NU)]
    L += ["## The target\n",
          "The issue asks for an AUC **within %.2f of scikit-learn's OneClassSVM on the same rows, in "
          "one scan with constant memory**.\n" % NOV_AUC_GAP]
    for res in results:
        oc = next(m for m in res["models"] if m["key"].startswith("One-class"))
        ours = [m for m in res["models"] if m.get("budget")]
        L.append("- **%s**: One-class SVM %.4f; budgetkernel %s: %s."
                 % (res["title"], oc["auc"],
                    ", ".join("%.4f at B = %d (%+.4f)" % (m["auc"], m["budget"], m["auc"] - oc["auc"]) for m in ours),
                    "met at every budget" if all(m["auc"] >= oc["auc"] - NOV_AUC_GAP for m in ours) else
                    ("met at B = %s" % ", ".join(str(m["budget"]) for m in ours if m["auc"] >= oc["auc"] - NOV_AUC_GAP)
                     if any(m["auc"] >= oc["auc"] - NOV_AUC_GAP for m in ours) else "not met")))
    L.append("")
    L.append("## Results\n")
    for res in results:
        L += ["### %s\n" % res["title"],
              "%d normal training rows, %d test rows of which %d novel, dimension %d, G = %g.\n"
              % (res["normal_rows"], res["test_rows"], res["novel_rows"], res["dim"], res["gamma"]),
              "| detector | AUC | fit s | flags normal | support vectors |",
              "| --- | ---: | ---: | ---: | ---: |"]
        for m in res["models"]:
            L.append("| %s | %.4f | %.2f | %.3f | %s |"
                     % (m["key"], m["auc"], m["fit_s"], m["flag_normal"],
                        m["n_sv"] if m["n_sv"] is not None else "-"))
        L.append("")
    L += ["## Notes\n",
          "- Where a peer is the better choice: IsolationForest needs no kernel width and no "
          "scaling; a one-class SVM of every normal row is exact where the rows fit in memory "
          "(scikit-learn's fits here take a second or less). budgetkernel's detector is for rows "
          "that stay in the database: one scan, at most B support vectors, continued on new rows, "
          "merged across partitions and scored by an immutable function.",
          "- One run: the fit times on this 2-core machine vary by 10-20 % between runs; the sub-second ones are "
          "dominated by each side's fixed costs."]
    write_doc("comparison-novelty.md", L)
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["table", "tune", "perf", "scaleout", "features", "curves", "svc", "classes",
                                     "regression", "novelty", "weights", "targets", "search", "precision", "drift",
                                     "core", "workers", "smoke", "report"])
    ap.add_argument("--paper", default="000")
    ap.add_argument("--perms", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=max(1, min(2, os.cpu_count() or 1)))
    ap.add_argument("--data-dir", default=os.environ.get("BK_DATA_DIR", os.path.join(ROOT, "..", "shared", "data")))
    ap.add_argument("--datasets", nargs="*")
    ap.add_argument("--algs", nargs="*")
    ap.add_argument("--tune-perms", type=int, default=3,
                    help="permutations per grid point in --tune (mean validation accuracy)")
    ap.add_argument("--limit", type=int, default=None, help="use the first N training rows only")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--perf-out", default=None)
    ap.add_argument("--command", default="bash test/bench/run.sh")
    args = ap.parse_args()
    args.smoke = args.mode == "smoke"
    if args.mode == "report":
        report_mode(args.paper, args)
        return 0
    ensure_db()
    # the scratch files' directory (ignored by git): absent from a fresh clone
    os.makedirs(OUT, exist_ok=True)
    if args.mode == "table":
        if args.quick:
            args.perms = min(args.perms, 2)
        table_mode(args.paper, args, datasets_only=args.datasets, algs=args.algs)
    elif args.mode == "tune":
        tune_mode(args.paper, args)
    elif args.mode == "perf":
        perf_mode(args)
    elif args.mode == "scaleout":
        scaleout_mode(args)
    elif args.mode == "features":
        features_mode(args)
    elif args.mode == "curves":
        curves_mode(args)
    elif args.mode == "svc":
        svc_mode(args)
    elif args.mode == "classes":
        classes_mode(args)
    elif args.mode == "regression":
        regression_mode(args)
    elif args.mode == "novelty":
        novelty_mode(args)
    elif args.mode == "weights":
        weights_mode(args)
    elif args.mode == "targets":
        targets_mode(args)
    elif args.mode == "search":
        search_mode(args)
    elif args.mode == "precision":
        precision_mode(args)
    elif args.mode == "drift":
        import drift_bench
        drift_bench.drift_mode(sys.modules[__name__], args)
    elif args.mode == "core":
        import core_bench
        core_bench.core_mode(sys.modules[__name__], args)
    elif args.mode == "workers":
        import workers_bench
        workers_bench.workers_mode(sys.modules[__name__], args)
    else:
        return smoke_mode(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
