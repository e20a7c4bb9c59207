--
-- A model's classes are fixed once it has two: bk_continue refuses a label
-- the model has not seen (a typo must not turn a binary model into a
-- three-class one), unless its overrides say {"allow_new_classes": true}.
--
\i test/fixtures/checkerboard.sql
CREATE TABLE fc_rows AS SELECT * FROM bk_test.checkerboard(600);
CREATE TABLE fc_models AS
SELECT bk_train(features, label, '{"gamma": 20}' ORDER BY bk_shuffle_key(id, 1)) AS bin,
       bk_train(features, CASE label WHEN 1 THEN 'cat' ELSE 'dog' END, '{"gamma": 20}'
                ORDER BY bk_shuffle_key(id, 1)) AS text_binary,
       bk_train(features, 1::int8, '{"gamma": 20}' ORDER BY id) FILTER (WHERE id <= 50) AS one_class,
       bk_train(features, label, '{"gamma": 20, "classes": [-1, 1]}' ORDER BY id) AS declared
FROM fc_rows;

-- one mistyped label among good rows: an error that names it
SELECT bk_continue(features, CASE WHEN id = 350 THEN 7 ELSE label END, (SELECT bin FROM fc_models) ORDER BY id)
FROM fc_rows WHERE id > 300;
SELECT bk_continue(features, CASE WHEN id = 350 THEN 'dgo' WHEN label = 1 THEN 'cat' ELSE 'dog' END,
                   (SELECT text_binary FROM fc_models) ORDER BY id)
FROM fc_rows WHERE id > 300;
-- the same with an empty overrides document
SELECT bk_continue(features, CASE WHEN id = 350 THEN 7 ELSE label END, (SELECT bin FROM fc_models), '{}' ORDER BY id)
FROM fc_rows WHERE id > 300;

-- known labels: continued as before, with or without overrides, to the same model
SELECT bk_continue(features, label, (SELECT bin FROM fc_models) ORDER BY id)
     = bk_continue(features, label, (SELECT bin FROM fc_models), '{"allow_new_classes": false}' ORDER BY id) AS same_model
FROM fc_rows WHERE id > 300;

-- allowed: the label becomes a third class
SELECT bk_info(bk_continue(features, CASE WHEN id % 50 = 0 THEN 7 ELSE label END, (SELECT bin FROM fc_models),
                           '{"allow_new_classes": true}' ORDER BY id))->'classes' AS classes
FROM fc_rows WHERE id > 300;
SELECT bk_info(bk_continue(features, CASE WHEN id % 50 = 0 THEN 'bird' WHEN label = 1 THEN 'cat' ELSE 'dog' END,
                           (SELECT text_binary FROM fc_models), '{"allow_new_classes": true}' ORDER BY id))->'classes' AS classes
FROM fc_rows WHERE id > 300;

-- a one-class model takes its second class without overrides
SELECT bk_info(bk_continue(features, label, (SELECT one_class FROM fc_models) ORDER BY id))->'classes' AS classes
FROM fc_rows WHERE id > 50;

-- declared classes stay fixed, overrides or not
SELECT bk_continue(features, CASE WHEN id = 350 THEN 7 ELSE label END, (SELECT declared FROM fc_models),
                   '{"allow_new_classes": true}' ORDER BY id)
FROM fc_rows WHERE id > 300;

-- the overrides document is checked
SELECT bk_continue(features, label, (SELECT bin FROM fc_models), '{"budget": 80}' ORDER BY id) FROM fc_rows;
SELECT bk_continue(features, label, (SELECT bin FROM fc_models), '{"allow_new_classes": "yes"}' ORDER BY id) FROM fc_rows;
SELECT bk_continue(features, label, (SELECT bin FROM fc_models), '[true]' ORDER BY id) FROM fc_rows;
SELECT bk_continue(features, label, (SELECT bin FROM fc_models), NULL ORDER BY id) FROM fc_rows;
DROP TABLE fc_rows, fc_models;
