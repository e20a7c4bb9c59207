--
-- Training behaviour through SQL: determinism, row order, warm start,
-- float4 input, counters, window use, kernels, unbudgeted learners.
--
SET client_min_messages = warning;
\set SHOW_CONTEXT never

\i test/fixtures/checkerboard.sql
\i test/fixtures/without_parents.sql
\i test/fixtures/plan_shape.sql
CREATE TABLE pts AS SELECT * FROM bk_test.checkerboard(2000);

CREATE TABLE cfg (name text, params jsonb);
INSERT INTO cfg VALUES
  ('bpa-s',      '{"algorithm": "bpa", "variant": "s", "budget": 30, "gamma": 20}'),
  ('bpa-nn',     '{"algorithm": "bpa", "variant": "nn", "loss": "ramp", "budget": 30, "gamma": 20}'),
  ('bpa-p',      '{"algorithm": "bpa", "variant": "p", "budget": 30, "gamma": 20}'),
  ('pa',         '{"algorithm": "pa", "gamma": 20}'),
  ('pa-ramp',    '{"algorithm": "pa", "loss": "ramp", "gamma": 20}'),
  ('perceptron', '{"algorithm": "perceptron", "gamma": 20}'),
  ('bpa-linear', '{"algorithm": "bpa", "variant": "p", "budget": 30, "kernel": "linear"}'),
  ('bpa-poly',   '{"algorithm": "bpa", "variant": "nn", "budget": 30, "kernel": "poly", "degree": 4, "gamma": 2, "coef0": 1}'),
  ('stoptron',   '{"algorithm": "stoptron", "budget": 30, "gamma": 20}'),
  ('rbp',        '{"algorithm": "rbp", "budget": 30, "gamma": 20, "seed": 5}'),
  ('pa_random',  '{"algorithm": "pa_random", "budget": 30, "gamma": 20, "C": 1, "seed": 5}'),
  ('budget_perceptron', '{"algorithm": "budget_perceptron", "budget": 30, "gamma": 20, "margin": 0.2}'),
  ('budget_perceptron_svm', '{"algorithm": "budget_perceptron", "update": "nobias_svm", "C": 0.5, "budget": 30, "gamma": 20}'),
  ('tighter svs', '{"algorithm": "tighter_budget_perceptron", "eval_set": "svs", "budget": 30, "gamma": 20}'),
  ('tighter random', '{"algorithm": "tighter_budget_perceptron", "eval_set": "random", "eval_size": 80, "budget": 30, "gamma": 20, "seed": 3}'),
  ('tighter flip', '{"algorithm": "tighter_budget_perceptron", "eval_set": "flip", "eval_size": 80, "budget": 30, "gamma": 20}'),
  ('tighter all', '{"algorithm": "tighter_budget_perceptron", "eval_set": "all", "eval_size": 80, "budget": 30, "gamma": 20}'),
  ('spa average', '{"algorithm": "spa", "alpha": 1, "beta": 5, "eta": 1, "gamma": 20, "seed": 4}'),
  ('spa last', '{"algorithm": "spa", "alpha": 1, "beta": 5, "eta": 1, "gamma": 20, "seed": 4, "output": "last"}'),
  ('ogd', '{"algorithm": "ogd", "eta": 0.5, "gamma": 20}'),
  ('duol', '{"algorithm": "duol", "C": 10, "gamma": 20}'),
  ('bduol removal', '{"algorithm": "bduol", "maintenance": "removal", "budget": 30, "C": 10, "gamma": 20}'),
  ('bduol nearest', '{"algorithm": "bduol", "maintenance": "nearest", "budget": 30, "C": 10, "gamma": 20}'),
  ('bduol approx_projection', '{"algorithm": "bduol", "maintenance": "approx_projection", "budget": 30, "C": 10, "gamma": 20}'),
  ('bduol projection', '{"algorithm": "bduol", "maintenance": "projection", "budget": 30, "C": 10, "gamma": 20, "rho": 0.1}'),
  ('bogd', '{"algorithm": "bogd", "budget": 30, "eta": 0.5, "gamma": 20, "seed": 2}'),
  ('forgetron', '{"algorithm": "forgetron", "budget": 30, "gamma": 20}'),
  ('projectron', '{"algorithm": "projectron", "budget": 30, "gamma": 20}'),
  ('projectron_pp', '{"algorithm": "projectron_pp", "budget": 30, "gamma": 20, "eta": 0.1}');

