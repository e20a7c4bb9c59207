--
-- The learning curve kept in the model: the online mistakes after 1, 2,
-- 4, ... rows of the training stream and after every row, the rate so far
-- and over each doubling window.  Continued training extends it as one
-- stream; a merged model has no single stream and keeps only the total.
--
SET client_min_messages = warning;
\i test/fixtures/checkerboard.sql
CREATE TABLE lc_rows AS SELECT * FROM bk_test.checkerboard(3000);
CREATE TABLE lc_models AS
SELECT (SELECT bk_train(features, label, '{"budget": 50, "gamma": 20}' ORDER BY id) FROM lc_rows) AS whole,
       (SELECT bk_train(features, label, '{"budget": 50, "gamma": 20}' ORDER BY id) FROM lc_rows WHERE id <= 1000) AS part;

-- one row per power of two up to the rows seen, then the total
SELECT count(*) AS points, max(rows) AS last_rows,
       bool_and(rows = 3000 OR rows & (rows - 1) = 0) AS powers_of_two,
       bool_and(mistakes <= rows) AS bounded,
       (array_agg(mistakes ORDER BY rows DESC))[1] = (bk_info(whole)->>'online_mistakes')::int8 AS total_matches,
       (array_agg(window_rate ORDER BY rows DESC))[1] < (array_agg(window_rate ORDER BY rows))[4] AS learns
FROM lc_models, bk_learning_curve(whole)
GROUP BY whole;

-- continued training extends the curve as one stream
SELECT array_agg(c.mistakes ORDER BY c.rows) =
       (SELECT array_agg(w.mistakes ORDER BY w.rows) FROM lc_models, bk_learning_curve(whole) w) AS continued_as_one
FROM (SELECT bk_continue(r.features, r.label, m.part ORDER BY r.id) AS m
      FROM lc_rows r, lc_models m WHERE r.id > 1000 GROUP BY m.part) s,
     bk_learning_curve(s.m) c;

-- a merged model: only the total
SELECT count(*) AS points, max(rows) AS rows
FROM lc_models, bk_learning_curve(bk_merge(part, part)) c;
DROP TABLE lc_rows, lc_models;
