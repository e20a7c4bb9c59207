--
-- The bk_model type: text and binary I/O, casts to and from bytea,
-- validation of untrusted bytes, bk_is_valid, bk_info, bk_support_vectors.
--
SET client_min_messages = warning;
\set SHOW_CONTEXT never

\i test/fixtures/checkerboard.sql
CREATE TABLE pts AS SELECT * FROM bk_test.checkerboard(300);

CREATE TABLE models AS
SELECT v AS variant,
       bk_train(features, label, jsonb_build_object('variant', v, 'budget', 12, 'gamma', 8) ORDER BY id) AS m
FROM pts, unnest(ARRAY['s', 'nn', 'p']) v GROUP BY v;

-- a small model, shown whole (its fingerprint, the hash of its bytes,
-- on its own line below)
SELECT bk_info(m) - 'fingerprint' AS info,
       bk_info(m)->>'fingerprint' = encode(sha256(m::bytea), 'hex') AS fingerprint_is_the_hash
FROM models WHERE variant = 'nn';
-- the same bytes on every CPU (doc/maintainers.md, Determinism), so the
-- same fingerprints
SELECT variant, bk_info(m)->>'fingerprint' AS fingerprint FROM models ORDER BY variant;
SELECT sv, x, (SELECT array_agg(round(c::numeric, 6)) FROM unnest(coef) c) AS coef
FROM bk_support_vectors((SELECT m FROM models WHERE variant = 'nn')) LIMIT 3;
SELECT count(*) AS n_sv FROM bk_support_vectors((SELECT m FROM models WHERE variant = 'nn'));

-- text output is the hex of the binary format, starting with the magic
SELECT variant, left(m::text, 10) AS head FROM models ORDER BY variant;

-- text, bytea and binary-send round trips give the same bytes and predictions
SELECT variant,
       m::text::bk_model::bytea = m::bytea AS text_round_trip,
       m::bytea::bk_model::bytea = m::bytea AS bytea_round_trip,
       _bk_model_send(m) = m::bytea AS send_is_bytea,
       (SELECT bool_and(bk_predict(m, features) = bk_predict(m::text::bk_model, features)
                    AND bk_decision(m, features) = bk_decision(m::bytea::bk_model, features))
        FROM pts) AS same_predictions
FROM models ORDER BY variant;

-- binary COPY round trip
CREATE TABLE copied (variant text, m bk_model);
\copy models TO 'results/models.bin' WITH (FORMAT binary)
\copy copied FROM 'results/models.bin' WITH (FORMAT binary)
SELECT c.variant, c.m::bytea = o.m::bytea AS identical FROM copied c JOIN models o USING (variant) ORDER BY 1;

-- bk_is_valid never raises
SELECT bk_is_valid(m::bytea) AS valid FROM models ORDER BY variant;
SELECT bk_is_valid(''::bytea), bk_is_valid('\x00'::bytea), bk_is_valid('\x0011223344556677'::bytea),
       bk_is_valid(decode(repeat('ff', 100), 'hex'));
SELECT bk_is_valid(substr(m::bytea, 1, length(m::bytea) - 1)) AS truncated,
       bk_is_valid(m::bytea || '\x00'::bytea) AS extended,
       bk_is_valid(set_byte(m::bytea, 40, get_byte(m::bytea, 40) # 1)) AS flipped
FROM models WHERE variant = 'p';

-- every one-byte change is refused by the cast, never a crash
SELECT count(*) FILTER (WHERE bk_is_valid(set_byte(b, i, get_byte(b, i) # 16))) AS accepted,
       count(*) AS tried
FROM (SELECT m::bytea AS b FROM models WHERE variant = 'nn') s,
     generate_series(0, length(b) - 1) i;

-- invalid bytes: a clear error
SELECT '\x0011223344556677'::bytea::bk_model;
SELECT ''::bytea::bk_model;
SELECT substr(m::bytea, 1, 30)::bk_model FROM models WHERE variant = 's';
SELECT set_byte(m::bytea, 60, get_byte(m::bytea, 60) # 1)::bk_model FROM models WHERE variant = 's';
-- a model from a newer format version
SELECT set_byte(m::bytea, 4, 9)::bk_model FROM models WHERE variant = 's';
-- text input that is not hex, or not a model
SELECT 'hello'::bk_model;
SELECT '\xzz'::bk_model;
SELECT '\x424b4d44'::bk_model;

-- equality is bytewise (one byte form per model): DISTINCT, UNION and
-- GROUP BY work on a model column, hashed or sorted
SELECT count(*) AS models, count(DISTINCT m) AS distinct_models FROM models;
SELECT count(*) AS union_rows FROM (SELECT m FROM models UNION SELECT m FROM models) u;
SELECT a.variant, b.variant, a.m = b.m AS eq, a.m <> b.m AS ne
FROM models a, models b ORDER BY 1, 2;
SET enable_hashagg = off;
SELECT count(*) AS groups FROM (SELECT m FROM models GROUP BY m) g;
RESET enable_hashagg;
SELECT count(*) AS groups FROM (SELECT m FROM models, generate_series(1, 3) GROUP BY m) g;
SELECT (SELECT m FROM models WHERE variant = 's')::text::bk_model =
       (SELECT m FROM models WHERE variant = 's') AS text_round_trip_equal;

-- the server is still up
SELECT 1 AS alive;

DROP TABLE pts, models, copied;
