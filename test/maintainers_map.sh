#!/bin/sh
#
# test/maintainers_map.sh - every source file under src/ is named in
# doc/maintainers.md's layout map (as `file.c` or `file.h`), so that the
# map a new maintainer reads is the tree they find.  Run by make layercheck.
#
# Usage: sh test/maintainers_map.sh   (from the repository's root)

map=doc/maintainers.md
missing=0
for f in $(find src -type f \( -name '*.c' -o -name '*.h' \) | sort); do
	name=$(basename "$f")
	if ! grep -q "\`$name\`" "$map"; then
		echo "maintainers_map: $f is not named in $map's layout (as \`$name\`)" >&2
		missing=$((missing + 1))
	fi
done
if [ "$missing" -gt 0 ]; then
	echo "maintainers_map: FAIL: $missing source files missing from $map" >&2
	exit 1
fi
echo "maintainers_map: every source file under src/ is named in $map"
