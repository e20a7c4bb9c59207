--
-- "epochs": k trains k passes over the rows of one scan: the first in the
-- stream's order, pass p in the order of bk_shuffle_key(i, seed + p - 1),
-- i the row's position in the first pass.  The result equals continuing
-- the model k - 1 times in those orders, byte for byte, also when the
-- kept rows spill to temporary files (work_mem) and with text labels.
--
\i test/fixtures/checkerboard.sql
\i test/fixtures/without_parents.sql
CREATE TABLE ep_rows AS SELECT * FROM bk_test.checkerboard(1200);

-- three passes = one pass, then two continued ones in the shuffles' order
CREATE TABLE ep_models AS
SELECT (SELECT bk_train(features, label, '{"gamma": 20, "budget": 60, "seed": 5, "epochs": 3}' ORDER BY id)
        FROM ep_rows) AS three_passes,
       (SELECT bk_train(features, label, '{"gamma": 20, "budget": 60, "seed": 5}' ORDER BY id)
        FROM ep_rows) AS one_pass;
-- (the same state: the continued model names its base as parent)
SELECT bk_test.without_parents(three_passes)
       = bk_test.without_parents((SELECT bk_continue(features, label, p2 ORDER BY bk_shuffle_key(id, 7))
                                  FROM ep_rows,
                                       (SELECT bk_continue(features, label, one_pass ORDER BY bk_shuffle_key(id, 6)) AS p2
                                        FROM ep_rows) s
                                  GROUP BY p2)) AS equals_continued_passes,
       (bk_info(three_passes)->>'rows_seen')::int AS rows_seen,
       bk_info(three_passes)->'params' ? 'epochs' AS stored_as_parameter
FROM ep_models;

-- the rows spill to temporary files when work_mem is small: the same model
SET work_mem = '64kB';
SELECT bk_train(features, label, '{"gamma": 20, "budget": 60, "seed": 5, "epochs": 3}' ORDER BY id) = three_passes
       AS same_when_spilled
FROM ep_rows, ep_models GROUP BY three_passes;
RESET work_mem;

-- text labels, Pegasos, and bk_continue's override
SELECT bk_test.without_parents((SELECT bk_train(features, CASE WHEN label = 1 THEN 'x' ELSE 'y' END,
                        '{"algorithm": "pegasos", "budget": 40, "gamma": 20, "epochs": 2}' ORDER BY id) FROM ep_rows))
     = bk_test.without_parents((SELECT bk_continue(features, CASE WHEN label = 1 THEN 'x' ELSE 'y' END, m ORDER BY bk_shuffle_key(id, 1))
        FROM ep_rows,
             (SELECT bk_train(features, CASE WHEN label = 1 THEN 'x' ELSE 'y' END,
                              '{"algorithm": "pegasos", "budget": 40, "gamma": 20}' ORDER BY id) AS m FROM ep_rows) s
        GROUP BY m)) AS text_labels_equal;
SELECT bk_test.without_parents(bk_continue(features, label, one_pass, '{"epochs": 2}' ORDER BY id))
     = bk_test.without_parents((SELECT bk_continue(features, label, c ORDER BY bk_shuffle_key(id, 6))
        FROM ep_rows, (SELECT bk_continue(features, label, one_pass ORDER BY id) AS c FROM ep_rows) s GROUP BY c))
       AS continue_override_equal
FROM ep_rows, ep_models GROUP BY one_pass;

-- more passes fit the training rows better
SELECT (SELECT avg((bk_predict(three_passes, features) = label)::int) FROM ep_rows)
     > (SELECT avg((bk_predict(one_pass, features) = label)::int) FROM ep_rows) AS better_fit
FROM ep_models;

-- NULL rows are skipped in every pass, and counted once
SELECT (bk_info(m)->>'rows_seen')::int AS rows_seen, (bk_info(m)->>'rows_skipped')::int AS rows_skipped
FROM (SELECT bk_train(features, CASE WHEN id % 4 = 0 THEN NULL ELSE label END,
                      '{"gamma": 20, "epochs": 2}' ORDER BY id) AS m FROM ep_rows) s;

-- errors
SELECT bk_train(features, label, '{"epochs": 0}') FROM ep_rows;
SELECT bk_train(features, label, '{"epochs": 1.5}') FROM ep_rows;
SELECT bk_train(features, label, '{"epochs": "3"}') FROM ep_rows;
SELECT bk_train(features, label, '{"epochs": 1001}') FROM ep_rows;
SELECT bk_continue(features, label, one_pass, '{"epochs": -1}') FROM ep_rows, ep_models GROUP BY one_pass;
SELECT count(m) FROM (SELECT bk_train(features, label, '{"epochs": 2}') OVER (ORDER BY id) AS m FROM ep_rows) s;

DROP TABLE ep_rows, ep_models;
