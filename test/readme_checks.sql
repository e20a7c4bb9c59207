--
-- test/readme_checks.sql - what README.md's SQL, run in order in a fresh
-- database (test/tutorial.sh), must have left behind, and the figures the
-- README quotes: an error here fails the test.
--
DO $$
DECLARE
	acc float8;
	n int;
	v int;
BEGIN
	-- the Titanic example: 0.789 on the held-out quarter
	SELECT (bk_metrics(survived, bk_predict_label(m.model, to_jsonb(t)))->>'accuracy')::float8
	INTO acc FROM titanic t, titanic_models m WHERE bk_fold(id, 7, 4) = 0;
	IF round(acc::numeric, 3) <> 0.789 THEN
		RAISE EXCEPTION 'the Titanic example scores %, the README says 0.789', acc;
	END IF;

	-- every table the examples fill is filled
	SELECT count(*) INTO n FROM train;
	IF n <> 10000 THEN RAISE EXCEPTION 'train has % rows, not 10000', n; END IF;
	SELECT count(*) INTO n FROM test;
	IF n <> 10000 THEN RAISE EXCEPTION 'test has % rows, not 10000', n; END IF;
	SELECT count(*) INTO n FROM flowers;
	IF n <> 150 THEN RAISE EXCEPTION 'flowers has % rows, not 150', n; END IF;

	-- the Regression example: R^2 0.938 on the fifth held out, least
	-- squares on the petal length 0.914 on the same rows
	SELECT (bk_metrics(f.features[4], bk_predict_value(m.model, f.features[1:3]))->>'r2')::float8
	INTO acc FROM flowers f, petal_models m WHERE f.id % 5 = 0;
	IF round(acc::numeric, 3) <> 0.938 THEN
		RAISE EXCEPTION 'the Regression example scores R^2 %, the README says 0.938', acc;
	END IF;
	SELECT (bk_metrics(f.features[4], bk_predict_value(m, f.features[1:3]))->>'r2')::float8 INTO acc
	FROM flowers f,
	     (SELECT bk_train(features[1:3], features[4], '{"budget": 30}' ORDER BY bk_shuffle_key(id, 42)) AS m
	      FROM flowers WHERE id % 5 <> 0) d
	WHERE f.id % 5 = 0;
	IF round(acc::numeric, 3) <> 0.915 THEN
		RAISE EXCEPTION 'one pass with the defaults scores R^2 %, the README says 0.915', acc;
	END IF;
	SELECT regr_r2(features[4], features[3]) INTO acc FROM flowers WHERE id % 5 = 0;
	IF round(acc::numeric, 3) <> 0.914 THEN
		RAISE EXCEPTION 'least squares on the petal length gives R^2 %, the README says 0.914', acc;
	END IF;

	-- the Novelty example: AUC 1, every setosa flagged, 1 of the 20
	-- held-out rows of the others
	SELECT (bk_metrics((f.species = 'setosa')::int::int8, (bk_novelty(d.model, f.features) > 0)::int::int8,
	                   bk_novelty(d.model, f.features))->>'roc_auc')::float8
	INTO acc FROM flowers f, iris_detectors d WHERE f.species = 'setosa' OR f.id % 5 = 0;
	IF acc <> 1 THEN
		RAISE EXCEPTION 'the Novelty example''s AUC is %, the README says 1', acc;
	END IF;
	SELECT count(*) FILTER (WHERE bk_novelty(d.model, f.features) > 0 AND f.species = 'setosa'),
	       count(*) FILTER (WHERE bk_novelty(d.model, f.features) > 0 AND f.species <> 'setosa')
	INTO n, v FROM flowers f, iris_detectors d WHERE f.species = 'setosa' OR f.id % 5 = 0;
	IF n <> 50 OR v <> 1 THEN
		RAISE EXCEPTION 'the Novelty example flags % setosa and % others, the README says 50 and 1', n, v;
	END IF;

	-- the first model of the arrays is a good one (the headline example):
	-- 0.954, as the Score section says
	SELECT avg((bk_predict(m.model, t.features) = t.label)::int) INTO acc
	FROM test t, models m WHERE m.version = 1;
	IF round(acc::numeric, 3) <> 0.954 THEN
		RAISE EXCEPTION 'the Train example''s model scores % on the test rows, the README says 0.954', acc;
	END IF;

	-- one model per version, versions 1 (trained), 2 (tuned), 3 (continued),
	-- 4 (calibrated)
	SELECT count(*), count(DISTINCT version) INTO n, v FROM models;
	IF n <> 4 OR v <> 4 THEN
		RAISE EXCEPTION 'models holds % rows of % versions, not 4 of 4', n, v;
	END IF;
	SELECT avg((bk_predict(m.model, t.features) = t.label)::int) INTO acc
	FROM test t, models m WHERE m.version = 2;
	IF acc < 0.93 THEN
		RAISE EXCEPTION 'the tuned model (version 2) scores % on the test rows', acc;
	END IF;
	IF (SELECT (bk_info(model)->>'rows_seen')::int FROM models WHERE version = 3)
	   <> (SELECT (bk_info(model)->>'rows_seen')::int FROM models WHERE version = 2) + 10000 THEN
		RAISE EXCEPTION 'version 3 did not continue version 2 on the 10000 new rows';
	END IF;
	IF NOT (SELECT (bk_info(model)->>'calibrated')::boolean FROM models WHERE version = 4) THEN
		RAISE EXCEPTION 'version 4 is not calibrated';
	END IF;

	-- the irises: Pegasos on three classes
	SELECT avg((bk_predict_label(m.model, f.features) = f.species)::int) INTO acc
	FROM flowers f, flower_models m;
	IF acc < 0.9 THEN RAISE EXCEPTION 'the flower model scores % on its rows', acc; END IF;

	-- four parts merge into one valid model
	IF NOT (SELECT bk_is_valid(bk_merge(model ORDER BY part)::bytea) FROM part_models) THEN
		RAISE EXCEPTION 'the merged model is not valid';
	END IF;

	-- the registry: deployed, then rolled back to version 1
	SELECT version INTO v FROM model_deployment WHERE name = 'board';
	IF v <> 1 THEN RAISE EXCEPTION 'board is deployed at version %, not 1', v; END IF;
	SELECT count(*) INTO n FROM scored;
	IF n <> 10000 THEN RAISE EXCEPTION 'the scored view has % rows', n; END IF;

	-- the LIBSVM loader
	SELECT count(*) INTO n FROM a9a;
	IF n <> 32561 THEN RAISE EXCEPTION 'a9a has % rows, not 32561', n; END IF;
END
$$;
