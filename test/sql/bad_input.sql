--
-- Bad input (DESIGN §5): every case gives a clear error or the documented
-- skip.  SQLSTATEs are checked in test/pgtap/errors.sql.
--
SET client_min_messages = warning;
\set SHOW_CONTEXT never

-- a small deterministic stream: 2-D points and a checkerboard label
\i test/fixtures/checkerboard.sql
CREATE TABLE pts AS SELECT * FROM bk_test.checkerboard(400);

-- NULL label or NULL features: the row is skipped and counted
SELECT bk_info(m)->'rows_seen' AS seen, bk_info(m)->'rows_skipped' AS skipped
FROM (SELECT bk_train(features, label, '{"budget": 20, "gamma": 10}' ORDER BY id) AS m
      FROM (SELECT id, CASE WHEN id % 10 = 0 THEN NULL ELSE features END AS features,
                   CASE WHEN id % 15 = 0 THEN NULL ELSE label END AS label FROM pts) s) t;

-- skipped rows before the first usable row are counted too
SELECT bk_info(bk_train(f, l, '{}' ORDER BY o))->'rows_skipped' AS skipped
FROM (VALUES (1, NULL::float8[], 1::int8), (2, ARRAY[1,2]::float8[], NULL), (3, ARRAY[1,2]::float8[], 1)) v(o, f, l);

-- only NULL rows, or no rows at all: NULL model
SELECT bk_train(f, l, '{}') IS NULL AS null_model
FROM (VALUES (NULL::float8[], 1::int8)) v(f, l);
SELECT bk_train(features, label, '{}') IS NULL AS null_model FROM pts WHERE false;

-- NULL element, NaN, +/-Infinity inside features: error naming row and position
SELECT bk_train(f, 1, '{}' ORDER BY o)
FROM (VALUES (1, ARRAY[1,2]::float8[]), (2, ARRAY[1,NULL]::float8[])) v(o, f);
SELECT bk_train(f, 1, '{}' ORDER BY o)
FROM (VALUES (1, ARRAY[1,2]::float8[]), (2, ARRAY[3,4]), (3, ARRAY['NaN',1]::float8[])) v(o, f);
SELECT bk_train(f, 1, '{}') FROM (VALUES (ARRAY[1,'Infinity']::float8[])) v(f);
SELECT bk_train(f, 1, '{}') FROM (VALUES (ARRAY['-Infinity',0]::float4[])) v(f);
-- rows of eight values or more are checked eight at a time: the first bad
-- value is still the one named, after the last full step of eight
SELECT bk_train(f, o, '{}' ORDER BY o)
FROM (SELECT o, array_agg(CASE WHEN o = 2 AND j IN (18, 20) THEN 'Infinity'::float8
                               WHEN o = 2 AND j = 19 THEN 'NaN' ELSE j END ORDER BY j) AS f
      FROM generate_series(1, 2) o, generate_series(1, 20) j GROUP BY o) v;

-- a different length than the first row
SELECT bk_train(f, 1, '{}' ORDER BY o)
FROM (VALUES (1, ARRAY[1,2]::float8[]), (2, ARRAY[1,2,3]::float8[])) v(o, f);

-- multi-dimensional or empty arrays
SELECT bk_train(ARRAY[[1,2],[3,4]]::float8[], 1, '{}');
SELECT bk_train('{}'::float8[], 1, '{}');

-- NULL parameters or base model
SELECT bk_train(ARRAY[1.0]::float8[], 1, NULL::jsonb);
SELECT bk_continue(ARRAY[1.0]::float8[], 1, NULL::bk_model);

-- budget x dim beyond the 1 GB allocation limit: refused before allocating
SELECT bk_train(array_fill(1.0::float8, ARRAY[200]), 1, '{"budget": 1000000}');
SELECT bk_train(array_fill(1.0::float8, ARRAY[2000]), 1, '{"algorithm": "bpa", "variant": "p", "budget": 20000}');

-- an unbudgeted learner that outgrows its safety cap
SELECT bk_train(features, label, '{"algorithm": "perceptron", "max_sv": 5, "gamma": 50}' ORDER BY id) FROM pts;

-- labels: an empty text label is an error (a NULL label is a skipped row)
SELECT bk_train(f, l, '{}' ORDER BY o) FROM (VALUES (1, ARRAY[1,2]::float8[], 'a'), (2, ARRAY[2,1], '')) v(o, f, l);
-- a label outside the declared classes
SELECT bk_train(f, l, '{"classes": [1, 2]}' ORDER BY l) FROM (VALUES (ARRAY[1,2]::float8[], 1::int8), (ARRAY[2,1], 2), (ARRAY[0,0], 3)) v(f, l);
-- declared classes of the wrong type, twice the same, or not a list
SELECT bk_train(ARRAY[1,2]::float8[], 1::int8, '{"classes": ["a", "b"]}');
SELECT bk_train(ARRAY[1,2]::float8[], 'a', '{"classes": [1, 2]}');
SELECT bk_train(ARRAY[1,2]::float8[], 1::int8, '{"classes": [1, 1]}');
SELECT bk_train(ARRAY[1,2]::float8[], 1::int8, '{"classes": [1.5]}');
SELECT bk_train(ARRAY[1,2]::float8[], 1::int8, '{"classes": []}');
SELECT bk_train(ARRAY[1,2]::float8[], 1::int8, '{"classes": 3}');

-- one class only: a model that predicts it, and says so
CREATE TABLE one_class AS
SELECT bk_train(features, 7::int8, '{"budget": 10}' ORDER BY id) AS m FROM pts WHERE id <= 50;
SELECT bk_predict(m, ARRAY[0.5, 0.5]) AS predicted, bk_info(m)->'classes' AS classes,
       bk_info(m)->>'note' AS note FROM one_class;

-- scoring with the wrong dimension, a NULL or NaN element, an empty array
CREATE TABLE m1 AS SELECT bk_train(features, label, '{"budget": 20, "gamma": 10}' ORDER BY id) AS m FROM pts;
SELECT bk_predict(m, ARRAY[1,2,3]::float8[]) FROM m1;
SELECT bk_decision(m, ARRAY[1,NULL]::float8[]) FROM m1;
SELECT bk_predict(m, ARRAY['NaN',1]::float8[]) FROM m1;
SELECT bk_predict(m, '{}'::float8[]) FROM m1;
-- STRICT: a NULL array gives NULL
SELECT bk_predict(m, NULL::float8[]) IS NULL AS is_null FROM m1;

-- continuing training with rows of another dimension than the model
SELECT bk_continue(ARRAY[1,2,3]::float8[], 1, m) FROM m1;

-- query cancel is honoured during training: eight quasi-random features
-- keep almost every row outside the span of the SVs, so each row costs
-- O(B^2) and the whole run about 10x the timeout (on three features the
-- kernel was numerically low-rank and a fast machine finished in time)
SET statement_timeout = '500ms';
SELECT bk_train(ARRAY[sin(i), cos(i), sin(2 * i), cos(3 * i), sin(5 * i),
                      cos(7 * i), sin(11 * i), cos(13 * i)]::float8[], (i % 2)::int8,
                '{"algorithm": "bpa", "variant": "p", "budget": 1000, "gamma": 1}')
FROM generate_series(1, 400000) i;
RESET statement_timeout;

DROP TABLE pts, one_class, m1;
