-- The SQL contract: objects, volatility, strictness, security, casts.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS budgetkernel;
SELECT plan(69);

SELECT has_type('bk_model');
SELECT has_type('bk_features');
SELECT has_function('bk_train', ARRAY['bk_features', 'bk_label', 'jsonb']);
SELECT hasnt_function('bk_train', ARRAY['real[]', 'bigint', 'jsonb'], 'no float4[] twin: float4[] reaches bk_features by an implicit cast');
SELECT is_aggregate('bk_train', ARRAY['jsonb', 'bk_label', 'jsonb'], 'jsonb rows have their own bk_train, serial: its preparation knows its layout only at the end');
SELECT ok(NOT EXISTS (SELECT FROM pg_aggregate WHERE aggfnoid = 'bk_train(jsonb, bk_label, jsonb)'::regprocedure AND aggcombinefn <> 0),
          'bk_train over jsonb has no combine function');
SELECT hasnt_function('bk_decision', ARRAY['bk_model', 'double precision[]'], 'no float8[] twin: float8[] reaches bk_features by an implicit cast');
SELECT has_function('bk_continue', ARRAY['bk_features', 'bk_label', 'bk_model']);
SELECT hasnt_function('bk_train', ARRAY['bk_features', 'bigint', 'bk_model'], 'continuing a model is bk_continue');
SELECT hasnt_function('bk_train', ARRAY['bk_features', 'bigint', 'jsonb'], 'no int8 twin: int8 reaches bk_label by an implicit cast');
SELECT hasnt_function('bk_continue', ARRAY['bk_features', 'text', 'bk_model'], 'no text twin: text reaches bk_label by an implicit cast');
SELECT has_function('bk_predict', ARRAY['bk_model', 'bk_features']);
SELECT has_function('bk_decision', ARRAY['bk_model', 'bk_features']);
SELECT has_function('bk_info', ARRAY['bk_model']);
SELECT has_function('bk_is_valid', ARRAY['bytea']);
SELECT has_function('bk_support_vectors', ARRAY['bk_model']);
SELECT has_function('bk_predict_label', ARRAY['bk_model', 'bk_features']);
SELECT has_function('bk_scores', ARRAY['bk_model', 'bk_features']);
SELECT is_aggregate('bk_train', ARRAY['bk_features', 'bk_label', 'jsonb']);
SELECT is_aggregate('bk_continue', ARRAY['bk_features', 'bk_label', 'bk_model']);
SELECT is_aggregate('bk_metrics', ARRAY['bk_label', 'bk_label']);
SELECT volatility_is('bk_predict_label', ARRAY['bk_model', 'bk_features'], 'immutable');
SELECT volatility_is('bk_scores', ARRAY['bk_model', 'bk_features'], 'immutable');
SELECT function_returns('bk_scores', ARRAY['bk_model', 'bk_features'], 'double precision[]');
-- regression and novelty detection: their forms, and the scoring
-- functions immutable and strict (doc/regression.md, doc/novelty.md)
SELECT hasnt_function('bk_train', ARRAY['bk_features', 'double precision', 'jsonb'], 'one label form: a float8 target reaches bk_label');
SET budgetkernel.run_warnings = off;
SELECT is((SELECT bk_info(bk_train(ARRAY[i]::float8[], (i % 2)::int2, '{}'))->>'task' FROM generate_series(1, 20) i), 'classification', 'an int2 label trains a classifier');
SELECT is((SELECT bk_info(bk_train(ARRAY[i]::float8[], i / 20.0, '{}'))->>'task' FROM generate_series(1, 20) i), 'regression', 'a numeric target trains a regressor');
SELECT hasnt_function('bk_train', ARRAY['bk_features', 'jsonb'], 'no label-less form: a NULL label and "task": "novelty" train a novelty detector');
SELECT is((SELECT bk_info(bk_continue(ARRAY[i]::float8[], NULL, m))->>'task'
           FROM generate_series(1, 20) i,
                (SELECT bk_train(ARRAY[i]::float8[], NULL, '{"task": "novelty"}') AS m FROM generate_series(1, 20) i) d
           GROUP BY m),
          'novelty', 'a NULL label and "task": "novelty" train a novelty detector, and a NULL label continues it');
SELECT ok(EXISTS (SELECT FROM pg_aggregate WHERE aggfnoid = 'bk_train(bk_features, bk_label, jsonb)'::regprocedure AND aggcombinefn <> 0),
          'classifiers, regressors and detectors train in parallel');
