--
-- Merging models trained on disjoint rows (bk_merge, parallel workers):
-- the class order contract, merged accuracy, continued training of merged
-- models for every learner, refused merges, and the plans of ordered and
-- unordered training.
--
SET client_min_messages = warning;
\i test/fixtures/plan_shape.sql

-- the shared Checkerboard data: 10,000 training rows, 10,000 test rows
CREATE TEMP TABLE raw (id bigserial, line text);
\copy raw(line) FROM '../shared/data/checkerboard.train'
CREATE TABLE merge_train AS
SELECT id, (bk_libsvm(line, 2)).label AS label, (bk_libsvm(line, 2)).features AS features FROM raw;
TRUNCATE raw;
\copy raw(line) FROM '../shared/data/checkerboard.test'
CREATE TEMP TABLE merge_test AS
SELECT id, (bk_libsvm(line, 2)).label AS label, (bk_libsvm(line, 2)).features AS features FROM raw;

-- Class order: two "shards" whose streams begin with different labels
-- agree on the classes and on the sign of bk_decision
CREATE TEMP TABLE shards AS
SELECT 0 AS shard, (array_agg(label ORDER BY merge_train.id <> first.id, merge_train.id))[1] AS first_label,
       bk_train(features, label, '{"budget": 100, "gamma": 30}' ORDER BY merge_train.id <> first.id, merge_train.id) AS m
FROM merge_train, (SELECT min(id) AS id FROM merge_train WHERE id % 2 = 0 AND label = 1) first
WHERE merge_train.id % 2 = 0 AND merge_train.id <= 2000
UNION ALL
SELECT 1, (array_agg(label ORDER BY merge_train.id <> first.id, merge_train.id))[1],
       bk_train(features, label, '{"budget": 100, "gamma": 30}' ORDER BY merge_train.id <> first.id, merge_train.id)
FROM merge_train, (SELECT min(id) AS id FROM merge_train WHERE id % 2 = 1 AND label = -1) first
WHERE merge_train.id % 2 = 1 AND merge_train.id <= 2000;
SELECT shard, first_label, bk_info(m)->'classes' AS classes FROM shards ORDER BY shard;
SELECT count(*) FILTER (WHERE sign(bk_decision(a.m, t.features)) = sign(bk_decision(b.m, t.features)))::float8
       / count(*) > 0.8 AS decisions_mostly_agree,
       count(*) FILTER (WHERE (bk_decision(a.m, t.features) > 0) = (t.label = 1))::float8
       / count(*) > 0.8 AS positive_means_label_1
FROM shards a, shards b, merge_test t WHERE a.shard = 0 AND b.shard = 1;

-- Two halves trained apart and merged, by the aggregate and by the pair
-- function: every row counted, two parts, the budget held, and accuracy
-- no more than a point below the model trained on all rows
CREATE TEMP TABLE halves AS
SELECT h, bk_train(features, label, '{"algorithm": "bpa", "variant": "nn", "budget": 100, "gamma": 30}' ORDER BY id) AS m
FROM (SELECT *, id % 2 AS h FROM merge_train) t GROUP BY h;
CREATE TEMP TABLE merged AS
SELECT (SELECT bk_merge(m ORDER BY h) FROM halves) AS agg,
       (SELECT bk_merge(a.m, b.m) FROM halves a, halves b WHERE a.h = 0 AND b.h = 1) AS pair,
       (SELECT bk_train(features, label, '{"algorithm": "bpa", "variant": "nn", "budget": 100, "gamma": 30}' ORDER BY id)
        FROM merge_train) AS whole;
SELECT agg::bytea = pair::bytea AS aggregate_equals_pair,
       bk_info(agg)->'merged_models' AS merged_models,
       bk_info(agg)->'rows_seen' AS rows_seen,
       bk_info(agg)->'n_sv' AS n_sv,
       bk_is_valid(agg::bytea) AS valid
FROM merged;
SELECT avg((bk_predict(agg, t.features) = t.label)::int)
       > avg((bk_predict(whole, t.features) = t.label)::int) - 0.01 AS at_most_a_point_below_serial,
       avg((bk_predict(agg, t.features) = t.label)::int) > 0.9 AS merged_above_90_percent
