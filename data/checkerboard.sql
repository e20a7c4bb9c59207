--
-- data/checkerboard.sql - write data/checkerboard.libsvm, the LIBSVM file
-- that README.md's "Loading LIBSVM files" example reads.
--
--   psql -X -v ON_ERROR_STOP=1 -d postgres -f data/checkerboard.sql
--
-- Run from the repository's directory, in any database (it creates only a
-- temporary function; the extension is not needed).  The points come from
-- the README's generator, uniform(tag, i), with the tags 'file-x' and
-- 'file-y': 1,000 points uniform in [0, 1]^2, label 1 if
-- floor(4x) + floor(4y) is even, else -1, coordinates rounded to 6
-- decimals.  The output is the same, byte for byte, on every server.
--
CREATE FUNCTION pg_temp.uniform(tag text, i bigint) RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT ('x' || left(md5(tag || ':' || i), 13))::bit(52)::int8 / 2 ^ 52 $$;

\copy (SELECT concat_ws(' ', CASE WHEN (floor(4 * x) + floor(4 * y))::int % 2 = 0 THEN 1 ELSE -1 END, '1:' || round(x::numeric, 6), '2:' || round(y::numeric, 6)) FROM generate_series(1, 1000) AS i, LATERAL (SELECT pg_temp.uniform('file-x', i) AS x, pg_temp.uniform('file-y', i) AS y) AS p ORDER BY i) TO 'data/checkerboard.libsvm'
