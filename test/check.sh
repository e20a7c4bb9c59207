#!/usr/bin/env bash
#
# test/check.sh - build budgetkernel and run every test suite
#
#   bash test/check.sh
#
# On a fresh Debian 12 machine, as root, it does everything: installs the
# missing packages, builds and installs the extension and pgvector (from
# Debian's source package, for test/pgtap/embeddings.sql), runs the core unit
# tests (make unittest) and their fingerprints cross-built for big-endian
# s390x and run under qemu (test/cross.sh s390x), starts a private
# throwaway PostgreSQL 15 cluster,
# runs the regression tests (make installcheck), starts two more clusters
# as shards and runs the distributed recipes against them (make
# shardcheck: postgres_fdw and PL/Proxy), doc/tutorial.md's and README.md's
# SQL and the links between the docs' pages (make tutorialcheck), the
# pgTAP tests (make prove), a smoke test of the benchmark harness on the
# same cluster (bash test/bench/run.sh --smoke), the exports of every kind
# of model checked by ONNX Runtime, onnx's checker and LIBSVM's tools
# (test/export_check.sh), and stops and deletes the cluster; then
# bk_training_progress watched from another session on a cluster of its
# own with budgetkernel preloaded, and without (test/progress.sh).  It
# dumps a PostgreSQL 15 database holding models of every kind
# (test/pg_upgrade.sh dump).
#
# Then, for each Debian suite of BK_DEBIAN_SUITES (default "trixie sid"),
# in a root made once with debootstrap and kept in
# /var/cache/budgetkernel/roots (test/debian_root.sh; a few minutes the
# first time), holding that suite's own PostgreSQL (trixie: 17, sid: 18)
# with its pgTAP, PL/Proxy and pgvector packages, it copies the tree into
# the root and runs this script there with --inside, which runs, on that
# major, built by the suite's own compiler:
#   package   test/package.sh: the source and binary packages, lintian,
#             the postgresql-NN-budgetkernel package installed;
#   regress   debian/tests/installcheck (autopkgtest form: the regression
#             tests against the installed package, pg_buildext
#             installcheck);
#   shards, tutorial, pgtap   as on 15, on a throwaway cluster;
#   cron      as on 15, with that suite's pg_cron (test/cron.sh);
#   upgrade   the 15 dump restored, every model checked; in the sid root
#             also pg_upgrade from trixie's 17 to 18 (test/pg_upgrade.sh);
#   progress  test/progress.sh, as on 15 (without preloading, the view
#             from the DSM registry);
#   citus     in the trixie root, when ../shared/vendor holds Citus's
#             source: Citus built once and a coordinator with two workers
#             (test/citus.sh).
# Each is reported as e.g. regress-17.  The summary ends with
# "N passed, N failed" (N counts suites); exit status 0 only when every
# suite passed.  .ci/run runs this file.
#
# Environment (optional): PG_CONFIG, PG_CFLAGS (extra compiler flags, read
# by PGXS), BK_SUITE_TIMEOUT (seconds of wall-clock time a suite may take
# before it is stopped, default 3600: a hang, not a slow machine),
# BK_KEEP_CLUSTER=1 (keep the cluster directory for debugging),
# BK_DEBIAN_SUITES (above; "" runs PostgreSQL 15 only), BK_ROOT_CACHE
# (test/debian_root.sh).

set -uo pipefail

# shellcheck source=test/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" || exit 1

USAGE="usage: bash test/check.sh [--inside 'SUITE ...']"
INSIDE=""
case "$#:${1:-}" in
0:) ;;
2:--inside) INSIDE=$2 ;;
*) bk_err "$USAGE"; exit 2 ;;
esac
BK_DEBIAN_SUITES="${BK_DEBIAN_SUITES-trixie sid}"
# the suites run in each Debian root (test/check.sh --inside)
ROOT_SUITES="package regress shards tutorial pgtap cron upgrade progress"
# Citus, a test dependency that Debian does not package, from its source
# when ../shared/vendor has it: test/citus.sh in the trixie root
CITUS_TARBALL=$(ls "$BK_ROOT"/../shared/vendor/citus-*.tar.gz 2>/dev/null | tail -n 1)