FROM merged, merge_test t;
-- The fold reduces the union of the two halves to the budget by
-- projection; its support vectors then move towards the union, the exact
-- average of the halves (doc/distributed.md, step 5): the merge predicts
-- what the average predicts on more of the test rows (measured at B = 30:
-- Pegasos 98.08 % before, 99.66 % after; BPA-NN 97.73 %, 99.36 %), and
-- it is a valid model of the budget that trains on
CREATE TEMP TABLE polish_halves AS
SELECT p.learner, t.id % 2 AS h, bk_train(t.features, t.label, p.params ORDER BY t.id) AS m
FROM merge_train t,
     (VALUES ('pegasos', '{"algorithm": "pegasos", "maintenance": "merge", "budget": 30, "gamma": 30}'::jsonb),
             ('bpa nn', '{"algorithm": "bpa", "variant": "nn", "budget": 30, "gamma": 30}'::jsonb)) p(learner, params)
GROUP BY 1, 2;
CREATE TEMP TABLE polish_merged AS
SELECT a.learner, a.m AS a, b.m AS b, bk_merge(a.m, b.m) AS ab,
       (bk_info(a.m)->>'rows_seen')::float8 AS na, (bk_info(b.m)->>'rows_seen')::float8 AS nb
FROM polish_halves a JOIN polish_halves b ON a.learner = b.learner AND a.h = 0 AND b.h = 1;
SELECT learner,
       avg(((bk_decision(ab, t.features) > 0)
            = (na * bk_decision(a, t.features) + nb * bk_decision(b, t.features) > 0))::int) >= 0.99
         AS agrees_with_the_average,
       bool_and(bk_is_valid(ab::bytea)) AS valid,
       bool_and((bk_info(ab)->>'n_sv')::int <= 30) AS within_budget
FROM polish_merged, merge_test t GROUP BY learner ORDER BY learner;
SELECT learner, bk_info(bk_continue(t.features, t.label, ab ORDER BY t.id))->>'rows_seen' AS rows_seen
FROM polish_merged, merge_train t WHERE t.id <= 100 GROUP BY learner, ab ORDER BY learner;

-- a NULL is no model
SELECT bk_merge(agg, NULL)::bytea = agg::bytea AS null_is_no_model,
       bk_merge(NULL::bk_model, NULL) IS NULL AS both_null
FROM merged;
SELECT bk_merge(m) IS NULL AS merge_of_no_model FROM (SELECT NULL::bk_model AS m) s;

-- Every learner: two halves merged are a valid model that trains on with
-- bk_continue (binary and three classes), and the merged model of three
-- classes keeps the union of both halves' classes (warnings of collapsed
-- learners at these settings are not the point here)
SET client_min_messages = error;
CREATE TEMP TABLE learners (name text, params jsonb);
INSERT INTO learners VALUES
  ('perceptron', '{"algorithm": "perceptron", "gamma": 30}'),
  ('pa', '{"algorithm": "pa", "gamma": 30}'),
  ('bpa-s', '{"algorithm": "bpa", "variant": "s", "budget": 50, "gamma": 30}'),
  ('bpa-nn', '{"algorithm": "bpa", "variant": "nn", "budget": 50, "gamma": 30}'),
  ('bpa-p', '{"algorithm": "bpa", "variant": "p", "budget": 50, "gamma": 30}'),
  ('bpa-p linear', '{"algorithm": "bpa", "variant": "p", "budget": 2, "kernel": "linear"}'),
  ('stoptron', '{"algorithm": "stoptron", "budget": 50, "gamma": 30}'),
  ('rbp', '{"algorithm": "rbp", "budget": 50, "gamma": 30}'),
  ('pa_random', '{"algorithm": "pa_random", "budget": 50, "gamma": 30}'),
  ('budget_perceptron', '{"algorithm": "budget_perceptron", "budget": 50, "gamma": 30}'),
  ('tighter_budget_perceptron', '{"algorithm": "tighter_budget_perceptron", "budget": 50, "gamma": 30}'),
  ('spa', '{"algorithm": "spa", "gamma": 30}'),
  ('ogd', '{"algorithm": "ogd", "gamma": 30}'),
  ('duol', '{"algorithm": "duol", "C": 10, "gamma": 30}'),
  ('bduol', '{"algorithm": "bduol", "budget": 50, "C": 10, "gamma": 30}'),
  ('bogd', '{"algorithm": "bogd", "budget": 50, "gamma": 30}'),
  ('forgetron', '{"algorithm": "forgetron", "budget": 50, "gamma": 30}'),
  ('projectron', '{"algorithm": "projectron", "budget": 50, "gamma": 30}'),
  ('projectron_pp', '{"algorithm": "projectron_pp", "budget": 50, "gamma": 30}'),
  ('pegasos merge', '{"algorithm": "pegasos", "maintenance": "merge", "budget": 50, "gamma": 30}'),
  ('pegasos projection', '{"algorithm": "pegasos", "maintenance": "projection", "budget": 50, "gamma": 30, "ball_projection": true}'),
  ('pegasos projection linear', '{"algorithm": "pegasos", "maintenance": "projection", "budget": 2, "kernel": "linear"}');
