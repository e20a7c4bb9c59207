--
-- Suspicious inputs are never met in silence (issue 55, item 3): a float8
-- target of a few integral values (classes given as numbers), raw
-- features under a model near the majority, one feature that alone gives
-- the label (a leak), a text feature of one value in every row, and an
-- integer quantity taken for classes each raise a NOTICE or WARNING that
-- names the fix; clean inputs raise none.
--
\i test/fixtures/checkerboard.sql
CREATE TABLE cb AS SELECT * FROM bk_test.checkerboard(2000);

-- a float8 target of two integral values trains a regressor: a WARNING
SELECT bk_info(m)->>'task' AS task
FROM (SELECT bk_train(features, label::float8, '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 42)) AS m
      FROM cb) s;
-- of five (a count, perhaps): a NOTICE
SELECT bk_info(m)->>'task' AS task
FROM (SELECT bk_train(features, (id % 5)::float8, '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 42)) AS m
      FROM cb) s;
-- no word: 21 integral values, a non-integral one, a continuous target,
-- fewer than 100 rows
SELECT bk_info(bk_train(features, (id % 21)::float8, '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 42)))->>'task' AS task
FROM cb;
SELECT bk_info(bk_train(features, (id % 2)::float8 + CASE WHEN id = 7 THEN 0.5 ELSE 0 END,
                        '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 42)))->>'task' AS task
FROM cb;
SELECT bk_info(bk_train(features, features[1] + features[2], '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 42)))->>'task' AS task
FROM cb;
SELECT bk_info(bk_train(features, label::float8, '{"gamma": 20}' ORDER BY id))->>'task' AS task
FROM cb WHERE id <= 99;
-- the cast the hint names trains a classifier, with no word
SELECT bk_info(bk_train(features, label::float8::int8, '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 42)))->>'task' AS task
FROM cb;

-- bk_cross_validate on such a label says that it scores regressors by R^2
SELECT params, mean IS NOT NULL AS scored
FROM bk_cross_validate('cb', 'features', 'label::float8', 'id', '{"grid": {"gamma": [20], "budget": [50]}, "folds": 2}');
-- and not for a label of many values
SELECT params, mean IS NOT NULL AS scored
FROM bk_cross_validate('cb', 'features', 'features[1] + features[2]', 'id', '{"grid": {"gamma": [20], "budget": [50]}, "folds": 2}');

-- raw features: an id among them (spread 577, the board's 0.29) drowns
-- the board under the Gaussian kernel, and the model is about as wrong
-- as always answering the majority: a WARNING that names "scale"
CREATE TABLE raw AS SELECT id, features || id::float8 AS features, label FROM cb;
SELECT bk_info(bk_train(features, label, '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 42)))->>'n_classes' AS n_classes
FROM raw;
-- standardised by the model: no word
SELECT bk_info(bk_train(features, label, '{"gamma": 1, "scale": "standard"}' ORDER BY bk_shuffle_key(id, 42)))->>'n_classes' AS n_classes
FROM raw;
-- raw values in the thousands, with a gamma fitted to their spread: a
-- model that learns, and no word
SELECT avg((bk_predict(m, features) = label)::int) > 0.8 AS learns
FROM (SELECT bk_train(f, label, '{"gamma": 0.00002}' ORDER BY bk_shuffle_key(id, 42)) AS m
      FROM (SELECT id, label, ARRAY[1000 * features[1], 1000 * features[2]] AS f FROM cb) t) s,
     (SELECT ARRAY[1000 * features[1], 1000 * features[2]] AS features, label FROM cb) c;

-- a leak: the label among the features (equal to it), a rank of the rows
-- in label order (one class below a value, the other above), and a text
-- label among named features
SELECT bk_info(bk_train(features || label::float8, label, '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 42)))->>'dim' AS dim
FROM cb;
SELECT bk_info(bk_train(features || rnk, label, '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 42)))->>'dim' AS dim
FROM (SELECT *, (row_number() OVER (ORDER BY label, id))::float8 AS rnk FROM cb) t;
SELECT bk_info(bk_train(jsonb_build_object('x', features[1], 'y', features[2],
                                           'side', CASE WHEN label = 1 THEN 'black' ELSE 'white' END),
                        label, '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 42)))->>'dim' AS dim
FROM cb;
-- three classes, an id in label order: ranges of the id hold one class each
SELECT bk_info(bk_train(features || rnk, cls, '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 42)))->>'n_classes' AS n_classes
FROM (SELECT *, (id % 3)::int8 AS cls, (row_number() OVER (ORDER BY id % 3, id))::float8 AS rnk FROM cb) t;
-- a regressor's target among its features, and an affine copy of it
SELECT bk_info(bk_train(features || (features[1] + features[2]), features[1] + features[2],
                        '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 42)))->>'dim' AS dim
FROM cb;
SELECT bk_info(bk_train(features || (3 * (features[1] - features[2]) + 1), features[1] - features[2],
                        '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 42)))->>'dim' AS dim
FROM cb;
-- no leak: an id in another order than the label's (scaled: raw, it
-- drowns the others, and the model is near the majority), a feature that
-- informs but does not decide, and a single feature (nothing else to read)
SELECT bk_info(bk_train(features || (id / 2000.0)::float8, label, '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 42)))->>'dim' AS dim
FROM cb;
SELECT bk_info(bk_train(features || (label + (bk_shuffle_key(id, 3) % 3))::float8, label,
                        '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 42)))->>'dim' AS dim
FROM cb;
SELECT bk_info(bk_train(ARRAY[features[1]], (features[1] < 0.5)::int::int8, '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 42)))->>'dim' AS dim
FROM cb;
-- nor a continuous feature that a threshold separates (a made-up data
-- set's, not a leak's shape)
SELECT bk_info(bk_train(features, (features[1] < 0.5)::int::int8, '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 42)))->>'dim' AS dim
FROM cb;

-- a text feature of one value in every row: a NOTICE naming it; the same
-- value in some rows only, or two values: no word
SELECT bk_info(bk_train(jsonb_build_object('x', features[1], 'y', features[2], 'source', 'survey'),
                        label, '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 42)))->>'dim' AS dim
FROM cb;
SELECT bk_info(bk_train(jsonb_build_object('x', features[1], 'y', features[2])
                        || CASE WHEN id % 2 = 0 THEN '{"source": "survey"}' ELSE '{}' END::jsonb,
                        label, '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 42)))->>'dim' AS dim
FROM cb;

-- an integer quantity as the label: 150 classes of about 13 rows each;
-- the WARNING's hint names the float8 cast
SELECT bk_info(bk_train(features, (id % 150)::int8, '{"gamma": 20, "budget": 20}' ORDER BY bk_shuffle_key(id, 42)))->>'n_classes' AS n_classes
FROM cb;

-- 40 classes of 50 rows and features that carry nothing (all zero,
-- linear kernel): the constant model's WARNING names the float8 cast first
SELECT bk_info(bk_train(ARRAY[0, 0]::float8[], (abs(bk_shuffle_key(id, 9)) % 40)::int8,
                        '{"kernel": "linear"}' ORDER BY bk_shuffle_key(id, 42)))->>'n_classes' AS n_classes
FROM cb;

-- bk_cross_validate reads its source as the subquery s: naming the table
-- is an error whose hint says so (without its CONTEXT, the line of the
-- PL/pgSQL function that raised it, which moves with every edit)
\set SHOW_CONTEXT never
SELECT params FROM bk_cross_validate('cb t', 'to_jsonb(t) - ''label''', 'label', 'id', '{"grid": {"budget": [50]}, "folds": 2}');
SELECT params FROM bk_cross_validate('cb', 'to_jsonb(cb) - ''label''', 'label', 'id', '{"grid": {"budget": [50]}, "folds": 2}');
\set SHOW_CONTEXT errors
-- with s, it runs
SELECT params, mean > 0.5 AS learns
FROM bk_cross_validate('SELECT id, label, features[1] AS x, features[2] AS y FROM cb',
                       'to_jsonb(s) - ''label'' - ''id''', 'label', 'id', '{"grid": {"gamma": [1.67], "budget": [50]}, "folds": 2}');

-- budgetkernel.run_warnings = off silences them
SET budgetkernel.run_warnings = off;
SELECT bk_info(bk_train(features || label::float8, label::float8, '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 42)))->>'task' AS task
FROM cb;
RESET budgetkernel.run_warnings;

DROP TABLE cb, raw;
