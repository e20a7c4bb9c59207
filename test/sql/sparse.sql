--
-- bk_sparse: sparse feature vectors ({index:value,...}/dim), read from
-- LIBSVM text by bk_libsvm_sparse; models train on and score them with
-- kernel rows computed from the non-zero values.  On a9a (123 binary
-- features, about 14 non-zero a row, every dot product an exact sum) a
-- model trained on the sparse rows is, byte for byte, the model trained on
-- the same rows dense, and scores alike.
--
-- the type: text form, constructor, dense form
SELECT '{1:0.5, 7:1}/10'::bk_sparse AS spaces_allowed, '{}/3'::bk_sparse AS empty,
       bk_dense('{2:1.5}/3') AS dense, bk_sparse(ARRAY[1, 3], ARRAY[0.5, 2], 4) AS made,
       '{1:1e-3,2:-2.5}/2'::bk_sparse::text::bk_sparse::text = bk_sparse(ARRAY[1, 2], ARRAY[0.001, -2.5], 2)::text
         AS text_round_trip;
SELECT * FROM bk_libsvm_sparse('+1 3:1 11:0.5 14:1 # a comment', 123);
-- malformed vectors and lines
SELECT '{3:1,2:1}/5'::bk_sparse;
SELECT '{6:1}/5'::bk_sparse;
SELECT '{0:1}/5'::bk_sparse;
SELECT '{1:x}/5'::bk_sparse;
SELECT '{1:1}'::bk_sparse;
SELECT '{1:1}/0'::bk_sparse;
SELECT '{1:NaN}/2'::bk_sparse;
SELECT '{1:1,}/3'::bk_sparse;
SELECT '{1:1e-400}/3'::bk_sparse;
SELECT bk_sparse(ARRAY[1, 2], ARRAY[1.0], 3);
SELECT bk_sparse(ARRAY[2, 1], ARRAY[1.0, 2.0], 3);
SELECT bk_sparse(ARRAY[1, NULL], ARRAY[1.0, 2.0], 3);
SELECT * FROM bk_libsvm_sparse('1 124:1', 123);
SELECT * FROM bk_libsvm_sparse('1 5:1 3:1', 123);
SELECT * FROM bk_libsvm_sparse('1 5=1', 123);

-- a9a, dense and sparse
CREATE TEMP TABLE sraw (id bigserial, line text);
\copy sraw(line) FROM '../shared/data/a9a.train'
CREATE TEMP TABLE sp_rows AS
SELECT id, d.label, d.features AS dense, s.features AS sparse
FROM sraw, LATERAL bk_libsvm(line, 123) d, LATERAL bk_libsvm_sparse(line, 123) s
WHERE id <= 6000;
SELECT avg(array_length(regexp_split_to_array(sparse::text, ','), 1))::int AS mean_nnz FROM sp_rows;
CREATE TEMP TABLE sp_models AS
SELECT (SELECT bk_train(dense, label, '{"budget": 100, "gamma": 0.05, "C": 0.1}' ORDER BY bk_shuffle_key(id, 1))
        FROM sp_rows WHERE id <= 4000) AS from_dense,
       (SELECT bk_train(sparse, label, '{"budget": 100, "gamma": 0.05, "C": 0.1}' ORDER BY bk_shuffle_key(id, 1))
        FROM sp_rows WHERE id <= 4000) AS from_sparse;
SELECT from_dense = from_sparse AS identical_models,
       (SELECT count(*) FILTER (WHERE bk_decision(from_sparse, sparse) = bk_decision(from_dense, dense))
        FROM sp_rows WHERE id > 4000) AS same_decisions_of_2000,
       (SELECT count(*) FILTER (WHERE bk_decision(from_sparse, dense) = bk_decision(from_sparse, sparse))
        FROM sp_rows WHERE id > 4000) AS dense_and_sparse_rows_alike,
       (SELECT avg((bk_predict(from_sparse, sparse) = label)::int) FROM sp_rows WHERE id > 4000) > 0.8 AS accurate
