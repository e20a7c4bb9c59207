#!/usr/bin/env bash
#
# test/check.sh - build budgetkernel and run every test suite
#
#   bash test/check.sh
#
# On a fresh Debian 12 machine, as root, it does everything: installs the
# missing packages, builds and installs the extension and pgvector (from
# Debian's source package, for test/pgtap/embeddings.sql), runs the core unit
# tests (make unittest), starts a private throwaway PostgreSQL 15 cluster,
# runs the regression tests (make installcheck), starts two more clusters
# as shards and runs the distributed recipes against them (make
# shardcheck: postgres_fdw and PL/Proxy), doc/tutorial.md's SQL and the
# links between the docs' pages (make tutorialcheck), the pgTAP tests (make prove),
# a smoke test of the benchmark harness on the same cluster
# (bash test/bench/run.sh --smoke), stops and deletes the cluster, and
# then, for each further PostgreSQL major in BK_PG_MAJORS (default 18),
# built once from Debian's source package into /var/cache/budgetkernel
# (test/pg_major.sh; about 5 minutes on 2 cores the first time, cached
# after), builds the extension against that major in a copy of the tree,
# runs the suites of BK_MAJOR_SUITES on a cluster of it (default "regress
# pgtap"; each reported as e.g. regress-18) and test/pg_upgrade.sh from
# the first major to it (pg_upgrade and dumps restored: upgrade-18), and
# prints a summary ending with "N passed, N failed" (N counts suites:
# unit, regress, shards, tutorial, pgtap, bench, regress-18, pgtap-18,
# upgrade-18).  Exit status 0 only when every suite passed.  .ci/run runs
# this file.
#
#   bash test/check.sh --matrix
#
# runs the full matrix: BK_PG_MAJORS="17 18" and BK_MAJOR_SUITES="regress
# shards tutorial pgtap" (PL/Proxy, for the shards suite, is built from
# Debian's source package too).  BK_PG_MAJORS="" runs PostgreSQL 15 only.
#
# Environment (optional): PG_CONFIG, PG_CFLAGS (extra compiler flags, read
# by PGXS), BK_SUITE_TIMEOUT (seconds per suite, default 600),
# BK_KEEP_CLUSTER=1 (keep the cluster directory for debugging),
# BK_PG_MAJORS, BK_MAJOR_SUITES (above), BK_PG_CACHE (test/pg_major.sh).

set -uo pipefail

# shellcheck source=test/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" || exit 1

MATRIX=0
for arg in "$@"; do
	case "$arg" in
	--matrix) MATRIX=1 ;;
	*) bk_err "unknown argument: $arg (usage: bash test/check.sh [--matrix])"; exit 2 ;;
	esac
done
if [[ $MATRIX -eq 1 ]]; then
	BK_PG_MAJORS="${BK_PG_MAJORS-17 18}"
	BK_MAJOR_SUITES="${BK_MAJOR_SUITES-regress shards tutorial pgtap}"
fi
BK_PG_MAJORS="${BK_PG_MAJORS-18}"
BK_MAJOR_SUITES="${BK_MAJOR_SUITES-regress pgtap}"

SUITES=(unit regress shards tutorial pgtap bench)
for major in $BK_PG_MAJORS; do
	for s in $BK_MAJOR_SUITES upgrade; do
		SUITES+=("$s-$major")
	done
done
declare -A RESULT=()		# suite -> PASS | FAIL
declare -A NOTE=()			# suite -> explanation
SUITE_TIMEOUT="${BK_SUITE_TIMEOUT:-600}"
START_TIME=$SECONDS

record()
{
	RESULT[$1]=$2
	NOTE[$1]="${3:-}"
}

# Mark every suite without a result as failed (not run) for reason $1.
not_run()
{
	local s
	for s in "${SUITES[@]}"; do
		[[ -n "${RESULT[$s]:-}" ]] || record "$s" FAIL "not run: $1"
	done
}