CREATE TEMP TABLE three AS
SELECT id, features,
       CASE WHEN features[1] < 0.33 THEN 1 WHEN features[1] < 0.67 THEN 2 ELSE 3 END::int8 AS label
FROM merge_train WHERE id <= 1200;
CREATE TEMP TABLE learner_merges AS
SELECT l.name, k.classes,
       bk_merge(h.m ORDER BY h.half) AS merged
FROM learners l,
     (VALUES (2), (3)) k(classes),
     LATERAL (SELECT s.half,
                     bk_train(s.features, s.label, l.params ORDER BY s.id) AS m
              FROM (SELECT id, features, label, id % 2 AS half FROM merge_train
                    WHERE k.classes = 2 AND id <= 1200
                    UNION ALL
                    -- three classes: one half holds only two of them
                    SELECT id, features, label, id % 2 FROM three
                    WHERE k.classes = 3 AND (id % 2 = 0 OR label <> 1)) s
              GROUP BY s.half) h
GROUP BY l.name, k.classes;
SELECT name, classes, bk_is_valid(merged::bytea) AS valid,
       bk_info(merged)->'classes' AS merged_classes,
       bk_is_valid((SELECT bk_continue(t.features, t.label, merged ORDER BY t.id)
                    FROM (SELECT id, features, label FROM merge_train WHERE classes = 2 AND id BETWEEN 1201 AND 1600
                          UNION ALL
                          SELECT id, features, label FROM three WHERE classes = 3 AND id <= 400) t)::bytea) AS continued_valid,
       (bk_info(merged)->>'rows_seen')::int AS rows_seen
FROM learner_merges ORDER BY name, classes;
SET client_min_messages = warning;

-- Refused merges name the difference (SQLSTATE 22023)
\set VERBOSITY default
SELECT bk_merge(m, (SELECT bk_train(ARRAY[x, x, x]::float8[], 1::int8, '{}') FROM generate_series(1, 3) x))
FROM halves WHERE h = 0;
SELECT bk_merge(m, (SELECT bk_train(features, label, '{"algorithm": "bpa", "variant": "nn", "budget": 100, "gamma": 2}') FROM merge_train WHERE id <= 10))
FROM halves WHERE h = 0;
SELECT bk_merge(m, (SELECT bk_train(features, label, '{"algorithm": "pa", "gamma": 30}') FROM merge_train WHERE id <= 10))
FROM halves WHERE h = 0;
SELECT bk_merge(m, (SELECT bk_train(features, label::text, '{"algorithm": "bpa", "variant": "nn", "budget": 100, "gamma": 30}') FROM merge_train WHERE id <= 10))
FROM halves WHERE h = 0;
-- another seed is no difference
SELECT bk_info(bk_merge(m, (SELECT bk_train(features, label, '{"algorithm": "bpa", "variant": "nn", "budget": 100, "gamma": 30, "seed": 5}' ORDER BY id) FROM merge_train WHERE id <= 10)))->'merged_models' AS merged_models
FROM halves WHERE h = 0;
\set VERBOSITY terse

