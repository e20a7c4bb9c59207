#!/usr/bin/env bash
# peers_vs_core.sh IMPL ALG B SEED DIR [PROGRAM]
#   One timed run on the files of prep_a9a.py in DIR (a9a standardised,
#   training rows shuffled with SEED), gamma 0.0002541 (GAMMA overrides),
#   by the bare core or by an already-built peer program; this project
#   builds no peer (see doc/comparison-peers.md):
#     IMPL=core         test/bench/bk_bench (make bench-core)
#     IMPL=budgetedsvm  BudgetedSVM's BSGD; PROGRAM is the directory holding
#                       budgetedsvm-train and budgetedsvm-predict
#                       (default DIR/BudgetedSVM/bin)
#     IMPL=kol          LIBOKL/KOL; PROGRAM is its KOL program
#                       (default DIR/KOL/build/bin/KOL)
#   Other files (e.g. prep_covtype.py's): TRAIN and TEST (LIBSVM text)
#   replace DIR/a9a.std.shuf.SEED.train and DIR/a9a.std.test, DIM (default
#   123) is their dimension; SEED then only labels the output line (the
#   rows are learnt in TRAIN's order).  DIR still holds the peers' default
#   programs and, with KOL_CACHE, caches named after TRAIN and TEST.
#   BudgetedSVM and the core take any integer labels (more than two classes:
#   one multi-class model); KOL is binary only (labels -1 and +1), so
#   IMPL=kol refuses a TRAIN with other labels.
#   ALG: pegasos_merge (core, budgetedsvm); bogd, forgetron, projectron,
#   projectron_pp, rbp, bpa_s (core, kol).  Our defaults on both sides:
#   lambda 1e-4, one epoch, no bias; BOGD eta 0.1; BPA-S C 1.
#   Prints: impl alg gamma B seed train_s train_cpu_s wall_s cpu_s test_accuracy n_sv
#   train_s: the learning loop as each side times it: core, bk_bench's
#   train_s (wall clock, file reading excluded); budgetedsvm, its own
#   "Training completed in" (the learning loop, clock(), i.e. process CPU
#   time, file reading excluded); kol, its own "Learning time" (wall clock
#   of the pass, which includes whatever of the reading of the training
#   file in KOL's reader thread is not hidden, or with KOL_CACHE=DIR of
#   reading KOL's binary cache of it; the first run with a new DIR writes
#   the caches).
#   train_cpu_s: the same loop in CPU time, which other processes' load
#   does not inflate: core, bk_bench's train_cpu_s; budgetedsvm, its
#   figure above (already CPU time); kol, the CPU time of its learning
#   thread between the two clock readings of "Learning time" (read by
#   thread_cpu_log.c, preloaded; KOL's reader thread is not counted).
#   wall_s, cpu_s: /usr/bin/time's %e and %U + %S of the whole
#   process(es), reading both files, training and scoring.
set -euo pipefail
impl=$1 alg=$2 B=$3 seed=$4 dir=$5 prog=${6:-}
g=${GAMMA:-0.0002541}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tr=${TRAIN:-$dir/a9a.std.shuf.$seed.train} te=${TEST:-$dir/a9a.std.test} d=${DIM:-123}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
wall() { /usr/bin/time -f '%e %U %S' -o "$tmp/t" "$@"; cat "$tmp/t" >>"$tmp/walls"; }
case $impl in
core)
	case $alg in
	pegasos_merge) p="algorithm=pegasos,maintenance=merge" ;;
	bpa_s) p="algorithm=bpa,variant=s,C=1" ;;
	*) p="algorithm=$alg" ;;
	esac
	OPENBLAS_NUM_THREADS=1 wall "$here/../bk_bench" --train "$tr" --test "$te" --dim "$d" \
		--params "$p,budget=$B,gamma=$g" >"$tmp/out"
	ts=$(sed 's/.*"train_s": \([0-9.]*\).*/\1/' "$tmp/out")
	tc=$(sed 's/.*"train_cpu_s": \([0-9.]*\).*/\1/' "$tmp/out")
	acc=$(sed 's/.*"accuracy": \([0-9.]*\).*/\1/' "$tmp/out")
	nsv=$(sed 's/.*"n_sv": \([0-9]*\).*/\1/' "$tmp/out")
	;;
