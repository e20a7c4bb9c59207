-- The session and the schema :"schema" made afresh (dropped if it is
-- there), then a9a and usps as the LIBSVM files hold them (no
-- standardisation: a9a's 0/1 indicators, usps' pixels in [0, 1]) into
-- :"schema".data (ds, part, id, label, features), id the row's line in its
-- file.  Included (\ir) by run.sql and orders.sql after \set schema; the
-- data are read from ../shared/data, so psql runs from the repository root.
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
CREATE EXTENSION IF NOT EXISTS budgetkernel;
DROP SCHEMA IF EXISTS :"schema" CASCADE;
CREATE SCHEMA :"schema";
CREATE TEMP TABLE raw (id bigserial, line text);
CREATE TABLE :"schema".data (ds text, part text, id bigint, label int8, features float8[]);
\copy raw(line) FROM '../shared/data/a9a.train'
INSERT INTO :"schema".data SELECT 'a9a', 'train', id, r.label, r.features FROM raw, LATERAL bk_libsvm(line, 123) r;
TRUNCATE raw; ALTER SEQUENCE raw_id_seq RESTART;
\copy raw(line) FROM '../shared/data/a9a.test'
INSERT INTO :"schema".data SELECT 'a9a', 'test', id, r.label, r.features FROM raw, LATERAL bk_libsvm(line, 123) r;
TRUNCATE raw; ALTER SEQUENCE raw_id_seq RESTART;
\copy raw(line) FROM '../shared/data/usps.train'
INSERT INTO :"schema".data SELECT 'usps', 'train', id, r.label, r.features FROM raw, LATERAL bk_libsvm(line, 256) r;
TRUNCATE raw; ALTER SEQUENCE raw_id_seq RESTART;
\copy raw(line) FROM '../shared/data/usps.test'
INSERT INTO :"schema".data SELECT 'usps', 'test', id, r.label, r.features FROM raw, LATERAL bk_libsvm(line, 256) r;
CREATE INDEX ON :"schema".data (ds, part, id);
ANALYZE :"schema".data;
