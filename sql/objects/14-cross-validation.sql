-- ------------------------------------------------------------------------
-- Cross-validation
-- ------------------------------------------------------------------------
--
-- bk_cross_validate: every setting of a parameter grid, k-fold
-- cross-validated in one query: the folds are stratified by class (within
-- each class, rows in the order of a seeded shuffle of their key are dealt
-- to the folds in turn), the source is read once into the rows the query
-- keeps, every (setting, fold) model is trained by one aggregate over
-- those rows sorted once into the shuffle's order (_bk_train_folds: the
-- rows kept once, each fold's preparation fitted once; until 0.4.0: one GROUP
-- BY over the cross product of rows, settings and folds, whose sort
-- spilled), and scored on its held-out fold with bk_metrics.  Written in PL/pgSQL over the aggregates: the
-- aggregate-over-a-grid pattern of the reference, packaged.

-- Availability: 0.2.0
--
-- Names resolve in two places (doc/security.md, "Schema and search path"):
--   * the caller's names -- source, features, label, key -- resolve as in
--     the caller's own query: bk_cross_validate, a SQL function with no
--     SET clause, reads the caller's search_path and passes it on;
--   * everything of the extension's own runs with search_path pinned to
--     pg_catalog, pg_temp, and the one query that holds the caller's
--     expressions (run under the caller's search_path) names every
--     built-in by schema (pg_catalog.f, OPERATOR(pg_catalog.op),
--     pg_catalog types) and every object of the extension by
--     @extschema@ with arguments of its exact types, so that no object
--     another role created can be chosen in their place.
-- The rows keep the type of the caller's features (named by schema) until
-- they reach the extension's functions, each call casting them to
-- bk_features (a relabelling): a distributed engine moves the rows of the
-- query's CTEs between its queries in text form (Citus's intermediate
-- results), and a bk_features value has no text input (0.4.0).
-- the search's own progress, a NOTICE for each model it scores when
-- budgetkernel.progress_interval is set (bk_progress.c)
CREATE FUNCTION @extschema@._bk_cv_progress(started timestamptz, total int4, setting int4,
	fold int4, score float8)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'bk_cv_progress'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@._bk_cv_progress(timestamptz, int4, int4, int4, float8) IS
	'bk_cross_validate''s progress: with budgetkernel.progress_interval set, a NOTICE for each model scored; returns the score';

-- Availability: 0.4.0
-- bk_cross_validate's search in bk_training_progress: begins (its start
-- time) or ends (NULL), and the models it will have scored (total, as
-- far as it knows); _bk_train_folds counts them as it scores them. An
-- error ends it with its (sub)transaction
CREATE FUNCTION @extschema@._bk_cv_activity(started timestamptz, total int4 DEFAULT NULL)
	RETURNS void
	AS 'MODULE_PATHNAME', 'bk_cv_activity'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@._bk_cv_activity(timestamptz, int4) IS
	'bk_cross_validate''s search in bk_training_progress: begins (its start time) or ends (NULL), and the models it will have scored';

-- Availability: 0.4.0
-- bk_cross_validate's rows (a named type, so that \df shows its result
-- in a word): one per setting, best first
CREATE TYPE @extschema@.bk_cross_validation AS (
	params jsonb, mean float8, stddev float8, fold_scores float8[],
	train_seconds float8, model @extschema@.bk_model);

COMMENT ON TYPE @extschema@.bk_cross_validation IS
	'a row of bk_cross_validate: a setting, its mean, standard deviation and per-fold scores, its models'' training seconds, and with refit the best setting''s model';

-- Availability: 0.2.0, changed 0.4.0 (it reports to bk_training_progress; its options are one jsonb; its Pegasos budget grows with the classes; no JIT)
CREATE OR REPLACE FUNCTION @extschema@._bk_cross_validate(
	caller_search_path text,
	source text, features text, label text, key text, options jsonb)
	RETURNS SETOF @extschema@.bk_cross_validation
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	-- the WARNINGs of the single models (a useless setting): the scores
	-- tell; their progress NOTICEs (budgetkernel.progress_interval) pass
	SET budgetkernel.run_warnings = off
	-- float8 values through jsonb (the drawn settings, the rounds' rows)
	-- in their shortest exact text, whatever the caller's setting
	SET extra_float_digits = 3
	-- no JIT: the rounds' queries cost enough to be compiled, and
	-- compiling them took about a tenth of the search's CPU (covtype20k,
	-- 15,000 rows of named features, PostgreSQL 17) for expressions that
	-- only feed C aggregates
	SET jit = off
AS $fn$
DECLARE
	-- the options (a JSON null, or a key left out: the default)
	grid		jsonb;
	folds		int4;
	seed		int8 := 0;
	metric		text;
	samples		int4;
	refit		boolean := false;
	-- the options' names and JSON types, for their errors
	option_list	constant text := 'grid, folds, seed, metric, samples, refit and task';
	option_types constant text := 'The options are grid (an object of learner parameters), folds, seed and samples (integers), metric (a string), refit (a boolean) and task ("classification" or "regression").';
	-- the task the options name, or NULL: the label's type decides
	task		text;
	n			numeric;
	settings	jsonb := '[{}]';
	expanded	jsonb;
	k			text;
	v			jsonb;
	j			int4;
	u			float8;
	lo			float8;
	hi			float8;
	draw		jsonb;
	query		text;
	x_type		oid;
	y_type		oid;
	x_cast		text;
	y_cast		text;
	grid_size	numeric;
	i			int4;
	started		timestamptz := clock_timestamp();
	total		int4;
	err_state	text;
	err_msg		text;
	err_detail	text;
	err_hint	text;
	-- the search without a grid (grid NULL): successive halving
	auto_mode	boolean;
	ranked		jsonb;
	n_rows		int8;
	row_bytes	int8;
	n_classes	int8;
	smallest	int8;
	-- multi-class Pegasos' budget in the search's first round: 100 up to
	-- ten classes, 10 a class beyond, 300 at most (the rounds triple it)
	pegasos_b1	int4;
	dim			int4;
	rung		int4;
	keep		int4;
	gamma_lo	float8;
	gamma_hi	float8;
	arrays		boolean;
	probe		text;
	at_lower	boolean;
	rows_q		text;
	last_round	jsonb;
	widened		jsonb;
	best		jsonb;
	one_pass	float8;
	refitted	@extschema@.bk_model;
	-- a regressor's refit: the ridge its folds chose, as bk_refit's params
	ridge		jsonb;
	lambdas		float8[];
	-- a float8 (float4, numeric) label: regressors, scored by a regression metric
	regression	boolean;
	partition	text;
	scoring		text;
	metric_key	text;
	fold_score	text;
	-- a regression target's distinct values, rows, whether all integral
	targets		int8;
	target_rows	int8;
	integral	boolean;
	t_lo		float8;
	t_hi		float8;