summary()
{
	local s passed=0 failed=0 line

	stop_cluster
	section "Summary"
	for s in "${SUITES[@]}"; do
		line=$(printf '%-8s %s' "$s" "${RESULT[$s]:-FAIL}")
		[[ -n "${NOTE[$s]:-}" ]] && line+="  (${NOTE[$s]})"
		printf '%s\n' "$line"
		if [[ "${RESULT[$s]:-FAIL}" == PASS ]]; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
		fi
	done
	printf 'total time %ds\n' $((SECONDS - START_TIME))
	printf '%d passed, %d failed\n' "$passed" "$failed"
	[[ $failed -eq 0 ]]
}

finish()
{
	summary
	exit $?
}

# Run a suite command with a time limit; sets SUITE_RC and SUITE_SECS.
run_limited()
{
	local t0=$SECONDS
	if command -v timeout >/dev/null 2>&1; then
		timeout --kill-after=30 "$SUITE_TIMEOUT" "$@" </dev/null
	else
		"$@" </dev/null
	fi
	SUITE_RC=$?
	SUITE_SECS=$((SECONDS - t0))
}

# PASS/FAIL for a finished suite from SUITE_RC.
record_run()
{
	local suite=$1
	if [[ $SUITE_RC -eq 0 ]]; then
		record "$suite" PASS "${SUITE_SECS}s"
	elif [[ $SUITE_RC -eq 124 || $SUITE_RC -eq 137 ]]; then
		record "$suite" FAIL "timed out after ${SUITE_TIMEOUT}s"
	else
		record "$suite" FAIL "exit status $SUITE_RC, ${SUITE_SECS}s"
	fi
	printf -- '-- %s: %s\n' "$suite" "${RESULT[$suite]}"
}

count_files()
{
	local pattern=$1 files
	shopt -s nullglob
	# shellcheck disable=SC2206	# the glob is meant to expand here
	files=($pattern)
	shopt -u nullglob
	printf '%d\n' "${#files[@]}"
}

section "budgetkernel test run"
printf 'repository  %s\n' "$BK_ROOT"
printf 'user        %s\n' "$(id -un)"
printf 'pg_config   %s\n' "$PG_CONFIG"
printf 'started     %s\n' "$(date -u '+%Y-%m-%d %H:%M:%S UTC')"

section "1/8 Packages"
BK_PACKAGES+=(python3)		# the benchmark harness (bench suite)
if ! ensure_packages; then
	not_run "missing packages"
	finish
fi

section "2/8 Build (make)"
if ! build; then
	bk_err "the build failed"
	not_run "build failed"
	finish
fi

section "3/8 Unit tests, fuzz run and layers (make unittest fuzzcheck layercheck)"
if [[ "$(count_files 'test/unit/*.c')" -eq 0 ]]; then
	bk_log "No unit tests found (test/unit/*.c)."
	record unit FAIL "no tests in test/unit"
else
	run_limited make PG_CONFIG="$PG_CONFIG" unittest fuzzcheck layercheck
	record_run unit
fi

section "4/8 Install (make install)"
if ! install_extension; then
	bk_err "make install failed"
	not_run "make install failed"
	finish
fi

# pgvector, for test/pgtap/embeddings.sql (Debian 12 packages none):
# built from Debian's source package and installed once
PGVECTOR_FAILED=""
bash test/pg_major.sh pgvector "$PG_CONFIG" || PGVECTOR_FAILED="the pgvector build failed"

section "5/8 Throwaway PostgreSQL cluster"
# 3 GB of address space a process: no test needs more, and a model that
# made a backend allocate beyond its stored size fails the tests of the
# resource limits (test/sql/limits.sql) instead of swapping the machine.
if ! BK_CLUSTER_VMEM_KB="${BK_CLUSTER_VMEM_KB:-3145728}" start_cluster; then
	not_run "the PostgreSQL cluster did not start"
	finish
fi

section "6/8 Regression tests (make installcheck)"
n=$(count_files 'test/sql/*.sql')
if [[ $n -eq 0 ]]; then
	bk_log "No regression tests found (test/sql/*.sql)."
	record regress FAIL "no tests in test/sql"
