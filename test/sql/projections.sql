--
-- The ridge of K^-1 ("ridge", default 1e-6) of the learners that project
-- onto their support vectors: BPA-P, Pegasos' projection and
-- projection_best, the Projectrons.  On a numerically low-rank kernel (the
-- checkerboard's two features with gamma = 4) the exact inverse ("ridge":
-- 0, the papers' equations) stalls at the same few support vectors
-- whatever the budget; with the ridge the budgets fill.
--
SET client_min_messages = error;
CREATE TEMP TABLE raw (id bigserial, line text);
\copy raw(line) FROM '../shared/data/checkerboard.train'
CREATE TEMP TABLE proj_train AS
SELECT id, (bk_libsvm(line, 2)).label AS label, (bk_libsvm(line, 2)).features AS features FROM raw;

CREATE TEMP TABLE proj_runs AS
SELECT v.name, b.budget, r.ridge,
       (SELECT bk_train(features, label,
                        v.params || jsonb_build_object('budget', b.budget, 'ridge', r.ridge, 'gamma', 4)
                        ORDER BY bk_shuffle_key(id, 1))
        FROM proj_train) AS model
FROM (VALUES ('bpa-p', '{"algorithm": "bpa", "variant": "p"}'::jsonb),
             ('pegasos projection', '{"algorithm": "pegasos", "maintenance": "projection"}'),
             ('pegasos projection_best', '{"algorithm": "pegasos", "maintenance": "projection_best"}'),
             ('projectron', '{"algorithm": "projectron"}')) v(name, params),
     (VALUES (100), (200)) b(budget),
     (VALUES (0), (1e-6)) r(ridge);
SELECT name, budget, ridge, (bk_info(model)->>'n_sv')::int = budget AS budget_full,
       bk_info(model)->'params'->'ridge' AS stored_ridge
FROM proj_runs ORDER BY name, ridge, budget;
-- the default is 1e-6, stored with the model
SELECT bk_info(bk_train(features, label, '{"algorithm": "bpa", "variant": "p", "budget": 5}'))->'params'->'ridge' AS default_ridge
FROM proj_train WHERE id <= 50;

-- "ridge" belongs to the learners that keep K^-1, within [0, 0.01]
SET client_min_messages = warning;
SELECT bk_train(features, label, '{"algorithm": "bpa", "variant": "nn", "ridge": 0}') FROM proj_train;
SELECT bk_train(features, label, '{"algorithm": "pegasos", "maintenance": "merge", "ridge": 0}') FROM proj_train;
SELECT bk_train(features, label, '{"algorithm": "bpa", "variant": "p", "ridge": 0.5}') FROM proj_train;
SELECT bk_train(features, label, '{"algorithm": "bpa", "variant": "p", "ridge": -1}') FROM proj_train;
-- a merge refuses models of different ridges
SELECT bk_merge(a.model, b.model) FROM proj_runs a, proj_runs b
WHERE a.name = 'bpa-p' AND b.name = 'bpa-p' AND a.budget = 100 AND b.budget = 100 AND a.ridge = 0 AND b.ridge > 0;
