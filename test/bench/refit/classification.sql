-- Refit benchmark, classification (doc/refit.md): the search's model
-- (bk_cross_validate, '{"refit": true}') on banana (every 5th row held out),
-- a9a and usps, then bk_refit at each lambda, test accuracy.  From the
-- repository root: psql -f test/bench/refit/classification.sql
\set ON_ERROR_STOP 1
CREATE EXTENSION IF NOT EXISTS budgetkernel;
CREATE TEMP TABLE raw (id bigserial, line text);
CREATE TEMP TABLE d (ds text, part text, id bigint, label int8, features float8[]);
\copy raw(line) FROM '../shared/data/banana'
INSERT INTO d SELECT 'banana', CASE WHEN id % 5 = 0 THEN 'test' ELSE 'train' END, id, (bk_libsvm(line, 2)).label, (bk_libsvm(line, 2)).features FROM raw;
TRUNCATE raw;
\copy raw(line) FROM '../shared/data/a9a.train'
INSERT INTO d SELECT 'a9a', 'train', id, (bk_libsvm(line, 123)).label, (bk_libsvm(line, 123)).features FROM raw;
TRUNCATE raw;
\copy raw(line) FROM '../shared/data/a9a.test'
INSERT INTO d SELECT 'a9a', 'test', id, (bk_libsvm(line, 123)).label, (bk_libsvm(line, 123)).features FROM raw;
TRUNCATE raw;
\copy raw(line) FROM '../shared/data/usps.train'
INSERT INTO d SELECT 'usps', 'train', id, (bk_libsvm(line, 256)).label, (bk_libsvm(line, 256)).features FROM raw;
TRUNCATE raw;
\copy raw(line) FROM '../shared/data/usps.test'
INSERT INTO d SELECT 'usps', 'test', id, (bk_libsvm(line, 256)).label, (bk_libsvm(line, 256)).features FROM raw;
CREATE TEMP VIEW tr_banana AS SELECT id, label, features FROM d WHERE ds = 'banana' AND part = 'train';
CREATE TEMP VIEW tr_a9a AS SELECT id, label, features FROM d WHERE ds = 'a9a' AND part = 'train';
CREATE TEMP VIEW tr_usps AS SELECT id, label, features FROM d WHERE ds = 'usps' AND part = 'train';
SELECT ds, part, count(*) FROM d GROUP BY 1, 2 ORDER BY 1, 2;
CREATE TEMP TABLE res (ds text, what text, lambda float8, acc numeric, seconds float8, params jsonb);
CREATE FUNCTION pg_temp.run(name text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE m bk_model; r bk_model; p jsonb; t0 timestamptz; secs float8; lam float8;
BEGIN
  t0 := clock_timestamp();
  SELECT cv.model, cv.params INTO m, p FROM bk_cross_validate('tr_' || name, 'features', 'label', 'id', '{"refit": true}') cv LIMIT 1;
  secs := extract(epoch FROM clock_timestamp() - t0);
  INSERT INTO res SELECT name, 'search', NULL, avg((bk_predict(m, features) = label)::int), secs, p FROM d WHERE ds = name AND part = 'test';
  FOREACH lam IN ARRAY ARRAY[1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2] LOOP
    t0 := clock_timestamp();
    SELECT bk_refit(m, features, label, jsonb_build_object('lambda', lam) ORDER BY id) INTO r FROM d WHERE ds = name AND part = 'train';
    secs := extract(epoch FROM clock_timestamp() - t0);
    INSERT INTO res SELECT name, 'search + bk_refit', lam, avg((bk_predict(r, features) = label)::int), secs, NULL FROM d WHERE ds = name AND part = 'test';
  END LOOP;
END $$;
SELECT pg_temp.run('banana');
SELECT ds, what, lambda, round(acc * 100, 2) AS acc, round(seconds::numeric, 2) AS s, params FROM res ORDER BY ds, what, lambda;
SELECT pg_temp.run('a9a');
SELECT ds, what, lambda, round(acc * 100, 2) AS acc, round(seconds::numeric, 2) AS s, params FROM res ORDER BY ds, what, lambda;
SELECT pg_temp.run('usps');
SELECT ds, what, lambda, round(acc * 100, 2) AS acc, round(seconds::numeric, 2) AS s, params FROM res ORDER BY ds, what, lambda;
