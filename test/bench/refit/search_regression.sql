-- The search's regressor (doc/refit.md, "The search's final regressor"):
-- bk_cross_validate with no grid and refit => true on the four tables of
-- search_regression.py (run it first), the test R^2 of the model it
-- returns, whether that model was refit (bk_info's parents), and the CPU
-- seconds of this backend (user + system, from /proc: a superuser's
-- session).  From the repository root, on the tables in /tmp:
--   psql -f test/bench/refit/search_regression.sql
\set ON_ERROR_STOP 1
CREATE EXTENSION IF NOT EXISTS budgetkernel;
CREATE TEMP TABLE reg (ds text, id int8, part text, y float8, fx text);
\copy reg(id, part, y, fx) FROM '/tmp/reg_f506.tsv'
UPDATE reg SET ds = 'f506' WHERE ds IS NULL;
\copy reg(id, part, y, fx) FROM '/tmp/reg_cal506.tsv'
UPDATE reg SET ds = 'cal506' WHERE ds IS NULL;
\copy reg(id, part, y, fx) FROM '/tmp/reg_cal8000.tsv'
UPDATE reg SET ds = 'cal8000' WHERE ds IS NULL;
\copy reg(id, part, y, fx) FROM '/tmp/reg_dia8000.tsv'
UPDATE reg SET ds = 'dia8000' WHERE ds IS NULL;
-- f506 has arrays, the others named features (jsonb)
CREATE TEMP VIEW tr_f506 AS SELECT id, y, fx::float8[] AS x FROM reg WHERE ds = 'f506' AND part = 'train';
CREATE TEMP VIEW te_f506 AS SELECT id, y, fx::float8[] AS x FROM reg WHERE ds = 'f506' AND part = 'test';
DO $$ DECLARE d text; BEGIN FOREACH d IN ARRAY ARRAY['cal506', 'cal8000', 'dia8000'] LOOP
  EXECUTE format('CREATE TEMP VIEW tr_%s AS SELECT id, y, fx::jsonb AS x FROM reg WHERE ds = %L AND part = ''train''', d, d);
  EXECUTE format('CREATE TEMP VIEW te_%s AS SELECT id, y, fx::jsonb AS x FROM reg WHERE ds = %L AND part = ''test''', d, d);
END LOOP; END $$;
CREATE FUNCTION pg_temp.cpu_s() RETURNS float8 LANGUAGE sql AS $$
  SELECT ((s[12])::float8 + (s[13])::float8) / 100.0
  FROM (SELECT string_to_array(split_part(pg_read_file('/proc/' || pg_backend_pid() || '/stat'), ') ', 2), ' ') AS s) q $$;
CREATE TEMP TABLE res (ds text, r2 float8, cpu float8, refit boolean, params jsonb, n int4);
CREATE FUNCTION pg_temp.run(ds text, n int4) RETURNS void LANGUAGE plpgsql AS $$
DECLARE m bk_model; p jsonb; c0 float8; r float8;
BEGIN
  c0 := pg_temp.cpu_s();
  SELECT cv.model, cv.params INTO m, p FROM bk_cross_validate('tr_' || ds, 'x', 'y', 'id', refit => true) cv LIMIT 1;
  c0 := pg_temp.cpu_s() - c0;
  EXECUTE format('SELECT (bk_metrics(y, bk_predict_value($1, x))->>''r2'')::float8 FROM te_%s', ds) INTO r USING m;
  INSERT INTO res VALUES (ds, r, c0, jsonb_array_length(bk_info(m)->'parents') > 0, p, n);
END $$;
SELECT pg_temp.run('f506', 1), pg_temp.run('cal506', 2), pg_temp.run('cal8000', 3), pg_temp.run('dia8000', 4);
SELECT ds, round(r2::numeric, 4) AS test_r2, round(cpu::numeric, 2) AS cpu_s, refit, params FROM res ORDER BY n;
