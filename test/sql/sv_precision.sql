--
-- Support vectors stored as float4 ("sv_precision": "float4",
-- doc/parameters.md): the model rounds each row it learns to float4, stores
-- its support vectors in 4 bytes a value, and its kernel rows read them as
-- float4 -- to the same bits as the float8 model of the rounded rows.
--
CREATE TEMP TABLE f4_rows AS
SELECT i, x, (CASE WHEN x[1] + x[2] - x[3] > 0.5 THEN 2 WHEN x[1] + x[2] - x[3] > -0.5 THEN 1 ELSE 0 END)::int8 AS y
FROM (SELECT i, ARRAY(SELECT sin(i * j * 0.731) + cos(j * 1.3) / 3 FROM generate_series(1, 30) j)::float8[] AS x
      FROM generate_series(1, 1500) i) r;
-- the values are not float4 values
SELECT bool_and(x <> x::float4[]::float8[]) AS not_float4 FROM f4_rows;

CREATE TEMP TABLE f4_models AS
SELECT 'float4' AS kind,
       bk_train(x, y, '{"algorithm": "bpa", "budget": 60, "gamma": 0.05, "sv_precision": "float4"}' ORDER BY i) AS model
FROM f4_rows
UNION ALL
SELECT 'float8 of rounded rows',
       bk_train(x::float4[]::float8[], y, '{"algorithm": "bpa", "budget": 60, "gamma": 0.05}' ORDER BY i)
FROM f4_rows
UNION ALL
SELECT 'float8',
       bk_train(x, y, '{"algorithm": "bpa", "budget": 60, "gamma": 0.05}' ORDER BY i)
FROM f4_rows;

-- 1. the float4 model is the float8 model of the rounded rows, score for score
SELECT count(*) AS rows_compared,
       bool_and(bk_scores(a.model, r.x) = bk_scores(b.model, r.x)) AS same_scores
FROM f4_rows r, f4_models a, f4_models b
WHERE a.kind = 'float4' AND b.kind = 'float8 of rounded rows';

-- 2. its bytes: 4 a stored value instead of 8 (and the parameter, 16 bytes)
SELECT m8.n_sv = m4.n_sv AS same_svs,
       octet_length(b.model::bytea) - octet_length(a.model::bytea) = m4.n_sv * 30 * 4 - 16 AS four_bytes_fewer
FROM f4_models a, f4_models b,
     LATERAL (SELECT (bk_info(a.model)->>'n_sv')::int AS n_sv) m4,
     LATERAL (SELECT (bk_info(b.model)->>'n_sv')::int AS n_sv) m8
WHERE a.kind = 'float4' AND b.kind = 'float8 of rounded rows';
SELECT kind, bk_info(model)->'params'->>'sv_precision' AS sv_precision, bk_is_valid(model::bytea) AS valid
FROM f4_models ORDER BY kind;

-- 3. accuracy on the training rows: the rounding costs no more than a point here
SELECT max(acc) - min(acc) < 0.01 AS within_a_point, min(acc) > 0.6 AS learned
FROM (SELECT kind, avg((bk_predict(model, x) = y)::int) AS acc
      FROM f4_models, f4_rows GROUP BY kind) a;

-- 4. continued, it stays float4; the precision is not an override
\set SHOW_CONTEXT never
SELECT bk_info(bk_continue(x, y, model ORDER BY i))->'params'->>'sv_precision' AS continued
FROM f4_rows, f4_models WHERE kind = 'float4' AND i <= 100 GROUP BY model;
SELECT bk_continue(x, y, model, '{"sv_precision": "float8"}' ORDER BY i)
FROM f4_rows, f4_models WHERE kind = 'float4' AND i <= 10 GROUP BY model;

-- 5. parts merged: float4 with float4; not float4 with float8
CREATE TEMP TABLE f4_parts AS
SELECT i % 4 AS part,
       bk_train(x, y, '{"algorithm": "pegasos", "budget": 40, "gamma": 0.05, "sv_precision": "float4"}' ORDER BY i) AS model
FROM f4_rows GROUP BY 1;
SELECT bk_info(m)->'params'->>'sv_precision' AS merged, bk_is_valid(m::bytea) AS valid,
       (bk_info(m)->>'merged_models')::int AS parts
FROM (SELECT bk_merge(model ORDER BY part) AS m FROM f4_parts) s;
SELECT bk_merge(a.model, b.model) FROM f4_models a, f4_models b
WHERE a.kind = 'float4' AND b.kind = 'float8';

-- 6. whole rows, standardised (a preparation): the prepared values are
-- rounded, and the model scores as its float8 twin does
SELECT p, bk_info(m)->'params'->>'sv_precision' AS stored,
       avg((bk_predict(m, jsonb_build_object('a', x[1], 'b', x[2], 'c', x[3])) = y)::int) > 0.9 AS learned
FROM f4_rows,
     (SELECT p, bk_train(jsonb_build_object('a', x[1], 'b', x[2], 'c', x[3]), y,
                         ('{"budget": 30, "sv_precision": "' || p || '"}')::jsonb ORDER BY i) AS m
      FROM f4_rows, (VALUES ('float4'), ('float8')) v(p) GROUP BY p) s
GROUP BY p, m ORDER BY p;

-- 7. bad input (their SQLSTATEs: test/pgtap/errors.sql): a value beyond
-- float4's range, an unknown precision
SELECT bk_train(ARRAY[1e39, 0]::float8[], 1::int8, '{"sv_precision": "float4"}');
SELECT bk_train(ARRAY[1, 0]::float8[], 1::int8, '{"sv_precision": "half"}');
