--
-- Regression (doc/regression.md): a float8 target trains a regressor with
-- the epsilon-insensitive passive-aggressive learners (pa, pa_random,
-- bpa) and the NORMA steps of ogd and bogd; it continues, merges, dumps
-- and scores like a classifier, and its target is standardised by
-- default.  An int2 or int4 label still trains a classifier.
--
SET client_min_messages = warning;
\set SHOW_CONTEXT never

-- a smooth non-linear function of one input, rows in a fixed shuffled
-- order: y = sin(3 x) + x / 10 on [-5, 5), and a price-like target of
-- the same shape far from 0
CREATE TABLE wave AS
SELECT g AS id, ARRAY[x]::float8[] AS x, sin(3 * x) + x / 10 AS y,
       1000 + 500 * sin(3 * x) AS price, (g % 2)::int4 AS c4, (g % 2)::int2 AS c2
FROM (SELECT g, (g % 1000) / 100.0 - 5 AS x FROM generate_series(1, 4000) g) q;
CREATE TABLE wave_test AS
SELECT ARRAY[x]::float8[] AS x, sin(3 * x) + x / 10 AS y
FROM (SELECT (g + 0.5) / 100.0 - 5 AS x FROM generate_series(0, 999) g) q;

-- the kernel regressor fits the wave (R^2 >= 0.9 on rows it did not
-- see); a linear fit explains almost nothing of it: least squares in SQL
-- (regr_r2) and the linear kernel
SELECT (r->>'r2')::float8 >= 0.9 AS rbf_fits, (r->>'rows')::int AS rows
FROM (SELECT bk_metrics(t.y, bk_predict_value(m, t.x)) AS r
      FROM wave_test t,
           (SELECT bk_train(x, y, '{"gamma": 1, "budget": 50}' ORDER BY bk_shuffle_key(id, 1)) AS m
            FROM wave) w) s;
SELECT regr_r2(y, x[1]) < 0.5 AS least_squares_fails FROM wave;
SELECT (r->>'r2')::float8 < 0.5 AS linear_kernel_fails
FROM (SELECT bk_metrics(t.y, bk_predict_value(m, t.x)) AS r
      FROM wave_test t,
           (SELECT bk_train(x, y, '{"kernel": "linear"}' ORDER BY bk_shuffle_key(id, 1)) AS m
            FROM wave) w) s;

CREATE TABLE fitted AS
SELECT bk_train(x, y, '{"gamma": 1, "budget": 50}' ORDER BY bk_shuffle_key(id, 1)) AS m
FROM wave;

-- what bk_info shows of a regressor
SELECT i->>'task' AS task, i->>'label_type' AS label_type, i->'classes' AS classes,
       i->'n_classes' AS n_classes, i->'n_machines' AS n_machines, i->'n_sv' AS n_sv,
       i->'target'->>'scale' AS target_scale,
       abs((i->'target'->>'mean')::float8 - (SELECT avg(y) FROM wave)) < 1e-12 AS mean_is_avg,
       abs((i->'target'->>'sd')::float8 - (SELECT stddev_pop(y) FROM wave)) < 1e-12 AS sd_is_stddev_pop,
       i->'params' AS params,
       (i->>'online_r2')::float8 > 0.9 AS online_r2_high,
       (i->>'online_rmse')::float8 > 0 AS has_rmse, (i->>'online_mae')::float8 > 0 AS has_mae
FROM (SELECT bk_info(m) AS i FROM fitted) t;

-- bk_metrics of a regressor's predictions, against the same sums in SQL
WITH p AS (SELECT t.y, bk_predict_value(f.m, t.x) AS p FROM wave_test t, fitted f),
     r AS (SELECT bk_metrics(y, p) AS r FROM p),
     s AS (SELECT sqrt(avg((p - y) ^ 2)) AS rmse, avg(abs(p - y)) AS mae,
                  1 - sum((p - y) ^ 2) / (count(*) * var_pop(y)) AS r2,
                  max(abs(p - y)) AS max_error, avg(p - y) AS mean_error FROM p)
SELECT r->'rows' AS rows, r->'rows_skipped' AS skipped,
       abs((r->>'rmse')::float8 - s.rmse) < 1e-12 AS rmse,
       abs((r->>'mae')::float8 - s.mae) < 1e-12 AS mae,
       abs((r->>'r2')::float8 - s.r2) < 1e-12 AS r2,
       abs((r->>'max_error')::float8 - s.max_error) < 1e-15 AS max_error,
       abs((r->>'mean_error')::float8 - s.mean_error) < 1e-12 AS mean_error
