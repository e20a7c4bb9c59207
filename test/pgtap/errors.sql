-- Every error class of doc/security.md ("Bad input") raises the documented SQLSTATE.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS budgetkernel;
SELECT plan(35);

CREATE TEMP TABLE m AS
SELECT bk_train(ARRAY[i % 7, i % 5]::float8[], (i % 2)::int8, '{"budget": 5, "gamma": 0.5}'::jsonb ORDER BY i) AS m
FROM generate_series(1, 50) i;

-- parameters: 22023 invalid_parameter_value
SELECT throws_ok($$ SELECT bk_train(ARRAY[1.0]::float8[], 1, '{"budgte": 1}'::jsonb) $$, '22023', NULL, 'unknown key');
SELECT throws_ok($$ SELECT bk_train(ARRAY[1.0]::float8[], 1, '{"budget": "1"}'::jsonb) $$, '22023', NULL, 'mistyped value');
SELECT throws_ok($$ SELECT bk_train(ARRAY[1.0]::float8[], 1, '{"budget": 0}'::jsonb) $$, '22023', NULL, 'out of range');
SELECT throws_ok($$ SELECT bk_train(ARRAY[1.0]::float8[], 1, '{"algorithm": "svm"}'::jsonb) $$, '22023', NULL, 'unknown algorithm');
SELECT throws_ok($$ SELECT bk_train(ARRAY[1.0]::float8[], 1, '{"algorithm": "pa", "variant": "s"}'::jsonb) $$, '22023', NULL, 'option of another algorithm');
SELECT throws_ok($$ SELECT bk_train(ARRAY[1.0]::float8[], 1, '[1]'::jsonb) $$, '22023', NULL, 'params not an object');

-- drift (0.3.0): parameters 22023, values 22000, NULL params 22004,
-- a model without preparation 22023, features of another form 42804
SELECT throws_ok($$ SELECT bk_drift(1.0, '{"method": "cusum"}') $$, '22023', NULL, 'bk_drift: unknown method');
SELECT throws_ok($$ SELECT bk_drift(1.0, '{"delta": 2}') $$, '22023', NULL, 'bk_drift: delta out of range');
SELECT throws_ok($$ SELECT bk_drift('NaN'::float8) $$, '22000', NULL, 'bk_drift: NaN');
SELECT throws_ok($$ SELECT bk_drift(0.5, '{"method": "ddm"}') $$, '22000', NULL, 'bk_drift: ddm takes 0 or 1');
SELECT throws_ok($$ SELECT bk_drift(1.0, NULL) $$, '22004', NULL, 'bk_drift: NULL params');
SELECT throws_ok($$ SELECT bk_data_drift(m, ARRAY[1, 2]::float8[]) FROM m $$, '22023', NULL, 'bk_data_drift: a model without preparation');

-- features: NULL element 22004, NaN / Infinity / dimensions 22000
SELECT throws_ok($$ SELECT bk_train(ARRAY[1, NULL]::float8[], 1, '{}'::jsonb) $$, '22004', NULL, 'NULL element');
SELECT throws_ok($$ SELECT bk_train(ARRAY['NaN', 1]::float8[], 1, '{}'::jsonb) $$, '22000', NULL, 'NaN element');
SELECT throws_ok($$ SELECT bk_train(ARRAY['Infinity', 1]::float8[], 1, '{}'::jsonb) $$, '22000', NULL, 'Infinity element');
SELECT throws_ok($$ SELECT bk_train(f, 1, '{}'::jsonb ORDER BY o) FROM (VALUES (1, ARRAY[1,2]::float8[]), (2, ARRAY[1]::float8[])) v(o, f) $$,
                 '22000', NULL, 'length differs from the first row');
