--
-- ALTER EXTENSION budgetkernel UPDATE from 0.2.0 and from 0.1.0 (through
-- 0.2.0): models of every kind stored under 0.2.0 keep their bytes and
-- scores; the installation updated from 0.1.0 has exactly the objects,
-- definitions and comments of a fresh one; models stored under 0.1.0
-- keep their bytes and scores; a
-- view on the continuation form follows its rename to bk_continue; a view
-- on a form 0.2.0 drops stops the update with its name; views on the
-- per-type label forms move onto 0.4.0's bk_label ones; before the
-- update, the forms whose C function 0.2.0 changed say what to do (or, for
-- float4[], just work).
--
SET client_min_messages = warning;
DROP DATABASE IF EXISTS bk_upgrade_02;
DROP DATABASE IF EXISTS bk_upgrade_old;
DROP DATABASE IF EXISTS bk_upgrade_new;
CREATE DATABASE bk_upgrade_02;
CREATE DATABASE bk_upgrade_old;
CREATE DATABASE bk_upgrade_new;

-- 0.2.0 -> 0.4.0 (through 0.3.0): the models of test/upgrade/models.sql (every learner and
-- task, every features form, every optional part) trained under 0.2.0, the
-- update, then test/upgrade/verify.sql: no MISMATCH line
\c bk_upgrade_02
SET client_min_messages = warning;
CREATE EXTENSION budgetkernel VERSION '0.2.0';
\set ECHO none
\o /dev/null
\i test/upgrade/models.sql
\o
\set ECHO all
\set ON_ERROR_STOP 0
SET client_min_messages = warning;
SELECT extversion FROM pg_extension WHERE extname = 'budgetkernel';
-- views on the forms of one label type each (text, int4, float8 labels,
-- text and float8 reports), which 0.4.0 replaces by one bk_label form:
-- the update moves them onto it (the same view: its grant stays) and they
-- give the same models and reports; a materialized view on one stops the
-- update, named, before any change
CREATE TABLE lbl AS
SELECT g AS id, ARRAY[(g % 7) / 7.0, (g % 5) / 5.0]::float8[] AS x, (g % 3)::int4 AS y4,
       (ARRAY['a', 'b', 'c'])[1 + g % 3] AS yt, ((g % 7) / 7.0)::float8 AS yf
FROM generate_series(1, 300) g;
CREATE VIEW lbl_models AS
SELECT bk_train(x, yt, '{"budget": 20}' ORDER BY id) AS by_text,
       bk_train(x, y4, '{"budget": 20}' ORDER BY id) AS by_int4,
       bk_train(x, yf, '{"budget": 20}' ORDER BY id) AS by_float8,
       bk_metrics(yt, yt) AS text_report, bk_metrics(yf, yf * 0.5) AS float8_report
FROM lbl;
GRANT SELECT ON lbl_models TO PUBLIC;
SET budgetkernel.run_warnings = off;
CREATE TABLE lbl_before AS
SELECT md5(by_text::bytea) AS t, md5(by_int4::bytea) AS i, md5(by_float8::bytea) AS f,
       text_report, float8_report
FROM lbl_models;
CREATE MATERIALIZED VIEW lbl_frozen AS SELECT bk_metrics(y4, y4) AS report FROM lbl;
\set SHOW_CONTEXT never
ALTER EXTENSION budgetkernel UPDATE;
\set SHOW_CONTEXT errors
SELECT extversion FROM pg_extension WHERE extname = 'budgetkernel';
DROP MATERIALIZED VIEW lbl_frozen;
ALTER EXTENSION budgetkernel UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'budgetkernel';
SELECT b.t = md5(v.by_text::bytea) AS same_text_model, b.i = md5(v.by_int4::bytea) AS same_int4_model,
       b.f = md5(v.by_float8::bytea) AS same_float8_model,
       b.text_report = v.text_report AS same_text_report, b.float8_report = v.float8_report AS same_float8_report
FROM lbl_before b, lbl_models v;
SELECT pg_get_viewdef('lbl_models') NOT LIKE '%retired%' AS calls_the_new_forms,
       has_table_privilege('public', 'lbl_models', 'SELECT') AS grant_kept,
       NOT EXISTS (SELECT FROM pg_depend d JOIN pg_extension e ON d.refobjid = e.oid
                   WHERE d.objid = 'lbl_models'::regclass AND e.extname = 'budgetkernel') AS not_a_member;
DROP VIEW lbl_models;
DROP TABLE lbl, lbl_before;
\i test/upgrade/verify.sql
\set ON_ERROR_STOP 0

\c bk_upgrade_old
SET client_min_messages = warning;
CREATE EXTENSION budgetkernel VERSION '0.1.0';
\i test/fixtures/checkerboard.sql
CREATE TABLE pts AS SELECT * FROM bk_test.checkerboard(600);
CREATE TABLE models AS
SELECT bk_train(features, label, '{"budget": 30, "gamma": 20}'::jsonb ORDER BY id) AS model
FROM pts WHERE id <= 400;
CREATE TABLE reference AS
SELECT md5(model::bytea) AS bytes_md5,
       (SELECT array_agg(bk_decision(model, features) ORDER BY id) FROM pts) AS decisions
