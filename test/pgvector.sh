#!/usr/bin/env bash
#
# test/pg_major.sh - a PostgreSQL major other than Debian 12's 15, built from
# Debian's source package into a cache outside the clone, with postgres_fdw
# and pgTAP; and pgvector built for a PostgreSQL the tests use.
#
#   bash test/pg_major.sh build MAJOR       build PostgreSQL MAJOR (17, 18, ...)
#                                           if it is not in the cache; prints
#                                           the path of its pg_config last
#   bash test/pg_major.sh pg_config MAJOR   print that path (no build)
#   bash test/pg_major.sh pgvector PG_CONFIG
#                                           build pgvector (Debian's source
#                                           package) for that PostgreSQL
#                                           and install it into it
#   bash test/pg_major.sh plproxy PG_CONFIG
#                                           the same for PL/Proxy (the
#                                           shards suite's second recipe)
#
# Debian 12 packages PostgreSQL 15 only, but its mirror also serves the
# source packages of the newer suites: postgresql-17 (trixie),
# postgresql-18 (sid), pgtap and pgvector.  They are fetched with a private
# sources list and apt state (the system's apt configuration is not
# changed), unpacked from their upstream tarballs and built with
#
#   ./configure --prefix=$BK_PG_CACHE/pg-MAJOR --without-icu --without-readline --without-zlib
#
# (about 6 CPU-minutes), then contrib/postgres_fdw and pgTAP are installed
# into the same prefix.  A stamp file, $BK_PG_CACHE/pg-MAJOR/.bk-stamp,
# records the source versions; the build runs again only when the stamp is
# missing (delete the directory to rebuild).  pgvector's and PL/Proxy's
# stamps are vector.bk-stamp and plproxy.bk-stamp in the PostgreSQL's
# extension directory.
#
# Run as root on Debian (it installs bison, flex and the other build
# packages that are missing).  Environment (optional):
#   BK_PG_CACHE       cache directory (default /var/cache/budgetkernel)
#   BK_APT_SUITES     suites whose sources are searched (default "trixie sid")
#   BK_BUILD_JOBS     make -j (default: the number of CPUs)

set -euo pipefail

BK_PG_CACHE="${BK_PG_CACHE:-/var/cache/budgetkernel}"
BK_APT_SUITES="${BK_APT_SUITES:-trixie sid}"
JOBS="${BK_BUILD_JOBS:-$(nproc 2>/dev/null || echo 2)}"

log() { printf 'pg_major: %s\n' "$*" >&2; }
die() { printf 'pg_major: ERROR: %s\n' "$*" >&2; exit 1; }

as_root()
{
	if [[ "$(id -u)" -eq 0 ]]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		sudo -n "$@"
	else
		die "needs root (or password-less sudo) for: $*"
	fi
}

