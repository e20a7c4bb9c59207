#!/usr/bin/env bash
#
# test/progress.sh - bk_training_progress seen from another session
#
#   bash test/progress.sh
#
# budgetkernel must be installed into the PostgreSQL of PG_CONFIG.  Starts
# its own throwaway cluster (test/lib.sh) with budgetkernel in
# shared_preload_libraries, runs long trainings (600,000 generated rows,
# some seconds) in background psql sessions and watches them from another
# session through the view:
#
#   grows      the training backend's pid appears, with its database,
#              user, function, learner and task, and a row count that
#              grows between two polls; when the aggregate ends its row is
#              gone, seen from its own session still in the transaction;
#   cancel     pg_cancel_backend mid-training: the backend lives on, and
#              its row is gone;
#   error      an ERROR mid-training inside a savepoint that is rolled
#              back: the row is gone within the same transaction;
#   reading    a training that fits a preparation ("scale") shows the
#              phase "reading" (rows kept), then "learning";
#   parallel   a parallel bk_train: its workers show, with the leader's
#              pid as leader_pid;
#   roles      another role sees the pid, user and function of a run but
#              not its numbers, unless it is a member of the training
#              role or of pg_read_all_stats;
#   search     bk_cross_validate shows as cross_validate with its number
#              of models, and leaves no row behind;
# then restarts the cluster without preloading:
#   on PostgreSQL 17 and later the view works all the same (the DSM
#   registry): the "grows" checks again;
#   on 15 and 16 the view raises one clear error (SQLSTATE 55000) and
#   training works as before.
#
# Prints a line per check and ends with "N passed, N failed"; exit status 0
# only if every check passed.  About a minute: 60 to 120 s on the shared
# 2-core development machine while other builds ran.

set -uo pipefail

# shellcheck source=test/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" || exit 1

PASSED=0
FAILED=0
BIN=$(bk_pgbin)
OUT=$(mktemp -d /tmp/bkprogress.XXXXXX) || exit 1
chmod 755 "$OUT"
ROWS=${BK_PROGRESS_ROWS:-600000}
CLIENTS=()

cleanup()
{
	local c
	for c in "${CLIENTS[@]}"; do
		kill "$c" 2>/dev/null
	done
	rm -rf -- "$OUT"
	stop_cluster
}
trap cleanup EXIT

check()
{
	local name=$1 got=$2 want=$3
	if [[ "$got" == "$want" ]]; then
		printf 'ok   %s\n' "$name"
		PASSED=$((PASSED + 1))
	else
		printf 'FAIL %s: %s (expected %s)\n' "$name" "$got" "$want"
		FAILED=$((FAILED + 1))
	fi
}

q()
{
	"$BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -d bk_progress "$@"
}

