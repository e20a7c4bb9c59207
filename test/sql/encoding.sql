--
-- Text labels across database encodings.  A model keeps its text labels
-- in UTF-8 (format flag bit 2), converted from and to the database's
-- encoding: a model trained in a LATIN1 database reads the same labels in
-- a UTF8 one, and continuing it there adds no class.  A model written by
-- 0.1.0 (labels in the unrecorded encoding of the database that trained
-- it) whose labels are invalid here is an error (22021), not a new class.
--
SET client_encoding = 'UTF8';
SET client_min_messages = warning;
DROP DATABASE IF EXISTS bk_latin1;
CREATE DATABASE bk_latin1 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
\set VERBOSITY terse
\set ECHO none
\set legacy `test/fixtures/bk_craft legacy-text 2 0 2`
\set ECHO all

\c bk_latin1
SET client_encoding = 'UTF8';
SET client_min_messages = warning;
CREATE EXTENSION budgetkernel;
SHOW server_encoding;
CREATE TABLE pts AS
SELECT g AS id, ARRAY[g % 3, g % 5]::float8[] AS x,
       CASE WHEN g % 3 = 0 THEN 'café' ELSE 'thé' END AS label
FROM generate_series(1, 60) g;
CREATE TABLE m AS SELECT bk_train(x, label, '{"algorithm": "pa"}' ORDER BY id) AS model FROM pts;
SELECT bk_info(model)->'classes' AS classes FROM m;
-- the 0.1.0 model written in a LATIN1 database scores there as it did
SELECT bk_predict_label(:'legacy'::bk_model, ARRAY[1, 1]) AS legacy_in_latin1;
\set ECHO none
SELECT model::text AS latin1_model FROM m \gset
\set ECHO all

\c contrib_regression
SET client_encoding = 'UTF8';
\set VERBOSITY terse
SHOW server_encoding;
CREATE TEMP TABLE pts AS
SELECT g AS id, ARRAY[g % 3, g % 5]::float8[] AS x,
       CASE WHEN g % 3 = 0 THEN 'café' ELSE 'thé' END AS label
FROM generate_series(1, 60) g;
CREATE TEMP TABLE m AS SELECT :'latin1_model'::bk_model AS model;
-- the same labels, read in UTF8
SELECT bk_info(model)->'classes' AS classes FROM m;
SELECT count(*) FILTER (WHERE bk_predict_label(model, x) = label) > 30 AS predicts_the_labels
FROM m, pts;
-- continuing it in UTF8 with the same labels adds no class
SELECT bk_info(bk_continue(x, label, model ORDER BY id))->'n_classes' AS n_classes
FROM pts, m GROUP BY model;
-- a model trained here with a label LATIN1 cannot write
CREATE TEMP TABLE euro AS
SELECT bk_train(x, CASE WHEN id % 2 = 0 THEN '€' ELSE 'thé' END, '{"algorithm": "pa"}' ORDER BY id) AS model
FROM pts;
\set ECHO none
SELECT model::text AS euro_model FROM euro \gset
\set ECHO all

-- the 0.1.0 model with Latin-1 label bytes: invalid UTF-8, an error (22021)
-- whether it is read or continued, never a silent new class
SELECT bk_info(:'legacy'::bk_model)->'classes';
\echo :LAST_ERROR_SQLSTATE
SELECT bk_continue(x, label, :'legacy'::bk_model) FROM pts;
\echo :LAST_ERROR_SQLSTATE

\c bk_latin1
SET client_encoding = 'UTF8';
\set VERBOSITY terse
-- in a LATIN1 database the 0.1.0 model's labels are what they were
SELECT bk_info(:'legacy'::bk_model)->'classes' AS legacy_classes;
-- and a label LATIN1 cannot represent is an error naming it (22P05)
SELECT bk_info(:'euro_model'::bk_model)->'classes';
\echo :LAST_ERROR_SQLSTATE

\c contrib_regression
DROP DATABASE bk_latin1;
