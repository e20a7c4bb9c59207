--
-- bk_drift(x [, params]): change detection over a stream in the
-- aggregate's order; bk_data_drift(model, features): rows
-- against a model's preparation.
--
-- The streams of issue 53: a classifier's errors, Bernoulli(0.1) for
-- 50 000 rows (stationary), and the same stepping to 0.3 at row 25 001.
-- Uniform numbers from md5 (deterministic, no random()): the first 32
-- bits of md5(seed:i) over 2^32.
CREATE TEMP TABLE drift_rows AS
SELECT s AS seed, i,
       (('x' || substr(md5(s || ':' || i), 1, 8))::bit(32)::int8 / 4294967296.0)::float8 AS u
FROM generate_series(1, 3) s, generate_series(1, 50000) i;
CREATE TEMP VIEW drift_streams AS
SELECT seed, i, (u < 0.1)::int::float8 AS stationary,
       (u < CASE WHEN i >= 25001 THEN 0.3 ELSE 0.1 END)::int::float8 AS step
FROM drift_rows;

-- The bar of issue 53 (bars/drift4): ADWIN (the default) reports no
-- change on the stationary streams, and on the step streams its first
-- change lies between rows 25 001 and 26 500
SELECT seed,
       (bk_drift(stationary ORDER BY i))->'changes_detected' AS stationary_changes,
       (bk_drift(step ORDER BY i))->'changes'->0->'row' AS first_change,
       ((bk_drift(step ORDER BY i))->'changes'->0->>'row')::int BETWEEN 25001 AND 26500 AS within_bar
FROM drift_streams GROUP BY seed ORDER BY seed;

-- the whole report of one step stream: the method, its parameters, the
-- rows, each change (the window left, its mean, the rows dropped and
-- their mean), and the detector's state after the last row
SELECT jsonb_pretty(bk_drift(step ORDER BY i)) FROM drift_streams WHERE seed = 1;

-- Page-Hinkley and DDM on the same streams (doc/drift.md): their false
-- alarms on the stationary streams, and the first change at or after the
-- step
SELECT seed, m AS method,
       (SELECT count(*) FROM jsonb_array_elements(st->'changes') c) AS stationary_changes,
       (SELECT min((c->>'row')::int) FROM jsonb_array_elements(sp->'changes') c
        WHERE (c->>'row')::int >= 25001) AS first_after_step,
       (SELECT count(*) FROM jsonb_array_elements(sp->'changes') c
        WHERE (c->>'row')::int < 25001) AS before_step
FROM (SELECT seed, m, bk_drift(stationary, jsonb_build_object('method', m) ORDER BY i) AS st,
             bk_drift(step, jsonb_build_object('method', m) ORDER BY i) AS sp
      FROM drift_streams, (VALUES ('page_hinkley'), ('ddm')) v(m)
      GROUP BY seed, m) r
ORDER BY m, seed;

-- parameters: a smaller delta is slower to cut, never faster; clock 1
-- tests every row
SELECT (bk_drift(step, '{"delta": 0.002}' ORDER BY i))->'changes'->0->'row' AS delta_0_002,
       (bk_drift(step, '{"delta": 0.00001}' ORDER BY i))->'changes'->0->'row' AS delta_0_00001,
       (bk_drift(step, '{"clock": 1}' ORDER BY i))->'changes'->0->'row' AS clock_1
FROM drift_streams WHERE seed = 1;
SELECT bk_drift(step, '{"method": "page_hinkley", "lambda": 25, "delta": 0.01, "alpha": 1, "min_rows": 100}' ORDER BY i)->'params' AS ph_params,
       bk_drift(step, '{"method": "ddm", "min_rows": 50}' ORDER BY i)->'params' AS ddm_params
FROM drift_streams WHERE seed = 1;

-- at most max_changes changes are kept; every one is counted
SELECT r->'changes_detected' AS detected, jsonb_array_length(r->'changes') AS kept
FROM (SELECT bk_drift(((i / 2000) % 2)::float8, '{"max_changes": 2}' ORDER BY i) AS r
      FROM generate_series(1, 20000) i) s;

-- NULL values are positions without a value: counted, not tested; rows
-- are positions in the aggregate's order, NULLs included
SELECT r->'rows' AS rows, r->'rows_skipped' AS skipped, r->'changes'->0->'row' AS first_change
FROM (SELECT bk_drift(CASE WHEN i % 100 = 0 THEN NULL ELSE step END ORDER BY i) AS r
      FROM drift_streams WHERE seed = 1) s;
