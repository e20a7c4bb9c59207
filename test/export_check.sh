#!/usr/bin/env bash
#
# test/export_check.sh - the exports of bk_export and the imports of
# bk_import, checked by the real runtimes (doc/export.md)
#
#   bash test/export_check.sh
#
# Against the server that PGHOST, PGPORT and PGUSER name (database
# PGDATABASE, default postgres), with the extension installed in it, as
# root on Debian.  It installs what it lacks: python3-onnx, libsvm-tools,
# nodejs and npm with apt-get, and ONNX Runtime for Node
# (`npm install --ignore-scripts onnxruntime-node`: its install script
# would download GPU binaries; the CPU binaries ship in the package) into
# BK_NPM_CACHE (default /var/cache/budgetkernel/npm), reused when there.
#
# In a schema of its own (dropped at the end) it trains models of every
# learner and task on rows whose values float32 holds exactly: binary,
# one-vs-rest, multi-class Pegasos, regression and novelty detection for
# every learner that learns them; the rbf, linear and polynomial kernels;
# float4 support vectors; models trained from bk_sparse rows; merged,
# continued and calibrated models; a standardised and imputed features
# array; and a model of jsonb rows with numeric and text keys and missing
# values.  Then:
#   onnx     every export passes onnx.checker.check_model(full_check=True),
#            and onnxruntime-node scores 200 held-out rows as the extension
#            does: labels identical; scores, probabilities, value and
#            novelty within 1e-5 relative (the graph runs in double; its
#            outputs are float32).  Held-out rows of arbitrary doubles,
#            which the float32 input rounds, are scored too and the labels
#            that changed are counted (reported; not a failure);
#   libsvm   svm-predict on every LIBSVM export gives the extension's labels,
#            and its decision values (svm-predict prints the decision value
#            of the same model read as an epsilon_svr) to its printed
#            precision (1e-9 relative); the exports that LIBSVM cannot
#            express are refused with SQLSTATE 0A000;
#   import   models made by svm-train (C-SVC, epsilon-SVR, one-class;
#            linear, polynomial, rbf) and read by bk_import pass bk_is_valid
#            and score as svm-predict does (labels, decision values to
#            1e-9 relative; a C-SVC's probabilities within 1e-6 of
#            svm-predict -b 1's, which it prints with 6 digits).
# Each check prints a line "ok ..." or "FAIL ..."; the run ends with
# "N passed, N failed", and exits 0 only if every check passed.

set -uo pipefail

BK_NPM_CACHE="${BK_NPM_CACHE:-/var/cache/budgetkernel/npm}"
export PGDATABASE="${PGDATABASE:-postgres}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="$(mktemp -d /tmp/bk_export_check.XXXXXX)" || exit 1
LOG="$WORK/results"
: >"$LOG"
trap 'psql -X -q -c "DROP SCHEMA IF EXISTS bk_xc CASCADE" >/dev/null 2>&1; rm -rf -- "$WORK"' EXIT

die() { printf 'export_check: ERROR: %s\n' "$*" >&2; exit 1; }
say() { printf '%s\n' "$*" | tee -a "$LOG"; }
ok() { say "ok   $*"; }
fail() { say "FAIL $*"; }