-- one model per configuration, twice: training is deterministic
CREATE TABLE m AS
SELECT c.name, c.params,
       (SELECT bk_train(features, label, c.params ORDER BY id) FROM pts) AS model,
       (SELECT bk_train(features, label, c.params ORDER BY id) FROM pts) AS again
FROM cfg c;
SELECT name, model::bytea = again::bytea AS deterministic,
       (bk_info(model)->>'n_sv')::int <= coalesce((bk_info(model)->>'budget')::int, 10000) AS within_budget,
       (bk_info(model)->>'rows_seen')::int AS rows_seen,
       (bk_info(model)->>'rows_updated')::int <= 2000 AS updated_ok,
       (SELECT avg((bk_predict(model, features) = label)::int) FROM pts) > 0.7 AS fits_checkerboard
FROM m ORDER BY name;
-- (a linear or degree-4 polynomial kernel cannot fit a 4 x 4 checkerboard, nor
-- can the perceptron baselines, BOGD or BDUOL with 30 SVs here - removal-based
-- maintenance is weak at tiny budgets, paper 001 §4: f is right for those rows)

-- SPA: the averaged and the last classifier hold the same SVs but score differently
SELECT (SELECT count(*) FROM bk_support_vectors(a.model)) = (SELECT count(*) FROM bk_support_vectors(l.model)) AS same_svs,
       (SELECT count(*) FROM pts WHERE bk_decision(a.model, features) <> bk_decision(l.model, features)) > 0 AS averages_differ
FROM m a, m l WHERE a.name = 'spa average' AND l.name = 'spa last';

-- random removal depends on the seed, and only on it
SELECT (SELECT bk_train(features, label, '{"algorithm": "rbp", "budget": 30, "gamma": 20, "seed": 6}' ORDER BY id) FROM pts)::bytea
       <> model::bytea AS seed_matters
FROM m WHERE name = 'rbp';
-- the Stoptron fills its budget and stops: its support vectors are the first 30 mistakes
SELECT (bk_info(model)->>'n_sv')::int AS n_sv, (bk_info(model)->>'rows_updated')::int AS rows_updated
FROM m WHERE name = 'stoptron';

-- BPA-P with the linear kernel: with its default ridge of K^-1 (1e-6) it
-- takes rows up to the budget, even those that lie in the span of the SVs;
-- with "ridge": 0 (the exact eq. 9) it keeps at most dim = 2 SVs
SELECT bk_info(model)->'n_sv' AS n_sv_linear FROM m WHERE name = 'bpa-linear';
SELECT bk_info(bk_train(features, label, params || '{"ridge": 0}' ORDER BY id))->'n_sv' AS n_sv_linear_exact
FROM pts, m WHERE m.name = 'bpa-linear' GROUP BY m.params;

-- row order is the stream order: another order, another model
SELECT (SELECT bk_train(features, label, params ORDER BY id DESC) FROM pts)::bytea <> model::bytea AS order_matters
FROM m WHERE name = 'bpa-nn';

-- continuing training: rows 1001-2000 on top of a model of rows 1-1000 is
-- bit-identical to one pass over rows 1-2000 (but that the continued model
-- names its base as parent)
SELECT name,
       bk_test.without_parents((SELECT bk_continue(p.features, p.label, h.half ORDER BY p.id) FROM pts p WHERE p.id > 1000))
         = bk_test.without_parents(model) AS warm_start_identical
FROM m, LATERAL (SELECT bk_train(features, label, m.params ORDER BY id) AS half FROM pts WHERE id <= 1000) h
ORDER BY name;

