--
-- Probabilities: bk_calibrate fits Platt's sigmoid of each class on
-- held-out rows (Lin, Lin and Weng's Newton method) and returns the model
-- with it; bk_probabilities gives one probability per class, summing to 1,
-- bk_predict_probability that of the predicted class.  Calibrated
-- probabilities beat the raw sigmoid of the decision value on held-out
-- rows (log loss and Brier score).
--
SET client_min_messages = warning;
CREATE TEMP TABLE raw (id bigserial, line text);
\copy raw(line) FROM '../shared/data/checkerboard.train'
CREATE TEMP TABLE cal_rows AS
SELECT id, (bk_libsvm(line, 2)).label AS label, (bk_libsvm(line, 2)).features AS features FROM raw;
-- train on 6,000 rows, calibrate on 2,000, evaluate on 2,000
CREATE TEMP TABLE cal_models AS
SELECT bk_train(features, label, '{"budget": 100, "gamma": 30}' ORDER BY bk_shuffle_key(id, 1)) AS model
FROM cal_rows WHERE id <= 6000;
CREATE TEMP TABLE cal_cal AS
SELECT bk_calibrate(m.model, t.features, t.label) AS model
FROM cal_rows t, cal_models m WHERE t.id BETWEEN 6001 AND 8000;

SELECT bk_info(model)->'calibrated' AS calibrated,
       jsonb_array_length(bk_info(model)->'calibration') AS sigmoids,
       (bk_info(model)->'calibration'->0->>'A')::float8 < 0 AS increasing,
       bk_is_valid(model::bytea) AS valid,
       model::bytea::bk_model = model AS round_trip
FROM cal_cal;
-- the uncalibrated model has no probabilities
SELECT bk_info(model)->'calibrated' AS calibrated FROM cal_models;
SELECT bk_probabilities(model, ARRAY[0.1, 0.1]) FROM cal_models;

-- probabilities sum to 1, bk_predict_probability is that of bk_predict's
-- class (near the boundary it can be below 1/2: the sigmoid's B moves the
-- point of 1/2 off the decision value 0), and they score better than the
-- raw sigmoid of bk_decision
SELECT max(abs(p[1] + p[2] - 1)) < 1e-12 AS sum_to_one,
       bool_and(pp = CASE WHEN pr = 1 THEN p[2] ELSE p[1] END) AS predicted_class_probability,
       bool_and(pp >= 0.5) = false AS some_below_half,
       avg(-ln(greatest(1e-15, CASE WHEN t.label = 1 THEN p[2] ELSE p[1] END)))
         < avg(-ln(greatest(1e-15, CASE WHEN t.label = 1 THEN 1 / (1 + exp(-d)) ELSE 1 - 1 / (1 + exp(-d)) END)))
         AS log_loss_better,
       avg(power((t.label = 1)::int - p[2], 2)) < avg(power((t.label = 1)::int - 1 / (1 + exp(-d)), 2))
         AS brier_better
FROM cal_cal c, cal_rows t,
     LATERAL (SELECT bk_probabilities(c.model, t.features) AS p,
                     bk_predict_probability(c.model, t.features) AS pp,
                     bk_predict(c.model, t.features) AS pr,
                     bk_decision(c.model, t.features) AS d) x
WHERE t.id > 8000;

-- three classes (one-vs-rest normalised), text labels
CREATE TEMP TABLE cal3 AS
SELECT id, features, (ARRAY['left', 'middle', 'right'])[1 + least(2, floor(features[1] * 3)::int)] AS name
FROM cal_rows;
CREATE TEMP TABLE cal3_model AS
SELECT bk_calibrate(m.model, t.features, t.name) AS model
FROM cal3 t, (SELECT bk_train(features, name, '{"budget": 60, "gamma": 10}' ORDER BY bk_shuffle_key(id, 2)) AS model
              FROM cal3 WHERE id <= 6000) m
WHERE t.id BETWEEN 6001 AND 8000;
SELECT bk_info(model)->'classes' AS classes,
       jsonb_path_query_array(bk_info(model)->'calibration', '$[*].class') AS calibrated_classes
FROM cal3_model;
SELECT max(abs(p[1] + p[2] + p[3] - 1)) < 1e-12 AS sum_to_one,
       avg((p[array_position(ARRAY['left', 'middle', 'right'], t.name)] =
            greatest(p[1], p[2], p[3]))::int) > 0.8 AS mostly_right
FROM cal3_model c, cal3 t, LATERAL (SELECT bk_probabilities(c.model, t.features) AS p) x
WHERE t.id > 8000;

-- training further drops the calibration (the scores change)
SELECT bk_info(bk_continue(t.features, t.label, c.model ORDER BY t.id))->'calibrated' AS still_calibrated
FROM cal_rows t, cal_cal c WHERE t.id <= 10 GROUP BY c.model;

-- errors: a label the model lacks, another model on a row, one class
SELECT bk_calibrate(m.model, t.features, t.label + 5) FROM cal_rows t, cal_models m WHERE t.id > 9990;
SELECT bk_calibrate(m.model, t.features, t.label)
FROM (SELECT id, features, label FROM cal_rows WHERE id > 9990) t,
     (SELECT model FROM cal_models UNION ALL SELECT model FROM cal_cal) m;
SELECT bk_calibrate(m, ARRAY[0.5, 0.5], 1::int8)
FROM (SELECT bk_train(ARRAY[0.5, 0.5], 1::int8, '{}') AS m) s;
-- calibration rows of one class (A = 0, and that class at 0.9992 for
-- every row), or without one of the model's classes: refused (22023)
SELECT bk_calibrate(m.model, t.features, t.label) FROM cal_rows t, cal_models m WHERE t.id > 8000 AND t.label = 1;
SELECT bk_calibrate(m.model, t.features, t.name)
FROM cal3 t, (SELECT bk_train(features, name, '{"budget": 60, "gamma": 10}' ORDER BY bk_shuffle_key(id, 2)) AS model
              FROM cal3 WHERE id <= 6000) m
WHERE t.id BETWEEN 6001 AND 8000 AND t.name <> 'middle';
-- no usable row: NULL
SELECT bk_calibrate(m.model, NULL::float8[], t.label) IS NULL AS no_rows
FROM cal_rows t, cal_models m WHERE t.id <= 5;
