--
-- Multi-class models: one-vs-rest binary learners, multi-class Pegasos on
-- a budget (paper 004), text labels, declared classes, bk_scores and
-- bk_predict_label.
--
SET client_min_messages = warning;
\set SHOW_CONTEXT never

-- three classes on [0,1)^2: (floor(3x) + floor(3y)) mod 3, on the
-- fixture's deterministic grid
\i test/fixtures/checkerboard.sql
\i test/fixtures/without_parents.sql
CREATE TABLE pts AS
SELECT id, features, ((floor(3 * features[1]) + floor(3 * features[2]))::int % 3)::int8 AS label,
       (ARRAY['red', 'green', 'blue'])[1 + (floor(3 * features[1]) + floor(3 * features[2]))::int % 3] AS name
FROM bk_test.checkerboard(3000);

CREATE TABLE cfg (name text, params jsonb);
INSERT INTO cfg VALUES
  ('bpa-nn one-vs-rest',       '{"algorithm": "bpa", "variant": "nn", "budget": 40, "gamma": 20}'),
  ('pa one-vs-rest',           '{"algorithm": "pa", "gamma": 20}'),
  ('perceptron one-vs-rest',   '{"algorithm": "perceptron", "gamma": 20}'),
  ('pegasos none',             '{"algorithm": "pegasos", "maintenance": "none", "gamma": 20}'),
  ('pegasos random',           '{"algorithm": "pegasos", "maintenance": "random", "budget": 40, "gamma": 20, "seed": 7}'),
  ('pegasos smallest',         '{"algorithm": "pegasos", "maintenance": "smallest", "budget": 40, "gamma": 20}'),
  ('pegasos projection',       '{"algorithm": "pegasos", "maintenance": "projection", "budget": 40, "gamma": 20}'),
  ('pegasos projection_best',  '{"algorithm": "pegasos", "maintenance": "projection_best", "budget": 40, "gamma": 20}'),
  ('pegasos merge',            '{"algorithm": "pegasos", "maintenance": "merge", "budget": 40, "gamma": 20}'),
  ('pegasos linear',           '{"algorithm": "pegasos", "kernel": "linear", "budget": 40}');

CREATE TABLE m AS
SELECT c.name, c.params,
       (SELECT bk_train(features, label, c.params ORDER BY id) FROM pts) AS model,
       (SELECT bk_train(features, label, c.params ORDER BY id) FROM pts WHERE id <= 1500) AS half
FROM cfg c;

-- layout, budget per machine, determinism and continued training
SELECT name,
       (bk_info(model)->>'n_machines')::int AS machines,
       bk_info(model)->'classes' AS classes,
       (bk_info(model)->>'n_sv')::int <= coalesce((bk_info(model)->>'budget')::int * (bk_info(model)->>'n_machines')::int, 100000) AS within_budget,
       (SELECT bk_train(features, label, params ORDER BY id) FROM pts)::bytea = model::bytea AS deterministic,
       bk_test.without_parents((SELECT bk_continue(p.features, p.label, half ORDER BY p.id) FROM pts p WHERE p.id > 1500))
         = bk_test.without_parents(model) AS warm_start_identical,
       bk_info(model)->'params'->>'maintenance' AS maintenance
FROM m ORDER BY name;

-- merge keeps the budget exactly; every strategy learns the three classes
SELECT name, (bk_info(model)->>'n_sv')::int AS n_sv FROM m WHERE name = 'pegasos merge';
SELECT name, (SELECT avg((bk_predict(model, features) = label)::int) FROM pts) > 0.8 AS fits
FROM m WHERE name NOT IN ('pegasos linear', 'pegasos random', 'pegasos smallest') ORDER BY name;
-- (a linear kernel cannot separate these classes)

-- projection and merging degrade w less than removal (paper 004 §4)
SELECT name, (bk_info(model)->>'weight_degradation')::float8 < (SELECT (bk_info(model)->>'weight_degradation')::float8
                                                                FROM m WHERE name = 'pegasos smallest') AS less_than_smallest
FROM m WHERE name IN ('pegasos projection', 'pegasos projection_best', 'pegasos merge') ORDER BY name;

-- bk_scores: one per class in bk_info order; bk_decision needs <= 2 classes
SELECT array_length(bk_scores(model, ARRAY[0.5, 0.5]), 1) AS n_scores FROM m WHERE name = 'pegasos merge';
SELECT bk_decision(model, ARRAY[0.5, 0.5]) FROM m WHERE name = 'pegasos merge';
SELECT bk_predict_label(model, ARRAY[0.1, 0.1]) AS label_as_text FROM m WHERE name = 'pegasos merge';

