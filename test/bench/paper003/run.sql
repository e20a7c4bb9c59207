-- Paper 003 Figs. 9, 10 and 12 as tables: test error against the cache size
-- p for the Perceptron, the Budget Perceptron and the Tighter Budget
-- Perceptron (evaluation set "all", as the paper's experiments), margin 0,
-- one pass.  USPS digit 0 vs rest (usps.train -> usps.test), clean and with
-- 10 % of the training labels flipped by a seeded hash; Banana split 4000 /
-- 1300 by a seeded hash.  Widths from paper 003 Table 1 (sigma, read as
-- exp(-||x - x'||^2 / sigma); USPS rescaled from [-1, 1] to our [0, 1]).
-- Run from the repository root: psql -f test/bench/paper003/run.sql
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS budgetkernel;
DROP SCHEMA IF EXISTS p003 CASCADE;
CREATE SCHEMA p003;
CREATE TEMP TABLE raw (id bigserial, line text);
\copy raw(line) FROM '../shared/data/usps.train'
CREATE TABLE p003.data AS
SELECT 'usps'::text AS ds, 'train'::text AS part, id, (bk_libsvm(line, 256)).features AS features,
       CASE WHEN (bk_libsvm(line, 256)).label = 0 THEN 1 ELSE -1 END::int8 AS clean
FROM raw;
TRUNCATE raw; ALTER SEQUENCE raw_id_seq RESTART;
\copy raw(line) FROM '../shared/data/usps.test'
INSERT INTO p003.data SELECT 'usps', 'test', id, (bk_libsvm(line, 256)).features,
       CASE WHEN (bk_libsvm(line, 256)).label = 0 THEN 1 ELSE -1 END FROM raw;
TRUNCATE raw; ALTER SEQUENCE raw_id_seq RESTART;
\copy raw(line) FROM '../shared/data/banana'
INSERT INTO p003.data
SELECT 'banana', CASE WHEN rn <= 4000 THEN 'train' ELSE 'test' END, id, features, clean
FROM (SELECT id, (bk_libsvm(line, 2)).features AS features, (bk_libsvm(line, 2)).label AS clean,
             row_number() OVER (ORDER BY md5('split:' || id)) AS rn FROM raw) s;
ALTER TABLE p003.data ADD COLUMN noisy int8;
UPDATE p003.data SET noisy = CASE WHEN part = 'train' AND ('x' || substr(md5('flip:' || id), 1, 8))::bit(32)::int % 10 = 0
                                  THEN -clean ELSE clean END;
CREATE TABLE p003.results (ds text, noise text, algorithm text, p int, error float8, n_sv int);
DO $$
DECLARE c record; pp int; lab text; m bk_model; e float8;
BEGIN
  FOR c IN SELECT * FROM (VALUES ('usps', 0.03125), ('banana', 1 / 0.7)) v(ds, g) LOOP
    FOREACH lab IN ARRAY CASE WHEN c.ds = 'usps' THEN ARRAY['clean', 'noisy'] ELSE ARRAY['clean'] END LOOP
      FOREACH pp IN ARRAY ARRAY[25, 50, 100, 200, 400] LOOP
        FOR m, e IN
          SELECT mm, 1 - (SELECT avg((bk_predict(mm, t.features) = t.clean)::int) FROM p003.data t WHERE t.ds = c.ds AND t.part = 'test')
          FROM (SELECT (SELECT bk_train(features, CASE lab WHEN 'noisy' THEN noisy ELSE clean END,
                                        jsonb_build_object('algorithm', a, 'budget', pp, 'gamma', c.g)
                                        || CASE WHEN a = 'tighter_budget_perceptron' THEN '{"eval_set": "all", "eval_size": 8000}'::jsonb ELSE '{}' END
                                        ORDER BY id)
                        FROM p003.data WHERE ds = c.ds AND part = 'train') AS mm,
                       a FROM unnest(ARRAY['budget_perceptron', 'tighter_budget_perceptron']) a) s
        LOOP
          INSERT INTO p003.results VALUES (c.ds, lab, bk_info(m)->>'algorithm', pp, e, (bk_info(m)->>'n_sv')::int);
        END LOOP;
      END LOOP;
      SELECT bk_train(features, CASE lab WHEN 'noisy' THEN noisy ELSE clean END,
                      jsonb_build_object('algorithm', 'perceptron', 'gamma', c.g) ORDER BY id) INTO m
      FROM p003.data WHERE ds = c.ds AND part = 'train';
      SELECT 1 - avg((bk_predict(m, t.features) = t.clean)::int) INTO e FROM p003.data t WHERE t.ds = c.ds AND t.part = 'test';
      INSERT INTO p003.results VALUES (c.ds, lab, 'perceptron', NULL, e, (bk_info(m)->>'n_sv')::int);
    END LOOP;
  END LOOP;
END $$;
SELECT ds, noise, algorithm, coalesce(p::text, 'all') AS p, round(100 * error::numeric, 2) AS test_error_pct, n_sv
FROM p003.results ORDER BY ds, noise, algorithm, p NULLS LAST;