# ---- what the checks need ----
need=()
# Debian's python3, where python3-onnx installs (a python3 earlier in PATH,
# from pyenv or a virtualenv, does not see it)
PY="${BK_PYTHON:-/usr/bin/python3}"
"$PY" -c 'import onnx' 2>/dev/null || need+=(python3-onnx)
command -v svm-predict >/dev/null 2>&1 || need+=(libsvm-tools)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
if ((${#need[@]})); then
	printf 'export_check: installing %s\n' "${need[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}" \
		>"$WORK/apt.log" 2>&1 || { tail -20 "$WORK/apt.log"; die "apt-get install ${need[*]} failed"; }
fi
if [[ ! -f "$BK_NPM_CACHE/node_modules/onnxruntime-node/package.json" ]]; then
	printf 'export_check: npm install --ignore-scripts onnxruntime-node into %s\n' "$BK_NPM_CACHE"
	mkdir -p "$BK_NPM_CACHE" || die "cannot create $BK_NPM_CACHE"
	(cd "$BK_NPM_CACHE" && npm install --ignore-scripts --no-audit --no-fund onnxruntime-node) \
		>"$WORK/npm.log" 2>&1 || { tail -20 "$WORK/npm.log"; die "npm install onnxruntime-node failed"; }
fi
psql -X -q -c 'SELECT 1' >/dev/null || die "no server at PGHOST=${PGHOST:-} PGPORT=${PGPORT:-}"

sql() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }

# ---- the models ----
sql -f "$HERE/export_check.sql" >"$WORK/setup.log" 2>&1 || { cat "$WORK/setup.log"; die "training the models failed"; }

# ---- ONNX: the checker and onnxruntime-node ----
cat >"$WORK/check_onnx.py" <<'EOF'
import sys, onnx
for path in sys.argv[1:]:
    name = path.rsplit('/', 1)[-1]
    try:
        m = onnx.load(path)
        onnx.checker.check_model(m, full_check=True)
        print("ok   onnx checker: %s (opset %s)" % (name, ", ".join(
            "%s %d" % (o.domain or "ai.onnx", o.version) for o in m.opset_import)))
    except Exception as e:
        print("FAIL onnx checker: %s: %s" % (name, str(e).splitlines()[0] if str(e) else type(e).__name__))
EOF

cat >"$WORK/score_onnx.js" <<'EOF'
// node score_onnx.js MODEL.onnx CASE.json: the graph scores the case's rows
// as the extension did (CASE.json: inputs and the extension's outputs)
const ort = require('onnxruntime-node');
const fs = require('fs');
const [model, file] = process.argv.slice(2);
const c = JSON.parse(fs.readFileSync(file, 'utf8'));
const name = model.split('/').pop() + (c.strict ? '' : ' (arbitrary doubles)');
function rel(a, b) { return Math.abs(a - b) / Math.max(Math.abs(b), 1e-6); }
(async () => {
  const s = await ort.InferenceSession.create(model);
  const feeds = {};
  for (const [k, v] of Object.entries(c.inputs)) {
    if (v.type === 'string')
      feeds[k] = new ort.Tensor('string', v.data.map(x => x === null ? '' : String(x)), v.shape);
    else
      feeds[k] = new ort.Tensor('float32', Float32Array.from(v.data.map(x => x === null ? NaN : x)), v.shape);
  }
  const out = await s.run(feeds);
  const e = c.expected;
  let lines = [];
  if (e.label) {
    const got = Array.from(out.label.data, x => String(x));
    let diff = 0;
    got.forEach((g, i) => { if (g !== String(e.label[i])) diff++; });
    if (c.strict)
      lines.push([diff === 0, `onnx labels: ${name}: ${got.length - diff}/${got.length} identical`]);
    else
      lines.push([true, `onnx labels: ${name}: ${diff} of ${got.length} changed by float32 input rounding`]);
  }
  for (const key of ['scores', 'probabilities', 'value', 'novelty']) {
    if (!(key in e) || e[key] === null) continue;
    if (!(key in out)) { lines.push([false, `onnx ${key}: ${name}: no output "${key}"`]); continue; }
    const want = e[key].flat();
    const got = out[key].data;
    let worst = 0;
    if (got.length !== want.length) { lines.push([false, `onnx ${key}: ${name}: ${got.length} values, expected ${want.length}`]); continue; }
    want.forEach((w, i) => { worst = Math.max(worst, rel(got[i], w)); });
    lines.push([!c.strict || worst <= 1e-5, `onnx ${key}: ${name}: max relative difference ${worst.toExponential(2)}`]);
  }
  for (const [good, text] of lines) console.log((good ? 'ok   ' : 'FAIL ') + text);
})().catch(err => { console.log(`FAIL onnx runtime: ${name}: ${String(err).split('\n')[0]}`); });
EOF

mapfile -t onnx_models < <(sql -c "SELECT name FROM bk_xc.models WHERE onnx ORDER BY name")
for n in "${onnx_models[@]}"; do
	sql -c "SELECT encode(bk_export(m, 'onnx'), 'base64') FROM bk_xc.models WHERE name = '$n'" |
		base64 -d >"$WORK/$n.onnx" || { fail "onnx export: $n"; continue; }
	for strict in true false; do
		sql -c "SELECT bk_xc.onnx_case('$n', $strict)" >"$WORK/$n.$strict.json" ||
			{ fail "onnx case: $n"; continue; }
		# a runtime that dies before it prints a verdict is a failure, not
		# a check left out
		if NODE_PATH="$BK_NPM_CACHE/node_modules" node "$WORK/score_onnx.js" "$WORK/$n.onnx" \
			"$WORK/$n.$strict.json" >"$WORK/node.out" 2>&1 && grep -q '^\(ok \|FAIL \)' "$WORK/node.out"; then
			tee -a "$LOG" <"$WORK/node.out"
		else
			cat "$WORK/node.out"
			fail "onnx runtime: $n.onnx (strict $strict): node gave no verdict"
		fi
	done
done
(cd "$WORK" && "$PY" check_onnx.py "${onnx_models[@]/%/.onnx}") >"$WORK/checker.out" 2>&1
tee -a "$LOG" <"$WORK/checker.out"
checked=$(grep -c '^\(ok\|FAIL\) *onnx checker: ' "$WORK/checker.out")
[[ "$checked" -eq ${#onnx_models[@]} ]] ||
	fail "onnx checker: $checked verdicts for ${#onnx_models[@]} models (python: $("$PY" --version 2>&1))"

# the refusals: every model the graph cannot express names what
while IFS='|' read -r n state; do
	if [[ "$state" == 0A000 ]]; then ok "onnx refused: $n (0A000)"; else fail "onnx refused: $n: $state"; fi
done < <(sql -c "SELECT name, bk_xc.export_state(m, 'onnx') FROM bk_xc.refused WHERE format = 'onnx' ORDER BY name")

# ---- LIBSVM: svm-predict on the exports ----
sql -c "SELECT bk_xc.libsvm_rows()" >"$WORK/held.libsvm"
mapfile -t svm_models < <(sql -c "SELECT name FROM bk_xc.models WHERE libsvm ORDER BY name")
for n in "${svm_models[@]}"; do
	sql -c "SELECT convert_from(bk_export(m, 'libsvm'), 'UTF8') FROM bk_xc.models WHERE name = '$n'" \
		>"$WORK/$n.model" || { fail "libsvm export: $n"; continue; }
	# the same expansion read as a regressor: svm-predict prints its decision value
	sed -e 's/^svm_type .*/svm_type epsilon_svr/' -e '/^label /d' -e '/^nr_sv /d' \
		"$WORK/$n.model" >"$WORK/$n.dec.model"
	if ! svm-predict "$WORK/held.libsvm" "$WORK/$n.model" "$WORK/$n.pred" >"$WORK/$n.log" 2>&1 ||
		! svm-predict "$WORK/held.libsvm" "$WORK/$n.dec.model" "$WORK/$n.dec" >>"$WORK/$n.log" 2>&1; then
		fail "svm-predict: $n: $(head -1 "$WORK/$n.log")"
		continue
	fi
	sql -c "SELECT bk_xc.libsvm_expected('$n')" >"$WORK/$n.want"
	paste -d' ' "$WORK/$n.want" "$WORK/$n.pred" "$WORK/$n.dec" | awk -v n="$n" '
		function abs(v) { return v < 0 ? -v : v }
		{ rows++; if ($1 == "-" ? abs($2 - $3) > 1e-9 * (abs($2) > 1e-6 ? abs($2) : 1e-6) : $1 != $3) labels++;
		  d = abs($2 - $4) / (abs($2) > 1e-6 ? abs($2) : 1e-6); if (d > worst) worst = d }
		END {
		  printf "%s svm-predict labels: %s: %d/%d identical\n", labels ? "FAIL" : "ok  ", n, rows - labels, rows
		  printf "%s svm-predict decision values: %s: max relative difference %.2e\n", worst <= 1e-9 ? "ok  " : "FAIL", n, worst }' |
		tee -a "$LOG"
done
while IFS='|' read -r n state; do
	if [[ "$state" == 0A000 ]]; then ok "libsvm refused: $n (0A000)"; else fail "libsvm refused: $n: $state"; fi
done < <(sql -c "SELECT name, bk_xc.export_state(m, 'libsvm') FROM bk_xc.models WHERE NOT libsvm ORDER BY name")

# ---- LIBSVM: svm-train's models imported ----
sql -c "SELECT bk_xc.libsvm_train_rows()" >"$WORK/train.libsvm"
sql -c "SELECT bk_xc.libsvm_target_rows()" >"$WORK/target.libsvm"
while read -r n data opts; do
	# shellcheck disable=SC2086
	svm-train -q $opts "$WORK/$data" "$WORK/$n.model" >"$WORK/$n.log" 2>&1 ||
		{ fail "svm-train: $n: $(head -1 "$WORK/$n.log")"; continue; }
	svm-predict "$WORK/held.libsvm" "$WORK/$n.model" "$WORK/$n.pred" >/dev/null 2>&1 || { fail "svm-predict: $n"; continue; }
	sed -e 's/^svm_type .*/svm_type epsilon_svr/' -e '/^label /d' -e '/^nr_sv /d' -e '/^probA /d' -e '/^probB /d' \
		"$WORK/$n.model" >"$WORK/$n.dec.model"
	svm-predict "$WORK/held.libsvm" "$WORK/$n.dec.model" "$WORK/$n.dec" >/dev/null 2>&1 || { fail "svm-predict: $n"; continue; }
	got=$(sql -c "SELECT bk_xc.imported('$(base64 -w0 "$WORK/$n.model")')" 2>"$WORK/$n.err") ||
		{ fail "bk_import: $n: $(head -1 "$WORK/$n.err")"; continue; }
	printf '%s\n' "$got" | tail -n +2 >"$WORK/$n.got"
	paste -d' ' "$WORK/$n.got" "$WORK/$n.pred" "$WORK/$n.dec" | awk -v n="$n" -v valid="$(printf '%s\n' "$got" | head -1)" '
		function abs(v) { return v < 0 ? -v : v }
		{ rows++; if ($1 == "-" ? abs($2 - $3) > 1e-9 * (abs($3) > 1e-6 ? abs($3) : 1e-6) : $1 != $3) labels++;
		  d = abs($2 - $4) / (abs($4) > 1e-6 ? abs($4) : 1e-6); if (d > worst) worst = d }
		END {
		  printf "%s bk_import: %s: bk_is_valid %s\n", valid == "true" ? "ok  " : "FAIL", n, valid
		  printf "%s bk_import labels: %s: %d/%d as svm-predict\n", labels ? "FAIL" : "ok  ", n, rows - labels, rows
		  printf "%s bk_import decision values: %s: max relative difference %.2e\n", worst <= 1e-9 ? "ok  " : "FAIL", n, worst }' |
		tee -a "$LOG"
done <<'EOF'
csvc_rbf train.libsvm -s 0 -t 2 -g 0.5 -c 4
csvc_linear train.libsvm -s 0 -t 0 -c 1
csvc_poly train.libsvm -s 0 -t 1 -d 2 -g 0.5 -r 1 -c 1
csvc_rbf_prob train.libsvm -s 0 -t 2 -g 0.5 -c 4 -b 1
epsilon_svr_rbf target.libsvm -s 3 -t 2 -g 0.5 -p 0.05
one_class_rbf train.libsvm -s 2 -t 2 -g 0.5 -n 0.1
EOF

# an imported C-SVC's probabilities (probA, probB) against svm-predict -b 1,
# which prints them with 6 significant digits
n=csvc_rbf_prob
if [[ -f "$WORK/$n.model" ]] && svm-predict -b 1 "$WORK/held.libsvm" "$WORK/$n.model" "$WORK/$n.prob" >/dev/null 2>&1; then
	sql -c "SELECT bk_xc.imported_probabilities('$(base64 -w0 "$WORK/$n.model")', '$(head -1 "$WORK/$n.prob")')" >"$WORK/$n.pgot"
	tail -n +2 "$WORK/$n.prob" | paste -d' ' "$WORK/$n.pgot" - | awk -v n="$n" '
		function abs(v) { return v < 0 ? -v : v }
		{ rows++; d = abs($1 - $4); if (d > worst) worst = d; d = abs($2 - $5); if (d > worst) worst = d }
		END { printf "%s bk_probabilities: %s: %d rows, max absolute difference from svm-predict -b 1 %.2e\n",
		             rows == 200 && worst <= 1e-6 ? "ok  " : "FAIL", n, rows, worst }' | tee -a "$LOG"
else
	fail "svm-predict -b 1: $n"
fi

passed=$(grep -c '^ok ' "$LOG")
failed=$(grep -c '^FAIL ' "$LOG")
printf '%d passed, %d failed\n' "$passed" "$failed"
[[ "$failed" -eq 0 && "$passed" -gt 0 ]]
