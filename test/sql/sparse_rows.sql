--
-- Rows that are mostly zeros (one-hot text inputs, LIBSVM rows not
-- standardised) take their kernel rows' dot products over their nonzeros
-- alone (src/core/base/bk_linalg_sparse.c), with the same bits as the
-- dense product: these models' bytes and predictions are those the
-- dense product gave (the md5s below were written by the build before
-- the sparse product, 0.4.0 at c0cc5f3), for learners whose kernel rows
-- are all they read (BPA-NN), whose merges take dot products of stored
-- SVs (Pegasos) and whose projections solve with them (BPA-P), on rows of
-- 64 arrays' columns with 4 to 8 nonzeros, and on named features with
-- text inputs of many levels.
--
\set SHOW_CONTEXT never
CREATE TABLE sr_rows AS
SELECT i AS id,
       (i % 3)::int8 AS label,
       ARRAY(SELECT CASE WHEN (hashint4(i * 64 + j) & 15) < 2 + (i % 3)
                         THEN round(sin(i * 0.37 + j * 1.3)::numeric, 6)::float8 + (i % 3) * 0.25
                         ELSE 0 END
             FROM generate_series(1, 64) AS j)::float8[] AS x
FROM generate_series(1, 900) AS i;
CREATE TABLE sr_named AS
SELECT id, label,
       jsonb_build_object('city', 'c' || (hashint4(id) & 31), 'shop', 's' || ((hashint4(id * 7) & 15) + label * 3),
                          'day', 'd' || (id % 7), 'amount', round(cos(id * 0.11)::numeric, 4)) AS named
FROM sr_rows;
-- how sparse: nonzeros a row, of 64
SELECT min(n), max(n), round(avg(n), 2) AS mean
FROM (SELECT (SELECT count(*) FROM unnest(x) v WHERE v <> 0) AS n FROM sr_rows) t;
SET budgetkernel.run_warnings = off;
SELECT s.name, md5(m.model::bytea) AS model,
       md5(string_agg(bk_predict(m.model, r.x)::text, ',' ORDER BY r.id)) AS predictions
FROM (VALUES ('bpa-nn', '{"budget": 40, "gamma": 0.5, "C": 1}'::jsonb),
             ('bpa-nn, two passes', '{"budget": 40, "gamma": 0.5, "C": 1, "epochs": 2}'),
             ('pegasos', '{"algorithm": "pegasos", "budget": 40, "gamma": 0.5, "lambda": 0.001}'),
             ('bpa-p', '{"variant": "p", "budget": 30, "gamma": 0.5}')) AS s(name, p),
     LATERAL (SELECT bk_train(x, label, s.p ORDER BY id) AS model FROM sr_rows) AS m,
     sr_rows r
GROUP BY s.name, m.model
ORDER BY s.name;
-- named features: four inputs, three of them text, one-hot (62 columns,
-- 4 of them nonzero a row)
SELECT s.name, (bk_info(m.model)->>'dim')::int AS dim, md5(m.model::bytea) AS model,
       md5(string_agg(bk_predict(m.model, r.named)::text, ',' ORDER BY r.id)) AS predictions
FROM (VALUES ('bpa-nn', '{"budget": 40, "gamma": 0.5}'::jsonb),
             ('pegasos', '{"algorithm": "pegasos", "budget": 40, "gamma": 0.5, "lambda": 0.001}')) AS s(name, p),
     LATERAL (SELECT bk_train(named, label, s.p ORDER BY id) AS model FROM sr_named) AS m,
     sr_named r
GROUP BY s.name, m.model
ORDER BY s.name;
RESET budgetkernel.run_warnings;
