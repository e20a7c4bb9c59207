--
-- pg_dump and restore into another database: every model comes back with
-- the same bytes and scores every row identically.
--
SET client_min_messages = warning;
DROP DATABASE IF EXISTS bk_dump_source;
DROP DATABASE IF EXISTS bk_dump_target;
CREATE DATABASE bk_dump_source;
CREATE DATABASE bk_dump_target;

\c bk_dump_source
SET client_min_messages = warning;
CREATE EXTENSION budgetkernel;
\i test/fixtures/checkerboard.sql
CREATE TABLE pts AS SELECT * FROM bk_test.checkerboard(1500);
CREATE TABLE models (name text PRIMARY KEY, model bk_model);
INSERT INTO models
SELECT c.name, (SELECT bk_train(features, label, c.params ORDER BY id) FROM pts)
FROM (VALUES ('bpa-s', '{"variant": "s", "budget": 40, "gamma": 20}'::jsonb),
             ('bpa-nn', '{"variant": "nn", "loss": "ramp", "budget": 40, "gamma": 20}'),
             ('bpa-p', '{"variant": "p", "budget": 40, "gamma": 20}'),
             ('pa', '{"algorithm": "pa", "gamma": 20}')) c(name, params);
CREATE TABLE reference AS
SELECT name, md5(model::bytea) AS bytes_md5,
       (SELECT array_agg(bk_decision(model, features) ORDER BY id) FROM pts) AS decisions
FROM models;

\! pg_dump --no-owner --no-privileges -d bk_dump_source -f results/bk_dump.sql && echo dumped
\! psql -X -q -v ON_ERROR_STOP=1 -d bk_dump_target -f results/bk_dump.sql > results/bk_restore.log 2>&1 && echo restored

\c bk_dump_target
SELECT r.name,
       md5(m.model::bytea) = r.bytes_md5 AS same_bytes,
       (SELECT array_agg(bk_decision(m.model, features) ORDER BY id) FROM pts) = r.decisions AS same_decisions,
       bk_is_valid(m.model::bytea) AS valid
FROM models m JOIN reference r USING (name) ORDER BY 1;

\c contrib_regression
DROP DATABASE bk_dump_source;
DROP DATABASE bk_dump_target;