SELECT volatility_is('bk_predict_value', ARRAY['bk_model', 'bk_features'], 'immutable');
SELECT is_strict('bk_predict_value', ARRAY['bk_model', 'bk_features']);
SELECT function_returns('bk_predict_value', ARRAY['bk_model', 'bk_features'], 'double precision');
SELECT volatility_is('bk_novelty', ARRAY['bk_model', 'bk_features'], 'immutable');
SELECT function_returns('bk_novelty', ARRAY['bk_model', 'bk_features'], 'double precision');

SELECT volatility_is('bk_predict', ARRAY['bk_model', 'bk_features'], 'immutable');
SELECT volatility_is('bk_decision', ARRAY['bk_model', 'bk_features'], 'immutable');
SELECT volatility_is('bk_info', ARRAY['bk_model'], 'immutable');
SELECT volatility_is('bk_is_valid', ARRAY['bytea'], 'immutable');
SELECT is_strict('bk_predict', ARRAY['bk_model', 'bk_features']);
SELECT is_strict('bk_is_valid', ARRAY['bytea']);
SELECT function_returns('bk_predict', ARRAY['bk_model', 'bk_features'], 'bigint');
SELECT function_returns('bk_decision', ARRAY['bk_model', 'bk_features'], 'double precision');
SELECT function_returns('bk_info', ARRAY['bk_model'], 'jsonb');

SELECT is((SELECT count(*)::int FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
           JOIN pg_extension e ON e.oid = d.refobjid
           WHERE e.extname = 'budgetkernel' AND p.prosecdef), 0, 'nothing is SECURITY DEFINER');
SELECT is((SELECT count(*)::int FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
           JOIN pg_extension e ON e.oid = d.refobjid
           WHERE e.extname = 'budgetkernel' AND p.proname IN ('bk_predict', 'bk_decision', 'bk_info',
                 'bk_is_valid', 'bk_support_vectors', 'bk_predict_label', 'bk_scores',
                 'bk_predict_value', 'bk_novelty') AND p.proparallel <> 's'), 0,
          'scoring functions are PARALLEL SAFE');
SELECT is((SELECT count(*)::int FROM pg_description d JOIN pg_depend x ON x.objid = d.objoid AND x.classid = d.classoid
           JOIN pg_extension e ON e.oid = x.refobjid WHERE e.extname = 'budgetkernel'),
          -- (an array type, which PostgreSQL 18 makes a member of the
          -- extension too, has no comment of its own; nor has the row
          -- type of a view, bk_training_progress, which 17 makes one; a
          -- composite type, bk_cross_validation, has)
          (SELECT count(*)::int FROM pg_depend x JOIN pg_extension e ON e.oid = x.refobjid
           WHERE e.extname = 'budgetkernel' AND x.deptype = 'e'
             AND NOT (x.classid = 'pg_type'::regclass
                      AND (SELECT typcategory = 'A'
                                  OR (typrelid <> 0 AND (SELECT relkind FROM pg_class WHERE oid = typrelid) <> 'c')
                           FROM pg_type WHERE oid = x.objid))),
          'every object of the extension has a comment');

-- \df bk_* lists what users call; support functions begin with "_bk_"
SELECT set_eq($$SELECT DISTINCT p.proname::text FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
                JOIN pg_extension e ON e.oid = d.refobjid
                WHERE e.extname = 'budgetkernel' AND p.proname LIKE 'bk\_%'$$,
              ARRAY['bk_train', 'bk_continue', 'bk_predict', 'bk_predict_label', 'bk_scores',
                    'bk_decision', 'bk_info', 'bk_support_vectors', 'bk_is_valid', 'bk_shuffle_key', 'bk_fold', 'bk_metrics', 'bk_libsvm', 'bk_cross_validate', 'bk_merge', 'bk_calibrate', 'bk_probabilities', 'bk_predict_probability', 'bk_learning_curve', 'bk_sparse', 'bk_dense', 'bk_libsvm_sparse',
                    'bk_predict_value', 'bk_novelty', 'bk_drift', 'bk_data_drift',
                    'bk_export', 'bk_import', 'bk_refit'],
              'the bk_ functions are the ones users call');
