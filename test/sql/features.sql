--
-- One features argument: every aggregate and scoring function takes its
-- features as bk_features, which float8[], the other numeric arrays
-- (int2[], int4[], int8[], float4[], numeric[]), jsonb and bk_sparse reach
-- by implicit cast.  Each form gives what its own signature gave: the
-- same model bytes (md5) and the same scores; NULL features are skipped
-- (aggregates) or give NULL (scoring).
--
SET client_min_messages = error;
\i test/fixtures/checkerboard.sql
CREATE TEMP TABLE fx AS
SELECT id, features AS f8, label, CASE label WHEN 1 THEN 'pos' ELSE 'neg' END AS name,
       ARRAY[round(features[1] * 100), round(features[2] * 100)]::int4[] AS i4,
       jsonb_build_object('a', features[1], 'b', features[2]) AS js,
       bk_sparse(ARRAY[1, 2], features, 2) AS sp
FROM bk_test.checkerboard(300);
-- a row of NULL features, skipped by the aggregates
INSERT INTO fx VALUES (301, NULL, 1, 'pos', NULL, NULL, NULL);
CREATE TEMP TABLE fm AS
SELECT bk_train(f8, label, '{"budget": 30, "gamma": 20}' ORDER BY id) AS m8,
       bk_train(f8, name, '{"budget": 30, "gamma": 20}' ORDER BY id) AS m8t,
       bk_train(i4, label, '{"budget": 30, "gamma": 0.002}' ORDER BY id) AS m4,
       bk_train(js, label, '{"budget": 30, "gamma": 0.5}' ORDER BY id) AS mj,
       bk_train(sp, label, '{"budget": 30, "gamma": 20}' ORDER BY id) AS ms
FROM fx WHERE id <= 200 OR id = 301;
-- the models: their bytes, and the rows they skipped
SELECT md5(m8::bytea) AS f8, md5(m8t::bytea) AS f8_text, md5(m4::bytea) AS i4,
       md5(mj::bytea) AS jsonb, md5(ms::bytea) AS sparse,
       (bk_info(m8)->>'rows_skipped') AS skipped
FROM fm;
-- an int4[] trains as the float8[] of the same values
SELECT md5(bk_train(i4, label, '{"budget": 30, "gamma": 0.002}' ORDER BY id)::bytea)
     = md5(bk_train(i4::float8[], label, '{"budget": 30, "gamma": 0.002}' ORDER BY id)::bytea) AS int4_as_float8
FROM fx WHERE id <= 200;
-- the other numeric arrays too
SELECT md5(bk_train(i4::int2[], label, '{"budget": 30, "gamma": 0.002}' ORDER BY id)::bytea) AS int2,
       md5(bk_train(i4::int8[], label, '{"budget": 30, "gamma": 0.002}' ORDER BY id)::bytea) AS int8,
       md5(bk_train(i4::float4[], label, '{"budget": 30, "gamma": 0.002}' ORDER BY id)::bytea) AS float4,
       md5(bk_train(i4::numeric[], label, '{"budget": 30, "gamma": 0.002}' ORDER BY id)::bytea) AS numeric
FROM fx WHERE id <= 200;
-- bk_continue, with and without overrides
SELECT md5(bk_continue(f8, label, m8 ORDER BY id)::bytea) AS f8,
       md5(bk_continue(f8, name, m8t ORDER BY id)::bytea) AS f8_text,
       md5(bk_continue(i4, label, m4 ORDER BY id)::bytea) AS i4,
       md5(bk_continue(js, label, mj ORDER BY id)::bytea) AS jsonb,
       md5(bk_continue(sp, label, ms ORDER BY id)::bytea) AS sparse
FROM fx, fm WHERE id > 200;
SELECT md5(bk_continue(f8, label, m8, '{"epochs": 2}' ORDER BY id)::bytea) AS f8,
       md5(bk_continue(f8, name, m8t, '{"epochs": 2}' ORDER BY id)::bytea) AS f8_text,
       md5(bk_continue(i4, label, m4, '{"epochs": 2}' ORDER BY id)::bytea) AS i4,
       md5(bk_continue(js, label, mj, '{"epochs": 2}' ORDER BY id)::bytea) AS jsonb,
       md5(bk_continue(sp, label, ms, '{"epochs": 2}' ORDER BY id)::bytea) AS sparse
FROM fx, fm WHERE id > 200;
-- bk_calibrate, then every scoring function
CREATE TEMP TABLE fc AS
SELECT bk_calibrate(m8, f8, label ORDER BY id) AS c8,
       bk_calibrate(m8t, f8, name ORDER BY id) AS c8t,
       bk_calibrate(m4, i4, label ORDER BY id) AS c4,
       bk_calibrate(mj, js, label ORDER BY id) AS cj,
       bk_calibrate(ms, sp, label ORDER BY id) AS cs
