#!/usr/bin/env bash
# kol_vs_core.sh IMPL ALG GAMMA B SEED DIR
#   One run of BOGD or the Forgetron on the files of prep_a9a.py in DIR, by
#   the bare core (IMPL=core: test/bench/bk_bench, built by make bench-core)
#   or by LIBOKL/KOL (IMPL=kol: its program at DIR/KOL/build/bin/KOL, built
#   beforehand from KOL's own sources; this project does not build it),
#   with this project's defaults (eta 0.1, lambda 1e-4) on both sides.
#   Prints: impl alg gamma B seed online_mistake_rate test_accuracy fraction_predicted_positive
set -euo pipefail
impl=$1 alg=$2 g=$3 B=$4 seed=$5 dir=$6
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tr=$dir/a9a.std.shuf.$seed.train
if [[ $impl == core ]]; then
	r() { "$here/../bk_bench" --train "$tr" --test "$1" --dim 123 --params "algorithm=$alg,budget=$B,gamma=$g"; }
	a=$(r "$dir/a9a.std.test"); p=$(r "$dir/a9a.std.test.allpos")
	mr=$(sed 's/.*"online_mistake_rate": \([0-9.]*\).*/\1/' <<<"$a")
	acc=$(sed 's/.*"accuracy": \([0-9.]*\).*/\1/' <<<"$a")
	fp=$(sed 's/.*"accuracy": \([0-9.]*\).*/\1/' <<<"$p")
else
	r() { "$dir/KOL/build/bin/KOL" -i "$tr" -t "$1" -opt "kernel-$alg" -B "$B" -gamma "$g" -eta 0.1 -lambda 0.0001; }
	a=$(r "$dir/a9a.std.test" | tr -d '\0'); p=$(r "$dir/a9a.std.test.allpos" | tr -d '\0')
	mr=$(awk '/Learn acuracy/{sub("%","",$3); printf "%.6f", 1-$3/100}' <<<"$a")
	acc=$(awk '/Test acuracy/{printf "%.6f", $3/100}' <<<"$a")
	fp=$(awk '/Test acuracy/{printf "%.6f", $3/100}' <<<"$p")
fi
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$impl" "$alg" "$g" "$B" "$seed" "$mr" "$acc" "$fp"
