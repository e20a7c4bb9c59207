--
-- Training pushed down through postgres_fdw: with budgetkernel listed in
-- the foreign server's "extensions" option, a bk_train over a foreign
-- table, its parameters a bare string literal, runs on the remote server
-- (the aggregate appears in the Remote SQL) and returns the model that
-- training there directly returns.  The remote server here is another
-- database of the same cluster, reached over its Unix socket.
--
SET client_min_messages = warning;
DROP DATABASE IF EXISTS bk_fdw_remote;
CREATE DATABASE bk_fdw_remote;
\c bk_fdw_remote
SET client_min_messages = warning;
CREATE EXTENSION budgetkernel;
CREATE TABLE pts AS
SELECT g AS id, ARRAY[(g % 7) / 7.0, (g % 11) / 11.0]::float8[] AS features,
       ((g % 7 + g % 11) % 2)::int8 AS label,
       CASE WHEN g % 3 = 0 THEN 'a' ELSE 'b' END AS name
FROM generate_series(1, 400) g;
CREATE TABLE direct AS
SELECT bk_train(features, label, '{"budget": 20, "gamma": 4}' ORDER BY id) AS m FROM pts;

\c contrib_regression
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgres_fdw;
DO $$
BEGIN
	EXECUTE format('CREATE SERVER bk_remote FOREIGN DATA WRAPPER postgres_fdw
	                OPTIONS (host %L, port %L, dbname %L, extensions %L)',
	               split_part(current_setting('unix_socket_directories'), ',', 1),
	               current_setting('port'), 'bk_fdw_remote', 'budgetkernel');
END $$;
CREATE USER MAPPING FOR CURRENT_USER SERVER bk_remote;
CREATE FOREIGN TABLE remote_pts (id bigint, features float8[], label int8, name text)
	SERVER bk_remote OPTIONS (table_name 'pts');
CREATE FOREIGN TABLE remote_direct (m bk_model) SERVER bk_remote OPTIONS (table_name 'direct');

-- the aggregate, with its ORDER BY and its literal parameters, is in the
-- Remote SQL
EXPLAIN (VERBOSE, COSTS OFF)
SELECT bk_train(features, label, '{"budget": 20, "gamma": 4}' ORDER BY id) FROM remote_pts;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT name, bk_train(features, name, '{"algorithm": "pa"}' ORDER BY id) FROM remote_pts GROUP BY name;

-- and it returns the model trained there directly
SELECT (SELECT bk_train(features, label, '{"budget": 20, "gamma": 4}' ORDER BY id) FROM remote_pts)
       = (SELECT m FROM remote_direct) AS same_model;

DROP FOREIGN TABLE remote_pts, remote_direct;
DROP SERVER bk_remote CASCADE;
DROP EXTENSION postgres_fdw;
\c contrib_regression
DROP DATABASE bk_fdw_remote;
