#!/usr/bin/env bash
#
# test/cron.sh - the continue-or-retrain loop of doc/live-models.md, run
# by hand and by pg_cron
#
#   bash test/cron.sh
#
# Starts a throwaway cluster of PG_CONFIG's PostgreSQL (start_cluster in
# test/lib.sh) with pg_cron preloaded (cron.database_name = bk_cron, jobs
# in background workers), then runs the ```sql blocks of
# doc/live-models.md as they are written, in order, between the steps of
# the test:
#
#   block 1  the tables and the procedure live_step
#            ... 1 000 rows of the stream
#   block 2  version 1 trained, deployed, made live
#            ... 20 batches of 250 rows, live_step called after each;
#                an idle run, a failed run, an overlapping run
#   block 3  pg_cron: the job scheduled (every 2 seconds where pg_cron
#            takes seconds, else every minute as written)
#            ... a succeeded run of pg_cron that moved the watermark,
#                waited for 100 s at most
#   block 4  the monitoring queries
#
# The stream: two uniform numbers from md5 (deterministic), class
# x1 > x2 for rows 1 to 3 000, x1 + x2 > 1 after (half the rows change
# class).  The extension and pg_cron (postgresql-NN-cron) must be
# installed.  Prints PASS or FAIL per check; exit status 0 only if all
# passed.
#
set -uo pipefail
# shellcheck source=test/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" || exit 1

DOC=doc/live-models.md
DB=bk_cron
CHANGE=3000			# the last row of the first concept
FAILED=0
tmp=$(mktemp -d)
trap 'rm -rf -- "$tmp"' EXIT

fail() { printf 'FAIL %s\n' "$*"; FAILED=$((FAILED + 1)); }
pass() { printf 'ok   %s\n' "$*"; }
die() { printf 'FAIL %s\n' "$*"; exit 1; }

if [[ ! -f "$("$PG_CONFIG" --pkglibdir)/pg_cron.so" ]]; then
	die "pg_cron is not installed for PostgreSQL $BK_PG_MAJOR (apt-get install postgresql-$BK_PG_MAJOR-cron)"
fi

# the ```sql blocks of the page, one file each
awk -v dir="$tmp" '/^```sql$/ { n++; on = 1; next } /^```$/ { on = 0 }
	on { print > (dir "/block-" n ".sql") }' "$DOC"
nblocks=$(find "$tmp" -name 'block-*.sql' | wc -l)
[[ $nblocks -eq 4 ]] || die "$DOC has $nblocks sql blocks, the test expects 4 (tables and procedure, going live, schedule, monitoring)"
grep -q 'cron\.schedule(' "$tmp/block-3.sql" || die "block 3 of $DOC does not call cron.schedule"
grep -q 'CREATE PROCEDURE live_step' "$tmp/block-1.sql" || die "block 1 of $DOC does not create live_step"

export BK_CLUSTER_PRELOAD=pg_cron
export BK_CLUSTER_CONF="cron.database_name = '$DB'
cron.use_background_workers = on"
start_cluster || die "the cluster did not start"
trap 'rm -rf -- "$tmp"; bk_on_exit' EXIT
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE $DB" || die "CREATE DATABASE $DB"

# sql FILE-OR-STDIN: run in the database, stop at the first error
sql() { psql -X -q -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
# val QUERY: one value
val() { psql -X -q -A -t -v ON_ERROR_STOP=1 -d "$DB" -c "$1"; }
# check WHAT QUERY: the query returns true
check()
{
	local got
	got=$(val "$2" 2>&1)
	if [[ "$got" == t ]]; then pass "$1"; else fail "$1 (got: $got)"; fi
}
# rows A B: insert rows A to B of the stream into events, ids A to B
rows() { val "INSERT INTO events (id, features, label) OVERRIDING SYSTEM VALUE
	SELECT i, ARRAY[x1, x2], CASE WHEN i <= $CHANGE THEN (x1 > x2)::int ELSE (x1 + x2 > 1)::int END
	FROM cron_test.stream WHERE i BETWEEN $1 AND $2" >/dev/null; }

echo "== $DOC, block 1: the tables and live_step"
sql -f "$tmp/block-1.sql" || die "block 1 of $DOC failed"
sql <<'EOF' || die "the test's stream"
CREATE SCHEMA cron_test;
CREATE VIEW cron_test.stream AS
SELECT i, (('x' || substr(md5('x1:' || i), 1, 8))::bit(32)::int8 / 4294967296.0)::float8 AS x1,
          (('x' || substr(md5('x2:' || i), 1, 8))::bit(32)::int8 / 4294967296.0)::float8 AS x2
FROM generate_series(1, 10000) i;
EOF
rows 1 1000
echo "== $DOC, block 2: version 1, live"
sql -f "$tmp/block-2.sql" || die "block 2 of $DOC failed"
sql -c "CREATE TABLE cron_test.v1 AS SELECT model FROM model_registry WHERE name = 'stream' AND version = 1" ||
	die "keeping version 1"

echo "== 20 batches of 250 rows, live_step after each (the concept changes after row $CHANGE)"
for ((b = 1; b <= 20; b++)); do
	lo=$((1000 + (b - 1) * 250 + 1))
	rows "$lo" $((lo + 249))
	action=$(val "CALL live_step('stream')") || die "live_step failed on batch $b"
	printf '  batch %2d rows %4d-%4d: %s\n' "$b" "$lo" $((lo + 249)) "$action"
done
val "SELECT string_agg(format('  run to %s: %s errors of %s, %s%s', to_id, errors, rows, action,
	CASE WHEN action = 'retrained' THEN format(' (change seen at %s, trained from %s)', change_row, retrain_from) END),
	E'\n' ORDER BY to_id) FROM live_runs WHERE action = 'retrained' OR to_id BETWEEN $CHANGE - 250 AND $CHANGE + 750"

