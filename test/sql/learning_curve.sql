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

-- a classifier has no squared error
SELECT bool_and(rmse IS NULL AND window_rmse IS NULL) AS classifier_no_rmse
FROM lc_models, bk_learning_curve(whole);

-- a regressor's curve also has its prequential RMSE: the last equals
-- bk_info's online_rmse, the error falls as it learns, and continued
-- training extends it as one stream (the target as it is: a part
-- standardised by its own rows would learn other numbers)
CREATE TABLE lc_wave AS
SELECT g AS id, ARRAY[x]::float8[] AS x, sin(3 * x) + x / 10 AS y
FROM (SELECT g, (g % 1000) / 100.0 - 5 AS x FROM generate_series(1, 3000) g) q;
CREATE TABLE lc_reg AS
SELECT (SELECT bk_train(x, y, '{"gamma": 1, "budget": 50, "target_scale": "none"}' ORDER BY bk_shuffle_key(id, 1)) FROM lc_wave) AS whole,
       (SELECT bk_train(x, y, '{"gamma": 1, "budget": 50, "target_scale": "none"}' ORDER BY bk_shuffle_key(id, 1))
        FROM lc_wave WHERE id IN (SELECT id FROM lc_wave ORDER BY bk_shuffle_key(id, 1) LIMIT 1000)) AS part;
SELECT count(*) AS points, max(rows) AS last_rows,
       bool_and(rmse >= 0 AND window_rmse >= 0) AS all_rmse,
       abs((array_agg(rmse ORDER BY rows DESC))[1] - (bk_info(whole)->>'online_rmse')::float8) < 1e-12 AS total_matches,
       (array_agg(window_rmse ORDER BY rows DESC))[1] < 0.5 * (array_agg(window_rmse ORDER BY rows))[5] AS learns,
       abs(sqrt(sum(window_rmse ^ 2 * (rows - coalesce(prev, 0)))
                / max(rows)) - (array_agg(rmse ORDER BY rows DESC))[1]) < 1e-9 AS windows_add_up
FROM (SELECT whole, c.*, lag(c.rows) OVER (ORDER BY c.rows) AS prev
      FROM lc_reg, bk_learning_curve(whole) c) s
GROUP BY whole;
SELECT array_agg(c.rmse ORDER BY c.rows) =
       (SELECT array_agg(w.rmse ORDER BY w.rows) FROM lc_reg, bk_learning_curve(whole) w) AS continued_as_one
FROM (SELECT bk_continue(w.x, w.y, m.part ORDER BY bk_shuffle_key(w.id, 1)) AS m
      FROM lc_wave w, lc_reg m
      WHERE w.id NOT IN (SELECT id FROM lc_wave ORDER BY bk_shuffle_key(id, 1) LIMIT 1000)
      GROUP BY m.part) s,
     bk_learning_curve(s.m) c;
-- merged: the total, its window the whole stream
SELECT count(*) AS points, max(rows) AS rows, bool_and(rmse > 0) AS total_rmse,
       bool_and(window_rmse = rmse) AS window_is_all
FROM lc_reg, bk_learning_curve(bk_merge(part, part)) c;

-- a novelty detector's mistakes are the rows it flagged: the rate is the
-- share flagged, near nu once the threshold has settled
SELECT (array_agg(mistake_rate ORDER BY rows DESC))[1] BETWEEN 0.01 AND 0.2 AS flagged_share,
       bool_and(rmse IS NULL) AS no_rmse
FROM (SELECT bk_train(x, NULL, '{"task": "novelty", "nu": 0.1, "gamma": 1}' ORDER BY bk_shuffle_key(id, 1)) AS m FROM lc_wave) s,
     bk_learning_curve(s.m) c;
DROP TABLE lc_rows, lc_models, lc_wave, lc_reg;
