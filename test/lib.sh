# shellcheck shell=bash
#
# test/lib.sh - shared set-up for test/check.sh and test/demo.sh
#
# Source it from bash; do not run it.  Sourcing it changes the working
# directory to the repository root.  Functions:
#
#   section TITLE        print a section header
#   ensure_packages      install the Debian packages that are missing
#   build                make
#   install_extension    make install (with sudo when needed and possible)
#   build_and_install    build && install_extension
#   start_cluster        initdb + start a private throwaway PostgreSQL 15
#                        cluster; exports PGHOST PGPORT PGUSER; an EXIT
#                        trap stops it and deletes its directory
#   stop_cluster         the same clean-up, callable by hand
#
# Environment (all optional):
#   PG_CONFIG     pg_config to build against
#                 (default /usr/lib/postgresql/15/bin/pg_config)
#   BK_PORT_BASE  first port tried for the cluster (default 55432)
#   BK_KEEP_CLUSTER=1  leave the cluster directory behind (for debugging)
#   BK_CLUSTER_VMEM_KB cap the address space of the cluster's processes
#                 (ulimit -v, in kB): an allocation beyond it fails with
#                 "out of memory" instead of growing the process; the tests
#                 of the resource limits rely on it

BK_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$BK_ROOT" || exit 1

PG_CONFIG="${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}"
# the major of Debian's PostgreSQL that PG_CONFIG names (15 on the host,
# 17 and 18 in the Debian roots of test/debian_root.sh)
BK_PG_MAJOR="$(sed -n 's|^/usr/lib/postgresql/\([0-9][0-9]*\)/bin/pg_config$|\1|p' <<<"$PG_CONFIG")"
BK_PG_MAJOR="${BK_PG_MAJOR:-15}"
BK_PGBIN_DEFAULT=/usr/lib/postgresql/$BK_PG_MAJOR/bin

# The Debian packages the build and the tests need.
BK_PACKAGES=(
	build-essential
	pkg-config
	"postgresql-$BK_PG_MAJOR"
	"postgresql-server-dev-$BK_PG_MAJOR"
	liblapacke-dev
	libopenblas-dev
	"postgresql-$BK_PG_MAJOR-pgtap"
	libtap-parser-sourcehandler-pgtap-perl
	"postgresql-$BK_PG_MAJOR-plproxy"
)

# The cluster's directory (set by start_cluster, cleared by stop_cluster).
BK_CLUSTER_DIR=""

# Connection settings from the caller's environment must not send us to
# another server or database.
unset PGHOSTADDR PGSERVICE PGSERVICEFILE PGDATABASE PGOPTIONS PGPASSWORD \
	PGPASSFILE PGSSLMODE PGREQUIRESSL PGTARGETSESSIONATTRS

section()
{
	printf '\n==== %s ====\n' "$*"
}

bk_log()
{
	printf '%s\n' "$*"
}

bk_err()
{
	printf 'ERROR: %s\n' "$*" >&2
}

bk_is_root()
{
	[[ "$(id -u)" -eq 0 ]]
}

# Run a command as root: directly when we are root, else through sudo when
# sudo works without a password prompt (no stdin in CI).  Returns 126 when
# neither is possible.
bk_as_root()
{
	if bk_is_root; then
		"$@"
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		sudo -n "$@"
	else
		return 126
	fi
}

# True if package $1 is installed, for one architecture or several (a
# package installed for two, liblapacke-dev and liblapacke-dev:arm64, has
# one status line for each).
bk_pkg_installed()
{
	dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -qx 'install ok installed'
}

