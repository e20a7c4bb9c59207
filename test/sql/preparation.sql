--
-- Feature preparation carried by the model (issue: features as users have
-- them): "scale": "standard" and "impute": "mean" on features arrays, and
-- rows of named features (jsonb) with numeric, text and missing values.
-- A prepared model must give exactly the predictions of an unprepared
-- model trained on rows prepared by hand in SQL (avg, stddev_pop, one-hot
-- with the training rows' vocabulary), in the same order.
--
\i test/fixtures/without_parents.sql

-- rows of three numeric columns on very different scales, with a class
-- that depends on all of them, a text column, and some missing values
CREATE TABLE prep_rows AS
SELECT i AS id,
       1000 + 800 * u1 AS big,
       0.002 * u2 AS small,
       100 * u3 - 50 AS mid,
       (ARRAY['red', 'green', 'blue'])[1 + i * 31 % 3] AS colour,
       CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 13 % 17) / 4.0::float8 END AS gappy,
       CASE WHEN (u1 - 0.5) + (u2 - 0.5) * (u3 - 0.5) * 4
                 + CASE (ARRAY['red', 'green', 'blue'])[1 + i * 31 % 3] WHEN 'red' THEN 0.3 ELSE -0.15 END > 0
            THEN 1 ELSE -1 END AS label
FROM generate_series(1, 600) i,
     LATERAL (SELECT (i * 7919 % 1009) / 1009.0::float8 AS u1, (i * 104729 % 997) / 997.0::float8 AS u2,
                     (i * 1299709 % 991) / 991.0::float8 AS u3) u;

-- 1. "scale": "standard" on arrays = training on rows standardised in SQL
CREATE TABLE prep_stats AS
SELECT avg(big) AS m1, stddev_pop(big) AS s1, avg(small) AS m2, stddev_pop(small) AS s2,
       avg(mid) AS m3, stddev_pop(mid) AS s3
FROM prep_rows WHERE id <= 400;
CREATE TABLE prep_models AS
SELECT (SELECT bk_train(ARRAY[big, small, mid], label, '{"scale": "standard", "gamma": 0.5, "budget": 50}' ORDER BY id)
        FROM prep_rows WHERE id <= 400) AS prepared,
       (SELECT bk_train(ARRAY[(big - m1) / s1, (small - m2) / s2, (mid - m3) / s3], label,
                        '{"gamma": 0.5, "budget": 50}' ORDER BY id)
        FROM prep_rows, prep_stats WHERE id <= 400) AS by_hand,
       (SELECT bk_train(ARRAY[big, small, mid], label, '{"gamma": 0.5, "budget": 50}' ORDER BY id)
        FROM prep_rows WHERE id <= 400) AS raw;
SELECT count(*) AS test_rows,
       count(*) FILTER (WHERE bk_decision(prepared, ARRAY[big, small, mid])
                              = bk_decision(by_hand, ARRAY[(big - m1) / s1, (small - m2) / s2, (mid - m3) / s3])) AS same_decisions,
       avg((bk_predict(prepared, ARRAY[big, small, mid]) = label)::int) > avg((bk_predict(raw, ARRAY[big, small, mid]) = label)::int) AS beats_raw
FROM prep_rows, prep_models, prep_stats WHERE id > 400;
-- the support vectors are the hand-prepared ones, bit for bit
SELECT (SELECT array_agg(x ORDER BY sv) FROM bk_support_vectors(prepared))
       = (SELECT array_agg(x ORDER BY sv) FROM bk_support_vectors(by_hand)) AS same_support_vectors
FROM prep_models;
SELECT bk_info(prepared)->'preparation'->>'features' AS features,
       bk_info(prepared)->'preparation'->>'scale' AS scale,
       jsonb_array_length(bk_info(prepared)->'preparation'->'inputs') AS inputs,
       (bk_info(prepared)->'preparation'->'inputs'->0->>'count')::int AS count,
       abs((bk_info(prepared)->'preparation'->'inputs'->0->>'mean')::float8 - m1) < 1e-9 AS mean_is_avg,
       abs((bk_info(prepared)->'preparation'->'inputs'->0->>'scale')::float8 - s1) < 1e-9 AS scale_is_stddev_pop,
       bk_info(by_hand)->'preparation' AS unprepared
