#!/usr/bin/env bash
#
# test/bench/progress_overhead.sh - what bk_training_progress costs the
# training loop (a benchmark: nothing is asserted)
#
#   bash test/bench/progress_overhead.sh [BASE [ROWS [RUNS]]]
#
# The same long bk_train, timed with two libraries in one throwaway
# PostgreSQL cluster (test/lib.sh) with budgetkernel preloaded: this
# tree's, which reports to the view, and that of commit BASE (default
# bb43db4, the last commit before bk_training_progress), which does not.
# Both are built with the same flags; the extension's SQL objects are this
# tree's (the training aggregates' C symbols are the same in both).  The
# runs alternate between the libraries (the installed budgetkernel.so is
# swapped and the cluster restarted before each run), so that load from
# other work on the machine falls on both alike.  The workload is the
# cheapest per row there is, so that a fixed cost per row shows most:
# ROWS rows (default 10,000,000) of 2 features from a table, the Stoptron
# with budget 20 (after its 20 support vectors, a row costs a score).
# The training runs serially (no parallel workers), as under ORDER BY.
# Each run is timed by the CPU time of its backend (user and system, from
# /proc/self/stat, read by the backend itself before and after the
# training: other work on the machine slows the wall clock, much less
# this), which the wall-clock time follows.  Prints each run's seconds and
# the median of each library, and the difference as a share of the base's
# median.
#
# As root, like test/check.sh: it installs into PG_CONFIG's PostgreSQL
# (default 15), and leaves this tree's build installed at the end.

set -uo pipefail

# shellcheck source=test/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh" || exit 1

BASE=${1:-bb43db4}
ROWS=${2:-10000000}
RUNS=${3:-7}
WORK=$(mktemp -d /tmp/bkoverhead.XXXXXX) || exit 1
trap 'rm -rf -- "$WORK"; stop_cluster' EXIT

section "Build: this tree, and $BASE"
build >/dev/null || { bk_err "the build failed"; exit 1; }
install_extension >/dev/null || { bk_err "make install failed"; exit 1; }
LIBDIR=$("$PG_CONFIG" --pkglibdir)
cp budgetkernel.so "$WORK/new.so"
git archive "$BASE" | tar -x -C "$WORK" --one-top-level=base ||
	{ bk_err "cannot read commit $BASE"; exit 1; }
make -C "$WORK/base" -s -j"$(bk_jobs)" PG_CONFIG="$PG_CONFIG" budgetkernel.so >/dev/null ||
	{ bk_err "the build of $BASE failed"; exit 1; }
cp "$WORK/base/budgetkernel.so" "$WORK/base.so"

section "Cluster"
BK_CLUSTER_PRELOAD=budgetkernel start_cluster || exit 1
trap 'stop_cluster; cp "$WORK/new.so" "$LIBDIR/budgetkernel.so" 2>/dev/null; rm -rf -- "$WORK"' EXIT
BIN=$(bk_pgbin)
q()
{
	"$BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -d postgres "$@"
}
q -c 'CREATE EXTENSION budgetkernel' \
	-c "CREATE TABLE rows AS SELECT ARRAY[sin(i), cos(i * 1.7)] AS x, (i % 2)::int8 AS y
	    FROM generate_series(1, $ROWS) AS i" -c 'VACUUM ANALYZE rows' -c 'CHECKPOINT' >/dev/null ||
	exit 1

# run LIB: one timed training with library LIB (base or new); prints the
# backend's CPU seconds and the wall-clock seconds
run()
{
	local cpu="(pg_catalog.split_part(pg_catalog.pg_read_file('/proc/self/stat'), ' ', 14)::int8
	            + pg_catalog.split_part(pg_catalog.pg_read_file('/proc/self/stat'), ' ', 15)::int8)"
	cp "$WORK/$1.so" "$LIBDIR/budgetkernel.so"
	bk_as_owner "$BIN/pg_ctl" -D "$BK_CLUSTER_DIR/data" -m fast -w -t 600 restart \
		-o "-p $PGPORT -k '$BK_CLUSTER_DIR'" -l "$BK_CLUSTER_DIR/server.log" >/dev/null || exit 1
	# the table in shared buffers, the library loaded, before the clock starts
	q <<EOF 2>&1 | tail -n 1
SET budgetkernel.run_warnings = off;
SET max_parallel_workers_per_gather = 0;
SELECT count(*) FROM rows;
SELECT $cpu AS c0, pg_catalog.clock_timestamp() AS w0 \\gset
SELECT bk_info(bk_train(x, y, '{"algorithm": "stoptron", "budget": 20}'))->>'rows_seen' FROM rows;
SELECT ($cpu - :c0) / $(getconf CLK_TCK).0, extract(epoch FROM pg_catalog.clock_timestamp() - :'w0');
EOF
}

median()
{
	sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

section "$RUNS runs of each, alternating: bk_train over $ROWS rows (Stoptron, budget 20)"
: >"$WORK/base.t"
: >"$WORK/new.t"
for ((i = 1; i <= RUNS; i++)); do
	for lib in base new; do
		out=$(run "$lib")
		[[ "$out" =~ ^[0-9.]+\|[0-9.]+$ ]] || { bk_err "run $i of $lib failed: $out"; exit 1; }
		IFS='|' read -r c w <<<"$out"
		printf '%-4s run %d: %.2f s CPU, %.3f s wall\n' "$lib" "$i" "$c" "$w"
		printf '%s\n' "$c" >>"$WORK/$lib.t"
		printf '%s\n' "$w" >>"$WORK/$lib.w"
	done
done
for t in t w; do
	mb=$(median <"$WORK/base.$t")
	mn=$(median <"$WORK/new.$t")
	printf 'median %s: %s %.3f s, this tree %.3f s: %+.2f %%\n' \
		"$([[ $t == t ]] && echo "CPU time " || echo "wall time")" "$BASE" "$mb" "$mn" \
		"$(echo "100 * ($mn - $mb) / $mb" | bc -l)"
done
