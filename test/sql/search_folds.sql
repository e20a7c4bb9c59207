--
-- _bk_train_folds: one round of bk_cross_validate's search, every
-- (setting, fold) model from one sorted scan.  Each model must be the
-- same bytes as bk_train of its setting over the rows outside its fold,
-- in the same order: for arrays (raw and standardised), named features
-- with text labels, a regressor, sparse features, settings that differ
-- in their class weights, passes and preparation, and rows too many to
-- prepare once (each setting then reads the fold's kept rows again).
-- Each model's score on its fold must be the one bk_metrics gives of its
-- predictions over the fold's rows (bk_predict_label, a regressor's
-- bk_predict_value), as the search's SQL scored it before.
--
\i test/fixtures/checkerboard.sql
\set SHOW_CONTEXT never
CREATE TABLE sf_rows AS
SELECT id, features, label,
       jsonb_build_object('x', features[1], 'y', features[2],
                          'side', CASE WHEN features[1] < 0.5 THEN 'left' ELSE 'right' END) AS named,
       CASE WHEN label = 1 THEN 'black' ELSE 'white' END AS colour,
       features[1] * 3 + features[2] AS target,
       bk_sparse(ARRAY[1, 2], features, 2) AS sparse
FROM bk_test.checkerboard(600);

-- the rows keyed and in folds as the search has them; :x and :y the
-- features and label, :st the settings, metric the key of bk_metrics'
-- report the models are scored by
CREATE FUNCTION sf_check(x text, y text, st jsonb, source text DEFAULT 'sf_rows',
                         metric text DEFAULT 'accuracy')
RETURNS TABLE (models bigint, same bigint, trained bigint, scored bigint)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format($q$
		WITH r AS (
			SELECT %1$s AS x, %2$s AS y, id::text AS kt,
			       bk_shuffle_key(hashtextextended(id::text, 0), 5) AS k, id %% 3 AS fold
			FROM %3$s),
		a AS (SELECT _bk_train_folds(x::bk_features, y::bk_label, fold, $1, 3, $2 ORDER BY k, kt) AS a FROM r),
		m AS (SELECT u.* FROM a, unnest(a.a) AS u),
		s AS (SELECT (i - 1)::int AS setting, p FROM jsonb_array_elements($1) WITH ORDINALITY AS e(p, i))
		SELECT count(*),
		       count(*) FILTER (WHERE m.model::bytea = b.model::bytea),
		       count(*) FILTER (WHERE m.seconds >= 0 AND (bk_info(m.model)->>'rows_seen')::int %% 400 = 0),
		       count(*) FILTER (WHERE m.score IS NOT DISTINCT FROM sc.score AND m.score IS NOT NULL)
		FROM m JOIN s USING (setting),
		     LATERAL (SELECT bk_train(r.x::bk_features, r.y::bk_label, s.p ORDER BY r.k, r.kt) AS model
		              FROM r WHERE r.fold <> m.fold) AS b,
		     LATERAL (SELECT (CASE WHEN $2 IN ('r2', 'rmse', 'mae')
		                      THEN bk_metrics(r.y::bk_label, bk_predict_value(m.model, r.x::bk_features)::bk_label
		                                      ORDER BY r.k, r.kt)
		                      ELSE bk_metrics(r.y::text::bk_label, bk_predict_label(m.model, r.x::bk_features)::bk_label)
		                      END ->> $2)::float8 AS score
		              FROM r WHERE r.fold = m.fold) AS sc
	$q$, x, y, source) USING st, metric;
END $$;

SET budgetkernel.run_warnings = off;
-- arrays, raw and standardised, BPA and Pegasos, one or three passes
SELECT * FROM sf_check('features', 'label',
	'[{"budget": 30, "gamma": 4, "C": 1},
	  {"budget": 30, "gamma": 8, "C": 10, "epochs": 3},
	  {"algorithm": "pegasos", "budget": 40, "gamma": 2, "lambda": 0.001, "scale": "standard"},
	  {"budget": 20, "gamma": 1, "scale": "standard", "epochs": 2}]');
-- named features (a number and a text input), text labels, class weights
-- in one setting and not in the next
SELECT * FROM sf_check('named', 'colour',
	'[{"budget": 30, "gamma": 2, "class_weight": "balanced"},
	  {"budget": 30, "gamma": 2},
	  {"budget": 50, "gamma": 0.5, "C": 5, "epochs": 2, "class_weight": {"black": 2}}]');
