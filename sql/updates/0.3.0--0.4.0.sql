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
