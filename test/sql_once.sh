#!/bin/sh
#
# test/sql_once.sh - every SQL object is written once: in sql/objects/*.sql,
# from which make writes the install script and the update scripts
# (Makefile, sql/new_objects.awk).  Fails when the hand-written part of an
# update (sql/updates/*.sql) creates or replaces an object itself, and when
# a block of sql/objects is marked for a version that has no update script
# to carry it (an object that a fresh installation has and an updated one
# would lack).  Run by make layercheck; test/sql/upgrade.sql checks the
# result against a fresh installation.

fail=0
if grep -n -i -E '^[[:space:]]*create[[:space:]]' sql/updates/*.sql; then
	echo "sql_once: the lines above create objects in sql/updates: write them in sql/objects with an \"-- Availability:\" line" >&2
	fail=1
fi
current=$(sed -n "s/^default_version = '\(.*\)'/\1/p" budgetkernel.control)
for v in $(sed -n 's/^-- Availability: \([0-9.]*\).*/\1/p; s/^-- Availability: .*changed \([0-9.]*\).*/\1/p' sql/objects/*.sql | sort -u); do
	case $v in
	0.1.0|0.2.0) ;;	# released with hand-written scripts (sql/budgetkernel--0.1.0--0.2.0.sql)
	*)
		if ! ls sql/updates/*--"$v".sql >/dev/null 2>&1; then
			echo "sql_once: objects marked \"Availability: $v\" but no sql/updates/*--$v.sql carries them" >&2
			fail=1
		fi
		;;
	esac
done
if ! ls sql/updates/*--"$current".sql >/dev/null 2>&1; then
	echo "sql_once: no update script to the current version $current (sql/updates/*--$current.sql)" >&2
	fail=1
fi
[ $fail -eq 0 ] || { echo "sql_once: FAIL" >&2; exit 1; }
echo "sql_once: every SQL object is written once, in sql/objects"