-- bk_support_vectors gives each SV's contribution to every class's score
SELECT name, s.coef_len, s.n = (bk_info(model)->>'n_sv')::int AS all_svs
FROM m, LATERAL (SELECT min(array_length(coef, 1)) AS coef_len, count(*)::int AS n
                 FROM bk_support_vectors(model)) s
WHERE name IN ('bpa-nn one-vs-rest', 'pegasos merge') ORDER BY name;

-- a binary model becomes one-vs-rest when a third class arrives mid-stream
SELECT (bk_info(mm)->>'n_machines')::int AS machines, bk_info(mm)->'classes' AS classes
FROM (SELECT bk_train(features, label, '{"budget": 20, "gamma": 20}' ORDER BY o) AS mm
      FROM (SELECT features, label, CASE WHEN label = 2 THEN id + 10000 ELSE id END AS o FROM pts) s) t;

-- text labels
CREATE TABLE tm AS
SELECT bk_train(features, name, '{"algorithm": "pegasos", "budget": 40, "gamma": 20}' ORDER BY id) AS model,
       bk_train(features, name, '{"algorithm": "pegasos", "budget": 40, "gamma": 20, "classes": ["red", "green", "blue"]}' ORDER BY id) AS declared
FROM pts;
SELECT bk_info(model)->'label_type' AS label_type, bk_info(model)->'classes' AS classes,
       bk_info(declared)->'classes' AS declared_classes, bk_info(declared)->'classes_declared' AS is_declared
FROM tm;
SELECT (SELECT avg((bk_predict_label(model, features) = name)::int) FROM pts) > 0.9 AS text_labels_learn,
       model::text::bk_model::bytea = model::bytea AS text_round_trip
FROM tm;
SELECT bk_predict(model, ARRAY[0.5, 0.5]) FROM tm;
-- a text-labelled model continues with text labels only
SELECT bk_continue(features, label, model) FROM pts, tm WHERE id = 1;
SELECT bk_info(bk_continue(features, name, model ORDER BY id))->>'rows_seen' AS rows_seen FROM pts, tm WHERE id <= 10;

-- Pegasos parameters
SELECT bk_train(ARRAY[1,2]::float8[], 1::int8, '{"algorithm": "pegasos", "kernel": "linear", "maintenance": "merge"}');
SELECT bk_train(ARRAY[1,2]::float8[], 1::int8, '{"algorithm": "pegasos", "maintenance": "none", "budget": 10}');
SELECT bk_train(ARRAY[1,2]::float8[], 1::int8, '{"algorithm": "pegasos", "maintenance": "merge", "max_sv": 10}');
SELECT bk_train(ARRAY[1,2]::float8[], 1::int8, '{"algorithm": "pegasos", "lambda": 0}');
SELECT bk_train(ARRAY[1,2]::float8[], 1::int8, '{"algorithm": "pegasos", "C": 1}');
SELECT bk_train(ARRAY[1,2]::float8[], 1::int8, '{"algorithm": "bpa", "maintenance": "merge"}');
SELECT bk_info(bk_train(ARRAY[1,2]::float8[], 1::int8, '{"algorithm": "pegasos"}'))->'params';
SELECT bk_info(bk_train(ARRAY[1,2]::float8[], 1::int8, '{"algorithm": "pegasos", "kernel": "poly"}'))->'params';

-- the projection onto the ball of radius 1/sqrt(lambda) (Algorithm 1, line 8)
SELECT (SELECT avg((bk_predict(mb, features) = label)::int) FROM pts) > 0.8 AS ball_learns,
       bk_info(mb)->'params'->'ball_projection' AS ball_projection
FROM (SELECT bk_train(features, label, '{"algorithm": "pegasos", "budget": 40, "gamma": 20, "lambda": 0.001, "ball_projection": true}' ORDER BY id) AS mb FROM pts) s;
SELECT bk_train(ARRAY[1,2]::float8[], 1::int8, '{"algorithm": "pegasos", "ball_projection": 1}');
SELECT bk_train(ARRAY[1,2]::float8[], 1::int8, '{"algorithm": "bpa", "ball_projection": true}');

DROP TABLE pts, cfg, m, tm;
