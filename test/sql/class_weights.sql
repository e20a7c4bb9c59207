--
-- Class weights: "class_weight": {"<label>": w} or "balanced" makes the
-- loss of a row of class c count w_c times.  Every learner moves its
-- boundary toward the class weighed down (more rows predicted as the class
-- weighed up), weights of 1 change nothing, the weights travel with the
-- model (bk_info, bytea, bk_continue, bk_merge), and bad weights are
-- refused with 22023.
--
\i test/fixtures/checkerboard.sql
-- an imbalanced stream: every -1, one in five of the 1s
CREATE TABLE cw_rows AS SELECT * FROM bk_test.checkerboard(1600) WHERE label = -1 OR id % 5 = 0;
CREATE TABLE cw_grid AS SELECT * FROM bk_test.checkerboard(3000) WHERE id > 1600;
CREATE TABLE cw_algs (alg text, p jsonb);
INSERT INTO cw_algs VALUES
  ('perceptron', '{}'), ('pa', '{"C": 0.5}'),
  ('bpa', '{"variant": "s", "C": 0.5, "budget": 40}'), ('bpa', '{"variant": "nn", "C": 0.5, "budget": 40}'),
  ('bpa', '{"variant": "p", "C": 0.5, "budget": 40}'), ('pegasos', '{"budget": 40}'),
  ('stoptron', '{"budget": 40}'), ('rbp', '{"budget": 40}'), ('pa_random', '{"C": 0.5, "budget": 40}'),
  ('budget_perceptron', '{"budget": 40}'), ('tighter_budget_perceptron', '{"budget": 40}'),
  ('spa', '{"alpha": 5}'), ('ogd', '{}'), ('duol', '{"C": 0.5}'), ('bduol', '{"C": 0.5, "budget": 40}'),
  ('bogd', '{"budget": 40}'), ('forgetron', '{"budget": 40}'), ('projectron', '{"budget": 40}'),
  ('projectron_pp', '{"budget": 40}');
SET client_min_messages = error;	-- the unweighted runs warn of the imbalance
CREATE TABLE cw_models AS
SELECT alg, p,
       bk_train(features, label, p || jsonb_build_object('algorithm', alg, 'gamma', 20)
                ORDER BY bk_shuffle_key(id, 3)) AS plain,
       bk_train(features, label, p || jsonb_build_object('algorithm', alg, 'gamma', 20,
                                                          'class_weight', '{"-1": 1, "1": 1}'::jsonb)
                ORDER BY bk_shuffle_key(id, 3)) AS ones,
       bk_train(features, label, p || jsonb_build_object('algorithm', alg, 'gamma', 20,
                                                          'class_weight', '{"1": 5}'::jsonb)
                ORDER BY bk_shuffle_key(id, 3)) AS weighted,
       bk_train(features, label, p || jsonb_build_object('algorithm', alg, 'gamma', 20,
                                                          'class_weight', 'balanced')
                ORDER BY bk_shuffle_key(id, 3)) AS balanced
FROM cw_rows, cw_algs GROUP BY alg, p;
RESET client_min_messages;

-- every learner: weighing the 1s up predicts more 1s; weights of 1 are no weights
SELECT alg, p::text,
       count(*) FILTER (WHERE bk_predict(weighted, features) = 1) >
       count(*) FILTER (WHERE bk_predict(plain, features) = 1) AS weighted_more_ones,
       count(*) FILTER (WHERE bk_predict(balanced, features) = 1) >
       count(*) FILTER (WHERE bk_predict(plain, features) = 1) AS balanced_more_ones,
       bool_and(bk_decision(ones, features) = bk_decision(plain, features)) AS ones_same_decisions,
       bool_and(bk_is_valid(weighted::bytea) AND bk_is_valid(balanced::bytea) AND bk_is_valid(ones::bytea)) AS valid,
       bool_and(weighted::bytea::bk_model::bytea = weighted::bytea AND balanced::bytea::bk_model::bytea = balanced::bytea) AS bytes_round_trip