-- no row: NULL
SELECT bk_drift(x) IS NULL AS null_report FROM (SELECT 1.0::float8 AS x WHERE false) v;

-- a window function over a growing frame: each row's report is that of
-- the rows up to it, and the last one is the aggregate's
CREATE TEMP TABLE drift_window AS
SELECT i, bk_drift(step) OVER (ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS r
FROM (SELECT i, (u < CASE WHEN i >= 1001 THEN 0.6 ELSE 0.1 END)::int::float8 AS step
      FROM drift_rows WHERE seed = 1 AND i <= 2000) s;
SELECT count(*) FILTER (WHERE (r->>'rows')::int = i) AS rows_match,
       min(i) FILTER (WHERE (r->>'changes_detected')::int > 0) AS first_row_with_a_change,
       bool_and((r->'changes'->0->>'row')::int <= i) AS changes_not_ahead
FROM drift_window;
SELECT (SELECT r FROM drift_window WHERE i = 2000) =
       bk_drift((u < CASE WHEN i >= 1001 THEN 0.6 ELSE 0.1 END)::int::float8 ORDER BY i) AS last_is_aggregate,
       (SELECT r->'changes'->0->'row' FROM drift_window WHERE i = 2000) AS first_change
FROM drift_rows WHERE seed = 1 AND i <= 2000;

-- a raw feature: the mean of a Gaussian-like sum of uniforms moves by 0.5
SELECT r->'changes'->0->'row' AS first_change, r->'changes_detected' AS detected
FROM (SELECT bk_drift(u1 + u2 + u3 + CASE WHEN i > 3000 THEN 0.5 ELSE 0 END ORDER BY i) AS r
      FROM (SELECT a.i, a.u AS u1, b.u AS u2, c.u AS u3
            FROM drift_rows a JOIN drift_rows b ON b.i = a.i AND b.seed = 2
                 JOIN drift_rows c ON c.i = a.i AND c.seed = 3
            WHERE a.seed = 1 AND a.i <= 6000) t) s;

-- bad input
SELECT bk_drift(x, '{"method": "cusum"}') FROM (VALUES (1.0::float8)) v(x);
SELECT bk_drift(x, '{"delta": 0}') FROM (VALUES (1.0::float8)) v(x);
SELECT bk_drift(x, '{"delta": 1.5}') FROM (VALUES (1.0::float8)) v(x);
SELECT bk_drift(x, '{"delta": "0.01"}') FROM (VALUES (1.0::float8)) v(x);
SELECT bk_drift(x, '{"clock": 2.5}') FROM (VALUES (1.0::float8)) v(x);
SELECT bk_drift(x, '{"max_buckets": 1000}') FROM (VALUES (1.0::float8)) v(x);
SELECT bk_drift(x, '{"method": "ddm", "clock": 10}') FROM (VALUES (1.0::float8)) v(x);
SELECT bk_drift(x, '{"lambda": 10}') FROM (VALUES (1.0::float8)) v(x);
SELECT bk_drift(x, '{"method": "page_hinkley", "alpha": 0}') FROM (VALUES (1.0::float8)) v(x);
SELECT bk_drift(x, '{"threshold": 3}') FROM (VALUES (1.0::float8)) v(x);
SELECT bk_drift(x, '[1]') FROM (VALUES (1.0::float8)) v(x);
SELECT bk_drift(x, NULL) FROM (VALUES (1.0::float8)) v(x);
SELECT bk_drift(x ORDER BY o) FROM (VALUES (1, 0.0::float8), (2, 'NaN')) v(o, x);
SELECT bk_drift(x ORDER BY o) FROM (VALUES (1, 0.0::float8), (2, '-Infinity')) v(o, x);
SELECT bk_drift(x, '{"method": "ddm"}' ORDER BY o) FROM (VALUES (1, 0.0::float8), (2, 0.5)) v(o, x);

-- bk_data_drift: a model of named features (a number, a text) keeps
-- their means, deviations and levels; rows from the same source move
-- nothing, rows whose "size" grew by 1.5 and whose colour takes a new
-- value move both
CREATE TEMP TABLE dd_train AS
SELECT i, jsonb_build_object('size', (u * 10)::numeric(8, 3),
                             'colour', (ARRAY['blue', 'green', 'red'])[1 + i % 3]) AS f,
       (u > 0.5)::int::int8 AS label
FROM drift_rows WHERE seed = 1 AND i <= 600;
CREATE TEMP TABLE dd_model AS
SELECT bk_train(f, label, '{"budget": 20, "gamma": 0.5}' ORDER BY i) AS m FROM dd_train;
SELECT r->'rows' AS rows, r->'moved' AS moved,
       r->'features'->0->'levels' AS colour_levels, r->'features'->1->'mean_shift' AS size_shift
FROM (SELECT bk_data_drift(m, f) AS r FROM dd_model, dd_train) s;
SELECT jsonb_pretty(bk_data_drift(m, jsonb_build_object(
         'size', (u * 10 + 1.5)::numeric(8, 3),
         'colour', CASE WHEN i % 4 = 0 THEN 'pink' ELSE 'red' END,
         'other', 1)))
FROM dd_model, drift_rows WHERE seed = 2 AND i <= 400;
-- a missing key or a null is a missing value; the thresholds of "moved"
-- are fixed, and other ones are a filter on the statistics
SELECT r->'thresholds' AS thresholds, r->'features'->1->'missing' AS size_missing,
       (SELECT jsonb_agg(f->'feature') FROM jsonb_array_elements(r->'features') f
        WHERE abs((f->>'mean_shift')::float8) > 1 OR (f->>'unseen_share')::float8 > 0.5) AS moved_by_1_sd
FROM (SELECT bk_data_drift(m, CASE WHEN i % 5 = 0 THEN jsonb_build_object('colour', 'red', 'size', NULL)
                                   ELSE jsonb_build_object('colour', 'red', 'size', (u * 10 + 1.5)::numeric(8, 3)) END) AS r
      FROM dd_model, drift_rows WHERE seed = 2 AND i <= 400) s;
-- arrays with "scale": "standard": inputs by position
CREATE TEMP TABLE dd_array_model AS
SELECT bk_train(ARRAY[u, 1 - u * u]::float8[], (u > 0.5)::int::int8, '{"budget": 10, "scale": "standard"}' ORDER BY i) AS m
FROM drift_rows WHERE seed = 1 AND i <= 500;
SELECT r->'moved' AS moved, r->'features'->0->'feature' AS first, r->'features'->1->'mean_shift' AS second_shift
FROM (SELECT bk_data_drift(m, ARRAY[u, 2 - u * u]::float8[]) AS r
      FROM dd_array_model, drift_rows WHERE seed = 2 AND i <= 500) s;
-- GROUP BY: one report per segment; the first input moved by 1 (3.5 sd)
-- in segment 1 only
SELECT i % 2 AS segment, (bk_data_drift(m, ARRAY[u + (i % 2), 1 - u * u]::float8[]))->'moved' AS moved
FROM dd_array_model, drift_rows WHERE seed = 3 AND i <= 500 GROUP BY 1 ORDER BY 1;

-- bad input
CREATE TEMP TABLE dd_plain AS
SELECT bk_train(ARRAY[i, -i]::float8[], (i > 0)::int::int8, '{"budget": 4}' ORDER BY i) AS m
FROM generate_series(-3, 3) i;
SELECT bk_data_drift(m, ARRAY[1, 2]::float8[]) FROM dd_plain;
SELECT bk_data_drift(m, ARRAY[1, 2]::float8[]) FROM dd_model;
SELECT bk_data_drift(m, '{"size": 1}'::jsonb) FROM dd_array_model;
SELECT bk_data_drift(m, ARRAY[1, 2, 3]::float8[]) FROM dd_array_model;
SELECT bk_data_drift(m, '{"size": "big"}'::jsonb) FROM dd_model;
SELECT bk_data_drift(m, '{"colour": 3}'::jsonb) FROM dd_model;
SELECT bk_data_drift(m, '{"Size": 3}'::jsonb) FROM dd_model;
SELECT bk_data_drift(NULL::bk_model, '{"size": 3}'::jsonb);
SELECT bk_data_drift(m, f ORDER BY k)
FROM (SELECT 1 AS k, m, '{"size": 1}'::jsonb AS f FROM dd_model
      UNION ALL SELECT 2, m, '{"size": 1}'::jsonb FROM dd_array_model) v;
-- NULL features are skipped and counted; no row: NULL
SELECT r->'rows' AS rows, r->'rows_skipped' AS skipped
FROM (SELECT bk_data_drift(m, CASE WHEN i = 2 THEN NULL ELSE '{"size": 5}'::jsonb END) AS r
      FROM dd_model, generate_series(1, 3) i) s;
SELECT bk_data_drift(m, f) IS NULL AS null_report FROM dd_model, dd_train WHERE false;
