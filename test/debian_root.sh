#!/usr/bin/env bash
#
# test/debian_root.sh - Debian's own PostgreSQL 17 and 18, in Debian roots
# made with debootstrap and kept in a cache outside the clone.
#
#   bash test/debian_root.sh ensure SUITE        make the root of SUITE if it
#                                                is not in the cache, install
#                                                what its list lacks; prints
#                                                the root's path last
#   bash test/debian_root.sh path SUITE          print that path (no work)
#   bash test/debian_root.sh major SUITE         print its PostgreSQL major
#   bash test/debian_root.sh copy SUITE          copy this tree (git's tracked
#                                                and untracked files, no build
#                                                outputs) to /build/budgetkernel
#                                                in the root, replacing /build
#   bash test/debian_root.sh run SUITE [--bind SRC DST]... -- CMD [ARG...]
#                                                run CMD as root inside the
#                                                root, SRC mounted at DST
#                                                (a path inside the root)
#
# SUITE is trixie (Debian 13: PostgreSQL 17) or sid (Debian unstable:
# PostgreSQL 18, and trixie's 17 beside it for pg_upgrade 17 -> 18).
# Debian 12 packages PostgreSQL 15 only; its mirror also serves the
# binary packages of the newer suites, which run in a root of their own
# (their C library is newer than the host's).  A root is made with
#
#   debootstrap --variant=minbase SUITE ROOT MIRROR
#
# (about 30 s on an idle machine, 4 to 5 minutes on a loaded one), then
# apt-get installs, inside it, PostgreSQL with its server headers, pgTAP,
# PL/Proxy, pgvector and pg_cron from the suite's own packages, the suite's gcc, the
# unit tests' LAPACKE and what dpkg-buildpackage and lintian need (about a
# minute each).  The root's installed list is recorded in ROOT/.bk-stamp:
# a later call installs only what a changed list adds.  Each root takes 2
# to 4 GB; delete its directory to make it again.
#
# Commands run inside a root in a mount namespace of their own (unshare),
# with /proc and /dev mounted; nothing is left mounted when they end.
# Failures stop with one line saying what to do: a missing debootstrap or
# mirror, a failed debootstrap (its log is shown and the half-made root
# deleted), too little room on the cache's disk.
#
# Run as root on Debian.  Environment (optional):
#   BK_ROOT_CACHE   where the roots are kept (default
#                   /var/cache/budgetkernel/roots)
#   BK_MIRROR       the Debian mirror (default: the one the host's apt uses)

set -euo pipefail

BK_ROOT_CACHE="${BK_ROOT_CACHE:-/var/cache/budgetkernel/roots}"
# free space a new root needs, in kB (a root with lintian is under 4 GB)
BK_ROOT_NEED_KB=$((6 * 1024 * 1024))

log() { printf 'debian_root: %s\n' "$*" >&2; }
die() { printf 'debian_root: ERROR: %s\n' "$*" >&2; exit 1; }

# The PostgreSQL major of each suite, and the packages its root holds.
suite_major()
{
	case "$1" in
	trixie) echo 17 ;;
	sid) echo 18 ;;
	*) die "unknown suite '$1' (trixie or sid)" ;;
	esac
}

suite_packages()
{
	local m
	m=$(suite_major "$1")
	# the build, the unit tests' reference, the test clients, packaging
	echo make gcc libc6-dev pkgconf liblapacke-dev libopenblas-dev \
		libtap-parser-sourcehandler-pgtap-perl \
		dpkg-dev debhelper fakeroot lintian postgresql-server-dev-all
	echo "postgresql-$m" "postgresql-server-dev-$m" "postgresql-$m-pgtap" \
		"postgresql-$m-plproxy" "postgresql-$m-pgvector" "postgresql-$m-cron"
	# sid no longer has 17: trixie's, for pg_upgrade 17 -> 18 in that root
	[[ "$1" != sid ]] || echo postgresql-17/trixie postgresql-server-dev-17/trixie
	# Citus's build (test/citus.sh), in the trixie root
	[[ "$1" != trixie ]] || echo liblz4-dev libzstd-dev libkrb5-dev libssl-dev libicu-dev
}