-- a continued model keeps its parameters and adds up its counters
SELECT bk_info(w)->'params' = bk_info(b)->'params' AS same_params,
       (bk_info(w)->>'rows_seen')::int AS rows_seen
FROM (SELECT bk_train(features, label, '{"budget": 15, "gamma": 20}' ORDER BY id) AS b FROM pts WHERE id <= 500) s,
     LATERAL (SELECT bk_continue(features, label, s.b ORDER BY id) AS w FROM pts WHERE id > 500 AND id <= 800) t;

-- float4 input: the same model as the float8 values it rounds to
SELECT bk_train(features::float4[], label, params ORDER BY id)::bytea
     = bk_train(features::float4[]::float8[], label, params ORDER BY id)::bytea AS float4_same
FROM pts, cfg WHERE cfg.name = 'bpa-nn';
SELECT bk_predict(model, ARRAY[0.1, 0.2]::float4[]) = bk_predict(model, ARRAY[0.1::float4, 0.2::float4]::float8[]) AS f4_predict,
       bk_decision(model, ARRAY[0.1, 0.2]::float4[]) = bk_decision(model, ARRAY[0.1::float4, 0.2::float4]::float8[]) AS f4_decision
FROM m WHERE name = 'bpa-p';

-- the decision value's sign gives the prediction; positive = second class seen
SELECT name, bk_info(model)->'classes' AS classes,
       (SELECT bool_and((bk_decision(model, features) > 0)
                        = (bk_predict(model, features) = (bk_info(model)->'classes'->>1)::int8)) FROM pts) AS sign_ok
FROM m WHERE name = 'bpa-s';

-- counters: online mistakes are counted before each update
SELECT name, (bk_info(model)->>'online_mistakes')::int > 0 AS has_mistakes,
       (bk_info(model)->>'online_mistake_rate')::float8 < 0.5 AS better_than_chance
FROM m WHERE name IN ('bpa-nn', 'perceptron') ORDER BY name;

-- as a window function: a running model per row
SELECT id, (bk_info(bk_train(features, label, '{"budget": 3, "gamma": 20}') OVER (ORDER BY id))->>'rows_seen')::int AS seen
FROM pts WHERE id <= 5 ORDER BY id;

-- GROUP BY trains one model per group in one scan
SELECT id % 2 AS grp, (bk_info(bk_train(features, label, '{"budget": 10, "gamma": 20}' ORDER BY id))->>'rows_seen')::int AS rows
FROM pts GROUP BY 1 ORDER BY 1;

-- ordered training is one serial stream (PostgreSQL never splits an
-- aggregate with ORDER BY); unordered training may run in parallel workers,
-- whose partial models are merged (test/sql/merge.sql)
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SELECT bk_test.plan_shape($$SELECT bk_train(features, label, '{"budget": 10}' ORDER BY id) FROM pts$$) AS plan;
SELECT bk_test.plan_shape($$SELECT bk_train(features, label, '{"budget": 10}') FROM pts$$) AS plan;
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;

-- models live in tables and are versioned
CREATE TABLE store (version int PRIMARY KEY, model bk_model);
INSERT INTO store SELECT 1, bk_train(features, label, '{"budget": 20, "gamma": 20}' ORDER BY id) FROM pts WHERE id <= 1000;
INSERT INTO store SELECT 2, bk_continue(n.features, n.label, s.model ORDER BY n.id) FROM pts n, store s WHERE s.version = 1 AND n.id > 1000;
SELECT version, (bk_info(model)->>'rows_seen')::int AS rows_seen FROM store ORDER BY version;
-- one model a call: rows joined with two models (a second version 1 in
-- another table, say) are refused, not each learned twice into one model;
-- bk_calibrate refuses the same
\set VERBOSITY terse
SELECT bk_continue(n.features, n.label, s.model ORDER BY n.id) FROM pts n, store s WHERE n.id > 1000;
SELECT bk_calibrate(s.model, n.features, n.label) FROM pts n, store s WHERE n.id > 1000;
\set VERBOSITY default
-- and two models made in the query
SELECT bk_continue(n.features, n.label, m.model ORDER BY n.id)
FROM pts n, (VALUES (1), (2)) v(k),
     LATERAL (SELECT bk_train(features, label, jsonb_build_object('budget', 20, 'gamma', 10 * v.k)) AS model
              FROM pts WHERE id <= 50) m