FROM prep_models, prep_stats;
-- scoring checks the model's inputs, not its prepared columns
SELECT bk_predict(prepared, ARRAY[1.0, 2.0]) FROM prep_models;

-- 2. "impute": "mean": a NULL element is the training mean of its column
CREATE TABLE prep_impute AS
SELECT (SELECT bk_train(ARRAY[big, gappy], label, '{"scale": "standard", "impute": "mean", "gamma": 0.5, "budget": 50}' ORDER BY id)
        FROM prep_rows WHERE id <= 400) AS prepared,
       (SELECT bk_train(ARRAY[(big - m1) / s1, coalesce((gappy - mg) / sg, 0)], label, '{"gamma": 0.5, "budget": 50}' ORDER BY id)
        FROM prep_rows, prep_stats,
             (SELECT avg(gappy) AS mg, stddev_pop(gappy) AS sg FROM prep_rows WHERE id <= 400) g
        WHERE id <= 400) AS by_hand;
SELECT count(*) FILTER (WHERE gappy IS NULL) AS missing,
       count(*) FILTER (WHERE bk_decision(prepared, ARRAY[big, gappy])
                              = bk_decision(by_hand, ARRAY[(big - m1) / s1, coalesce((gappy - mg) / sg, 0)])) AS same_decisions,
       count(*) AS test_rows
FROM prep_rows, prep_impute, prep_stats,
     (SELECT avg(gappy) AS mg, stddev_pop(gappy) AS sg FROM prep_rows WHERE id <= 400) g
WHERE id > 400;
-- imputation alone, without scaling: the mean itself
SET client_min_messages = error;
SELECT bk_info(bk_train(ARRAY[gappy], label, '{"impute": "mean"}'))->'preparation'->'inputs'->0->>'center' AS center_without_scaling
FROM prep_rows;
RESET client_min_messages;
-- NULL elements stay an error without imputation, with a hint
SELECT bk_train(ARRAY[big, gappy], label, '{}') FROM prep_rows;
-- the SQLSTATE, then the message and hint (verbose output would show source lines)
\set VERBOSITY sqlstate
SELECT bk_train(ARRAY[big, gappy], label, '{"scale": "standard"}') FROM prep_rows;
SELECT bk_predict(prepared, ARRAY[big, small, NULL]) FROM prep_models, prep_rows WHERE id = 1;
\set VERBOSITY default
SELECT bk_train(ARRAY[big, gappy], label, '{"scale": "standard"}') FROM prep_rows;
SELECT bk_predict(prepared, ARRAY[big, small, NULL]) FROM prep_models, prep_rows WHERE id = 1;
SELECT bk_decision(prepared, ARRAY[big, NULL]) = bk_decision(prepared, ARRAY[big, mg]) AS imputes_the_mean_at_scoring
FROM prep_impute, prep_rows, (SELECT avg(gappy) AS mg FROM prep_rows WHERE id <= 400) g WHERE id = 1;
SELECT bk_train(ARRAY[big], label, '{"scale": "minmax"}') FROM prep_rows;
SELECT bk_train(ARRAY[big], label, '{"impute": true}') FROM prep_rows;
SELECT bk_train(ARRAY[big], label, '{"max_levels": 0}') FROM prep_rows;

