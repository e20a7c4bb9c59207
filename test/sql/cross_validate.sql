--
-- bk_cross_validate: a grid of settings, k-fold cross-validated in one
-- query.  Checked against the same folds, models and scores written out
-- by hand; folds stratified by class; a table name or a query as source;
-- text labels; errors.
--
\i test/fixtures/checkerboard.sql
CREATE TABLE cv_rows AS SELECT * FROM bk_test.checkerboard(900);
-- errors show their message, detail and hint, not the PL/pgSQL line
-- they were raised at (the CONTEXT of a statement_timeout below is shown,
-- its line numbers masked)
\set SHOW_CONTEXT never

-- every setting, best first
SELECT params, round(mean::numeric, 4) AS mean, array_length(fold_scores, 1) AS folds
FROM bk_cross_validate('cv_rows', 'features', 'label', 'id',
                       '{"grid": {"gamma": [2, 20], "C": [0.1, 1], "budget": 40}, "folds": 3, "seed": 7}');

-- the seconds each setting's models took to train (their size is for the
-- benchmarks; that the models are trained once is in progress.sql)
SELECT bool_and(train_seconds > 0) AS timed, count(*) AS settings
FROM bk_cross_validate('cv_rows', 'features', 'label', 'id',
                       '{"grid": {"gamma": 20, "algorithm": "bpa", "variant": "p", "budget": [10, 400]}, "folds": 3, "seed": 7}');

-- the same as by hand: stratified folds of a seeded shuffle, one model per
-- held-out fold trained in that shuffle's order, scored with bk_metrics
WITH r AS (
	SELECT features AS x, label AS y, bk_shuffle_key(hashtextextended(id::text, 0), 7) AS k
	FROM cv_rows
), f AS (
	SELECT x, y, k, (row_number() OVER (PARTITION BY y ORDER BY k) - 1) % 3 AS fold FROM r
), m AS (
	SELECT g.fold, (SELECT bk_train(x, y, '{"gamma": 20, "C": 1, "budget": 40}' ORDER BY k)
	                FROM f WHERE f.fold <> g.fold) AS model
	FROM generate_series(0, 2) g(fold)
)
SELECT array_agg((SELECT (bk_metrics(y::text, bk_predict_label(model, x))->>'accuracy')::float8
                  FROM f WHERE f.fold = m.fold) ORDER BY m.fold)
     = (SELECT fold_scores FROM bk_cross_validate('cv_rows', 'features', 'label', 'id',
                                                  '{"grid": {"gamma": 20, "C": 1, "budget": 40}, "folds": 3, "seed": 7}')) AS same_as_by_hand
FROM m;

-- stratified: each fold holds a third of each class, to one row
WITH r AS (
	SELECT label AS y, (row_number() OVER (PARTITION BY label ORDER BY bk_shuffle_key(hashtextextended(id::text, 0), 7)) - 1) % 3 AS fold
	FROM cv_rows
)
SELECT bool_and(spread <= 1) AS balanced
FROM (SELECT y, max(n) - min(n) AS spread FROM (SELECT y, fold, count(*) AS n FROM r GROUP BY y, fold) s GROUP BY y) t;

-- a query as source, text labels, another metric; another seed, other folds
SELECT params, array_length(fold_scores, 1) AS folds, mean BETWEEN 0 AND 1 AS in_range
FROM bk_cross_validate('SELECT id, features, CASE WHEN label = 1 THEN ''odd'' ELSE ''even'' END AS name FROM cv_rows',
                       'features', 'name', 'id', '{"grid": {"algorithm": "pegasos", "budget": 30, "gamma": 20}, "folds": 4, "seed": 1, "metric": "balanced_accuracy"}');
SELECT (SELECT fold_scores FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"grid": {"gamma": 20}, "folds": 3, "seed": 7}'))
    <> (SELECT fold_scores FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"grid": {"gamma": 20}, "folds": 3, "seed": 8}'))
       AS seed_matters;

