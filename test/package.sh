#!/usr/bin/env bash
#
# test/package.sh - the release check of the Debian package: build it,
# look inside, install it, and run CREATE EXTENSION from it.
#
#   bash test/package.sh          this distribution's majors (Debian 12: 15)
#   bash test/package.sh --all    15 here, then 17 and 18 in the Debian roots
#                                 of test/debian_root.sh (its packages are
#                                 left in ROOT/build/pkg)
#
# As root on Debian 12 (or later):
#
# 1. installs what the build needs (debhelper, postgresql-server-dev-all
#    at the version of the installed postgresql-common, so that nothing
#    installed is upgraded, and the extension's own build dependencies);
# 2. copies the repository's sources (git's tracked and untracked files,
#    not build outputs) to a temporary directory, writes debian/control
#    for the distribution's majors (pg_buildext updatecontrol) and the
#    upstream tarball, and runs dpkg-buildpackage -us -uc there: the
#    source package and one postgresql-NN-budgetkernel package per
#    PostgreSQL major with server headers installed that debian/pgversions
#    and the distribution allow (pg_buildext);
#    then runs lintian on them: no error and no warning but
#    initial-upload-closes-no-bugs;
# 3. lists each package (dpkg-deb -c) and checks that it holds the module,
#    the control file and every install and update script;
# 4. installs each package: by default with apt-get install ./package.deb
#    into the system's PostgreSQL, as a user would; with
#    BK_PKG_ROOT=/some/root it extracts the package into that root instead
#    (dpkg-deb -x), which must hold a relocated copy of Debian's
#    PostgreSQL (ROOT/usr/lib/postgresql/NN/bin/pg_config), so that the
#    system's PostgreSQL is left alone;
# 5. checks that the installed module is the packaged one, starts a
#    throwaway cluster of that major, runs CREATE EXTENSION budgetkernel,
#    trains, scores, and drops it.
#
# The packages are left in the directory it prints (BK_PKG_OUT, default a
# new /tmp/bkpkg.XXXXXX).  Exit status 0 only if every step passed.

set -uo pipefail

# shellcheck source=test/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" || exit 1

die() { bk_err "$*"; exit 1; }

# --all: this check here (Debian 12: 15), then in the Debian roots of the
# test command (trixie: 17, sid: 18; test/debian_root.sh), each with its
# own compiler, debhelper and lintian
if [[ "${1:-}" == --all ]]; then
	results=()
	bash "$0" && results+=("15 PASS") || results+=("15 FAIL")
	for suite in trixie sid; do
		major=$(bash test/debian_root.sh major "$suite")
		if bash test/debian_root.sh ensure "$suite" >/dev/null && bash test/debian_root.sh copy "$suite" &&
			bash test/debian_root.sh run "$suite" -- bash -c \
				"dpkg --purge postgresql-$major-budgetkernel >/dev/null 2>&1; cd /build/budgetkernel && BK_PKG_OUT=/build/pkg bash test/package.sh" \
				</dev/null; then
			results+=("$major PASS")
		else
			results+=("$major FAIL")
		fi
	done
	section "Packages of 15, 17 and 18"
	printf 'postgresql-%s-budgetkernel %s\n' ${results[@]}
	[[ "${results[*]}" != *FAIL* ]]
	exit