-- scored by another key of the report
SELECT * FROM sf_check('named', 'colour',
	'[{"budget": 30, "gamma": 2}, {"algorithm": "pegasos", "budget": 30, "gamma": 2}]',
	'sf_rows', 'macro_f1');
-- a float8 label of classes ("task": "classification"): its text as the
-- actual class, as the search's ::text has it
SELECT * FROM sf_check('features', 'label::float8',
	'[{"task": "classification", "budget": 30, "gamma": 4}]');
-- a regressor, its target standardised or not
SELECT * FROM sf_check('features', 'target',
	'[{"budget": 30, "gamma": 4, "epsilon": 0.1},
	  {"budget": 30, "gamma": 4, "epsilon": 0.05, "target_scale": "none", "epochs": 2}]',
	'sf_rows', 'r2');
SELECT * FROM sf_check('named', 'target',
	'[{"budget": 30, "gamma": 4, "epsilon": 0.1}]', 'sf_rows', 'mae');
-- sparse features
SELECT * FROM sf_check('sparse', 'label',
	'[{"budget": 25, "gamma": 4}, {"budget": 25, "gamma": 4, "C": 0.1, "epochs": 2}]');
-- rows with a NULL feature or label, skipped and counted by each model
-- (BkModelSkip): those of its training folds
CREATE TABLE sf_holes AS
SELECT id, CASE WHEN id % 7 = 0 THEN NULL ELSE features END AS features,
       CASE WHEN id % 11 = 0 THEN NULL ELSE label END AS label
FROM sf_rows;
SELECT models, same, scored FROM sf_check('features', 'label',
	'[{"budget": 30, "gamma": 4}, {"budget": 30, "gamma": 2, "scale": "standard", "epochs": 2}]',
	'sf_holes');
-- more rows than work_mem lets the round prepare once (16 x 64 kB)
CREATE TABLE sf_wide AS
SELECT id, label, ARRAY(SELECT sin(id * j) FROM generate_series(1, 100) AS j)::float8[] || features AS features
FROM bk_test.checkerboard(2100);
SET work_mem = '64kB';
SELECT models, same, scored FROM sf_check('features', 'label',
	'[{"budget": 20, "gamma": 0.01, "scale": "standard"}, {"budget": 20, "gamma": 0.02, "scale": "standard", "epochs": 2}]',
	'sf_wide');
RESET work_mem;
RESET budgetkernel.run_warnings;

-- the models come setting-major, numbered from 0, with their fold; no
-- metric, no score
SELECT u.setting, u.fold, u.model IS NOT NULL AS trained, u.score IS NULL AS unscored
FROM (SELECT _bk_train_folds(features::bk_features, label::bk_label, id % 2, '[{"budget": 10}, {"budget": 20}]', 2, NULL ORDER BY id) AS a
      FROM sf_rows) t, unnest(t.a) AS u;

-- errors
SELECT _bk_train_folds(features::bk_features, label::bk_label, id % 3, '[{"budget": 10}]', 1, 'accuracy') FROM sf_rows;
SELECT _bk_train_folds(features::bk_features, label::bk_label, id % 3, '[{"budget": 10}]', 2, 'accuracy') FROM sf_rows;
SELECT _bk_train_folds(features::bk_features, label::bk_label, NULL, '[{"budget": 10}]', 2, 'accuracy') FROM sf_rows;
SELECT _bk_train_folds(features::bk_features, label::bk_label, id % 2, '{"budget": 10}', 2, 'accuracy') FROM sf_rows;
SELECT _bk_train_folds(features::bk_features, label::bk_label, id % 2, '[{"budget": 10}, 3]', 2, 'accuracy') FROM sf_rows;
SELECT _bk_train_folds(features::bk_features, label::bk_label, id % 2, '[{"budget": -1}]', 2, 'accuracy') FROM sf_rows;
-- each preparation keeps the rows once (every fold's): at most 16
SELECT _bk_train_folds(features::bk_features, label::bk_label, id % 2,
	(SELECT jsonb_agg(jsonb_build_object('budget', 10, 'max_levels', l)) FROM generate_series(1, 17) l), 2, 'accuracy')
FROM sf_rows;
SELECT count(*) FROM unnest((SELECT _bk_train_folds(features::bk_features, label::bk_label, id % 60,
	'[{"budget": 10}, {"budget": 10, "scale": "standard"}]', 60, 'accuracy') FROM sf_rows));
