--
-- Names the extension's SQL resolves (doc/security.md, "Schema and search path").
--
-- 1. A role that can CREATE in the extension's schema plants a function
--    and an operator that a caller's search_path would reach through an
--    implicit cast (CVE-2020-14350's class), and overloads of the
--    extension's own aggregates and functions more specific than their
--    bk_features argument (bk_train(float8[], int8, jsonb), ...); a
--    superuser who calls bk_cross_validate must not run them.
-- 2. Every built-in function, operator and type named in the extension's
--    SQL-language and PL/pgSQL functions is copied into a schema searched
--    before pg_catalog, each copy writing to a log when it runs, and every
--    overload the extension's schema could hold that a call would reach
--    through an implicit cast is planted there too; every such function
--    is called, in every form, under two hostile search_paths: the log
--    stays empty.  A new SQL-language function must be added to the
--    calls here (the list of those functions is printed).
-- 3. The caller's names -- the source, a function in features -- resolve
--    under the caller's search_path, not the extension's.
--
SET client_min_messages = warning;
CREATE TABLE cvdata AS
SELECT g AS id, ARRAY[(g % 7) / 7.0, (g % 11) / 11.0]::float8[] AS x,
       (CASE WHEN (g % 7) > (g % 11) * 7 / 11 THEN 1 ELSE -1 END)::int8 AS y
FROM generate_series(1, 60) g;

-- 1. the audit's reproduction
CREATE ROLE bk_mallory;
GRANT CREATE, USAGE ON SCHEMA public TO bk_mallory;
CREATE TABLE secret (s text);
INSERT INTO secret VALUES ('only the superuser may read this');
CREATE TABLE loot (who text, what text);
GRANT INSERT, SELECT ON loot TO bk_mallory;
GRANT SELECT ON cvdata TO bk_mallory;
SET ROLE bk_mallory;
CREATE FUNCTION public.hashtextextended(t text, seed integer) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	BEGIN
		INSERT INTO public.loot SELECT current_user, s FROM public.secret;
		EXECUTE 'ALTER ROLE bk_mallory SUPERUSER';
	EXCEPTION WHEN OTHERS THEN NULL;
	END;
	RETURN pg_catalog.hashtextextended(t, seed::bigint);
END $$;
CREATE FUNCTION public.planted_mod(a bigint, b integer) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	INSERT INTO public.loot SELECT current_user, s FROM public.secret;
	RETURN pg_catalog.int8mod(a, b::bigint);
END $$;
CREATE OPERATOR public.% (LEFTARG = bigint, RIGHTARG = integer, FUNCTION = public.planted_mod);
-- overloads more specific than the extension's bk_features ones: a call
-- with a float8[] (or int4[]) argument would choose them over a cast
CREATE FUNCTION public.planted_steal(what text) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	INSERT INTO public.loot SELECT current_user, what || ': ' || s FROM public.secret;
END $$;
CREATE FUNCTION public.planted_train_step(m bk_model, x anyelement, y bigint, p jsonb) RETURNS bk_model
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	PERFORM public.planted_steal('bk_train');
	RETURN m;
END $$;
CREATE AGGREGATE public.bk_train(float8[], bigint, jsonb) (
	SFUNC = public.planted_train_step, STYPE = bk_model);
CREATE AGGREGATE public.bk_train(int4[], bigint, jsonb) (
	SFUNC = public.planted_train_step, STYPE = bk_model);
CREATE FUNCTION public.planted_folds_step(m bk_model, x anyelement, y bigint, f bigint, p jsonb, k int4, s text)
RETURNS bk_model
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	PERFORM public.planted_steal('_bk_train_folds');
	RETURN m;
END $$;
CREATE AGGREGATE public._bk_train_folds(float8[], bigint, bigint, jsonb, int4, text) (
	SFUNC = public.planted_folds_step, STYPE = bk_model);
CREATE FUNCTION public.bk_predict_label(m bk_model, x float8[]) RETURNS text
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	PERFORM public.planted_steal('bk_predict_label');
	RETURN NULL;
END $$;
CREATE FUNCTION public.bk_decision(m bk_model, x float8[]) RETURNS float8
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	PERFORM public.planted_steal('bk_decision');
	RETURN NULL;
END $$;
RESET ROLE;
-- they are what a plain call in the caller's own query resolves to (why no
-- role should be able to CREATE in the extension's schema) ...
SELECT bk_decision(NULL::bk_model, ARRAY[1, 2]::float8[]) AS planted_decision;
SELECT count(*) AS plain_call_stolen FROM loot;
TRUNCATE loot;
-- ... and what bk_cross_validate never calls: it casts the features to
-- bk_features and calls the extension's objects with exact types

SET search_path = pg_catalog;
SELECT params, mean FROM public.bk_cross_validate('public.cvdata', 'x', 'y', 'id',
                                                  '{"grid": {"algorithm": ["pa"]}, "folds": 2}');
SET search_path = public;
SELECT params, mean FROM bk_cross_validate('cvdata', 'x', 'y', 'id',
                                           '{"grid": {"algorithm": ["pa"]}, "folds": 2}');
RESET search_path;
CREATE TABLE cvints1 AS SELECT id, ARRAY[(id % 7), (id % 11)]::int4[] AS x, y FROM cvdata;
SET search_path = public;
SELECT params, mean FROM bk_cross_validate('cvints1', 'x', 'y', 'id',
                                           '{"grid": {"algorithm": ["pa"]}, "folds": 2}');
RESET search_path;
DROP TABLE cvints1;
SELECT count(*) AS rows_stolen FROM loot;
SELECT rolsuper AS mallory_is_superuser FROM pg_roles WHERE rolname = 'bk_mallory';
DROP AGGREGATE public.bk_train(float8[], bigint, jsonb);
DROP AGGREGATE public.bk_train(int4[], bigint, jsonb);
DROP AGGREGATE public._bk_train_folds(float8[], bigint, bigint, jsonb, int4, text);
DROP FUNCTION public.planted_folds_step(bk_model, anyelement, bigint, bigint, jsonb, int4, text);
DROP FUNCTION public.planted_train_step(bk_model, anyelement, bigint, jsonb);
DROP FUNCTION public.bk_predict_label(bk_model, float8[]);
DROP FUNCTION public.bk_decision(bk_model, float8[]);
DROP FUNCTION public.planted_steal(text);
DROP OPERATOR public.%(bigint, integer);
DROP FUNCTION public.planted_mod(bigint, integer);
DROP FUNCTION public.hashtextextended(text, integer);

-- 2. every built-in the extension's SQL names, planted
-- the extension's SQL-language and PL/pgSQL functions: each is called below
SELECT p.oid::regprocedure AS sql_function
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
     JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
WHERE e.extname = 'budgetkernel' AND d.deptype = 'e'
  AND p.prolang IN (SELECT oid FROM pg_language WHERE lanname IN ('sql', 'plpgsql'))
ORDER BY 1::text;

CREATE SCHEMA trap;
CREATE TABLE public.trap_log (what text);
CREATE FUNCTION public.trap_note(what text) RETURNS boolean
LANGUAGE sql VOLATILE AS $$ INSERT INTO public.trap_log VALUES (what); SELECT true $$;

DO $plant$
DECLARE
	src			text;
	words		text[];
	ops			text[];
	r			record;
	i			int;
	args		text;
	n_args		oid;
BEGIN
	SELECT string_agg(p.prosrc, ' ') INTO src
	FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
	     JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
	WHERE e.extname = 'budgetkernel' AND d.deptype = 'e'
	  AND p.prolang IN (SELECT oid FROM pg_language WHERE lanname IN ('sql', 'plpgsql'));
	SELECT array_agg(DISTINCT lower(m[1])) INTO words
	FROM regexp_matches(src, '([A-Za-z_][A-Za-z0-9_]*)', 'g') AS m;
	SELECT array_agg(DISTINCT m[1]) INTO ops
	FROM regexp_matches(src, '([-+*/<>=~!@#%^&|`?]+)', 'g') AS m;

	-- a logging copy of every built-in function of those names (aggregates
	-- and window functions too: a plain function found in their place
	-- fails the query, if it does not log)
	FOR r IN SELECT p.oid, p.proname, p.proretset OR p.proallargtypes IS NOT NULL AS returns_rows
			 FROM pg_proc p
			 WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.proname = ANY (words)
	LOOP
		BEGIN
			EXECUTE format('CREATE FUNCTION trap.%I(%s) RETURNS %s LANGUAGE plpgsql VOLATILE AS %L',
						   r.proname, pg_get_function_arguments(r.oid), pg_get_function_result(r.oid),
						   format('BEGIN PERFORM public.trap_note(%L); RETURN%s; END',
								  'function ' || r.proname, CASE WHEN r.returns_rows THEN '' ELSE ' NULL' END));
		EXCEPTION WHEN OTHERS THEN NULL;	-- pseudo-types PL/pgSQL cannot take
		END;
	END LOOP;

	-- a logging copy of every built-in operator of those names
	FOR r IN SELECT o.oid, o.oprname, o.oprleft, o.oprright, o.oprresult, o.oprcode
			 FROM pg_operator o
			 WHERE o.oprnamespace = 'pg_catalog'::regnamespace AND o.oprname = ANY (ops)
	LOOP
		BEGIN
			IF r.oprleft = 0 THEN
				EXECUTE format('CREATE FUNCTION trap.op_%s(%s) RETURNS %s LANGUAGE sql VOLATILE AS %L',
							   r.oid, r.oprright::regtype, r.oprresult::regtype,
							   format('SELECT public.trap_note(%L); SELECT %s($1)',
									  'operator ' || r.oprname, r.oprcode::regproc));
				EXECUTE format('CREATE OPERATOR trap.%s (RIGHTARG = %s, FUNCTION = trap.op_%s)',
							   r.oprname, r.oprright::regtype, r.oid);
			ELSE
				EXECUTE format('CREATE FUNCTION trap.op_%s(%s, %s) RETURNS %s LANGUAGE sql VOLATILE AS %L',
							   r.oid, r.oprleft::regtype, r.oprright::regtype, r.oprresult::regtype,
							   format('SELECT public.trap_note(%L); SELECT %s($1, $2)',
									  'operator ' || r.oprname, r.oprcode::regproc));
				EXECUTE format('CREATE OPERATOR trap.%s (LEFTARG = %s, RIGHTARG = %s, FUNCTION = trap.op_%s)',
							   r.oprname, r.oprleft::regtype, r.oprright::regtype, r.oid);
			END IF;
		EXCEPTION WHEN OTHERS THEN NULL;
		END;
	END LOOP;

	-- a checked copy of every built-in base type of those names
	FOR r IN SELECT t.typname FROM pg_type t
			 WHERE t.typnamespace = 'pg_catalog'::regnamespace AND t.typtype = 'b'
			   AND t.typname = ANY (words)
	LOOP
		BEGIN
			EXECUTE format('CREATE DOMAIN trap.%I AS pg_catalog.%I CHECK (public.trap_note(%L))',
						   r.typname, r.typname, 'type ' || r.typname);
		EXCEPTION WHEN OTHERS THEN NULL;
		END;
	END LOOP;

	-- in the extension's schema, every overload of a function of those
	-- names (built-in or the extension's own) that a call would reach
	-- through an implicit cast of one argument
	FOR r IN SELECT p.oid, p.proname, string_to_array(p.proargtypes::text, ' ')::oid[] AS argtypes,
				    p.prorettype
			 FROM pg_proc p
			 WHERE p.pronamespace IN ('pg_catalog'::regnamespace, 'public'::regnamespace)
			   AND p.proname = ANY (words) AND p.pronargs > 0 AND p.prokind IN ('f', 'a', 'w')
	LOOP
		FOR i IN 1 .. array_length(r.argtypes, 1) LOOP
			FOR n_args IN
				SELECT c.castsource FROM pg_cast c
				WHERE c.casttarget = r.argtypes[i] AND c.castcontext = 'i' AND c.castsource <> r.argtypes[i]
				UNION
				SELECT sa.typarray FROM pg_type ta JOIN pg_cast c ON c.casttarget = ta.typelem
				     JOIN pg_type sa ON sa.oid = c.castsource
				WHERE ta.oid = r.argtypes[i] AND ta.typelem <> 0 AND c.castcontext = 'i' AND sa.typarray <> 0
			LOOP
				SELECT string_agg(format_type(CASE WHEN k = i THEN n_args ELSE t END, NULL), ', ' ORDER BY k)
				INTO args
				FROM unnest(r.argtypes) WITH ORDINALITY AS u(t, k);
				BEGIN
					EXECUTE format('CREATE FUNCTION public.%I(%s) RETURNS %s LANGUAGE sql VOLATILE AS %L',
								   r.proname, args, format_type(r.prorettype, NULL),
								   format('SELECT public.trap_note(%L); SELECT NULL::%s',
										  'overload ' || r.proname || '(' || args || ')',
										  format_type(r.prorettype, NULL)));
				EXCEPTION WHEN OTHERS THEN NULL;	-- it exists, or a pseudo-type
				END;
			END LOOP;
		END LOOP;
	END LOOP;
END
$plant$;

-- the ones the extension's queries under the caller's search_path could
-- reach are planted
SELECT count(*) FILTER (WHERE n.nspname = 'trap') > 0 AS trap_copies,
       bool_and(EXISTS (SELECT FROM pg_proc p WHERE p.pronamespace = 'trap'::regnamespace AND p.proname = w))
         AS names_copied
FROM unnest(ARRAY['row_number', 'hashtextextended', 'jsonb_array_elements', 'generate_series',
                  'avg', 'stddev_samp', 'array_agg', 'sum', 'current_setting', 'set_config']) AS w
     CROSS JOIN (SELECT nspname FROM pg_namespace WHERE nspname = 'trap') n;
SELECT count(*) FILTER (WHERE oprname = '%') > 0 AS mod_copied,
       count(*) FILTER (WHERE oprname = '<>') > 0 AS ne_copied,
       count(*) FILTER (WHERE oprname = '->>') > 0 AS arrow_copied
FROM pg_operator WHERE oprnamespace = 'trap'::regnamespace;
SELECT EXISTS (SELECT FROM pg_proc WHERE oid = to_regprocedure('public.hashtextextended(text, integer)'))
         AS implicit_cast_overload_planted;

CREATE TABLE cvnamed AS
SELECT id, jsonb_build_object('a', x[1], 'b', x[2]) AS x,
       CASE WHEN y > 0 THEN 'up' ELSE 'down' END::varchar AS y
FROM cvdata;
CREATE TABLE cvints AS
SELECT id, ARRAY[(id % 7), (id % 11)]::int4[] AS x, y::int4 AS y FROM cvdata;
CREATE TABLE cvsparse AS
SELECT id, public.bk_sparse(ARRAY[1, 2], x, 2) AS x, y FROM cvdata;

-- every form, under two hostile search_paths: copies before pg_catalog,
-- and the default-like one where the extension's schema holds overloads
-- that beat an inexact call into pg_catalog
-- (the test's own calls name pg_catalog's count and bool_and)
SET search_path = trap, pg_catalog, public;
SELECT pg_catalog.count(*) AS settings, pg_catalog.bool_and(model IS NULL OR public.bk_is_valid(model::pg_catalog.bytea)) AS valid
FROM public.bk_cross_validate('public.cvdata', 'x', 'y', 'id',
                              '{"grid": {"algorithm": "bpa", "C": [0.1, 1], "budget": 20}, "folds": 2, "refit": true}');
SELECT pg_catalog.count(*) AS settings
FROM public.bk_cross_validate('SELECT * FROM public.cvnamed', 'x', 'y', 'id',
                              '{"grid": {"C": {"log_uniform": [0.1, 10]}, "gamma": {"uniform": [0.5, 2]}, "budget": [10, 20]}, "folds": 3, "seed": 5, "metric": "macro_f1", "samples": 3, "refit": true}');
SELECT pg_catalog.count(*) AS settings
FROM public.bk_cross_validate('public.cvints', 'x', 'y', 'id', '{"grid": {"algorithm": "pa"}, "folds": 2}');
SELECT pg_catalog.count(*) AS settings
FROM public.bk_cross_validate('public.cvsparse', 'x', 'y', 'id', '{"grid": {"algorithm": "pa"}, "folds": 2}');
-- the search without a grid: its probes of the data and its rounds
SELECT pg_catalog.count(*) AS settings
FROM public.bk_cross_validate('public.cvdata', 'x', 'y', 'id', '{"folds": 2, "samples": 3, "refit": true}');
SELECT pg_catalog.count(*) AS settings
FROM public.bk_cross_validate('SELECT * FROM public.cvnamed', 'x', 'y', 'id', '{"folds": 2, "samples": 3}');
SELECT pg_catalog.count(*) AS settings
FROM public.bk_cross_validate('public.cvsparse', 'x', 'y', 'id', '{"folds": 2, "samples": 3}');
SET search_path = public;
SELECT count(*) AS settings, bool_and(model IS NULL OR bk_is_valid(model::bytea)) AS valid
FROM bk_cross_validate('cvdata', 'x', 'y', 'id',
                       '{"grid": {"algorithm": "bpa", "C": [0.1, 1], "budget": 20}, "folds": 2, "refit": true}');
SELECT count(*) AS settings
FROM bk_cross_validate('cvnamed', 'x', 'y', 'id',
                       '{"grid": {"C": {"log_uniform": [0.1, 10]}, "gamma": {"uniform": [0.5, 2]}, "budget": [10, 20]}, "folds": 3, "seed": 5, "metric": "macro_f1", "samples": 3, "refit": true}');
SELECT count(*) AS settings FROM bk_cross_validate('cvints', 'x', 'y', 'id', '{"grid": {"algorithm": "pa"}, "folds": 2}');
SELECT count(*) AS settings FROM bk_cross_validate('cvsparse', 'x', 'y', 'id', '{"grid": {"algorithm": "pa"}, "folds": 2}');
SELECT count(*) AS settings FROM bk_cross_validate('cvdata', 'x', 'y', 'id', '{"folds": 2, "samples": 3, "refit": true}');
SELECT count(*) AS settings FROM bk_cross_validate('cvnamed', 'x', 'y', 'id', '{"folds": 2, "samples": 3}');
SELECT count(*) AS settings FROM bk_cross_validate('cvints', 'x', 'y', 'id', '{"folds": 2, "samples": 3}');
-- the errors of a wrong type and a missing table, under the same paths
\set VERBOSITY terse
SELECT count(*) FROM bk_cross_validate('cvdata', 'x', 'y > 0', 'id', '{"grid": {"algorithm": "pa"}}');
SELECT count(*) FROM bk_cross_validate('cvdata', 'y', 'y', 'id', '{"grid": {"algorithm": "pa"}}');
SELECT count(*) FROM bk_cross_validate('no_such_table', 'x', 'y', 'id', '{"grid": {"algorithm": "pa"}}');
SET search_path = trap, pg_catalog, public;
SELECT pg_catalog.count(*) FROM public.bk_cross_validate('public.cvdata', 'x', 'y > 0', 'id', '{"grid": {"algorithm": "pa"}}');
\set VERBOSITY default

SET search_path = pg_catalog;
SELECT what AS planted_object_that_ran, pg_catalog.count(*) FROM public.trap_log GROUP BY what ORDER BY what;
SELECT pg_catalog.count(*) AS planted_objects_that_ran FROM public.trap_log;
RESET search_path;

-- drop what was planted in the extension's schema
DO $unplant$
DECLARE
	r			record;
BEGIN
	FOR r IN SELECT p.oid::regprocedure AS f FROM pg_proc p
			 WHERE p.pronamespace = 'public'::regnamespace
			   AND p.prosrc LIKE 'SELECT public.trap_note(''overload %'
	LOOP
		EXECUTE format('DROP FUNCTION %s', r.f);
	END LOOP;
END
$unplant$;
DROP SCHEMA trap CASCADE;
DROP TABLE trap_log, cvnamed, cvints, cvsparse, loot, secret;
DROP FUNCTION trap_note(text);
REVOKE ALL ON cvdata FROM bk_mallory;
REVOKE ALL ON SCHEMA public FROM bk_mallory;
DROP ROLE bk_mallory;

-- 3. the caller's names: its own table of that name, and its function
CREATE SCHEMA alice;
CREATE TABLE alice.cv_rows AS
SELECT g AS id, ARRAY[(g * 37 % 100) / 100.0, (g * 61 % 100) / 100.0]::float8[] AS x,
       (CASE WHEN g * 37 % 100 > g * 61 % 100 THEN 1 ELSE -1 END)::int8 AS y
FROM generate_series(1, 200) g;
-- the same features under noise labels
CREATE TABLE public.cv_rows AS
SELECT id, x, (CASE WHEN bk_shuffle_key(id, 3) > 0 THEN 1 ELSE -1 END)::int8 AS y FROM alice.cv_rows;
CREATE FUNCTION alice.scaled(v float8[]) RETURNS float8[] LANGUAGE sql IMMUTABLE
AS $$ SELECT ARRAY[v[1] * 2, v[2] * 2] $$;
SET search_path = alice, public;
SELECT round(mean::numeric, 4) AS alice_mean
FROM bk_cross_validate('cv_rows', 'x', 'y', 'id', '{"grid": {"algorithm": "pa"}, "folds": 2}');
SELECT round(mean::numeric, 4) AS qualified_alice_mean
FROM bk_cross_validate('alice.cv_rows', 'x', 'y', 'id', '{"grid": {"algorithm": "pa"}, "folds": 2}');
SELECT round(mean::numeric, 4) AS public_noise_mean
FROM bk_cross_validate('public.cv_rows', 'x', 'y', 'id', '{"grid": {"algorithm": "pa"}, "folds": 2}');
SELECT round(mean::numeric, 4) AS alice_function_mean
FROM bk_cross_validate('cv_rows', 'scaled(x)', 'y', 'id', '{"grid": {"algorithm": "pa"}, "folds": 2}');
RESET search_path;
DROP SCHEMA alice CASCADE;
DROP TABLE public.cv_rows, cvdata;
