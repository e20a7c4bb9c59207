#!/usr/bin/env bash
#
# test/tutorial.sh - run the SQL of doc/tutorial.md and of README.md, each
# in order in a fresh database of the running cluster (PGHOST, PGPORT,
# PGUSER), each followed by its checks (test/tutorial_checks.sql,
# test/readme_checks.sql); exit status 0 only if every statement
# succeeded.  Run from the repository's directory (both read the sample
# data from ../shared/data).  make tutorialcheck runs it.
#
#   bash test/tutorial.sh                 both documents
#   bash test/tutorial.sh README.md       one of them
#
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tmp=$(mktemp -d)
trap 'rm -rf -- "$tmp"' EXIT

# run_document FILE CHECKS DATABASE
run_document()
{
	local doc=$1 checks=$2 db=$3
	echo "== $doc"
	# the ```sql blocks of the document, in order
	awk '/^```sql$/ { on = 1; next } /^```$/ { on = 0 } on' "$doc" > "$tmp/$db.sql"
	psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $db" \
		-c "CREATE DATABASE $db"
	# what the statements print goes to a file (the README's examples list
	# thousands of rows); its end is shown when a statement fails
	if ! psql -X -v ON_ERROR_STOP=1 -d "$db" -f "$tmp/$db.sql" -f "$checks" \
		> "$tmp/$db.out" 2>&1; then
		tail -n 60 "$tmp/$db.out"
		echo "FAIL $doc: a statement or a check failed (the last lines above)"
		return 1
	fi
	grep -E '^(psql:.*)?(WARNING|ERROR)' "$tmp/$db.out" || true
	echo "ok   $doc: $(grep -c '' "$tmp/$db.sql") lines of SQL and the checks"
	psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE $db"
}

case "${1:-all}" in
	all)
		run_document doc/tutorial.md test/tutorial_checks.sql bk_tutorial
		run_document README.md test/readme_checks.sql bk_readme
		;;
	doc/tutorial.md) run_document doc/tutorial.md test/tutorial_checks.sql bk_tutorial ;;
	README.md) run_document README.md test/readme_checks.sql bk_readme ;;
	*) echo "usage: bash test/tutorial.sh [doc/tutorial.md | README.md]" >&2; exit 2 ;;
esac
