--
-- Training that cannot silently go wrong: a stream sorted or grouped by
-- label, a model that ends predicting one class, and one no better than
-- the most frequent class each raise a WARNING that names the fix; a
-- shuffled stream of a learnable problem raises none.  bk_shuffle_key
-- orders rows in a seeded, repeatable shuffle.
--
\i test/fixtures/checkerboard.sql
CREATE TABLE cb AS SELECT * FROM bk_test.checkerboard(2000);

-- bk_shuffle_key: a permutation of the ids for each seed, repeatable,
-- different for another seed, unrelated to the id order
SELECT count(DISTINCT bk_shuffle_key(id, 42)) = count(*) AS distinct_keys,
       bool_and(bk_shuffle_key(id, 42) = bk_shuffle_key(id, 42)) AS repeatable,
       count(*) FILTER (WHERE bk_shuffle_key(id, 42) <> bk_shuffle_key(id, 7)) > 1990 AS seed_matters,
       abs(corr(id, bk_shuffle_key(id, 42))) < 0.1 AS unrelated_to_id,
       bk_shuffle_key(1) = bk_shuffle_key(1, 0) AS seed_defaults_to_0
FROM cb;
SELECT bk_shuffle_key(NULL, 1) IS NULL AS strict;

-- a stream sorted by label: a warning, and its online mistake rate is
-- meaningless (near 0, while the model predicts the last label)
SELECT (bk_info(m)->>'online_mistake_rate')::float8 < 0.02 AS looks_perfect,
       (SELECT avg((bk_predict(m, features) = label)::int) FROM cb) < 0.7 AS is_not
FROM (SELECT bk_train(features, label, '{"gamma": 20}' ORDER BY label, id) AS m FROM cb) s;
-- grouped in blocks of 100 rows of one label: a warning too
SELECT bk_info(bk_train(features, label, '{"gamma": 20}' ORDER BY (id - 1) / 100, label, id))->>'n_classes' AS n_classes
FROM cb;

-- shuffled: no warning, and a model far better than the sorted one
SELECT (SELECT avg((bk_predict(m, features) = label)::int) FROM cb) > 0.8 AS accurate
FROM (SELECT bk_train(features, label, '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 42)) AS m FROM cb) s;
-- ordered by id (this stream's ids carry no label order): no warning
SELECT bk_info(bk_train(features, label, '{"gamma": 20}' ORDER BY id))->>'n_classes' AS n_classes FROM cb;

-- a constant classifier: features that carry nothing (all zero, linear
-- kernel) always get the first class seen, here the rarer one (30 %)
SELECT bk_info(bk_train(ARRAY[0, 0]::float8[], CASE WHEN id % 10 < 3 THEN 1 ELSE -1 END,
                        '{"kernel": "linear"}' ORDER BY bk_shuffle_key(id, 42)))->>'n_sv' AS n_sv
FROM cb;
-- with text labels, the warning quotes the label
SELECT bk_info(bk_train(ARRAY[0, 0]::float8[], CASE WHEN id % 10 < 3 THEN 'rare' ELSE 'common' END,
                        '{"kernel": "linear"}' ORDER BY bk_shuffle_key(id, 42)))->>'n_sv' AS n_sv
FROM cb;

-- labels that the features do not predict (a hash of the id): no better
-- than always answering the most frequent class
SELECT bk_info(bk_train(features, CASE WHEN abs(bk_shuffle_key(id, 1)) % 10 < 4 THEN 1 ELSE -1 END,
                        '{"gamma": 20}' ORDER BY id))->>'n_classes' AS n_classes
FROM cb;

-- bk_continue judges its own run: a sorted continuation warns, by name
CREATE TABLE base AS
SELECT bk_train(features, label, '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 42)) AS m
FROM cb WHERE id <= 1000;
SELECT bk_info(bk_continue(features, label, (SELECT m FROM base) ORDER BY label, id))->>'rows_seen' AS rows_seen
FROM cb WHERE id > 1000;

-- rows of one class: the model predicts it everywhere (issue 34, item 4)
SELECT bk_info(bk_train(features, 1::int8, '{"gamma": 20}' ORDER BY id))->>'n_classes' AS n_classes
FROM cb WHERE id <= 200;

-- the finished model is judged on the recent rows it kept: BOGD on a9a
-- in file order ends predicting -1 for every row (76 % of a9a's rows; the
-- unit test test_run_report checks a model that varied online and ends
-- constant)
CREATE TEMP TABLE a9raw (id serial, line text);
\copy a9raw(line) FROM '../shared/data/a9a.train'
CREATE TEMP TABLE a9 AS SELECT id, (bk_libsvm(line, 123)).* FROM a9raw;
CREATE TEMP TABLE a9_model AS
SELECT bk_train(features, label, '{"algorithm": "bogd", "budget": 100, "gamma": 0.05}' ORDER BY id) AS m
FROM a9;
SELECT count(DISTINCT bk_predict(m, features)) AS distinct_predictions
FROM a9_model, a9 WHERE id % 10 = 0;
DROP TABLE a9raw, a9, a9_model;

-- as a window function (a running model), no warning per row
SELECT count(*) AS running_models
FROM (SELECT bk_train(features, label, '{"gamma": 20}') OVER (ORDER BY label, id) AS m
      FROM cb WHERE id <= 300) s;

-- too few rows to judge: no warning
SELECT bk_info(bk_train(features, label, '{"gamma": 20}' ORDER BY label, id))->>'rows_seen' AS rows_seen
FROM cb WHERE id <= 15;

-- budgetkernel.run_warnings = off: the sorted stream is not warned of
-- (bk_cross_validate trains its many models so)
SET budgetkernel.run_warnings = off;
SELECT bk_info(bk_train(features, label, '{"gamma": 20}' ORDER BY label, id))->>'rows_seen' AS rows_seen_quiet
FROM cb;
RESET budgetkernel.run_warnings;
