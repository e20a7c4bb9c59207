--
-- The distributed recipes against real clusters: two shard clusters, each
-- holding half of the Checkerboard rows, and this database as the
-- coordinator.  Per-shard training pushed down by postgres_fdw (the
-- aggregate in the Remote SQL), both shards at once (async foreign
-- scans), the models merged with bk_merge; scoring pushed down to the
-- shards; the same with PL/Proxy RUN ON ALL; rounds of iterative
-- parameter mixing over both shards.  test/check.sh starts the
-- shards (start_shards in test/lib.sh) and names them in BK_SHARD1_HOST,
-- BK_SHARD1_PORT, BK_SHARD2_HOST and BK_SHARD2_PORT.
--
\set coord_db :DBNAME
\getenv coord_host PGHOST
\getenv coord_port PGPORT
\getenv s1host BK_SHARD1_HOST
\getenv s1port BK_SHARD1_PORT
\getenv s2host BK_SHARD2_HOST
\getenv s2port BK_SHARD2_PORT
\set VERBOSITY terse

-- ---- each shard: budgetkernel, its half of the rows, its functions ----
\c postgres postgres :s1host :s1port
\set shard 0
\i test/shards/shard_setup.sql
\c postgres postgres :s2host :s2port
\set shard 1
\i test/shards/shard_setup.sql

-- ---- the coordinator ----
\c :coord_db postgres :coord_host :coord_port
SET client_min_messages = warning;
DROP SERVER IF EXISTS bk_shard1, bk_shard2, bk_cluster CASCADE;
DROP FUNCTION IF EXISTS train_shard(jsonb), score_shard(bk_model), continue_shard(int);
DROP TABLE IF EXISTS all_train, all_test, fdw_models, mixed;
CREATE EXTENSION IF NOT EXISTS postgres_fdw;
CREATE EXTENSION IF NOT EXISTS plproxy;
-- all rows here too, to compare with training and scoring in one place
CREATE TEMP TABLE raw (id bigserial, line text);
\copy raw(line) FROM '../shared/data/checkerboard.train'
CREATE TABLE all_train AS
SELECT id, (bk_libsvm(line, 2)).label AS label, (bk_libsvm(line, 2)).features AS features FROM raw;
CREATE TEMP TABLE raw_test (id bigserial, line text);
\copy raw_test(line) FROM '../shared/data/checkerboard.test'
CREATE TABLE all_test AS
SELECT id, (bk_libsvm(line, 2)).label AS label, (bk_libsvm(line, 2)).features AS features FROM raw_test;

-- postgres_fdw: budgetkernel in "extensions" makes its functions and
-- aggregates shippable; async_capable lets both shards run at once
CREATE SERVER bk_shard1 FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host :'s1host', port :'s1port', dbname 'postgres',
           extensions 'budgetkernel', async_capable 'true');
CREATE SERVER bk_shard2 FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host :'s2host', port :'s2port', dbname 'postgres',
           extensions 'budgetkernel', async_capable 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER bk_shard1 OPTIONS (user 'postgres');
CREATE USER MAPPING FOR CURRENT_USER SERVER bk_shard2 OPTIONS (user 'postgres');
CREATE FOREIGN TABLE train_1 (id bigint, label int8, features float8[])
  SERVER bk_shard1 OPTIONS (table_name 'train_local');
CREATE FOREIGN TABLE train_2 (id bigint, label int8, features float8[])
  SERVER bk_shard2 OPTIONS (table_name 'train_local');
CREATE FOREIGN TABLE test_1 (id bigint, label int8, features float8[])
  SERVER bk_shard1 OPTIONS (table_name 'test_local');
CREATE FOREIGN TABLE test_2 (id bigint, label int8, features float8[])
  SERVER bk_shard2 OPTIONS (table_name 'test_local');
CREATE FOREIGN TABLE models_1 (version int, model bk_model)
  SERVER bk_shard1 OPTIONS (table_name 'models_local');