FROM cw_models, cw_grid GROUP BY alg, p ORDER BY alg, p::text;

-- bk_info shows the weights (absent without them)
SELECT bk_info(weighted)->'params'->'class_weight' AS weighted,
       bk_info(balanced)->'params'->'class_weight' AS balanced,
       bk_info(plain)->'params' ? 'class_weight' AS plain_has_key
FROM cw_models WHERE alg = 'pa';

SET client_min_messages = error;	-- the runs below warn of the imbalance
-- text labels
SELECT bk_info(bk_train(features, CASE label WHEN 1 THEN 'rare' ELSE 'common' END,
                        '{"gamma": 20, "class_weight": {"rare": 4.5}}' ORDER BY id))->'params'->'class_weight' AS text_weights
FROM cw_rows;

-- bk_continue: the weights go on, or change, or go
SELECT bk_info(bk_continue(features, label, (SELECT weighted FROM cw_models WHERE alg = 'pa') ORDER BY id))->'params'->'class_weight' AS kept,
       bk_info(bk_continue(features, label, (SELECT weighted FROM cw_models WHERE alg = 'pa'),
                           '{"class_weight": "balanced"}' ORDER BY id))->'params'->'class_weight' AS changed,
       bk_info(bk_continue(features, label, (SELECT weighted FROM cw_models WHERE alg = 'pa'),
                           '{"class_weight": "none"}' ORDER BY id))->'params' ? 'class_weight' AS removed_has_key,
       bk_info(bk_continue(features, label, (SELECT plain FROM cw_models WHERE alg = 'pa'),
                           '{"class_weight": {"1": 2}}' ORDER BY id))->'params'->'class_weight' AS added
FROM cw_rows WHERE id > 800;

-- merging: the same weights merge; different ones are refused
SELECT bk_info(bk_merge(m))->'params'->'class_weight' AS merged
FROM (SELECT bk_train(features, label, '{"algorithm": "bpa", "gamma": 20, "class_weight": {"1": 3}}' ORDER BY id) AS m
      FROM cw_rows GROUP BY id % 2) s;
SELECT bk_merge(m)
FROM (SELECT bk_train(features, label, jsonb_build_object('gamma', 20, 'class_weight', jsonb_build_object('1', 2 + id % 2)) ORDER BY id) AS m
      FROM cw_rows GROUP BY id % 2) s;

-- a search over class weights: balanced is the best setting for the balanced accuracy
SELECT (array_agg(params->>'class_weight' ORDER BY mean DESC))[1] AS best
FROM bk_cross_validate('cw_rows', 'features', 'label', 'id',
                       '{"grid": {"algorithm": "pa", "gamma": 20, "C": 0.5, "class_weight": ["none", "balanced", {"-1": 3}]}, "folds": 3, "metric": "balanced_accuracy"}');
RESET client_min_messages;
-- refused: 22023
SELECT bk_train(features, label, '{"class_weight": {"1": 0}}') FROM cw_rows;
SELECT bk_train(features, label, '{"class_weight": {"1": -2}}') FROM cw_rows;
SELECT bk_train(features, label, '{"class_weight": {"1": "10"}}') FROM cw_rows;
SELECT bk_train(features, label, '{"class_weight": {"one": 10}}') FROM cw_rows;
SELECT bk_train(features, label, '{"class_weight": {"1": 2, "01": 3}}') FROM cw_rows;
SELECT bk_train(features, label, '{"class_weight": "heavy"}') FROM cw_rows;
SELECT bk_train(features, label, '{"class_weight": [1, 10]}') FROM cw_rows;
SELECT bk_continue(features, label, (SELECT plain FROM cw_models WHERE alg = 'pa'), '{"class_weight": {"1": 1e9}}') FROM cw_rows;

DROP TABLE cw_rows, cw_grid, cw_algs, cw_models;