-- errors
SELECT * FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"grid": {"gamma": 20}, "folds": 1}');
SELECT * FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"grid": {"gamma": 20}, "folds": 3, "seed": 0, "metric": "auc"}');
SELECT * FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"grid": [1, 2]}');
SELECT * FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"grid": {"C": []}}');
SELECT * FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"grid": {"gamma": [20], "budgte": 5}}');
SELECT * FROM bk_cross_validate('cv_rows', 'features', 'label', NULL, '{"grid": {}}');
-- the options (0.4.0): a JSON object of known keys, each of its JSON
-- type; an error names the key and lists the options
SELECT * FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '[1, 2]');
SELECT * FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"gamma": [2, 20]}');
SELECT * FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"grid": {"gamma": 20}, "folds": "3"}');
SELECT * FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"grid": {"gamma": 20}, "folds": 2.5}');
SELECT * FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"grid": {"gamma": 20}, "seed": 1e19}');
SELECT * FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"grid": {"gamma": 20}, "samples": 1e19}');
SELECT * FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"grid": {"gamma": 20}, "metric": ["accuracy"]}');
SELECT * FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"grid": {"gamma": 20}, "refit": "true"}');
-- a null is what a NULL argument was before: the default, or for seed and
-- refit an error
SELECT * FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"grid": {"gamma": 20}, "seed": null}');
SELECT * FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"grid": {"gamma": 20}, "refit": null}');
SELECT (SELECT array_agg(fold_scores) FROM bk_cross_validate('cv_rows', 'features', 'label', 'id',
            '{"grid": {"gamma": 20, "budget": 40}, "folds": null, "metric": null, "samples": null}'))
     = (SELECT array_agg(fold_scores) FROM bk_cross_validate('cv_rows', 'features', 'label', 'id',
            '{"grid": {"gamma": 20, "budget": 40}, "folds": 5, "seed": 0, "metric": "accuracy", "refit": false}'))
       AS nulls_are_defaults,
       (SELECT array_agg(fold_scores) FROM bk_cross_validate('cv_rows', 'features', 'label', 'id',
            '{"grid": {"gamma": 20, "budget": 40}, "folds": 3.0, "seed": -2}'))
     = (SELECT array_agg(fold_scores) FROM bk_cross_validate('cv_rows', 'features', 'label', 'id',
            '{"seed": -2, "folds": 3, "grid": {"gamma": 20, "budget": 40}}'))
       AS whole_numbers_any_order;
-- random search: samples settings drawn by a seeded hash, from lists and
-- ranges; the same seed, the same settings
SELECT count(*) AS settings,
       bool_and((params->>'gamma')::float8 BETWEEN 1 AND 50) AS gamma_in_range,
       bool_and((params->>'C')::float8 IN (0.1, 1)) AS c_from_list,
       bool_and(params->>'budget' = '40') AS budget_fixed,
       count(DISTINCT params->>'gamma') AS distinct_gammas
FROM bk_cross_validate('cv_rows', 'features', 'label', 'id',
                       '{"grid": {"gamma": {"log_uniform": [1, 50]}, "C": [0.1, 1], "budget": 40}, "folds": 3, "seed": 7, "samples": 6}');
SELECT (SELECT array_agg(params ORDER BY params::text)
        FROM bk_cross_validate('cv_rows', 'features', 'label', 'id',
                               '{"grid": {"gamma": {"uniform": [1, 50]}, "budget": 40}, "folds": 3, "seed": 7, "samples": 3}'))
     = (SELECT array_agg(params ORDER BY params::text)
        FROM bk_cross_validate('cv_rows', 'features', 'label', 'id',
                               '{"grid": {"gamma": {"uniform": [1, 50]}, "budget": 40}, "folds": 3, "seed": 7, "samples": 3}')) AS same_draws;

-- refit: the best setting trained on every row, in the shuffle's order,
-- on the first (best) row only
SELECT row_number() OVER () AS rank, model IS NOT NULL AS has_model,
       model::bytea = (SELECT bk_train(features, label, cv.params
                                       ORDER BY bk_shuffle_key(hashtextextended(id::text, 0), 7), id::text)
                       FROM cv_rows)::bytea AS refit_as_by_hand
FROM bk_cross_validate('cv_rows', 'features', 'label', 'id',
                       '{"grid": {"gamma": [2, 20], "budget": 40}, "folds": 3, "seed": 7, "refit": true}') cv;

-- never the same setting twice: 5 samples of a grid of 2 settings give
-- each of the 2 once (they drew one twice and the other three times)
SELECT count(*) AS settings, count(DISTINCT params) AS distinct_settings
FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"grid": {"gamma": [2, 20], "budget": 40}, "folds": 3, "seed": 7, "samples": 5}');
-- and 3 samples of a grid of 4 give 3 distinct ones
SELECT count(*) AS settings, count(DISTINCT params) AS distinct_settings
FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"grid": {"gamma": [2, 20], "C": [0.5, 1], "budget": 40}, "folds": 3, "seed": 7, "samples": 3}');
-- a statement_timeout (or a cancel) is reported as itself (57014), with
-- the lines of context of the functions it went through, not the text of
-- the query that was running (caught here to show the context with its
-- PL/pgSQL line numbers masked: they move with every edit of the function)
CREATE TEMP TABLE cv_big AS
SELECT g AS id, ARRAY[(g % 97) / 97.0, (g % 89) / 89.0]::float8[] AS x, (g % 2)::int8 AS y
FROM generate_series(1, 200000) g;
SET statement_timeout = '300ms';
DO $$
DECLARE
	state	text;
	msg		text;
	ctx		text;
