-- bk_features' text and binary forms (0.4.0): the text form names the
-- value's type, "TYPE:TEXT", and reads back into the same type and the
-- same bits, floats included whatever extra_float_digits says; the binary
-- form (COPY ... FORMAT binary, Citus's pull of an aggregate's arguments)
-- does too.  A bare literal still says to cast it.
SET client_min_messages = warning;
CREATE TABLE fio (id int PRIMARY KEY, f bk_features);
INSERT INTO fio VALUES
	(1, ARRAY[0.1, 1.0 / 3, '-0'::float8, 'NaN', '-Infinity', 5e-324, 1.7976931348623157e308, -2.2250738585072014e-308, 123456789.125]::float8[]),
	(2, ARRAY[0.1, 1.0 / 3, 16777217, -3.4e38, '-0'::float4, 'Infinity']::float4[]),
	(3, ARRAY[-32768, 0, 32767]::int2[]),
	(4, ARRAY[-2147483648, 7, 2147483647]::int4[]),
	(5, ARRAY[-9223372036854775808, 9223372036854775807]::int8[]),
	(6, ARRAY[0.1000000000000000000001, -3, 1e40]::numeric[]),
	(7, '{"age": 30.000000000000000001, "city": "Oslo", "x": null, "ok": true}'::jsonb),
	(8, bk_sparse(ARRAY[2, 7], ARRAY[0.1, 1.0 / 3]::float8[], 9)),
	(9, ARRAY[0.5, NULL]::float8[]),
	(10, '[0:1]={0.25,0.75}'::float8[]),
	(11, ARRAY[[1.5, 2.5], [3.5, 4.5]]::float8[]),
	(12, ARRAY[]::float8[]);

-- the text form of each (extra_float_digits' default, 1: the shortest
-- text of each float that reads back to its bits)
SELECT id, f::text AS text_form FROM fio ORDER BY id;

-- the round trip through text, compared by the binary form (the type and
-- every bit of every value), under every extra_float_digits: below 1,
-- the output still prints floats exactly
CREATE FUNCTION pg_temp.text_round_trip(digits int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	same int;
	total int;
BEGIN
	PERFORM set_config('extra_float_digits', digits::text, true);
	SELECT count(*) FILTER (WHERE _bk_features_send(f::text::bk_features) = _bk_features_send(f)), count(*)
	INTO same, total FROM fio;
	RETURN same || ' of ' || total;
END $$;
SELECT d AS extra_float_digits, pg_temp.text_round_trip(d) AS same_after_text
FROM unnest(ARRAY[-15, 0, 1, 3]) d;
-- the float text itself at extra_float_digits = 0 (which rounds float8out
-- to 15 digits): the features keep 17
SET extra_float_digits = 0;
SELECT f::text AS text_form, ARRAY[0.1, 1.0 / 3]::float8[]::text AS float8_array_text FROM fio WHERE id = 1;
RESET extra_float_digits;

-- a model trained on the features read back from text is the same bytes
SELECT md5(bk_train(f::text::bk_features, y, '{"budget": 5, "gamma": 0.5}' ORDER BY i)::bytea) =
       md5(bk_train(f, y, '{"budget": 5, "gamma": 0.5}' ORDER BY i)::bytea) AS same_model
FROM (SELECT i, ARRAY[sin(i), cos(3 * i) / 7]::float8[]::bk_features AS f, (i % 3 = 0)::int::int8 AS y
      FROM generate_series(1, 60) i) t;

-- COPY in text form and in binary form, back into an empty table
\copy fio TO 'results/features_io.txt'
\copy fio TO 'results/features_io.bin' WITH (FORMAT binary)
CREATE TABLE fio_text (LIKE fio);
CREATE TABLE fio_bin (LIKE fio);
\copy fio_text FROM 'results/features_io.txt'
\copy fio_bin FROM 'results/features_io.bin' WITH (FORMAT binary)
SELECT 'text' AS copy, count(*) AS rows, bool_and(_bk_features_send(c.f) = _bk_features_send(o.f)) AS same
FROM fio_text c JOIN fio o USING (id)
UNION ALL
SELECT 'binary', count(*), bool_and(_bk_features_send(c.f) = _bk_features_send(o.f))
FROM fio_bin c JOIN fio o USING (id);

-- what a literal must say: a bare one has no form, a prefix that is not
-- one of the eight is no form either; after a prefix, the type's own
-- input decides (shown by SQLSTATE: the wording is the server's)
CREATE FUNCTION pg_temp.state(lit text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM lit::bk_features;
	RETURN 'read';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE;
END $$;
SELECT lit, pg_temp.state(lit) AS sqlstate
FROM unnest(ARRAY['{1,2}', 'float8[]{1,2}', 'float[]:{1,2}', 'bool[]:{t}', ' float8[]:{1}', 'FLOAT8[]:{1}',
                  'float8[]:{1,x}', 'int4[]:{1.5}', 'jsonb:{', 'bk_sparse:{0:1}/3', 'float8[]:{1,2}', 'jsonb:[1]']) lit;
SELECT '{0.5, 0.5}'::bk_features;
