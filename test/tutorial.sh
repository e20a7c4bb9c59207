#!/usr/bin/env bash
#
# test/tutorial.sh - run doc/tutorial.md's SQL, in order, in a fresh
# database of the running cluster (PGHOST, PGPORT, PGUSER), and then the
# checks of test/tutorial_checks.sql; exit status 0 only if every
# statement succeeded.  Run from the repository's directory (the tutorial
# reads ../shared/data/titanic.csv).  make tutorialcheck runs it.
#
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tmp=$(mktemp -d)
trap 'rm -rf -- "$tmp"' EXIT
# the ```sql blocks of the tutorial, in order
awk '/^```sql$/ { on = 1; next } /^```$/ { on = 0 } on' doc/tutorial.md > "$tmp/tutorial.sql"
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c 'DROP DATABASE IF EXISTS bk_tutorial' \
	-c 'CREATE DATABASE bk_tutorial'
psql -X -v ON_ERROR_STOP=1 -d bk_tutorial -f "$tmp/tutorial.sql" -f test/tutorial_checks.sql
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c 'DROP DATABASE bk_tutorial'
