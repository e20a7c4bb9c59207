#!/usr/bin/env bash
#
# test/pgvector.sh - pgvector for a PostgreSQL that Debian packages none
# for (Debian 12's 15), built from Debian's source package, for
# test/pgtap/embeddings.sql.  The Debian roots of 17 and 18
# (test/debian_root.sh) install the suites' own postgresql-NN-pgvector.
#
#   bash test/pgvector.sh PG_CONFIG
#
# The newer suites' source lists are read with a private sources list
# and apt state (the system's apt configuration is not changed); the
# upstream tarball is unpacked and built with that PG_CONFIG, and
# installed into it.  A stamp file, vector.bk-stamp in the PostgreSQL's
# extension directory, records the version: the build runs again only
# when the stamp is missing.
#
# Run as root on Debian.  Environment (optional):
#   BK_PG_CACHE       cache directory for the source lists (default
#                     /var/cache/budgetkernel)
#   BK_APT_SUITES     suites whose sources are searched (default "trixie sid")

set -euo pipefail

BK_PG_CACHE="${BK_PG_CACHE:-/var/cache/budgetkernel}"
BK_APT_SUITES="${BK_APT_SUITES:-trixie sid}"

log() { printf 'pgvector: %s\n' "$*" >&2; }
die() { printf 'pgvector: ERROR: %s\n' "$*" >&2; exit 1; }

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
	dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -qx 'install ok installed'
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

[[ $# -eq 1 ]] || die "usage: $0 PG_CONFIG"
cmd_pgvector "$1"
