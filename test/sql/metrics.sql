--
-- bk_metrics(actual, predicted): a classification report, checked against
-- values computed by hand; text labels; rows with a NULL label skipped;
-- the same report from a parallel plan (partial states combined) as from
-- a serial one; a model's test report.
--
-- y_true = 1 1 2 2 3, y_pred = 1 2 2 2 1: precision 1/2, 2/3, undefined
-- (class 3 never predicted); recall 1/2, 1, 0; F1 = 2TP/(2TP+FP+FN) =
-- 1/2, 4/5, 0; macro precision (1/2 + 2/3 + 0)/3 = 0.3889, macro recall
-- 1/2, macro F1 0.4333; balanced accuracy = mean recall over the classes
-- that occur = 1/2; accuracy 3/5.
SELECT jsonb_pretty(bk_metrics(a, p))
FROM (VALUES (1, 1), (1, 2), (2, 2), (2, 2), (3, 1), (NULL, 1), (2, NULL)) v(a, p);

-- text labels, listed by bytes; a class only predicted has recall null
-- and does not count in balanced accuracy
SELECT r->'classes' AS classes, r->'confusion' AS confusion,
       r->'per_class'->0 AS ant, r->>'balanced_accuracy' AS balanced_accuracy
FROM (SELECT bk_metrics(a, p) AS r
      FROM (VALUES ('cat', 'cat'), ('dog', 'cat'), ('dog', 'dog'), ('cat', 'ant')) v(a, p)) s;

-- no row with both labels: NULL
SELECT bk_metrics(a, p) IS NULL AS null_report FROM (VALUES (NULL::int8, 1::int8)) v(a, p);
SELECT bk_metrics(a, p) IS NULL AS null_report FROM (SELECT 1::int8 AS a, 1::int8 AS p WHERE false) v;

-- a parallel plan: partial reports combined give the serial report
CREATE TABLE mt_rows AS
SELECT i, (i % 7)::int8 AS a, (CASE WHEN i % 5 = 0 THEN (i + 1) % 7 ELSE i % 7 END)::int8 AS p,
       'c' || (i % 3) AS ta, 'c' || ((i / 2) % 3) AS tp
FROM generate_series(1, 200000) i;
ANALYZE mt_rows;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE serial AS SELECT bk_metrics(a, p) AS r, bk_metrics(ta, tp) AS t FROM mt_rows;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT bk_metrics(a, p), bk_metrics(ta, tp) FROM mt_rows;
SELECT (SELECT r FROM serial) = bk_metrics(a, p) AS same_report,
       (SELECT t FROM serial) = bk_metrics(ta, tp) AS same_text_report,
       (bk_metrics(a, p)->>'accuracy')::float8 AS accuracy
FROM mt_rows;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
DROP TABLE mt_rows;

-- a model's report on held-out rows
\i test/fixtures/checkerboard.sql
CREATE TABLE mt_train AS SELECT * FROM bk_test.checkerboard(1500);
SELECT r->'classes' AS classes, (r->>'accuracy')::float8 > 0.8 AS accurate,
       (r->>'rows')::int AS rows,
       (SELECT sum(x::int) FROM jsonb_array_elements_text(r->'confusion'->0) x) +
       (SELECT sum(x::int) FROM jsonb_array_elements_text(r->'confusion'->1) x) AS confusion_total
