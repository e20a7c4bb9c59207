#!/bin/sh
#
# test/layers.sh - the source files' calls flow one way
#
#   sh test/layers.sh          (after make: it reads the object files)
#
# The call graph comes from the compiler's own output, not from reading
# the source: file A depends on file B when A's object file leaves a
# symbol undefined (nm -u: a function it calls, a table it reads) that
# B's object file defines.  It fails, naming the files and symbols, when
#
#   - the files' graph has a cycle (tsort finds it);
#   - a file of the core calls into a folder of a higher layer (LAYERS,
#     lowest first: base, kernel, learners, parts, model, merge, refit,
#     format);
#   - the core (src/core) calls the PostgreSQL layer (src/pg);
#   - a call up the layers through the model's hook table (BkModelHooks,
#     which nm cannot see) is made from outside the learners, or through
#     a hook the table does not set (the hooks used are listed);
#   - a source file is over 1,000 lines, or a header over 400
#     (a header per concern: bk_core.h and bk_internal.h only gather the
#     layers' headers).
#
# doc/maintainers.md ("The layers") says what each folder holds.

LAYERS="base kernel learners parts model merge refit format"
MAX_LINES=1000
MAX_HEADER_LINES=400

cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

objs=$(find src -name '*.o' | sort)
if [ -z "$objs" ]; then
	echo "layers: no object files under src/ (run make first)" >&2
	exit 1
fi
for c in $(find src -name '*.c'); do
	if [ ! -f "${c%.c}.o" ]; then
		echo "layers: $c has no object file (run make first)" >&2
		exit 1
	fi
done

# "symbol file" for every definition and every use; file = path without .o
for o in $objs; do
	f=${o%.o}
	nm -g --defined-only "$o" | awk -v f="$f" 'NF >= 3 { print $3, f }' >> "$tmp/def"
	nm -u "$o" | awk -v f="$f" '{ print $2, f }' >> "$tmp/use"
done
sort -k1,1 "$tmp/def" > "$tmp/def.s"
sort -k1,1 "$tmp/use" > "$tmp/use.s"
# "user used symbol"
join "$tmp/use.s" "$tmp/def.s" | awk '$2 != $3 { print $2, $3, $1 }' | sort -u > "$tmp/edges"

failed=0

# 1. no cycle between files
awk '{ print $1, $2 }' "$tmp/edges" | sort -u > "$tmp/pairs"
if ! tsort "$tmp/pairs" > /dev/null 2> "$tmp/loop"; then
	echo "layers: a call cycle between source files:"
	sed -n 's/^tsort: \(src\/.*\)/    \1/p' "$tmp/loop"
	failed=1
fi

# 2. the core's folders call down only; the core never calls src/pg
awk -v layers="$LAYERS" '
	BEGIN { n = split(layers, l, " "); for (i = 1; i <= n; i++) rank[l[i]] = i }
	function layer(path,   p) {
		if (path ~ /^src\/pg\//) return "pg"
		split(path, p, "/")
		return p[3]
	}
	{
		a = layer($1); b = layer($2)
		if (a == "pg") next
		if (b == "pg") { print "layers: the core calls the PostgreSQL layer: " $1 " uses " $3 " of " $2; bad = 1; next }
		if (!(a in rank) || !(b in rank)) { print "layers: a core file outside the layers " layers ": " (a in rank ? $2 : $1); bad = 1; next }
		if (rank[b] > rank[a]) { print "layers: " $1 " (" a ") calls up into " $2 " (" b "): " $3; bad = 1 }
	}
	END { exit bad }' "$tmp/edges" || failed=1

# 2b. the calls up the layers through a pointer: a lower layer reaches the
# model only through the table of BkModelHooks (bk_internal_types.h), set
# in model/bk_layout.c.  nm cannot see these calls, so they are read from
# the source: every "hooks->NAME(" call, the file that makes it and the
# function the table gives NAME, listed; a call through a hook the table
# does not set, or from outside the learners, fails.
hook_table=$(sed -n '/^const BkModelHooks bk_model_hooks = {/,/^};/p' src/core/model/bk_layout.c |
	sed -n 's/^[[:space:]]*\.\([a-z_]*\) = \([A-Za-z0-9_]*\),*$/\1 \2/p')
grep -rno 'hooks->[a-z_]*(' src/core --include='*.c' | sed 's/:[0-9]*:hooks->/ /; s/($//' | sort -u |
while read -r file hook; do
	target=$(echo "$hook_table" | awk -v h="$hook" '$1 == h { print $2 }')
	case $file in
	src/core/learners/*) ;;
	*) echo "layers: $file calls the model through hooks->$hook: only the learners may"; echo fail ;;
	esac
	if [ -z "$target" ]; then
		echo "layers: $file calls hooks->$hook, which bk_model_hooks (model/bk_layout.c) does not set"
		echo fail
	else
		where=$(awk -v t="$target" '$1 == t { print $2 }' "$tmp/def.s")
		echo "layers: up through a hook: ${file%.c} -> ${where:-?} ($target), hooks->$hook" >&2
	fi
done > "$tmp/hooks"
if grep -q '^fail$' "$tmp/hooks"; then
	grep -v '^fail$' "$tmp/hooks"
	failed=1
fi

# 3. no source file over MAX_LINES lines, no header over MAX_HEADER_LINES
# (the core's and the glue's)
for c in $(find src -name '*.c' -o -name '*.h' | sort); do
	n=$(wc -l < "$c")
	case $c in
	*.h) max=$MAX_HEADER_LINES ;;
	*) max=$MAX_LINES ;;
	esac
	if [ "$n" -gt "$max" ]; then
		echo "layers: $c has $n lines (at most $max)"
		failed=1
	fi
done

files=$(echo "$objs" | wc -l)
edges=$(wc -l < "$tmp/pairs")
if [ $failed -ne 0 ]; then
	echo "layers: FAILED ($files files, $edges dependencies between them)"
	exit 1
fi
echo "layers: ok: $files files, $edges dependencies between them, no cycle, calls flow down the layers $LAYERS"
