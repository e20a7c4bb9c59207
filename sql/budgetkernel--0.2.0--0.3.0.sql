-- budgetkernel 0.2.0 -> 0.3.0
--
-- The model format does not change: every stored model keeps its bytes
-- and its scores.  0.3.0 is the first release under a licence (the
-- PostgreSQL Licence) and the first tested on Debian's PostgreSQL 17 and
-- 18; its SQL objects are those of 0.2.0.  test/sql/upgrade.sql checks
-- that an installation updated from 0.2.0 has exactly the objects,
-- definitions and comments of a fresh 0.3.0 one.

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION budgetkernel UPDATE TO '0.3.0'" to load this file. \quit
