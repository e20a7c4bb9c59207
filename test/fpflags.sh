#!/bin/sh
#
# test/fpflags.sh - no fused multiply-add can reach a model
#
#   make -s -n -B all test/unit/test_core | sh test/fpflags.sh
#   (make layercheck runs it so; WITH_LLVM=yes: bitcode lines expected)
#
# doc/maintainers.md, Determinism, rule 4.  It fails, naming the file or
# the compile line, when
#
#   - a target attribute in src/core names "fma" (the AVX2 clones are
#     "avx2" alone, so that on the baseline ISA they cannot fuse), or the
#     core calls an FMA intrinsic or fma() itself;
#   - a compile line of a C file (objects, LLVM bitcode for the JIT, the
#     unit binary) read from standard input (make -n's output) lacks
#     -ffp-contract=off as its last -ffp-contract, or carries -ffast-math,
#     -Ofast, -fassociative-math or -freciprocal-math.

cd "$(dirname "$0")/.." || exit 1
failed=0

# 1. the source: no FMA asked for
hits=$(grep -rnE 'target *\( *"[^"]*fma|_mm(256|512)?_f(n)?m(add|sub)|__builtin_fma|(^|[^A-Za-z0-9_])fmaf? *\(' \
	src/core --include='*.c' --include='*.h')
if [ -n "$hits" ]; then
	echo "fpflags: FMA asked for in the core (doc/maintainers.md, Determinism, rule 4):"
	echo "$hits"
	failed=1
fi

# 2. the compile lines
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
grep -E '\.c( |$)' | grep -E '(^| )-(c|o)( |$)' > "$tmp"
lines=$(wc -l < "$tmp")
bc=$(grep -c -- '-emit-llvm' "$tmp")
if [ "$lines" -eq 0 ]; then
	echo "fpflags: no compile line on standard input (pipe make -s -n -B all into it)"
	exit 1
fi
if [ "${WITH_LLVM:-no}" = yes ] && [ "$bc" -eq 0 ]; then
	echo "fpflags: the server has LLVM but no bitcode compile line was read"
	failed=1
fi
bad=$(awk '{
		last = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^-ffp-contract=/) last = $i
			if ($i ~ /^(-ffast-math|-Ofast|-fassociative-math|-freciprocal-math)$/) unsafe = $i
		}
		if (last != "-ffp-contract=off" || unsafe != "") {
			print "fpflags: " (unsafe != "" ? unsafe : (last == "" ? "no -ffp-contract" : last)) ": " $0
		}
		unsafe = ""
	}' "$tmp")
if [ -n "$bad" ]; then
	echo "$bad"
	failed=1
fi
if [ $failed -ne 0 ]; then
	echo "fpflags: FAILED"
	exit 1
fi
echo "fpflags: ok: no FMA in the core's source; -ffp-contract=off on all $lines compile lines ($bc of LLVM bitcode)"