else
	bk_log "$n test files in test/sql"
	rm -f regression.diffs regression.out
	run_limited make PG_CONFIG="$PG_CONFIG" installcheck
	record_run regress
	if [[ $SUITE_RC -ne 0 ]]; then
		if [[ -s regression.diffs ]]; then
			section "regression.diffs (first 2000 lines)"
			head -n 2000 regression.diffs
			bk_log "(full file: $BK_ROOT/regression.diffs)"
		else
			bk_log "No regression.diffs was written."
		fi
	fi
fi

section "6b/8 Distributed recipes on two shard clusters (make shardcheck)"
if start_shards 2; then
	rm -f regression.diffs regression.out
	run_limited make PG_CONFIG="$PG_CONFIG" shardcheck
	record_run shards
	if [[ $SUITE_RC -ne 0 && -s regression.diffs ]]; then
		section "regression.diffs of the shards (first 500 lines)"
		head -n 500 regression.diffs
	fi
else
	record shards FAIL "the shard clusters did not start"
fi

section "6c/8 The tutorial (make tutorialcheck)"
run_limited make PG_CONFIG="$PG_CONFIG" tutorialcheck
record_run tutorial

section "7/8 pgTAP tests (make prove)"
n=$(count_files 'test/pgtap/*.sql')
if [[ $n -eq 0 ]]; then
	bk_log "No pgTAP tests found (test/pgtap/*.sql)."
	record pgtap FAIL "no tests in test/pgtap"
else
	bk_log "$n test files in test/pgtap"
	run_limited make PG_CONFIG="$PG_CONFIG" prove
	record_run pgtap
	if [[ -n "$PGVECTOR_FAILED" ]]; then
		record pgtap FAIL "$PGVECTOR_FAILED: test/pgtap/embeddings.sql skipped"
	fi
fi

section "8/8 Benchmark harness smoke test (test/bench/run.sh --smoke)"
if [[ ! -f test/bench/run.sh ]]; then
	record bench FAIL "test/bench/run.sh not found"
else
	run_limited env BK_BENCH_USE_CLUSTER=1 bash test/bench/run.sh --smoke
	record_run bench
fi
stop_cluster

#
# The suites of BK_MAJOR_SUITES on PostgreSQL $1, built by test/pg_major.sh,
# with the extension built in a copy of the tree (this tree stays built for
# the first major), then test/pg_upgrade.sh from the first major to it.
#
FIRST_PG_CONFIG=$PG_CONFIG
major_not_run()
{
	local s
	for s in $BK_MAJOR_SUITES upgrade; do
		record "$s-$1" FAIL "not run: $2"
	done
}