BEGIN
	PERFORM count(*) FROM bk_cross_validate('cv_big', 'x', 'y', 'id', '{"grid": {"budget": 100, "gamma": [1, 2, 3]}}');
EXCEPTION WHEN query_canceled THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, ctx = PG_EXCEPTION_CONTEXT;
	RAISE NOTICE '%: %', state, msg;
	-- (the context of the search's functions, not this block's lines)
	RAISE NOTICE 'context: %', regexp_replace(split_part(ctx, E'\nSQL statement', 1), 'line [0-9]+', 'line N', 'g');
END
$$;
RESET statement_timeout;
DROP TABLE cv_big;
-- whole rows as named features: the source's row is s
SELECT count(*) AS settings, bool_and(mean > 0.6) AS learnt
FROM bk_cross_validate('SELECT id, label, features[1] AS a, features[2] AS b FROM cv_rows',
                       'to_jsonb(s) - ''label'' - ''id''', 'label', 'id', '{"grid": {"gamma": [1, 3], "budget": 40}, "folds": 3, "seed": 7}');
-- errors of the random search
SELECT * FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"grid": {"gamma": {"uniform": [1, 50]}}, "folds": 3, "seed": 7}');
SELECT * FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"grid": {"gamma": {"between": [1, 50]}}, "folds": 3, "seed": 7, "samples": 2}');
SELECT * FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"grid": {"gamma": {"log_uniform": [0, 50]}}, "folds": 3, "seed": 7, "samples": 2}');
SELECT * FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"grid": {"gamma": [1, 2]}, "folds": 3, "seed": 7, "samples": 0}');

-- with no grid, the search chooses: successive halving over BPA-NN's gamma
-- (around 1/dim, the dimension the preparation gives) and C, 27 settings
-- at budget 50, the best 9 at 150, the best 3 at 450, and the best of the
-- round before with 3 passes, and with 8 passes and C times 10; 3 folds;
-- arrays are standardised by the model; the best refitted.  Here 8 passes
-- win by more than half a point over one, so the winner is tried again at
-- budget 1,350 with gamma times 3 and times 10.
SELECT params, round(mean::numeric, 4) AS mean, array_length(fold_scores, 1) AS folds,
       model IS NOT NULL AS refitted
FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"seed": 7, "refit": true}');
CREATE TEMP TABLE cv_auto AS
SELECT * FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"seed": 7}');
SELECT count(*) AS settings,
       count(*) FILTER (WHERE params->>'budget' = '450') AS at_450,
       count(DISTINCT params - 'epochs') FILTER (WHERE params->>'budget' = '450') AS distinct_without_epochs,
       count(*) FILTER (WHERE params->>'epochs' = '3') AS with_three_passes,
       bool_and((params->>'gamma')::float8 BETWEEN 1.0 / 32 AND 4.0) FILTER (WHERE params->>'budget' = '450') AS gamma_in_range,
       bool_and((params->>'C')::float8 BETWEEN 0.01 AND 1000) AS c_in_range,
       bool_and(params->>'scale' = 'standard') AS scaled
FROM cv_auto;
-- the wider round: the best multi-pass setting at 450, its budget times 3
-- and its gamma times 3 and 10 (to three significant digits)
SELECT w.params - 'gamma' - 'budget' = b.params - 'gamma' - 'budget' AS same_otherwise,
       w.params->>'budget' AS budget,
       round(((w.params->>'gamma')::numeric / (b.params->>'gamma')::numeric), 1) AS gamma_times
FROM cv_auto w,
     (SELECT params FROM cv_auto WHERE params->>'budget' = '450' AND params ? 'epochs'
      ORDER BY mean DESC LIMIT 1) b
WHERE w.params->>'budget' = '1350'
ORDER BY gamma_times;
-- where one pass is as good (a straight boundary: 3 passes win by 0.4
-- point), no wider round
SELECT count(*) AS settings, max((params->>'budget')::int) AS budget
FROM bk_cross_validate('SELECT id, features, (features[1] + features[2] > 1)::int::int8 AS label FROM cv_rows',
                       'features', 'label', 'id', '{"seed": 7}');
-- the same seed, the same choice; another seed, other draws; a grid of NULL
-- is no grid
SELECT (SELECT array_agg(params ORDER BY params::text) FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"seed": 7}'))
     = (SELECT array_agg(params ORDER BY params::text) FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"grid": null, "seed": 7}'))
       AS same_choice,
       (SELECT array_agg(params ORDER BY params::text) FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"seed": 7}'))
    <> (SELECT array_agg(params ORDER BY params::text) FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"seed": 8}'))
       AS seed_matters;
