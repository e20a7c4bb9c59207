#!/usr/bin/env bash
#
# test/demo.sh - train and score a budgeted kernel classifier in PostgreSQL
#
#   bash test/demo.sh
#
# On a fresh Debian 12 machine, as root, it does everything: installs the
# missing packages, builds and installs the extension, starts a private
# throwaway PostgreSQL 15 cluster, and then, in SQL:
#   - generates a checkerboard into tables train and test (10,000 + 10,000
#     points uniform in [0,1]^2, 4x4 board, seeded: the same rows as the
#     examples of README.md's Getting started), or loads the LIBSVM files
#     checkerboard.train / checkerboard.test of $BK_DATA_DIR if it is set,
#   - trains a budgeted Passive-Aggressive model (BPA-NN, ramp loss, budget
#     100, RBF kernel) with one bk_train aggregate over the training rows,
#   - prints bk_info(model) and the accuracy on the test rows, with timings.
# The cluster is stopped and deleted at the end.
#
# It needs nothing outside the repository.  BK_DATA_DIR=DIR (e.g.
# ../shared/data) loads DIR's checkerboard.train and checkerboard.test
# instead of generating the rows; when they are missing there, the demo
# says so and generates the rows.

set -euo pipefail

# Resolve a relative BK_DATA_DIR against the caller's directory, before
# lib.sh moves us to the repository root.
if [[ -n "${BK_DATA_DIR:-}" && "${BK_DATA_DIR}" != /* ]]; then
	BK_DATA_DIR="$PWD/$BK_DATA_DIR"
fi

# shellcheck source=test/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DATA_DIR="${BK_DATA_DIR:-}"
PARAMS='{"algorithm":"bpa","variant":"nn","loss":"ramp","budget":100,"kernel":"rbf","gamma":30,"C":1}'

section "1/4 Packages"
ensure_packages

section "2/4 Build and install (make, make install)"
build_and_install

section "3/4 Throwaway PostgreSQL cluster"
start_cluster

section "4/4 Demo"

# SQL that fills tables train and test (id bigint, label int8,
# features float8[]): generated, or from the LIBSVM files of BK_DATA_DIR.
load_sql()
{
	local train="$DATA_DIR/checkerboard.train" test="$DATA_DIR/checkerboard.test"

	if [[ -n "$DATA_DIR" && -r "$train" && -r "$test" ]]; then
		case "$train" in
		*"'"*)
			bk_err "the data directory path must not contain a single quote: $DATA_DIR"
			return 1 ;;
		esac
		cat <<EOF
\\echo 'Loading checkerboard.train and checkerboard.test from $DATA_DIR'
CREATE TEMP TABLE raw_train (id bigserial, line text);
CREATE TEMP TABLE raw_test (id bigserial, line text);
\\copy raw_train(line) FROM '$train'
\\copy raw_test(line) FROM '$test'
CREATE TABLE train AS
SELECT id, r.label, r.features FROM raw_train, LATERAL bk_libsvm(line, 2) AS r;
CREATE TABLE test AS
SELECT id, r.label, r.features FROM raw_test, LATERAL bk_libsvm(line, 2) AS r;
EOF
	else
		if [[ -n "$DATA_DIR" ]]; then
			# psql's \echo prints the rest of the line; only quotes need care
			printf '\\echo %s\n' "'No checkerboard.train/.test found in BK_DATA_DIR'" \
				"'${DATA_DIR//\'/\'\'}: generating the rows instead'"
		fi
		cat <<'EOF'
\echo 'Generating a checkerboard in SQL: 10,000 training and 10,000 test points'
\echo 'uniform in [0,1]^2, label 1 if floor(4x)+floor(4y) is even, else -1;'
\echo 'coordinates from md5, so every run makes the same points (those of'
\echo 'the examples of Getting started in README.md)'
-- uniform(tag, i): a number in [0, 1) from md5(tag:i), README.md's
-- generator; no random(), so every run makes the same points.
CREATE FUNCTION pg_temp.uniform(tag text, i bigint) RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT ('x' || left(md5(tag || ':' || i), 13))::bit(52)::int8 / 2 ^ 52 $$;
CREATE TABLE train AS
SELECT i::bigint AS id,
       CASE WHEN (floor(4 * x) + floor(4 * y))::int % 2 = 0 THEN 1 ELSE -1 END::int8 AS label,
       ARRAY[x, y] AS features
FROM   generate_series(1, 10000) AS i,
       LATERAL (SELECT pg_temp.uniform('train-x', i) AS x, pg_temp.uniform('train-y', i) AS y) AS p;
CREATE TABLE test AS
SELECT i::bigint AS id,
       CASE WHEN (floor(4 * x) + floor(4 * y))::int % 2 = 0 THEN 1 ELSE -1 END::int8 AS label,
       ARRAY[x, y] AS features
FROM   generate_series(1, 10000) AS i,
       LATERAL (SELECT pg_temp.uniform('test-x', i) AS x, pg_temp.uniform('test-y', i) AS y) AS p;
EOF
	fi
}

demo_sql()
{
	cat <<'EOF'
\set ON_ERROR_STOP on
\pset pager off
\echo
\echo '== CREATE EXTENSION budgetkernel'
CREATE EXTENSION budgetkernel;
SELECT extversion AS budgetkernel_version FROM pg_extension WHERE extname = 'budgetkernel';
\echo
\echo '== Data'
EOF
	load_sql
	cat <<EOF
SELECT 'train' AS "table", count(*) AS "rows",
       count(*) FILTER (WHERE label = 1) AS "label 1",
       count(*) FILTER (WHERE label = -1) AS "label -1"
FROM train
UNION ALL
SELECT 'test', count(*), count(*) FILTER (WHERE label = 1),
       count(*) FILTER (WHERE label = -1)
FROM test;

\\echo
\\echo '== Train: one bk_train aggregate over the 10,000 training rows (in a seeded shuffle)'
\\set ECHO queries
\\timing on
CREATE TABLE models AS
SELECT 1 AS version,
       bk_train(features, label,
                '$PARAMS'::jsonb
                ORDER BY bk_shuffle_key(id, 42)) AS model
FROM train;
\\timing off
ANALYZE models;
\\set ECHO none

\\echo
\\echo '== bk_info(model)'
\\pset format unaligned
\\pset tuples_only on
SELECT jsonb_pretty(bk_info(model)) FROM models WHERE version = 1;
\\pset format aligned
\\pset tuples_only off

\\echo
\\echo '== A few predictions on the test rows'
\\set ECHO queries
SELECT t.id, t.features, t.label, bk_predict(m.model, t.features) AS predicted
FROM test t, models m
WHERE m.version = 1
ORDER BY t.id
LIMIT 5;
\\set ECHO none

\\echo
\\echo '== Test accuracy (10,000 held-out rows)'
\\set ECHO queries
\\timing on
SELECT round(avg((bk_predict(m.model, t.features) = t.label)::int), 4) AS test_accuracy
FROM test t, models m
WHERE m.version = 1;
\\timing off
\\set ECHO none
EOF
}

bk_log "Parameters: $PARAMS"
demo_sql | psql -X -q -v ON_ERROR_STOP=1 -d postgres

section "Done"
bk_log "The throwaway cluster is being stopped and deleted."
