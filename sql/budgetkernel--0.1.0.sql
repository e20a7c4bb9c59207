-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION budgetkernel" to load this file. \quit

-- budgetkernel 0.1.0: budgeted online kernel classifiers trained by aggregates.
--
-- Every object is created in, and every reference between objects is
-- qualified with, @extschema@, so that the script does not depend on the
-- search_path of the user who runs CREATE EXTENSION.  Built-in types
-- (float8[], int8, jsonb, bytea, ...) resolve in pg_catalog, which is
-- searched first.  Nothing here is SECURITY DEFINER.

-- ------------------------------------------------------------------------
-- The model type
-- ------------------------------------------------------------------------

-- Availability: 0.1.0
CREATE TYPE @extschema@.bk_model;

CREATE FUNCTION @extschema@.bk_model_in(cstring)
	RETURNS @extschema@.bk_model
	AS 'MODULE_PATHNAME', 'bk_model_in'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.bk_model_out(@extschema@.bk_model)
	RETURNS cstring
	AS 'MODULE_PATHNAME', 'bk_model_out'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.bk_model_recv(internal)
	RETURNS @extschema@.bk_model
	AS 'MODULE_PATHNAME', 'bk_model_recv'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.bk_model_send(@extschema@.bk_model)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'bk_model_send'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The value is exactly the core's encoded model (see doc/format.md): a
-- little-endian byte string with its own checksum, so no alignment beyond
-- the varlena header's is needed, and doubles compress poorly (EXTERNAL).
CREATE TYPE @extschema@.bk_model (
	INPUT = @extschema@.bk_model_in,
	OUTPUT = @extschema@.bk_model_out,
	RECEIVE = @extschema@.bk_model_recv,
	SEND = @extschema@.bk_model_send,
	INTERNALLENGTH = variable,
	ALIGNMENT = int4,
	STORAGE = external
);

COMMENT ON TYPE @extschema@.bk_model IS
	'budgeted kernel classifier trained by bk_train (text form: hex of the encoded model, as bytea)';
COMMENT ON FUNCTION @extschema@.bk_model_in(cstring) IS
	'bk_model input: \x followed by the hexadecimal bytes of an encoded model, validated';
COMMENT ON FUNCTION @extschema@.bk_model_out(@extschema@.bk_model) IS
	'bk_model output: \x followed by the hexadecimal bytes of the encoded model';
COMMENT ON FUNCTION @extschema@.bk_model_recv(internal) IS
	'bk_model binary input: the bytes of an encoded model, validated';
COMMENT ON FUNCTION @extschema@.bk_model_send(@extschema@.bk_model) IS
	'bk_model binary output: the bytes of the encoded model';

-- ------------------------------------------------------------------------
-- Casts and validation
-- ------------------------------------------------------------------------

-- Availability: 0.1.0
CREATE FUNCTION @extschema@.bk_model_from_bytea(bytea)
	RETURNS @extschema@.bk_model
	AS 'MODULE_PATHNAME', 'bk_model_from_bytea'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bk_model_from_bytea(bytea) IS
	'bytea to bk_model: checks that the bytes are a well-formed model';

-- A bk_model is its encoded bytes, so exporting it is free ...
CREATE CAST (@extschema@.bk_model AS bytea) WITHOUT FUNCTION;
COMMENT ON CAST (@extschema@.bk_model AS bytea) IS
	'the encoded model bytes (free)';

-- ... and importing bytes validates them (SQLSTATE 22P03 on failure).
CREATE CAST (bytea AS @extschema@.bk_model)
	WITH FUNCTION @extschema@.bk_model_from_bytea(bytea);
COMMENT ON CAST (bytea AS @extschema@.bk_model) IS
	'validates the bytes as an encoded model';

-- Availability: 0.1.0
CREATE FUNCTION @extschema@.bk_is_valid(bytea)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bk_is_valid'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bk_is_valid(bytea) IS
	'true if the bytes are a well-formed bk_model; never raises an error';

-- ------------------------------------------------------------------------
-- Training aggregates
-- ------------------------------------------------------------------------
--
-- Training is one ordered stream: the model depends on the order of the
-- rows (fix it with ORDER BY inside the call).  A parallel plan would
-- interleave the rows of several workers nondeterministically, so the
-- aggregates are PARALLEL UNSAFE and have no combine function.  The final
-- function does not change the state (FINALFUNC_MODIFY = READ_ONLY), so
-- bk_train also works as a window function (a running model).  SSPACE is
-- the planner's estimate of the state size (it depends on budget and dim).
-- The transition functions are not strict: they count rows with a NULL
-- label or NULL features as skipped.
--
-- The params overloads taking text exist for string literals: in
-- bk_train(x, y, '{"algorithm": "bpa"}') the literal would fit both the
-- jsonb and the bk_model overload, and the call would be ambiguous;
-- PostgreSQL resolves an unknown literal to the string category, so the
-- text overload is chosen, and it reads the text as jsonb.

