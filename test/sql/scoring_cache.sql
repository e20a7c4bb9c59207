--
-- The scoring functions' cache of decoded models (doc/scoring-performance.md):
-- whatever the model datum's source (a stored value, a model computed in
-- the query, a copy made in memory), a scored row looks its model up
-- without reading the model's bytes.  bk_model_cache counts the
-- lookups, the decodes and the bytes compared to recognise a model: 36 a
-- lookup (the digest and CRC a model carries), not the model's size.  A
-- model written by 0.1.0 (format version 1) has no digest and is still
-- compared whole.
--
\set ECHO none
\set v1 `test/fixtures/bk_craft version1 2 200 64`
\set ECHO all
CREATE TEMP TABLE cache_rows AS
SELECT i, ARRAY(SELECT sin(i * j * 0.37) FROM generate_series(1, 64) j)::float8[] AS x,
       i % 3 AS y
FROM generate_series(1, 2000) i;
CREATE TEMP TABLE cache_models AS
SELECT bk_train(x, y, '{"budget": 150, "gamma": 0.05}' ORDER BY i) AS model FROM cache_rows;
-- large enough that comparing it whole on every row would show
SELECT octet_length(model::bytea) > 200000 AS large FROM cache_models;

-- the counters before and after each query
CREATE TEMP TABLE cache_seen (n serial, step text, lookups int8, hits int8, decodes int8, key_bytes int8);
CREATE FUNCTION pg_temp.cache_step(step text) RETURNS void LANGUAGE sql AS $$
	INSERT INTO cache_seen (step, lookups, hits, decodes, key_bytes)
	SELECT step, lookups, hits, decodes, key_bytes FROM bk_model_cache
$$;
SELECT pg_temp.cache_step('start');

-- 1. the stored value: a TOAST pointer, recognised without reading it
CREATE TEMP TABLE scored_stored AS
SELECT r.i, bk_predict(m.model, r.x) AS p FROM cache_rows r, cache_models m;
SELECT pg_temp.cache_step('stored');

-- 2. a model computed in the query, passed in memory on every row
CREATE TEMP TABLE scored_computed AS
WITH m AS MATERIALIZED (
	SELECT bk_train(x, y, '{"budget": 150, "gamma": 0.05}' ORDER BY i) AS model FROM cache_rows)
SELECT r.i, bk_predict(m.model, r.x) AS p FROM cache_rows r, m;
SELECT pg_temp.cache_step('computed');

-- 3. the stored model copied into memory (a new value, not a TOAST pointer)
CREATE TEMP TABLE scored_copied AS
WITH m AS MATERIALIZED (
	SELECT (model::bytea || ''::bytea)::bk_model AS model FROM cache_models)
SELECT r.i, bk_predict(m.model, r.x) AS p FROM cache_rows r, m;
SELECT pg_temp.cache_step('copied');

-- 4. a model of format version 1, from a CTE: compared by its bytes
CREATE TEMP TABLE scored_v1 AS
WITH m AS MATERIALIZED (SELECT :'v1'::bk_model AS model)
SELECT r.i, bk_predict(m.model, r.x) AS p FROM cache_rows r, m;
SELECT pg_temp.cache_step('version 1');

-- per step: every row looked up, one decode, and the bytes compared a row
SELECT step, lookups - lag(lookups) OVER w AS lookups,
       decodes - lag(decodes) OVER w AS decodes,
       (key_bytes - lag(key_bytes) OVER w)
         / nullif(hits - lag(hits) OVER w, 0) AS bytes_compared_per_hit
FROM cache_seen WINDOW w AS (ORDER BY n)
ORDER BY n OFFSET 1;
SELECT octet_length(:'v1'::bk_model::bytea) AS v1_model_bytes;

-- the same scores from every source
SELECT count(*) AS rows,
       bool_and(s.p = c.p AND s.p = k.p) AS same_scores,
       bool_and(s.p = bk_predict(m.model, r.x)) AS as_scored_alone
FROM scored_stored s JOIN scored_computed c USING (i) JOIN scored_copied k USING (i)
     JOIN cache_rows r USING (i), cache_models m;

-- two different models of the same length alternate in one call site:
-- each row is scored by its own model (the key is the digest, not the length)
CREATE TEMP TABLE two_models AS
SELECT g, bk_train(x, y, jsonb_build_object('budget', 150, 'gamma', 0.04 + 0.01 * g) ORDER BY i) AS model
FROM cache_rows, generate_series(1, 2) g GROUP BY g;
SELECT count(DISTINCT octet_length(model::bytea)) AS lengths,
       count(DISTINCT md5(model::bytea)) AS models
FROM two_models;
SELECT bool_and(p = alone) AS each_row_its_model, count(*) AS rows
FROM (SELECT bk_predict(t.model, r.x) AS p,
             bk_predict((SELECT model FROM two_models WHERE g = t.g), r.x) AS alone
      FROM (SELECT g, (model::bytea || ''::bytea)::bk_model AS model FROM two_models) t,
           cache_rows r WHERE r.i % 2 = t.g - 1) s;

-- the entries are released at the end of each transaction
SELECT entries, memory FROM bk_model_cache;
