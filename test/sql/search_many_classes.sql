--
-- bk_cross_validate with no grid and "refit": true on more than ten
-- classes (doc/functions.md, "The search without a grid"): the model
-- trained on every row has 90 support vectors a class, not the budget the
-- search cross-validated, and its coefficients are solved again over
-- them (bk_refit).  Proved by rebuilding that model by hand, in the
-- search's order (its seeded shuffle of the key's text), byte for byte;
-- and ten classes keep the model of the setting chosen.
--
SET client_min_messages = warning;
CREATE TABLE ring AS
SELECT i AS id,
       ARRAY[cos(2 * pi() * (i % 11) / 11) + (i % 7) * 0.03,
             sin(2 * pi() * (i % 11) / 11) - (i % 5) * 0.03]::float8[] AS x,
       (i % 11)::int8 AS y
FROM generate_series(1, 330) AS i;
CREATE TABLE ring_search AS
SELECT * FROM bk_cross_validate('ring', 'x', 'y', 'id', '{"refit": true}');

-- the search's order of the rows: its shuffle of each key's text
CREATE VIEW ring_ordered AS
SELECT x, y, bk_shuffle_key(hashtextextended(id::text, 0), 0) AS k, id::text AS kt FROM ring;

SELECT s.params->>'algorithm' AS algorithm,
       (s.params->>'budget')::int < 990 AS searched_below_90_a_class,
       (bk_info(s.model)->'params'->>'budget')::int AS model_budget,
       bk_is_valid(s.model::bytea) AS valid,
       md5(s.model::bytea) = (
           SELECT md5(bk_refit(t.model, o.x, o.y, NULL::jsonb ORDER BY o.k, o.kt)::bytea)
           FROM ring_ordered o,
                (SELECT bk_train(o2.x, o2.y, s.params || '{"budget": 990}' ORDER BY o2.k, o2.kt) AS model
                 FROM ring_ordered o2) AS t
       ) AS trained_at_990_and_refit
FROM (SELECT * FROM ring_search LIMIT 1) AS s;

-- ten classes: the model is the chosen setting trained on every row
CREATE TABLE ring10 AS SELECT * FROM ring WHERE y < 10;
CREATE TABLE ring10_search AS
SELECT * FROM bk_cross_validate('ring10', 'x', 'y', 'id', '{"refit": true}');
CREATE VIEW ring10_ordered AS
SELECT x, y, bk_shuffle_key(hashtextextended(id::text, 0), 0) AS k, id::text AS kt FROM ring10;
SELECT md5(s.model::bytea) = (
           SELECT md5(bk_train(o.x, o.y, s.params ORDER BY o.k, o.kt)::bytea) FROM ring10_ordered o
       ) AS the_chosen_setting
FROM (SELECT * FROM ring10_search LIMIT 1) AS s;

DROP VIEW ring_ordered, ring10_ordered;
DROP TABLE ring, ring_search, ring10, ring10_search;
RESET client_min_messages;