-- 3. named features: numbers standardised, text one-hot with the training
-- vocabulary in byte order, keys in byte order of their names
-- (big, colour: blue green red, gappy, mid), missing values imputed
CREATE TABLE prep_named AS
SELECT (SELECT bk_train(jsonb_build_object('mid', mid, 'big', big, 'colour', colour, 'gappy', gappy), label,
                        '{"gamma": 0.5, "budget": 50}' ORDER BY id)
        FROM prep_rows WHERE id <= 400) AS named,
       (SELECT bk_train(ARRAY[(big - m1) / s1, (colour = 'blue')::int, (colour = 'green')::int, (colour = 'red')::int,
                              coalesce((gappy - mg) / sg, 0), (mid - m3) / s3], label,
                        '{"gamma": 0.5, "budget": 50}' ORDER BY id)
        FROM prep_rows, prep_stats,
             (SELECT avg(gappy) AS mg, stddev_pop(gappy) AS sg FROM prep_rows WHERE id <= 400) g
        WHERE id <= 400) AS one_hot_by_hand;
SELECT count(*) AS test_rows,
       count(*) FILTER (WHERE bk_decision(named, to_jsonb(r))
                              = bk_decision(one_hot_by_hand,
                                            ARRAY[(big - m1) / s1, (colour = 'blue')::int, (colour = 'green')::int,
                                                  (colour = 'red')::int, coalesce((gappy - mg) / sg, 0), (mid - m3) / s3]))
         AS same_decisions_from_whole_rows
FROM prep_rows r, prep_named, prep_stats,
     (SELECT avg(gappy) AS mg, stddev_pop(gappy) AS sg FROM prep_rows WHERE id <= 400) g
WHERE id > 400;
SELECT bk_info(named)->>'dim' AS dim,
       jsonb_path_query_array(bk_info(named)->'preparation'->'inputs', '$[*].name') AS names,
       jsonb_path_query_array(bk_info(named)->'preparation'->'inputs', '$[*].kind') AS kinds,
       bk_info(named)->'preparation'->'inputs'->1->'levels' AS levels,
       bk_info(named)->'preparation'->'inputs'->1->'column' AS first_colour_column
FROM prep_named;
-- an unknown colour sets no column (as one-hot), a missing key or a null is imputed
SELECT bk_decision(named, '{"big": 1000, "mid": 3, "colour": "purple", "gappy": 1}'::jsonb)
       = bk_decision(one_hot_by_hand, ARRAY[(1000 - m1) / s1, 0, 0, 0, (1 - mg) / sg, (3 - m3) / s3]) AS unknown_category,
       bk_decision(named, '{"big": 1000, "mid": 3, "colour": "red"}'::jsonb)
       = bk_decision(named, '{"big": 1000, "mid": 3, "colour": "red", "gappy": null}'::jsonb) AS absent_is_null,
       bk_decision(named, '{"big": 1000, "mid": 3, "colour": "red"}'::jsonb)
       = bk_decision(one_hot_by_hand, ARRAY[(1000 - m1) / s1, 0, 0, 1, 0, (3 - m3) / s3]) AS missing_is_mean
FROM prep_named, prep_stats,
     (SELECT avg(gappy) AS mg, stddev_pop(gappy) AS sg FROM prep_rows WHERE id <= 400) g;
-- keys the model was not trained on (issue 34, item 1): a row that names
-- none of the model's keys is an error naming both, not a row scored as
-- the training mean (an empty object; keys in another case); rows that
-- lack some keys are scored, imputed, with one WARNING per call site that
-- counts them and names the keys; a JSON null is named (no warning), and
-- keys the model does not know are not warned of
SELECT bk_decision(named, '{}'::jsonb) FROM prep_named;
SELECT bk_decision(named, '{"BIG": 1000, "Mid": 3}'::jsonb) FROM prep_named;
SELECT count(*) AS scored
FROM prep_named, prep_rows r
WHERE bk_decision(named, jsonb_build_object('big', big, 'mid', mid, 'colour', colour,
                                            CASE WHEN id % 4 = 0 THEN 'Gappy' ELSE 'gappy' END, gappy)) IS NOT NULL;
