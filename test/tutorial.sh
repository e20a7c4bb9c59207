#!/usr/bin/env bash
#
# test/tutorial.sh - run the SQL of doc/tutorial.md and of README.md, each
# in order in a fresh database of the running cluster (PGHOST, PGPORT,
# PGUSER), each followed by its checks (test/tutorial_checks.sql,
# test/readme_checks.sql); exit status 0 only if every statement
# succeeded.  make tutorialcheck runs it.
#
# doc/tutorial.md reads the sample data from ../shared/data, so it runs in
# the repository's directory.  README.md must run from a clone alone: its
# SQL runs in a copy of the repository's tracked files (git ls-files, with
# their working-tree contents; a tree without .git is copied whole, but
# for .git) in a new temporary directory, which has no ../shared, as a
# fresh clone would not.  A file the README reads must be committed, or at
# least added (git add), to be found.
#
#   bash test/tutorial.sh                 both documents
#   bash test/tutorial.sh README.md       one of them
#
# The databases are bk_tutorial and bk_readme; BK_TUTORIAL_DB_PREFIX
# (default bk_) changes the prefix, for a server shared with others.
#
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tmp=$(mktemp -d)
prefix=${BK_TUTORIAL_DB_PREFIX:-bk_}
trap 'rm -rf -- "$tmp"' EXIT

# copy_of_repository: print the path of a copy of the repository, in
# $tmp/clone/, with no ../shared next to it
copy_of_repository()
{
	local copy="$tmp/clone/$(basename "$PWD")"
	mkdir -p "$copy"
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		# tracked files only: what a clone has; -z and --null for any name
		git ls-files -z | tar --null -T - -cf - | tar -C "$copy" -xf -
	else
		tar --exclude=./.git -cf - . | tar -C "$copy" -xf -
	fi
	if [[ -e "$copy/../shared" ]]; then
		echo "tutorial.sh: $copy/../shared exists; the copy is not a clone alone" >&2
		return 1
	fi
	echo "$copy"
}

# run_document FILE CHECKS DATABASE [DIRECTORY]: psql runs in DIRECTORY
# (default: the repository's), where the document's relative paths point
run_document()
{
	local doc=$1 checks=$2 db=$3 dir=${4:-$PWD}
	echo "== $doc${4:+ (in $dir)}"
	# the ```sql blocks of the document, in order
	awk '/^```sql$/ { on = 1; next } /^```$/ { on = 0 } on' "$doc" > "$tmp/$db.sql"
	psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $db" \
		-c "CREATE DATABASE $db"
	# what the statements print goes to a file (the README's examples list
	# thousands of rows); its end is shown when a statement fails
	if ! (cd "$dir" && psql -X -v ON_ERROR_STOP=1 -d "$db" -f "$tmp/$db.sql" -f "$checks") \
		> "$tmp/$db.out" 2>&1; then
		tail -n 60 "$tmp/$db.out"
		echo "FAIL $doc: a statement or a check failed (the last lines above)"
		return 1
	fi
	grep -E '^(psql:.*)?(WARNING|ERROR)' "$tmp/$db.out" || true
	# the README's examples are meant to give good models: a WARNING of
	# bk_train (a constant model, runs of one label) fails them
	if [[ "$doc" == README.md ]] && grep -qE '^(psql:.*)?WARNING' "$tmp/$db.out"; then
		echo "FAIL $doc: a statement raised a WARNING (above)"
		return 1
	fi
	echo "ok   $doc: $(grep -c '' "$tmp/$db.sql") lines of SQL and the checks"
	psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE $db"
}

case "${1:-all}" in
	all)
		run_document doc/tutorial.md test/tutorial_checks.sql "${prefix}tutorial"
		copy=$(copy_of_repository)
		run_document README.md test/readme_checks.sql "${prefix}readme" "$copy"
		;;
	doc/tutorial.md) run_document doc/tutorial.md test/tutorial_checks.sql "${prefix}tutorial" ;;
	README.md)
		copy=$(copy_of_repository)
		run_document README.md test/readme_checks.sql "${prefix}readme" "$copy"
		;;
	*) echo "usage: bash test/tutorial.sh [doc/tutorial.md | README.md]" >&2; exit 2 ;;
esac