FROM (SELECT bk_metrics(t.label, bk_predict(m.model, t.features)) AS r
      FROM bk_test.checkerboard(3000) t,
           (SELECT bk_train(features, label, '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 3)) AS model
            FROM mt_train) m
      WHERE t.id > 1500) s;
DROP TABLE mt_train;

-- With a score: the ROC AUC of two classes, the last class of "classes"
-- positive (as bk_decision).  By hand: positives score 0.4 and 0.8,
-- negatives 0.1 and 0.35, every positive above every negative: 1.
SELECT r->'roc_auc' AS auc, r->'positive_class' AS positive, r->'accuracy' AS accuracy
FROM (SELECT bk_metrics(a, p, s) AS r
      FROM (VALUES (-1::int8, -1::int8, 0.1::float8), (1, -1, 0.4), (-1, 1, 0.35), (1, 1, 0.8)) v(a, p, s)) x;
-- ties count one half: pairs (0.5, 0.5) 1/2, (0.5, 0.1) 1, (0.9, 0.5) 1,
-- (0.9, 0.1) 1, so 3.5 / 4; text labels, the positive class by bytes
SELECT r->'roc_auc' AS auc, r->'positive_class' AS positive
FROM (SELECT bk_metrics(a, p, s) AS r
      FROM (VALUES ('yes', 'yes', 0.5::float8), ('no', 'yes', 0.5), ('yes', 'yes', 0.9), ('no', 'no', 0.1)) v(a, p, s)) x;
-- reversed scores give 1 - AUC; a NULL score skips its row
SELECT r->'roc_auc' AS auc, r->'rows' AS rows, r->'rows_skipped' AS skipped
FROM (SELECT bk_metrics(a, p, -s) AS r
      FROM (VALUES (1::int8, 1::int8, 0.5::float8), (-1, 1, 0.5), (1, 1, 0.9), (-1, -1, 0.1), (1, 1, NULL)) v(a, p, s)) x;
-- one class, or three: no AUC
SELECT (bk_metrics(1::int8, 1::int8, s)->'roc_auc') = 'null'::jsonb AS one_class_null,
       (bk_metrics(a % 3, a % 3, s)->'roc_auc') = 'null'::jsonb AS three_classes_null
FROM (SELECT g::int8 AS a, g::float8 AS s FROM generate_series(1, 9) g) v;
SELECT bk_metrics(1::int8, 1::int8, 'NaN'::float8);

-- a model's decision value ranks held-out rows: AUC of the checkerboard
CREATE TABLE mt_train AS SELECT * FROM bk_test.checkerboard(1500);
SELECT (r->>'roc_auc')::float8 > 0.9 AS ranks_well, r->'positive_class' AS positive,
       (r->>'roc_auc')::float8 >= (r->>'balanced_accuracy')::float8 - 0.05 AS consistent
FROM (SELECT bk_metrics(t.label, bk_predict(m.model, t.features), bk_decision(m.model, t.features)) AS r
      FROM bk_test.checkerboard(3000) t,
           (SELECT bk_train(features, label, '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 3)) AS model
            FROM mt_train) m
      WHERE t.id > 1500) s;
-- in parallel workers: the same AUC as serial
CREATE TABLE mt_scored AS
SELECT g AS id, (g % 2)::int8 AS a, ((g * 7) % 2)::int8 AS p, sin(g) + (g % 2) AS s FROM generate_series(1, 20000) g;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE serial_auc AS SELECT bk_metrics(a, p, s) AS r FROM mt_scored;
SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT bk_metrics(a, p, s) FROM mt_scored;
SELECT (SELECT r->'roc_auc' FROM serial_auc) = bk_metrics(a, p, s)->'roc_auc' AS same_auc FROM mt_scored;
RESET max_parallel_workers_per_gather; RESET parallel_setup_cost; RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- probabilities, one per class in the report's class order: log loss,
-- Brier score and (two classes) the ROC AUC of the second class's.  By
-- hand: log loss -(ln .8 + ln .9 + ln .4 + ln .3) / 4 = 0.612192, Brier
-- (.2^2 + .1^2 + .6^2 + .7^2) / 4 = 0.225, AUC 3 of 4 pairs = 0.75
SELECT round((r->>'log_loss')::numeric, 6) AS log_loss, round((r->>'brier_score')::numeric, 6) AS brier,
       r->'roc_auc' AS auc, r->'positive_class' AS positive
FROM (SELECT bk_metrics(a, p, pr) AS r
      FROM (VALUES (1::int8, 1::int8, ARRAY[0.2, 0.8]), (0, 0, ARRAY[0.9, 0.1]),
                   (0, 1, ARRAY[0.4, 0.6]), (1, 0, ARRAY[0.7, 0.3])) v(a, p, pr)) s;
-- three classes: Brier the mean of sum_c (p_c - y_c)^2 = (.14 + .86 + 0) / 3,
-- log loss -(ln .7 + ln .3 + ln 1) / 3; a probability of 0 is clipped to 1e-15
SELECT round((r->>'brier_score')::numeric, 6) AS brier, round((r->>'log_loss')::numeric, 6) AS log_loss,
       r->'roc_auc' AS auc
FROM (SELECT bk_metrics(a, p, pr) AS r
      FROM (VALUES ('x', 'x', ARRAY[0.7, 0.2, 0.1]), ('y', 'z', ARRAY[0.1, 0.3, 0.6]),
                   ('z', 'z', ARRAY[0.0, 0.0, 1.0])) v(a, p, pr)) s;
SELECT round((bk_metrics(a, p, pr)->>'log_loss')::numeric, 4) AS clipped_log_loss
FROM (VALUES (1::int8, 0::int8, ARRAY[1.0, 0.0])) v(a, p, pr);
-- 20 000 rows' probabilities: in parallel workers as serially
CREATE TABLE mt_probs AS
SELECT g AS id, (g % 2)::int8 AS a, ((g * 7) % 2)::int8 AS p,
       ARRAY[0.5 + 0.4 * sin(g), 0.5 - 0.4 * sin(g)] AS pr FROM generate_series(1, 20000) g;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE serial_probs AS SELECT bk_metrics(a, p, pr) AS r FROM mt_probs;
SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT abs((SELECT (r->>'log_loss')::float8 FROM serial_probs) - (bk_metrics(a, p, pr)->>'log_loss')::float8) < 1e-12
         AS same_log_loss,
       (SELECT r->'roc_auc' FROM serial_probs) = bk_metrics(a, p, pr)->'roc_auc' AS same_auc
FROM mt_probs;
RESET max_parallel_workers_per_gather; RESET parallel_setup_cost; RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
-- bad probabilities
SELECT bk_metrics(a, p, pr) FROM (VALUES (1::int8, 1::int8, ARRAY[0.2, 0.8, 0.0])) v(a, p, pr);
SELECT bk_metrics(a, p, pr) FROM (VALUES (1::int8, 1::int8, ARRAY[0.2, 1.8])) v(a, p, pr);
SELECT bk_metrics(a, p, pr) FROM (VALUES (1::int8, 1::int8, ARRAY[0.2, 0.8]), (0, 0, ARRAY[1.0])) v(a, p, pr);
SELECT bk_metrics(a, p, pr) FROM (VALUES (1::int8, 1::int8, ARRAY[0.2, NULL])) v(a, p, pr);
DROP TABLE mt_train, mt_scored, mt_probs;
