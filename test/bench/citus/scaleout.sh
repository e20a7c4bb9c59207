#!/usr/bin/env bash
#
# test/bench/citus/scaleout.sh - bk_train on Citus against one node: time,
# bytes moved and accuracy at 2, 8 and 32 shards (doc/performance-citus.md).
# A benchmark, never run by the test command: nothing here is asserted.
#
#   bash test/bench/citus/scaleout.sh PG_CONFIG [OUT.md]
#
# Needs Citus and budgetkernel installed into that PostgreSQL (test/citus.sh
# builds Citus from its source tarball) and ../shared/data (a9a, usps).
# Starts a coordinator and two workers on Unix sockets, each a throwaway
# cluster, all on this machine.  For each data set, learner and shard
# count it measures, on the coordinator:
#
#   one node      bk_train(... ORDER BY id) over a local copy of the rows
#                 (serial, one core);
#   Citus         SELECT bk_train(features, label, params) FROM dist: the
#                 shards' partial states on the two workers, the combine
#                 on the coordinator (EXPLAIN ANALYZE gives the workers'
#                 part and the bytes of states received);
#   shards+merge  run_command_on_shards training a model on each shard,
#                 then the bk_merge aggregate on the coordinator (the
#                 recipe for any Citus release).
#
# Accuracy is on each set's test file.  Times are wall-clock, one run
# each, on whatever else the machine is doing.

set -uo pipefail
# shellcheck source=test/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../lib.sh" || exit 1

