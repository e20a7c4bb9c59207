-- budgetkernel 0.2.0 -> 0.3.0
--
-- The model format gains one optional part, a classifier's bias (flag
-- bit 9), which only models imported from LIBSVM carry: every stored
-- model keeps its bytes and its scores.  0.3.0 is the first release under
-- a licence (the PostgreSQL Licence) and the first tested on Debian's
-- PostgreSQL 17 and 18.  It adds, below, the change detectors bk_drift and
-- bk_data_drift, and bk_export and bk_import (other formats: ONNX and
-- LIBSVM): the blocks of sql/objects/*.sql marked "-- Availability:
-- 0.3.0", which make appends to this file (sql/new_objects.awk), as for
-- every update since.  test/sql/upgrade.sql checks that an installation updated from
-- 0.2.0 has exactly the objects, definitions and comments of a fresh
-- 0.3.0 one.

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION budgetkernel UPDATE TO '0.3.0'" to load this file. \quit
