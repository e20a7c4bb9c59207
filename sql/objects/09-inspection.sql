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