SELECT count(*) AS scored_with_nulls_and_extra_keys
FROM prep_named, prep_rows r
WHERE bk_decision(named, jsonb_build_object('big', big, 'mid', mid, 'colour', colour, 'gappy', NULL::float8,
                                            'id', id, 'label', label)) IS NOT NULL;
SELECT bk_info(bk_continue(jsonb_build_object('big', big, 'mid', mid), label, named ORDER BY id))->>'rows_seen' AS rows_seen
FROM prep_named, prep_rows WHERE id > 450;
SET budgetkernel.run_warnings = off;
SELECT count(*) AS scored_quietly
FROM prep_named, prep_rows r WHERE bk_decision(named, jsonb_build_object('big', big)) IS NOT NULL;
RESET budgetkernel.run_warnings;

-- text labels, booleans and integers (to_jsonb of whole rows)
-- (flag is the label in another form: the run warns of a leak)
SELECT bk_predict_label(m, '{"flag": true, "n": 3}'::jsonb) AS predicted,
       bk_info(m)->'preparation'->'inputs'->0->'levels' AS boolean_levels
FROM (SELECT bk_train(jsonb_build_object('flag', i % 2 = 0, 'n', i % 7), CASE WHEN i % 2 = 0 THEN 'even' ELSE 'odd' END, '{}') AS m
      FROM generate_series(1, 200) i) s;

-- 4. continued, merged, calibrated, through bytes: the preparation stays
CREATE TABLE prep_more AS
SELECT (SELECT bk_continue(to_jsonb(r) - 'label' - 'id', label, named ORDER BY id)
        FROM prep_rows r WHERE id > 400) AS continued,
       (SELECT bk_train(jsonb_build_object('mid', mid, 'big', big, 'colour', colour, 'gappy', gappy), label,
                        '{"gamma": 0.5, "budget": 50}' ORDER BY id)
        FROM prep_rows WHERE id > 300) AS other_half,
       named
FROM prep_named;
SELECT bk_info(continued)->'preparation' = bk_info(named)->'preparation' AS continued_keeps_preparation,
       (bk_info(continued)->>'rows_seen')::int AS rows_seen,
       named::bytea::bk_model = named AS bytes_round_trip,
       bk_is_valid(continued::bytea) AS valid
FROM prep_more;
-- merged halves: the statistics of both (count and mean of the union)
SELECT (bk_info(m)->'preparation'->'inputs'->0->>'count')::int AS pooled_count,
       abs((bk_info(m)->'preparation'->'inputs'->0->>'mean')::float8
           - (SELECT avg(big) FROM prep_rows WHERE id <= 400 OR id > 300) * 0
           - ((SELECT sum(big) FROM prep_rows WHERE id <= 400) + (SELECT sum(big) FROM prep_rows WHERE id > 300)) / 700) < 1e-9 AS pooled_mean,
       bk_is_valid(m::bytea) AS valid,
       (SELECT avg((bk_predict(m, to_jsonb(r)) = label)::int) FROM prep_rows r) > 0.7 AS accurate
FROM (SELECT bk_merge(named, other_half) AS m FROM prep_more) s;
-- a model of another vocabulary merges into the union of both
-- preparations (section 8); a key of another kind, or an unprepared
-- model, does not merge
SELECT bk_info(m)->>'dim' AS dim, bk_info(m)->'preparation'->'inputs'->1->'levels' AS colour_levels,
       bk_is_valid(m::bytea) AS valid
FROM (SELECT bk_merge(named, (SELECT bk_train(jsonb_build_object('mid', mid, 'big', big, 'colour', colour || 'x', 'gappy', gappy), label,
                                              '{"gamma": 0.5, "budget": 50}') FROM prep_rows)) AS m
      FROM prep_named) s;
SELECT bk_merge(named, (SELECT bk_train(jsonb_build_object('mid', mid, 'big', big, 'colour', length(colour), 'gappy', gappy), label,
                                        '{"gamma": 0.5, "budget": 50}') FROM prep_rows))