if [[ -n "$INSIDE" ]]; then
	read -r -a SUITES <<<"$INSIDE"
else
	SUITES=(unit cross regress shards tutorial pgtap bench export cron progress)
	for suite in $BK_DEBIAN_SUITES; do
		major=$(bash test/debian_root.sh major "$suite") || exit 2
		for s in $ROOT_SUITES; do
			SUITES+=("$s-$major")
		done
		[[ "$suite" != trixie || -z "$CITUS_TARBALL" ]] || SUITES+=("citus-$major")
	done
fi
declare -A RESULT=()		# suite -> PASS | FAIL
declare -A NOTE=()			# suite -> explanation
# a generous bound, for a suite that hangs: a healthy suite on a loaded
# machine takes minutes, not an hour
SUITE_TIMEOUT="${BK_SUITE_TIMEOUT:-3600}"
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
	section "Summary${INSIDE:+ (PostgreSQL $BK_PG_MAJOR, $(. /etc/os-release && echo "$PRETTY_NAME"))}"
	for s in "${SUITES[@]}"; do
		line=$(printf '%-11s %s' "$s" "${RESULT[$s]:-FAIL}")
		[[ -n "${NOTE[$s]:-}" ]] && line+="  (${NOTE[$s]})"
		printf '%s\n' "$line"
		# for the run outside the root, which reads them
		[[ -z "$INSIDE" ]] || printf '@@ %s %s %s\n' "$s" "${RESULT[$s]:-FAIL}" "${NOTE[$s]:-}"
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
		record "$suite" FAIL "stopped after ${SUITE_TIMEOUT}s of wall-clock time (BK_SUITE_TIMEOUT): it hung, or the machine is far slower than 2 idle cores"
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

# Show the first $2 lines of regression.diffs after suite $1 failed.
show_diffs()
{
	if [[ -s regression.diffs ]]; then
		section "regression.diffs of $1 (first $2 lines)"
		head -n "$2" regression.diffs
		bk_log "(full file: $BK_ROOT/regression.diffs)"
	else
		bk_log "No regression.diffs was written."
	fi
}

# The suites that run on a cluster of this tree's PostgreSQL (started by
# start_cluster): shards, tutorial, pgtap.
run_cluster_suites()
{
	local s
	for s in shards tutorial pgtap; do
		in_suites "$s" || continue
		case "$s" in
		shards)
			section "Distributed recipes on two shard clusters (make shardcheck)"
			if start_shards 2; then
				rm -f regression.diffs regression.out
				run_limited make PG_CONFIG="$PG_CONFIG" shardcheck
				record_run shards
				[[ $SUITE_RC -eq 0 ]] || show_diffs shards 500
			else
				record shards FAIL "the shard clusters did not start"
			fi
			;;
		tutorial)
			section "The tutorial and the README (make tutorialcheck)"
			run_limited make PG_CONFIG="$PG_CONFIG" tutorialcheck
			record_run tutorial
			;;
		pgtap)
			section "pgTAP tests (make prove)"
			bk_log "$(count_files 'test/pgtap/*.sql') test files in test/pgtap"
			run_limited make PG_CONFIG="$PG_CONFIG" prove
			record_run pgtap
			if [[ -n "${PGVECTOR_FAILED:-}" ]]; then
				record pgtap FAIL "$PGVECTOR_FAILED: test/pgtap/embeddings.sql skipped"
			fi
			;;
		esac
	done
}

# The loop of doc/live-models.md under pg_cron, on a cluster of its own
# (test/cron.sh starts it, with pg_cron preloaded).
run_cron_suite()
{
	in_suites cron || return 0
	section "The continue-or-retrain loop with pg_cron (bash test/cron.sh)"
	run_limited bash test/cron.sh
	record_run cron
}

