-- ------------------------------------------------------------------------
-- Sparse features (availability: 0.2.0)
-- ------------------------------------------------------------------------
-- bk_sparse: a sparse vector of a declared dimension, its non-zero values
-- at 1-based ascending indices; text form {index:value,...}/dim.  Models
-- train on and score sparse rows with kernel rows computed from the
-- non-zero values; a sparse row and the dense row of the same values are
-- the same row to a model (a model trained on one scores the other).
CREATE TYPE @extschema@.bk_sparse;

CREATE FUNCTION @extschema@._bk_sparse_in(cstring)
	RETURNS @extschema@.bk_sparse
	AS 'MODULE_PATHNAME', 'bk_sparse_in'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_sparse_out(@extschema@.bk_sparse)
	RETURNS cstring
	AS 'MODULE_PATHNAME', 'bk_sparse_out'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_sparse_recv(internal)
	RETURNS @extschema@.bk_sparse
	AS 'MODULE_PATHNAME', 'bk_sparse_recv'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_sparse_send(@extschema@.bk_sparse)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'bk_sparse_send'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.bk_sparse (
	INPUT = @extschema@._bk_sparse_in,
	OUTPUT = @extschema@._bk_sparse_out,
	RECEIVE = @extschema@._bk_sparse_recv,
	SEND = @extschema@._bk_sparse_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);

COMMENT ON TYPE @extschema@.bk_sparse IS
	'a sparse feature vector: {index:value,...}/dim, indices from 1';
COMMENT ON FUNCTION @extschema@._bk_sparse_in(cstring) IS
	'input function of bk_sparse';
COMMENT ON FUNCTION @extschema@._bk_sparse_out(@extschema@.bk_sparse) IS
	'output function of bk_sparse';
COMMENT ON FUNCTION @extschema@._bk_sparse_recv(internal) IS
	'binary input function of bk_sparse';
COMMENT ON FUNCTION @extschema@._bk_sparse_send(@extschema@.bk_sparse) IS
	'binary output function of bk_sparse';

CREATE FUNCTION @extschema@.bk_sparse(indices int4[], "values" float8[], dim int4)
	RETURNS @extschema@.bk_sparse
	AS 'MODULE_PATHNAME', 'bk_sparse_make'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bk_sparse(int4[], float8[], int4) IS
	'a sparse vector from its 1-based ascending indices, their values and its dimension';

CREATE FUNCTION @extschema@.bk_dense(features @extschema@.bk_sparse)
	RETURNS float8[]
	AS 'MODULE_PATHNAME', 'bk_sparse_dense'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bk_dense(@extschema@.bk_sparse) IS
	'the dense float8[] of a sparse vector';

CREATE FUNCTION @extschema@.bk_libsvm_sparse(line text, dim int4, OUT label int8, OUT features @extschema@.bk_sparse)
	RETURNS record
	AS 'MODULE_PATHNAME', 'bk_libsvm_sparse'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bk_libsvm_sparse(text, int4) IS
	'one line of LIBSVM / svmlight text: its integer label and sparse features of dimension dim';