CREATE FUNCTION @extschema@.bk_train_params_trans(internal, float8[], int8, jsonb)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_train_params_trans'
	LANGUAGE C IMMUTABLE PARALLEL UNSAFE;

CREATE FUNCTION @extschema@.bk_train_params_trans(internal, float4[], int8, jsonb)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_train_params_trans'
	LANGUAGE C IMMUTABLE PARALLEL UNSAFE;

CREATE FUNCTION @extschema@.bk_train_params_trans(internal, float8[], int8, text)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_train_text_trans'
	LANGUAGE C IMMUTABLE PARALLEL UNSAFE;

CREATE FUNCTION @extschema@.bk_train_params_trans(internal, float4[], int8, text)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_train_text_trans'
	LANGUAGE C IMMUTABLE PARALLEL UNSAFE;

CREATE FUNCTION @extschema@.bk_train_model_trans(internal, float8[], int8, @extschema@.bk_model)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_train_model_trans'
	LANGUAGE C IMMUTABLE PARALLEL UNSAFE;

CREATE FUNCTION @extschema@.bk_train_model_trans(internal, float4[], int8, @extschema@.bk_model)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_train_model_trans'
	LANGUAGE C IMMUTABLE PARALLEL UNSAFE;

-- the same functions for text labels (the label type is read from the call)
CREATE FUNCTION @extschema@.bk_train_params_trans(internal, float8[], text, jsonb)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_train_params_trans'
	LANGUAGE C IMMUTABLE PARALLEL UNSAFE;

CREATE FUNCTION @extschema@.bk_train_params_trans(internal, float4[], text, jsonb)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_train_params_trans'
	LANGUAGE C IMMUTABLE PARALLEL UNSAFE;

CREATE FUNCTION @extschema@.bk_train_params_trans(internal, float8[], text, text)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_train_text_trans'
	LANGUAGE C IMMUTABLE PARALLEL UNSAFE;

CREATE FUNCTION @extschema@.bk_train_params_trans(internal, float4[], text, text)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_train_text_trans'
	LANGUAGE C IMMUTABLE PARALLEL UNSAFE;

CREATE FUNCTION @extschema@.bk_train_model_trans(internal, float8[], text, @extschema@.bk_model)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_train_model_trans'
	LANGUAGE C IMMUTABLE PARALLEL UNSAFE;

CREATE FUNCTION @extschema@.bk_train_model_trans(internal, float4[], text, @extschema@.bk_model)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_train_model_trans'
	LANGUAGE C IMMUTABLE PARALLEL UNSAFE;

CREATE FUNCTION @extschema@.bk_train_final(internal)
	RETURNS @extschema@.bk_model
	AS 'MODULE_PATHNAME', 'bk_train_final'
	LANGUAGE C IMMUTABLE PARALLEL UNSAFE;

COMMENT ON FUNCTION @extschema@.bk_train_params_trans(internal, float8[], int8, jsonb) IS
	'transition function of bk_train(float8[], int8, jsonb)';
COMMENT ON FUNCTION @extschema@.bk_train_params_trans(internal, float4[], int8, jsonb) IS
	'transition function of bk_train(float4[], int8, jsonb)';
COMMENT ON FUNCTION @extschema@.bk_train_params_trans(internal, float8[], int8, text) IS
	'transition function of bk_train(float8[], int8, text)';
COMMENT ON FUNCTION @extschema@.bk_train_params_trans(internal, float4[], int8, text) IS
	'transition function of bk_train(float4[], int8, text)';
COMMENT ON FUNCTION @extschema@.bk_train_model_trans(internal, float8[], int8, @extschema@.bk_model) IS
	'transition function of bk_train(float8[], int8, bk_model)';
COMMENT ON FUNCTION @extschema@.bk_train_model_trans(internal, float4[], int8, @extschema@.bk_model) IS
	'transition function of bk_train(float4[], int8, bk_model)';
COMMENT ON FUNCTION @extschema@.bk_train_params_trans(internal, float8[], text, jsonb) IS
	'transition function of bk_train(float8[], text, jsonb)';
COMMENT ON FUNCTION @extschema@.bk_train_params_trans(internal, float4[], text, jsonb) IS
	'transition function of bk_train(float4[], text, jsonb)';