CREATE FOREIGN TABLE models_2 (version int, model bk_model)
  SERVER bk_shard2 OPTIONS (table_name 'models_local');

-- 1. training pushed down: the shard runs bk_train, one model comes back
EXPLAIN (VERBOSE, COSTS OFF)
SELECT bk_train(features, label, '{"budget": 100, "gamma": 30}' ORDER BY id) FROM train_1;

-- 2. both shards at once (Async Foreign Scan), merged on the coordinator
-- (the plan of the two trainings; bk_merge's ORDER BY over their two rows
-- is a Sort from PostgreSQL 16 on, as any ordered aggregate's input)
EXPLAIN (VERBOSE, COSTS OFF)
SELECT bk_train(features, label, '{"budget": 100, "gamma": 30}' ORDER BY id) AS m FROM train_1
UNION ALL
SELECT bk_train(features, label, '{"budget": 100, "gamma": 30}' ORDER BY id) FROM train_2;
CREATE TABLE fdw_models AS
SELECT 1 AS version, bk_merge(m ORDER BY m::bytea) AS model
FROM (SELECT bk_train(features, label, '{"budget": 100, "gamma": 30}' ORDER BY id) AS m FROM train_1
      UNION ALL
      SELECT bk_train(features, label, '{"budget": 100, "gamma": 30}' ORDER BY id) FROM train_2) s;
SELECT bk_info(model)->'merged_models' AS merged_models, bk_info(model)->'rows_seen' AS rows_seen,
       bk_info(model)->'classes' AS classes, bk_info(model)->'n_sv' AS n_sv
FROM fdw_models;
-- the shard models are the models of training there directly
SELECT (SELECT bk_train(features, label, '{"budget": 100, "gamma": 30}' ORDER BY id) FROM train_1)::bytea
       = (SELECT bk_train(features, label, '{"budget": 100, "gamma": 30}' ORDER BY id)
          FROM all_train WHERE id % 2 = 0)::bytea AS shard_model_as_local;
-- the merged model against one model of all rows, on the test rows
SELECT avg((bk_predict(f.model, t.features) = t.label)::int) > 0.9 AS merged_above_90_percent,
       avg((bk_predict(f.model, t.features) = t.label)::int)
       > avg((bk_predict(w.m, t.features) = t.label)::int) - 0.01 AS at_most_a_point_below_serial
FROM fdw_models f, all_test t,
     (SELECT bk_train(features, label, '{"budget": 100, "gamma": 30}' ORDER BY id) AS m FROM all_train) w;

-- 3. scoring pushed down: the model goes to the shards, each scores its rows
INSERT INTO models_1 SELECT version, model FROM fdw_models;
INSERT INTO models_2 SELECT version, model FROM fdw_models;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*) FILTER (WHERE bk_predict(m.model, t.features) = t.label), count(*)
FROM test_1 t JOIN models_1 m ON m.version = 1;
SELECT sum(hits) = (SELECT count(*) FILTER (WHERE bk_predict(f.model, t.features) = t.label)
                    FROM fdw_models f, all_test t) AS same_hits_as_local,
       sum(n) AS rows_scored
FROM (SELECT count(*) FILTER (WHERE bk_predict(m.model, t.features) = t.label) AS hits, count(*) AS n
      FROM test_1 t JOIN models_1 m ON m.version = 1
      UNION ALL
      SELECT count(*) FILTER (WHERE bk_predict(m.model, t.features) = t.label), count(*)
      FROM test_2 t JOIN models_2 m ON m.version = 1) s;

-- 4. PL/Proxy: RUN ON ALL calls the shards' function on both at once
\set p0 'host=' :s1host ' port=' :s1port ' dbname=postgres'
\set p1 'host=' :s2host ' port=' :s2port ' dbname=postgres'
CREATE SERVER bk_cluster FOREIGN DATA WRAPPER plproxy
  OPTIONS (connection_lifetime '1800', p0 :'p0', p1 :'p1');
