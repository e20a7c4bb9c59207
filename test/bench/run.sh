#!/usr/bin/env bash
#
# test/bench/run.sh - reproduction and benchmark harness (doc/benchmarks.md)
#
#   bash test/bench/run.sh                  paper 000 Table 1, then the performance runs
#   bash test/bench/run.sh --only table1    doc/reproduction-000.md only
#   bash test/bench/run.sh --only perf      doc/performance.md only
#   bash test/bench/run.sh --only scaleout  doc/performance-scaleout.md only
#   bash test/bench/run.sh --only features  doc/performance-features.md only
#   bash test/bench/run.sh --only curves    doc/learning-curves.md and .svg (gnuplot) only
#   bash test/bench/run.sh --only svc       doc/comparison-svc.md (scikit-learn's SVC beside) only
#   bash test/bench/run.sh --only classes   doc/comparison-classes.md (the search on three classes
#                                           and more, SVC() beside) only
#   bash test/bench/run.sh --only regression  doc/comparison-regression.md (scikit-learn's SVR
#                                           beside, on test/bench/data) only
#   bash test/bench/run.sh --only novelty   doc/comparison-novelty.md (scikit-learn's OneClassSVM
#                                           and IsolationForest beside) only
#   bash test/bench/run.sh --only weights   doc/class-weights.md (class weights on w8a) only
#   bash test/bench/run.sh --only targets   doc/comparison-libsvm.md (the search and LIBSVM) only
#   bash test/bench/run.sh --only search    doc/performance-search.md (the cost of bk_cross_validate) only
#   bash test/bench/run.sh --only precision doc/performance-float4.md (support vectors as float4) only
#   bash test/bench/run.sh --only drift     doc/drift-benchmarks.md (SEA and a rotating hyperplane:
#                                           drift detectors, retraining strategies) only
#   bash test/bench/run.sh --only core      doc/performance-core.md (the bare core against issue 57's
#                                           bars: Pegasos-merge / BPA-S, the OpenBLAS build 14dc29f,
#                                           32-part merges) only
#   bash test/bench/run.sh --only workers   doc/performance-workers.md (serial against two parallel
#                                           workers, training and scoring, 10 million rows) only
#   bash test/bench/run.sh --tune           choose C / gamma -> test/bench/params-000.tsv
#   bash test/bench/run.sh --quick          fewer permutations / sizes (a first look)
#   bash test/bench/run.sh --smoke          a few seconds; checks the harness (CI)
#   bash test/bench/run.sh --report         rewrite doc/reproduction-000.md from the last
#                                           table run's raw results (after editing the notes)
#
# Other options are passed to test/bench/harness.py (e.g. --perms 10,
# --jobs 1, --datasets adult usps, --algs BPA-NN PA, --verbose).
#
# Like test/check.sh it does all of the set-up: installs the missing Debian
# packages (plus python3 and libsvm-tools), builds and installs the
# extension, builds the bare-core program (make bench-core), starts a
# private throwaway cluster and deletes it at the end.  With PGHOST set and
# BK_BENCH_USE_CLUSTER=1 it uses that running server instead (check.sh does
# this for the smoke test).

set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=test/lib.sh
source "$HERE/../lib.sh" || exit 1

# The --only modes, in the order a whole run takes them: the name given to
# --only, the harness's mode, and the section's title.
only_modes=(
	"table1 table Paper 000 Table 1 (doc/reproduction-000.md)"
	"perf perf Performance (doc/performance.md)"
	"scaleout scaleout Scale-out (doc/performance-scaleout.md)"
	"features features Feature forms (doc/performance-features.md)"
	"curves curves Learning curves (doc/learning-curves.md)"
	"svc svc Beside scikit-learn's SVC (doc/comparison-svc.md)"
	"classes classes Many classes beside scikit-learn's SVC (doc/comparison-classes.md)"
	"regression regression Regression beside scikit-learn's SVR (doc/comparison-regression.md)"
	"novelty novelty Novelty detection beside scikit-learn's OneClassSVM (doc/comparison-novelty.md)"
	"weights weights Class weights against oversampling (doc/class-weights.md)"
	"targets targets The search beside LIBSVM (doc/comparison-libsvm.md)"
	"search search The cost of a search (doc/performance-search.md)"
	"precision precision Support vectors as float4 (doc/performance-float4.md)"
	"drift drift Streams with known drift (doc/drift-benchmarks.md)"
	"core core The bare core against its bars (doc/performance-core.md)"
	"workers workers Two workers on 10 million rows (doc/performance-workers.md)"
)
only_names=""
for m in "${only_modes[@]}"; do
	only_names+="${only_names:+, }${m%% *}"