FROM fx, fm WHERE id > 200;
SELECT md5(c8::bytea) AS f8, md5(c8t::bytea) AS f8_text, md5(c4::bytea) AS i4,
       md5(cj::bytea) AS jsonb, md5(cs::bytea) AS sparse
FROM fc;
SELECT id,
       bk_predict(c8, f8) AS p8, bk_predict_label(c8t, f8) AS l8,
       round(bk_decision(c8, f8)::numeric, 6) AS d8,
       round(bk_decision(c4, i4)::numeric, 6) AS d4,
       round(bk_decision(cj, js)::numeric, 6) AS dj,
       round(bk_decision(cs, sp)::numeric, 6) AS ds
FROM fx, fc WHERE id IN (1, 77, 150, 250, 301) ORDER BY id;
SELECT id,
       (SELECT array_agg(round(v::numeric, 6)) FROM unnest(bk_scores(c8, f8)) v) AS s8,
       (SELECT array_agg(round(v::numeric, 6)) FROM unnest(bk_scores(cj, js)) v) AS sj,
       (SELECT array_agg(round(v::numeric, 6)) FROM unnest(bk_probabilities(c4, i4)) v) AS p4,
       (SELECT array_agg(round(v::numeric, 6)) FROM unnest(bk_probabilities(cs, sp)) v) AS ps,
       round(bk_predict_probability(c8, f8)::numeric, 6) AS pp8,
       round(bk_predict_probability(cj, js)::numeric, 6) AS ppj
FROM fx, fc WHERE id IN (1, 77, 150, 250, 301) ORDER BY id;
-- every row: the same scores as the float8[] of the same values
SELECT count(*) AS rows,
       count(*) FILTER (WHERE bk_decision(c4, i4) = bk_decision(c4, i4::float8[])) AS i4_same,
       count(*) FILTER (WHERE bk_decision(c4, i4::int8[]) = bk_decision(c4, i4::float8[])) AS i8_same,
       count(*) FILTER (WHERE bk_decision(c4, i4::numeric[]) = bk_decision(c4, i4::float8[])) AS num_same,
       count(*) FILTER (WHERE bk_decision(cs, sp) = bk_decision(cs, bk_dense(sp))) AS sparse_as_dense
FROM fx, fc WHERE id <= 300;
-- literals: ARRAY[...] of integers and of numerics, and a NULL
SELECT round(bk_decision(c4, ARRAY[10, 20])::numeric, 6) AS int_literal,
       round(bk_decision(c4, ARRAY[10.0, 20.0])::numeric, 6) AS numeric_literal,
       round(bk_decision(c4, ARRAY[10, 20]::float4[])::numeric, 6) AS float4_literal,
       bk_decision(c4, NULL::float8[]) AS null_features
FROM fc;
-- bk_features' text form names the value's type, then prints it in that
-- type's text form (test/sql/features_io.sql reads it back)
SELECT ARRAY[1.5, 2]::float8[]::bk_features AS f8, ARRAY[1, 2]::bk_features AS i4,
       '{"a": 1}'::jsonb::bk_features AS js, '{2:0.5}/3'::bk_sparse::bk_features AS sp;
-- a literal has no form: the error says which casts to write
SELECT bk_decision(c8, '{0.5, 0.5}') FROM fc;
SELECT bk_train(x, 1, '{}') FROM (VALUES ('{1, 2}')) AS v(x);
\set VERBOSITY terse
-- arrays of other element types, and a row of another form
SELECT bk_decision(c8, ARRAY['a', 'b']) FROM fc;
SELECT bk_decision(c8, ARRAY[true, false]::bool[]::bk_features) FROM fc;
SELECT bk_train(CASE WHEN id < 5 THEN f8::bk_features ELSE js::bk_features END, label, '{}' ORDER BY id)
FROM fx WHERE id <= 10;
\set VERBOSITY default
RESET client_min_messages;
-- a PL/pgSQL array (an expanded object) reaches bk_features as any other
DO $$
DECLARE
	x float8[] := ARRAY[0.25];
	m bk_model;
BEGIN
	x := x || 0.75::float8;
	SELECT c8 INTO m FROM fc;
	RAISE NOTICE 'expanded array: %', round(bk_decision(m, x)::numeric, 6);
END $$;
SELECT round(bk_decision(c8, ARRAY[0.25, 0.75])::numeric, 6) AS same_decision FROM fc;
-- one label argument (bk_label; a novelty detector's NULL, with "task":
-- "novelty"): at most 35 user-facing functions and aggregates (\df bk_*
-- fits a terminal), and the features argument of each is bk_features
SELECT count(*) AS user_facing, count(*) <= 35 AS within_bound
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
     JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
