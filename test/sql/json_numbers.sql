--
-- The JSON numbers of named features, read as doubles: straight from the
-- numeric's digits when the significand (at most 2^53) and the power of
-- ten (at most 10^22 either way) give the correctly rounded double in one
-- operation, else by printing the number; either way the value of
-- numeric's cast to float8, bit for bit (doc/preparation.md).  Every
-- number below is a key of its own in one object; a model trained on two
-- such rows keeps each key's mean, which is the number read, printed
-- exactly (extra_float_digits = 3).
--
SET client_min_messages = error;
SET extra_float_digits = 3;
CREATE TEMP TABLE nums AS
WITH fixed(t, k) AS (SELECT * FROM unnest(ARRAY['0', '-0', '0.000', '-0.0', '1', '-1', '1e22', '1e23',
  '1e-22', '1e-23', '9007199254740992', '9007199254740993', '9007199254740991', '18014398509481984',
  '0.1', '0.2', '0.3', '123456789012345678', '12345678901234567890123', '0.30000000000000004',
  '3.141592653589793', '2.718281828459045', '100000000000000000000000', '0.000000000000000000001',
  '1.5e100', '-2.5e-300', '4.9406564584124654e-324', '2.2250738585072014e-308', '4.35', '0.5',
  '1e21', '8.7e-5', '12345678901234567e-20', '-98765432109876543e5', '1.0000000000000002',
  '0.99999999999999989', '123.456e-2', '7e-10', '-0.000001']) WITH ORDINALITY),
-- integers, exponents, decimals and fractions of 1 to 20 digits
gen AS (
  SELECT i, (CASE WHEN i % 3 = 0 THEN '-' ELSE '' END) ||
         substr(regexp_replace(md5(i::text) || md5((i * 7)::text), '[a-f]', '', 'g'), 1, 1 + i % 20) AS digits,
         (i * 37) % 61 - 30 AS e, i % 4 AS form
  FROM generate_series(1, 4000) i)
SELECT row_number() OVER (ORDER BY k) AS n, t FROM (
  SELECT k - 1000 AS k, t FROM fixed
  UNION ALL
  SELECT i, CASE form WHEN 0 THEN digits
                      WHEN 1 THEN digits || 'e' || e
                      WHEN 2 THEN regexp_replace(digits, '^(-?[0-9])', '\1.') || 'e' || e
                      ELSE regexp_replace(digits, '^(-?)', '\10.') END
  FROM gen) s;
SELECT count(*) AS numbers, count(DISTINCT t::numeric) AS distinct_values,
       count(*) FILTER (WHERE length(regexp_replace(t, '[^0-9]', '', 'g')) >= 17) AS digits_17_or_more
FROM nums;
CREATE TEMP TABLE jm AS
SELECT bk_train(x, l, '{}') AS model
FROM (SELECT jsonb_object_agg(format('k%s', lpad(n::text, 5, '0')), t::numeric) AS x
      FROM nums) o,
     (VALUES ('a'), ('b')) v(l);
-- every number's double is numeric's cast to float8, and prints the same
SELECT count(*) AS inputs,
       count(*) FILTER (WHERE (i->>'mean')::float8 = t::numeric::float8
                          AND (i->>'mean')::float8::text = t::numeric::float8::text) AS same_double
FROM jm, jsonb_array_elements(bk_info(model)->'preparation'->'inputs') i
     JOIN nums ON i->>'name' = format('k%s', lpad(n::text, 5, '0'));
-- the model's bytes, as the numbers printed and read gave them (0.4.0)
SELECT md5(model::bytea) AS model FROM jm;
-- out of float8's range either way: an error naming the key
SELECT bk_train(x, l, '{}')
FROM (VALUES ('{"a": 1, "b": 1e400}'::jsonb, 'x'), ('{"a": 2, "b": 1}', 'y')) v(x, l);
SELECT bk_train(x, l, '{}')
FROM (VALUES ('{"a": 1, "b": -1e-400}'::jsonb, 'x'), ('{"a": 2, "b": 1}', 'y')) v(x, l);