-- results of one word in \df (0.4.0): named row types, one options
-- argument, and the cache's counters a view
SELECT function_returns('bk_cross_validate', ARRAY['text', 'text', 'text', 'text', 'jsonb'], 'setof bk_cross_validation');
SELECT function_returns('bk_support_vectors', ARRAY['bk_model'], 'setof bk_support_vector');
SELECT function_returns('bk_learning_curve', ARRAY['bk_model'], 'setof bk_curve_point');
SELECT has_view('bk_model_cache');
-- drift (0.3.0): order-dependent aggregates without a combine function,
-- whose final functions only read the state (window functions too)
SELECT is_aggregate('bk_drift', ARRAY['double precision']);
SELECT is_aggregate('bk_drift', ARRAY['double precision', 'jsonb']);
SELECT is_aggregate('bk_data_drift', ARRAY['bk_model', 'bk_features']);
SELECT ok(NOT EXISTS (SELECT FROM pg_aggregate WHERE aggfnoid IN ('bk_drift(float8)'::regprocedure, 'bk_drift(float8, jsonb)'::regprocedure,
                        'bk_data_drift(bk_model, bk_features)'::regprocedure)
                      AND (aggcombinefn <> 0 OR aggfinalmodify <> 'r')),
          'bk_drift and bk_data_drift: no combine function, READ_ONLY final functions');
SELECT lives_ok($$ SELECT bk_drift(i % 2, '{"method": "ddm"}' ORDER BY i) FROM generate_series(1, 100) i $$,
                'bk_drift of an integer column with a bare literal');
-- a bare string literal is the parameters (jsonb: the only candidate)
SELECT lives_ok($$ SELECT bk_train(ARRAY[i, -i]::float8[], (i > 0)::int::int8, '{"budget": 4}')
                   FROM generate_series(-3, 3) i $$, 'bk_train with a bare literal');
-- float4[], integer and numeric arrays reach bk_features as float8[] does: the same model
SELECT is((SELECT count(DISTINCT m) FROM (
             SELECT bk_train(ARRAY[i, -i]::float8[], (i > 0)::int::int8, '{"budget": 4}' ORDER BY i) FROM generate_series(-3, 3) i
             UNION ALL SELECT bk_train(ARRAY[i, -i]::float4[], (i > 0)::int::int8, '{"budget": 4}' ORDER BY i) FROM generate_series(-3, 3) i
             UNION ALL SELECT bk_train(ARRAY[i, -i], (i > 0)::int::int8, '{"budget": 4}' ORDER BY i) FROM generate_series(-3, 3) i
             UNION ALL SELECT bk_train(ARRAY[i, -i]::numeric[], (i > 0)::int::int8, '{"budget": 4}' ORDER BY i) FROM generate_series(-3, 3) i) s(m)),
          1::bigint, 'float8[], float4[], int[] and numeric[] features train the same model');

SELECT has_cast('bk_model', 'bytea');
SELECT has_cast('bytea', 'bk_model');
SELECT cast_context_is('bk_model', 'bytea', 'explicit');
-- every form of features reaches bk_features implicitly, and a literal says to cast it
SELECT cast_context_is('double precision[]', 'bk_features', 'implicit');
SELECT cast_context_is('jsonb', 'bk_features', 'implicit');
SELECT cast_context_is('bk_sparse', 'bk_features', 'implicit');
SELECT throws_ok($$ SELECT bk_decision(NULL::bk_model, '{1,2}') $$, '42804', NULL,
                 'a features literal: cast it to float8[], jsonb or bk_sparse');
SELECT is((SELECT castmethod::text FROM pg_cast WHERE castsource = 'bk_model'::regtype
           AND casttarget = 'bytea'::regtype), 'b', 'bk_model -> bytea is free (binary coercible)');

-- an immutable call with constant arguments can be folded at plan time
SELECT lives_ok($$ SELECT bk_predict(
  (SELECT bk_train(ARRAY[i, -i]::float8[], (i > 0)::int::int8, '{"budget": 4}'::jsonb) FROM generate_series(-3, 3) i),
  ARRAY[1.0, -1.0]::float8[]) $$, 'predict over a model from a subquery');

-- numeric literals resolve to the bk_features scoring functions
SELECT lives_ok($$ SELECT bk_predict(
  (SELECT bk_train(ARRAY[i, -i]::float8[], (i > 0)::int::int8, '{"budget": 4}'::jsonb) FROM generate_series(-3, 3) i),
  ARRAY[1.5, -1.5]) $$, 'bk_predict(model, ARRAY[numeric literals]) is not ambiguous');

SELECT * FROM finish();
ROLLBACK;
