--
-- Provenance: bk_info's fingerprint is the SHA-256 of the model's bytes
-- (sha256(model::bytea) in SQL), and parents lists the fingerprints of
-- the stored models a model was continued, merged or calibrated from.
--
SET client_min_messages = warning;
\i test/fixtures/checkerboard.sql
CREATE TABLE pv_rows AS SELECT * FROM bk_test.checkerboard(600);
CREATE TABLE pv_models AS
SELECT (SELECT bk_train(features, label, '{"budget": 30, "gamma": 20}' ORDER BY id) FROM pv_rows WHERE id <= 300) AS a,
       (SELECT bk_train(features, label, '{"budget": 30, "gamma": 20}' ORDER BY id) FROM pv_rows WHERE id > 300) AS b;

SELECT bk_info(a)->>'fingerprint' = encode(sha256(a::bytea), 'hex') AS fingerprint_is_sha256,
       bk_info(a)->'parents' AS trained_has_none
FROM pv_models;
-- continued: its base; merged: both, in order; calibrated: its model
SELECT bk_info(bk_continue(r.features, r.label, m.a ORDER BY r.id))->'parents'
       = jsonb_build_array(encode(sha256(m.a::bytea), 'hex')) AS continued_from_base
FROM pv_rows r, pv_models m WHERE r.id > 590 GROUP BY m.a;
SELECT bk_info(bk_merge(a, b))->'parents'
       = jsonb_build_array(encode(sha256(a::bytea), 'hex'), encode(sha256(b::bytea), 'hex')) AS merged_from_both,
       bk_info(bk_merge(a, b))->'parents' = (SELECT bk_info(bk_merge(m ORDER BY k))->'parents'
                                             FROM (SELECT 1 AS k, a AS m FROM pv_models
                                                   UNION ALL SELECT 2, b FROM pv_models) s) AS aggregate_same
FROM pv_models;
SELECT bk_info(bk_calibrate(m.a, r.features, r.label))->'parents'
       = jsonb_build_array(encode(sha256(m.a::bytea), 'hex')) AS calibrated_from_model
FROM pv_rows r, pv_models m WHERE r.id > 300 GROUP BY m.a;
-- a continued model's parent is the one before, not the whole history
SELECT bk_info(c)->'parents' = jsonb_build_array(encode(sha256(c0::bytea), 'hex')) AS one_generation
FROM (SELECT c0, bk_continue(r.features, r.label, c0 ORDER BY r.id) AS c
      FROM pv_rows r,
           (SELECT bk_continue(r2.features, r2.label, m.a ORDER BY r2.id) AS c0
            FROM pv_rows r2, pv_models m WHERE r2.id BETWEEN 301 AND 400 GROUP BY m.a) s
      WHERE r.id > 400 GROUP BY c0) t;
DROP TABLE pv_rows, pv_models;
