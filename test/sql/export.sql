--
-- Other formats (doc/export.md): bk_export(model, 'libsvm' | 'onnx') and
-- bk_import(data, 'libsvm', dim).  The real runtimes (svm-predict,
-- onnxruntime, onnx's checker) check the exports in test/export_check.sh;
-- here: the LIBSVM text itself, the round trip export -> import -> the
-- same decisions, merging and continuing an imported model, every
-- refusal and error with its SQLSTATE, and the shape of an ONNX export.
--
SET client_min_messages = warning;
\set SHOW_CONTEXT never

CREATE FUNCTION pg_temp.state(f text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE f;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- rows whose values are multiples of 1/64
CREATE TABLE ex_rows AS
SELECT g AS id,
       ARRAY[((g * 7919) % 257 - 128) / 64.0, ((g * 104729) % 257 - 128) / 64.0]::float8[] AS x
FROM generate_series(1, 300) g;
ALTER TABLE ex_rows ADD y int8, ADD t float8;
UPDATE ex_rows SET y = CASE WHEN x[1] * x[1] + x[2] * x[2] < 1.5 THEN 3 ELSE 7 END,
                   t = x[1] - 0.5 * x[2] * x[2];

CREATE TABLE ex_models AS
SELECT 'binary' AS kind, bk_train(x, y, '{"budget": 20, "gamma": 0.5}' ORDER BY id) AS m FROM ex_rows
UNION ALL
SELECT 'poly', bk_train(x, y, '{"algorithm": "pa", "kernel": "poly", "degree": 2, "coef0": 1}' ORDER BY id) FROM ex_rows
UNION ALL
SELECT 'pegasos2', bk_train(x, y, '{"algorithm": "pegasos", "budget": 20}' ORDER BY id) FROM ex_rows
UNION ALL
SELECT 'regressor', bk_train(x, t, '{"algorithm": "pa", "kernel": "linear"}' ORDER BY id) FROM ex_rows
UNION ALL
SELECT 'novelty', bk_train(x, NULL, '{"task": "novelty", "budget": 20}' ORDER BY id) FROM ex_rows;

-- the LIBSVM header of each (the support vectors follow "SV")
SELECT kind, regexp_replace(split_part(convert_from(bk_export(m, 'libsvm'), 'UTF8'), E'\nSV\n', 1),
                            'rho [^\n]*', 'rho ...') AS header
FROM ex_models ORDER BY kind;

-- a support vector line: its coefficient, then index:value of its
-- non-zero values, 17 significant digits
SELECT split_part(convert_from(bk_export(m, 'libsvm'), 'UTF8'), E'\n', 10) ~ '^-?[0-9.e+-]+( [0-9]+:-?[0-9.e+-]+)+$' AS sv_line
FROM ex_models WHERE kind = 'binary';

-- export -> import: a valid model of the same decisions, labels, values
-- and novelty scores (up to the rounding of a different summation order)
CREATE TABLE ex_imported AS
SELECT kind, m, bk_import(bk_export(m, 'libsvm'), 'libsvm', 2) AS i FROM ex_models;
SELECT kind, bk_is_valid(i::bytea) AS valid,
       bk_info(i)->>'algorithm' AS algorithm, bk_info(i)->>'task' AS task,
       bk_info(i)->'classes' AS classes, bk_info(i)->'classes_declared' AS declared
FROM ex_imported ORDER BY kind;
SELECT e.kind,
       bool_and(CASE e.kind WHEN 'regressor' THEN abs(bk_predict_value(e.m, r.x) - bk_predict_value(e.i, r.x)) < 1e-9
                            WHEN 'novelty' THEN abs(bk_novelty(e.m, r.x) - bk_novelty(e.i, r.x)) < 1e-9
                            ELSE abs(bk_decision(e.m, r.x) - bk_decision(e.i, r.x)) < 1e-9
                                 AND bk_predict(e.m, r.x) = bk_predict(e.i, r.x) END) AS same
FROM ex_imported e, ex_rows r GROUP BY e.kind ORDER BY e.kind;
-- exported again, the same text but for the order of its support vectors
SELECT kind, bk_export(i, 'libsvm') = bk_export(m, 'libsvm') AS same_text
FROM ex_imported WHERE kind IN ('regressor', 'novelty') ORDER BY kind;

-- an imported model merges with a model of the same parameters, and
-- continues training with its learner
SELECT bk_info(bk_merge(i, (SELECT bk_train(x, y, '{"algorithm": "pa", "kernel": "poly", "degree": 2, "coef0": 1}' ORDER BY id)
                            FROM ex_rows WHERE id <= 50)))->'rows_seen' AS merged_rows
FROM ex_imported WHERE kind = 'poly';
SELECT bk_is_valid(bk_continue(r.x, r.y, e.i, '{}' ORDER BY r.id)::bytea) AS continued
FROM ex_imported e, ex_rows r WHERE e.kind = 'binary' GROUP BY e.i;

-- a model of svm-train (c_svc, the polynomial kernel, coef0 1): its rho
-- becomes the model's bias, its probA and probB the calibration; its
-- label[0] (1) the larger, its decision value is bk_decision; probability
-- as svm-predict computes them
CREATE TABLE ex_svm AS SELECT bk_import(convert_to(
'svm_type c_svc
kernel_type polynomial
degree 2
gamma 0.5
coef0 1
nr_class 2
total_sv 3
rho -0.25
label 1 -1
probA -2.5
probB 0.125
nr_sv 2 1
SV
0.5 1:0.25 2:-1
1 2:2
-1.5 1:1 2:1
', 'UTF8'), 'libsvm') AS m;
SELECT bk_info(m)->'classes' AS classes, bk_info(m)->'n_sv' AS n_sv, bk_info(m)->'calibrated' AS calibrated,
       bk_is_valid(m::bytea) AS valid
FROM ex_svm;
-- exported again: rho comes back
SELECT substring(convert_from(bk_export(m, 'libsvm'), 'UTF8') FROM 'rho [^\n]*') AS rho FROM ex_svm;
SELECT x, bk_predict(m, x) AS label,
       round(bk_decision(m, x)::numeric, 12) AS decision,
       round((0.5 * (0.5 * (0.25 * x[1] - x[2]) + 1) ^ 2 + (0.5 * 2 * x[2] + 1) ^ 2
              - 1.5 * (0.5 * (x[1] + x[2]) + 1) ^ 2 + 0.25)::numeric, 12) AS by_hand,
       round((bk_probabilities(m, x))[2]::numeric, 12) AS p_label_1,
       round((1 / (1 + exp(-2.5 * bk_decision(m, x) + 0.125)))::numeric, 12) AS p_by_hand
FROM ex_svm, (VALUES (ARRAY[0.0, 0.0]::float8[]), (ARRAY[1.0, -1.0]), (ARRAY[-0.5, 2.0])) v(x);

-- the same with its labels listed the other way round: label[0] (-1) the
-- smaller, bk_decision is minus LIBSVM's decision value; -1 is predicted
-- and has the probability where 1 had them
CREATE TABLE ex_svm_swapped AS
SELECT bk_import(convert_to(replace(convert_from(bk_export(m, 'libsvm'), 'UTF8'), 'label 1 -1', 'label -1 1')
                            || '', 'UTF8'), 'libsvm') AS m
FROM ex_svm;
SELECT bool_and(bk_predict(a.m, x) = -bk_predict(b.m, x)) AS labels_swapped,
       bool_and(abs(bk_decision(a.m, x) + bk_decision(b.m, x)) < 1e-12) AS decision_negated
FROM ex_svm a, ex_svm_swapped b, ex_rows;

-- an rbf C-SVC of nonzero rho: the bias; merged with a model of the same
-- parameters and no bias, of as many rows, the bias halves
CREATE TABLE ex_rbf AS SELECT bk_import(convert_to(
'svm_type c_svc
kernel_type rbf
gamma 0.5
nr_class 2
total_sv 2
rho 0.5
label 3 7
nr_sv 1 1
SV
1 1:0.5 2:0.5
-1 1:-0.5 2:-0.5
', 'UTF8'), 'libsvm') AS m;
SELECT bk_info(m)->'bias' AS bias, bk_info(m)->'classes' AS classes FROM ex_rbf;
SELECT round(bk_decision(m, ARRAY[0.5, 0.5]::float8[])::numeric, 12) AS decision,
       round((-(1 - exp(-0.5 * 2)) + 0.5)::numeric, 12) AS by_hand,
       bk_predict(m, ARRAY[0.5, 0.5]::float8[]) AS label
FROM ex_rbf;
SELECT round(bk_decision(bk_merge(e.m, t.m), ARRAY[10.0, 10.0]::float8[])::numeric, 12) AS merged_far_away
FROM ex_rbf e, (SELECT bk_import(convert_to(replace(convert_from(bk_export(m, 'libsvm'), 'UTF8'), 'rho -0.5', 'rho 0'), 'UTF8'),
                                 'libsvm') AS m FROM ex_rbf) t;

-- an epsilon-SVR and a one-class model of svm-train
SELECT round(bk_predict_value(bk_import(convert_to(
'svm_type epsilon_svr
kernel_type rbf
gamma 0.5
nr_class 2
total_sv 2
rho 0.3
SV
0.75 1:0.5 2:-0.5
-0.25 1:1.5
', 'UTF8'), 'libsvm'), ARRAY[1.0, 0.0]::float8[])::numeric, 12) AS svr_value,
       round((0.75 * exp(-0.5 * 0.5) - 0.25 * exp(-0.5 * 0.25) - 0.3)::numeric, 12) AS by_hand;
SELECT round(bk_novelty(bk_import(convert_to(
'svm_type one_class
kernel_type linear
nr_class 2
total_sv 2
rho 1
SV
1 1:1 2:2
0.5 1:-1 4:0.5
', 'UTF8'), 'libsvm'), ARRAY[1.0, 1.0, 0.0, 2.0]::float8[])::numeric, 12) AS novelty,
       -(1 * 3 + 0.5 * (-1 + 1) - 1) AS by_hand;

-- what LIBSVM cannot express is refused (0A000), saying why
SELECT pg_temp.state($$SELECT bk_export(bk_train(x, y % 3 + x[1]::int8, '{"budget": 10}'), 'libsvm') FROM ex_rows$$);
SELECT pg_temp.state($$SELECT bk_export(bk_train(x, CASE WHEN y = 3 THEN 'a' ELSE 'b' END, '{"budget": 10}'), 'libsvm') FROM ex_rows$$);
SELECT pg_temp.state($$SELECT bk_export(bk_train(x, y, '{"budget": 10, "scale": "standard"}'), 'libsvm') FROM ex_rows$$);
SELECT pg_temp.state($$SELECT bk_export(bk_train(x, y + 3000000000, '{"budget": 10}'), 'libsvm') FROM ex_rows$$);
SELECT pg_temp.state($$SELECT bk_export(bk_train(x, 5::int8, '{"budget": 10}'), 'libsvm') FROM ex_rows$$);
-- an unknown format (22023); NULL in, NULL out
SELECT pg_temp.state($$SELECT bk_export(m, 'pmml') FROM ex_models WHERE kind = 'binary'$$);
SELECT pg_temp.state($$SELECT bk_import('\x00'::bytea, 'onnx')$$);
SELECT bk_export(NULL, 'onnx') IS NULL AS null_model, bk_import(NULL, 'libsvm') IS NULL AS null_data;

-- hostile LIBSVM text: each error names its line (22000); models the
-- core cannot hold (0A000); a bad dim (22023); too large for its text (54000)
CREATE TABLE ex_bad (what text, txt text, dim int4 DEFAULT 0);
INSERT INTO ex_bad (what, txt) VALUES
 ('empty', ''),
 ('no SV line', E'svm_type c_svc\nkernel_type rbf\ngamma 1\n'),
 ('unknown keyword', E'svm_type c_svc\nkernel_typo rbf\nSV\n'),
 ('unknown svm_type', E'svm_type c_svr\nSV\n'),
 ('no kernel_type', E'svm_type one_class\nnr_class 2\ntotal_sv 0\nrho 1\nSV\n'),
 ('twice', E'svm_type one_class\nsvm_type one_class\nSV\n'),
 ('not a number', E'svm_type one_class\nkernel_type rbf\ngamma abc\nSV\n'),
 ('infinite gamma', E'svm_type one_class\nkernel_type rbf\ngamma 1e999\nSV\n'),
 ('no gamma', E'svm_type one_class\nkernel_type rbf\nnr_class 2\ntotal_sv 0\nrho 1\nSV\n'),
 ('no label', E'svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 0\nrho 0\nSV\n'),
 ('same labels', E'svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 0\nrho 0\nlabel 1 1\nSV\n'),
 ('nr_sv sum', E'svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 0\nlabel 1 2\nnr_sv 1 1\nSV\n1 1:1\n'),
 ('too few SVs', E'svm_type one_class\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 1\nSV\n1 1:1\n'),
 ('text after', E'svm_type one_class\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 1\nSV\n1 1:1\n1 1:2\n'),
 ('bad pair', E'svm_type one_class\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 1\nSV\n1 1=1\n'),
 ('descending', E'svm_type one_class\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 1\nSV\n1 2:1 1:1\n'),
 ('index 0', E'svm_type one_class\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 1\nSV\n1 0:1\n'),
 ('NaN value', E'svm_type one_class\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 1\nSV\n1 1:nan\n'),
 ('total_sv beyond the text', E'svm_type one_class\nkernel_type linear\nnr_class 2\ntotal_sv 2000000000\nrho 1\nSV\n'),
 ('sigmoid kernel', E'svm_type c_svc\nkernel_type sigmoid\ngamma 1\ncoef0 0\nSV\n'),
 ('precomputed kernel', E'svm_type c_svc\nkernel_type precomputed\nSV\n'),
 ('one-vs-one', E'svm_type c_svc\nkernel_type rbf\ngamma 1\nnr_class 3\nSV\n'),
 ('negative coef0', E'svm_type one_class\nkernel_type polynomial\ndegree 2\ngamma 1\ncoef0 -1\nnr_class 2\ntotal_sv 1\nrho 1\nSV\n1 1:1\n'),
 ('degree 0', E'svm_type one_class\nkernel_type polynomial\ndegree 0\ngamma 1\ncoef0 1\nnr_class 2\ntotal_sv 1\nrho 1\nSV\n1 1:1\n'),
 ('too sparse for its text', E'svm_type one_class\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 1\nSV\n1 16000000:1\n1 1:1\n');
INSERT INTO ex_bad VALUES
 ('dim below an index', E'svm_type one_class\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 1\nSV\n1 3:1\n', 2),
 ('negative dim', E'svm_type one_class\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 1\nSV\n1 3:1\n', -1);
SELECT what, pg_temp.state(format('SELECT bk_import(convert_to(%L, ''UTF8''), ''libsvm'', %s)', txt, dim)) AS result
FROM ex_bad ORDER BY what;
-- a NUL byte
SELECT pg_temp.state($$SELECT bk_import('\x73766d00'::bytea, 'libsvm')$$);

-- ONNX: a ModelProto (field 1, ir_version 8, first), the same bytes each
-- time, refused where a key is named as an output of the graph
SELECT kind, substr(bk_export(m, 'onnx'), 1, 2) AS head,
       bk_export(m, 'onnx') = bk_export(m, 'onnx') AS deterministic,
       position(convert_to('ai.onnx.ml', 'UTF8') IN bk_export(m, 'onnx')) > 0 AS ml_opset
FROM ex_models ORDER BY kind;
SELECT pg_temp.state($$SELECT bk_export(bk_train(jsonb_build_object('scores', x[1]), y, '{}'), 'onnx') FROM ex_rows$$);
SELECT pg_temp.state($$SELECT bk_export(bk_train(jsonb_build_object('a', x[1], 'c', CASE WHEN id % 2 = 0 THEN '' ELSE 'z' END), y, '{}'), 'onnx') FROM ex_rows$$);