done

only=all
mode_args=()
quick=()
smoke=0
tune=0
report=0
extra=()
while [[ $# -gt 0 ]]; do
	case "$1" in
		--only) only=${2:?--only needs one of: $only_names}; shift 2 ;;
		--only=*) only=${1#--only=}; shift ;;
		--quick) quick=(--quick); shift ;;
		--smoke) smoke=1; shift ;;
		--tune) tune=1; shift ;;
		--report) report=1; shift ;;
		-h|--help) sed -n '3,38p' "${BASH_SOURCE[0]}"; exit 0 ;;
		*) extra+=("$1"); shift ;;
	esac
done
if [[ "$only" != all && " ${only_names//,/} " != *" $only "* ]]; then
	bk_err "--only takes one of: $only_names"
	exit 2
fi

# The command as typed, for the generated documents.
cmdline="bash test/bench/run.sh"
[[ $smoke -eq 1 ]] && cmdline+=" --smoke"
[[ $tune -eq 1 ]] && cmdline+=" --tune"
[[ ${#quick[@]} -gt 0 ]] && cmdline+=" --quick"
[[ "$only" != all ]] && cmdline+=" --only $only"
[[ ${#extra[@]} -gt 0 ]] && cmdline+=" ${extra[*]}"

BK_PACKAGES+=(python3 libsvm-tools gzip gnuplot-nox python3-sklearn)

if [[ $report -eq 1 ]]; then
	# no server needed: re-render from test/bench/out/table-PAPER*.json
	PY=python3
	[[ -x /usr/bin/python3 ]] && PY=/usr/bin/python3
	exec "$PY" "$HERE/harness.py" report "${extra[@]}"
fi

if [[ "${BK_BENCH_USE_CLUSTER:-0}" == 1 && -n "${PGHOST:-}" ]]; then
	# Called from test/check.sh: packages, build, install and cluster are done.
	make -s bench-core PG_CONFIG="$PG_CONFIG" || { bk_err "make bench-core failed"; exit 1; }
else
	section "Packages"
	ensure_packages || exit 1
	section "Build and install"
	build_and_install || { bk_err "build or install failed"; exit 1; }
	make -s bench-core PG_CONFIG="$PG_CONFIG" || { bk_err "make bench-core failed"; exit 1; }
	section "Throwaway PostgreSQL cluster"
	# Shared buffers that hold every table of the benchmark, as a server
	# sized for its data would (PostgreSQL's advice is a quarter of RAM):
	# scans then read pages from there, not through the kernel's page
	# cache, a system call per 8 kB page (doc/performance.md).
	export BK_CLUSTER_SHARED_BUFFERS=${BK_CLUSTER_SHARED_BUFFERS:-1GB}
	start_cluster || exit 1
fi

export OPENBLAS_NUM_THREADS=1
PY=python3
[[ -x /usr/bin/python3 ]] && PY=/usr/bin/python3
harness=("$PY" "$HERE/harness.py")

rc=0
if [[ $smoke -eq 1 ]]; then
	section "Smoke test of the harness"
	"${harness[@]}" smoke --command "$cmdline" "${extra[@]}" || rc=1
	exit $rc
fi
if [[ $tune -eq 1 ]]; then
	section "Tuning (test/bench/params-000.tsv)"
	"${harness[@]}" tune --command "$cmdline" "${quick[@]}" "${extra[@]}" || exit 1
	exit 0
fi
for m in "${only_modes[@]}"; do
	read -r name mode title <<<"$m"
	if [[ "$only" == all || "$only" == "$name" ]]; then
		section "$title"
		"${harness[@]}" "$mode" --command "$cmdline" "${quick[@]}" "${extra[@]}" || rc=1
	fi
done
exit $rc
