--
-- bk_cross_validate with no grid on more than two classes
-- (doc/functions.md, "The search without a grid"): multi-class Pegasos
-- holds one set of support vectors for all the classes, and its budget
-- grows with them: 100, 300 and 900 in the rounds up to ten classes,
-- 10, 30 and 90 a class beyond, 2,700 at most (30 classes).  Rings of
-- 3, 10, 11 and 40 classes: the budget of every setting the search
-- returns.  With "refit": true on more than ten classes the model trained
-- on every row at the chosen setting has its coefficients solved again
-- over its support vectors (bk_refit): proved by rebuilding that model by
-- hand, in the search's order (its seeded shuffle of the key's text),
-- byte for byte; and ten classes keep the model of the setting chosen.
-- (The rings' WARNINGs, a gamma at the end of its range and a feature that
-- gives the label, are not the point here: hidden.)
--
SET client_min_messages = error;
CREATE TABLE rings AS
SELECT k AS classes, i AS id,
       ARRAY[cos(2 * pi() * (i % k) / k) + (i % 7) * 0.03,
             sin(2 * pi() * (i % k) / k) - (i % 5) * 0.03]::float8[] AS x,
       (i % k)::int8 AS y
FROM (VALUES (3), (10), (11), (40)) AS c(k),
     generate_series(1, CASE WHEN k > 11 THEN 12 * k ELSE 330 END) AS i;
CREATE TABLE ring_searches AS
SELECT c.classes, s.*
FROM (VALUES (3), (10), (11), (40)) AS c(classes),
     LATERAL bk_cross_validate(format('SELECT id, x, y FROM rings WHERE classes = %s', c.classes),
                               'x', 'y', 'id', '{"refit": true}') AS s;

-- the budget grows with the classes, the same in every setting returned
SELECT classes, count(*) AS settings,
       min(params->>'algorithm') AS algorithm,
       min((params->>'budget')::int) AS budget,
       max((params->>'budget')::int) = min((params->>'budget')::int) AS one_budget,
       min((params->>'budget')::int) / classes AS a_class
FROM ring_searches
GROUP BY classes
ORDER BY classes;

-- the search's order of the rows: its shuffle of each key's text
CREATE VIEW ring_ordered AS
SELECT classes, x, y, bk_shuffle_key(hashtextextended(id::text, 0), 0) AS k, id::text AS kt FROM rings;

-- more than ten classes: the chosen setting trained on every row, refit
SELECT s.classes,
       (bk_info(s.model)->'params'->>'budget')::int AS model_budget,
       bk_is_valid(s.model::bytea) AS valid,
       md5(s.model::bytea) = (
           SELECT md5(bk_refit(t.model, o.x, o.y, NULL::jsonb ORDER BY o.k, o.kt)::bytea)
           FROM ring_ordered o,
                (SELECT bk_train(o2.x, o2.y, s.params ORDER BY o2.k, o2.kt) AS model
                 FROM ring_ordered o2 WHERE o2.classes = s.classes) AS t
           WHERE o.classes = s.classes
       ) AS trained_and_refit
FROM ring_searches s
WHERE s.classes > 10 AND s.model IS NOT NULL
ORDER BY s.classes;

-- ten classes or fewer: the model is the chosen setting trained on every row
SELECT s.classes,
       md5(s.model::bytea) = (
           SELECT md5(bk_train(o.x, o.y, s.params ORDER BY o.k, o.kt)::bytea)
           FROM ring_ordered o WHERE o.classes = s.classes
       ) AS the_chosen_setting
FROM ring_searches s
WHERE s.classes <= 10 AND s.model IS NOT NULL
ORDER BY s.classes;

DROP VIEW ring_ordered;
DROP TABLE rings, ring_searches;
RESET client_min_messages;
