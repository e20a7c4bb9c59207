--
-- bk_refit (doc/refit.md): a model's coefficients solved again over its
-- kept support vectors, by ridge regression over the basis in one scan.
-- A regressor's training error falls against the online model's; the
-- SVs and the kernel stay; the bytes are the same for the same rows in
-- the same order; the model is valid, scored, continued and merged; bad
-- input gets its SQLSTATE.
--
SET client_min_messages = warning;
\set SHOW_CONTEXT never

-- Friedman's first function of five inputs, the inputs spread by Weyl
-- sequences (no random(): the same rows on every server)
CREATE TABLE fr AS
SELECT g AS id, ARRAY[a, b, c, d, e]::float8[] AS x,
       10 * sin(pi() * a * b) + 20 * (c - 0.5) ^ 2 + 10 * d + 5 * e AS y
FROM (SELECT g, (g * 0.6180339887498949) % 1 AS a, (g * 0.4142135623730950) % 1 AS b,
             (g * 0.7320508075688772) % 1 AS c, (g * 0.2360679774997897) % 1 AS d,
             (g * 0.6457513110645906) % 1 AS e
      FROM generate_series(1, 800) g) s;
CREATE TABLE rm AS
SELECT bk_train(x, y, '{"budget": 40, "gamma": 1}' ORDER BY id) AS online FROM fr;
ALTER TABLE rm ADD COLUMN refit bk_model, ADD COLUMN again bk_model;
UPDATE rm SET refit = (SELECT bk_refit(rm.online, x, y, NULL ORDER BY id) FROM fr),
              again = (SELECT bk_refit(rm.online, x, y, '{}' ORDER BY id) FROM fr);

-- the refit's training error is below the online model's (the same rows)
SELECT (SELECT avg((y - bk_predict_value(refit, x)) ^ 2) FROM fr) <
       (SELECT avg((y - bk_predict_value(online, x)) ^ 2) FROM fr) AS refit_lowers_mse,
       (SELECT (bk_metrics(y, bk_predict_value(refit, x))->>'r2')::float8 FROM fr) >
       (SELECT (bk_metrics(y, bk_predict_value(online, x))->>'r2')::float8 FROM fr) AS refit_raises_r2
FROM rm;
-- valid; the same bytes twice (NULL and '{}' are the defaults); not the online model's
SELECT bk_is_valid(refit::bytea) AS valid, md5(refit::text) = md5(again::text) AS same_bytes,
       md5(refit::text) <> md5(online::text) AS new_coefficients
FROM rm;
-- the same support vectors and kernel, the same rows seen
SELECT (SELECT array_agg(x ORDER BY sv) FROM bk_support_vectors(online)) =
       (SELECT array_agg(x ORDER BY sv) FROM bk_support_vectors(refit)) AS same_svs,
       bk_info(online)->'params' = bk_info(refit)->'params' AS same_params,
       bk_info(online)->'rows_seen' = bk_info(refit)->'rows_seen' AS same_rows
FROM rm;
-- a larger lambda shrinks the coefficients
SELECT (SELECT sum(coef[1] ^ 2) FROM bk_support_vectors(r1)) >
       (SELECT sum(coef[1] ^ 2) FROM bk_support_vectors(r2)) AS lambda_shrinks
FROM (SELECT (SELECT bk_refit(online, x, y, '{"lambda": 1e-5}' ORDER BY id) FROM fr) AS r1,
             (SELECT bk_refit(online, x, y, '{"lambda": 1e-1}' ORDER BY id) FROM fr) AS r2
      FROM rm) q;
-- continued and merged like any model
SELECT bk_is_valid(bk_continue(x, y, refit ORDER BY id)::bytea) AS continues,
       bk_is_valid(bk_merge(refit, online)::bytea) AS merges
FROM fr, rm GROUP BY refit, online;
-- an int8 target of a regressor is a number too; no usable row gives NULL
SELECT bk_is_valid(bk_refit(online, x, round(y)::int8, NULL ORDER BY id)::bytea) AS int8_target
FROM fr, rm GROUP BY online;
SELECT bk_refit(online, x, NULL::float8, NULL) IS NULL AS no_rows FROM fr, rm GROUP BY online;

-- the sums add up: a parallel plan (Partial Aggregate in the workers,
-- their states serialised, combined, then finalised) gives the serial
-- refit's predictions, to rounding (the order of the additions differs)
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT bk_is_valid(p::bytea) AS parallel_valid,
       (SELECT max(abs(bk_predict_value(p, x) - bk_predict_value(s, x))) FROM fr) < 1e-6 AS parallel_agrees
FROM (SELECT bk_refit((SELECT online FROM rm), x, y, NULL) AS p FROM fr) q,
     (SELECT refit AS s FROM rm) r;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- classifiers: a binary one (its intercept is the bias part), text
-- labels, one-vs-rest machines and Pegasos' shared basis
CREATE TABLE fc AS
SELECT id, x, (y > 14)::int::int8 AS label,
       CASE WHEN y < 11 THEN 'low' WHEN y < 17 THEN 'mid' ELSE 'high' END AS grade
FROM fr;
CREATE TABLE cm AS
SELECT (SELECT bk_train(x, label, '{"budget": 30, "gamma": 1}' ORDER BY id) FROM fc) AS bin,
       (SELECT bk_train(x, grade, '{"budget": 30, "gamma": 1}' ORDER BY id) FROM fc) AS ovr,
       (SELECT bk_train(x, grade, '{"algorithm": "pegasos", "budget": 30, "gamma": 1}' ORDER BY id) FROM fc) AS peg;
