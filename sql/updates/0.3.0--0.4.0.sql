-- budgetkernel 0.3.0 -> 0.4.0
--
-- Written by make from sql/updates/0.3.0--0.4.0.sql (this header, and any
-- change that is not a new or replaced object) and the blocks of
-- sql/objects/*.sql marked "-- Availability: 0.4.0" or "changed 0.4.0"
-- (sql/new_objects.awk), so that every object is written once.
-- test/sql/upgrade.sql checks that an installation updated from 0.3.0 (or,
-- through it, from 0.2.0 and 0.1.0) has exactly the objects, definitions
-- and comments of a fresh 0.4.0 one.  Stored models keep their bytes and
-- scores.

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION budgetkernel UPDATE TO '0.4.0'" to load this file. \quit

-- Issue 56: \df bk_* fits a terminal.  bk_cross_validate takes its
-- options in one jsonb and returns rows of bk_cross_validation (its work
-- function, _bk_cross_validate, the same); bk_support_vectors and
-- bk_learning_curve return rows of named types instead of OUT parameters
-- (a function's result type cannot change in place); bk_model_cache() is
-- now a view, over _bk_model_cache().  The new forms are created below.
-- A view of the user's that calls one of the dropped functions stops the
-- update, naming it: drop it, update, and create it again with the new
-- call.
DROP FUNCTION @extschema@.bk_cross_validate(text, text, text, text, jsonb, int4, int8, text, int4, boolean);
DROP FUNCTION @extschema@._bk_cross_validate(text, text, text, text, text, jsonb, int4, int8, text, int4, boolean);
DROP FUNCTION @extschema@.bk_support_vectors(@extschema@.bk_model);
DROP FUNCTION @extschema@.bk_learning_curve(@extschema@.bk_model);
DROP FUNCTION @extschema@.bk_model_cache();

-- Issue 56: at most 35 signatures, one form per concept, the task named.
-- A novelty detector is trained by bk_train(features, NULL, params) with
-- "task": "novelty" in params and continued by bk_continue(features,
-- NULL, model); the label-less forms of bk_train and bk_continue go.  An
-- object of the user's that calls one stops the update, named, before
-- any change: its call must be written again.
DO $update$
DECLARE
	old_aggregates text[] := ARRAY[
		'@extschema@.bk_train(@extschema@.bk_features, jsonb)',
		'@extschema@.bk_train(jsonb, jsonb)',
		'@extschema@.bk_continue(@extschema@.bk_features, @extschema@.bk_model)',
		'@extschema@.bk_continue(@extschema@.bk_features, @extschema@.bk_model, jsonb)'];
	old_functions text[] := ARRAY[
		'@extschema@._bk_train_trans(internal, @extschema@.bk_features, jsonb)',
		'@extschema@._bk_train_trans(internal, jsonb, jsonb)',
		'@extschema@._bk_continue_trans(internal, @extschema@.bk_features, @extschema@.bk_model)',
		'@extschema@._bk_continue_trans(internal, @extschema@.bk_features, @extschema@.bk_model, jsonb)'];
	blocker text;
	a text;
BEGIN
	SELECT pg_catalog.string_agg(DISTINCT pg_catalog.pg_describe_object(
		CASE WHEN d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_rewrite'::pg_catalog.regclass
		     THEN 'pg_catalog.pg_class'::pg_catalog.regclass ELSE d.classid END,
		coalesce(r.ev_class, d.objid),
		CASE WHEN r.ev_class IS NULL THEN d.objsubid ELSE 0 END), ', ')
	INTO blocker
	FROM pg_catalog.pg_depend d
	LEFT JOIN pg_catalog.pg_rewrite r ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_rewrite'::pg_catalog.regclass
	      AND r.oid OPERATOR(pg_catalog.=) d.objid
	WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
	  AND d.refobjid OPERATOR(pg_catalog.=) ANY (
		SELECT pg_catalog.to_regprocedure(o)::pg_catalog.oid FROM pg_catalog.unnest(old_aggregates) o)
	  AND d.deptype OPERATOR(pg_catalog.=) 'n';
	IF blocker IS NOT NULL THEN
		RAISE EXCEPTION 'budgetkernel 0.4.0 drops the label-less forms of bk_train and bk_continue (novelty detection), and these objects call one: %', blocker
			USING ERRCODE = 'dependent_objects_still_exist',
			      HINT = 'Drop them, run ALTER EXTENSION budgetkernel UPDATE, and create them again calling bk_train(features, NULL, params) with "task": "novelty" in params, and bk_continue(features, NULL, model [, overrides]).';
	END IF;
	FOREACH a IN ARRAY old_aggregates LOOP
		EXECUTE pg_catalog.format('DROP AGGREGATE %s', pg_catalog.to_regprocedure(a));
	END LOOP;
	FOREACH a IN ARRAY old_functions LOOP
		EXECUTE pg_catalog.format('DROP FUNCTION %s', pg_catalog.to_regprocedure(a));
	END LOOP;
END $update$;
