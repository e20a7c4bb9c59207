#!/usr/bin/env bash
#
# test/pg_upgrade.sh - models across PostgreSQL majors: pg_upgrade of a
# cluster holding models of every kind, and pg_dump of it restored into
# the new major.
#
#   bash test/pg_upgrade.sh OLD_PG_CONFIG NEW_PG_CONFIG
#   bash test/pg_upgrade.sh dump OLD_PG_CONFIG FILE
#   bash test/pg_upgrade.sh restore NEW_PG_CONFIG FILE
#
# budgetkernel must be installed in both (test/check.sh does that).  The
# first form creates a throwaway cluster of the old major, a database with
# test/upgrade/models.sql (every learner, binary and multi-class, integer
# and text labels, dense, named and sparse features, preparation, epochs,
# class weights, continued, merged and calibrated models, with each one's
# md5 and class scores on fixed rows), dumps it twice (the old major's
# pg_dump as a plain script, the new major's pg_dump in custom format),
# upgrades the cluster with the new major's pg_upgrade, and restores both
# dumps into the upgraded cluster.  test/upgrade/verify.sql then checks in
# each of the three databases that every model kept its bytes, its
# validity and its scores computed by the new server.  Exit status 0 only
# if all three hold.
#
# The other two forms are the same dump and check across machines that
# cannot run each other's servers (the host's PostgreSQL 15 and the
# Debian roots' 17 and 18, test/check.sh): "dump" writes the old major's
# plain dump of that database to FILE, "restore" restores FILE into a
# throwaway cluster of the new major and checks it with verify.sql.
#
# Throwaway directories are in /tmp/bkpg.*, deleted at exit
# (BK_KEEP_CLUSTER=1 keeps them).

set -uo pipefail

# shellcheck source=test/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" || exit 1