in_suites()
{
	local s
	for s in "${SUITES[@]}"; do
		[[ "$s" == "$1" ]] && return 0
	done
	return 1
}

section "budgetkernel test run${INSIDE:+ inside $(. /etc/os-release && echo "$PRETTY_NAME")}"
printf 'repository  %s\n' "$BK_ROOT"
printf 'user        %s\n' "$(id -un)"
printf 'pg_config   %s (%s)\n' "$PG_CONFIG" "$("$PG_CONFIG" --version 2>/dev/null)"
printf 'compiler    %s\n' "$(gcc --version 2>/dev/null | head -n 1)"
printf 'started     %s\n' "$(date -u '+%Y-%m-%d %H:%M:%S UTC')"

section "Packages"
[[ -n "$INSIDE" ]] || BK_PACKAGES+=(python3)		# the benchmark harness (bench suite)
in_suites cron && BK_PACKAGES+=("postgresql-$BK_PG_MAJOR-cron")	# test/cron.sh
if ! ensure_packages; then
	not_run "missing packages"
	finish
fi

#
# Inside a Debian root (test/debian_root.sh): the package, then the suites
# against it.
#
if [[ -n "$INSIDE" ]]; then
	if in_suites package; then
		section "The Debian package (bash test/package.sh)"
		# a package of an earlier run would not be replaced by one of the
		# same version
		dpkg --purge "postgresql-$BK_PG_MAJOR-budgetkernel" >/dev/null 2>&1
		rm -rf /build/pkg
		run_limited env BK_PKG_OUT=/build/pkg bash test/package.sh
		record_run package
	fi
	if [[ "${RESULT[package]:-}" != PASS ]]; then
		section "Build and install (make install: the package is not there)"
		if ! build_and_install; then
			not_run "neither the package nor make install"
			finish
		fi
		make -s clean PG_CONFIG="$PG_CONFIG" >/dev/null
	fi
	if in_suites regress && [[ "${RESULT[package]:-}" == PASS ]]; then
		section "Regression tests against the installed package (debian/tests/installcheck)"
		run_limited debian/tests/installcheck
		record_run regress
	fi
	section "Throwaway PostgreSQL $BK_PG_MAJOR cluster"
	if BK_CLUSTER_VMEM_KB="${BK_CLUSTER_VMEM_KB:-3145728}" start_cluster; then
		if in_suites regress && [[ -z "${RESULT[regress]:-}" ]]; then
			section "Regression tests (make installcheck: the package is not there)"
			rm -f regression.diffs regression.out
			run_limited make PG_CONFIG="$PG_CONFIG" installcheck
			record_run regress
			NOTE[regress]="${NOTE[regress]}, make install: no package"
			[[ $SUITE_RC -eq 0 ]] || show_diffs regress 2000
		fi
		run_cluster_suites
	else
		not_run "the PostgreSQL cluster did not start"
	fi
	stop_cluster
	run_cron_suite
	if in_suites progress; then
		section "bk_training_progress from another session (bash test/progress.sh)"
		run_limited bash test/progress.sh
		record_run progress
	fi
	if in_suites citus; then
		section "Citus: a coordinator and two workers (bash test/citus.sh)"
		run_limited bash test/citus.sh "$PG_CONFIG" "${BK_CITUS_TARBALL:-}"
		record_run citus
	fi
	if in_suites upgrade; then
		section "Models from PostgreSQL 15: its dump restored (test/pg_upgrade.sh restore)"
		if [[ -s "${BK_DUMP_FILE:-}" ]]; then
			run_limited bash test/pg_upgrade.sh restore "$PG_CONFIG" "$BK_DUMP_FILE"
			record_run upgrade
		else
			record upgrade FAIL "no dump of PostgreSQL 15 (BK_DUMP_FILE): its making failed outside"
		fi
		if [[ -n "${BK_UPGRADE_FROM:-}" && "${RESULT[upgrade]}" == PASS ]]; then
			section "pg_upgrade from $("$BK_UPGRADE_FROM" --version) (test/pg_upgrade.sh)"
			if make -s -j"$(bk_jobs)" PG_CONFIG="$BK_UPGRADE_FROM" >/dev/null &&
				make -s install PG_CONFIG="$BK_UPGRADE_FROM" >/dev/null; then
				make -s clean PG_CONFIG="$BK_UPGRADE_FROM" >/dev/null
				restored=${NOTE[upgrade]}
				run_limited bash test/pg_upgrade.sh "$BK_UPGRADE_FROM" "$PG_CONFIG"
				record_run upgrade
				NOTE[upgrade]="restore $restored, pg_upgrade ${NOTE[upgrade]}"
			else
				record upgrade FAIL "the extension did not build for $("$BK_UPGRADE_FROM" --version)"
			fi
		fi
	fi
	finish