-- Ordered training stays serial; unordered training runs in parallel
-- workers and their partial models are merged (every row counted, more
-- than one part, the budget held)
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;
SELECT bk_test.plan_shape($$SELECT bk_train(features, label, '{"budget": 100, "gamma": 30}' ORDER BY id) FROM merge_train$$) AS plan;
SELECT bk_test.plan_shape($$SELECT bk_train(features, label, '{"budget": 100, "gamma": 30}') FROM merge_train$$) AS plan;
-- (a plain SELECT; how many parts had rows depends on how fast the
-- workers start, so the count of merged parts is checked on partitions
-- below)
SELECT (bk_info(m)->>'merged_models')::int BETWEEN 1 AND 3 AS merged_parts,
       bk_info(m)->'rows_seen' AS rows_seen,
       (bk_info(m)->>'n_sv')::int <= 100 AS within_budget,
       bk_is_valid(m::bytea) AS valid
FROM (SELECT bk_train(features, label, '{"algorithm": "bpa", "variant": "nn", "budget": 100, "gamma": 30}') AS m
      FROM merge_train) p;
-- INSERT ... SELECT and PL/pgSQL's SELECT ... INTO run without workers
-- (PostgreSQL 15 plans no Gather under an INSERT, and runs a statement that
-- stops after a number of rows, as INTO does, in one process): the same
-- bytes as the serial training in scan order
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE merge_serial AS
SELECT bk_train(features, label, '{"budget": 100, "gamma": 30}') AS m FROM merge_train;
SET max_parallel_workers_per_gather = 2;
CREATE TEMP TABLE merge_stmt (how text, m bk_model);
-- (CREATE TABLE AS can: its plan gathers partial models)
EXPLAIN (COSTS OFF)
CREATE TEMP TABLE merge_ctas AS SELECT bk_train(features, label, '{"budget": 100, "gamma": 30}') AS m FROM merge_train;
EXPLAIN (COSTS OFF)
INSERT INTO merge_stmt SELECT 'insert', bk_train(features, label, '{"budget": 100, "gamma": 30}') FROM merge_train;
INSERT INTO merge_stmt SELECT 'insert', bk_train(features, label, '{"budget": 100, "gamma": 30}') FROM merge_train;
DO $$
DECLARE m bk_model;
BEGIN
  SELECT bk_train(features, label, '{"budget": 100, "gamma": 30}') INTO m FROM merge_train;
  INSERT INTO merge_stmt VALUES ('select into', m);
END $$;
SELECT how, bk_info(t.m)->'merged_models' AS merged_models, t.m::bytea = s.m::bytea AS same_as_serial
FROM merge_stmt t, merge_serial s ORDER BY how;
-- the text-labelled form and more passes per part, too
SELECT bk_info(bk_train(features, CASE WHEN label > 0 THEN 'pos' ELSE 'neg' END,
                        '{"budget": 50, "gamma": 30, "epochs": 2}'))->'classes' AS classes
FROM merge_train;
-- Scoring with one stored model: the scalar subquery is evaluated once
-- (an InitPlan) and handed to the workers, which score; in the join form
-- the scoring stays above the Gather, in the leader (PostgreSQL 15 builds
-- no partial nested loop over a materialised inner side, and rescanning the
-- models table for every row costs more than the serial join)
CREATE TABLE merge_models AS SELECT 1 AS version, agg AS model FROM merged;
SELECT bk_test.plan_shape($$SELECT id, bk_predict((SELECT model FROM merge_models WHERE version = 1), features) FROM merge_train$$) AS plan;
SELECT bk_test.plan_shape($$SELECT t.id, bk_predict(m.model, t.features) FROM merge_train t, merge_models m WHERE m.version = 1$$) AS plan;
RESET parallel_setup_cost; RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size; RESET max_parallel_workers_per_gather;