# The mirror of the host's sources (deb.debian.org unless configured).
mirror_uri()
{
	local uri="${BK_MIRROR:-}" f
	if [[ -z "$uri" ]]; then
		for f in /etc/apt/sources.list.d/*.sources; do
			[[ -f "$f" ]] || continue
			uri=$(awk '/^URIs:/ && $2 ~ /debian\/?$/ { print $2; exit }' "$f")
			[[ -n "$uri" ]] && break
		done
	fi
	if [[ -z "$uri" && -f /etc/apt/sources.list ]]; then
		uri=$(awk '$1 == "deb" && $0 ~ /debian\/? / { for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):/) { print $i; exit } }' \
			/etc/apt/sources.list)
	fi
	printf '%s\n' "${uri:-http://deb.debian.org/debian}"
}

root_path() { printf '%s/%s\n' "$BK_ROOT_CACHE" "$1"; }

# in_root ROOT [--bind SRC DST]... -- CMD...: CMD inside ROOT, in a
# private mount namespace
in_root()
{
	local root=$1 mounts="" src dst
	shift
	while [[ $# -gt 0 && "$1" != -- ]]; do
		[[ "$1" == --bind && $# -ge 3 ]] || die "usage: run SUITE [--bind SRC DST]... -- CMD"
		src=$2 dst=$3
		[[ -e "$src" ]] || die "no such file or directory to mount: $src"
		mkdir -p "$root/$dst"
		mounts+="mount --bind $(printf '%q' "$src") $(printf '%q' "$root/$dst") && "
		shift 3
	done
	[[ "${1:-}" == -- && $# -ge 2 ]] || die "usage: run SUITE [--bind SRC DST]... -- CMD"
	shift
	[[ -x "$root/bin/sh" ]] || die "no root at $root (bash test/debian_root.sh ensure SUITE)"
	command -v unshare >/dev/null || die "unshare not found (Debian: util-linux)"
	# the command's words reach the inner shell as its own arguments
	unshare --mount --propagation private sh -c "
		mount --bind /proc '$root/proc' && mount --rbind /dev '$root/dev' && $mounts
		exec chroot '$root' /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \"\$@\"" sh "$@"
}

cmd_copy()
{
	local root top
	root=$(root_path "$1")
	[[ -x "$root/bin/sh" ]] || die "no root at $root (bash test/debian_root.sh ensure $1)"
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	rm -rf -- "$root/build"
	mkdir -p "$root/build/budgetkernel"
	if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$top" ls-files -z --cached --others --exclude-standard |
			(cd "$top" && xargs -0 cp --parents -t "$root/build/budgetkernel") ||
			die "could not copy the tree into $root/build"
	else
		tar -C "$top" --exclude=./.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' \
			--exclude=./results -cf - . | tar -C "$root/build/budgetkernel" -xf - ||
			die "could not copy the tree into $root/build"
	fi
}

cmd_ensure()
{
	local suite=$1 root major uri want have avail t0=$SECONDS
	major=$(suite_major "$suite")
	root=$(root_path "$suite")
	want=$(suite_packages "$suite" | tr ' ' '\n' | sort | tr '\n' ' ')
	have=""
	[[ -f "$root/.bk-stamp" ]] && have=$(sed -n 's/^packages: //p' "$root/.bk-stamp")
	if [[ -n "$have" && "$have" == "$want" ]]; then
		log "the $suite root is in the cache: $(head -n 1 "$root/.bk-stamp")"
		printf '%s\n' "$root"
		return 0
	fi
	[[ "$(id -u)" -eq 0 ]] || die "making a Debian root needs root (debootstrap, chroot)"
	mkdir -p "$BK_ROOT_CACHE" 2>/dev/null && [[ -w "$BK_ROOT_CACHE" ]] ||
		die "cannot write $BK_ROOT_CACHE (run as root, or set BK_ROOT_CACHE)"
	uri=$(mirror_uri)

	if [[ ! -f "$root/.bk-debootstrap" ]]; then
		avail=$(df -Pk "$BK_ROOT_CACHE" | awk 'NR == 2 { print $4 }')
		[[ "${avail:-0}" -ge "$BK_ROOT_NEED_KB" ]] ||
			die "$((avail / 1024)) MB free under $BK_ROOT_CACHE, and a $suite root needs $((BK_ROOT_NEED_KB / 1024)) MB: free some room, or set BK_ROOT_CACHE to a larger disk"
		if ! command -v debootstrap >/dev/null; then
			log "installing debootstrap"
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap \
				</dev/null >&2 || die "apt-get install debootstrap failed: install it, then run again"
		fi
		rm -rf -- "$root"
		log "debootstrap --variant=minbase $suite $root $uri (a minute, or several on a loaded machine)"
		mkdir -p "$root"
		if ! debootstrap --variant=minbase "$suite" "$root" "$uri" >"$BK_ROOT_CACHE/$suite.debootstrap.log" 2>&1; then
			tail -n 20 "$BK_ROOT_CACHE/$suite.debootstrap.log" >&2
			rm -rf -- "$root"
			die "debootstrap of $suite from $uri failed (the log's end above, in full in $BK_ROOT_CACHE/$suite.debootstrap.log): check that the mirror serves $suite (BK_MIRROR names another)"
		fi
		# a mirror that is a dated snapshot has an expired Release file
		echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/90bk-snapshot"
		# the tests make their own clusters: no 'main' cluster per major
		mkdir -p "$root/etc/postgresql-common"
		echo 'create_main_cluster = false' >"$root/etc/postgresql-common/createcluster.conf"
		if [[ "$suite" == sid ]]; then
			echo "deb $uri trixie main" >"$root/etc/apt/sources.list.d/trixie.list"
			printf 'Package: *\nPin: release n=trixie\nPin-Priority: 100\n' \
				>"$root/etc/apt/preferences.d/90bk-trixie"
		fi
		date -u '+%Y-%m-%d %H:%M:%S UTC' >"$root/.bk-debootstrap"
	fi

	log "apt-get install in the $suite root: $want"
	# shellcheck disable=SC2086	# the list is meant to split into words
	if ! in_root "$root" -- sh -c 'apt-get update -q && apt-get install -y -q --no-install-recommends "$@"' \
		sh $want </dev/null >"$BK_ROOT_CACHE/$suite.apt.log" 2>&1; then
		tail -n 20 "$BK_ROOT_CACHE/$suite.apt.log" >&2
		die "apt-get install in the $suite root failed (log: $BK_ROOT_CACHE/$suite.apt.log): check the mirror ($uri), or delete $root to make it again"
	fi
	in_root "$root" -- apt-get clean
	{
		printf 'Debian %s, PostgreSQL %s, made %s\n' "$(cat "$root/etc/debian_version")" \
			"$(in_root "$root" -- "/usr/lib/postgresql/$major/bin/pg_config" --version | sed 's/^PostgreSQL //')" \
			"$(cat "$root/.bk-debootstrap")"
		printf 'packages: %s\n' "$want"
	} >"$root/.bk-stamp"
	log "the $suite root is ready in $((SECONDS - t0))s: $(head -n 1 "$root/.bk-stamp")"
	printf '%s\n' "$root"
}

case "${1:-}" in
ensure) [[ $# -eq 2 ]] || die "usage: $0 ensure SUITE"; cmd_ensure "$2" ;;
path) [[ $# -eq 2 ]] || die "usage: $0 path SUITE"; suite_major "$2" >/dev/null; root_path "$2" ;;
major) [[ $# -eq 2 ]] || die "usage: $0 major SUITE"; suite_major "$2" ;;
copy) [[ $# -eq 2 ]] || die "usage: $0 copy SUITE"; suite_major "$2" >/dev/null; cmd_copy "$2" ;;
run)
	[[ $# -ge 4 ]] || die "usage: $0 run SUITE [--bind SRC DST]... -- CMD"
	suite_major "$2" >/dev/null
	root=$(root_path "$2")
	shift 2
	in_root "$root" "$@"
	;;
*) die "usage: $0 ensure SUITE | path SUITE | major SUITE | copy SUITE | run SUITE [--bind SRC DST]... -- CMD" ;;
esac