USAGE="usage: $0 OLD_PG_CONFIG NEW_PG_CONFIG | dump OLD_PG_CONFIG FILE | restore NEW_PG_CONFIG FILE"
MODE=upgrade FILE=""
case "${1:-}" in
dump | restore)
	[[ $# -eq 3 ]] || { bk_err "$USAGE"; exit 2; }
	MODE=$1 FILE=$3
	shift
	set -- "$1" "$1"
	;;
*) [[ $# -eq 2 ]] || { bk_err "$USAGE"; exit 2; } ;;
esac
OLD_BIN="$("$1" --bindir)" || { bk_err "no pg_config at $1"; exit 2; }
NEW_BIN="$("$2" --bindir)" || { bk_err "no pg_config at $2"; exit 2; }
OLD_VER="$("$1" --version)"
NEW_VER="$("$2" --version)"

UP_DIR=""
OLD_PORT=""
NEW_PORT=""

up_stop()
{
	local d
	for d in "$UP_DIR/old" "$UP_DIR/new"; do
		[[ -f "$d/postmaster.pid" ]] || continue
		if [[ "$d" == */old ]]; then
			bk_as_owner "$OLD_BIN/pg_ctl" -D "$d" -m fast -w -t 60 stop >/dev/null 2>&1
		else
			bk_as_owner "$NEW_BIN/pg_ctl" -D "$d" -m fast -w -t 60 stop >/dev/null 2>&1
		fi
	done
}

up_cleanup()
{
	local rc=$?
	[[ -n "$UP_DIR" ]] || exit "$rc"
	up_stop
	if [[ "${BK_KEEP_CLUSTER:-0}" == 1 ]]; then
		bk_log "Keeping $UP_DIR (BK_KEEP_CLUSTER=1)."
	else
		rm -rf -- "$UP_DIR"
	fi
	exit "$rc"
}

die() { bk_err "$*"; exit 1; }

# initdb BINDIR DATADIR
up_initdb()
{
	local bin=$1 data=$2 opts=() help
	# 18 enables data checksums by default; pg_upgrade needs the old
	# cluster's setting (off).  The help is read whole before grep looks
	# at it: with pipefail, "initdb --help | grep -q" fails whenever grep
	# exits before initdb's last write (SIGPIPE), and the new cluster
	# then got checksums.
	help=$("$bin/initdb" --help 2>/dev/null) || help=
	if grep -q -- --no-data-checksums <<<"$help"; then
		opts+=(--no-data-checksums)
	fi
	bk_as_owner "$bin/initdb" -D "$data" -U postgres --auth=trust --no-locale -E UTF8 \
		"${opts[@]}" >"$data.initdb.log" 2>&1 || { bk_show_log "$data.initdb.log"; return 1; }
	bk_small_cluster_conf "$data" "upgrade test (test/pg_upgrade.sh)"
}

# start BINDIR DATADIR PORT
up_start()
{
	bk_as_owner env OPENBLAS_NUM_THREADS=1 "$1/pg_ctl" -D "$2" -l "$2.log" -w -t 60 \
		-o "-p $3 -k '$UP_DIR'" start >/dev/null || { bk_show_log "$2.log"; return 1; }
}

# psql BINDIR PORT DB args...
up_psql()
{
	local bin=$1 port=$2 db=$3
	shift 3
	"$bin/psql" -X -q -h "$UP_DIR" -p "$port" -U postgres -d "$db" -v ON_ERROR_STOP=1 "$@"
}

# verify PORT DB: test/upgrade/verify.sql on the new server
up_verify()
{
	local port=$1 db=$2 out
	out=$(up_psql "$NEW_BIN" "$port" "$db" -A -t -F ' ' -f test/upgrade/verify.sql) ||
		{ printf '%s\n' "$out"; return 1; }
	printf '%s: %s, server %s\n' "$db" "$(printf '%s\n' "$out" | tail -n 1)" \
		"$(up_psql "$NEW_BIN" "$port" "$db" -A -t -c 'SHOW server_version')"
	if grep -q '^MISMATCH' <<<"$out"; then
		printf '%s\n' "$out" | grep '^MISMATCH'
		return 1
	fi
}

UP_DIR="$(mktemp -d /tmp/bkpg.XXXXXX)" || exit 1
trap up_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if bk_is_root; then
	chown postgres:postgres "$UP_DIR" || exit 1
fi
chmod 700 "$UP_DIR"

# old_attoptions PORT: the attribute options the old cluster set on user
# columns, but for PostgreSQL's own n_distinct settings
old_attoptions()
{
	up_psql "$OLD_BIN" "$1" bk_models -A -t -c "
	SELECT DISTINCT split_part(o, '=', 1) FROM pg_attribute, unnest(attoptions) o
	WHERE attrelid >= 16384 AND attnum > 0 AND split_part(o, '=', 1) NOT IN ('n_distinct', 'n_distinct_inherited')"
}

# drop_attoption PORT OPTION WHY: remove OPTION from the old cluster's
# user columns, saying so and why (see below)
drop_attoption()
{
	bk_log "WORKAROUND: $OLD_VER sets the attribute option $2 on every column, which"
	bk_log "  $3: removed from the old cluster's user columns before the dumps and pg_upgrade"
	up_psql "$OLD_BIN" "$1" bk_models -c "
		UPDATE pg_attribute SET attoptions =
		       (SELECT array_agg(o) FROM unnest(attoptions) o WHERE split_part(o, '=', 1) <> '$2')
		WHERE attrelid >= 16384 AND attoptions::text LIKE '%$2=%'" >/dev/null ||
		die "could not remove $2"
}

if [[ $MODE == restore ]]; then
	section "Models across majors: a dump restored into $NEW_VER"
	[[ -s "$FILE" ]] || die "no dump at $FILE"
	NEW_PORT="$(bk_free_port)" || exit 1
	up_initdb "$NEW_BIN" "$UP_DIR/new" || die "initdb failed"
	up_start "$NEW_BIN" "$UP_DIR/new" "$NEW_PORT" || die "the cluster did not start"
	up_psql "$NEW_BIN" "$NEW_PORT" postgres -c 'CREATE DATABASE bk_restored' || die "CREATE DATABASE failed"
	bk_log "$(head -n 1 "$FILE")"
	if ! up_psql "$NEW_BIN" "$NEW_PORT" bk_restored -f "$FILE" >"$UP_DIR/restore.log" 2>&1; then
		tail -n 20 "$UP_DIR/restore.log" >&2
		die "the dump did not restore into $NEW_VER"
	fi
	up_verify "$NEW_PORT" bk_restored || die "the dump restored into $NEW_VER changed models"
	bk_log "ok: the dump restored into $NEW_VER kept every model's bytes and scores"
	exit 0
fi

section "Models across majors: $OLD_VER -> $NEW_VER"
OLD_PORT="$(bk_free_port)" || exit 1
bk_log "old cluster ($OLD_VER) in $UP_DIR/old, port $OLD_PORT"
up_initdb "$OLD_BIN" "$UP_DIR/old" || die "initdb of the old cluster failed"
up_start "$OLD_BIN" "$UP_DIR/old" "$OLD_PORT" || die "the old cluster did not start"
up_psql "$OLD_BIN" "$OLD_PORT" postgres -c 'CREATE DATABASE bk_models' || die "CREATE DATABASE failed"
up_psql "$OLD_BIN" "$OLD_PORT" bk_models -A -t -f test/upgrade/models.sql ||
	die "test/upgrade/models.sql failed on the old cluster"

if [[ $MODE == dump ]]; then
	# the new major runs elsewhere and cannot be asked which options it
	# knows: every option PostgreSQL itself does not set goes (below)
	old_opts=$(old_attoptions "$OLD_PORT") || die "could not read the old cluster's attribute options"
	for opt in $old_opts; do
		drop_attoption "$OLD_PORT" "$opt" "a newer major may not know (Debian's 18.6 refuses pg_attver)"
	done
	{
		printf -- '-- test/upgrade/models.sql dumped by %s\n' "$OLD_VER"
		bk_as_owner "$OLD_BIN/pg_dump" -h "$UP_DIR" -p "$OLD_PORT" -U postgres -d bk_models
	} >"$UP_DIR/dump.sql" || die "pg_dump ($OLD_VER) failed"
	cp "$UP_DIR/dump.sql" "$FILE" || die "could not write $FILE"
	chmod a+r "$FILE"
	bk_log "ok: $FILE holds the models, dumped by $OLD_VER"
	exit 0
fi

# Debian's 15.20 stores an attribute option, pg_attver, on every column it
# creates, which PostgreSQL 18.6 does not know: pg_upgrade then stops at
# the first table ('unrecognized parameter "pg_attver"'), and dumps fail
# to restore, for any database, with or without budgetkernel.  When the
# new server refuses the option, the test removes it from the old
# cluster's user columns (the workaround a user of these two builds needs
# as well), says so, and goes on: what it tests is the models.
NEW_PORT="$(bk_free_port)" || exit 1
up_initdb "$NEW_BIN" "$UP_DIR/new" || die "initdb of the new cluster failed"
up_start "$NEW_BIN" "$UP_DIR/new" "$NEW_PORT" || die "the new cluster did not start"
old_opts=$(old_attoptions "$OLD_PORT") || die "could not read the old cluster's attribute options"
for opt in $old_opts; do
	if ! up_psql "$NEW_BIN" "$NEW_PORT" postgres -c 'BEGIN' -c 'CREATE TEMP TABLE probe (a int)' \
		-c "ALTER TABLE probe ALTER COLUMN a SET ($opt = 1)" -c 'ROLLBACK' >/dev/null 2>&1; then
		drop_attoption "$OLD_PORT" "$opt" "$NEW_VER refuses"
	fi
done
bk_as_owner "$NEW_BIN/pg_ctl" -D "$UP_DIR/new" -m fast -w -t 60 stop >/dev/null ||
	die "the new cluster did not stop"

# a plain dump by the old major's pg_dump, a custom one by the new major's
bk_as_owner "$OLD_BIN/pg_dump" -h "$UP_DIR" -p "$OLD_PORT" -U postgres -d bk_models \
	-f "$UP_DIR/dump_old.sql" || die "pg_dump ($OLD_VER) failed"
bk_as_owner "$NEW_BIN/pg_dump" -h "$UP_DIR" -p "$OLD_PORT" -U postgres -d bk_models -Fc \
	-f "$UP_DIR/dump_new.custom" || die "pg_dump ($NEW_VER) of the old server failed"
bk_as_owner "$OLD_BIN/pg_ctl" -D "$UP_DIR/old" -m fast -w -t 60 stop >/dev/null ||
	die "the old cluster did not stop"

bk_log "new cluster ($NEW_VER) in $UP_DIR/new, port $NEW_PORT"
bk_log "pg_upgrade ($NEW_VER)"
# pg_upgrade writes its logs into the current directory (or the new data
# directory): run it from the throwaway directory
if ! (cd "$UP_DIR" && bk_as_owner env OPENBLAS_NUM_THREADS=1 "$NEW_BIN/pg_upgrade" \
	-b "$OLD_BIN" -B "$NEW_BIN" -d "$UP_DIR/old" -D "$UP_DIR/new" \
	-p "$OLD_PORT" -P "$NEW_PORT" -s "$UP_DIR" -U postgres >"$UP_DIR/pg_upgrade.log" 2>&1); then
	tail -n 40 "$UP_DIR/pg_upgrade.log" >&2
	find "$UP_DIR/new" -path '*pg_upgrade_output.d*' -name '*.log' -exec tail -n 20 {} + >&2 2>/dev/null
	die "pg_upgrade failed"
fi
up_start "$NEW_BIN" "$UP_DIR/new" "$NEW_PORT" || die "the upgraded cluster did not start"

failed=0
up_verify "$NEW_PORT" bk_models || { bk_err "pg_upgrade changed models"; failed=1; }

up_psql "$NEW_BIN" "$NEW_PORT" postgres -c 'CREATE DATABASE bk_restored_old' \
	-c 'CREATE DATABASE bk_restored_new' || die "CREATE DATABASE failed"
if up_psql "$NEW_BIN" "$NEW_PORT" bk_restored_old -f "$UP_DIR/dump_old.sql" >"$UP_DIR/restore_old.log" 2>&1; then
	up_verify "$NEW_PORT" bk_restored_old || { bk_err "the $OLD_VER dump restored into $NEW_VER changed models"; failed=1; }
else
	tail -n 20 "$UP_DIR/restore_old.log" >&2
	bk_err "the plain dump of $OLD_VER did not restore into $NEW_VER"
	failed=1
fi
if bk_as_owner "$NEW_BIN/pg_restore" -h "$UP_DIR" -p "$NEW_PORT" -U postgres --exit-on-error \
	-d bk_restored_new "$UP_DIR/dump_new.custom" >"$UP_DIR/restore_new.log" 2>&1; then
	up_verify "$NEW_PORT" bk_restored_new || { bk_err "the custom dump restored into $NEW_VER changed models"; failed=1; }
else
	tail -n 20 "$UP_DIR/restore_new.log" >&2
	bk_err "the custom dump did not restore into $NEW_VER"
	failed=1
fi

if [[ $failed -eq 0 ]]; then
	bk_log "ok: pg_upgrade and both dumps kept every model's bytes and scores ($OLD_VER -> $NEW_VER)"
fi
exit "$failed"
