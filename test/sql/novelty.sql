--
-- Novelty detection (doc/novelty.md): bk_train with "task": "novelty"
-- and a NULL label trains a novelty detector (NORMA's with ogd and bogd,
-- the one-class SVM on a budget with pegasos, the default); bk_novelty scores a row, above 0
-- for a row it flags; it continues, merges, dumps and trains in parallel
-- like a classifier.
--
SET client_min_messages = warning;
\set SHOW_CONTEXT never

-- normal rows: a square around the origin (a deterministic scatter);
-- novel rows: a cluster far from it
CREATE TABLE normal_rows AS
SELECT g AS id, ARRAY[((g * 7919) % 1000) / 500.0 - 1, ((g * 104729) % 997) / 498.5 - 1]::float8[] AS x
FROM generate_series(1, 3000) g;
CREATE TABLE test_rows AS
SELECT g AS id, ARRAY[((g * 6007) % 1000) / 500.0 - 1, ((g * 3571) % 991) / 495.5 - 1]::float8[] AS x,
       0 AS novel
FROM generate_series(1, 500) g
UNION ALL
SELECT 1000 + g, ARRAY[4 + ((g * 13) % 10) / 10.0, 4 + ((g * 7) % 10) / 10.0]::float8[], 1
FROM generate_series(1, 100) g;

-- the three detectors separate the far cluster (AUC of the score against
-- the known novel rows), and flag at most about nu (0.1) of their
-- training rows and of fresh normal ones
CREATE TABLE detectors AS
SELECT a AS algorithm,
       (SELECT bk_train(x, NULL, p::jsonb || '{"task": "novelty"}' ORDER BY bk_shuffle_key(id, 3)) FROM normal_rows) AS m
FROM (VALUES ('pegasos', '{"budget": 50}'), ('bogd', '{"algorithm": "bogd", "budget": 50}'),
             ('ogd', '{"algorithm": "ogd"}')) v(a, p);
SELECT d.algorithm,
       (SELECT (bk_metrics(novel::int8, (bk_novelty(d.m, x) > 0)::int::int8, bk_novelty(d.m, x))->>'roc_auc')::float8 >= 0.95
        FROM test_rows) AS auc_at_least_095,
       (SELECT round(avg((bk_novelty(d.m, x) > 0)::int), 2) FROM normal_rows) AS flagged_training,
       (SELECT round(avg((bk_novelty(d.m, x) > 0)::int), 2) FROM test_rows WHERE novel = 0) AS flagged_fresh,
       (SELECT bool_and(bk_novelty(d.m, x) > 0) FROM test_rows WHERE novel = 1) AS flags_every_novel_row
FROM detectors d ORDER BY d.algorithm;

-- what bk_info shows of a detector
SELECT i->>'task' AS task, i->'label_type' AS label_type, i->'classes' AS classes,
       i->'n_machines' AS n_machines, i->'params' AS params, (i->>'rho')::float8 > 0 AS rho_positive,
       round((i->>'online_flag_rate')::numeric, 3) AS online_flag_rate
FROM (SELECT bk_info(m) AS i FROM detectors WHERE algorithm = 'pegasos') t;

-- nu bounds the share flagged
CREATE TABLE by_nu AS
SELECT nu, (SELECT bk_train(x, NULL, jsonb_build_object('task', 'novelty', 'budget', 50, 'nu', nu) ORDER BY bk_shuffle_key(id, 3))
            FROM normal_rows) AS m
FROM unnest(ARRAY[0.05, 0.1, 0.3]) nu;
SELECT nu, (SELECT round(avg((bk_novelty(m, x) > 0)::int), 2) FROM normal_rows) AS flagged
FROM by_nu ORDER BY nu;

-- continue (with an override of nu), and an unbudgeted detector's merge:
-- the weighted average of the two scores, exactly
SELECT bk_info(k)->'rows_seen' AS rows_seen, bk_info(k)->'params'->'nu' AS nu
FROM (SELECT bk_continue(n.x, NULL, d.m, '{"nu": 0.2}') AS k
      FROM normal_rows n, detectors d WHERE d.algorithm = 'pegasos' GROUP BY d.m) c;
CREATE TABLE halves AS
SELECT id % 2 AS half, bk_train(x, NULL, '{"task": "novelty", "algorithm": "ogd", "max_sv": 5000}' ORDER BY id) AS m
FROM normal_rows WHERE id <= 1200 GROUP BY id % 2;
SELECT max(abs(bk_novelty(mm, t.x)
               - (a.n * bk_novelty(a.m, t.x) + b.n * bk_novelty(b.m, t.x)) / (a.n + b.n))) < 1e-9
       AS merged_is_the_weighted_average
FROM test_rows t,
     (SELECT m, (bk_info(m)->>'rows_seen')::float8 AS n FROM halves WHERE half = 0) a,
     (SELECT m, (bk_info(m)->>'rows_seen')::float8 AS n FROM halves WHERE half = 1) b,
     LATERAL (SELECT bk_merge(a.m, b.m) AS mm) mg;