COMMENT ON FUNCTION @extschema@.bk_train_params_trans(internal, float8[], text, text) IS
	'transition function of bk_train(float8[], text, text)';
COMMENT ON FUNCTION @extschema@.bk_train_params_trans(internal, float4[], text, text) IS
	'transition function of bk_train(float4[], text, text)';
COMMENT ON FUNCTION @extschema@.bk_train_model_trans(internal, float8[], text, @extschema@.bk_model) IS
	'transition function of bk_train(float8[], text, bk_model)';
COMMENT ON FUNCTION @extschema@.bk_train_model_trans(internal, float4[], text, @extschema@.bk_model) IS
	'transition function of bk_train(float4[], text, bk_model)';
COMMENT ON FUNCTION @extschema@.bk_train_final(internal) IS
	'final function of bk_train: the encoded model, NULL when no row was usable';

-- Availability: 0.1.0
CREATE AGGREGATE @extschema@.bk_train(features float8[], label int8, params jsonb) (
	SFUNC = @extschema@.bk_train_params_trans,
	STYPE = internal,
	SSPACE = 1048576,
	FINALFUNC = @extschema@.bk_train_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = UNSAFE
);

CREATE AGGREGATE @extschema@.bk_train(features float4[], label int8, params jsonb) (
	SFUNC = @extschema@.bk_train_params_trans,
	STYPE = internal,
	SSPACE = 1048576,
	FINALFUNC = @extschema@.bk_train_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = UNSAFE
);

CREATE AGGREGATE @extschema@.bk_train(features float8[], label int8, params text) (
	SFUNC = @extschema@.bk_train_params_trans,
	STYPE = internal,
	SSPACE = 1048576,
	FINALFUNC = @extschema@.bk_train_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = UNSAFE
);

CREATE AGGREGATE @extschema@.bk_train(features float4[], label int8, params text) (
	SFUNC = @extschema@.bk_train_params_trans,
	STYPE = internal,
	SSPACE = 1048576,
	FINALFUNC = @extschema@.bk_train_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = UNSAFE
);

CREATE AGGREGATE @extschema@.bk_train(features float8[], label int8, base @extschema@.bk_model) (
	SFUNC = @extschema@.bk_train_model_trans,
	STYPE = internal,
	SSPACE = 1048576,
	FINALFUNC = @extschema@.bk_train_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = UNSAFE
);

CREATE AGGREGATE @extschema@.bk_train(features float4[], label int8, base @extschema@.bk_model) (
	SFUNC = @extschema@.bk_train_model_trans,
	STYPE = internal,
	SSPACE = 1048576,
	FINALFUNC = @extschema@.bk_train_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = UNSAFE
);

CREATE AGGREGATE @extschema@.bk_train(features float8[], label text, params jsonb) (
	SFUNC = @extschema@.bk_train_params_trans,
	STYPE = internal,
	SSPACE = 1048576,
	FINALFUNC = @extschema@.bk_train_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = UNSAFE
);

CREATE AGGREGATE @extschema@.bk_train(features float4[], label text, params jsonb) (
	SFUNC = @extschema@.bk_train_params_trans,
	STYPE = internal,
	SSPACE = 1048576,
	FINALFUNC = @extschema@.bk_train_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = UNSAFE
);

CREATE AGGREGATE @extschema@.bk_train(features float8[], label text, params text) (
	SFUNC = @extschema@.bk_train_params_trans,
	STYPE = internal,
	SSPACE = 1048576,
	FINALFUNC = @extschema@.bk_train_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = UNSAFE
);

CREATE AGGREGATE @extschema@.bk_train(features float4[], label text, params text) (
	SFUNC = @extschema@.bk_train_params_trans,
	STYPE = internal,
	SSPACE = 1048576,
	FINALFUNC = @extschema@.bk_train_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = UNSAFE
);

CREATE AGGREGATE @extschema@.bk_train(features float8[], label text, base @extschema@.bk_model) (
	SFUNC = @extschema@.bk_train_model_trans,
	STYPE = internal,
	SSPACE = 1048576,
	FINALFUNC = @extschema@.bk_train_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = UNSAFE
);

CREATE AGGREGATE @extschema@.bk_train(features float4[], label text, base @extschema@.bk_model) (
	SFUNC = @extschema@.bk_train_model_trans,
	STYPE = internal,
	SSPACE = 1048576,
	FINALFUNC = @extschema@.bk_train_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = UNSAFE
);

COMMENT ON AGGREGATE @extschema@.bk_train(float8[], int8, jsonb) IS
	'trains a kernel classifier on the rows in stream order; params: jsonb object of learner parameters';