budgetedsvm)
	[[ $alg == pegasos_merge ]] || { echo "budgetedsvm runs pegasos_merge only" >&2; exit 2; }
	bin=${prog:-$dir/BudgetedSVM/bin}
	# its Gaussian kernel is exp(-0.5 g ||x - x'||^2): g = 2 gamma
	g2=$(awk -v g="$g" 'BEGIN {printf "%.10g", 2 * g}')
	wall "$bin/budgetedsvm-train" -A 4 -m 1 -B "$B" -L 0.0001 -g "$g2" -e 1 -b 0 -r 0 -D "$d" -v 1 \
		"$tr" "$tmp/model" >"$tmp/out"
	wall "$bin/budgetedsvm-predict" -v 1 "$te" "$tmp/model" "$tmp/pred" >"$tmp/pout"
	ts=$(awk '/Training completed in/{print $4}' "$tmp/out")
	tc=$ts
	acc=$(cut -d' ' -f1 "$te" | paste - "$tmp/pred" | awk '{n++; c += ($1 + 0 == $2 + 0)} END {printf "%.6f", c / n}')
	nsv=$(awk '/^NUMBER_OF_WEIGHTS/{print $2}' "$tmp/model")
	;;
kol)
	case $alg in
	bpa_s) o=kernel-bpas ;;
	projectron_pp) o=kernel-projectronpp ;;
	*) o=kernel-$alg ;;
	esac
	awk '$1 != "-1" && $1 != "+1" && $1 != "1" {bad = 1; exit} END {exit bad}' "$tr" ||
		{ echo "kol is binary only: $tr has labels other than -1 and +1" >&2; exit 2; }
	# KOL_CACHE=DIR: KOL reads (or, the first time, writes) its binary
	# cache of each file there instead of parsing the text
	c=() ctr=kol.$seed.train cte=kol.test
	[[ -n ${TRAIN:-} ]] && ctr=kol.$(basename "$tr")
	[[ -n ${TEST:-} ]] && cte=kol.$(basename "$te")
	[[ -n ${KOL_CACHE:-} ]] && c=(-c "$KOL_CACHE/$ctr" -tc "$KOL_CACHE/$cte")
	cc -O2 -shared -fPIC -o "$tmp/thread_cpu_log.so" "$here/thread_cpu_log.c" -ldl
	BK_THREAD_CPU_LOG=$tmp/clock LD_PRELOAD=$tmp/thread_cpu_log.so \
		wall "${prog:-$dir/KOL/build/bin/KOL}" -i "$tr" -t "$te" "${c[@]}" -opt "$o" -B "$B" -gamma "$g" \
		-eta 0.1 -lambda 0.0001 -cbpas 1 | tr -d '\0' >"$tmp/out"
	ts=$(awk '/Learning time/{print $3}' "$tmp/out")
	# the two readings of one thread, one after the other, that are
	# "Learning time" apart
	tc=$(awk -v t="$ts" '{d = $2 - w[$1]; if (($1 in w) && d - t < 1e-4 && t - d < 1e-4) {printf "%.6f", $3 - c[$1]; found = 1; exit}
		w[$1] = $2; c[$1] = $3} END {if (!found) exit 1}' "$tmp/clock") ||
		{ echo "kol: no pair of clock readings matches its learning time" >&2; exit 1; }
	acc=$(awk '/Test acuracy/{printf "%.6f", $3/100}' "$tmp/out")
	nsv=$(awk -F: '/^#SV/{print $2}' "$tmp/out")
	;;
*) echo "IMPL is core, budgetedsvm or kol" >&2; exit 2 ;;
esac
w=$(awk '{s += $1} END {printf "%.2f", s}' "$tmp/walls")
cpu=$(awk '{s += $2 + $3} END {printf "%.2f", s}' "$tmp/walls")
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$impl" "$alg" "$g" "$B" "$seed" "$ts" "$tc" "$w" "$cpu" "$acc" "$nsv"