-- in parallel, the workers' detectors merged
CREATE TABLE normal_big AS SELECT g * 10000 + id AS id, x FROM normal_rows, generate_series(1, 5) g;
ANALYZE normal_big;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT bk_train(x, NULL, '{"task": "novelty", "budget": 50}') FROM normal_big;
SELECT (bk_metrics(novel::int8, (bk_novelty(m, x) > 0)::int::int8, bk_novelty(m, x))->>'roc_auc')::float8 >= 0.95 AS parallel_separates
FROM test_rows, (SELECT bk_train(x, NULL, '{"task": "novelty", "budget": 50}') AS m FROM normal_big) p;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- dump and restore; epochs; named features (jsonb)
SELECT bk_novelty(m::text::bk_model, ARRAY[0.1, 0.2]) = bk_novelty(m, ARRAY[0.1, 0.2]) AS text_round_trip,
       bk_novelty(m::bytea::bk_model, ARRAY[4.5, 4.5]) = bk_novelty(m, ARRAY[4.5, 4.5]) AS bytea_round_trip,
       bk_is_valid(m::bytea) AS valid
FROM detectors WHERE algorithm = 'pegasos';
SELECT (bk_metrics(novel::int8, (bk_novelty(m, x) > 0)::int::int8, bk_novelty(m, x))->>'roc_auc')::float8 >= 0.95 AS epochs_separate
FROM test_rows, (SELECT bk_train(x, NULL, '{"task": "novelty", "budget": 30, "epochs": 3}' ORDER BY bk_shuffle_key(id, 3)) AS m FROM normal_rows) e;
SELECT (bk_metrics(novel::int8, (bk_novelty(m, jsonb_build_object('a', x[1], 'b', x[2])) > 0)::int::int8,
                   bk_novelty(m, jsonb_build_object('a', x[1], 'b', x[2])))->>'roc_auc')::float8 >= 0.95 AS named_separate
FROM test_rows, (SELECT bk_train(jsonb_build_object('a', x[1], 'b', x[2]), NULL, '{"task": "novelty", "budget": 50}' ORDER BY bk_shuffle_key(id, 3)) AS m
                 FROM normal_rows) j;

-- a kernel too narrow for the rows: the finished detector flags none of
-- them, and the run says so
SELECT bk_info(bk_train(x, NULL, '{"task": "novelty", "budget": 10, "gamma": 100000}'))->'n_sv' AS n_sv FROM normal_rows;

-- bad input: each a clear error
SET budgetkernel.run_warnings = off;
\set VERBOSITY terse
SELECT bk_train(x, NULL, '{"task": "novelty", "algorithm": "bpa"}') FROM normal_rows;
\echo :LAST_ERROR_SQLSTATE
SELECT bk_train(x, NULL, '{"task": "novelty", "epsilon": 0.1}') FROM normal_rows;
SELECT bk_train(x, NULL, '{"task": "novelty", "loss": "hinge"}') FROM normal_rows;
SELECT bk_train(x, NULL, '{"task": "novelty", "nu": 0}') FROM normal_rows;
SELECT bk_train(x, NULL, '{"task": "novelty", "nu": 1.5}') FROM normal_rows;
SELECT bk_train(x, NULL, '{"task": "novelty", "classes": [0, 1]}') FROM normal_rows;
SELECT bk_train(x, NULL, '{"task": "novelty", "target_scale": "none"}') FROM normal_rows;
SELECT bk_train(x, id::int8, '{"nu": 0.1}') FROM normal_rows;
SELECT bk_predict(m, ARRAY[0.1, 0.2]) FROM detectors WHERE algorithm = 'pegasos';
\echo :LAST_ERROR_SQLSTATE
SELECT bk_predict_value(m, ARRAY[0.1, 0.2]) FROM detectors WHERE algorithm = 'pegasos';
SELECT bk_decision(m, ARRAY[0.1, 0.2]) FROM detectors WHERE algorithm = 'pegasos';
SELECT bk_novelty(bk_train(x, (id % 2)::int8, '{}'), ARRAY[0.1, 0.2]) FROM normal_rows;
SELECT bk_continue(n.x, (n.id % 2)::int8, d.m) FROM normal_rows n, detectors d WHERE d.algorithm = 'pegasos' GROUP BY d.m;
\echo :LAST_ERROR_SQLSTATE
-- a NULL label for a classifier: no row to learn, and a WARNING that
-- names the task (bk_train gives NULL, bk_continue a model that learned no row)
SET client_min_messages = notice;
SELECT bk_train(x, NULL, '{"nu": 0.1}') IS NULL AS no_model FROM normal_rows;
SELECT bk_info(k)->'rows_seen' = bk_info(c.m)->'rows_seen' AS no_row_learned
FROM (SELECT bk_train(x, (id % 2)::int8, '{}') AS m FROM normal_rows) c,
     LATERAL (SELECT bk_continue(n.x, NULL, c.m) AS k FROM normal_rows n) k;
SET client_min_messages = warning;
-- a label with "task": "novelty" (22023); the label-less form of 0.3.0 is gone
SELECT bk_train(x, (id % 2)::int8, '{"task": "novelty"}') FROM normal_rows;
\echo :LAST_ERROR_SQLSTATE
SELECT bk_train(x, '{"budget": 50}'::jsonb) FROM normal_rows;
SELECT bk_merge(d.m, r.m) FROM detectors d, (SELECT bk_train(x, x[1], '{}') AS m FROM normal_rows) r WHERE d.algorithm = 'pegasos';
SELECT bk_calibrate(d.m, n.x, (n.id % 2)::int8) FROM normal_rows n, detectors d WHERE d.algorithm = 'pegasos' GROUP BY d.m;
\set VERBOSITY default
