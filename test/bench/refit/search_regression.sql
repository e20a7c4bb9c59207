-- The search's regressor (doc/refit.md, "The search's final regressor"):
-- bk_cross_validate with no grid and "refit": true on the four tables of
-- search_regression.py (run it first), the test R^2 of the model it
-- returns, whether that model was refit (bk_info's parents), and the CPU
-- seconds of this backend (user + system, from /proc: a superuser's
-- session).  Side by side in the same session, "before": the search of
-- an earlier commit (BEFORE, default fab2f60, before the regressor's
-- refit), installed as bk_before._bk_cross_validate beside the
-- extension (in schema public).  From the repository root, on the tables
-- in /tmp:
--   git show ${BEFORE:-fab2f60}:sql/objects/14-cross-validation.sql \
--     | awk '/^CREATE OR REPLACE FUNCTION @extschema@._bk_cross_validate\(/{p=1} p{print} p&&/^\$fn\$;/{exit}' \
--     | sed -e '1s/@extschema@._bk_cross_validate(/bk_before._bk_cross_validate(/' \
--           -e 's/@extschema@/public/g' > /tmp/bk_before.sql
--   psql -f test/bench/refit/search_regression.sql
\set ON_ERROR_STOP 1
CREATE EXTENSION IF NOT EXISTS budgetkernel;
DROP SCHEMA IF EXISTS bk_before CASCADE;
CREATE SCHEMA bk_before;
\i /tmp/bk_before.sql
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
CREATE TEMP TABLE res (ds text, version text, r2 float8, cpu float8, refit boolean, params jsonb, n int4);
CREATE FUNCTION pg_temp.run(ds text, n int4, version text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE m bk_model; p jsonb; c0 float8; r float8;
BEGIN
  c0 := pg_temp.cpu_s();
  IF version = 'before' THEN
    SELECT cv.model, cv.params INTO m, p
    FROM bk_before._bk_cross_validate(current_setting('search_path'), 'tr_' || ds, 'x', 'y', 'id',
                                      NULL, NULL, 0, NULL, NULL, true) cv LIMIT 1;
  ELSE
    SELECT cv.model, cv.params INTO m, p FROM bk_cross_validate('tr_' || ds, 'x', 'y', 'id', '{"refit": true}') cv LIMIT 1;
  END IF;
  c0 := pg_temp.cpu_s() - c0;
  EXECUTE format('SELECT (bk_metrics(y, bk_predict_value($1, x))->>''r2'')::float8 FROM te_%s', ds) INTO r USING m;
  INSERT INTO res VALUES (ds, version, r, c0, jsonb_array_length(bk_info(m)->'parents') > 0, p, n);
END $$;
SELECT pg_temp.run(d, n::int4, v)
FROM unnest(ARRAY['f506', 'cal506', 'cal8000', 'dia8000']) WITH ORDINALITY AS t(d, n),
     unnest(ARRAY['before', 'after']) AS w(v);
SELECT ds, version, round(r2::numeric, 4) AS test_r2, round(cpu::numeric, 2) AS cpu_s, refit, params
FROM res ORDER BY n, version DESC;