elif [[ $# -ne 0 ]]; then
	die "usage: bash test/package.sh [--all]"
fi

section "1/6 Build dependencies"
BK_PACKAGES=(build-essential dpkg-dev debhelper fakeroot pkgconf lintian liblapacke-dev libopenblas-dev)
if bk_pkg_installed postgresql-common && ! bk_pkg_installed postgresql-server-dev-all; then
	# the version that matches the installed postgresql-common: the newest
	# would upgrade postgresql-common under a running PostgreSQL
	BK_PACKAGES+=("postgresql-server-dev-all=$(dpkg-query -W -f='${Version}' postgresql-common)")
elif ! bk_pkg_installed postgresql-server-dev-all; then
	BK_PACKAGES+=(postgresql-server-dev-all)
fi
missing=()
for p in "${BK_PACKAGES[@]}"; do
	bk_pkg_installed "${p%%=*}" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
	bk_log "installing ${missing[*]}"
	bk_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null || die "apt-get update failed"
	bk_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" </dev/null || die "apt-get install ${missing[*]} failed"
fi

section "2/6 dpkg-buildpackage -us -uc (source and binary packages)"
version=$(dpkg-parsechangelog -l debian/changelog -S Version) || die "debian/changelog unreadable"
out="${BK_PKG_OUT:-$(mktemp -d /tmp/bkpkg.XXXXXX)}"
mkdir -p "$out" || exit 1
src="$out/budgetkernel-${version%-*}"
rm -rf -- "$src"
mkdir "$src" || exit 1
if git -C "$BK_ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$BK_ROOT" ls-files -z --cached --others --exclude-standard |
		(cd "$BK_ROOT" && xargs -0 cp --parents -t "$src" 2>/dev/null)
else
	tar -C "$BK_ROOT" --exclude=./.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' \
		--exclude=./results -cf - . | tar -C "$src" -xf -
fi
[[ -f "$src/debian/rules" ]] || die "the copy of the sources has no debian/rules"
# debian/control lists a package per major this distribution supports
# (Debian 12: 15; the trixie root: 17; the sid root: 18): written again
# from debian/control.in for the distribution at hand
(cd "$src" && pg_buildext updatecontrol >/dev/null) || die "pg_buildext updatecontrol failed"
# the upstream tarball: the sources without debian/
tar -C "$out" --exclude="$(basename "$src")/debian" -czf "$out/budgetkernel_${version%-*}.orig.tar.gz" \
	"$(basename "$src")" || die "could not write the upstream tarball"
t0=$SECONDS
if ! (cd "$src" && dpkg-buildpackage -us -uc >"$out/build.log" 2>&1); then
	tail -n 40 "$out/build.log" >&2
	die "dpkg-buildpackage failed (log: $out/build.log)"
fi
shopt -s nullglob
debs=("$out"/postgresql-*-budgetkernel_"${version}"_*.deb)
shopt -u nullglob
[[ ${#debs[@]} -gt 0 ]] || die "no postgresql-NN-budgetkernel package in $out"
bk_log "built in $((SECONDS - t0))s:"
for d in "${debs[@]}"; do bk_log "  $d"; done

section "3/6 lintian (source and binary packages)"
# no error and no warning but initial-upload-closes-no-bugs (the first
# upload closes no bug of Debian's); informational tags are shown
lintian --allow-root -I "$out"/budgetkernel_"${version}"_*.changes >"$out/lintian.log" 2>&1
lintian_rc=$?
cat "$out/lintian.log"
bad=$(grep -E '^[EW]: ' "$out/lintian.log" | grep -v ' initial-upload-closes-no-bugs' || true)
[[ -z "$bad" && $lintian_rc -le 1 ]] || die "lintian reports errors or warnings (above)"
bk_log "lintian $(lintian --version | awk '{ print $2 }'): no error, no warning"

section "4/6 Contents (dpkg-deb -c)"
failed=0
for d in "${debs[@]}"; do
	major=$(basename "$d" | sed -n 's/^postgresql-\([0-9]*\)-budgetkernel_.*/\1/p')
	dpkg-deb -c "$d" | awk '{ print $6 }' >"$out/contents-$major.txt"
	cat "$out/contents-$major.txt"
	want=("./usr/lib/postgresql/$major/lib/budgetkernel.so"
		"./usr/share/postgresql/$major/extension/budgetkernel.control")
	for f in sql/budgetkernel--*.sql; do
		[[ "$f" == sql/budgetkernel--*--*.sql || -f "$f" ]] || continue
		want+=("./usr/share/postgresql/$major/extension/$(basename "$f")")
	done
	want+=("./usr/share/postgresql/$major/extension/budgetkernel--$(sed -n "s/^default_version = '\(.*\)'/\1/p" budgetkernel.control).sql")
	for f in "${want[@]}"; do
		if ! grep -qxF "$f" "$out/contents-$major.txt"; then
			bk_err "$(basename "$d") lacks $f"
			failed=1
		fi
	done
	dpkg-deb -f "$d" Package Version Depends
done
[[ $failed -eq 0 ]] || die "a package lacks files"

for d in "${debs[@]}"; do
	major=$(basename "$d" | sed -n 's/^postgresql-\([0-9]*\)-budgetkernel_.*/\1/p')
	section "5/6 Install $(basename "$d")"
	if [[ -n "${BK_PKG_ROOT:-}" ]]; then
		PG_CONFIG="$BK_PKG_ROOT/usr/lib/postgresql/$major/bin/pg_config"
		[[ -x "$PG_CONFIG" ]] || { bk_err "no PostgreSQL $major under $BK_PKG_ROOT"; failed=1; continue; }
		bk_log "extracting into $BK_PKG_ROOT (dpkg-deb -x)"
		dpkg-deb -x "$d" "$BK_PKG_ROOT" || { failed=1; continue; }
	else
		PG_CONFIG="/usr/lib/postgresql/$major/bin/pg_config"
		bk_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			"$(readlink -f "$d")" </dev/null || { bk_err "apt-get install $d failed"; failed=1; continue; }
		dpkg-query -W "postgresql-$major-budgetkernel" || { failed=1; continue; }
	fi
	export PG_CONFIG
	pkglib=$("$PG_CONFIG" --pkglibdir)
	rm -rf "$out/x-$major"
	dpkg-deb -x "$d" "$out/x-$major"
	if ! cmp -s "$out/x-$major/usr/lib/postgresql/$major/lib/budgetkernel.so" "$pkglib/budgetkernel.so"; then
		bk_err "$pkglib/budgetkernel.so is not the packaged module"
		failed=1
		continue
	fi
	bk_log "$pkglib/budgetkernel.so is the packaged module"

	section "6/6 CREATE EXTENSION from the package (PostgreSQL $major)"
	if ! start_cluster; then
		failed=1
		continue
	fi
	if ! "$("$PG_CONFIG" --bindir)/psql" -X -v ON_ERROR_STOP=1 -d postgres <<'EOF'
CREATE EXTENSION budgetkernel;
SELECT extversion FROM pg_extension WHERE extname = 'budgetkernel';
CREATE TEMP TABLE pts AS
SELECT i AS id, ARRAY[(i * 7919 % 1000) / 1000.0, (i * 104729 % 997) / 997.0]::float8[] AS features,
       CASE WHEN (i * 7919 % 1000) / 1000.0 > 0.5 THEN 1 ELSE -1 END::int8 AS label
FROM generate_series(1, 500) i;
SELECT bk_info(m)->>'algorithm' AS algorithm, (bk_info(m)->>'n_sv')::int > 0 AS has_svs,
       (SELECT avg((bk_predict(m, features) = label)::int) FROM pts) > 0.9 AS accurate
FROM (SELECT bk_train(features, label, '{"budget": 50, "gamma": 2}' ORDER BY id) AS m FROM pts) t;
DROP EXTENSION budgetkernel;
EOF
	then
		bk_err "CREATE EXTENSION, training or scoring failed with the package of PostgreSQL $major"
		failed=1
	fi
	stop_cluster
done

section "Result"
bk_log "packages in $out"
if [[ $failed -eq 0 ]]; then
	bk_log "ok: the package builds, installs and creates the extension"
fi
exit "$failed"