FROM prep_named;
SELECT bk_merge(prepared, raw) FROM prep_models;
-- calibration reads named rows too
SELECT abs((SELECT sum(p) FROM unnest(bk_probabilities(c, '{"big": 900, "colour": "red"}'::jsonb)) p) - 1) < 1e-12 AS sums_to_one
FROM (SELECT bk_calibrate(named, to_jsonb(r), label) AS c FROM prep_rows r, prep_named WHERE id > 400 GROUP BY named) s;

-- 5. epochs: = continuing on the shuffles, with the first pass's preparation
SELECT bk_test.without_parents(two) = bk_test.without_parents(continued) AS epochs_equal_continued
FROM (SELECT (SELECT bk_train(jsonb_build_object('big', big, 'colour', colour), label, '{"gamma": 0.5, "budget": 30, "seed": 4, "epochs": 2}' ORDER BY id)
              FROM prep_rows) AS two,
             (SELECT bk_continue(jsonb_build_object('big', big, 'colour', colour), label, one ORDER BY bk_shuffle_key(id, 5))
              FROM prep_rows,
                   (SELECT bk_train(jsonb_build_object('big', big, 'colour', colour), label, '{"gamma": 0.5, "budget": 30, "seed": 4}' ORDER BY id) AS one
                    FROM prep_rows) o
              GROUP BY one) AS continued) s;

-- 6. bad input in the named form
SELECT bk_train(jsonb_build_object('x', CASE WHEN i < 5 THEN to_jsonb(i) ELSE to_jsonb('a'::text) END), i % 2, '{}')
FROM generate_series(1, 10) i;
SELECT bk_train(jsonb_build_object('x', ARRAY[i]), i % 2, '{}') FROM generate_series(1, 10) i;
SELECT bk_train(to_jsonb(i), i % 2, '{}') FROM generate_series(1, 10) i;
SELECT bk_train(jsonb_build_object('x', 'v' || i), i % 2, '{"max_levels": 5}') FROM generate_series(1, 10) i;
SELECT bk_train(jsonb_build_object('x', NULL::int), i % 2, '{}') FROM generate_series(1, 10) i;
SELECT bk_predict(named, '{"big": "large"}'::jsonb) FROM prep_named;
SELECT bk_predict(named, '{"colour": 3}'::jsonb) FROM prep_named;
SELECT bk_predict(named, '[1, 2]'::jsonb) FROM prep_named;
SELECT bk_predict(named, ARRAY[1.0, 2.0]) FROM prep_named;
SELECT bk_predict(raw, '{"big": 1}'::jsonb) FROM prep_models;
SELECT bk_predict(named, '{"big": 1e400}'::jsonb) FROM prep_named;
SELECT bk_predict(named, '{"big": 1e-400}'::jsonb) FROM prep_named;
-- a constant column is centred, not divided by the rounding noise of its
-- sums (the sd of a constant 0.7 comes out near 5e-15): scale 1
SELECT (bk_info(m)->'preparation'->'inputs'->0->>'scale')::float8 AS constant_scale,
       bk_decision(m, '{"k": 0.8, "x": 3}'::jsonb) <> 0 AS other_values_still_score
FROM (SELECT bk_train(jsonb_build_object('k', 0.7, 'x', (i % 10)::float8), (i % 10 > 4)::int::int8, '{"budget": 20}') AS m
      FROM generate_series(1, 1000) i) s;
-- not as a window function: the model exists once every row is seen
SELECT bk_train(jsonb_build_object('x', i), i % 2, '{}') OVER (ORDER BY i) FROM generate_series(1, 3) i;
-- an integer array with a NULL (int[] reaches float8[] by a cast)
SELECT bk_info(bk_train(ARRAY[i, CASE WHEN i % 3 = 0 THEN NULL ELSE i * 2 END], i % 2, '{"impute": "mean"}'))->>'rows_seen' AS rows_seen
FROM generate_series(1, 30) i;