FROM r, s;
SELECT bk_metrics(a, p) FROM (VALUES (1.0::float8, NULL::float8), (2.0, 2.0)) v(a, p);
SELECT bk_metrics(a, p) IS NULL AS no_rows FROM (VALUES (NULL::float8, 1.0::float8)) v(a, p);

-- every learner that learns regression; the three BPA variants
-- (BOGD removes a random SV and bounds every coefficient: the weakest)
SELECT a AS algorithm, (SELECT round((bk_metrics(t.y, bk_predict_value(m, t.x))->>'r2')::numeric, 2)
                        FROM wave_test t,
                             (SELECT bk_train(x, y, jsonb_build_object('gamma', 1, 'algorithm', a)
                                              ORDER BY bk_shuffle_key(id, 1)) AS m FROM wave) w) AS r2
FROM unnest(ARRAY['pa', 'pa_random', 'bpa', 'ogd', 'bogd', 'pegasos']) a;
-- Pegasos (NORMA's step at the rate 1 / (lambda t)) with each of its
-- budget maintenance strategies, merging (the default) included; three
-- passes, as its first steps are large
SELECT mt AS maintenance, (SELECT round((bk_metrics(t.y, bk_predict_value(m, t.x))->>'r2')::numeric, 2)
                           FROM wave_test t,
                                (SELECT bk_train(x, y, jsonb_build_object('algorithm', 'pegasos', 'gamma', 1,
                                                 'budget', 50, 'maintenance', mt, 'epochs', 3)
                                                 ORDER BY bk_shuffle_key(id, 1)) AS m FROM wave) w) AS r2
FROM unnest(ARRAY['merge', 'projection', 'projection_best', 'smallest', 'random']) mt;
SELECT v AS variant, (SELECT (bk_metrics(t.y, bk_predict_value(m, t.x))->>'r2')::float8 > 0.9
                      FROM wave_test t,
                           (SELECT bk_train(x, y, jsonb_build_object('gamma', 1, 'budget', 50, 'variant', v)
                                            ORDER BY bk_shuffle_key(id, 1)) AS m FROM wave) w) AS fits
FROM unnest(ARRAY['s', 'nn', 'p']) v;

-- the label's type decides: int4, int2 and int8 labels train classifiers
-- (each reaches bk_label as an integer), float8, float4 and numeric
-- targets regressors
SET budgetkernel.run_warnings = off;
SELECT bk_info(bk_train(x, c4, '{}'))->>'task' AS int4_label,
       bk_info(bk_train(x, c2, '{}'))->>'task' AS int2_label,
       bk_info(bk_train(x, c4::int8, '{}'))->>'task' AS int8_label,
       bk_info(bk_train(x, c4::text, '{}'))->>'task' AS text_label,
       bk_info(bk_train(x, y, '{}'))->>'task' AS float8_target,
       bk_info(bk_train(x, y::float4, '{}'))->>'task' AS float4_target,
       bk_info(bk_train(x, y::numeric, '{}'))->>'task' AS numeric_target
FROM wave;
SELECT bk_info(bk_train(x, 1, '{}'))->>'task' AS integer_literal FROM wave;
-- or the task named: {"task": "classification"} makes a float8 column of
-- integers a classifier's labels, {"task": "regression"} an integer
-- column a regressor's targets; as a window function an int2 label is
-- an integer too (before 0.4.0 the float8 form took it for a target)
SELECT bk_info(bk_train(x, c4::float8, '{"task": "classification"}'))->>'task' AS float8_classes,
       bk_info(bk_train(x, c4::float8, '{"task": "classification"}'))->'classes' AS classes,
       bk_info(bk_train(x, c4, '{"task": "regression"}'))->>'task' AS int4_regression,
       bk_info(bk_train(x, y::numeric, '{"task": "regression"}'))->>'task' AS numeric_regression
FROM wave;
SELECT DISTINCT bk_info(m)->>'task' AS int2_window
FROM (SELECT bk_train(x, c2, '{}') OVER (ORDER BY id) AS m FROM wave WHERE id <= 40) w;
RESET budgetkernel.run_warnings;
SELECT bk_metrics(a, p)->'accuracy' AS int4_columns_classify
FROM (VALUES (1, 1), (2, 1)) v(a, p);

-- the target standardised (the default) or learned as it is: far from 0
-- and wide, the unscaled target takes steps of at most C = 1, and the
-- run warns
SELECT (bk_metrics(w.price, bk_predict_value(m, w.x))->>'r2')::float8 > 0.9 AS standardised_fits
FROM wave w, (SELECT bk_train(x, price, '{"gamma": 1}' ORDER BY bk_shuffle_key(id, 1)) AS m FROM wave) t;
SELECT (bk_metrics(w.price, bk_predict_value(m, w.x))->>'r2')::float8 < 0 AS unscaled_fails
FROM wave w, (SELECT bk_train(x, price, '{"gamma": 1, "target_scale": "none"}' ORDER BY bk_shuffle_key(id, 1)) AS m
              FROM wave) t;
SELECT bk_info(bk_train(x, price, '{"target_scale": "none"}' ORDER BY bk_shuffle_key(id, 1)))->'target' AS unscaled_target FROM wave;
-- a tube wider than the target: nothing is learned, the run says so
SELECT bk_info(bk_train(x, y, '{"epsilon": 100}' ORDER BY bk_shuffle_key(id, 1)))->'n_sv' AS n_sv FROM wave;
-- rows in the order of their targets: the online errors mean nothing
SELECT round((bk_info(bk_train(x, y, '{"gamma": 1}' ORDER BY y))->>'online_r2')::numeric, 2) AS online_r2 FROM wave;
-- a constant target divides by 1
SELECT bk_info(bk_train(x, 5.0::float8, '{}'))->'target' AS constant_target FROM wave;
-- and a target constant up to rounding (the running sums of 0.7 leave a
-- deviation of about 1e-15), by the rule of a feature's standardisation
SELECT bk_info(bk_train(x, 0.7::float8, '{}'))->'target'->'sd' AS rounded_constant_sd FROM wave;
SELECT bk_predict_value(bk_train(x, 5.0::float8, '{}'), ARRAY[0.3]) AS predicts_it FROM wave;

-- continue: the rows add up, the target's standardisation is kept, and
-- an int8 column continues a regressor too
CREATE TABLE half AS
SELECT bk_train(x, y, '{"gamma": 1, "budget": 50}' ORDER BY bk_shuffle_key(id, 1)) AS m
FROM wave WHERE id % 2 = 0;
SELECT bk_info(k)->'rows_seen' AS rows_seen,
       bk_info(k)->'target' = bk_info(h.m)->'target' AS same_target,
       (SELECT (bk_metrics(t.y, bk_predict_value(k, t.x))->>'r2')::float8 > 0.9 FROM wave_test t) AS fits
FROM half h, LATERAL (SELECT bk_continue(w.x, w.y, h.m ORDER BY bk_shuffle_key(w.id, 1)) AS k
                      FROM wave w WHERE w.id % 2 = 1) c;
SELECT bk_info(bk_continue(w.x, w.id::int8 % 3, h.m ORDER BY bk_shuffle_key(w.id, 2)))->'rows_seen' AS int8_targets
FROM wave w, half h GROUP BY h.m;
-- overrides: epsilon and C may change
SELECT bk_info(bk_continue(w.x, w.y, h.m, '{"epsilon": 0.05, "C": 2}' ORDER BY bk_shuffle_key(w.id, 3)))->'params'->'epsilon' AS epsilon
FROM wave w, half h GROUP BY h.m;

-- merge: the average of the two regressors' predictions, each with its
-- own target standardisation pooled (unbudgeted, so that nothing is
-- reduced: the merged prediction is the weighted average exactly)
CREATE TABLE parts AS
SELECT id % 2 AS part, bk_train(x, price, '{"algorithm": "pa", "gamma": 1, "max_sv": 5000}' ORDER BY bk_shuffle_key(id, 1)) AS m
FROM wave WHERE id <= 600 AND (id % 2 = 0 OR x[1] > 0) GROUP BY id % 2;
SELECT max(abs(bk_predict_value(mm, t.x)
               - (a.n * bk_predict_value(a.m, t.x) + b.n * bk_predict_value(b.m, t.x)) / (a.n + b.n)))
       < 1e-9 AS merged_is_the_weighted_average,
       bk_info(mm)->'merged_models' AS merged_models
FROM wave_test t,
     (SELECT m, (bk_info(m)->>'rows_seen')::float8 AS n FROM parts WHERE part = 0) a,
     (SELECT m, (bk_info(m)->>'rows_seen')::float8 AS n FROM parts WHERE part = 1) b,
     LATERAL (SELECT bk_merge(a.m, b.m) AS mm) mg
GROUP BY mm;
-- budgeted halves of the rows merge into a model as good as one
SELECT (bk_metrics(t.y, bk_predict_value(mm, t.x))->>'r2')::float8 > 0.9 AS merged_fits
FROM wave_test t,
     (SELECT bk_merge(m) AS mm
      FROM (SELECT bk_train(x, y, '{"gamma": 1, "budget": 50}' ORDER BY bk_shuffle_key(id, 1)) AS m
            FROM wave GROUP BY id % 4) p) q;

-- in parallel: each worker fits its own standardisation, and the merge
-- pools them
CREATE TABLE wave_big AS SELECT g AS id, x, y FROM wave, generate_series(1, 5) g;
ANALYZE wave_big;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT bk_train(x, y, '{"gamma": 1, "budget": 50}') FROM wave_big;
SELECT (bk_metrics(t.y, bk_predict_value(m, t.x))->>'r2')::float8 > 0.9 AS parallel_fits
FROM wave_test t, (SELECT bk_train(x, y, '{"gamma": 1, "budget": 50}') AS m FROM wave_big) p;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- dump and restore: the text form and bytea give the same predictions
SELECT bk_predict_value(m::text::bk_model, ARRAY[0.3]) = bk_predict_value(m, ARRAY[0.3]) AS text_round_trip,
       bk_predict_value(m::bytea::bk_model, ARRAY[0.3]) = bk_predict_value(m, ARRAY[0.3]) AS bytea_round_trip,
       bk_is_valid(m::bytea) AS valid
FROM fitted;

-- epochs, named features (jsonb) and sparse rows
SELECT (bk_metrics(t.y, bk_predict_value(m, t.x))->>'r2')::float8 > 0.9 AS epochs_fit
FROM wave_test t, (SELECT bk_train(x, y, '{"gamma": 1, "budget": 30, "epochs": 3}' ORDER BY bk_shuffle_key(id, 1)) AS m
                   FROM wave) w;
SELECT (bk_metrics(t.y, bk_predict_value(m, jsonb_build_object('x', t.x[1])))->>'r2')::float8 > 0.9 AS named_fit
FROM wave_test t, (SELECT bk_train(jsonb_build_object('x', x[1]), y, '{"gamma": 8}' ORDER BY bk_shuffle_key(id, 1)) AS m
                   FROM wave) w;
SELECT (bk_metrics(t.y, bk_predict_value(m, bk_sparse(ARRAY[1], t.x, 1)))->>'r2')::float8 > 0.9 AS sparse_fit
FROM wave_test t, (SELECT bk_train(bk_sparse(ARRAY[1], x, 1), y, '{"gamma": 1}' ORDER BY bk_shuffle_key(id, 1)) AS m
                   FROM wave) w;

-- cross-validation scores regressors by R^2 (or the negated RMSE, MAE);
-- without a grid it searches gamma, C and epsilon
SELECT params, mean > 0.9 AS good
FROM bk_cross_validate('wave', 'x', 'y', 'id', '{"grid": {"gamma": [0.1, 1], "budget": 50}, "folds": 3}');
SELECT params, mean < 0 AS negated
FROM bk_cross_validate('wave', 'x', 'y', 'id', '{"grid": {"gamma": 1, "budget": 50}, "folds": 3, "metric": "neg_rmse"}');
SELECT count(*) AS settings, bool_and(params ? 'epsilon') AS searched_epsilon,
       max(mean) > 0.95 AS best_fits, count(model) AS refitted
FROM bk_cross_validate('wave', 'x', 'y', 'id', '{"refit": true}');

-- bad input: each a clear error
SET budgetkernel.run_warnings = off;
\set VERBOSITY terse
SELECT bk_train(x, y, '{"algorithm": "perceptron"}') FROM wave;
\echo :LAST_ERROR_SQLSTATE
SELECT bk_train(x, y, '{"loss": "ramp"}') FROM wave;
SELECT bk_train(x, c4, '{"epsilon": 0.2}') FROM wave;
SELECT bk_train(x, c4, '{"target_scale": "none"}') FROM wave;
SELECT bk_train(x, y, '{"target_scale": "minmax"}') FROM wave;
SELECT bk_train(x, y, '{"class_weight": "balanced"}') FROM wave;
SELECT bk_train(x, y, '{"classes": [0, 1]}') FROM wave;
SELECT bk_train(x, y, '{"epsilon": -1}') FROM wave;
SELECT bk_train(x, CASE WHEN id = 7 THEN 'Infinity' ELSE y END, '{}') FROM wave;
\echo :LAST_ERROR_SQLSTATE
SELECT bk_train(x, CASE WHEN id = 7 THEN 'NaN' ELSE y END, '{"target_scale": "none"}') FROM wave;
SELECT bk_predict(m, ARRAY[0.1]) FROM fitted;
\echo :LAST_ERROR_SQLSTATE
SELECT bk_predict_label(m, ARRAY[0.1]) FROM fitted;
SELECT bk_decision(m, ARRAY[0.1]) FROM fitted;
SELECT bk_scores(m, ARRAY[0.1]) FROM fitted;
SELECT bk_probabilities(m, ARRAY[0.1]) FROM fitted;
SELECT bk_calibrate(f.m, w.x, w.c4) FROM wave w, fitted f GROUP BY f.m;
SELECT bk_predict_value(bk_train(x, c4, '{}'), ARRAY[0.1]) FROM wave;
SELECT bk_continue(w.x, w.c4::text, f.m) FROM wave w, fitted f GROUP BY f.m;
SELECT bk_continue(w.x, w.y, c.m) FROM wave w, (SELECT bk_train(x, c4, '{}') AS m FROM wave) c GROUP BY c.m;
SELECT bk_merge(f.m, c.m) FROM fitted f, (SELECT bk_train(x, c4::int8, '{"gamma": 1, "budget": 50}') AS m FROM wave) c;
SELECT bk_merge(f.m, u.m) FROM fitted f, (SELECT bk_train(x, y, '{"gamma": 1, "budget": 50, "target_scale": "none"}') AS m FROM wave) u;
CREATE TABLE int2_labels AS SELECT 1::int2 AS a, 1::int2 AS p;
SELECT bk_metrics(a, p)->'accuracy' AS int2_columns_classify FROM int2_labels;
-- a task the labels cannot take, an unknown one, a change of task
SELECT bk_train(x, y, '{"task": "classification"}') FROM wave;
SELECT bk_train(x, c4::text, '{"task": "regression"}') FROM wave;
SELECT bk_train(x, c4, '{"task": "novelty"}') FROM wave;
SELECT bk_train(x, NULL, '{"task": "regression"}') FROM wave;
SELECT bk_train(x, c4, '{"task": "clustering"}') FROM wave;
SELECT bk_continue(w.x, w.c4, f.m, '{"task": "classification"}') FROM wave w, fitted f GROUP BY f.m;
-- bk_cross_validate's task: a float8 column of integers as classes
-- (accuracy, between 0 and 1), an integer column as a target; values
-- that are not integers, or text targets, an error
SELECT mean BETWEEN 0 AND 1 AS accuracy_scored
FROM bk_cross_validate('wave', 'x', 'c4::float8', 'id', '{"grid": {"gamma": 1}, "folds": 3, "task": "classification"}');
SELECT bk_info(model)->>'task' AS refit_task
FROM bk_cross_validate('wave', 'x', 'c4', 'id', '{"grid": {"gamma": 1}, "folds": 3, "task": "regression", "refit": true}')
WHERE model IS NOT NULL;
SELECT * FROM bk_cross_validate('wave', 'x', 'y', 'id', '{"grid": {"gamma": 1}, "folds": 3, "task": "classification"}');
SELECT * FROM bk_cross_validate('wave', 'x', 'c4::text', 'id', '{"grid": {"gamma": 1}, "folds": 3, "task": "regression"}');
SELECT * FROM bk_cross_validate('wave', 'x', 'c4', 'id', '{"task": "novelty"}');
SELECT * FROM bk_cross_validate('wave', 'x', 'y', 'id', '{"grid": {"gamma": 1}, "folds": 3, "metric": "accuracy"}');
SELECT * FROM bk_cross_validate('wave', 'x', 'c4', 'id', '{"grid": {"gamma": 1}, "folds": 3, "metric": "r2"}');
\set VERBOSITY default

-- overflow, told by its cause: a step size so large that the learner's
-- predictions diverge is the learner's fault, not the target's (until
-- 0.4.0 the message blamed the target "3"); targets too large for the
-- standardisation's sums never print "-nan"
\set VERBOSITY terse
SELECT bk_train(ARRAY[g, g * 2]::float8[], (g * 1.5)::float8, '{"algorithm": "bogd", "eta": 1e308}')
FROM generate_series(1, 20) g;
SELECT bk_train(ARRAY[g, g * 2]::float8[], CASE WHEN g < 10 THEN 1.7e308 ELSE -1.7e308 END::float8, '{}')
FROM generate_series(1, 20) g;
SELECT bk_train(ARRAY[g, g * 2]::float8[], 1.7e308::float8, '{}')
FROM generate_series(1, 20) g;
SELECT bk_train(ARRAY[g, g * 2]::float8[], CASE WHEN g % 2 = 0 THEN 1e200 ELSE -1e200 END::float8,
                '{"target_scale": "none"}')
FROM generate_series(1, 20) g;
\set VERBOSITY default