# the rows of a long training, generated: ROWS rows, three classes
train_sql()
{
	local params='{}'
	[[ $# -eq 0 ]] || params=$1
	printf "SELECT bk_info(bk_train(ARRAY[sin(i), cos(i * 1.7)], (i %% 3)::int8, '%s'))->>'rows_seen' FROM generate_series(1, %d) AS i" \
		"$params" "$ROWS"
}

# start_session NAME [psql options...]: a background psql session with
# application_name NAME, its output in $OUT/NAME.out; CLIENT is its pid
start_session()
{
	local name=$1
	shift
	PGAPPNAME=$name "$BIN/psql" -X -q -A -t -d bk_progress \
		-c 'SET budgetkernel.run_warnings = off' "$@" >"$OUT/$name.out" 2>&1 &
	CLIENT=$!
	CLIENTS+=("$CLIENT")
}

# backend_of NAME: the pid of the backend of session NAME (waits up to 20 s)
backend_of()
{
	local i pid
	for ((i = 0; i < 200; i++)); do
		# (a parallel worker has its leader's application_name)
		pid=$(q -c "SELECT pid FROM pg_stat_activity
		            WHERE application_name = '$1' AND backend_type = 'client backend'")
		[[ -n "$pid" ]] && { printf '%s\n' "$pid"; return 0; }
		sleep 0.1
	done
	printf '0\n'
}

# wait_for SQL: poll until the query returns t (up to 20 s); prints t or f
wait_for()
{
	local i
	for ((i = 0; i < 200; i++)); do
		[[ "$(q -c "$1" 2>/dev/null)" == t ]] && { printf 't\n'; return 0; }
		sleep 0.1
	done
	printf 'f\n'
}

# rows_of PID: the view's row count for the backend ('' without a row)
rows_of()
{
	q -c "SELECT rows FROM bk_training_progress WHERE pid = $1"
}

# the checks of a training seen growing and then gone (label: which cluster)
check_grows()
{
	local label=$1 pid r1 r2 got
	start_session bk_grow -c 'BEGIN' -c "$(train_sql)" \
		-c "SELECT 'inside', count(*) FROM bk_training_progress WHERE pid = pg_backend_pid()" \
		-c 'COMMIT'
	pid=$(backend_of bk_grow)
	check "$label: the training backend appears in the view" \
		"$(wait_for "SELECT coalesce((SELECT rows > 0 FROM bk_training_progress WHERE pid = $pid), false)")" t
	r1=$(rows_of "$pid")
	sleep 1
	r2=$(rows_of "$pid")
	check "$label: its row count grows between two polls ($r1, then $r2)" \
		"$([[ -n "$r1" && -n "$r2" && "$r2" -gt "$r1" ]] && echo grows)" grows
	got=$(q -c "SELECT datname = current_database(), usename, function, learner, task, phase,
	                   pass, passes, support_vectors BETWEEN 1 AND 300,
	                   online_mistakes <= rows, online_mistake_rate BETWEEN 0 AND 1,
	                   online_rmse IS NULL, models, models_done IS NULL, leader_pid IS NULL,
	                   started <= now(), elapsed > 0
	            FROM bk_training_progress WHERE pid = $pid")
	check "$label: its database, user, function, learner and numbers" "$got" \
		"t|postgres|train|bpa|classification|learning|1|1|t|t|t|t|1|t|t|t|t"
	wait "$CLIENT"
	check "$label: the training finished ($ROWS rows)" "$(head -n 1 "$OUT/bk_grow.out")" "$ROWS"
	check "$label: after the aggregate its row is gone, in the same transaction" \
		"$(sed -n 2p "$OUT/bk_grow.out")" "inside|0"
	check "$label: and no row is left for its pid" \
		"$(q -c "SELECT count(*) FROM bk_training_progress WHERE pid = $pid")" 0
}

section "bk_training_progress with budgetkernel preloaded"
if ! BK_CLUSTER_PRELOAD=budgetkernel start_cluster; then
	bk_err "the cluster did not start"
	exit 1
fi
trap cleanup EXIT		# start_cluster set its own
"$BIN/psql" -X -q -d postgres -c 'CREATE DATABASE bk_progress' &&
	q -c 'CREATE EXTENSION budgetkernel' || { bk_err "no database"; exit 1; }
VERSION=$(q -c 'SHOW server_version_num')

check_grows preloaded

# cancel: the backend lives on (pg_sleep), its row is gone
start_session bk_cancel -c "$(train_sql)" \
	-c "SELECT 'after', count(*) FROM bk_training_progress WHERE pid = pg_backend_pid()" \
	-c 'SELECT pg_sleep(3)'
pid=$(backend_of bk_cancel)
wait_for "SELECT coalesce((SELECT rows > 0 FROM bk_training_progress WHERE pid = $pid), false)" >/dev/null
q -c "SELECT pg_cancel_backend($pid)" >/dev/null
check "cancel: the training was cancelled" \
	"$(wait_for "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE pid = $pid AND query LIKE '%pg_sleep%')")" t
check "cancel: the backend lives, and has no row in the view" \
	"$(q -c "SELECT count(*) FROM pg_stat_activity WHERE pid = $pid")|$(q -c "SELECT count(*) FROM bk_training_progress WHERE pid = $pid")" "1|0"
wait "$CLIENT"
check "cancel: seen from its own session, no row either" \
	"$(grep -c 'canceling statement due to user request' "$OUT/bk_cancel.out")|$(grep '^after' "$OUT/bk_cancel.out")" "1|after|0"

# error: a NULL feature half-way, inside a savepoint rolled back
start_session bk_error -c 'BEGIN' -c 'SAVEPOINT s' \
	-c "SELECT bk_train(CASE WHEN i = $((ROWS / 2)) THEN ARRAY[NULL, 1]::float8[] ELSE ARRAY[sin(i), cos(i)] END, (i % 2)::int8, '{}') FROM generate_series(1, $ROWS) AS i" \
	-c 'ROLLBACK TO SAVEPOINT s' \
	-c "SELECT 'after', count(*) FROM bk_training_progress WHERE pid = pg_backend_pid()" \
	-c 'COMMIT'
wait "$CLIENT"
check "error: an ERROR mid-training (rolled back to a savepoint) leaves no row" \
	"$(grep -c 'ERROR' "$OUT/bk_error.out")|$(grep '^after' "$OUT/bk_error.out")" "1|after|0"

# reading: a preparation is fitted on the rows kept, then the model learns them
start_session bk_reading -c "$(train_sql '{"scale": "standard"}')"
pid=$(backend_of bk_reading)
check "reading: a training that fits a preparation shows the phase reading" \
	"$(wait_for "SELECT coalesce((SELECT phase = 'reading' AND rows > 0 AND learner IS NULL AND support_vectors IS NULL FROM bk_training_progress WHERE pid = $pid), false)")" t
check "reading: then learning, with the learner's name" \
	"$(wait_for "SELECT coalesce((SELECT phase = 'learning' AND rows > 0 AND learner = 'bpa' FROM bk_training_progress WHERE pid = $pid), false)")" t
q -c "SELECT pg_cancel_backend($pid)" >/dev/null		# seen enough
wait "$CLIENT"

# parallel: the workers show with their leader's pid
q -c "CREATE TABLE pts AS SELECT ARRAY[sin(i), cos(i * 1.7)] AS x, (i % 3)::int8 AS y
      FROM generate_series(1, $ROWS) AS i" -c 'ANALYZE pts'
start_session bk_parallel -c 'SET parallel_setup_cost = 0' -c 'SET parallel_tuple_cost = 0' \
	-c 'SET min_parallel_table_scan_size = 0' -c 'SET max_parallel_workers_per_gather = 2' \
	-c "SELECT bk_info(bk_train(x, y, '{}'))->>'rows_seen' FROM pts"
pid=$(backend_of bk_parallel)
check "parallel: the workers of a parallel bk_train show, with the leader's pid" \
	"$(wait_for "SELECT EXISTS (SELECT FROM bk_training_progress WHERE leader_pid = $pid AND pid <> $pid AND rows > 0 AND function = 'train')")" t
wait "$CLIENT"
check "parallel: the training finished on every row" "$(head -n 1 "$OUT/bk_parallel.out")" "$ROWS"
check "parallel: no row left behind by the workers" \
	"$(q -c "SELECT count(*) FROM bk_training_progress WHERE leader_pid = $pid OR pid = $pid")" 0

# roles: the details of another role's run
q -c 'CREATE ROLE bk_alice LOGIN' -c 'CREATE ROLE bk_bob LOGIN' >/dev/null
PGUSER=bk_alice start_session bk_alice -c "$(train_sql)"
pid=$(backend_of bk_alice)
wait_for "SELECT coalesce((SELECT rows > 0 FROM bk_training_progress WHERE pid = $pid), false)" >/dev/null
seen="SELECT usename, function, learner IS NULL, rows IS NULL, support_vectors IS NULL,
             online_mistake_rate IS NULL, started IS NULL, elapsed IS NULL
      FROM bk_training_progress WHERE pid = $pid"
check "roles: another role sees the pid, user and function, and no numbers" \
	"$(PGUSER=bk_bob q -c "$seen")" "bk_alice|train|t|t|t|t|t|t"
check "roles: the training role sees its own numbers" \
	"$(PGUSER=bk_alice q -c "$seen")" "bk_alice|train|f|f|f|f|f|f"
q -c 'GRANT pg_read_all_stats TO bk_bob' >/dev/null
check "roles: a member of pg_read_all_stats sees them" \
	"$(PGUSER=bk_bob q -c "$seen")" "bk_alice|train|f|f|f|f|f|f"
q -c 'REVOKE pg_read_all_stats FROM bk_bob' -c 'GRANT bk_alice TO bk_bob' >/dev/null
check "roles: a member of the training role sees them" \
	"$(PGUSER=bk_bob q -c "$seen")" "bk_alice|train|f|f|f|f|f|f"
q -c "SELECT pg_cancel_backend($pid)" >/dev/null
wait "$CLIENT"

# search: bk_cross_validate, 2 settings x 3 folds
q -c "CREATE TABLE cv AS SELECT i, ARRAY[sin(i), cos(i * 1.7)] AS x, (i % 3)::int8 AS y
      FROM generate_series(1, $((ROWS / 4))) AS i"
start_session bk_search \
	-c "SELECT count(*) FROM bk_cross_validate('cv', 'x', 'y', 'i', '{\"grid\": {\"budget\": [50, 100]}, \"folds\": 3}')" \
	-c "SELECT 'after', count(*) FROM bk_training_progress WHERE pid = pg_backend_pid()"
pid=$(backend_of bk_search)
check "search: bk_cross_validate shows as cross_validate while its models learn" \
	"$(wait_for "SELECT coalesce((SELECT function = 'cross_validate' AND phase = 'learning' AND rows > 0 FROM bk_training_progress WHERE pid = $pid), false)")" t
check "search: and the number of its models scored, of 6" \
	"$(wait_for "SELECT coalesce((SELECT models_done BETWEEN 1 AND 6 AND models_total = 6 FROM bk_training_progress WHERE pid = $pid), false)")" t
wait "$CLIENT"
check "search: it returned its 2 settings, and left no row" \
	"$(head -n 1 "$OUT/bk_search.out")|$(grep '^after' "$OUT/bk_search.out")" "2|after|0"

stop_cluster

section "bk_training_progress without preloading (PostgreSQL $VERSION)"
if ! BK_CLUSTER_PRELOAD='' start_cluster; then
	bk_err "the cluster did not start"
	exit 1
fi
trap cleanup EXIT
"$BIN/psql" -X -q -d postgres -c 'CREATE DATABASE bk_progress' &&
	q -c 'CREATE EXTENSION budgetkernel' || { bk_err "no database"; exit 1; }
if [[ "$VERSION" -ge 170000 ]]; then
	check_grows "DSM registry"
else
	got=$(q -v VERBOSITY=verbose -c 'SELECT * FROM bk_training_progress' 2>&1 | grep -c '^ERROR:  55000: bk_training_progress needs budgetkernel in shared_preload_libraries')
	check "not preloaded: the view says so in one error (55000)" "$got" 1
	check "not preloaded: its hint names the fix" \
		"$(q -c 'SELECT * FROM bk_training_progress' 2>&1 | grep -c '^HINT:  Add budgetkernel to shared_preload_libraries and restart the server.')" 1
	ROWS=10000
	check "not preloaded: training works as before" \
		"$(q -c 'SET budgetkernel.run_warnings = off' -c "$(train_sql)")" 10000
fi

printf '%d passed, %d failed\n' "$PASSED" "$FAILED"
[[ $FAILED -eq 0 ]]