-- 7. in parallel: each worker standardises by its rows, the merge pools them
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
CREATE TABLE prep_big AS SELECT * FROM prep_rows, generate_series(1, 20) k;
ANALYZE prep_big;
EXPLAIN (COSTS OFF)
SELECT bk_train(ARRAY[big, small, mid], label, '{"scale": "standard", "gamma": 0.5, "budget": 50}') FROM prep_big;
SELECT (bk_info(m)->'preparation'->'inputs'->0->>'count')::int AS count_of_every_row,
       abs((bk_info(m)->'preparation'->'inputs'->0->>'mean')::float8 - (SELECT avg(big) FROM prep_big)) < 1e-6 AS mean_of_every_row,
       bk_is_valid(m::bytea) AS valid
FROM (SELECT bk_train(ARRAY[big, small, mid], label, '{"scale": "standard", "gamma": 0.5, "budget": 50}') AS m FROM prep_big) s;
RESET parallel_setup_cost; RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size; RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;

-- 8. shards of other text values and keys (doc/preparation.md,
-- "Continued, merged, stored"): bk_merge lays both models out in the
-- union of their preparations, keys and levels in byte order, the
-- statistics of a key pooled over the shards that had it; a level or a
-- text key a shard never saw is 0 in its support vectors, a numeric key
-- it never saw the imputed value
CREATE TABLE prep_shard_a AS
SELECT id, jsonb_build_object('big', big, 'colour', colour, 'mid', mid) AS f, label
FROM prep_rows WHERE id % 2 = 0 AND colour <> 'blue';
CREATE TABLE prep_shard_b AS
SELECT id, jsonb_build_object('big', big, 'colour', CASE colour WHEN 'red' THEN 'crimson' ELSE colour END,
                              'size', CASE WHEN id % 3 = 0 THEN 'small' ELSE 'large' END) AS f, label
FROM prep_rows WHERE id % 2 = 1;
CREATE TABLE prep_shards AS
SELECT (SELECT bk_train(f, label, '{"gamma": 0.5, "budget": 400}' ORDER BY id) FROM prep_shard_a) AS a,
       (SELECT bk_train(f, label, '{"gamma": 0.5, "budget": 400}' ORDER BY id) FROM prep_shard_b) AS b;
SELECT bk_info(a)->>'dim' AS dim_a, bk_info(b)->>'dim' AS dim_b, bk_info(m)->>'dim' AS dim,
       bk_info(m)->>'merged_models' AS merged_models,
       (SELECT jsonb_agg(i->'name') FROM jsonb_array_elements(bk_info(m)->'preparation'->'inputs') i) AS keys,
       bk_info(m)->'preparation'->'inputs'->1->'levels' AS colour_levels,
       (bk_info(m)->'preparation'->'inputs'->0->>'count')::int AS big_count,
       (bk_info(m)->'preparation'->'inputs'->2->>'count')::int AS mid_count,
       (bk_info(m)->>'n_sv')::int = (bk_info(a)->>'n_sv')::int + (bk_info(b)->>'n_sv')::int AS every_sv_kept,
       bk_is_valid(m::bytea) AS valid
FROM (SELECT a, b, bk_merge(a, b) AS m FROM prep_shards) s;
-- it scores each shard's rows about as well as the shard's own model (a
-- shard's rows lack the other's keys: imputed, as they were in its SVs),
-- and merging in the other order gives the same decisions
SET budgetkernel.run_warnings = off;
SELECT acc_a > 0.7 AND acc_a >= own_a - 0.05 AS shard_a_as_its_model,
       acc_b > 0.7 AND acc_b >= own_b - 0.05 AS shard_b_as_its_model,
       either_order