fi

section "Build (make)"
if ! build; then
	bk_err "the build failed"
	not_run "build failed"
	finish
fi

section "Unit tests, fuzz run and layers (make unittest fuzzcheck layercheck)"
if [[ "$(count_files 'test/unit/*.c')" -eq 0 ]]; then
	bk_log "No unit tests found (test/unit/*.c)."
	record unit FAIL "no tests in test/unit"
else
	run_limited make PG_CONFIG="$PG_CONFIG" unittest fuzzcheck layercheck
	record_run unit
fi

section "Unit tests on big-endian s390x under qemu (bash test/cross.sh s390x)"
# the fingerprints of every model, cross-built and run under qemu-user: the
# same bytes on a big-endian machine (about a minute; aarch64 and the
# whole suite are release checks, doc/maintainers.md)
run_limited bash test/cross.sh s390x
record_run cross

section "Install (make install)"
if ! install_extension; then
	bk_err "make install failed"
	not_run "make install failed"
	finish
fi

# pgvector, for test/pgtap/embeddings.sql (Debian 12 packages none):
# built from Debian's source package and installed once
PGVECTOR_FAILED=""
bash test/pgvector.sh "$PG_CONFIG" || PGVECTOR_FAILED="the pgvector build failed"

section "Throwaway PostgreSQL 15 cluster"
# 3 GB of address space a process: no test needs more, and a model that
# made a backend allocate beyond its stored size fails the tests of the
# resource limits (test/sql/limits.sql) instead of swapping the machine.
if ! BK_CLUSTER_VMEM_KB="${BK_CLUSTER_VMEM_KB:-3145728}" start_cluster; then
	not_run "the PostgreSQL cluster did not start"
	finish
fi

section "Regression tests (make installcheck)"
n=$(count_files 'test/sql/*.sql')
if [[ $n -eq 0 ]]; then
	bk_log "No regression tests found (test/sql/*.sql)."
	record regress FAIL "no tests in test/sql"
else
	bk_log "$n test files in test/sql"
	rm -f regression.diffs regression.out
	run_limited make PG_CONFIG="$PG_CONFIG" installcheck
	record_run regress
	[[ $SUITE_RC -eq 0 ]] || show_diffs regress 2000
fi

run_cluster_suites

section "Benchmark harness smoke test (test/bench/run.sh --smoke)"
if [[ ! -f test/bench/run.sh ]]; then
	record bench FAIL "test/bench/run.sh not found"
else
	run_limited env BK_BENCH_USE_CLUSTER=1 bash test/bench/run.sh --smoke
	record_run bench
fi

section "Exports checked by ONNX Runtime, onnx and LIBSVM (bash test/export_check.sh)"
if psql -X -q -d postgres -c 'DROP DATABASE IF EXISTS bk_export_check' \
	-c 'CREATE DATABASE bk_export_check' >/dev/null 2>&1 &&
	psql -X -q -d bk_export_check -c 'CREATE EXTENSION budgetkernel' >/dev/null; then
	run_limited env PGDATABASE=bk_export_check bash test/export_check.sh
	record_run export
