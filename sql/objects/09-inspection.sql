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

-- Availability: 0.4.0
-- bk_support_vectors' rows (0.1.0 to 0.3.0: OUT parameters, which \df
-- lists one by one)
CREATE TYPE @extschema@.bk_support_vector AS (sv int4, x float8[], coef float8[]);

COMMENT ON TYPE @extschema@.bk_support_vector IS
	'a row of bk_support_vectors: the support vector''s number, its features and its coefficients';

-- Availability: 0.1.0, changed 0.4.0 (rows of bk_support_vector)
CREATE OR REPLACE FUNCTION @extschema@.bk_support_vectors(model @extschema@.bk_model)
	RETURNS SETOF @extschema@.bk_support_vector
	AS 'MODULE_PATHNAME', 'bk_support_vectors'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bk_support_vectors(@extschema@.bk_model) IS
	'one row per support vector: its number, its features and its coefficients';