FROM (SELECT (SELECT avg((bk_predict(m, f) = label)::int) FROM prep_shard_a) AS acc_a,
             (SELECT avg((bk_predict(a, f) = label)::int) FROM prep_shard_a) AS own_a,
             (SELECT avg((bk_predict(m, f) = label)::int) FROM prep_shard_b) AS acc_b,
             (SELECT avg((bk_predict(b, f) = label)::int) FROM prep_shard_b) AS own_b,
             (SELECT max(abs(bk_decision(m, f) - bk_decision(r, f)))
              FROM (SELECT f FROM prep_shard_a UNION ALL SELECT f FROM prep_shard_b) t) < 1e-9 AS either_order
      FROM (SELECT a, b, bk_merge(a, b) AS m, bk_merge(b, a) AS r FROM prep_shards) s) q;
-- the aggregate over both, trained on and merged again with a third shard
SELECT bk_info(m)->>'dim' AS dim, bk_info(m)->>'merged_models' AS merged_models,
       bk_info(m)->'preparation'->'inputs'->1->'levels' AS colour_levels, bk_is_valid(m::bytea) AS valid
FROM (SELECT bk_merge(x) AS m
      FROM (SELECT a AS x FROM prep_shards UNION ALL SELECT b FROM prep_shards
            UNION ALL SELECT bk_train(jsonb_build_object('big', big, 'colour', 'teal'), label, '{"gamma": 0.5, "budget": 400}')
                      FROM prep_rows WHERE id <= 50) u) s;
SELECT (bk_info(c)->>'rows_seen')::int AS rows_seen, bk_is_valid(c::bytea) AS valid
FROM (SELECT bk_continue(f, label, (SELECT bk_merge(a, b) FROM prep_shards) ORDER BY id) AS c
      FROM prep_shard_a) s;
-- gamma's default (1 / dim) differs between preparations of other
-- dimensions: such models do not merge
SELECT bk_merge((SELECT bk_train(f, label, '{"budget": 50}') FROM prep_shard_a),
                (SELECT bk_train(f, label, '{"budget": 50}') FROM prep_shard_b));
-- without "impute", a key of one shard only does not merge
SELECT bk_merge((SELECT bk_train(f, label, '{"gamma": 0.5, "budget": 50, "impute": "none"}') FROM prep_shard_a),
                (SELECT bk_train(f, label, '{"gamma": 0.5, "budget": 50, "impute": "none"}') FROM prep_shard_b));
RESET budgetkernel.run_warnings;
-- an input the first training never saw a value of (a key always null)
-- prepares any later value as itself; a model continued on rows that have
-- one holds such values, which a merge's pooling would overwrite with the
-- missing value's fill: refused, not merged into another function
SET budgetkernel.run_warnings = off;
CREATE TABLE prep_late AS
SELECT g AS id, jsonb_build_object('x', (g % 10) / 10.0,
                                   'late', CASE WHEN g > 60 THEN (g % 7) / 7.0 END) AS f,
       (CASE WHEN (g % 10) > 4 THEN 1 ELSE -1 END)::int8 AS label
FROM generate_series(1, 120) g;
CREATE TABLE prep_late_models AS
SELECT (SELECT bk_continue(f, label, (SELECT bk_train(f, label, '{"gamma": 0.5, "budget": 40}' ORDER BY id)
                                      FROM prep_late WHERE id <= 60) ORDER BY id)
        FROM prep_late WHERE id > 60) AS continued,
       (SELECT bk_train(f, label, '{"gamma": 0.5, "budget": 40}' ORDER BY id)
        FROM prep_late WHERE id > 60) AS other;
SELECT bk_info(continued)->'preparation'->'inputs'->0->>'count' AS late_count_in_fit
FROM prep_late_models;
SELECT bk_merge(continued, other) FROM prep_late_models;
-- the same two without the continued rows' values merge
SELECT bk_is_valid(bk_merge((SELECT bk_train(f, label, '{"gamma": 0.5, "budget": 40}' ORDER BY id)
                             FROM prep_late WHERE id <= 60), other)::bytea) AS merged
FROM prep_late_models;
DROP TABLE prep_late, prep_late_models;
RESET budgetkernel.run_warnings;