WHERE e.extname = 'budgetkernel' AND d.deptype = 'e' AND p.proname !~ '^_';
-- (bk_train also has serial jsonb forms, below)
SELECT p.proname, count(*) AS signatures,
       bool_and('bk_features'::regtype = ANY (p.proargtypes::oid[])
                OR (p.proname = 'bk_train' AND p.proargtypes[0] = 'jsonb'::regtype)) AS takes_bk_features
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
     JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
WHERE e.extname = 'budgetkernel' AND d.deptype = 'e'
  AND p.proname IN ('bk_train', 'bk_continue', 'bk_calibrate', 'bk_predict', 'bk_predict_label',
                    'bk_decision', 'bk_scores', 'bk_probabilities', 'bk_predict_probability')
GROUP BY p.proname ORDER BY p.proname;
-- \df bk_* fits a terminal of 160 columns: its widest lines (the header
-- and the rule under it) are the widest value of each column -- schema,
-- name, result type, arguments, kind -- or the column's title, with
-- psql's separators (one space first, " | " between, one space last),
-- over the functions \df bk_* lists (visible, named bk_...).  A long
-- result or argument list is named when it does not fit.
WITH df AS (
	SELECT n.nspname AS schema, p.proname AS name, pg_get_function_result(p.oid) AS result,
	       pg_get_function_arguments(p.oid) AS arguments,
	       CASE p.prokind WHEN 'a' THEN 'agg' WHEN 'w' THEN 'window' WHEN 'p' THEN 'proc' ELSE 'func' END AS kind
	FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
	WHERE p.proname ~ '^bk_' AND pg_function_is_visible(p.oid)
), w AS (
	SELECT 1 + greatest(length('Schema'), max(length(schema))) + 3
	         + greatest(length('Name'), max(length(name))) + 3
	         + greatest(length('Result data type'), max(length(result))) + 3
	         + greatest(length('Argument data types'), max(length(arguments))) + 3
	         + greatest(length('Type'), max(length(kind))) + 1 AS width,
	       max(length(result)) AS result, max(length(arguments)) AS arguments
	FROM df
)
SELECT CASE WHEN w.width <= 160 THEN 'at most 160 columns'
            ELSE format('%s columns; widest result: %s; widest arguments: %s', w.width,
                        (SELECT string_agg(DISTINCT df.name || ' -> ' || df.result, ', ') FROM df WHERE length(df.result) = w.result),
                        (SELECT string_agg(DISTINCT df.name || '(' || df.arguments || ')', ', ') FROM df WHERE length(df.arguments) = w.arguments))
       END AS df_width
FROM w;

-- bk_train over jsonb rows runs serially: a preparation fitted to named
-- rows knows its text values only once every row is seen, and the parts
-- of a parallel plan would fit layouts that do not merge.  Here the
-- workers' shares of the table see different text values.  Arrays still
-- train in parallel.  The workers' models merge into the union of their
-- preparations, but only with an explicit gamma (its default, 1 / dim,
-- differs between them): with one, the bk_features form over jsonb rows
-- trains in parallel (before, "cannot merge models of dimension 101 and
-- 51"), and the merged model has every text value of the table.
CREATE TABLE par AS
SELECT g AS id, jsonb_build_object('x', (g % 97) / 97.0,
                                   'c', 'v' || (g % 50 + CASE WHEN g > 19000 THEN 100 ELSE 0 END)) AS f,
       ARRAY[(g % 97) / 97.0, (g % 13) / 13.0]::float8[] AS a,
       (CASE WHEN (g % 97) > 48 THEN 1 ELSE -1 END)::int8 AS y
FROM generate_series(1, 20000) g;
ANALYZE par;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET budgetkernel.run_warnings = off;
EXPLAIN (COSTS OFF) SELECT bk_train(f, y, '{"algorithm": "bpa", "budget": 20}') FROM par;
EXPLAIN (COSTS OFF) SELECT bk_train(a, y, '{"algorithm": "bpa", "budget": 20}') FROM par;
SELECT bk_info(m)->>'dim' AS dim, bk_info(m)->>'merged_models' AS merged_models
FROM (SELECT bk_train(f, y, '{"algorithm": "bpa", "budget": 20}') AS m FROM par) t;
EXPLAIN (COSTS OFF) SELECT bk_train(f::bk_features, y, '{"algorithm": "bpa", "budget": 20, "gamma": 0.01}') FROM par;
SELECT bk_info(m)->>'dim' AS dim, bk_is_valid(m::bytea) AS valid,
       (SELECT avg((bk_predict(m, f) = y)::int) FROM par) > 0.8 AS accurate
FROM (SELECT bk_train(f::bk_features, y, '{"algorithm": "bpa", "budget": 20, "gamma": 0.01}') AS m FROM par) t;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET budgetkernel.run_warnings;
DROP TABLE par;