#
# Install the packages that are missing (apt-get update once, then install).
# No apt at all when everything is present.
#
ensure_packages()
{
	local missing=() pkg

	if ! command -v dpkg-query >/dev/null 2>&1; then
		bk_log "dpkg-query not found (not Debian?): not checking packages."
		bk_log "Needed: ${BK_PACKAGES[*]}"
		return 0
	fi
	for pkg in "${BK_PACKAGES[@]}"; do
		if [[ "$pkg" == build-essential ]] && ! bk_pkg_installed "$pkg" &&
			command -v gcc >/dev/null 2>&1 && command -v make >/dev/null 2>&1; then
			continue			# gcc and make are enough
		fi
		bk_pkg_installed "$pkg" || missing+=("$pkg")
	done
	if [[ ${#missing[@]} -eq 0 ]]; then
		bk_log "All required packages are installed."
		return 0
	fi

	bk_log "Missing packages: ${missing[*]}"
	if ! bk_is_root && ! { command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; }; then
		bk_err "not root and no password-less sudo: cannot install packages."
		bk_err "Install them first, e.g. as root:"
		bk_err "  apt-get update && apt-get install -y ${missing[*]}"
		return 1
	fi
	bk_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q ||
		{ bk_err "apt-get update failed"; return 1; }
	bk_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${missing[@]}" </dev/null ||
		{ bk_err "apt-get install failed"; return 1; }

	for pkg in "${missing[@]}"; do
		bk_pkg_installed "$pkg" || { bk_err "package $pkg is still not installed"; return 1; }
	done
	bk_log "Installed: ${missing[*]}"
}

bk_check_pg_config()
{
	if [[ ! -x "$PG_CONFIG" ]]; then
		bk_err "pg_config not found at $PG_CONFIG (install postgresql-server-dev-$BK_PG_MAJOR, or set PG_CONFIG)"
		return 1
	fi
}

bk_pgbin()
{
	local bindir
	bindir="$("$PG_CONFIG" --bindir 2>/dev/null)" || bindir=""
	printf '%s\n' "${bindir:-$BK_PGBIN_DEFAULT}"
}

bk_jobs()
{
	nproc 2>/dev/null || echo 2
}

#
# make
#
build()
{
	bk_check_pg_config || return 1
	make -j"$(bk_jobs)" PG_CONFIG="$PG_CONFIG"
}

#
# make install: needs write access to PostgreSQL's lib and share directories
# (root-owned on Debian).
#
install_extension()
{
	local pkglibdir sharedir rc

	bk_check_pg_config || return 1
	pkglibdir="$("$PG_CONFIG" --pkglibdir)"
	sharedir="$("$PG_CONFIG" --sharedir)"
	if bk_is_root || { [[ -w "$pkglibdir" && -w "$sharedir/extension" ]]; }; then
		make install PG_CONFIG="$PG_CONFIG"
		return
	fi
	if bk_installed_current "$pkglibdir" "$sharedir/extension"; then
		bk_log "The installed extension files are identical to the ones just built: nothing to install."
		return 0
	fi
	bk_as_root make install PG_CONFIG="$PG_CONFIG"
	rc=$?
	if [[ $rc -eq 126 ]]; then
		bk_err "make install needs write access to $pkglibdir and $sharedir/extension."
		bk_err "Run this script as root, or run 'make install PG_CONFIG=$PG_CONFIG' as root"
		bk_err "after each build (the script then finds the files installed and goes on)."
	fi
	return "$rc"
}

# True if the built module, control file and install scripts of every
# extension in the repository root are already installed, byte for byte.
bk_installed_current()
{
	local libdir=$1 extdir=$2 control ext f found=0
	for control in ./*.control; do
		[[ -f "$control" ]] || continue
		ext="$(basename "$control" .control)"
		cmp -s "$control" "$extdir/$ext.control" || return 1
		if [[ -f "$ext.so" ]]; then
			cmp -s "$ext.so" "$libdir/$ext.so" || return 1
		fi
		for f in sql/"$ext"--*.sql; do
			[[ -f "$f" ]] || continue
			cmp -s "$f" "$extdir/$(basename "$f")" || return 1
		done
		found=1
	done
	[[ $found -eq 1 ]]
}

build_and_install()
{
	build && install_extension
}

# True if something listens on TCP port $1 (IPv4 or IPv6) or a PostgreSQL
# socket for it exists in the usual places.
bk_port_in_use()
{
	local port=$1 hex f
	hex="$(printf '%04X' "$port")"
	for f in /proc/net/tcp /proc/net/tcp6; do
		[[ -r "$f" ]] || continue
		# local_address is column 2 (ADDR:PORT in hex), state 0A = LISTEN
		if awk -v p=":$hex" 'NR > 1 && $4 == "0A" && substr($2, length($2) - 4) == p { found = 1 }
			END { exit !found }' "$f"; then
			return 0
		fi
	done
	# sockets in the default places and in other clusters made by this file
	for f in /tmp /var/run/postgresql /tmp/bkpg.* /tmp/bkpg.*/shard* "${TMPDIR:-/tmp}"/bkpg.*; do
		[[ -e "$f/.s.PGSQL.$port" || -e "$f/.s.PGSQL.$port.lock" ]] && return 0
	done
	return 1
}

bk_free_port()
{
	local port=${BK_PORT_BASE:-55432} last
	last=$((port + 200))
	while ((port < last)); do
		if ! bk_port_in_use "$port"; then
			printf '%s\n' "$port"
			return 0
		fi
		port=$((port + 1))
	done
	bk_err "no free port found in ${BK_PORT_BASE:-55432}..$last"
	return 1
}

# Run a command as the cluster owner: postgres when we are root (initdb
# refuses to run as root), else ourselves.
bk_as_owner()
{
	if bk_is_root; then
		if command -v runuser >/dev/null 2>&1; then
			runuser -u postgres -- "$@"
		else
			# su needs one command string: quote every word
			su postgres -s /bin/sh -c "$(printf '%q ' "$@")"
		fi
	else
		"$@"
	fi
}

# Print the tail of the given log files (to stderr).
bk_show_log()
{
	local f
	for f in "$@"; do
		if [[ -s "$f" ]]; then
			printf -- '---- last lines of %s ----\n' "$f" >&2
			tail -n 40 "$f" >&2
		fi
	done
}

#
# Stop the cluster and delete its directory.  Safe to call more than once;
# installed as the EXIT trap by start_cluster.
#
stop_cluster()
{
	local pgbin dir=$BK_CLUSTER_DIR shard

	[[ -n "$dir" ]] || return 0
	pgbin="$(bk_pgbin)"
	for shard in "$dir"/shard*; do
		[[ -f "$shard/data/postmaster.pid" ]] || continue
		bk_as_owner "$pgbin/pg_ctl" -D "$shard/data" -m fast -w -t 60 stop >/dev/null 2>&1 ||
			bk_as_owner "$pgbin/pg_ctl" -D "$shard/data" -m immediate -w -t 30 stop >/dev/null 2>&1 ||
			bk_err "could not stop the shard cluster in $shard"
	done
	if [[ -f "$dir/data/postmaster.pid" ]]; then
		bk_as_owner "$pgbin/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >/dev/null 2>&1 ||
			bk_as_owner "$pgbin/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null 2>&1 ||
			bk_err "could not stop the cluster in $dir"
	fi
	if [[ "${BK_KEEP_CLUSTER:-0}" == 1 ]]; then
		bk_log "Keeping the cluster directory $dir (BK_KEEP_CLUSTER=1)."
	else
		rm -rf -- "$dir"
	fi
	BK_CLUSTER_DIR=""
}

bk_on_exit()
{
	local rc=$?
	stop_cluster
	exit "$rc"
}

#
# Create and start a private throwaway cluster: Unix socket only, in its own
# directory, on a free port.  Exports PGHOST, PGPORT and PGUSER=postgres.
#
start_cluster()
{
	local pgbin port dir

	bk_check_pg_config || return 1
	pgbin="$(bk_pgbin)"
	if [[ ! -x "$pgbin/initdb" || ! -x "$pgbin/pg_ctl" ]]; then
		bk_err "initdb/pg_ctl not found in $pgbin (install postgresql-$BK_PG_MAJOR)"
		return 1
	fi
	if bk_is_root && ! id postgres >/dev/null 2>&1; then
		bk_err "user 'postgres' does not exist (it comes with the postgresql-$BK_PG_MAJOR package)"
		return 1
	fi

	if bk_is_root; then
		# The postgres user must be able to reach the directory: use /tmp.
		dir="$(mktemp -d /tmp/bkpg.XXXXXX)" || return 1
		chown postgres:postgres "$dir" || { rm -rf -- "$dir"; return 1; }
	else
		dir="$(mktemp -d "${TMPDIR:-/tmp}/bkpg.XXXXXX")" || return 1
	fi
	chmod 700 "$dir"
	BK_CLUSTER_DIR=$dir
	trap bk_on_exit EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP

	port="$(bk_free_port)" || return 1

	bk_log "Creating a throwaway cluster in $dir (port $port)"
	if ! bk_as_owner "$pgbin/initdb" -D "$dir/data" -U postgres --auth=trust \
		--no-locale -E UTF8 >"$dir/initdb.log" 2>&1; then
		bk_err "initdb failed"
		bk_show_log "$dir/initdb.log"
		return 1
	fi

	# Small, fast, throwaway: durability is not needed.
	cat >>"$dir/data/postgresql.conf" <<EOF

# --- budgetkernel test cluster (test/lib.sh) ---
listen_addresses = ''
max_connections = 20
shared_buffers = ${BK_CLUSTER_SHARED_BUFFERS:-128MB}
work_mem = 16MB
maintenance_work_mem = 64MB
fsync = off
synchronous_commit = off
full_page_writes = off
max_wal_size = 1GB
checkpoint_timeout = 30min
max_worker_processes = 8
max_parallel_workers = 4
max_parallel_workers_per_gather = 2
log_min_messages = warning
log_min_error_statement = error
logging_collector = off
EOF
	# A suite that needs libraries loaded at start (BK_CLUSTER_PRELOAD, e.g.
	# "budgetkernel,pg_cron") or settings of its own (BK_CLUSTER_CONF, lines
	# of postgresql.conf) sets them before calling start_cluster.
	if [[ -n "${BK_CLUSTER_PRELOAD:-}" ]]; then
		printf "shared_preload_libraries = '%s'\n" "$BK_CLUSTER_PRELOAD" >>"$dir/data/postgresql.conf"
	fi
	if [[ -n "${BK_CLUSTER_CONF:-}" ]]; then
		printf '%s\n' "$BK_CLUSTER_CONF" >>"$dir/data/postgresql.conf"
	fi

	# OpenBLAS starts its worker threads when the library loads, before
	# budgetkernel can ask it for one thread: the variable keeps backends
	# single-threaded from the start (doc/scoring-performance.md, "BLAS threads").
	if ! (
		if [[ -n "${BK_CLUSTER_VMEM_KB:-}" ]]; then
			ulimit -v "$BK_CLUSTER_VMEM_KB" || exit 1
			bk_log "Address space of the cluster's processes capped at $BK_CLUSTER_VMEM_KB kB"
		fi
		bk_as_owner env OPENBLAS_NUM_THREADS=1 "$pgbin/pg_ctl" -D "$dir/data" \
			-l "$dir/server.log" -w -t 60 -o "-p $port -k '$dir'" start >/dev/null
	); then
		bk_err "the PostgreSQL server did not start"
		bk_show_log "$dir/server.log"
		return 1
	fi
	export PGHOST="$dir" PGPORT="$port" PGUSER=postgres
	bk_log "Server running: PGHOST=$PGHOST PGPORT=$PGPORT PGUSER=$PGUSER"
}

# bk_small_cluster_conf DATADIR WHAT: append the settings of a small
# throwaway cluster (no durability, few connections) to DATADIR's
# postgresql.conf, under a comment naming WHAT (the shards, the upgrade
# test's clusters).
bk_small_cluster_conf()
{
	cat >>"$1/postgresql.conf" <<EOF

# --- budgetkernel $2 ---
listen_addresses = ''
max_connections = 20
shared_buffers = 32MB
fsync = off
synchronous_commit = off
full_page_writes = off
log_min_messages = warning
logging_collector = off
EOF
}

#
# Start n more throwaway clusters, the shards of the distributed tests
# (test/shards): each in $BK_CLUSTER_DIR/shardK, on its own free port, on a
# Unix socket in its own directory (loopback only), with budgetkernel
# installed from the same build.  Exports BK_SHARDK_HOST and BK_SHARDK_PORT
# (K = 1..n).  start_cluster must have run; stop_cluster stops them too.
#
start_shards()
{
	local n=$1 k pgbin dir port

	[[ -n "$BK_CLUSTER_DIR" ]] || { bk_err "start_shards needs start_cluster first"; return 1; }
	pgbin="$(bk_pgbin)"
	for ((k = 1; k <= n; k++)); do
		dir="$BK_CLUSTER_DIR/shard$k"
		mkdir -p "$dir" && chmod 700 "$dir" || return 1
		if bk_is_root; then
			chown postgres:postgres "$dir" || return 1
		fi
		port="$(bk_free_port)" || return 1
		bk_log "Creating shard cluster $k in $dir (port $port)"
		if ! bk_as_owner "$pgbin/initdb" -D "$dir/data" -U postgres --auth=trust \
			--no-locale -E UTF8 >"$dir/initdb.log" 2>&1; then
			bk_err "initdb of shard $k failed"
			bk_show_log "$dir/initdb.log"
			return 1
		fi
		bk_small_cluster_conf "$dir/data" "shard cluster (test/lib.sh)"
		if ! bk_as_owner env OPENBLAS_NUM_THREADS=1 "$pgbin/pg_ctl" -D "$dir/data" \
			-l "$dir/server.log" -w -t 60 -o "-p $port -k '$dir'" start >/dev/null; then
			bk_err "shard cluster $k did not start"
			bk_show_log "$dir/server.log"
			return 1
		fi
		export "BK_SHARD${k}_HOST=$dir" "BK_SHARD${k}_PORT=$port"
		bk_log "Shard $k running: host=$dir port=$port"
	done
}
