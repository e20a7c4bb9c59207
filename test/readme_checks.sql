--
-- test/readme_checks.sql - what README.md's SQL, run in order in a fresh
-- database (test/tutorial.sh), must have left behind, and the figures the
-- README quotes: an error here fails the test.  Every comparison is NULL-safe:
-- a NULL model or a NULL figure fails too.
--
DO $$
DECLARE
	acc float8;
	base float8;
	n int;
	v int;
	k int;
BEGIN
	-- the examples' rows are generated: every table is filled, with the
	-- rows the README describes
	SELECT count(*), count(age), count(*) FILTER (WHERE churned = 'yes') INTO n, v, k FROM customers;
	IF n <> 2000 OR v <> 1587 OR k <> 763 THEN
		RAISE EXCEPTION 'customers has % rows, % ages, % churned, not 2000, 1587, 763', n, v, k;
	END IF;
	SELECT count(*), count(*) FILTER (WHERE label = 1) INTO n, v FROM train;
	IF n <> 10000 OR v <> 4976 THEN
		RAISE EXCEPTION 'train has % rows, % of label 1, not 10000 and 4976', n, v;
	END IF;
	SELECT count(*), count(*) FILTER (WHERE label = 1) INTO n, v FROM test;
	IF n <> 10000 OR v <> 4995 THEN
		RAISE EXCEPTION 'test has % rows, % of label 1, not 10000 and 4995', n, v;
	END IF;
	SELECT count(*), count(DISTINCT species), min(features[4]) INTO n, v, acc FROM flowers;
	IF n <> 150 OR v <> 3 OR (acc > 0) IS NOT TRUE THEN
		RAISE EXCEPTION 'flowers has % rows of % species, petal width from %', n, v, acc;
	END IF;
	SELECT count(*) FILTER (WHERE n.label <> t.label), count(*) INTO n, v
	FROM new_rows n JOIN train t USING (id) WHERE n.features = t.features;
	IF n <> 1427 OR v <> 10000 THEN
		RAISE EXCEPTION 'new_rows flips % of % training rows, not 1427 of 10000', n, v;
	END IF;

	-- the first example: 0.792 on the held-out quarter, where always
	-- answering the most frequent class would be right for 0.571
	SELECT (bk_metrics(churned, bk_predict_label(m.model, to_jsonb(c)))->>'accuracy')::float8,
	       avg((churned = 'no')::int)
	INTO acc, base FROM customers c, customer_models m WHERE bk_fold(id, 7, 4) = 0;
	IF round(acc::numeric, 3) IS DISTINCT FROM 0.792 OR round(base::numeric, 3) IS DISTINCT FROM 0.571 THEN
		RAISE EXCEPTION 'the first example scores % (always no: %), the README says 0.792 (0.571)',
			acc, base;
	END IF;
	-- the literal of the prose scores
	IF coalesce(bk_predict_label((SELECT model FROM customer_models),
	                             '{"plan": "basic", "age": 30, "tenure": 5, "support_calls": 2}'::jsonb), '')
	   NOT IN ('yes', 'no') THEN
		RAISE EXCEPTION 'the literal of the first example does not score';
	END IF;

	-- the Regression example: R^2 0.915 on the fifth held out, 0.934 with
	-- one pass of the defaults, least squares on the petal length 0.955 on
	-- the same rows
	SELECT (bk_metrics(f.features[4], bk_predict_value(m.model, f.features[1:3]))->>'r2')::float8
	INTO acc FROM flowers f, petal_models m WHERE f.id % 5 = 0;
	IF round(acc::numeric, 3) IS DISTINCT FROM 0.915 THEN
		RAISE EXCEPTION 'the Regression example scores R^2 %, the README says 0.915', acc;
	END IF;
	SELECT (bk_metrics(f.features[4], bk_predict_value(m, f.features[1:3]))->>'r2')::float8 INTO acc
	FROM flowers f,
	     (SELECT bk_train(features[1:3], features[4], '{"budget": 30}' ORDER BY bk_shuffle_key(id, 42)) AS m
	      FROM flowers WHERE id % 5 <> 0) d
	WHERE f.id % 5 = 0;
	IF round(acc::numeric, 3) IS DISTINCT FROM 0.934 THEN
		RAISE EXCEPTION 'one pass with the defaults scores R^2 %, the README says 0.934', acc;
	END IF;
	SELECT regr_r2(features[4], features[3]) INTO acc FROM flowers WHERE id % 5 = 0;
	IF round(acc::numeric, 3) IS DISTINCT FROM 0.955 THEN
		RAISE EXCEPTION 'least squares on the petal length gives R^2 %, the README says 0.955', acc;
	END IF;

	-- the Novelty example: AUC 1, every setosa flagged, 4 of the 20
	-- held-out rows of the others, 10 of its 80 training rows
	SELECT (bk_metrics((f.species = 'setosa')::int::int8, (bk_novelty(d.model, f.features) > 0)::int::int8,
	                   bk_novelty(d.model, f.features))->>'roc_auc')::float8
	INTO acc FROM flowers f, iris_detectors d WHERE f.species = 'setosa' OR f.id % 5 = 0;
	IF acc IS DISTINCT FROM 1 THEN
		RAISE EXCEPTION 'the Novelty example''s AUC is %, the README says 1', acc;
	END IF;
	SELECT count(*) FILTER (WHERE bk_novelty(d.model, f.features) > 0 AND f.species = 'setosa'),
	       count(*) FILTER (WHERE bk_novelty(d.model, f.features) > 0 AND f.species <> 'setosa')
	INTO n, v FROM flowers f, iris_detectors d WHERE f.species = 'setosa' OR f.id % 5 = 0;
	IF n <> 50 OR v <> 4 THEN
		RAISE EXCEPTION 'the Novelty example flags % setosa and % others, the README says 50 and 4', n, v;
	END IF;
	SELECT count(*) FILTER (WHERE bk_novelty(d.model, f.features) > 0), count(*)
	INTO n, v FROM flowers f, iris_detectors d WHERE f.species <> 'setosa' AND f.id % 5 <> 0;
	IF n <> 10 OR v <> 80 THEN
		RAISE EXCEPTION 'the novelty detector flags % of its % training rows, the README says 10 of 80', n, v;
	END IF;

	-- the first model of the arrays is a good one (the headline example):
	-- 0.9595, as the Score section says; with "gamma": 0.5 a coin's 50 %
	SELECT count(*) FILTER (WHERE bk_predict(m.model, t.features) = t.label) INTO n
	FROM test t, models m WHERE m.version = 1;
	IF n <> 9595 THEN
		RAISE EXCEPTION 'the Train example''s model is right on % of the 10000 test rows, the README says 0.9595', n;
	END IF;
	SELECT avg((bk_predict(m, t.features) = t.label)::int) INTO acc
	FROM test t,
	     (SELECT bk_train(features, label,
	                      '{"algorithm": "bpa", "variant": "nn", "loss": "ramp",
	                        "budget": 100, "kernel": "rbf", "gamma": 0.5, "C": 0.1}'
	                      ORDER BY bk_shuffle_key(id, 42)) AS m FROM train) w;
	IF round(acc::numeric, 2) IS DISTINCT FROM 0.50 THEN
		RAISE EXCEPTION 'with "gamma": 0.5 the model scores %, the README says 50 %%', acc;
	END IF;

	-- one model per version, versions 1 (trained), 2 (tuned), 3 (continued),
	-- 4 (calibrated)
	SELECT count(*), count(DISTINCT version) INTO n, v FROM models;
	IF n <> 4 OR v <> 4 THEN
		RAISE EXCEPTION 'models holds % rows of % versions, not 4 of 4', n, v;
	END IF;
	SELECT avg((bk_predict(m.model, t.features) = t.label)::int) INTO acc
	FROM test t, models m WHERE m.version = 2;
	IF (acc >= 0.93) IS NOT TRUE THEN
		RAISE EXCEPTION 'the tuned model (version 2) scores % on the test rows', acc;
	END IF;
	IF (SELECT (bk_info(model)->>'rows_seen')::int FROM models WHERE version = 3)
	   IS DISTINCT FROM (SELECT (bk_info(model)->>'rows_seen')::int FROM models WHERE version = 2) + 10000 THEN
		RAISE EXCEPTION 'version 3 did not continue version 2 on the 10000 new rows';
	END IF;
	IF (SELECT (bk_info(model)->>'calibrated')::boolean FROM models WHERE version = 4) IS NOT TRUE THEN
		RAISE EXCEPTION 'version 4 is not calibrated';
	END IF;

	-- the irises: Pegasos on three classes
	SELECT avg((bk_predict_label(m.model, f.features) = f.species)::int) INTO acc
	FROM flowers f, flower_models m;
	IF (acc >= 0.9) IS NOT TRUE THEN RAISE EXCEPTION 'the flower model scores % on its rows', acc; END IF;

	-- four parts merge into one valid model
	IF (SELECT bk_is_valid(bk_merge(model ORDER BY part)::bytea) FROM part_models) IS NOT TRUE THEN
		RAISE EXCEPTION 'the merged model is not valid';
	END IF;

	-- the registry: deployed, then rolled back to version 1
	SELECT version INTO v FROM model_deployment WHERE name = 'board';
	IF v IS DISTINCT FROM 1 THEN RAISE EXCEPTION 'board is deployed at version %, not 1', v; END IF;
	SELECT count(*) INTO n FROM scored;
	IF n <> 10000 THEN RAISE EXCEPTION 'the scored view has % rows', n; END IF;

	-- the LIBSVM loader: data/checkerboard.libsvm holds the points that
	-- data/checkerboard.sql makes (tags file-x, file-y, 6 decimals), and
	-- the first model scores 0.968 on them
	SELECT count(*), count(*) FILTER (WHERE b.id = i AND b.label = g.label
	                                    AND b.features = g.features)
	INTO n, v
	FROM board b
	     LEFT JOIN (SELECT i, CASE WHEN (floor(4 * x) + floor(4 * y))::int % 2 = 0 THEN 1 ELSE -1 END AS label,
	                       ARRAY[round(x::numeric, 6), round(y::numeric, 6)]::float8[] AS features
	                FROM generate_series(1, 1000) AS i,
	                     LATERAL (SELECT uniform('file-x', i) AS x, uniform('file-y', i) AS y) AS p) g
	     ON g.i = b.id;
	IF n <> 1000 OR v <> 1000 THEN
		RAISE EXCEPTION 'board has % rows, % of them the generator''s, not 1000 and 1000', n, v;
	END IF;
	SELECT avg((bk_predict(m.model, b.features) = b.label)::int) INTO acc
	FROM board b, models m WHERE m.version = 1;
	IF round(acc::numeric, 3) IS DISTINCT FROM 0.968 THEN
		RAISE EXCEPTION 'the first model scores % on board, the README says 0.968', acc;
	END IF;
END
$$;
