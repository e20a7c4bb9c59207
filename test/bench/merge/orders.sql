-- Two parts merged against one serial model, over many orders of the rows
-- (doc/merge-accuracy.md, "Matching the average where the data lie").
--
-- The scale-out page measures the gap of a 2-part merge to serial in 3
-- seeded orders; one order moves it by up to a point, so 3 orders leave
-- the mean uncertain by a few tenths.  This script takes :n orders
-- (default 10) of a9a and usps with the protocol of run.sql (the files'
-- values, B = 100, gamma 0.0625; BPA-NN C 0.1 / 1, Pegasos-merge lambda
-- 1e-4).  For each order s the rows train in ORDER BY bk_shuffle_key(id, s):
-- serial (every row), the two parts mod(id, 2), their exact average (the
-- sum of both parts' bk_scores, no reduction) and bk_merge(m ORDER BY part).
-- It prints each setting's mean gap to serial in the same order, of the
-- average and of the merge, the merge's per-order gaps, and the mean
-- seconds of one bk_merge.
--
-- Run from the repository root (the data are read from ../shared/data):
--   psql -f test/bench/merge/orders.sql
--   psql -v n=3 -v only='usps Pegasos-merge' -f test/bench/merge/orders.sql
-- About 40 seconds for 10 orders on one core.  The tables stay in schema bko.
\set ON_ERROR_STOP 1
\if :{?n}
\else
\set n 10
\endif
\set schema bko
\ir load.sql

CREATE TABLE bko.setting (name text PRIMARY KEY, ds text, params jsonb);
INSERT INTO bko.setting VALUES
  ('a9a BPA-NN', 'a9a', '{"algorithm": "bpa", "variant": "nn", "budget": 100, "gamma": 0.0625, "C": 0.1}'),
  ('usps BPA-NN', 'usps', '{"algorithm": "bpa", "variant": "nn", "budget": 100, "gamma": 0.0625, "C": 1}'),
  ('a9a Pegasos-merge', 'a9a', '{"algorithm": "pegasos", "maintenance": "merge", "budget": 100, "gamma": 0.0625, "lambda": 0.0001}'),
  ('usps Pegasos-merge', 'usps', '{"algorithm": "pegasos", "maintenance": "merge", "budget": 100, "gamma": 0.0625, "lambda": 0.0001}');
\if :{?only}
DELETE FROM bko.setting WHERE name <> :'only';
\endif

-- serial (part -1) and the two parts of every order
CREATE TABLE bko.model (setting text, s int, part int, m bk_model);
INSERT INTO bko.model
SELECT g.name, o.s, -1, bk_train(d.features, d.label, g.params ORDER BY bk_shuffle_key(d.id, o.s))
FROM bko.setting g, generate_series(1, :n) o(s), bko.data d
WHERE d.ds = g.ds AND d.part = 'train' GROUP BY 1, 2;
INSERT INTO bko.model
SELECT g.name, o.s, mod(d.id, 2)::int, bk_train(d.features, d.label, g.params ORDER BY bk_shuffle_key(d.id, o.s))
FROM bko.setting g, generate_series(1, :n) o(s), bko.data d
WHERE d.ds = g.ds AND d.part = 'train' GROUP BY 1, 2, 3;

-- the merges, one statement each, timed
CREATE TABLE bko.merged (setting text, s int, m bk_model, secs float8);
DO $$
DECLARE r record; t0 timestamptz;
BEGIN
  FOR r IN SELECT DISTINCT setting, s FROM bko.model ORDER BY 1, 2 LOOP
    t0 := clock_timestamp();
    INSERT INTO bko.merged
    SELECT r.setting, r.s, bk_merge(m ORDER BY part), NULL
    FROM bko.model WHERE setting = r.setting AND s = r.s AND part >= 0;
    UPDATE bko.merged SET secs = extract(epoch FROM clock_timestamp() - t0)
    WHERE setting = r.setting AND s = r.s;
  END LOOP;
END $$;

-- test accuracy (%) of serial, of the exact average of the two parts
-- (both weigh the same rows, so the plain sum of their scores; the first
-- class of the largest, as bk_predict) and of the merge; the models are
-- in variables, so each is read once and not once a row
CREATE TABLE bko.acc (setting text, s int, serial float8, average float8, merge float8, secs float8);
DO $$
DECLARE r record; ms bk_model; a bk_model; b bk_model; mg bk_model; cls jsonb;
        v_serial float8; v_average float8; v_merge float8;
BEGIN
  FOR r IN SELECT g.name, g.ds, x.s, x.secs FROM bko.setting g JOIN bko.merged x ON x.setting = g.name ORDER BY 1, 3 LOOP
    SELECT m INTO ms FROM bko.model WHERE setting = r.name AND s = r.s AND part = -1;
    SELECT m INTO a FROM bko.model WHERE setting = r.name AND s = r.s AND part = 0;
    SELECT m INTO b FROM bko.model WHERE setting = r.name AND s = r.s AND part = 1;
    SELECT m INTO mg FROM bko.merged WHERE setting = r.name AND s = r.s;
    cls := bk_info(a)->'classes';
    SELECT 100 * avg((bk_predict(ms, d.features) = d.label)::int),
           100 * avg(((SELECT (cls->>(u.k - 1)::int)::int8
                       FROM unnest(bk_scores(a, d.features), bk_scores(b, d.features)) WITH ORDINALITY u(x, y, k)
                       ORDER BY u.x + u.y DESC, u.k LIMIT 1) = d.label)::int),
           100 * avg((bk_predict(mg, d.features) = d.label)::int)
      INTO v_serial, v_average, v_merge
      FROM bko.data d WHERE d.ds = r.ds AND d.part = 'test';
    INSERT INTO bko.acc VALUES (r.name, r.s, v_serial, v_average, v_merge, r.secs);
  END LOOP;
END $$;

SELECT setting, count(*) AS orders, round(avg(serial)::numeric, 2) AS serial,
       round(avg(average - serial)::numeric, 2) AS average_gap,
       round(avg(merge - serial)::numeric, 2) AS merge_gap,
       string_agg(to_char(merge - serial, 'SG0.00'), ' ' ORDER BY s) AS merge_gap_by_order,
       round(avg(secs)::numeric, 3) AS merge_s
FROM bko.acc GROUP BY 1 ORDER BY 1;
