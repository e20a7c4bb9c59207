-- ------------------------------------------------------------------------
-- Casts and validation
-- ------------------------------------------------------------------------

-- Availability: 0.1.0
CREATE FUNCTION @extschema@._bk_model_from_bytea(bytea)
	RETURNS @extschema@.bk_model
	AS 'MODULE_PATHNAME', 'bk_model_from_bytea'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@._bk_model_from_bytea(bytea) IS
	'bytea to bk_model: checks that the bytes are a well-formed model';

-- A bk_model is its encoded bytes, so exporting it is free ...
CREATE CAST (@extschema@.bk_model AS bytea) WITHOUT FUNCTION;
COMMENT ON CAST (@extschema@.bk_model AS bytea) IS
	'the encoded model bytes (free)';

-- ... and importing bytes validates them (SQLSTATE 22P03 on failure).
CREATE CAST (bytea AS @extschema@.bk_model)
	WITH FUNCTION @extschema@._bk_model_from_bytea(bytea);
COMMENT ON CAST (bytea AS @extschema@.bk_model) IS
	'validates the bytes as an encoded model';

-- Availability: 0.1.0
CREATE FUNCTION @extschema@.bk_is_valid(bytea)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bk_is_valid'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bk_is_valid(bytea) IS
	'true if the bytes are a well-formed bk_model; never raises an error';
