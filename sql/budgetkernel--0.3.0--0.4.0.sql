-- budgetkernel 0.3.0 -> 0.4.0
--
-- Every object added in 0.4.0 is created below exactly as in
-- sql/budgetkernel.sql; test/sql/upgrade.sql checks that an installation
-- updated from 0.3.0 (or, through it, from 0.2.0 and 0.1.0) has exactly
-- the objects, definitions and comments of a fresh 0.4.0 one.  Stored
-- models keep their bytes and scores.

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION budgetkernel UPDATE TO '0.4.0'" to load this file. \quit