check "20 runs, of 250 rows each, the watermark at 6000" \
	"SELECT count(*) = 20 AND bool_and(rows = 250) AND (SELECT watermark FROM live_model) = 6000 FROM live_runs"
check "no retraining before the change (row $CHANGE)" \
	"SELECT bool_and(action = 'continued') FROM live_runs WHERE to_id <= $CHANGE"
check "a retraining within two batches after the change, seen after it" \
	"SELECT min(to_id) BETWEEN $CHANGE + 1 AND $CHANGE + 500 AND min(change_row) > $CHANGE
	 FROM live_runs WHERE action = 'retrained'"
check "the first retraining reads rows from within 250 of the change on" \
	"SELECT retrain_from BETWEEN $CHANGE - 250 AND $CHANGE + 250
	 FROM live_runs WHERE action = 'retrained' ORDER BY to_id LIMIT 1"
check "at most 2 retrainings in all (no churn after the new model)" \
	"SELECT count(*) FILTER (WHERE action = 'retrained') BETWEEN 1 AND 2 FROM live_runs"
val "SELECT format('  error rate: rows 2001-3000 %s, 3001-3250 %s, 5001-6000 %s; version 1 on 5001-6000 %s',
	round((SELECT avg(error) FROM live_errors WHERE id BETWEEN 2001 AND 3000), 3),
	round((SELECT avg(error) FROM live_errors WHERE id BETWEEN 3001 AND 3250), 3),
	round((SELECT avg(error) FROM live_errors WHERE id BETWEEN 5001 AND 6000), 3),
	round((SELECT avg((bk_predict_label(v.model, e.features) <> e.label::text)::int)
	       FROM events e, cron_test.v1 v WHERE e.id BETWEEN 5001 AND 6000), 3))"
check "before the change the prequential error rate is under 10 %" \
	"SELECT avg(error) < 0.10 FROM live_errors WHERE id BETWEEN 2001 AND $CHANGE"
check "the deployed lineage recovers: under 10 % errors on rows 5001-6000, version 1 over 35 %" \
	"SELECT (SELECT avg(error) FROM live_errors WHERE id BETWEEN 5001 AND 6000) < 0.10
	    AND (SELECT avg((bk_predict_label(v.model, e.features) <> e.label::text)::int)
	         FROM events e, cron_test.v1 v WHERE e.id BETWEEN 5001 AND 6000) > 0.35"
check "each run deployed a new version; 20 kept; the deployed one is the last run's" \
	"SELECT (SELECT version FROM model_deployment WHERE name = 'stream') = 21
	    AND (SELECT max(version) FROM live_runs) = 21
	    AND (SELECT count(*) FROM model_registry) = 20
	    AND (SELECT bool_and(parent = version - 1) FROM model_registry r JOIN live_runs l USING (version)
	         WHERE l.action = 'continued')"

echo "== a run with no new rows"
before=$(val "SELECT (SELECT count(*) FROM live_runs) || '/' || (SELECT max(version) FROM model_registry) || '/' || (SELECT watermark FROM live_model)")
action=$(val "CALL live_step('stream')")
after=$(val "SELECT (SELECT count(*) FROM live_runs) || '/' || (SELECT max(version) FROM model_registry) || '/' || (SELECT watermark FROM live_model)")
if [[ "$action" == idle && "$before" == "$after" ]]; then pass "a run without new rows: idle, nothing changed"
else fail "a run without new rows: $action, runs/version/watermark $before -> $after"; fi