WHERE n.id > 1000;
SELECT max(acc) FILTER (WHERE version = 2) > max(acc) FILTER (WHERE version = 1) AS version_2_more_accurate,
       max(acc) FILTER (WHERE version = 2) > 0.8 AS version_2_above_80_percent
FROM (SELECT s.version, avg((bk_predict(s.model, p.features) = p.label)::int) AS acc
      FROM store s, pts p GROUP BY s.version) a;

DROP TABLE pts, cfg, m, store;

-- features in every form PostgreSQL stores a value: a short inline array
-- (1-byte header), inline (PLAIN), compressed inline (MAIN), out of line
-- (EXTERNAL, a TOAST pointer, whose header also has one byte), compressed
-- out of line (EXTENDED, values that compress too little to fit); the
-- same rows give the same model from every table, in training and scoring
-- (the training glue copies short values itself, bk_pg.h BkPgDetoastRow)
CREATE TABLE forms_src (id int, label int, features float8[], wide float8[]);
ALTER TABLE forms_src ALTER features SET STORAGE PLAIN, ALTER wide SET STORAGE EXTERNAL;
INSERT INTO forms_src
SELECT i, CASE WHEN i % 3 = 0 THEN 1 ELSE -1 END,
       (SELECT array_agg(CASE WHEN j % 7 = i % 7 THEN round(sin(i * j)::numeric, 2)::float8 ELSE 0 END ORDER BY j)
        FROM generate_series(1, 300) j),
       (SELECT array_agg(round(sin(i * j)::numeric, 1)::float8 ORDER BY j) FROM generate_series(1, 4000) j)
FROM generate_series(1, 60) i;
CREATE TABLE forms_plain (id int, label int, features float8[]);
ALTER TABLE forms_plain ALTER features SET STORAGE PLAIN;
CREATE TABLE forms_main (LIKE forms_plain);
ALTER TABLE forms_main ALTER features SET STORAGE MAIN, ALTER features SET COMPRESSION pglz;
CREATE TABLE forms_external (LIKE forms_plain);
ALTER TABLE forms_external ALTER features SET STORAGE EXTERNAL;
INSERT INTO forms_plain SELECT id, label, features FROM forms_src;
INSERT INTO forms_main SELECT id, label, features FROM forms_src;
INSERT INTO forms_external SELECT id, label, features FROM forms_src;
-- four values: 53 bytes on disk, a 1-byte header (56 with a 4-byte one)
CREATE TABLE forms_short (id int, label int, features float8[]);
INSERT INTO forms_short SELECT id, label, features[1:4] FROM forms_src;
CREATE TABLE forms_wide (id int, label int, features float8[] COMPRESSION pglz);
INSERT INTO forms_wide SELECT id, label, wide FROM forms_src;
CREATE TABLE forms_wide_plain (LIKE forms_wide);
ALTER TABLE forms_wide_plain ALTER features SET STORAGE EXTERNAL;
INSERT INTO forms_wide_plain SELECT id, label, wide FROM forms_src;
-- the forms the tables hold
SELECT (SELECT count(*) FROM forms_plain WHERE pg_column_compression(features) IS NULL) AS plain_uncompressed,
       (SELECT count(*) FROM forms_main WHERE pg_column_compression(features) = 'pglz') AS main_compressed,
       (SELECT pg_relation_size(reltoastrelid) > 0 FROM pg_class WHERE relname = 'forms_main') AS main_toasted,
       (SELECT count(*) FROM forms_external WHERE pg_column_compression(features) IS NULL) AS external_uncompressed,
       (SELECT pg_relation_size(reltoastrelid) > 0 FROM pg_class WHERE relname = 'forms_external') AS external_toasted,
       (SELECT count(*) FROM forms_wide WHERE pg_column_compression(features) = 'pglz') AS wide_compressed,
       (SELECT pg_relation_size(reltoastrelid) > 0 FROM pg_class WHERE relname = 'forms_wide') AS wide_toasted,
       (SELECT count(*) FROM forms_wide_plain WHERE pg_column_compression(features) IS NULL) AS wide_plain_uncompressed,
       (SELECT max(pg_column_size(features)) FROM forms_short) AS short_bytes;
