--
-- pg_dump and restore into other databases, as a plain script through
-- psql -f, as a custom-format archive through pg_restore, and by binary
-- COPY: every model comes back with the same bytes and scores every row
-- identically.  The table also holds models that version 0.1.0 stored
-- with a non-finite value (test/fixtures/defective_models.sql): they are
-- restored too, byte for byte, and neither they nor the valid models in
-- the same table are lost.
--
SET client_min_messages = warning;
DROP DATABASE IF EXISTS bk_dump_source;
DROP DATABASE IF EXISTS bk_dump_target;
DROP DATABASE IF EXISTS bk_dump_target2;
CREATE DATABASE bk_dump_source;
CREATE DATABASE bk_dump_target;
CREATE DATABASE bk_dump_target2;

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
-- models that prepare their features (arrays, named features) and one
-- trained on sparse rows
CREATE FUNCTION named_row(f float8[]) RETURNS jsonb LANGUAGE sql IMMUTABLE AS
$$ SELECT jsonb_build_object('u', f[1], 'v', f[2], 'side', CASE WHEN f[1] < 0.5 THEN 'left' ELSE 'right' END) $$;
INSERT INTO models
SELECT 'bpa-scaled', bk_train(features, label, '{"variant": "nn", "budget": 40, "gamma": 2, "scale": "standard"}' ORDER BY id)
FROM pts
UNION ALL
SELECT 'bpa-named', bk_train(named_row(features), label, '{"variant": "nn", "budget": 40, "gamma": 2}' ORDER BY id)
FROM pts
UNION ALL
SELECT 'bpa-sparse', bk_train(bk_sparse(ARRAY[1, 2], features, 2), label, '{"variant": "nn", "budget": 40, "gamma": 20}' ORDER BY id)
FROM pts;
CREATE TABLE sparse_rows AS SELECT id, bk_sparse(ARRAY[1, 2], features, 2) AS s FROM pts;
\set ECHO none
\i test/fixtures/defective_models.sql
\set ECHO all
INSERT INTO models SELECT name, bytes::bk_model FROM bk_test.defective_models();
CREATE TABLE reference AS
SELECT name, md5(model::bytea) AS bytes_md5, bk_is_valid(model::bytea) AS valid,
       CASE WHEN bk_is_valid(model::bytea) THEN
       (SELECT array_agg(CASE WHEN bk_info(model)->'preparation'->>'features' = 'named'
                              THEN bk_decision(model, named_row(features))
                              ELSE bk_decision(model, features) END ORDER BY id) FROM pts) END AS decisions
FROM models;
CREATE TABLE sparse_reference AS SELECT id, s::text AS s FROM sparse_rows;
SELECT name, valid FROM reference ORDER BY 1;
-- the comparison each restored copy makes (restored with the tables)
CREATE VIEW restored AS
SELECT r.name,
       md5(m.model::bytea) = r.bytes_md5 AS same_bytes,
       r.decisions IS NULL OR
       (SELECT array_agg(CASE WHEN bk_info(m.model)->'preparation'->>'features' = 'named'
                              THEN bk_decision(m.model, named_row(features))
                              ELSE bk_decision(m.model, features) END ORDER BY id) FROM pts) = r.decisions
         AS same_decisions,
       bk_is_valid(m.model::bytea) AS valid
FROM models m JOIN reference r USING (name);
CREATE VIEW restored_sparse AS
SELECT count(*) AS rows, bool_and(s.s::text = r.s) AS same_vectors
FROM sparse_rows s JOIN sparse_reference r USING (id);

\! pg_dump --no-owner --no-privileges -d bk_dump_source -f results/bk_dump.sql && echo dumped
\! psql -X -q -v ON_ERROR_STOP=1 -d bk_dump_target -f results/bk_dump.sql > results/bk_restore.log 2>&1 && echo restored
\! pg_dump --no-owner --no-privileges -Fc -d bk_dump_source -f results/bk_dump.custom && echo dumped
\! pg_restore --no-owner --no-privileges --exit-on-error -d bk_dump_target2 results/bk_dump.custom > results/bk_restore2.log 2>&1 && echo restored
\copy models TO 'results/bk_models.bin' WITH (FORMAT binary)
\copy sparse_rows TO 'results/bk_sparse.bin' WITH (FORMAT binary)

\c bk_dump_target
SELECT * FROM restored ORDER BY name;
SELECT * FROM restored_sparse;
-- a defective model, restored, is an error at use that says what to do
\set VERBOSITY terse
SELECT bk_predict(model, ARRAY[0.5, 0.5]) FROM models WHERE name = 'bpa_nn_huge_feature';
\set VERBOSITY default

\c bk_dump_target2
SELECT * FROM restored ORDER BY name;
SELECT * FROM restored_sparse;
-- binary COPY (the type's receive function) into an empty copy of the table
CREATE TABLE models_bin (LIKE models);
\copy models_bin FROM 'results/bk_models.bin' WITH (FORMAT binary)
SELECT count(*) AS rows,
       bool_and(md5(b.model::bytea) = r.bytes_md5) AS same_bytes
FROM models_bin b JOIN reference r USING (name);
CREATE TABLE sparse_bin (LIKE sparse_rows);
\copy sparse_bin FROM 'results/bk_sparse.bin' WITH (FORMAT binary)
SELECT count(*) AS rows, bool_and(b.s::text = r.s) AS same_vectors
FROM sparse_bin b JOIN sparse_reference r USING (id);

\c contrib_regression
DROP DATABASE bk_dump_source;
DROP DATABASE bk_dump_target;
DROP DATABASE bk_dump_target2;
