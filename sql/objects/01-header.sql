-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION budgetkernel" to load this file. \quit

-- budgetkernel 0.1.0: budgeted online kernel classifiers trained by aggregates.
--
-- Every object is created in, and every reference between objects is
-- qualified with, @extschema@, so that the script does not depend on the
-- search_path of the user who runs CREATE EXTENSION.  Built-in types
-- (float8[], int8, jsonb, bytea, ...) resolve in pg_catalog, which is
-- searched first.  Nothing here is SECURITY DEFINER.
