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