WITH m AS (
  SELECT 'plain' AS t, bk_train(features, label, '{"budget": 8, "gamma": 0.05}' ORDER BY id) AS model FROM forms_plain
  UNION ALL SELECT 'main', bk_train(features, label, '{"budget": 8, "gamma": 0.05}' ORDER BY id) FROM forms_main
  UNION ALL SELECT 'external', bk_train(features, label, '{"budget": 8, "gamma": 0.05}' ORDER BY id) FROM forms_external
  UNION ALL SELECT 'short', bk_train(features, label, '{"budget": 8, "gamma": 0.05}' ORDER BY id) FROM forms_short
  UNION ALL SELECT 'short_in_query', bk_train(features[1:4], label, '{"budget": 8, "gamma": 0.05}' ORDER BY id) FROM forms_plain)
SELECT count(DISTINCT model::bytea) FILTER (WHERE t IN ('plain', 'main', 'external')) AS distinct_models_300,
       count(DISTINCT model::bytea) FILTER (WHERE t LIKE 'short%') AS distinct_models_4,
       min((bk_info(model)->>'rows_seen')::int) AS rows_seen
FROM m;
SELECT count(DISTINCT m::bytea) AS distinct_wide_models,
       count(DISTINCT acc) AS distinct_wide_accuracies
FROM (SELECT (SELECT bk_train(features, label, '{"budget": 8, "gamma": 0.002}' ORDER BY id) FROM forms_wide) AS m
      UNION ALL SELECT (SELECT bk_train(features, label, '{"budget": 8, "gamma": 0.002}' ORDER BY id) FROM forms_wide_plain)) s,
     LATERAL (SELECT avg((bk_predict(s.m, w.features) = w.label)::int) AS acc FROM forms_wide w) a;
-- scoring reads every form too (the scoring glue copies short values
-- itself as well): the same scores, bit for bit, from each table
WITH m AS (SELECT bk_train(features, label, '{"budget": 8, "gamma": 0.05}' ORDER BY id) AS model FROM forms_plain),
     m4 AS (SELECT bk_train(features, label, '{"budget": 8, "gamma": 0.05}' ORDER BY id) AS model FROM forms_short),
     s AS (
  SELECT 'plain' AS t, f.id, bk_scores(m.model, f.features)::text AS sc FROM forms_plain f, m
  UNION ALL SELECT 'main', f.id, bk_scores(m.model, f.features)::text FROM forms_main f, m
  UNION ALL SELECT 'external', f.id, bk_scores(m.model, f.features)::text FROM forms_external f, m
  UNION ALL SELECT 'short', f.id, bk_scores(m4.model, f.features)::text FROM forms_short f, m4
  UNION ALL SELECT 'short_in_query', f.id, bk_scores(m4.model, f.features[1:4])::text FROM forms_plain f, m4)
SELECT count(*) FILTER (WHERE n_300 = 1) AS rows_one_score_300,
       count(*) FILTER (WHERE n_4 = 1) AS rows_one_score_4
FROM (SELECT id, count(DISTINCT sc) FILTER (WHERE t IN ('plain', 'main', 'external')) AS n_300,
             count(DISTINCT sc) FILTER (WHERE t LIKE 'short%') AS n_4
      FROM s GROUP BY id) g;
DROP TABLE forms_src, forms_plain, forms_main, forms_external, forms_short, forms_wide, forms_wide_plain;