-- the refitted model is the chosen setting trained on every row in the
-- shuffle's order, as with a grid
SELECT model::bytea = (SELECT bk_train(features, label, cv.params
                                       ORDER BY bk_shuffle_key(hashtextextended(id::text, 0), 3), id::text)
                       FROM cv_rows)::bytea AS refit_as_by_hand
FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"seed": 3, "samples": 3, "refit": true}') cv
WHERE model IS NOT NULL;
-- a rare class: class weights are among the choices (here in the choice)
SELECT count(*) FILTER (WHERE params->>'class_weight' = 'balanced') > 0 AS weights_tried
FROM bk_cross_validate('SELECT * FROM cv_rows WHERE label = 1 OR id % 5 = 0', 'features', 'label', 'id', '{"seed": 7}');
-- named features are standardised by default; sparse rows are not
-- standardised (scale them beforehand); the same search
SELECT count(*) AS settings, bool_and(NOT params ? 'scale') AS model_default
FROM bk_cross_validate('SELECT id, label, jsonb_build_object(''a'', features[1], ''b'', features[2]) AS x FROM cv_rows',
                       'x', 'label', 'id', '{"seed": 7, "samples": 3}');
SELECT count(*) AS settings, bool_and(NOT params ? 'scale') AS not_scaled
FROM bk_cross_validate('SELECT id, label, bk_sparse(ARRAY[1, 2], features, 2) AS x FROM cv_rows',
                       'x', 'label', 'id', '{"seed": 7, "samples": 3}');
-- more than two classes: multi-class Pegasos, one set of support vectors
-- for all classes (budgets 100, 300, 900), lambda = 1 / (C n) for C over
-- the same four decades
SELECT count(*) AS settings, bool_and(params->>'algorithm' = 'pegasos') AS pegasos,
       bool_and(params ? 'lambda' AND NOT params ? 'C') AS lambda_not_c,
       bool_and((params->>'lambda')::float8 BETWEEN 0.01 / 900 AND 100.0 / 900) AS lambda_in_range,
       max((params->>'budget')::int) AS budget, bool_and(mean > 0.6) AS learnt
FROM bk_cross_validate('SELECT id, features, floor(3 * features[1])::int8 AS label FROM cv_rows',
                       'features', 'label', 'id', '{"seed": 7, "samples": 6}');
-- a best setting in the outer twentieth of its range is warned of, with a
-- grid that searches beyond it: an 8 x 8 board wants a narrower kernel
-- than 900 rows of 2 features suggest
SELECT params->>'gamma' AS gamma, round(mean::numeric, 4) AS mean
FROM bk_cross_validate('SELECT id, features, ((floor(8 * features[1]) + floor(8 * features[2]))::int % 2) AS label FROM cv_rows',
                       'features', 'label', 'id', '{"seed": 4}') LIMIT 1;
-- the same board on 6,500 rows (a fold trains on 4,333): a wider setting
-- wins the wider round by half a point or more, so its budget is tripled
-- once more (1,350 to 4,050, which a fold's rows can fill) with its own
-- gamma and three times it; the board of 900 rows above stops at 1,350
SET client_min_messages = error;
CREATE TEMP TABLE cv_board AS
SELECT * FROM bk_cross_validate('SELECT id, features, ((floor(8 * features[1]) + floor(8 * features[2]))::int % 2) AS label FROM bk_test.checkerboard(6500)',
                                'features', 'label', 'id', '{"seed": 4}');
RESET client_min_messages;
SELECT count(*) AS settings, max((params->>'budget')::int) AS budget
FROM cv_board;
SELECT w.params - 'gamma' - 'budget' = b.params - 'gamma' - 'budget' AS same_otherwise,
       w.params->>'budget' AS budget,
       round(((w.params->>'gamma')::numeric / (b.params->>'gamma')::numeric), 1) AS gamma_times,
       round((w.mean - b.mean)::numeric, 3) AS gain
FROM cv_board w,
     (SELECT params, mean FROM cv_board WHERE params->>'budget' = '1350'
      ORDER BY mean DESC LIMIT 1) b
WHERE w.params->>'budget' = '4050'
ORDER BY gamma_times;
-- the chosen setting is the best of all nine, and at 4,050
SELECT params->>'budget' AS budget, mean = (SELECT max(mean) FROM cv_board) AS best
FROM cv_board LIMIT 1;
-- a search whose rows exceed work_mem says so, and what to set
SET work_mem = '64kB';
SELECT count(*) AS settings FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"samples": 3, "folds": 2}');
RESET work_mem;
-- errors of the search without a grid
SELECT * FROM bk_cross_validate('cv_rows', 'features', 'label', 'id', '{"samples": 2}');
SELECT * FROM bk_cross_validate('SELECT * FROM cv_rows WHERE label = 1', 'features', 'label', 'id');

DROP TABLE cv_rows;