[[ $# -ge 1 ]] || { bk_err "usage: $0 PG_CONFIG [OUT.md]"; exit 2; }
PG_CONFIG=$1
OUT=${2:-}
BIN="$("$PG_CONFIG" --bindir)" || exit 2
[[ -f "$("$PG_CONFIG" --pkglibdir)/citus.so" ]] || { bk_err "Citus is not installed (bash test/citus.sh PG_CONFIG TARBALL builds it)"; exit 2; }
DATA="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)/shared/data"
[[ -f "$DATA/a9a.train" && -f "$DATA/usps.train" ]] || { bk_err "no a9a or usps in $DATA"; exit 2; }

DIR="$(mktemp -d /tmp/bkpg.XXXXXX)" || exit 1
bk_is_root && chown postgres:postgres "$DIR"
chmod 700 "$DIR"
NODES=(coord w1 w2)
declare -A PORT=()
cleanup()
{
	local n
	for n in "${NODES[@]}"; do
		[[ -f "$DIR/$n/postmaster.pid" ]] &&
			bk_as_owner "$BIN/pg_ctl" -D "$DIR/$n" -m immediate -w -t 30 stop >/dev/null 2>&1
	done
	rm -rf -- "$DIR"
}
trap cleanup EXIT
for n in "${NODES[@]}"; do
	PORT[$n]=$(bk_free_port) || exit 1
	bk_as_owner "$BIN/initdb" -D "$DIR/$n" -U postgres --auth=trust --no-locale -E UTF8 \
		>"$DIR/$n.initdb.log" 2>&1 || { bk_show_log "$DIR/$n.initdb.log"; exit 1; }
	bk_small_cluster_conf "$DIR/$n" "Citus node (test/bench/citus/scaleout.sh)"
	printf "shared_preload_libraries = 'citus'\nmax_connections = 60\nmax_worker_processes = 16\n" \
		>>"$DIR/$n/postgresql.conf"
	bk_as_owner env OPENBLAS_NUM_THREADS=1 "$BIN/pg_ctl" -D "$DIR/$n" -l "$DIR/$n.log" -w -t 60 \
		-o "-p ${PORT[$n]} -k '$DIR'" start >/dev/null || { bk_show_log "$DIR/$n.log"; exit 1; }
done
q()
{
	local node=$1
	shift
	"$BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h "$DIR" -p "${PORT[$node]}" -U postgres -d postgres "$@"
}
for n in "${NODES[@]}"; do
	q "$n" -c 'CREATE EXTENSION citus' -c 'CREATE EXTENSION budgetkernel' >/dev/null || exit 1
done
q coord -c "SELECT citus_set_coordinator_host('$DIR', ${PORT[coord]})" \
	-c "SELECT citus_add_node('$DIR', ${PORT[w1]})" -c "SELECT citus_add_node('$DIR', ${PORT[w2]})" >/dev/null || exit 1

q coord <<EOF >/dev/null || exit 1
CREATE TABLE raw (id bigserial, line text);
\\copy raw(line) FROM '$DATA/a9a.train'
CREATE TABLE a9a_local AS SELECT id, r.label, r.features FROM raw, LATERAL bk_libsvm(line, 123) r;
TRUNCATE raw RESTART IDENTITY;
\\copy raw(line) FROM '$DATA/a9a.test'
CREATE TABLE a9a_test AS SELECT id, r.label, r.features FROM raw, LATERAL bk_libsvm(line, 123) r;
TRUNCATE raw RESTART IDENTITY;
\\copy raw(line) FROM '$DATA/usps.train'
CREATE TABLE usps_local AS SELECT id, r.label, r.features FROM raw, LATERAL bk_libsvm(line, 256) r;
TRUNCATE raw RESTART IDENTITY;
\\copy raw(line) FROM '$DATA/usps.test'
CREATE TABLE usps_test AS SELECT id, r.label, r.features FROM raw, LATERAL bk_libsvm(line, 256) r;
EOF

SETTINGS=(
	"a9a|BPA-NN|{\"algorithm\": \"bpa\", \"variant\": \"nn\", \"budget\": 100, \"gamma\": 0.0625, \"C\": 1}"
	"a9a|Pegasos-merge|{\"algorithm\": \"pegasos\", \"maintenance\": \"merge\", \"budget\": 100, \"gamma\": 0.0625, \"lambda\": 1e-4}"
	"usps|BPA-NN|{\"algorithm\": \"bpa\", \"variant\": \"nn\", \"budget\": 30, \"gamma\": 0.0625, \"C\": 1}"
	"usps|Pegasos-merge|{\"algorithm\": \"pegasos\", \"maintenance\": \"merge\", \"budget\": 50, \"gamma\": 0.0625, \"lambda\": 1e-4}"
)

# acc SET MODELEXPR: the accuracy (%) of a model on SET's test file
acc() { q coord -c "SELECT round(100 * avg((bk_predict(($2), t.features) = t.label)::int), 2) FROM $1_test t"; }
# secs SQL: the wall-clock seconds of one statement
secs()
{
	q coord -c "SET client_min_messages = error; CREATE OR REPLACE FUNCTION pg_temp.t(q text) RETURNS float8 LANGUAGE plpgsql AS \$\$
		DECLARE t0 timestamptz := clock_timestamp(); BEGIN EXECUTE q; RETURN extract(epoch FROM clock_timestamp() - t0); END \$\$;
		SELECT round(pg_temp.t(\$q\$$1\$q\$)::numeric, 2)"
}

rows=()
for s in "${SETTINGS[@]}"; do
	IFS='|' read -r set learner params <<<"$s"
	bk_log "$set $learner: one node"
	t_serial=$(secs "CREATE TABLE m_serial AS SELECT bk_train(features, label, '$params' ORDER BY id) AS m FROM ${set}_local")
	a_serial=$(acc "$set" "SELECT m FROM m_serial")
	for shards in 2 8 32; do
		bk_log "$set $learner: $shards shards"
		q coord -c "SET client_min_messages = warning; DROP TABLE IF EXISTS dist; SET citus.shard_count = $shards; CREATE TABLE dist (LIKE ${set}_local);
			SELECT create_distributed_table('dist', 'id'); INSERT INTO dist SELECT * FROM ${set}_local ORDER BY id" >/dev/null || exit 1
		plan=$(q coord -c "EXPLAIN (ANALYZE, COSTS OFF) SELECT bk_train(features, label, '$params') FROM dist")
		t_workers=$(sed -n 's/.*Custom Scan (Citus Adaptive) (actual time=[0-9.]*\.\.\([0-9.]*\) .*/\1/p' <<<"$plan" | head -n 1)
		bytes=$(sed -n 's/.*Tuple data received from nodes: \(.*\)$/\1/p' <<<"$plan" | head -n 1)
		t_dist=$(secs "CREATE TABLE m_dist AS SELECT bk_train(features, label, '$params') AS m FROM dist")
		a_dist=$(acc "$set" "SELECT m FROM m_dist")
		t_shards=$(secs "CREATE TABLE m_shards AS SELECT bk_merge(result::bk_model ORDER BY shardid) AS m
			FROM run_command_on_shards('dist', \$c\$SELECT bk_train(features, label, '$params' ORDER BY id) FROM %s\$c\$)
			WHERE success AND result <> ''")
		a_shards=$(acc "$set" "SELECT m FROM m_shards")
		rows+=("| $set | $learner | $shards | $t_serial | $t_dist | $(awk -v ms="$t_workers" 'BEGIN { printf "%.2f", ms / 1000 }') | $bytes | $t_shards | $a_serial | $a_dist | $a_shards |")
		printf '%s\n' "${rows[-1]}"
		q coord -c "DROP TABLE m_dist, m_shards" >/dev/null
	done
	q coord -c "DROP TABLE m_serial" >/dev/null
done

report()
{
	cat <<EOF
# Performance: bk_train on Citus

Generated by \`bash test/bench/citus/scaleout.sh PG_CONFIG doc/performance-citus.md\`
(do not edit by hand). Machine: $(nproc) logical CPUs; $("$PG_CONFIG" --version);
Citus $(q coord -c "SELECT extversion FROM pg_extension WHERE extname = 'citus'"); a coordinator and
two workers on this one machine; run $(date -u '+%Y-%m-%d %H:%M UTC').

No timing here is asserted by a test; one run each, wall-clock. **one
node**: \`bk_train(... ORDER BY id)\` over the rows in a local table.
**Citus**: \`bk_train(features, label, params) FROM dist\`, the table
distributed by id over the given number of shards (partial states on
the workers, combined on the coordinator); **workers s** is the part of
it spent before the coordinator combines (the Citus scan's time in
\`EXPLAIN ANALYZE\`), **states moved** the bytes the coordinator received
(\`Tuple data received from nodes\`). **shards+merge**: a model per shard
by \`run_command_on_shards\`, then the \`bk_merge\` aggregate on the
coordinator. Accuracy on each set's test file.

| set | learner | shards | one node s | Citus s | workers s | states moved | shards+merge s | one node acc % | Citus acc % | shards+merge acc % |
| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
EOF
	printf '%s\n' "${rows[@]}"
}
if [[ -n "$OUT" ]]; then
	report >"$OUT"
	bk_log "wrote $OUT"
else
	report
fi