FROM sp_models;
-- continued, merged, in epochs, calibrated
SELECT bk_continue(sparse, label, from_sparse ORDER BY id) = bk_continue(dense, label, from_dense ORDER BY id)
         AS continued_alike,
       bk_is_valid(bk_merge(bk_train(sparse, label, '{"budget": 50, "gamma": 0.05}') FILTER (WHERE id % 2 = 0),
                            bk_train(sparse, label, '{"budget": 50, "gamma": 0.05}') FILTER (WHERE id % 2 = 1))::bytea)
         AS merged_valid,
       bk_train(sparse, label, '{"budget": 50, "gamma": 0.05, "epochs": 2}' ORDER BY id)
       = bk_train(dense, label, '{"budget": 50, "gamma": 0.05, "epochs": 2}' ORDER BY id) AS epochs_alike
FROM sp_rows, sp_models WHERE id > 4000 GROUP BY from_sparse, from_dense;
SELECT abs((SELECT sum(p) FROM unnest(bk_probabilities(c, '{3:1,40:1}/123'::bk_sparse)) p) - 1) < 1e-12 AS sums_to_one
FROM (SELECT bk_calibrate(from_sparse, sparse, label) AS c FROM sp_rows, sp_models WHERE id > 4000 GROUP BY from_sparse) s;
-- bad input in training and scoring
SELECT bk_train(sparse, label, '{"scale": "standard"}') FROM sp_rows;
SELECT bk_train(CASE WHEN id < 3 THEN sparse ELSE '{1:1}/5'::bk_sparse END, label, '{}') FROM sp_rows;
SELECT bk_predict(from_sparse, '{1:1}/122'::bk_sparse) FROM sp_models;
SET client_min_messages = error;
SELECT bk_predict(bk_train(jsonb_build_object('x', id), label, '{}'), '{1:1}/1'::bk_sparse) FROM sp_rows;
RESET client_min_messages;
-- a sparse row scored twice in one call (the probability of the predicted
-- class) is scored from its values both times, with no dense copy
SELECT bk_predict_probability(c, '{3:1,40:1}/123'::bk_sparse)
       = (SELECT max(p) FROM unnest(bk_probabilities(c, '{3:1,40:1}/123'::bk_sparse)) p) AS same_probability
FROM (SELECT bk_calibrate(from_sparse, sparse, label) AS c FROM sp_rows, sp_models WHERE id > 4000 GROUP BY from_sparse) s;
-- binary input (COPY ... FORMAT binary): what the bytes say is checked as
-- text input is, and refused as an invalid binary representation (22P03):
-- a reserved word that is not 0, indices out of order
CREATE FUNCTION pg_temp.sparse_copy_file(dim int, reserved int, idx int[], vals float8[]) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	lo oid := lo_from_bytea(0,
	        '\x5047434f50590aff0d0a00'::bytea || int4send(0) || int4send(0)
	        || int2send(1::int2) || int4send(12 + 12 * cardinality(idx))
	        || int4send(dim) || int4send(cardinality(idx)) || int4send(reserved)
	        || (SELECT string_agg(int4send(i), ''::bytea ORDER BY k) FROM unnest(idx) WITH ORDINALITY u(i, k))
	        || (SELECT string_agg(float8send(v), ''::bytea ORDER BY k) FROM unnest(vals) WITH ORDINALITY u(v, k))
	        || int2send((-1)::int2));
	file text := current_setting('data_directory') || '/bk_sparse_recv_test.bin';
BEGIN
	PERFORM lo_export(lo, file);
	PERFORM lo_unlink(lo);
	RETURN file;
END
$$;
CREATE TEMP TABLE sparse_bin (v bk_sparse);
\set VERBOSITY terse
-- (the file is written in the cluster's data directory, by the server)
SELECT pg_temp.sparse_copy_file(10, 0, ARRAY[2, 7], ARRAY[0.5, 1]) AS file \gset
COPY sparse_bin FROM :'file' WITH (FORMAT binary);
SELECT v::text FROM sparse_bin;
SELECT pg_temp.sparse_copy_file(10, 5, ARRAY[2, 7], ARRAY[0.5, 1]) AS file \gset
COPY sparse_bin FROM :'file' WITH (FORMAT binary);
\echo :LAST_ERROR_SQLSTATE
SELECT pg_temp.sparse_copy_file(10, 0, ARRAY[7, 2], ARRAY[0.5, 1]) AS file \gset
COPY sparse_bin FROM :'file' WITH (FORMAT binary);
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY default