else
	record export FAIL "its database could not be made"
fi
stop_cluster
run_cron_suite

section "bk_training_progress from another session (bash test/progress.sh)"
run_limited bash test/progress.sh
record_run progress

[[ -n "$BK_DEBIAN_SUITES" ]] || finish

#
# PostgreSQL 17 and 18 from Debian's own packages, each in a root of its
# suite: this script again, with --inside, on a copy of the tree.
#
section "A PostgreSQL 15 database of models, dumped (test/pg_upgrade.sh dump)"
DUMP_FILE=$(mktemp /tmp/bkdump.XXXXXX)
run_limited bash test/pg_upgrade.sh dump "$PG_CONFIG" "$DUMP_FILE"
if [[ $SUITE_RC -ne 0 ]]; then
	bk_err "the dump of PostgreSQL 15's models failed: the upgrade suites will fail"
	: >"$DUMP_FILE"
fi

# run_root SUITE: the suites of ROOT_SUITES in SUITE's root
run_root()
{
	local suite=$1 major root errf log why s result note shared suites binds=() env=()
	major=$(bash test/debian_root.sh major "$suite")
	section "Debian $suite: PostgreSQL $major (bash test/debian_root.sh ensure $suite)"
	errf=$(mktemp) || return 1
	root=$(bash test/debian_root.sh ensure "$suite" 2>"$errf" | tail -n 1)
	cat "$errf" >&2
	if [[ -z "$root" || ! -d "$root" ]]; then
		why=$(sed -n 's/^debian_root: ERROR: //p' "$errf" | tail -n 1)
		rm -f "$errf"
		for s in $ROOT_SUITES; do
			record "$s-$major" FAIL "no $suite root${why:+: $why}"
		done
		return 1
	fi
	rm -f "$errf"

	# a copy of the tree (tracked and untracked files, not build outputs)
	if ! bash test/debian_root.sh copy "$suite"; then
		for s in $ROOT_SUITES; do
			record "$s-$major" FAIL "the tree could not be copied into the $suite root"
		done
		return 1
	fi
	cp "$DUMP_FILE" "$root/build/dump-15.sql"
	# the shared data sets, where some tests read them, read-only
	if [[ -d "$BK_ROOT/../shared" ]]; then
		shared=$(cd "$BK_ROOT/../shared" && pwd)
		binds=(--bind "$shared" /build/shared)
	fi
	env=(PG_CONFIG="/usr/lib/postgresql/$major/bin/pg_config" BK_DUMP_FILE=/build/dump-15.sql
		BK_SUITE_TIMEOUT="$SUITE_TIMEOUT")
	# sid has 17 too (trixie's): pg_upgrade from it
	[[ "$suite" != sid ]] || env+=(BK_UPGRADE_FROM=/usr/lib/postgresql/17/bin/pg_config)
	suites=$ROOT_SUITES
	if in_suites "citus-$major"; then
		cp "$CITUS_TARBALL" "$root/build/" || return 1
		env+=(BK_CITUS_TARBALL="/build/$(basename "$CITUS_TARBALL")")
		suites+=" citus"
	fi
	log="$root/build/check.log"
	bash test/debian_root.sh run "$suite" "${binds[@]}" -- env "${env[@]}" \
		bash -c 'cd /build/budgetkernel && exec bash test/check.sh --inside "$1"' sh "$suites" \
		</dev/null 2>&1 | tee "$log"
	while read -r _ s result note; do
		record "$s-$major" "$result" "$note"
	done < <(grep '^@@ ' "$log")
	for s in $suites; do
		[[ -n "${RESULT[$s-$major]:-}" ]] || record "$s-$major" FAIL "no result from the $suite root (its log: $log)"
	done
}

for suite in $BK_DEBIAN_SUITES; do
	run_root "$suite"
done
rm -f "$DUMP_FILE"

finish
