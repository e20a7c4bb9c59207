--
-- test/tutorial_checks.sql - what doc/tutorial.md's run must have left
-- behind (test/tutorial.sh runs it after the tutorial, in the same
-- database): an error here fails the test.
--
DO $$
DECLARE
	acc float8;
	auc float8;
	psum float8;
	ll float8;
	dep int;
	n int;
BEGIN
	-- the tuned model beats the majority class (61.8 % did not survive)
	SELECT (bk_metrics(f.survived, bk_predict_label(r.model, f.features),
	                   bk_decision(r.model, f.features))->>'roc_auc')::float8,
	       avg((bk_predict_label(r.model, f.features) = f.survived)::int)
	INTO auc, acc
	FROM titanic_features f, model_registry r
	WHERE f.part = 'test' AND r.version = 1;
	IF acc < 0.72 OR auc < 0.75 THEN
		RAISE EXCEPTION 'tutorial: test accuracy % and AUC % are too low', acc, auc;
	END IF;
	-- calibrated probabilities sum to 1
	SELECT max(abs(p[1] + p[2] - 1)) INTO psum
	FROM model_registry r, titanic_features f,
	     LATERAL (SELECT bk_probabilities(r.model, f.features) AS p) x
	WHERE r.version IN (2, 4);
	IF psum > 1e-12 THEN
		RAISE EXCEPTION 'tutorial: probabilities do not sum to 1 (off by %)', psum;
	END IF;
	-- the calibrated probabilities beat the constant survival rate
	SELECT (bk_metrics(f.survived, bk_predict_label(r.model, f.features),
	                   bk_probabilities(r.model, f.features))->>'log_loss')::float8
	INTO ll
	FROM titanic_features f, model_registry r
	WHERE f.part = 'test' AND r.version = 2;
	IF ll >= 0.6 THEN
		RAISE EXCEPTION 'tutorial: the calibrated log loss % is no better than the survival rate', ll;
	END IF;
	-- four versions, version 2 deployed after the rollback
	SELECT count(*) INTO n FROM model_registry;
	SELECT version INTO dep FROM model_deployment WHERE name = 'titanic';
	IF n <> 4 OR dep <> 2 THEN
		RAISE EXCEPTION 'tutorial: % versions and version % deployed', n, dep;
	END IF;
	RAISE NOTICE 'tutorial checks: test accuracy %, AUC %, calibrated log loss %',
		round(acc::numeric, 3), round(auc::numeric, 3), round(ll::numeric, 3);
END $$;