COMMENT ON AGGREGATE @extschema@.bk_train(float4[], int8, jsonb) IS
	'trains a kernel classifier on the rows in stream order; params: jsonb object of learner parameters';
COMMENT ON AGGREGATE @extschema@.bk_train(float8[], int8, text) IS
	'trains a kernel classifier on the rows in stream order; params: text of a jsonb object of learner parameters';
COMMENT ON AGGREGATE @extschema@.bk_train(float4[], int8, text) IS
	'trains a kernel classifier on the rows in stream order; params: text of a jsonb object of learner parameters';
COMMENT ON AGGREGATE @extschema@.bk_train(float8[], int8, @extschema@.bk_model) IS
	'continues training the base model on the rows in stream order, with its own parameters';
COMMENT ON AGGREGATE @extschema@.bk_train(float4[], int8, @extschema@.bk_model) IS
	'continues training the base model on the rows in stream order, with its own parameters';
COMMENT ON AGGREGATE @extschema@.bk_train(float8[], text, jsonb) IS
	'text labels: trains a kernel classifier on the rows in stream order; params: jsonb object of learner parameters';
COMMENT ON AGGREGATE @extschema@.bk_train(float4[], text, jsonb) IS
	'text labels: trains a kernel classifier on the rows in stream order; params: jsonb object of learner parameters';
COMMENT ON AGGREGATE @extschema@.bk_train(float8[], text, text) IS
	'text labels: trains a kernel classifier on the rows in stream order; params: text of a jsonb object of learner parameters';
COMMENT ON AGGREGATE @extschema@.bk_train(float4[], text, text) IS
	'text labels: trains a kernel classifier on the rows in stream order; params: text of a jsonb object of learner parameters';
COMMENT ON AGGREGATE @extschema@.bk_train(float8[], text, @extschema@.bk_model) IS
	'text labels: continues training the base model on the rows in stream order, with its own parameters';
COMMENT ON AGGREGATE @extschema@.bk_train(float4[], text, @extschema@.bk_model) IS
	'text labels: continues training the base model on the rows in stream order, with its own parameters';

-- ------------------------------------------------------------------------
-- Scoring
-- ------------------------------------------------------------------------

-- Availability: 0.1.0
-- One float8[] signature: integer, numeric (ARRAY[0.5, 1.5]) and float4
-- arrays reach it through PostgreSQL's implicit array coercions, so no
-- overload can make a call ambiguous.
CREATE FUNCTION @extschema@.bk_predict(model @extschema@.bk_model, features float8[])
	RETURNS int8
	AS 'MODULE_PATHNAME', 'bk_predict'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bk_predict(@extschema@.bk_model, float8[]) IS
	'predicted class label of the features';

-- Availability: 0.1.0
CREATE FUNCTION @extschema@.bk_decision(model @extschema@.bk_model, features float8[])
	RETURNS float8
	AS 'MODULE_PATHNAME', 'bk_decision'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Availability: 0.1.0
CREATE FUNCTION @extschema@.bk_predict_label(model @extschema@.bk_model, features float8[])
	RETURNS text
	AS 'MODULE_PATHNAME', 'bk_predict_label'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bk_predict_label(@extschema@.bk_model, float8[]) IS
	'predicted class label as text, for text- and integer-labelled models';

-- Availability: 0.1.0
CREATE FUNCTION @extschema@.bk_scores(model @extschema@.bk_model, features float8[])
	RETURNS float8[]
	AS 'MODULE_PATHNAME', 'bk_scores'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bk_scores(@extschema@.bk_model, float8[]) IS
	'one score per class, in the order of bk_info(model)->''classes''; the prediction is the first largest';

COMMENT ON FUNCTION @extschema@.bk_decision(@extschema@.bk_model, float8[]) IS
	'signed score of the features: positive for the second class in bk_info(model)->''classes''';

-- ------------------------------------------------------------------------
-- Inspection
-- ------------------------------------------------------------------------

-- Availability: 0.1.0
CREATE FUNCTION @extschema@.bk_info(model @extschema@.bk_model)
	RETURNS jsonb
	AS 'MODULE_PATHNAME', 'bk_info'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bk_info(@extschema@.bk_model) IS
	'description of the model: algorithm, parameters, classes, support vectors and training counters';

-- Availability: 0.1.0
CREATE FUNCTION @extschema@.bk_support_vectors(model @extschema@.bk_model,
	OUT sv int4, OUT x float8[], OUT coef float8[])
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'bk_support_vectors'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bk_support_vectors(@extschema@.bk_model) IS
	'one row per support vector: its number, its features and its coefficients';
