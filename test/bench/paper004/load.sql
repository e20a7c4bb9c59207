-- Load the data sets of paper 004 Table 1 into schema p004, standardised
-- (mean 0, std 1 from the training part).  Run from the repository root:
--   psql -f test/bench/paper004/load.sql && psql -f test/bench/paper004/run.sql
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS budgetkernel;
DROP SCHEMA IF EXISTS p004 CASCADE;
CREATE SCHEMA p004;
CREATE TEMP TABLE raw (id bigserial, line text);
-- load: ds, part, id, label, features (raw)
CREATE TABLE p004.rawdata (ds text, part text, id bigint, label int8, features float8[]);
\copy raw(line) FROM '../shared/data/usps.train'
INSERT INTO p004.rawdata SELECT 'usps', 'train', id, (bk_libsvm(line, 256)).label, (bk_libsvm(line, 256)).features FROM raw;
TRUNCATE raw; ALTER SEQUENCE raw_id_seq RESTART;
\copy raw(line) FROM '../shared/data/usps.test'
INSERT INTO p004.rawdata SELECT 'usps', 'test', id, (bk_libsvm(line, 256)).label, (bk_libsvm(line, 256)).features FROM raw;
TRUNCATE raw; ALTER SEQUENCE raw_id_seq RESTART;
\copy raw(line) FROM '../shared/data/covtype20k'
INSERT INTO p004.rawdata SELECT 'covtype', CASE WHEN ('x' || substr(md5('split:' || id), 1, 8))::bit(32)::int % 4 = 0 THEN 'test' ELSE 'train' END,
       id, (bk_libsvm(line, 54)).label, (bk_libsvm(line, 54)).features FROM raw;
TRUNCATE raw; ALTER SEQUENCE raw_id_seq RESTART;
\copy raw(line) FROM '../shared/data/checkerboard.train'
INSERT INTO p004.rawdata SELECT 'checkerboard', 'train', id, (bk_libsvm(line, 2)).label, (bk_libsvm(line, 2)).features FROM raw;
TRUNCATE raw; ALTER SEQUENCE raw_id_seq RESTART;
\copy raw(line) FROM '../shared/data/checkerboard.test'
INSERT INTO p004.rawdata SELECT 'checkerboard', 'test', id, (bk_libsvm(line, 2)).label, (bk_libsvm(line, 2)).features FROM raw;
-- standardise: mean 0, std 1 from the training part (constant features -> 0)
CREATE TABLE p004.stats AS
SELECT ds, k, avg(v) AS mu, coalesce(nullif(stddev_samp(v), 0), 1) AS sd
FROM p004.rawdata, unnest(features) WITH ORDINALITY u(v, k) WHERE part = 'train' GROUP BY ds, k;
CREATE TABLE p004.data AS
SELECT r.ds, r.part, r.id, r.label, array_agg((u.v - s.mu) / s.sd ORDER BY u.k) AS features
FROM p004.rawdata r CROSS JOIN LATERAL unnest(r.features) WITH ORDINALITY u(v, k) JOIN p004.stats s ON s.ds = r.ds AND s.k = u.k
GROUP BY r.ds, r.part, r.id, r.label;
CREATE INDEX ON p004.data (ds, part);
ANALYZE p004.data;
SELECT ds, part, count(*), count(DISTINCT label) FROM p004.data GROUP BY 1, 2 ORDER BY 1, 2;