BEGIN
	-- the options: a JSON object of known keys, each of its JSON type (a
	-- null is the SQL NULL the argument of that name took before 0.4.0)
	IF options IS NOT NULL AND jsonb_typeof(options) <> 'object' THEN
		RAISE EXCEPTION 'options must be a JSON object with the keys %, got %', option_list,
			left(options::text, 100)
			USING ERRCODE = '22023', DETAIL = option_types,
				  HINT = 'For example ''{"grid": {"C": [1, 10]}, "folds": 3}'', or NULL for the defaults.';
	END IF;
	FOR k, v IN SELECT e.key, e.value FROM jsonb_each(options) e ORDER BY e.key LOOP
		IF k NOT IN ('grid', 'folds', 'seed', 'metric', 'samples', 'refit', 'task') THEN
			RAISE EXCEPTION 'unknown option "%": the options are %', k, option_list
				USING ERRCODE = '22023', DETAIL = option_types,
					  HINT = 'The learner''s parameters go in the grid: for example ''{"grid": {"C": [1, 10]}, "folds": 3}''.';
		END IF;
		IF jsonb_typeof(v) = 'null' THEN
			-- the default, or for seed and refit the error below
			IF k = 'seed' THEN
				seed := NULL;
			ELSIF k = 'refit' THEN
				refit := NULL;
			END IF;
			CONTINUE;
		END IF;
		IF k = 'grid' THEN
			IF jsonb_typeof(v) <> 'object' THEN
				RAISE EXCEPTION 'grid must be a JSON object of parameters, a list of values for each one to vary'
					USING ERRCODE = '22023', DETAIL = option_types,
						  HINT = 'For example ''{"C": [0.1, 1, 10], "gamma": [0.5, 2], "budget": 100}'', or NULL to let the search choose.';
			END IF;
			grid := v;
		ELSIF k = 'metric' THEN
			IF jsonb_typeof(v) <> 'string' THEN
				RAISE EXCEPTION 'option "metric" must be a string, got %', left(v::text, 100)
					USING ERRCODE = '22023', DETAIL = option_types;
			END IF;
			metric := v #>> '{}';
		ELSIF k = 'task' THEN
			IF jsonb_typeof(v) <> 'string' OR v #>> '{}' NOT IN ('classification', 'regression') THEN
				RAISE EXCEPTION 'option "task" must be "classification" or "regression", got %', left(v::text, 100)
					USING ERRCODE = '22023', DETAIL = option_types;
			END IF;
			task := v #>> '{}';
		ELSIF k = 'refit' THEN
			IF jsonb_typeof(v) <> 'boolean' THEN
				RAISE EXCEPTION 'option "refit" must be a boolean, got %', left(v::text, 100)
					USING ERRCODE = '22023', DETAIL = option_types;
			END IF;
			refit := v::text::boolean;
		ELSE
			-- folds, seed, samples: a whole number, folds and samples in
			-- their ranges, seed in int8's
			n := CASE WHEN jsonb_typeof(v) = 'number' THEN (v::text)::numeric END;
			IF n IS NULL OR n <> trunc(n) THEN
				RAISE EXCEPTION 'option "%" must be an integer, got %', k, left(v::text, 100)
					USING ERRCODE = '22023', DETAIL = option_types;
			END IF;
			IF k = 'seed' THEN
				IF n < -9223372036854775808 OR n > 9223372036854775807 THEN
					RAISE EXCEPTION 'option "seed" must be an int8, from -9223372036854775808 to 9223372036854775807, got %', n
						USING ERRCODE = '22023', DETAIL = option_types;
				END IF;
				seed := n::int8;
			ELSIF k = 'folds' THEN
				IF n < 2 OR n > 100 THEN
					RAISE EXCEPTION 'folds must be between 2 and 100, got %', n
						USING ERRCODE = '22023';
				END IF;
				folds := n::int4;
			ELSE
				IF n < 1 OR n > 1000 THEN
					RAISE EXCEPTION 'samples must be between 1 and 1000, got %', n
						USING ERRCODE = '22023';
				END IF;
				samples := n::int4;
			END IF;
		END IF;
	END LOOP;
	auto_mode := grid IS NULL;

	-- 5 folds for a grid, 3 for the search without one (it trains more models)
	folds := coalesce(folds, CASE WHEN auto_mode THEN 3 ELSE 5 END);
	IF metric IS NOT NULL AND metric NOT IN ('accuracy', 'balanced_accuracy', 'macro_f1',
											'macro_precision', 'macro_recall', 'r2',
											'neg_rmse', 'neg_mae') THEN
		RAISE EXCEPTION 'metric must be one of accuracy, balanced_accuracy, macro_f1, macro_precision, macro_recall (classifiers), r2, neg_rmse, neg_mae (regressors), got %', metric
			USING ERRCODE = '22023';
	END IF;
	IF source IS NULL OR features IS NULL OR label IS NULL OR key IS NULL OR seed IS NULL
	   OR refit IS NULL THEN
		RAISE EXCEPTION 'source, features, label, key, seed and refit must not be NULL'
			USING ERRCODE = '22004';
	END IF;
	IF auto_mode AND samples IS NOT NULL AND samples < 3 THEN
		RAISE EXCEPTION 'without a grid, samples (the settings of the first round) must be at least 3, got %', samples
			USING ERRCODE = '22023';
	END IF;
	-- a range ({"uniform": [lo, hi]} or {"log_uniform": [lo, hi]}) is drawn from
	FOR k, v IN SELECT e.key, e.value FROM jsonb_each(grid) e WHERE jsonb_typeof(e.value) = 'object' LOOP
		IF (SELECT count(*) FROM jsonb_object_keys(v)) <> 1
		   OR NOT (v ? 'uniform' OR v ? 'log_uniform')
		   OR jsonb_typeof(v -> (SELECT min(o) FROM jsonb_object_keys(v) o)) <> 'array'
		   OR jsonb_array_length(v -> (SELECT min(o) FROM jsonb_object_keys(v) o)) <> 2 THEN
			RAISE EXCEPTION 'grid key "%": a range is {"uniform": [low, high]} or {"log_uniform": [low, high]}', k
				USING ERRCODE = '22023';
		END IF;
		IF samples IS NULL THEN
			RAISE EXCEPTION 'grid key "%" is a range: give samples, the number of settings to draw', k
				USING ERRCODE = '22023';
		END IF;
		IF v ? 'log_uniform' AND ((v->'log_uniform'->>0)::float8 <= 0 OR (v->'log_uniform'->>1)::float8 <= 0) THEN
			RAISE EXCEPTION 'grid key "%": a log_uniform range must be positive', k
				USING ERRCODE = '22023';
		END IF;
	END LOOP;

	-- random search: samples settings, each varying key drawn uniformly
	-- (from its list, or its range) by a seeded hash of (draw, key), and
	-- never the same setting twice: a draw equal to one taken is passed
	-- over, and a grid of lists smaller than samples gives each of its
	-- settings once
	IF samples IS NOT NULL AND NOT auto_mode THEN
		settings := '[]';
		grid_size := 1;
		FOR k, v IN SELECT e.key, e.value FROM jsonb_each(grid) e LOOP
			IF jsonb_typeof(v) = 'object' THEN
				grid_size := NULL;		-- a range: no end of distinct draws
			ELSIF jsonb_typeof(v) = 'array' AND k <> 'classes' THEN
				grid_size := grid_size * greatest(jsonb_array_length(v), 1);
			END IF;
		END LOOP;
		i := 0;
		WHILE jsonb_array_length(settings) < least(samples, coalesce(grid_size, samples))
			  AND i < 100 * samples LOOP
			draw := '{}';
			j := 0;
			FOR k, v IN SELECT e.key, e.value FROM jsonb_each(grid) e ORDER BY e.key LOOP
				j := j + 1;
				-- in [0, 1): bk_shuffle_key is a permutation of int8
				u := (@extschema@.bk_shuffle_key(i::int8 * 1000 + j, seed)::numeric
					  + 9223372036854775808) / 18446744073709551616;
				IF jsonb_typeof(v) = 'array' AND k <> 'classes' THEN
					IF jsonb_array_length(v) = 0 THEN
						RAISE EXCEPTION 'grid key "%" lists no value', k USING ERRCODE = '22023';
					END IF;
					draw := draw || jsonb_build_object(k, v -> floor(u * jsonb_array_length(v))::int);
				ELSIF jsonb_typeof(v) = 'object' AND v ? 'uniform' THEN
					lo := (v->'uniform'->>0)::float8;
					hi := (v->'uniform'->>1)::float8;
					draw := draw || jsonb_build_object(k, lo + u * (hi - lo));
				ELSIF jsonb_typeof(v) = 'object' THEN
					lo := ln((v->'log_uniform'->>0)::float8);
					hi := ln((v->'log_uniform'->>1)::float8);
					draw := draw || jsonb_build_object(k, exp(lo + u * (hi - lo)));
				ELSE
					draw := draw || jsonb_build_object(k, v);
				END IF;
			END LOOP;
			IF NOT EXISTS (SELECT FROM jsonb_array_elements(settings) AS t(s) WHERE t.s = draw) THEN
				settings := settings || jsonb_build_array(draw);
			END IF;
			i := i + 1;
		END LOOP;
	END IF;

	-- the settings: every combination of the listed values
	FOR k, v IN SELECT e.key, e.value FROM jsonb_each(grid) e WHERE samples IS NULL ORDER BY e.key LOOP
		IF jsonb_typeof(v) = 'array' AND k <> 'classes' THEN
			IF jsonb_array_length(v) = 0 THEN
				RAISE EXCEPTION 'grid key "%" lists no value', k USING ERRCODE = '22023';
			END IF;
			SELECT jsonb_agg(s || jsonb_build_object(k, x) ORDER BY si, xi) INTO expanded
			FROM jsonb_array_elements(settings) WITH ORDINALITY AS a(s, si),
				 jsonb_array_elements(v) WITH ORDINALITY AS b(x, xi);
			settings := expanded;
		ELSE
			SELECT jsonb_agg(s || jsonb_build_object(k, v) ORDER BY si) INTO expanded
			FROM jsonb_array_elements(settings) WITH ORDINALITY AS a(s, si);
			settings := expanded;
		END IF;
	END LOOP;
	IF jsonb_array_length(settings) > 1000 THEN
		RAISE EXCEPTION 'the grid has % settings, more than 1000', jsonb_array_length(settings)
			USING ERRCODE = '54000';
	END IF;

	-- a table name, or a query
	IF source !~* '^\s*(select|with|values|table)\M' THEN
		source := 'SELECT * FROM ' || source;
	END IF;

	-- the search in bk_training_progress, until it returns or fails
	PERFORM @extschema@._bk_cv_activity(started);
	BEGIN
		-- The types of the caller's features and label, read from the query
		-- without reading a row (pg_typeof of a NULL of the type), so that
		-- the query below casts them to the exact types of the extension's
		-- aggregates.  Both queries run under the caller's search_path, and
		-- nothing else does: every other statement here, the queries' text
		-- included, is built and run under the pinned one.
		query := format($q$
			SELECT pg_catalog.pg_typeof(q.x)::pg_catalog.oid, pg_catalog.pg_typeof(q.y)::pg_catalog.oid
			FROM (VALUES (1)) AS one(n)
			     LEFT JOIN (SELECT (%1$s) AS x, (%2$s) AS y FROM (%3$s) AS s LIMIT 0) AS q ON true
		$q$, features, label, source);
		PERFORM pg_catalog.set_config('search_path', caller_search_path, true);
		EXECUTE query INTO x_type, y_type;
		PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);

		-- every form of features reaches bk_features by a cast of the
		-- extension's (casts belong to the owners of their types: no other
		-- role can add one), so the query below calls each object of the
		-- extension with arguments of its exact types
		IF x_type = '@extschema@.bk_features'::regtype
		   OR EXISTS (SELECT FROM pg_cast c
		              WHERE c.castsource = x_type
		                AND c.casttarget = '@extschema@.bk_features'::regtype) THEN
			x_cast := (SELECT format('%I.%I', n.nspname, t.typname) FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE t.oid = x_type);
		ELSE
			RAISE EXCEPTION 'features must be float8[] (or another numeric array: int2[], int4[], int8[], float4[], numeric[]), jsonb or bk_sparse, got %',
				format_type(x_type, NULL)
				USING ERRCODE = '42804';
		END IF;
		IF y_type IN ('int2'::regtype, 'int4'::regtype, 'int8'::regtype) THEN
			y_cast := 'pg_catalog.int8';
		ELSIF y_type IN ('text'::regtype, 'varchar'::regtype, 'bpchar'::regtype, 'name'::regtype) THEN
			y_cast := 'pg_catalog.text';
		ELSIF y_type IN ('float8'::regtype, 'float4'::regtype, 'numeric'::regtype) THEN
			y_cast := 'pg_catalog.float8';
		ELSE
			RAISE EXCEPTION 'label must be an integer or text (a classifier''s) or float8, float4 or numeric (a regressor''s target), got %', format_type(y_type, NULL)
				USING ERRCODE = '42804',
					  HINT = 'Cast it in the label expression, for example ''label::int8''.';
		END IF;
		-- the task named: integer labels as a regressor's targets, or a
		-- float8 column of integral values as classes (each checked)
		IF task = 'regression' AND y_cast = 'pg_catalog.text' THEN
			RAISE EXCEPTION 'option "task": "regression" needs numeric targets, and the label is %', format_type(y_type, NULL)
				USING ERRCODE = '42804';
		ELSIF task = 'regression' THEN
			y_cast := 'pg_catalog.float8';
		ELSIF task = 'classification' AND y_cast = 'pg_catalog.float8' THEN
			probe := format($q$
				SELECT pg_catalog.bool_and(q.y OPERATOR(pg_catalog.=) pg_catalog.floor(q.y)
				                           AND pg_catalog.abs(q.y) OPERATOR(pg_catalog.<=) 9007199254740991::pg_catalog.float8)
				FROM (SELECT ((%1$s))::pg_catalog.float8 AS y FROM (%2$s) AS s) AS q
				WHERE q.y IS NOT NULL
			$q$, label, source);
			PERFORM pg_catalog.set_config('search_path', caller_search_path, true);
			EXECUTE probe INTO integral;
			PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
			IF NOT coalesce(integral, true) THEN
				RAISE EXCEPTION 'option "task": "classification" needs integral labels, and the label % has other values', label
					USING ERRCODE = '22023',
						  HINT = 'Leave "task" out to train regressors on the values, or round them in the label expression.';
			END IF;
			y_cast := 'pg_catalog.int8';
		END IF;
		regression := y_cast = 'pg_catalog.float8';
		metric := coalesce(metric, CASE WHEN regression THEN 'r2' ELSE 'accuracy' END);
		IF regression <> (metric IN ('r2', 'neg_rmse', 'neg_mae')) THEN
			RAISE EXCEPTION 'metric % scores %, and the label is %', metric,
				CASE WHEN regression THEN 'classifiers' ELSE 'regressors' END,
				CASE WHEN regression THEN 'a regression target (float8)' ELSE 'a class label' END
				USING ERRCODE = '22023',
					  HINT = CASE WHEN regression THEN 'Use r2, neg_rmse or neg_mae, or cast an integer label to int8.'
					         ELSE 'Use accuracy, balanced_accuracy, macro_f1, macro_precision or macro_recall.' END;
		END IF;
		-- a float8 target of a few integral values (0 and 1, or a handful
		-- of codes) is likely classes given as numbers: say that the
		-- models are regressors, scored by a regression metric
		IF regression THEN
			probe := format($q$
				SELECT pg_catalog.count(*)::pg_catalog.int8, pg_catalog.sum(g.c)::pg_catalog.int8,
				       pg_catalog.bool_and(g.y OPERATOR(pg_catalog.=) pg_catalog.floor(g.y)),
				       pg_catalog.min(g.y), pg_catalog.max(g.y)
				FROM (SELECT q.y, pg_catalog.count(*) AS c
				      FROM (SELECT ((%1$s))::%2$s AS y FROM (%3$s) AS s) AS q
				      WHERE q.y IS NOT NULL
				      GROUP BY q.y) AS g
			$q$, label, y_cast, source);
			PERFORM pg_catalog.set_config('search_path', caller_search_path, true);
			EXECUTE probe INTO targets, target_rows, integral, t_lo, t_hi;
			PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
			IF targets >= 1 AND targets <= 20 AND integral AND target_rows >= 100 THEN
				RAISE NOTICE 'bk_cross_validate: the label is a float8 target of only % distinct values, all integral (from % to %): the models are regressors, scored by %',
					targets, t_lo, t_hi, metric
					USING HINT = 'If the values are classes, pass the option ''{"task": "classification"}'' or cast the label, for example ''label::int8'', to train classifiers scored by accuracy.';
			END IF;
		END IF;
		-- folds stratified by class; a regressor's targets are not classes
		partition := CASE WHEN regression THEN '' ELSE 'PARTITION BY y' END;
		-- a regressor's fold score: r2, or the negated error (higher is better)
		scoring := CASE
			WHEN NOT regression THEN
				$s$(@extschema@.bk_metrics(r.y::pg_catalog.text::@extschema@.bk_label, @extschema@.bk_predict_label(m.model, r.x::@extschema@.bk_features)::@extschema@.bk_label)
				    OPERATOR(pg_catalog.->>) $4)::pg_catalog.float8$s$
			WHEN metric = 'r2' THEN
				$s$(@extschema@.bk_metrics(r.y::@extschema@.bk_label, @extschema@.bk_predict_value(m.model, r.x::@extschema@.bk_features)::@extschema@.bk_label)
				    OPERATOR(pg_catalog.->>) 'r2'::pg_catalog.text)::pg_catalog.float8$s$
			ELSE
				format($s$(OPERATOR(pg_catalog.-) (@extschema@.bk_metrics(r.y::@extschema@.bk_label, @extschema@.bk_predict_value(m.model, r.x::@extschema@.bk_features)::@extschema@.bk_label)
				    OPERATOR(pg_catalog.->>) %L::pg_catalog.text)::pg_catalog.float8)$s$,
				    substr(metric, 5))
			END;
		-- the same score of a round's models, which _bk_train_folds
		-- makes on each fold (the key of bk_metrics' report it reads)
		metric_key := CASE WHEN regression AND metric <> 'r2'
			THEN substr(metric, 5) ELSE metric END;
		fold_score := CASE WHEN regression AND metric <> 'r2'
			THEN 'OPERATOR(pg_catalog.-) m.score' ELSE 'm.score' END;

		-- the rows, keyed and in folds: the search's models and the refit
		-- read them in the same order
		rows_q := format($q$
			WITH src AS (
				SELECT ((%1$s))::%5$s AS x, ((%2$s))::%6$s AS y, ((%3$s))::pg_catalog.text AS kt
				FROM (%4$s) AS s
			), rows AS (
				-- two keys may hash alike: their text breaks the tie
				SELECT x, y, k, kt,
				       (pg_catalog.row_number() OVER (%7$s ORDER BY k, kt)
				        OPERATOR(pg_catalog.-) 1::pg_catalog.int8)
				       OPERATOR(pg_catalog.%%) $3::pg_catalog.int8 AS fold
				FROM (SELECT x, y, kt,
				             @extschema@.bk_shuffle_key(
				                 pg_catalog.hashtextextended(kt, 0::pg_catalog.int8), $2) AS k
				      FROM src) AS keyed
				WHERE y IS NOT NULL AND x IS NOT NULL
			)
		$q$, features, label, key, source, x_cast, y_cast, partition);
		query := rows_q || format($q$
			, settings AS (
				SELECT (si OPERATOR(pg_catalog.-) 1::pg_catalog.int8)::pg_catalog.int4 AS setting,
				       s AS params
				FROM pg_catalog.jsonb_array_elements($1) WITH ORDINALITY AS a(s, si)
			), models AS (
				-- every (setting, fold) model in one aggregate over the rows,
				-- sorted once: each learns the rows outside its fold, as
				-- bk_train of its setting over them (until 0.4.0: an
				-- aggregate a setting and fold, each sorting, keeping and
				-- preparing its own rows); in order of setting, then fold
				-- (progress)
				-- (each scored on its fold in the aggregate, which has
				-- the fold's rows; until 0.4.0 a query a model scored it
				-- with bk_metrics over the fold's rows, read again)
				SELECT m.setting, m.fold::pg_catalog.int8 AS fold, m.model, m.seconds, %1$s AS score
				FROM (SELECT @extschema@._bk_train_folds(r.x::@extschema@.bk_features, r.y::@extschema@.bk_label,
				                 r.fold, $1, $3::pg_catalog.int4, %2$L::pg_catalog.text ORDER BY r.k, r.kt) AS a
				      FROM rows r) AS t
				     CROSS JOIN LATERAL pg_catalog.unnest(t.a) WITH ORDINALITY AS m(setting, fold, model, seconds, score, n)
			), scored AS (
				-- each model's fold score, reported as the search goes (progress)
				SELECT m.setting, m.fold, m.seconds,
				       @extschema@._bk_cv_progress($6, $7, m.setting, m.fold::pg_catalog.int4,
				           m.score) AS score
				FROM models m
			), result AS (
				SELECT st.setting, st.params,
				       -- in fold order: a float sum's last bit depends on its order
				       pg_catalog.avg(sc.score::pg_catalog.float8 ORDER BY sc.fold) AS mean,
				       pg_catalog.stddev_samp(sc.score::pg_catalog.float8 ORDER BY sc.fold) AS stddev,
				       pg_catalog.array_agg(sc.score::pg_catalog.float8 ORDER BY sc.fold) AS fold_scores,
				       pg_catalog.sum(sc.seconds) AS train_seconds
				FROM scored sc JOIN settings st ON sc.setting OPERATOR(pg_catalog.=) st.setting
				GROUP BY st.setting, st.params
			), best AS (
				SELECT setting, params FROM result ORDER BY mean DESC NULLS LAST, setting LIMIT 1
			), refitted AS (
				-- with refit, the best setting trained on every row, in the same order
				SELECT @extschema@.bk_train(r.x::@extschema@.bk_features, r.y::@extschema@.bk_label, (SELECT params FROM best) ORDER BY r.k, r.kt) AS model
				FROM rows r WHERE $5
			)
			SELECT res.params, res.mean, res.stddev, res.fold_scores, res.train_seconds,
			       CASE WHEN res.setting OPERATOR(pg_catalog.=) (SELECT setting FROM best)
			            THEN (SELECT model FROM refitted) END
			FROM result res
			ORDER BY res.mean DESC NULLS LAST, res.setting
		$q$, fold_score, metric_key);

		IF auto_mode THEN
			-- No grid: the default learner (BPA-NN) over ranges that suit
			-- the data, by successive halving (Jamieson and Talwalkar
			-- 2016) with the budget as the resource: many settings at a
			-- small budget, the best third at three times the budget, the
			-- best three at the final budget, and the best of the round
			-- before with three passes as well.  Every round reads every
			-- row: on a share of the rows the online learner's best C and
			-- gamma are not those of the whole table (on a9a, rounds on
			-- 1,500 and 4,000 rows kept settings 1.1 and 1.4 points worse
			-- on the test rows).
			-- First the data's shape: rows, classes, the smallest class,
			-- and the dimension the model's preparation gives it.
			-- (every statement text and USING value is made before the
			-- switch to the caller's search_path: PL/pgSQL evaluates them
			-- as expressions, whose operators and casts would resolve there)
			probe := format($q$
				SELECT pg_catalog.sum(c)::pg_catalog.int8, pg_catalog.count(*)::pg_catalog.int8,
				       pg_catalog.min(c)::pg_catalog.int8, pg_catalog.sum(b)::pg_catalog.int8
				FROM (SELECT pg_catalog.count(*) AS c,
				             pg_catalog.sum(pg_catalog.pg_column_size(q.x)::pg_catalog.int8) AS b
				      FROM (SELECT ((%1$s))::%4$s AS x, ((%2$s))::%5$s AS y FROM (%3$s) AS s) AS q
				      WHERE q.y IS NOT NULL AND q.x IS NOT NULL
				      GROUP BY q.y) AS per_class
			$q$, features, label, source, x_cast, y_cast);
			PERFORM pg_catalog.set_config('search_path', caller_search_path, true);
			EXECUTE probe INTO n_rows, n_classes, smallest, row_bytes;
			PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
			-- The rows the search keeps, each round's sort of them and
			-- each fold's kept rows spill to temporary files beyond
			-- work_mem: on a9a's 13,000 rows the search took 1.03 to 1.10
			-- times the CPU at 4 MB that it took at 64 MB (1.4 to 1.5
			-- when each model sorted and kept its own rows,
			-- doc/functions.md).  About 64 bytes a row besides the
			-- features: its key, fold and label.
			row_bytes := coalesce(row_bytes, 0) + 64 * coalesce(n_rows, 0);
			IF row_bytes > pg_catalog.pg_size_bytes(pg_catalog.current_setting('work_mem')) THEN
				RAISE NOTICE 'bk_cross_validate: its % rows take about %, more than work_mem (%): they, each round''s sort of them and each fold''s kept rows are read from temporary files',
					n_rows, pg_catalog.pg_size_pretty(row_bytes), pg_catalog.current_setting('work_mem')
					USING HINT = format('SET work_mem = %L before the search (in this session) makes it cheaper.',
						(ceil(row_bytes * 1.25 / 1048576.0))::int8 || 'MB');
			END IF;
			IF coalesce(n_classes, 0) < 2 THEN
				RAISE EXCEPTION 'the search needs rows of at least two %, found %',
					CASE WHEN regression THEN 'distinct targets' ELSE 'classes' END, coalesce(n_classes, 0)
					USING ERRCODE = '22023';
			END IF;
			-- arrays are standardised by the model; named features (jsonb)
			-- are by default; sparse rows cannot be (their zeros would be
			-- centred), and a bk_features column may hold any form
			arrays := x_type NOT IN ('jsonb'::regtype, '@extschema@.bk_sparse'::regtype,
			                         '@extschema@.bk_features'::regtype);
			probe := format($q$
				SELECT (@extschema@.bk_info(@extschema@.bk_train(q.x::@extschema@.bk_features, q.y::@extschema@.bk_label, $1))
				        OPERATOR(pg_catalog.->>) 'dim'::pg_catalog.text)::pg_catalog.int4
				FROM (SELECT ((%1$s))::%4$s AS x, ((%2$s))::%5$s AS y FROM (%3$s) AS s LIMIT 5000) AS q
			$q$, features, label, source, x_cast, y_cast);
			draw := CASE WHEN arrays THEN '{"budget": 1, "scale": "standard"}'::jsonb
			             ELSE '{"budget": 1}'::jsonb END;
			PERFORM pg_catalog.set_config('search_path', caller_search_path, true);
			EXECUTE probe INTO dim USING draw;
			PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
			dim := greatest(coalesce(dim, 1), 1);
			-- gamma around 1/dim (scikit-learn's 'scale' on standardised
			-- features), C over four decades, class weights where the
			-- smallest class has less than half its balanced share
			pegasos_b1 := 10 * least(greatest(n_classes, 10), 30)::int4;
			gamma_lo := 1.0 / (16 * dim);
			gamma_hi := 8.0 / dim;
			settings := '[]';
			i := 0;
			WHILE jsonb_array_length(settings) < coalesce(samples, 27) AND i < 100 * coalesce(samples, 27) LOOP
				-- two classes: BPA-NN, budgets 50, 150, 450.  More classes:
				-- multi-class Pegasos (paper 003), one set of support
				-- vectors for every class (a one-vs-rest BPA-NN holds a
				-- budget per class: on usps, 10 classes, 4,500 support
				-- vectors at 450 trained 8 times as long as Pegasos at
				-- 1,000, for 0.05 point), budgets 100, 300, 900 up to ten
				-- classes, and beyond ten 10, 30 and 90 a class (the share
				-- ten classes have), up to 30 classes: 300, 900, 2,700 at
				-- most, which bounds the search's cost and the refit's
				-- memory below.  One budget for 26 classes starved them:
				-- letter's search chose a setting at 900 (35 a class) that
				-- scored 94.75 % on its test rows, against 97.46 % for a
				-- tuned LIBSVM.
				IF n_classes > 2 AND NOT regression THEN
					draw := pg_catalog.jsonb_build_object('algorithm', 'pegasos',
						'budget', pegasos_b1);
				ELSE
					draw := '{"budget": 50}';
				END IF;
				IF arrays THEN
					draw := draw || '{"scale": "standard"}';
				END IF;
				FOR j IN 1 .. 3 LOOP
					u := (@extschema@.bk_shuffle_key(i::int8 * 1000 + j, seed)::numeric
						  + 9223372036854775808) / 18446744073709551616;
					IF j = 1 THEN
						v := to_jsonb(exp(ln(gamma_lo) + u * (ln(gamma_hi) - ln(gamma_lo))));
						draw := draw || jsonb_build_object('gamma', v);
					ELSIF j = 2 AND n_classes > 2 AND NOT regression THEN
						-- lambda = 1 / (C n), C over the same four decades
						v := to_jsonb(exp(ln(0.01 / n_rows) + u * (ln(100.0 / n_rows) - ln(0.01 / n_rows))));
						draw := draw || jsonb_build_object('lambda', v);
					ELSIF j = 2 THEN
						v := to_jsonb(exp(ln(0.01) + u * (ln(100.0) - ln(0.01))));
						draw := draw || jsonb_build_object('C', v);
					ELSIF regression THEN
						-- a regressor's tube, in standard deviations of the target
						v := to_jsonb(exp(ln(0.01) + u * (ln(1.0) - ln(0.01))));
						draw := draw || jsonb_build_object('epsilon', v);
					ELSIF smallest * n_classes * 2 < n_rows AND u < 0.5 THEN
						draw := draw || '{"class_weight": "balanced"}';
					END IF;
				END LOOP;
				-- three significant digits, readable and the same on reading back
				FOR k IN SELECT w FROM unnest(ARRAY['gamma', 'C', 'lambda', 'epsilon']) AS w WHERE draw ? w LOOP
					draw := draw || jsonb_build_object(
						k, round((draw->>k)::numeric, 2 - floor(log((draw->>k)::numeric))::int));
				END LOOP;
				IF NOT EXISTS (SELECT FROM jsonb_array_elements(settings) AS t(s) WHERE t.s = draw) THEN
					settings := settings || jsonb_build_array(draw);
				END IF;
				i := i + 1;
			END LOOP;
			-- the progress NOTICEs count the models of all the rounds
			keep := ceil(jsonb_array_length(settings) / 3.0)::int4;
			total := (jsonb_array_length(settings) + keep + ceil(keep / 3.0)::int4 + 2) * folds;
			PERFORM @extschema@._bk_cv_activity(started, total);
			probe := 'SELECT pg_catalog.jsonb_agg(q.params ORDER BY q.mean DESC NULLS LAST, q.params) FROM ('
					 || query || ') AS q';
			FOR rung IN 0 .. 1 LOOP
				PERFORM pg_catalog.set_config('search_path', caller_search_path, true);
				EXECUTE probe INTO ranked
					USING settings, seed, folds, metric, false, started, total;
				PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
				-- the best third, at three times the budget
				keep := greatest(1, ceil(jsonb_array_length(ranked) / 3.0)::int4);
				SELECT jsonb_agg(t.s || jsonb_build_object('budget', (t.s->>'budget')::int4 * 3) ORDER BY t.n)
				INTO settings
				FROM jsonb_array_elements(ranked) WITH ORDINALITY AS t(s, n)
				WHERE t.n <= keep;
			END LOOP;
			-- the last round on every row: the three settings with one
			-- pass, the best of the round before with three passes
			-- (epochs), and with eight passes and a tenth of its
			-- regularisation (C times 10, lambda over 10: more passes
			-- fit the rows more closely, so a setting tuned for one pass
			-- is over-regularised for eight; on usps Pegasos at 900 with
			-- the round's best gamma scored 93.0 % on the test rows with
			-- three passes and 94.0 % so); the best of the five (or of
			-- seven, after the wider round below) is refitted
			settings := settings || jsonb_build_array(settings->0 || '{"epochs": 3}');
			k := CASE WHEN settings->0 ? 'lambda' THEN 'lambda' ELSE 'C' END;
			u := (settings->0->>k)::float8 * CASE WHEN k = 'lambda' THEN 0.1 ELSE 10 END;
			settings := settings || jsonb_build_array(settings->0 || '{"epochs": 8}' ||
				jsonb_build_object(k, round(u::numeric, 2 - floor(log(u::numeric))::int)));
			-- the best of the round before in the outer twentieth of its
			-- range (on the logarithm's scale): the best may lie beyond it
			FOR k, lo, hi IN
				SELECT r.w, r.l, r.h
				FROM (VALUES ('gamma', gamma_lo, gamma_hi), ('C', 0.01, 100.0),
				             ('lambda', 0.01 / n_rows, 100.0 / n_rows)) AS r(w, l, h)
				WHERE settings->0 ? r.w
			LOOP
				u := (settings->0->>k)::float8;
				at_lower := ln(u / lo) < 0.05 * ln(hi / lo);
				IF at_lower OR ln(hi / u) < 0.05 * ln(hi / lo) THEN
					RAISE WARNING 'bk_cross_validate: the search''s best % so far, %, lies at the % end of its range [%, %]',
						k, u, CASE WHEN at_lower THEN 'lower' ELSE 'upper' END,
						round(lo::numeric, 6)::float8, round(hi::numeric, 6)::float8
						USING HINT = format('The best %s may lie beyond it: search further with a grid, for example with the options %L.',
							k, jsonb_build_object('grid', (settings->0) || jsonb_build_object(k, jsonb_build_object('log_uniform', jsonb_build_array(
								round((CASE WHEN at_lower THEN lo / 100 ELSE lo END)::numeric, 8)::float8,
								round((CASE WHEN at_lower THEN hi ELSE hi * 100 END)::numeric, 8)::float8))),
								'samples', 12));
				END IF;
			END LOOP;
		ELSE
			total := jsonb_array_length(settings) * folds;
			PERFORM @extschema@._bk_cv_activity(started, total);
		END IF;

		IF NOT auto_mode THEN
			PERFORM pg_catalog.set_config('search_path', caller_search_path, true);
			RETURN QUERY EXECUTE query
				USING settings, seed, folds, metric, refit, started, total;
			PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
			PERFORM @extschema@._bk_cv_activity(NULL::pg_catalog.timestamptz);
			RETURN;
		END IF;

		-- The last round's rows, best first (no refit yet: the round after
		-- may find a better setting)
		probe := 'SELECT pg_catalog.jsonb_agg(pg_catalog.to_jsonb(q) ORDER BY q.mean DESC NULLS LAST, s.n) FROM ('
				 || query || ') AS q JOIN pg_catalog.jsonb_array_elements($1) WITH ORDINALITY AS s(p, n) ON s.p OPERATOR(pg_catalog.=) q.params';
		PERFORM pg_catalog.set_config('search_path', caller_search_path, true);
		EXECUTE probe INTO last_round
			USING settings, seed, folds, metric, false, started, total;
		PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
		-- A wider round where the rows want a closer fit: when more passes
		-- won the last round by half a point or more over the best single
		-- pass, the winner is tried again at three times its budget with
		-- gamma three and ten times larger.  A narrow kernel needs more
		-- support vectors and passes than successive halving gives it: it
		-- is eliminated at the first round's small budget before it can
		-- show (covtype20k, two classes: the search's best, gamma 0.0296 at
		-- 450, scored 87.1 % on the test rows and 87.5 % at 1,350; gamma
		-- 0.296 at 1,350 with three passes 89.0 %).  Where one pass is as
		-- good, the table is fitted as closely as the budget allows and the
		-- round is not run (a9a: three passes won by 0.2 point).  Two
		-- classes only: multi-class Pegasos' one set of support vectors at
		-- three times 900 made the usps search 3.3 times as long (88 s
		-- against 26 s) and was not chosen.
		-- When a wider setting wins that round by half a point or more, the
		-- rows want more still: its budget is tripled once more, with its
		-- own gamma and three times it, if a fold's training rows outnumber
		-- the new budget (a larger one keeps every row and changes nothing).
		-- covtype20k: cross-validated 0.8815 at 1,350, 0.9015 at 4,050 with
		-- gamma 0.888; 90.5 % on the test rows against 89.1 %.
		best := last_round->0;
		SELECT pg_catalog.max((e->>'mean')::pg_catalog.float8) INTO one_pass
		FROM pg_catalog.jsonb_array_elements(last_round) AS t(e)
		WHERE NOT (e->'params') ? 'epochs';
		IF n_classes = 2 AND NOT regression
		   AND (best->'params') ? 'epochs' AND (best->'params') ? 'gamma'
		   AND (best->>'mean')::float8 >= one_pass + 0.005 THEN
			FOR rung IN 1 .. 2 LOOP
				u := (best->'params'->>'gamma')::float8;
				SELECT pg_catalog.jsonb_agg((best->'params') || pg_catalog.jsonb_build_object(
					'budget', (best->'params'->>'budget')::int4 * 3,
					'gamma', round((u * w)::numeric, 2 - floor(log((u * w)::numeric))::int)) ORDER BY w)
				INTO widened
				FROM unnest(CASE WHEN rung = 1 THEN ARRAY[3.0, 10.0] ELSE ARRAY[1.0, 3.0] END::float8[]) AS f(w);
				total := total + 2 * folds;
				PERFORM @extschema@._bk_cv_activity(started, total);
				PERFORM pg_catalog.set_config('search_path', caller_search_path, true);
				EXECUTE probe INTO widened
					USING widened, seed, folds, metric, false, started, total;
				PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
				-- every row of the rounds, best first, the earlier round first on a tie
				SELECT pg_catalog.jsonb_agg(t.e ORDER BY (t.e->>'mean')::pg_catalog.float8 DESC NULLS LAST, t.n)
				INTO last_round
				FROM pg_catalog.jsonb_array_elements(last_round || widened) WITH ORDINALITY AS t(e, n);
				EXIT WHEN rung = 2
					OR (last_round->0->'params') IS DISTINCT FROM (widened->0->'params')
					OR (last_round->0->>'mean')::float8 < (best->>'mean')::float8 + 0.005
					OR (last_round->0->'params'->>'budget')::int8 * 3 >= n_rows - n_rows / folds;
				best := last_round->0;
			END LOOP;
			best := last_round->0;
		END IF;
		-- with refit, the best setting trained on every row, in the same order
		IF refit THEN
			probe := rows_q || $q$ SELECT @extschema@.bk_train(r.x::@extschema@.bk_features, r.y::@extschema@.bk_label, $1 ORDER BY r.k, r.kt) FROM rows r$q$;
			one_pass := (best->>'mean')::pg_catalog.float8;
			best := best->'params';
			-- More than ten classes: the coefficients of multi-class
			-- Pegasos' model are solved again over its support vectors in
			-- one more scan (bk_refit, doc/refit.md), at the budget the
			-- search chose (90 a class up to 30 classes, 2,700 beyond:
			-- the refit's memory, about three (B + 1)^2 doubles, stays
			-- near 175 MB).  letter (26 classes, 16,000 rows), measured
			-- before the budgets grew with the classes: the search's
			-- setting at 900 scored 94.75 % on the test rows, at 2,700
			-- 95.50 %, at 2,340 refit 96.93 % (LIBSVM tuned on them:
			-- 97.46 %).
			IF n_classes > 10 AND NOT regression
			   AND best->>'algorithm' OPERATOR(pg_catalog.=) 'pegasos' THEN
				probe := rows_q || $q$ SELECT @extschema@.bk_refit(t.model, r.x::@extschema@.bk_features, r.y,
				                                                     NULL::pg_catalog.jsonb ORDER BY r.k, r.kt)
					FROM rows r,
					     (SELECT @extschema@.bk_train(r2.x::@extschema@.bk_features, r2.y::@extschema@.bk_label, $1 ORDER BY r2.k, r2.kt) AS model
					      FROM rows r2) AS t$q$;
			END IF;
			-- A regressor: its coefficients solved again over its support
			-- vectors (bk_refit: kernel ridge over the basis), with the
			-- ridge lambda the search's folds choose -- each fold's model
			-- of the best setting refit on its training rows at each
			-- lambda, scored on the fold held out -- where that beats the
			-- online model's own cross-validated score (doc/refit.md, "The
			-- search's final regressor").  The best lambda varies with the
			-- table (1e-4 on 506 rows of Friedman #1 and of California
			-- housing, 1e-5 on 8,000 of California housing); the online
			-- step is what leaves the search's model 0.04-0.07 R2 below a
			-- tuned SVR there, and the refit 0.005-0.012.  A refit that
			-- fails (a system not positive definite) keeps the online model.
			IF regression THEN
				query := rows_q || format($q$
					, fm AS (
						SELECT f.fold,
						       @extschema@.bk_train(r.x::@extschema@.bk_features, r.y, $1 ORDER BY r.k, r.kt) AS model
						FROM rows r
						     CROSS JOIN pg_catalog.generate_series(0::pg_catalog.int8,
						                                           $3::pg_catalog.int8 OPERATOR(pg_catalog.-) 1::pg_catalog.int8) AS f(fold)
						WHERE r.fold OPERATOR(pg_catalog.<>) f.fold
						GROUP BY f.fold
					), m AS (
						SELECT fm.fold, l.lam,
						       (SELECT @extschema@.bk_refit(fm.model, r.x::@extschema@.bk_features, r.y,
						                   pg_catalog.jsonb_build_object('lambda'::pg_catalog.text, l.lam) ORDER BY r.k, r.kt)
						        FROM rows r WHERE r.fold OPERATOR(pg_catalog.<>) fm.fold) AS model
						FROM fm CROSS JOIN pg_catalog.unnest($4::pg_catalog.float8[]) AS l(lam)
					)
					SELECT m.lam, pg_catalog.avg(sc.score::pg_catalog.float8) AS mean
					FROM m, LATERAL (SELECT %1$s AS score
					                 FROM rows r WHERE r.fold OPERATOR(pg_catalog.=) m.fold) AS sc
					GROUP BY m.lam
					ORDER BY mean DESC NULLS LAST, m.lam DESC
					LIMIT 1
				$q$, scoring);
				lambdas := '{1e-6, 1e-5, 1e-4, 1e-3}';
				BEGIN
					PERFORM pg_catalog.set_config('search_path', caller_search_path, true);
					EXECUTE query INTO u, lo USING best, seed, folds, lambdas;
					PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
				EXCEPTION WHEN data_exception THEN
					lo := NULL;
				END;
				ridge := jsonb_build_object('lambda', u);
				IF lo > one_pass THEN
					probe := rows_q || $q$ SELECT @extschema@.bk_refit(t.model, r.x::@extschema@.bk_features, r.y,
					                                                     $4 ORDER BY r.k, r.kt)
						FROM rows r,
						     (SELECT @extschema@.bk_train(r2.x::@extschema@.bk_features, r2.y, $1 ORDER BY r2.k, r2.kt) AS model
						      FROM rows r2) AS t$q$;
				END IF;
			END IF;
			PERFORM pg_catalog.set_config('search_path', caller_search_path, true);
			EXECUTE probe INTO refitted USING best, seed, folds, ridge;
			PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
		END IF;
		RETURN QUERY
			SELECT t.e->'params', (t.e->>'mean')::pg_catalog.float8, (t.e->>'stddev')::pg_catalog.float8,
			       ARRAY(SELECT f.s::pg_catalog.float8
			             FROM pg_catalog.jsonb_array_elements_text(t.e->'fold_scores') WITH ORDINALITY AS f(s, i)
			             ORDER BY f.i),
			       (t.e->>'train_seconds')::pg_catalog.float8,
			       CASE WHEN t.n = 1 THEN refitted END
			FROM pg_catalog.jsonb_array_elements(last_round) WITH ORDINALITY AS t(e, n)
			ORDER BY t.n;
		PERFORM @extschema@._bk_cv_activity(NULL::pg_catalog.timestamptz);
	EXCEPTION WHEN OTHERS OR query_canceled THEN
		-- the error of a setting or of the source, or a cancel or a
		-- statement_timeout (which OTHERS leaves out), without the query's
		-- text in its context
		GET STACKED DIAGNOSTICS err_state = RETURNED_SQLSTATE, err_msg = MESSAGE_TEXT,
			err_detail = PG_EXCEPTION_DETAIL, err_hint = PG_EXCEPTION_HINT;
		-- a column the source does not have: the expressions name the
		-- subquery's columns, or its whole row as s, never the table
		IF err_state = '42703' AND err_hint = '' THEN
			err_hint := 'The source is read as a subquery aliased s: name its columns, or its whole row as s (for example to_jsonb(s) - ''label''), not the table.';
		END IF;
		IF err_detail <> '' AND err_hint <> '' THEN
			RAISE EXCEPTION USING ERRCODE = err_state, MESSAGE = err_msg, DETAIL = err_detail, HINT = err_hint;
		ELSIF err_detail <> '' THEN
			RAISE EXCEPTION USING ERRCODE = err_state, MESSAGE = err_msg, DETAIL = err_detail;
		ELSIF err_hint <> '' THEN
			RAISE EXCEPTION USING ERRCODE = err_state, MESSAGE = err_msg, HINT = err_hint;
		ELSE
			RAISE EXCEPTION USING ERRCODE = err_state, MESSAGE = err_msg;
		END IF;
	END;
END
$fn$;

COMMENT ON FUNCTION @extschema@._bk_cross_validate(text, text, text, text, text, jsonb) IS
	'bk_cross_validate''s work, given the caller''s search_path for the caller''s names';

-- Availability: 0.2.0, changed 0.4.0 (one options argument, rows of bk_cross_validation)
-- (0.2.0 and 0.3.0: grid, folds, seed, metric, samples and refit were
-- arguments of their own; one jsonb keeps \df narrow)
CREATE OR REPLACE FUNCTION @extschema@.bk_cross_validate(
	source text, features text, label text, key text, options jsonb DEFAULT NULL)
	RETURNS SETOF @extschema@.bk_cross_validation
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
AS $fn$
	SELECT * FROM @extschema@._bk_cross_validate(
		pg_catalog.current_setting('search_path'::pg_catalog.text),
		$1, $2, $3, $4, $5)
$fn$;

COMMENT ON FUNCTION @extschema@.bk_cross_validate(text, text, text, text, jsonb) IS
	'k-fold cross-validation of every setting of a parameter grid (or of samples drawn from it; with no grid, a search of the default learner''s gamma, C, budget and passes by successive halving) in one query: mean, standard deviation and per-fold scores, the seconds its models took to train, best first, and with refit the best setting trained on every row; options: grid, folds, seed, metric, samples, refit';

-- Probabilities (availability: 0.2.0; one label form: 0.4.0):
-- bk_calibrate fits Platt's sigmoid of each class on held-out rows and
-- returns the model with it; bk_probabilities and bk_predict_probability
-- read it.
-- Availability: 0.2.0
CREATE FUNCTION @extschema@._bk_calibrate_final(internal)
	RETURNS @extschema@.bk_model
	AS 'MODULE_PATHNAME', 'bk_calibrate_final'
	LANGUAGE C IMMUTABLE PARALLEL UNSAFE;

COMMENT ON FUNCTION @extschema@._bk_calibrate_final(internal) IS
	'final function of bk_calibrate: the model with a sigmoid per class';

CREATE FUNCTION @extschema@.bk_probabilities(model @extschema@.bk_model, features @extschema@.bk_features)
	RETURNS float8[]
	AS 'MODULE_PATHNAME', 'bk_probabilities'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100;

COMMENT ON FUNCTION @extschema@.bk_probabilities(@extschema@.bk_model, @extschema@.bk_features) IS
	'one probability per class (bk_info classes order, summing to 1) of a calibrated model';

CREATE FUNCTION @extschema@.bk_predict_probability(model @extschema@.bk_model, features @extschema@.bk_features)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'bk_predict_probability'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100;

COMMENT ON FUNCTION @extschema@.bk_predict_probability(@extschema@.bk_model, @extschema@.bk_features) IS
	'the probability of the class bk_predict gives, for a calibrated model';

-- Availability: 0.4.0
CREATE FUNCTION @extschema@._bk_calibrate_trans(internal, @extschema@.bk_model, @extschema@.bk_features, @extschema@.bk_label)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_calibrate_trans'
	LANGUAGE C IMMUTABLE PARALLEL UNSAFE;

COMMENT ON FUNCTION @extschema@._bk_calibrate_trans(internal, @extschema@.bk_model, @extschema@.bk_features, @extschema@.bk_label) IS
	'transition function of bk_calibrate(bk_model, bk_features, bk_label)';

CREATE AGGREGATE @extschema@.bk_calibrate(model @extschema@.bk_model, features @extschema@.bk_features, label @extschema@.bk_label) (
	SFUNC = @extschema@._bk_calibrate_trans,
	STYPE = internal,
	FINALFUNC = @extschema@._bk_calibrate_final,
	FINALFUNC_MODIFY = READ_WRITE,
	PARALLEL = UNSAFE
);

COMMENT ON AGGREGATE @extschema@.bk_calibrate(@extschema@.bk_model, @extschema@.bk_features, @extschema@.bk_label) IS
	'the model with Platt scaling fitted on the rows (held-out rows, the labels integers or text): probabilities from bk_probabilities';

-- Availability: 0.4.0
-- bk_learning_curve's rows (0.2.0 and 0.3.0: OUT parameters, which \df
-- lists one by one)
CREATE TYPE @extschema@.bk_curve_point AS (
	rows int8, mistakes int8, mistake_rate float8, window_rate float8,
	rmse float8, window_rmse float8);

COMMENT ON TYPE @extschema@.bk_curve_point IS
	'a row of bk_learning_curve: the rows seen, the online mistakes and their rate so far and over the window, and a regressor''s RMSE so far and over the window';

-- Availability: 0.2.0, changed 0.4.0 (rows of bk_curve_point)
CREATE OR REPLACE FUNCTION @extschema@.bk_learning_curve(model @extschema@.bk_model)
	RETURNS SETOF @extschema@.bk_curve_point
	AS 'MODULE_PATHNAME', 'bk_learning_curve'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 20;

COMMENT ON FUNCTION @extschema@.bk_learning_curve(@extschema@.bk_model) IS
	'the online mistakes of the training stream after 1, 2, 4, ... rows and after all of them: the rate so far and over each doubling window; for a regressor also its online RMSE';

-- Availability: 0.2.0
-- Regression (availability: 0.2.0): a float8 or numeric target trains a
-- regressor (doc/regression.md), through the same aggregates as the
-- classifiers' (bk_label); bk_predict_value gives its prediction.
CREATE FUNCTION @extschema@.bk_predict_value(model @extschema@.bk_model, features @extschema@.bk_features)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'bk_predict_value'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100;

COMMENT ON FUNCTION @extschema@.bk_predict_value(@extschema@.bk_model, @extschema@.bk_features) IS
	'a regressor''s prediction of the row, in its target''s units';

-- _bk_train_folds (availability: 0.4.0): every (setting, fold) model of
-- one round of the search in one aggregate over the rows, read and
-- sorted once for the round: each model learns the rows outside its
-- fold in the call's order, the same bytes as bk_train of its setting
-- over those rows; the rows and the preparation's fit are kept once a
-- fold, and prepared once for all its settings (bk_train_folds.c).  With
-- a metric (a key of bk_metrics' report) each model is scored on its
-- held-out fold as bk_metrics of bk_predict_label (a regressor's:
-- bk_predict_value) over those rows scores it, the rows prepared once for
-- the settings of a fold; the search read and parsed them again for
-- each model until then.
-- (Until 0.4.0 the search trained each model with bk_train and timed it
-- with _bk_train_seconds, an aggregate of bk_train's state.)
-- Availability: 0.4.0
CREATE TYPE @extschema@._bk_fold_model AS (setting int4, fold int4, model @extschema@.bk_model, seconds float8, score float8);

COMMENT ON TYPE @extschema@._bk_fold_model IS
	'a model of bk_cross_validate''s search: its setting (from 0), its held-out fold, the model, the seconds of its training, its score on the fold';

CREATE FUNCTION @extschema@._bk_train_folds_trans(internal, @extschema@.bk_features, @extschema@.bk_label, int8, jsonb, int4, text)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_train_folds_trans'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_train_folds_final(internal)
	RETURNS @extschema@._bk_fold_model[]
	AS 'MODULE_PATHNAME', 'bk_train_folds_final'
	LANGUAGE C VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@._bk_train_folds_trans(internal, @extschema@.bk_features, @extschema@.bk_label, int8, jsonb, int4, text) IS
	'transition function of _bk_train_folds';
COMMENT ON FUNCTION @extschema@._bk_train_folds_final(internal) IS
	'final function of _bk_train_folds: every (setting, fold) model and its score, setting-major; reads the state only';

CREATE AGGREGATE @extschema@._bk_train_folds(features @extschema@.bk_features, label @extschema@.bk_label,
                                             fold int8, settings jsonb, folds int4, metric text) (
	SFUNC = @extschema@._bk_train_folds_trans,
	STYPE = internal,
	SSPACE = 1048576,
	FINALFUNC = @extschema@._bk_train_folds_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@._bk_train_folds(@extschema@.bk_features, @extschema@.bk_label, int8, jsonb, int4, text) IS
	'bk_cross_validate''s round: the model of every setting (a JSON array of parameters) on every fold (0 to folds - 1) from the rows outside it, in the call''s order, and its score (the metric of bk_metrics'' report, or NULL) on the fold';

-- Availability: 0.2.0
-- Novelty detection (availability: 0.2.0): bk_train with "task":
-- "novelty" and a NULL label trains a novelty detector (doc/novelty.md),
-- bk_continue with a NULL label continues it, bk_novelty scores a row.
-- (0.2.0 and 0.3.0 had label-less forms of bk_train and bk_continue for
-- them, which 0.4.0 dropped: one form per concept, the task named.)
CREATE FUNCTION @extschema@.bk_novelty(model @extschema@.bk_model, features @extschema@.bk_features)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'bk_novelty'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100;

COMMENT ON FUNCTION @extschema@.bk_novelty(@extschema@.bk_model, @extschema@.bk_features) IS
	'a novelty detector''s score of the row: above 0 for a row it flags (the share nu of its training rows), higher for a more unusual one';
