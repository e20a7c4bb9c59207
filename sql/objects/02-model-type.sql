-- ------------------------------------------------------------------------
-- The model type
-- ------------------------------------------------------------------------

-- Availability: 0.1.0
CREATE TYPE @extschema@.bk_model;

CREATE FUNCTION @extschema@._bk_model_in(cstring)
	RETURNS @extschema@.bk_model
	AS 'MODULE_PATHNAME', 'bk_model_in'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_model_out(@extschema@.bk_model)
	RETURNS cstring
	AS 'MODULE_PATHNAME', 'bk_model_out'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_model_recv(internal)
	RETURNS @extschema@.bk_model
	AS 'MODULE_PATHNAME', 'bk_model_recv'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_model_send(@extschema@.bk_model)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'bk_model_send'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The value is exactly the core's encoded model (see doc/format.md): a
-- little-endian byte string with its own checksum, so no alignment beyond
-- the varlena header's is needed, and doubles compress poorly (EXTERNAL).
CREATE TYPE @extschema@.bk_model (
	INPUT = @extschema@._bk_model_in,
	OUTPUT = @extschema@._bk_model_out,
	RECEIVE = @extschema@._bk_model_recv,
	SEND = @extschema@._bk_model_send,
	INTERNALLENGTH = variable,
	ALIGNMENT = int4,
	STORAGE = external
);

COMMENT ON TYPE @extschema@.bk_model IS
	'budgeted kernel classifier trained by bk_train (text form: hex of the encoded model, as bytea)';
COMMENT ON FUNCTION @extschema@._bk_model_in(cstring) IS
	'bk_model input: \x followed by the hexadecimal bytes of an encoded model, validated';
COMMENT ON FUNCTION @extschema@._bk_model_out(@extschema@.bk_model) IS
	'bk_model output: \x followed by the hexadecimal bytes of the encoded model';
COMMENT ON FUNCTION @extschema@._bk_model_recv(internal) IS
	'bk_model binary input: the bytes of an encoded model, validated';
COMMENT ON FUNCTION @extschema@._bk_model_send(@extschema@.bk_model) IS
	'bk_model binary output: the bytes of the encoded model';
