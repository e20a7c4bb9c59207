--
-- test/upgrade/models.sql - a database holding models of every kind, and
-- what each must still be after pg_upgrade or a dump restored into another
-- major (test/pg_upgrade.sh): its bytes (md5) and its decisions on fixed
-- rows.  Run in a fresh database of the old cluster, or in one where an
-- older version of the extension is installed (test/sql/upgrade.sql).
--
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
CREATE EXTENSION IF NOT EXISTS budgetkernel;
\i test/fixtures/checkerboard.sql
-- (the WARNINGs of runs that learn little are not the point here)
SET client_min_messages = error;

CREATE TABLE pts AS SELECT * FROM bk_test.checkerboard(900);
-- three classes, as integers and as text
CREATE TABLE pts3 AS
SELECT id, features, (floor(3 * features[1]))::int8 AS label,
       (ARRAY['low', 'mid', 'high'])[1 + floor(3 * features[1])::int] AS name
FROM pts;
CREATE FUNCTION named_row(f float8[]) RETURNS jsonb LANGUAGE sql IMMUTABLE AS
$$ SELECT jsonb_build_object('u', f[1], 'v', f[2], 'side', CASE WHEN f[1] < 0.5 THEN 'left' ELSE 'right' END) $$;

-- features: 'dense' (float8[]), 'named' (named_row's jsonb) or 'sparse'
CREATE TABLE models (name text PRIMARY KEY, features text NOT NULL, model bk_model NOT NULL);

-- every learner, binary, on dense rows
INSERT INTO models
SELECT a.name, 'dense', (SELECT bk_train(features, label, a.params ORDER BY id) FROM pts)
FROM (VALUES
	('perceptron', '{"algorithm": "perceptron", "gamma": 20, "max_sv": 1000}'::jsonb),
	('pa', '{"algorithm": "pa", "gamma": 20, "max_sv": 1000}'),
	('bpa-s', '{"algorithm": "bpa", "variant": "s", "budget": 30, "gamma": 20}'),
	('bpa-nn', '{"algorithm": "bpa", "variant": "nn", "loss": "ramp", "budget": 30, "gamma": 20}'),
	('bpa-p', '{"algorithm": "bpa", "variant": "p", "budget": 30, "gamma": 20}'),
	('pegasos', '{"algorithm": "pegasos", "budget": 30, "gamma": 20, "seed": 3}'),
	('stoptron', '{"algorithm": "stoptron", "budget": 30, "gamma": 20}'),
	('rbp', '{"algorithm": "rbp", "budget": 30, "gamma": 20, "seed": 3}'),
	('pa_random', '{"algorithm": "pa_random", "budget": 30, "gamma": 20, "seed": 3}'),
	('budget_perceptron', '{"algorithm": "budget_perceptron", "budget": 30, "gamma": 20}'),
	('tighter_budget_perceptron', '{"algorithm": "tighter_budget_perceptron", "budget": 30, "gamma": 20}'),
	('spa', '{"algorithm": "spa", "gamma": 20, "max_sv": 1000, "seed": 3}'),
	('ogd', '{"algorithm": "ogd", "gamma": 20, "max_sv": 1000}'),
	('duol', '{"algorithm": "duol", "gamma": 20, "max_sv": 1000}'),
	('bduol', '{"algorithm": "bduol", "budget": 30, "gamma": 20}'),
	('bogd', '{"algorithm": "bogd", "budget": 30, "gamma": 20, "seed": 3}'),
	('forgetron', '{"algorithm": "forgetron", "budget": 30, "gamma": 20}'),
	('projectron', '{"algorithm": "projectron", "budget": 30, "gamma": 20}'),
	('projectron_pp', '{"algorithm": "projectron_pp", "budget": 30, "gamma": 20}')) a(name, params);

-- multi-class (one-vs-rest and Pegasos), text labels, epochs, class
-- weights, a polynomial kernel, standardised features
INSERT INTO models
SELECT 'ovr-int', 'dense', bk_train(features, label, '{"budget": 20, "gamma": 5}' ORDER BY id) FROM pts3
UNION ALL
SELECT 'pegasos-text', 'dense', bk_train(features, name, '{"algorithm": "pegasos", "budget": 20, "gamma": 5, "maintenance": "merge"}' ORDER BY id) FROM pts3
UNION ALL
SELECT 'bpa-text', 'dense', bk_train(features, name, '{"budget": 20, "gamma": 5}' ORDER BY id) FROM pts3
UNION ALL
SELECT 'epochs', 'dense', bk_train(features, label, '{"budget": 30, "gamma": 20, "epochs": 3, "seed": 5}' ORDER BY id) FROM pts
UNION ALL
SELECT 'class-weights', 'dense', bk_train(features, label, '{"budget": 30, "gamma": 20, "class_weight": "balanced"}' ORDER BY id) FROM pts WHERE label = 1 OR id % 3 = 0
UNION ALL
SELECT 'poly', 'dense', bk_train(features, label, '{"algorithm": "pa", "kernel": "poly", "degree": 3, "max_sv": 1000}' ORDER BY id) FROM pts
UNION ALL
SELECT 'scaled', 'dense', bk_train(features, label, '{"budget": 30, "gamma": 2, "scale": "standard"}' ORDER BY id) FROM pts;

-- named features (a preparation with one-hot text) and sparse rows
INSERT INTO models
SELECT 'named', 'named', bk_train(named_row(features), label, '{"budget": 30, "gamma": 2}' ORDER BY id) FROM pts
UNION ALL
SELECT 'sparse', 'sparse', bk_train(bk_sparse(ARRAY[1, 2], features, 2), label, '{"budget": 30, "gamma": 20}' ORDER BY id) FROM pts;

-- continued, merged, calibrated
INSERT INTO models
SELECT 'continued', 'dense', bk_continue(p.features, p.label, m.model ORDER BY p.id)
FROM pts p, models m WHERE m.name = 'bpa-nn' AND p.id <= 300;
INSERT INTO models
SELECT 'merged', 'dense', bk_merge(part ORDER BY h)
FROM (SELECT id % 2 AS h, bk_train(features, label, '{"budget": 30, "gamma": 20}' ORDER BY id) AS part
      FROM pts GROUP BY id % 2) s;
INSERT INTO models
SELECT 'calibrated', 'dense', bk_calibrate(m.model, p.features, p.label)
FROM pts p, models m WHERE m.name = 'bpa-p' AND p.id > 600;

-- every class score of a model on every 7th row, and what every copy must
-- keep
CREATE FUNCTION scored(model bk_model, form text) RETURNS TABLE (id int, scores float8[])
LANGUAGE sql STABLE AS $$
	SELECT p.id, CASE form
	               WHEN 'named' THEN bk_scores(model, named_row(p.features))
	               WHEN 'sparse' THEN bk_scores(model, bk_sparse(ARRAY[1, 2], p.features, 2))
	               ELSE bk_scores(model, p.features) END
	FROM pts p WHERE p.id % 7 = 0
$$;
CREATE TABLE reference AS
SELECT name, md5(model::bytea) AS bytes_md5, decisions
FROM models m, LATERAL (SELECT array_agg(scores::text ORDER BY id) AS decisions FROM scored(m.model, m.features)) d;
SELECT count(*) AS models FROM models;