pkg_installed()
{
	[[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]
}

# Install the Debian packages in "$@" that are missing.
need_packages()
{
	local missing=() p
	for p in "$@"; do
		pkg_installed "$p" || missing+=("$p")
	done
	[[ ${#missing[@]} -eq 0 ]] && return 0
	log "installing ${missing[*]}"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 || die "apt-get update failed"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" </dev/null >&2 || die "apt-get install ${missing[*]} failed"
}

# The mirror of the system's sources (deb.debian.org unless configured).
mirror_uri()
{
	local uri="" f
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -f "$f" ]] || continue
		uri=$(awk '/^URIs:/ && $2 ~ /debian\/?$/ { print $2; exit }' "$f")
		[[ -n "$uri" ]] && break
	done
	if [[ -z "$uri" && -f /etc/apt/sources.list ]]; then
		uri=$(awk '$1 == "deb" && $0 ~ /debian\/? / { for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):/) { print $i; exit } }' \
			/etc/apt/sources.list)
	fi
	printf '%s\n' "${uri:-http://deb.debian.org/debian}"
}

APT_STATE="$BK_PG_CACHE/apt"
APT_OPTS=()

# A private sources list with deb-src lines of the newer suites, and a
# private state directory: apt-get update there does not change the
# system's package lists.  Updated at most once a day.
apt_private()
{
	local uri s
	mkdir -p "$BK_PG_CACHE" 2>/dev/null && [[ -w "$BK_PG_CACHE" ]] ||
		die "cannot write the cache directory $BK_PG_CACHE (run as root, or set BK_PG_CACHE)"
	uri=$(mirror_uri)
	mkdir -p "$APT_STATE/lists/partial" "$APT_STATE/archives/partial"
	: >"$APT_STATE/sources.list.new"
	for s in $BK_APT_SUITES; do
		echo "deb-src $uri $s main" >>"$APT_STATE/sources.list.new"
	done
	APT_OPTS=(-o APT::Sandbox::User=root -o "Dir::Etc::sourcelist=$APT_STATE/sources.list"
		-o Dir::Etc::sourceparts=- -o "Dir::State::lists=$APT_STATE/lists"
		-o "Dir::Cache::archives=$APT_STATE/archives"
		-o Dir::State::status=/var/lib/dpkg/status)
	if ! cmp -s "$APT_STATE/sources.list.new" "$APT_STATE/sources.list" ||
		[[ -z "$(find "$APT_STATE/lists" -maxdepth 1 -name '*Sources*' -mtime -1 2>/dev/null)" ]]; then
		mv "$APT_STATE/sources.list.new" "$APT_STATE/sources.list"
		log "apt-get update of the source lists ($BK_APT_SUITES at $uri)"
		apt-get "${APT_OPTS[@]}" update -q >&2 || die "apt-get update (private source lists) failed"
	else
		rm -f "$APT_STATE/sources.list.new"
	fi
}

# The versions of source package $1 in the private lists, newest first.
source_versions()
{
	apt-cache "${APT_OPTS[@]}" showsrc "$1" 2>/dev/null |
		awk '/^Version:/ { print $2 }' | sort -rV | uniq
}

# Download the upstream tarball of source package $1 into directory $2 and
# unpack it there; sets FETCHED_DIR (the unpacked directory) and
# FETCHED_VERSION.  Versions are tried newest first (the mirror may lack
# some files); the Debian patches are not needed and not applied.
fetch_source()
{
	local pkg=$1 dir=$2 ver tarball top
	FETCHED_DIR="" FETCHED_VERSION=""
	mkdir -p "$dir"
	for ver in $(source_versions "$pkg"); do
		rm -f "$dir/${pkg}_"*.orig.tar.*
		(cd "$dir" && apt-get "${APT_OPTS[@]}" source -qq --download-only "$pkg=$ver" >&2) ||
			log "apt-get source $pkg=$ver reported errors; looking for its upstream tarball"
		tarball=$(find "$dir" -maxdepth 1 -name "${pkg}_${ver%-*}.orig.tar.*" ! -name '*.asc' | sort | tail -n 1)
		rm -rf -- "$dir/unpacked.$pkg"
		mkdir "$dir/unpacked.$pkg"
		if [[ -n "$tarball" ]] && tar xf "$tarball" -C "$dir/unpacked.$pkg" 2>/dev/null; then
			top=$(find "$dir/unpacked.$pkg" -mindepth 1 -maxdepth 1 -type d)
			if [[ -n "$top" && "$top" != *$'\n'* ]]; then
				FETCHED_DIR=$top FETCHED_VERSION=$ver
				return 0
			fi
		fi
		log "no usable upstream tarball of $pkg $ver"
	done
	die "could not fetch source package $pkg from $BK_APT_SUITES"
}

pg_prefix() { printf '%s/pg-%s\n' "$BK_PG_CACHE" "$1"; }

cmd_pg_config()
{
	local prefix
	prefix=$(pg_prefix "$1")
	printf '%s/bin/pg_config\n' "$prefix"
}

cmd_build()
{
	local major=$1 prefix src ver srcdir pgtap_ver pgtap_dir t0=$SECONDS
	[[ "$major" =~ ^[0-9]+$ ]] || die "not a major version: $major"
	prefix=$(pg_prefix "$major")
	if [[ -f "$prefix/.bk-stamp" && -x "$prefix/bin/pg_config" ]]; then
		log "PostgreSQL $major is in the cache: $(head -n 1 "$prefix/.bk-stamp")"
		cmd_pg_config "$major"
		return 0
	fi

	log "building PostgreSQL $major into $prefix (about 6 CPU-minutes)"
	need_packages build-essential bison flex perl
	apt_private
	src="$BK_PG_CACHE/src/pg-$major"
	rm -rf -- "$src" "$prefix"
	# the sources are deleted after a build, and after a failed fetch
	trap 'rm -rf -- "$src"' EXIT
	fetch_source "postgresql-$major" "$src"
	trap - EXIT
	srcdir=$FETCHED_DIR ver=$FETCHED_VERSION
	log "configure, make, make install of $srcdir"
	(
		cd "$srcdir"
		./configure --prefix="$prefix" --without-icu --without-readline --without-zlib \
			>"$src/configure.log" 2>&1 ||
			{ tail -n 30 "$src/configure.log" >&2; exit 1; }
		make -s -j"$JOBS" >"$src/make.log" 2>&1 || { tail -n 40 "$src/make.log" >&2; exit 1; }
		make -s install >>"$src/make.log" 2>&1 || { tail -n 40 "$src/make.log" >&2; exit 1; }
		make -s -C contrib/postgres_fdw install >>"$src/make.log" 2>&1 ||
			{ tail -n 40 "$src/make.log" >&2; exit 1; }
	) || die "the build of PostgreSQL $major failed (logs in $src)"

	fetch_source pgtap "$src"
	pgtap_dir=$FETCHED_DIR pgtap_ver=$FETCHED_VERSION
	log "pgTAP $pgtap_ver for PostgreSQL $major"
	(
		cd "$pgtap_dir"
		make -s PG_CONFIG="$prefix/bin/pg_config" >"$src/pgtap.log" 2>&1 &&
			make -s PG_CONFIG="$prefix/bin/pg_config" install >>"$src/pgtap.log" 2>&1 ||
			{ tail -n 40 "$src/pgtap.log" >&2; exit 1; }
	) || die "the build of pgTAP for PostgreSQL $major failed"

	# the server runs as postgres: everything readable by all
	chmod -R a+rX "$prefix"
	printf 'postgresql-%s %s, pgtap %s, built %s\nconfigure --without-icu --without-readline --without-zlib\n' \
		"$major" "$ver" "$pgtap_ver" "$(date -u '+%Y-%m-%d %H:%M:%S UTC')" >"$prefix/.bk-stamp"
	rm -rf -- "$src"
	log "PostgreSQL $major built in $((SECONDS - t0))s: $(head -n 1 "$prefix/.bk-stamp")"
	cmd_pg_config "$major"
}

cmd_pgvector()
{
	local pgc=$1 extdir ver src dir t0=$SECONDS
	[[ -x "$pgc" ]] || die "no pg_config at $pgc"
	extdir="$("$pgc" --sharedir)/extension"
	if [[ -f "$extdir/vector.bk-stamp" && -f "$extdir/vector.control" &&
		-f "$("$pgc" --pkglibdir)/vector.so" ]]; then
		log "pgvector is installed for $("$pgc" --version): $(cat "$extdir/vector.bk-stamp")"
		return 0
	fi
	need_packages build-essential
	apt_private
	src=$(mktemp -d "${TMPDIR:-/tmp}/bk-pgvector.XXXXXX")
	fetch_source pgvector "$src"
	dir=$FETCHED_DIR ver=$FETCHED_VERSION
	log "building pgvector $ver for $("$pgc" --version)"
	# pgvector 0.8.0 predates PostgreSQL 18, and 0.8.1, which supports it,
	# is not on the mirror: the two lines that do not compile against 18
	# are rewritten as 0.8.1 does (vacuum_delay_point takes is_analyze;
	# TupleDesc's attrs are read through TupleDescAttr, which every major
	# has).  Checked: pgvector's own regression suite passes on 18 so.
	if [[ "$("$pgc" --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')" -ge 18 ]] &&
		grep -q 'vacuum_delay_point()' "$dir"/src/*.c; then
		log "pgvector $ver: vacuum_delay_point() and tupdesc->attrs[0] rewritten for PostgreSQL 18"
		sed -i 's/vacuum_delay_point()/vacuum_delay_point(false)/' "$dir"/src/*.c
		sed -i 's/buildstate->tupdesc->attrs\[0\]\.atttypid/TupleDescAttr(buildstate->tupdesc, 0)->atttypid/' \
			"$dir"/src/ivfbuild.c
	fi
	# OPTFLAGS="": no -march=native, the library runs on any x86-64
	(
		cd "$dir"
		make -s PG_CONFIG="$pgc" OPTFLAGS="" >"$src/make.log" 2>&1 &&
			as_root make -s PG_CONFIG="$pgc" OPTFLAGS="" install >>"$src/make.log" 2>&1 ||
			{ tail -n 40 "$src/make.log" >&2; exit 1; }
	) || { rm -rf -- "$src"; die "the build of pgvector failed"; }
	printf 'pgvector %s, built %s\n' "$ver" "$(date -u '+%Y-%m-%d %H:%M:%S UTC')" |
		as_root tee "$extdir/vector.bk-stamp" >/dev/null
	rm -rf -- "$src"
	log "pgvector $ver installed in $((SECONDS - t0))s"
}

cmd_plproxy()
{
	local pgc=$1 extdir ver src dir t0=$SECONDS
	[[ -x "$pgc" ]] || die "no pg_config at $pgc"
	extdir="$("$pgc" --sharedir)/extension"
	if [[ -f "$extdir/plproxy.bk-stamp" && -f "$extdir/plproxy.control" ]]; then
		log "PL/Proxy is installed for $("$pgc" --version): $(cat "$extdir/plproxy.bk-stamp")"
		return 0
	fi
	need_packages build-essential bison flex
	apt_private
	src=$(mktemp -d "${TMPDIR:-/tmp}/bk-plproxy.XXXXXX")
	fetch_source postgresql-plproxy "$src"
	dir=$FETCHED_DIR ver=$FETCHED_VERSION
	log "building PL/Proxy $ver for $("$pgc" --version)"
	(
		cd "$dir"
		make -s PG_CONFIG="$pgc" >"$src/make.log" 2>&1 &&
			as_root make -s PG_CONFIG="$pgc" install >>"$src/make.log" 2>&1 ||
			{ tail -n 40 "$src/make.log" >&2; exit 1; }
	) || { rm -rf -- "$src"; die "the build of PL/Proxy failed"; }
	printf 'plproxy %s, built %s\n' "$ver" "$(date -u '+%Y-%m-%d %H:%M:%S UTC')" |
		as_root tee "$extdir/plproxy.bk-stamp" >/dev/null
	rm -rf -- "$src"
	log "PL/Proxy $ver installed in $((SECONDS - t0))s"
}

case "${1:-}" in
build) [[ $# -eq 2 ]] || die "usage: $0 build MAJOR"; cmd_build "$2" ;;
pg_config) [[ $# -eq 2 ]] || die "usage: $0 pg_config MAJOR"; cmd_pg_config "$2" ;;
pgvector) [[ $# -eq 2 ]] || die "usage: $0 pgvector PG_CONFIG"; cmd_pgvector "$2" ;;
plproxy) [[ $# -eq 2 ]] || die "usage: $0 plproxy PG_CONFIG"; cmd_plproxy "$2" ;;
*) die "usage: $0 build MAJOR | pg_config MAJOR | pgvector PG_CONFIG | plproxy PG_CONFIG" ;;
esac
