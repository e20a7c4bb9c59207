-- Refit benchmark, regression (doc/refit.md): the search's model and
-- bk_train's defaults, then bk_refit at each lambda, test R^2.  Needs the
-- tables of friedman.py (run it first).  psql -f test/bench/refit/regression.sql
\set ON_ERROR_STOP 1
CREATE EXTENSION IF NOT EXISTS budgetkernel;
CREATE TEMP TABLE f (ds text, id bigint, part text, features float8[], y float8);
CREATE TEMP TABLE f1 (line text);
\copy f1 FROM '/tmp/bk_refit_f506.csv'
INSERT INTO f SELECT 'f506', split_part(line, ',', 1)::bigint, split_part(line, ',', 2), substring(line from '\{[^}]*\}')::float8[], substring(line from '\},(.*)$')::float8 FROM f1;
TRUNCATE f1;
\copy f1 FROM '/tmp/bk_refit_f4000.csv'
INSERT INTO f SELECT 'f4000', split_part(line, ',', 1)::bigint, split_part(line, ',', 2), substring(line from '\{[^}]*\}')::float8[], substring(line from '\},(.*)$')::float8 FROM f1;
CREATE TEMP VIEW tr_f506 AS SELECT id, features, y FROM f WHERE ds = 'f506' AND part = 'train';
CREATE TEMP VIEW tr_f4000 AS SELECT id, features, y FROM f WHERE ds = 'f4000' AND part = 'train';
SELECT ds, part, count(*) FROM f GROUP BY 1, 2 ORDER BY 1, 2;
CREATE TEMP TABLE res (ds text, what text, lambda float8, r2 float8, seconds float8, params jsonb);
CREATE FUNCTION pg_temp.run(name text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE m bk_model; r bk_model; p jsonb; t0 timestamptz; secs float8; lam float8; src text;
BEGIN
  FOREACH src IN ARRAY ARRAY['search', 'bk_train defaults'] LOOP
    t0 := clock_timestamp();
    IF src = 'search' THEN
      SELECT cv.model, cv.params INTO m, p FROM bk_cross_validate('tr_' || name, 'features', 'y', 'id', '{"refit": true}') cv LIMIT 1;
    ELSE
      SELECT bk_train(features, y, '{"scale": "standard"}' ORDER BY bk_shuffle_key(id, 1)), '{"scale": "standard"}' INTO m, p FROM f WHERE ds = name AND part = 'train';
    END IF;
    secs := extract(epoch FROM clock_timestamp() - t0);
    INSERT INTO res SELECT name, src, NULL, (bk_metrics(y, bk_predict_value(m, features))->>'r2')::float8, secs, p FROM f WHERE ds = name AND part = 'test';
    FOREACH lam IN ARRAY ARRAY[1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2] LOOP
      t0 := clock_timestamp();
      SELECT bk_refit(m, features, y, jsonb_build_object('lambda', lam) ORDER BY id) INTO r FROM f WHERE ds = name AND part = 'train';
      secs := extract(epoch FROM clock_timestamp() - t0);
      INSERT INTO res SELECT name, src || ' + bk_refit', lam, (bk_metrics(y, bk_predict_value(r, features))->>'r2')::float8, secs, NULL FROM f WHERE ds = name AND part = 'test';
    END LOOP;
  END LOOP;
END $$;
SELECT pg_temp.run('f506');
SELECT pg_temp.run('f4000');
SELECT ds, what, lambda, round(r2::numeric, 4) AS r2, round(seconds::numeric, 2) AS s, params FROM res ORDER BY ds, what, lambda;
