#!/bin/bash
#
# test/cross.sh ARCH [all] - the core's unit tests on another architecture
#
#   bash test/cross.sh aarch64        little-endian, FMA in the base ISA
#   bash test/cross.sh s390x          big-endian, FMA in the base ISA
#   bash test/cross.sh s390x all      the whole unit suite too (slow)
#
# A release check (doc/maintainers.md, Determinism): model bytes must be
# the same on every architecture.  The unit binary of make unittest
# (test/unit/*.c) is cross-compiled with the Makefile's own rule and
# flags (UNIT_CFLAGS: -std=c99 -O2 -ffp-contract=off) by Debian's cross
# compiler and run under qemu-user: the fingerprint test alone
# (BK_UNIT_ONLY=fingerprints: its 157 model hashes, lanes on and off,
# and the hash of their scores), and with "all" the whole suite as well,
# under OpenBLAS's own choice of kernels (BK_CROSS_CORETYPES="native
# ARMV8", or "native ZARCH_GENERIC", adds a run with its generic ones).
# Under qemu's emulation the whole suite takes
# tens of minutes where x86-64 takes half a minute; the fingerprints a
# minute or less.
#
# The unit tests check the core's linear algebra against LAPACKE and BLAS,
# so the binary needs the target architecture's liblapacke-dev and
# libopenblas-dev: they come from Debian's multiarch (dpkg
# --add-architecture arm64 or s390x), Debian's own builds for that
# architecture, so that the same binary holds the whole suite, not a
# subset built without them.  It links dynamically against them and the
# cross libc (libc6-dev-ARCH-cross), and qemu runs it without -L: the
# loader and libc are the multiarch libc6:ARCH that those libraries
# depend on (the same glibc as the cross libc).  With -L /usr/<triplet>,
# the cross libc's loader with the multiarch libraries, even a hello
# world aborts with "stack smashing detected".  Note: a Multi-Arch: same
# package then has two status lines under its bare name, so a check of
# dpkg-query -W -f='${Status}' NAME must name the architecture.
#
# Missing packages are installed (as root or with password-less sudo;
# apt-get update once); if that fails the script stops with one line
# "cross: cannot install ..." and exit status 2.
#
# Output: the build, one line per run ("ok" or "FAIL", the architecture,
# what ran, the binary's own count and the time; a failing run's "not
# ok" lines and FINGERPRINTS verdict before it), and last, alone on its
# line, "N passed, N failed": the checks of every run added up (a run
# that ends without its count, a crash, counts as one failed check).
# Exit status 0 only if every run passed.
#
# Environment: PG_CONFIG (the Makefile includes PGXS; default
# /usr/lib/postgresql/15/bin/pg_config), BK_CROSS_CORETYPES (the full
# suite's OPENBLAS_CORETYPE values, one run each; "native", the default,
# leaves it unset).

set -u

usage()
{
	echo "usage: bash test/cross.sh aarch64|s390x [all]" >&2
	exit 2
}

[[ $# -eq 1 || ( $# -eq 2 && $2 == all ) ]] || usage
arch=$1
full=${2:-}
case "$arch" in
	aarch64)
		triplet=aarch64-linux-gnu
		debarch=arm64
		;;
	s390x)
		triplet=s390x-linux-gnu
		debarch=s390x
		;;
	*)
		usage
		;;
esac
qemu=qemu-$arch
coretypes=${BK_CROSS_CORETYPES:-native}

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
export PG_CONFIG="${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}"

die()
{
	echo "cross: $*" >&2
	exit 2
}

# ---- the packages ----
# A Multi-Arch: same package installed for two architectures has two
# status lines under its bare name: the foreign ones are asked for by
# name:arch, each alone.
# (the cross libc's headers are only a Recommends of the cross compiler)
packages=("gcc-$triplet" "libc6-dev-$debarch-cross" qemu-user
	"liblapacke-dev:$debarch" "libopenblas-dev:$debarch")

installed()
{
	[[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]
}

command -v dpkg-query >/dev/null 2>&1 || die "cannot install ${packages[*]}: not a Debian system (no dpkg-query)"
missing=()
for p in "${packages[@]}"; do
	installed "$p" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
	echo "cross: installing ${missing[*]}"
	if [[ $(id -u) -ne 0 ]]; then
		if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
			as_root=(sudo -n)
		else
			die "cannot install ${missing[*]}: not root and no password-less sudo"
		fi
	else
		as_root=()
	fi
	if ! dpkg --print-foreign-architectures | grep -qx "$debarch"; then
		"${as_root[@]}" dpkg --add-architecture "$debarch" ||
			die "cannot install ${missing[*]}: dpkg --add-architecture $debarch failed"
	fi
	apt=("${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=600)
	"${apt[@]}" update >/dev/null ||
		die "cannot install ${missing[*]}: apt-get update failed"
	"${apt[@]}" install -y --no-install-recommends "${missing[@]}" >/dev/null ||
		die "cannot install ${missing[*]}: apt-get install failed"
	for p in "${missing[@]}"; do
		installed "$p" || die "cannot install $p: still not installed after apt-get install"
	done
fi
command -v "$qemu" >/dev/null 2>&1 || die "cannot install qemu-user: $qemu not found"
[[ -f /usr/$triplet/include/stdio.h ]] || die "cannot install the cross libc: /usr/$triplet/include/stdio.h is missing"

# ---- the build: the Makefile's rule, the cross compiler ----
bin=test/unit/test_core.$arch
start=$SECONDS
if ! make -s -B "$bin" UNIT_BIN="$bin" UNIT_CC="$triplet-gcc" \
	LINALG_CFLAGS="-I/usr/include/$triplet" \
	LINALG_LIBS="-L/usr/lib/$triplet -llapacke -lblas"; then
	echo "FAIL $arch: the cross build ($triplet-gcc) failed"
	echo "0 passed, 1 failed"
	exit 1
fi
echo "built $bin with $triplet-gcc in $((SECONDS - start)) s"

# ---- the runs under qemu ----
passed=0
failed=0
runs_failed=0

# run NAME ENV...: the binary under qemu with the environment ENV
run()
{
	local name=$1 log=$bin.$1.log start=$SECONDS rc last p f
	shift
	env "$@" OPENBLAS_NUM_THREADS=1 "$qemu" "./$bin" > "$log" 2>&1
	rc=$?
	last=$(tail -n 1 "$log")
	if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
		p=${BASH_REMATCH[1]}
		f=${BASH_REMATCH[2]}
	else
		p=0
		f=1
		last="no count (exit status $rc): $last"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	if [[ $rc -eq 0 && $f -eq 0 ]]; then
		echo "ok   $arch under $qemu, $name: $last, $((SECONDS - start)) s"
	else
		grep -E '^not ok|FINGERPRINTS' "$log"
		echo "FAIL $arch under $qemu, $name: $last, $((SECONDS - start)) s (log: $log)"
		runs_failed=$((runs_failed + 1))
	fi
}

run fingerprints BK_UNIT_ONLY=fingerprints
if [[ $full == all ]]; then
	for ct in $coretypes; do
		if [[ $ct == native ]]; then
			run "suite-$ct" -u OPENBLAS_CORETYPE
		else
			run "suite-$ct" OPENBLAS_CORETYPE="$ct"
		fi
	done
fi
echo "$passed passed, $failed failed"
[[ $runs_failed -eq 0 && $failed -eq 0 ]]
