--
-- bk_cross_validate with no grid and "refit": true on a regression target
-- (doc/refit.md, "The search's final regressor"): the model returned is
-- the chosen setting trained on every row with its coefficients solved
-- again over its support vectors (bk_refit), at the ridge lambda that the
-- search's own folds score best, because that beats the online model's
-- cross-validated score.  Proved by redoing the folds' refits by hand, in
-- the search's order (its seeded shuffle of the key's text, rows dealt to
-- the three folds in turn), and rebuilding the model byte for byte.
--
SET client_min_messages = warning;
CREATE TABLE hill AS
SELECT i AS id,
       ARRAY[(i % 37) / 37.0, ((i * 7) % 23) / 23.0]::float8[] AS x,
       sin(6 * (i % 37) / 37.0) + 2 * (((i * 7) % 23) / 23.0) ^ 2
         + ((i * 13) % 11 - 5) * 0.02 AS y
FROM generate_series(1, 300) AS i;
CREATE TABLE hill_search AS
SELECT * FROM bk_cross_validate('hill', 'x', 'y', 'id', '{"refit": true}');

-- the search's rows: their order and their folds
CREATE TABLE hill_ordered AS
SELECT x, y, k, kt, (row_number() OVER (ORDER BY k, kt) - 1) % 3 AS fold
FROM (SELECT x, y, bk_shuffle_key(hashtextextended(id::text, 0), 0) AS k, id::text AS kt
      FROM hill) AS keyed;

-- each fold's model of the chosen setting, refit at each lambda on the
-- fold's training rows, scored (R^2) on the fold held out
CREATE TABLE hill_lambdas AS
SELECT l.lam, avg((SELECT (bk_metrics(o.y, bk_predict_value(r.model, o.x))->>'r2')::float8
                   FROM hill_ordered o WHERE o.fold = r.fold)) AS mean
FROM unnest('{1e-6, 1e-5, 1e-4, 1e-3}'::float8[]) AS l(lam),
     LATERAL (SELECT f.fold,
                     (SELECT bk_refit(fm.model, o.x, o.y, jsonb_build_object('lambda', l.lam) ORDER BY o.k, o.kt)
                      FROM hill_ordered o WHERE o.fold <> f.fold) AS model
              FROM generate_series(0, 2) AS f(fold),
                   LATERAL (SELECT bk_train(o.x, o.y, s.params ORDER BY o.k, o.kt) AS model
                            FROM hill_ordered o, (SELECT params FROM hill_search LIMIT 1) AS s
                            WHERE o.fold <> f.fold) AS fm) AS r
GROUP BY l.lam;

SELECT bk_info(s.model)->>'task' AS task,
       jsonb_array_length(bk_info(s.model)->'parents') AS parents,
       bk_is_valid(s.model::bytea) AS valid,
       (SELECT max(mean) FROM hill_lambdas) > s.mean AS refit_beats_online,
       md5(s.model::bytea) = (
           SELECT md5(bk_refit(t.model, o.x, o.y, jsonb_build_object('lambda', b.lam) ORDER BY o.k, o.kt)::bytea)
           FROM hill_ordered o,
                (SELECT bk_train(o2.x, o2.y, s.params ORDER BY o2.k, o2.kt) AS model FROM hill_ordered o2) AS t,
                (SELECT lam FROM hill_lambdas ORDER BY mean DESC, lam DESC LIMIT 1) AS b
       ) AS refit_at_the_folds_lambda,
       md5(s.model::bytea) <> (
           SELECT md5(bk_train(o.x, o.y, s.params ORDER BY o.k, o.kt)::bytea) FROM hill_ordered o
       ) AS not_the_online_model
FROM (SELECT * FROM hill_search LIMIT 1) AS s;

-- without refit, no model
SELECT count(model) AS models FROM bk_cross_validate('hill', 'x', 'y', 'id');

DROP TABLE hill, hill_search, hill_ordered, hill_lambdas;
RESET client_min_messages;