SELECT throws_ok($$ SELECT bk_predict(m, ARRAY[1, 2, 3]::float8[]) FROM m $$, '22000', NULL, 'length differs from the model');
SELECT throws_ok($$ SELECT bk_train(ARRAY[[1, 2]]::float8[], 1, '{}'::jsonb) $$, '22000', NULL, 'multi-dimensional array');
SELECT throws_ok($$ SELECT bk_train('{}'::float8[], 1, '{}'::jsonb) $$, '22000', NULL, 'empty array');
SELECT throws_ok($$ SELECT bk_train(ARRAY[1.0]::float8[], 1, NULL::jsonb) $$, '22004', NULL, 'NULL params');

-- support vectors as float4: a value beyond its range 22003; no change on
-- continuing, no merge with a float8 model 22023
SELECT throws_ok($$ SELECT bk_train(ARRAY[1e39, 0]::float8[], 1, '{"sv_precision": "float4"}'::jsonb) $$,
                 '22003', NULL, 'a value beyond float4 in a float4 model');
SELECT throws_ok($$ SELECT bk_continue(ARRAY[1, 0]::float8[], 1, m, '{"sv_precision": "float4"}'::jsonb) FROM m $$,
                 '22023', NULL, 'the precision is no override');
SELECT throws_ok($$ SELECT bk_merge(m.m, f.f) FROM m, (SELECT bk_train(ARRAY[1, 0]::float8[], 1, '{"budget": 5, "gamma": 0.5, "sv_precision": "float4"}'::jsonb) AS f) f $$,
                 '22023', NULL, 'a float4 model does not merge with a float8 one');

-- size limits: 54000 program_limit_exceeded, before allocating
SELECT throws_ok($$ SELECT bk_train(array_fill(0.5::float8, ARRAY[500]), 1, '{"budget": 300000}'::jsonb) $$, '54000', NULL, 'budget x dim over 1 GB');
SELECT throws_ok($$ SELECT bk_train(ARRAY[i, i]::float8[], (i % 2)::int8, '{"algorithm": "pa", "max_sv": 3}'::jsonb ORDER BY i) FROM generate_series(1, 40) i $$,
                 '54000', NULL, 'unbudgeted learner beyond max_sv');

-- model bytes: 22P03 from the cast and text input, 0A000 for a newer version
SELECT throws_ok($$ SELECT '\x0011223344556677'::bytea::bk_model $$, '22P03', NULL, 'garbage bytes');
SELECT throws_ok($$ SELECT substr(m::bytea, 1, 100)::bk_model FROM m $$, '22P03', NULL, 'truncated model');
SELECT throws_ok($$ SELECT set_byte(m::bytea, 50, get_byte(m::bytea, 50) # 4)::bk_model FROM m $$, '22P03', NULL, 'flipped bit');
SELECT throws_ok($$ SELECT set_byte(m::bytea, 4, 7)::bk_model FROM m $$, '0A000', NULL, 'newer format version');
SELECT throws_ok($$ SELECT 'xyz'::bk_model $$, '22P02', NULL, 'text that is not hex');

-- other formats: 0A000 what a format cannot express, 22000 malformed
-- LIBSVM text, 22023 an unknown format, 54000 a model too large for its text
SELECT throws_ok($$ SELECT bk_export(bk_train(ARRAY[i % 7, i % 5]::float8[], (i % 3)::int8, '{"budget": 5}'::jsonb), 'libsvm')
                    FROM generate_series(1, 50) i $$, '0A000', NULL, 'three classes to LIBSVM');
SELECT throws_ok($$ SELECT bk_import(convert_to(E'svm_type c_svc\nkernel_type rbf\ngamma x\nSV\n', 'UTF8'), 'libsvm') $$,
                 '22000', NULL, 'malformed LIBSVM model');
SELECT throws_ok($$ SELECT bk_export(m, 'pmml') FROM m $$, '22023', NULL, 'unknown export format');
SELECT throws_ok($$ SELECT bk_import(convert_to(E'svm_type one_class\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 1\nSV\n1 9000000:1\n', 'UTF8'), 'libsvm') $$,
                 '54000', NULL, 'LIBSVM model too large for its text');

-- the server survived all of it
SELECT ok((SELECT bk_is_valid(m::bytea) FROM m), 'still serving');

SELECT * FROM finish();
ROLLBACK;