CREATE TABLE cr AS
SELECT (SELECT bk_refit(bin, x, label, NULL ORDER BY id) FROM fc) AS bin,
       (SELECT bk_refit(ovr, x, grade, NULL ORDER BY id) FROM fc) AS ovr,
       (SELECT bk_refit(peg, x, grade, NULL ORDER BY id) FROM fc) AS peg
FROM cm;
SELECT bk_is_valid(bin::bytea) AND bk_is_valid(ovr::bytea) AND bk_is_valid(peg::bytea) AS valid,
       bk_info(bin)->'classes' AS bin_classes, bk_info(ovr)->'classes' AS ovr_classes
FROM cr;
-- scored by every classifier's function; better than always the larger class
SELECT avg((bk_predict(bin, x) = label)::int) > (SELECT max(n) FROM (SELECT avg((label = l)::int) AS n FROM fc, (VALUES (0), (1)) v(l) GROUP BY l) q) AS bin_beats_majority,
       avg((bk_predict_label(ovr, x) = grade)::int) > 0.5 AS ovr_scores,
       avg((bk_predict_label(peg, x) = grade)::int) > 0.5 AS peg_scores,
       bool_and(bk_decision(bin, x) IS NOT NULL) AS decisions
FROM fc, cr;
SELECT bk_is_valid(bk_continue(x, grade, ovr ORDER BY id)::bytea) AS ovr_continues,
       bk_is_valid(bk_continue(x, grade, peg ORDER BY id)::bytea) AS peg_continues,
       bk_is_valid(bk_continue(x, label, bin ORDER BY id)::bytea) AS bin_continues
FROM fc, cr GROUP BY ovr, peg, bin;

-- bad input
\set VERBOSITY sqlstate
-- the wrong dimension (22000), a NaN feature (22000), a NaN target (22023)
SELECT bk_refit(online, ARRAY[1, 2]::float8[], y, NULL) FROM fr, rm GROUP BY online;
SELECT bk_refit(online, ARRAY[1, 2, 'NaN', 4, 5]::float8[], y, NULL) FROM fr, rm GROUP BY online;
SELECT bk_refit(online, x, 'NaN'::float8, NULL) FROM fr, rm GROUP BY online;
-- labels of the other kind (42804): text for a regressor, integers for text classes
SELECT bk_refit(online, x, y::text, NULL) FROM fr, rm GROUP BY online;
SELECT bk_refit(ovr, x, label, NULL) FROM fc, cm GROUP BY ovr;
-- a label that is not a class of the model (22000)
SELECT bk_refit(bin, x, 7::int8, NULL) FROM fc, cm GROUP BY bin;
-- parameters (22023): lambda not above 0, an unknown key
SELECT bk_refit(online, x, y, '{"lambda": 0}') FROM fr, rm GROUP BY online;
SELECT bk_refit(online, x, y, '{"budget": 10}') FROM fr, rm GROUP BY online;
-- a NULL model (22004)
SELECT bk_refit(NULL::bk_model, x, y, NULL) FROM fr;
-- models whose coefficients a refit cannot replace (0A000): SPA (it
-- predicts with its averaged expansion), a novelty detector
CREATE TABLE other AS
SELECT (SELECT bk_train(x, label, '{"algorithm": "spa", "gamma": 1}' ORDER BY id) FROM fc) AS spa,
       (SELECT bk_train(x, NULL, '{"task": "novelty", "budget": 20, "gamma": 1}' ORDER BY id) FROM fc) AS novelty;
SELECT bk_refit(spa, x, label, NULL) FROM fc, other GROUP BY spa;
SELECT bk_refit(novelty, x, label, NULL) FROM fc, other GROUP BY novelty;
-- a refit beyond the memory limit (54000), refused before allocating:
-- a model of 12,000 SVs (imported from LIBSVM text) needs (B + 1)^2
-- doubles, over 1 GB
CREATE TABLE big AS
SELECT bk_import(convert_to(
  E'svm_type c_svc\nkernel_type rbf\ngamma 1\nnr_class 2\ntotal_sv 12000\nrho 0\nlabel 0 1\nnr_sv 6000 6000\nSV\n' ||
  string_agg(CASE WHEN g <= 6000 THEN '1' ELSE '-1' END || ' 1:' || ((g * 0.6180339887498949) % 1) ||
             ' 2:' || ((g * 0.4142135623730950) % 1), E'\n' ORDER BY g) || E'\n',
  'UTF8'), 'libsvm') AS m
FROM generate_series(1, 12000) g;
SELECT (bk_info(m)->>'n_sv')::int AS n_sv FROM big;
SELECT bk_refit(m, ARRAY[0.5, 0.5]::float8[], 1::int8, NULL) FROM big;
-- the messages say which model and which limit
\set VERBOSITY terse
SELECT bk_refit(spa, x, label, NULL) FROM fc, other GROUP BY spa;
SELECT bk_refit(novelty, x, label, NULL) FROM fc, other GROUP BY novelty;
SELECT bk_refit(m, ARRAY[0.5, 0.5]::float8[], 1::int8, NULL) FROM big;
\set VERBOSITY default
