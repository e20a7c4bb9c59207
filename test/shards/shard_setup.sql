-- One shard's set-up (included by sql/shards.sql with :shard = 0 or 1): the
-- extension, the rows of its half (id % 2 = :shard), a table for models
-- shipped to it, and the functions PL/Proxy calls.
SET client_min_messages = warning;
DROP EXTENSION IF EXISTS budgetkernel CASCADE;
DROP TABLE IF EXISTS train_local, test_local, models_local;
CREATE EXTENSION budgetkernel;
CREATE TEMP TABLE raw (id bigserial, line text);
\copy raw(line) FROM '../shared/data/checkerboard.train'
CREATE TABLE train_local AS
SELECT id, (bk_libsvm(line, 2)).label AS label, (bk_libsvm(line, 2)).features AS features
FROM raw WHERE id % 2 = :shard;
CREATE TEMP TABLE raw_test (id bigserial, line text);
\copy raw_test(line) FROM '../shared/data/checkerboard.test'
CREATE TABLE test_local AS
SELECT id, (bk_libsvm(line, 2)).label AS label, (bk_libsvm(line, 2)).features AS features
FROM raw_test WHERE id % 2 = :shard;
CREATE TABLE models_local (version int, model bk_model);
CREATE FUNCTION train_shard(params jsonb) RETURNS SETOF bk_model LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY SELECT bk_train(features, label, params ORDER BY id) FROM train_local;
END
$$;
CREATE FUNCTION score_shard(model bk_model, OUT hits int8, OUT n int8) RETURNS SETOF record LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY SELECT count(*) FILTER (WHERE bk_predict(model, features) = label), count(*) FROM test_local;
END
$$;
-- one round of iterative parameter mixing: this shard's rows learned on
-- from the model of version v, which the coordinator shipped into
-- models_local (read by a scalar subquery: a small TOAST pointer through
-- the aggregate's sort, where a variable would be the whole model), in a
-- fresh seeded order each round (v seeds it), as epochs reshuffle passes
CREATE FUNCTION continue_shard(v int) RETURNS SETOF bk_model LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY SELECT bk_continue(features, label, (SELECT model FROM models_local m WHERE m.version = v)
	                                ORDER BY bk_shuffle_key(id, v))
	FROM train_local;
END
$$;
SELECT count(*) AS train_rows FROM train_local;