FROM models;
-- a view on the continuation form of 0.1.0, bk_train(features, label, model)
CREATE VIEW continued AS
SELECT bk_train(features, label, (SELECT model FROM models) ORDER BY id) AS model
FROM pts WHERE id > 400;
CREATE TABLE continued_before AS SELECT md5(model::bytea) AS bytes_md5 FROM continued;

-- before the update: the old forms whose C function changed say what to do;
-- 0.1.0's float4[] form is read as float8 values (the library tells an
-- array's element type from its bytes, as for every bk_features value)
\set VERBOSITY terse
SELECT bk_train(features::float4[], label, '{}'::jsonb) IS NOT NULL AS float4_trains FROM pts;
SELECT bk_train(features, label, '{}'::text) FROM pts;
\set VERBOSITY default

-- a view on a form that 0.2.0 drops stops the update, naming the view
CREATE VIEW float4_trained AS
SELECT bk_train(features::float4[], label, '{}'::jsonb) AS model FROM pts;
-- (without the CONTEXT lines, which PostgreSQL 18 adds: the statement of
-- the update script and its line)
\set SHOW_CONTEXT never
ALTER EXTENSION budgetkernel UPDATE TO '0.2.0';
\set SHOW_CONTEXT errors
DROP VIEW float4_trained;
ALTER EXTENSION budgetkernel UPDATE TO '0.2.0';
SELECT extversion FROM pg_extension WHERE extname = 'budgetkernel';
-- and on to the current version: 0.4.0 drops bk_model_cache() (a view
-- now) and the forms of bk_cross_validate, bk_support_vectors and
-- bk_learning_curve whose signatures it changes, so a view that calls one
-- stops the update, naming it
CREATE VIEW cache_before AS SELECT lookups FROM bk_model_cache();
\set SHOW_CONTEXT never
ALTER EXTENSION budgetkernel UPDATE;
\set SHOW_CONTEXT errors
SELECT extversion FROM pg_extension WHERE extname = 'budgetkernel';
DROP VIEW cache_before;
-- and the label-less forms of bk_train and bk_continue (novelty
-- detection) that it drops: a view on one stops it too, naming the call
-- that replaces it
CREATE VIEW detector_before AS SELECT bk_train(features, '{"nu": 0.1}'::jsonb) AS model FROM pts;
\set SHOW_CONTEXT never
ALTER EXTENSION budgetkernel UPDATE;
\set SHOW_CONTEXT errors
DROP VIEW detector_before;
ALTER EXTENSION budgetkernel UPDATE;
-- the detector with the call that replaces it
SELECT bk_info(bk_train(features, NULL, '{"nu": 0.1, "task": "novelty"}'))->>'task' AS task FROM pts;
-- the view again, over the new form
CREATE VIEW cache_after AS SELECT lookups FROM bk_model_cache;
DROP VIEW cache_after;
SELECT extversion FROM pg_extension WHERE extname = 'budgetkernel';

-- stored models: the same bytes, valid, the same scores
SELECT md5(m.model::bytea) = r.bytes_md5 AS same_bytes,
       bk_is_valid(m.model::bytea) AS valid,
       (SELECT array_agg(bk_decision(m.model, features) ORDER BY id) FROM pts) = r.decisions AS same_decisions
FROM models m, reference r;
-- the view now calls bk_continue, and continues to the same model
SELECT pg_get_viewdef('continued') LIKE '%bk_continue(%' AS calls_bk_continue;
SELECT c.bytes_md5 = md5(v.model::bytea) AS same_continued_model
FROM continued_before c, continued v;

\i test/fixtures/extension_objects.sql
\copy (SELECT * FROM bk_test.extension_objects()) TO 'results/upgrade_objects_updated.txt'

\c bk_upgrade_new
SET client_min_messages = warning;
CREATE EXTENSION budgetkernel;
\i test/fixtures/extension_objects.sql
CREATE TEMP TABLE updated (object text, definition text, comment text);
\copy updated FROM 'results/upgrade_objects_updated.txt'
-- what differs between the updated and the fresh installation: nothing
(SELECT 'only updated' AS side, * FROM updated
 EXCEPT SELECT 'only updated', * FROM bk_test.extension_objects())
UNION ALL
(SELECT 'only fresh', * FROM bk_test.extension_objects()
 EXCEPT SELECT 'only fresh', * FROM updated)
ORDER BY 2, 1;
SELECT count(*) > 40 AS compared_every_object FROM updated;

\c contrib_regression
SET client_min_messages = warning;
DROP DATABASE bk_upgrade_02;
DROP DATABASE bk_upgrade_old;
DROP DATABASE bk_upgrade_new;