CREATE USER MAPPING FOR PUBLIC SERVER bk_cluster OPTIONS (user 'postgres');
CREATE FUNCTION train_shard(params jsonb) RETURNS SETOF bk_model AS $$
	CLUSTER 'bk_cluster';
	RUN ON ALL;
$$ LANGUAGE plproxy;
CREATE FUNCTION score_shard(model bk_model, OUT hits int8, OUT n int8) RETURNS SETOF record AS $$
	CLUSTER 'bk_cluster';
	RUN ON ALL;
$$ LANGUAGE plproxy;
SELECT bk_merge(m ORDER BY m::bytea)::bytea = (SELECT model::bytea FROM fdw_models) AS same_model_as_postgres_fdw
FROM train_shard('{"budget": 100, "gamma": 30}') m;
SELECT sum(hits) = (SELECT count(*) FILTER (WHERE bk_predict(f.model, t.features) = t.label)
                    FROM fdw_models f, all_test t) AS same_hits_as_local,
       sum(n) AS rows_scored
FROM score_shard((SELECT model FROM fdw_models));

-- 5. iterative parameter mixing (McDonald, Hall and Mann 2010): each round
-- ships the merged model to the shards, every shard learns on from it over
-- its own rows (continue_shard, RUN ON ALL), and the results are merged
CREATE FUNCTION continue_shard(v int) RETURNS SETOF bk_model AS $$
	CLUSTER 'bk_cluster';
	RUN ON ALL;
$$ LANGUAGE plproxy;
CREATE TABLE mixed AS SELECT 0 AS round, model FROM fdw_models;
INSERT INTO models_1 SELECT 100 + round, model FROM mixed WHERE round = 0;
INSERT INTO models_2 SELECT 100 + round, model FROM mixed WHERE round = 0;
INSERT INTO mixed SELECT 1, bk_merge(m ORDER BY m::bytea) FROM continue_shard(100) m;
INSERT INTO models_1 SELECT 100 + round, model FROM mixed WHERE round = 1;
INSERT INTO models_2 SELECT 100 + round, model FROM mixed WHERE round = 1;
INSERT INTO mixed SELECT 2, bk_merge(m ORDER BY m::bytea) FROM continue_shard(101) m;
-- a round is the merge of each half continued from the last model in
-- the round's order, byte for byte as on one server
SELECT (SELECT model FROM mixed WHERE round = 2)::bytea =
       (SELECT bk_merge(m ORDER BY m::bytea)::bytea
        FROM (SELECT bk_continue(features, label, (SELECT model FROM mixed WHERE round = 1)
                                 ORDER BY bk_shuffle_key(id, 101)) AS m
              FROM all_train GROUP BY id % 2) s) AS round_as_local,
       (SELECT bool_and(bk_is_valid(model::bytea)) FROM mixed) AS rounds_valid;
-- each round passes over every row once more: rows_seen counts the rows
-- of the last model once (the parts' common base) and the rows each part
-- added, merged_models the base's parts once (doc/distributed.md)
SELECT round, bk_info(model)->'rows_seen' AS rows_seen, bk_info(model)->'merged_models' AS merged_models,
       avg((bk_predict(model, t.features) = t.label)::int) > 0.9 AS above_90_percent
FROM mixed, all_test t GROUP BY round, model ORDER BY round;

-- a shard model of other parameters is refused by the merge, naming them
SELECT bk_merge(m ORDER BY m::bytea)
FROM (SELECT bk_train(features, label, '{"budget": 100, "gamma": 30}' ORDER BY id) AS m FROM train_1
      UNION ALL
      SELECT bk_train(features, label, '{"budget": 50, "gamma": 30}' ORDER BY id) FROM train_2) s;

DROP FUNCTION train_shard(jsonb), score_shard(bk_model), continue_shard(int);
DROP USER MAPPING FOR PUBLIC SERVER bk_cluster;
DROP SERVER bk_cluster;
DROP SERVER bk_shard1, bk_shard2 CASCADE;
DROP TABLE all_train, all_test, fdw_models, mixed;