-- Partitionwise aggregation: one partial model per partition, merged
-- (deterministic: no workers, each partition in its scan order)
CREATE TABLE merge_parts (id bigint, features float8[], label int8) PARTITION BY LIST ((id % 3));
CREATE TABLE merge_parts_0 PARTITION OF merge_parts FOR VALUES IN (0);
CREATE TABLE merge_parts_1 PARTITION OF merge_parts FOR VALUES IN (1);
CREATE TABLE merge_parts_2 PARTITION OF merge_parts FOR VALUES IN (2);
INSERT INTO merge_parts SELECT id, features, label FROM merge_train;
SET enable_partitionwise_aggregate = on; SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF)
SELECT bk_train(features, label, '{"algorithm": "bpa", "variant": "nn", "budget": 100, "gamma": 30}') FROM merge_parts;
SELECT bk_info(m)->'merged_models' AS merged_models, bk_info(m)->'rows_seen' AS rows_seen,
       bk_info(m)->'n_sv' AS n_sv,
       (SELECT avg((bk_predict(m, t.features) = t.label)::int) FROM merge_test t) > 0.9 AS above_90_percent
FROM (SELECT bk_train(features, label, '{"algorithm": "bpa", "variant": "nn", "budget": 100, "gamma": 30}') AS m
      FROM merge_parts) p;
-- bk_merge over partitions: every stored model is a parent of the result,
-- whichever part merged it
CREATE TABLE merge_stored (part int, m bk_model) PARTITION BY LIST (part);
CREATE TABLE merge_stored_1 PARTITION OF merge_stored FOR VALUES IN (1);
CREATE TABLE merge_stored_2 PARTITION OF merge_stored FOR VALUES IN (2);
INSERT INTO merge_stored
SELECT 1 + k % 2, bk_train(features, label, '{"algorithm": "bpa", "variant": "nn", "budget": 20, "gamma": 30}')
FROM merge_train, generate_series(0, 3) k WHERE id % 4 = k GROUP BY k;
EXPLAIN (COSTS OFF) SELECT bk_merge(m) FROM merge_stored;
SELECT jsonb_array_length(bk_info(mm)->'parents') AS parents, bk_info(mm)->'merged_models' AS merged_models
FROM (SELECT bk_merge(m) AS mm FROM merge_stored) s;
DROP TABLE merge_stored;
RESET enable_partitionwise_aggregate; RESET max_parallel_workers_per_gather;

-- a model merged with itself is the same function with the same support
-- vectors: identical SVs of the union are one SV with the summed
-- coefficients (before, the union of 2B was projected back onto B); and
-- two models continued from one model hold its SVs once in the merge
SELECT (bk_info(mm)->>'n_sv')::int = (bk_info(m)->>'n_sv')::int AS same_n_sv,
       (SELECT max(abs(bk_decision(mm, t.features) - bk_decision(m, t.features))) FROM merge_test t) < 1e-9
         AS same_decisions
FROM (SELECT m, bk_merge(m, m) AS mm
      FROM (SELECT bk_train(features, label, '{"algorithm": "bpa", "variant": "nn", "budget": 40, "gamma": 30}' ORDER BY id) AS m
            FROM merge_train) t) s;
SELECT (bk_info(bk_merge(a, b))->>'n_sv')::int < (bk_info(a)->>'n_sv')::int + (bk_info(b)->>'n_sv')::int
         AS parent_svs_once
FROM (SELECT (SELECT bk_continue(features, label, p.m ORDER BY id) FROM merge_train WHERE id % 2 = 0 AND id <= 1200) AS a,
             (SELECT bk_continue(features, label, p.m ORDER BY id) FROM merge_train WHERE id % 2 = 1 AND id <= 1200) AS b
      FROM (SELECT bk_train(features, label, '{"algorithm": "perceptron", "gamma": 30}' ORDER BY id) AS m
            FROM merge_train WHERE id <= 1000) p) s;

DROP TABLE merge_train, merge_parts, merge_models;
DROP SCHEMA bk_test CASCADE;