echo "== a run that fails changes nothing; the next one does the work"
rows 6001 6249
val "INSERT INTO events (id, features, label) OVERRIDING SYSTEM VALUE VALUES (6250, '{0.5,0.5}', 7)" >/dev/null
if out=$(val "CALL live_step('stream')" 2>&1); then
	fail "a row of an unknown class: live_step succeeded ($out)"
else
	if grep -q 'not among the model' <<<"$out"; then
		pass "a row of an unknown class: live_step fails"
	else
		fail "a row of an unknown class: live_step failed otherwise: $out"
	fi
fi
after2=$(val "SELECT (SELECT count(*) FROM live_runs) || '/' || (SELECT max(version) FROM model_registry) || '/' || (SELECT watermark FROM live_model)")
check "the failed run left no trace (runs, versions, watermark, errors)" \
	"SELECT '$after2' = '$after' AND (SELECT max(id) FROM live_errors) = 6000"
val "DELETE FROM events WHERE id = 6250" >/dev/null
action=$(val "CALL live_step('stream')") || fail "live_step after the bad row went"
check "the next run processes the rows (6001-6249)" \
	"SELECT '$action' IN ('continued', 'retrained') AND watermark = 6249 AND
	        (SELECT from_id = 6001 AND to_id = 6249 FROM live_runs ORDER BY to_id DESC LIMIT 1)
	 FROM live_model"

echo "== two runs at once: the second is skipped"
rows 6250 6500
# the first run, in a transaction held open for a few seconds
psql -X -q -A -t -v ON_ERROR_STOP=1 -d "$DB" >"$tmp/first.out" 2>&1 <<'EOF' &
BEGIN;
CALL live_step('stream');
SELECT pg_sleep(4);
COMMIT;
EOF
first=$!
for ((i = 0; i < 100; i++)); do
	[[ "$(val "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted")" -ge 1 ]] && break
	sleep 0.1
done
second=$(val "CALL live_step('stream')" 2>&1)
wait "$first"; rc=$?
if [[ $rc -eq 0 && "$second" == skipped* ]] && grep -qx continued "$tmp/first.out"; then
	pass "the first run continued, the second: $second"
else
	fail "two runs at once: first (rc $rc): $(tr '\n' ' ' <"$tmp/first.out"), second: $second"
fi
check "the rows were processed once" \
	"SELECT count(*) = 1 AND min(from_id) = 6250 AND max(to_id) = 6500 FROM live_runs WHERE to_id > 6249"

echo "== $DOC, block 3: pg_cron runs the job"
rows 6501 6750
sql -f "$tmp/block-3.sql" || die "block 3 of $DOC failed"
val "SELECT 'pg_cron ' || extversion FROM pg_extension WHERE extname = 'pg_cron'"
# seconds where pg_cron takes them (1.5 and later), else the minute as written
if val "SELECT cron.alter_job(jobid, schedule := '2 seconds') FROM cron.job WHERE jobname = 'live-stream'" \
	>/dev/null 2>&1; then
	echo "  scheduled every 2 seconds"
else
	echo "  scheduled every minute (this pg_cron has no seconds schedules)"
fi
t0=$SECONDS
ran=""
while ((SECONDS - t0 < 100)); do
	ran=$(val "SELECT l.to_id FROM live_runs l JOIN cron.job_run_details d
		ON d.status = 'succeeded' AND l.run_at BETWEEN d.start_time AND d.end_time
		JOIN cron.job j ON j.jobid = d.jobid AND j.jobname = 'live-stream'
		WHERE l.to_id = 6750 AND (SELECT watermark FROM live_model) = 6750")
	[[ -z "$ran" ]] || break
	sleep 2
done
if [[ -n "$ran" ]]; then
	pass "pg_cron ran live_step after $((SECONDS - t0)) s: a succeeded run moved the watermark to 6750"
else
	fail "pg_cron did not run live_step to row 6750 within 100 s; its runs:"
	val "SELECT status || ': ' || coalesce(return_message, '') FROM cron.job_run_details ORDER BY runid" | sed 's/^/    /'
	bk_show_log "$PGHOST/server.log"
fi
sql -c "SELECT cron.unschedule('live-stream')" >/dev/null || fail "cron.unschedule"

echo "== $DOC, block 4: the monitoring queries"
if sql -f "$tmp/block-4.sql" >"$tmp/block-4.out"; then
	pass "block 4 runs ($(grep -c '' "$tmp/block-4.out") lines of output)"
else
	fail "block 4 of $DOC"
fi

if [[ $FAILED -eq 0 ]]; then
	echo "PASS test/cron.sh"
	exit 0
fi
echo "FAIL test/cron.sh: $FAILED check(s) failed"
exit 1