run_major()
{
	local major=$1 pgc tree s n pgvector_failed errf why t0=$SECONDS

	section "PostgreSQL $major: server (bash test/pg_major.sh build $major)"
	bk_log "(a few minutes when it is not in the cache yet)"
	errf=$(mktemp) || return 1
	pgc=$(bash test/pg_major.sh build "$major" 2>"$errf" | tail -n 1)
	cat "$errf" >&2
	if [[ -z "$pgc" || ! -x "$pgc" ]]; then
		why=$(sed -n 's/^pg_major: ERROR: //p' "$errf" | tail -n 1)
		rm -f "$errf"
		bk_err "PostgreSQL $major could not be built${why:+: $why}"
		major_not_run "$major" "PostgreSQL $major could not be built${why:+: $why}"
		return 1
	fi
	rm -f "$errf"
	bk_log "PostgreSQL $major ready in $((SECONDS - t0))s: $pgc"

	section "PostgreSQL $major: build and install the extension (in a copy of the tree)"
	# the copy sits next to a link to ../shared, where the tests read data
	tree="$(mktemp -d /tmp/bkmajor.XXXXXX)" || return 1
	BK_MAJOR_TREES+=("$tree")
	[[ -e "$BK_ROOT/../shared" ]] && ln -s "$(cd "$BK_ROOT/../shared" && pwd)" "$tree/shared"
	mkdir "$tree/budgetkernel"
	tar -C "$BK_ROOT" --exclude=./.git --exclude=./results --exclude=./regression.diffs \
		--exclude=./regression.out -cf - . | tar -C "$tree/budgetkernel" -xf - || return 1
	tree="$tree/budgetkernel"
	(
		cd "$tree" || exit 1
		make -s clean PG_CONFIG="$pgc" >/dev/null || exit 1
		make -j"$(bk_jobs)" PG_CONFIG="$pgc" >build.log 2>&1 || { tail -n 40 build.log; exit 1; }
		grep -E -A3 'warning:' build.log
		make -s install PG_CONFIG="$pgc" >/dev/null
	)
	if [[ $? -ne 0 ]]; then
		bk_err "the extension did not build or install against PostgreSQL $major"
		major_not_run "$major" "the extension did not build against PostgreSQL $major"
		return 1
	fi
	n=$(grep -c 'warning:' "$tree/build.log")
	bk_log "built and installed against $("$pgc" --version): $n compiler warnings"
	# (pgvector 0.8.0, the newest the mirror serves, predates 18:
	# test/pg_major.sh rewrites its two lines that do not compile there;
	# should the build fail, test/pgtap/embeddings.sql skips, noted in the
	# summary)
	pgvector_failed=""
	bash test/pg_major.sh pgvector "$pgc" ||
		pgvector_failed="embeddings.sql skipped: pgvector did not build for $major"

	PG_CONFIG=$pgc
	section "PostgreSQL $major: throwaway cluster"
	if ! BK_CLUSTER_VMEM_KB="${BK_CLUSTER_VMEM_KB:-3145728}" start_cluster; then
		stop_cluster
		PG_CONFIG=$FIRST_PG_CONFIG
		for s in $BK_MAJOR_SUITES; do
			record "$s-$major" FAIL "the PostgreSQL $major cluster did not start"
		done
	else
		for s in $BK_MAJOR_SUITES; do
			section "PostgreSQL $major: $s"
			case "$s" in
			regress)
				rm -f "$tree/regression.diffs"
				run_limited make -C "$tree" PG_CONFIG="$pgc" installcheck
				record_run "$s-$major"
				if [[ $SUITE_RC -ne 0 && -s "$tree/regression.diffs" ]]; then
					section "regression.diffs on PostgreSQL $major (first 2000 lines)"
					head -n 2000 "$tree/regression.diffs"
				fi
				;;
			shards)
				bash test/pg_major.sh plproxy "$pgc" || bk_err "PL/Proxy did not build for PostgreSQL $major"
				if start_shards 2; then
					rm -f "$tree/regression.diffs"
					run_limited make -C "$tree" PG_CONFIG="$pgc" shardcheck
					record_run "$s-$major"
					if [[ $SUITE_RC -ne 0 && -s "$tree/regression.diffs" ]]; then
						head -n 500 "$tree/regression.diffs"
					fi
				else
					record "$s-$major" FAIL "the shard clusters did not start"
				fi
				;;
			tutorial)
				run_limited make -C "$tree" PG_CONFIG="$pgc" tutorialcheck
				record_run "$s-$major"
				;;
			pgtap)
				run_limited make -C "$tree" PG_CONFIG="$pgc" prove
				record_run "$s-$major"
				if [[ -n "$pgvector_failed" ]]; then
					NOTE[$s-$major]="${NOTE[$s-$major]}; $pgvector_failed"
				fi
				;;
			*)
				record "$s-$major" FAIL "no such suite (BK_MAJOR_SUITES: regress shards tutorial pgtap)"
				;;
			esac
		done
		stop_cluster
		PG_CONFIG=$FIRST_PG_CONFIG
	fi

	section "PostgreSQL $major: pg_upgrade and dumps from $("$FIRST_PG_CONFIG" --version)"
	run_limited bash test/pg_upgrade.sh "$FIRST_PG_CONFIG" "$pgc"
	record_run "upgrade-$major"
}

BK_MAJOR_TREES=()
bk_major_cleanup()
{
	local t
	for t in "${BK_MAJOR_TREES[@]}"; do
		[[ "${BK_KEEP_CLUSTER:-0}" == 1 ]] || rm -rf -- "$t"
	done
}
for major in $BK_PG_MAJORS; do
	run_major "$major"
	PG_CONFIG=$FIRST_PG_CONFIG
done
bk_major_cleanup

finish
