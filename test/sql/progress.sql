--
-- budgetkernel.progress_interval: a NOTICE every that many rows learned
-- (rows, support vectors, online error over all rows and over the last
-- interval; the time and rate as detail, hidden here since they vary), in
-- every pass of "epochs" and in bk_continue.  Off by default.
--
\i test/fixtures/checkerboard.sql
CREATE TABLE pg_rows AS SELECT * FROM bk_test.checkerboard(1000);
SELECT bk_info(bk_train(features, label, '{"gamma": 20}' ORDER BY id))->>'rows_seen' AS quiet FROM pg_rows;
SHOW budgetkernel.progress_interval;

SET budgetkernel.progress_interval = 400;
\set VERBOSITY terse
SELECT bk_info(bk_train(features, label, '{"gamma": 20}' ORDER BY id))->>'rows_seen' AS rows_seen FROM pg_rows;
SELECT bk_info(bk_train(features, label, '{"gamma": 20, "epochs": 2}' ORDER BY id))->>'rows_seen' AS rows_seen FROM pg_rows;
SELECT bk_info(bk_continue(features, label, m ORDER BY id))->>'rows_seen' AS rows_seen
FROM pg_rows, (SELECT bk_train(features, label, '{"gamma": 20}' ORDER BY id) AS m FROM pg_rows WHERE id <= 300) s
WHERE id > 300 GROUP BY m;
-- the models of a search report their progress too (one setting, two folds of 500 rows)
SELECT params, fold_scores IS NOT NULL AS scored
FROM bk_cross_validate('pg_rows', 'features', 'label', 'id', '{"grid": {"gamma": 20}, "folds": 2}');
-- the search without a grid: its rounds (6 settings, the best 2, then the
-- best 2 at the final budget and the best of the round before with 3
-- passes and with 8) counted as one search, 22 models of 2 folds (an
-- interval no model reaches); 8 passes win by half a point, so a wider
-- round of 2 settings follows, and the count grows to 26 as it starts
SET budgetkernel.progress_interval = 1000000;
SELECT params FROM bk_cross_validate('pg_rows', 'features', 'label', 'id', '{"folds": 2, "seed": 7, "samples": 6}');
\set VERBOSITY default
SET budgetkernel.progress_interval = -1;
RESET budgetkernel.progress_interval;
DROP TABLE pg_rows;
