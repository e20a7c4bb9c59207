-- ------------------------------------------------------------------------
-- Scoring
-- ------------------------------------------------------------------------

-- Availability: 0.1.0
-- One signature, features bk_features (0.2.0; 0.1.0: float8[]): float8[],
-- integer, numeric (ARRAY[0.5, 1.5]) and float4 arrays, jsonb and
-- bk_sparse reach it by implicit casts, so no overload can make a call
-- ambiguous.
-- COST 100 (100 x cpu_operator_cost a call): a call evaluates up to B
-- kernels, tens of times the work of passing a row along, so that large
-- scoring queries get parallel plans (doc/scoring-performance.md).
CREATE FUNCTION @extschema@.bk_predict(model @extschema@.bk_model, features @extschema@.bk_features)
	RETURNS int8
	AS 'MODULE_PATHNAME', 'bk_predict'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100;

COMMENT ON FUNCTION @extschema@.bk_predict(@extschema@.bk_model, @extschema@.bk_features) IS
	'predicted class label of the features';

-- Availability: 0.1.0
CREATE FUNCTION @extschema@.bk_decision(model @extschema@.bk_model, features @extschema@.bk_features)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'bk_decision'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100;

-- Availability: 0.1.0
CREATE FUNCTION @extschema@.bk_predict_label(model @extschema@.bk_model, features @extschema@.bk_features)
	RETURNS text
	AS 'MODULE_PATHNAME', 'bk_predict_label'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100;

COMMENT ON FUNCTION @extschema@.bk_predict_label(@extschema@.bk_model, @extschema@.bk_features) IS
	'predicted class label as text, for text- and integer-labelled models';

-- Availability: 0.1.0
CREATE FUNCTION @extschema@.bk_scores(model @extschema@.bk_model, features @extschema@.bk_features)
	RETURNS float8[]
	AS 'MODULE_PATHNAME', 'bk_scores'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100;

COMMENT ON FUNCTION @extschema@.bk_scores(@extschema@.bk_model, @extschema@.bk_features) IS
	'one score per class, in the order of bk_info(model)->''classes''; the prediction is the first largest';

COMMENT ON FUNCTION @extschema@.bk_decision(@extschema@.bk_model, @extschema@.bk_features) IS
	'signed score of the features: positive for the second class in bk_info(model)->''classes''';

-- Availability: 0.4.0
-- bk_model_cache: a view (0.2.0 and 0.3.0: a function of OUT parameters,
-- bk_model_cache(), which \df listed one by one) over the function that
-- reads this backend's counters
CREATE FUNCTION @extschema@._bk_model_cache(
	OUT lookups int8, OUT hits int8, OUT decodes int8, OUT evictions int8,
	OUT key_bytes int8, OUT entries int4, OUT memory int8)
	RETURNS record
	AS 'MODULE_PATHNAME', 'bk_model_cache'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@._bk_model_cache() IS
	'the row of bk_model_cache: this backend''s cache of decoded models';

CREATE VIEW @extschema@.bk_model_cache AS
	SELECT c.lookups, c.hits, c.decodes, c.evictions, c.key_bytes, c.entries, c.memory
	FROM @extschema@._bk_model_cache() AS c;

COMMENT ON VIEW @extschema@.bk_model_cache IS
	'this backend''s cache of decoded models: lookups, hits, decodes, evictions and bytes compared since it started; entries and memory now';

GRANT SELECT ON @extschema@.bk_model_cache TO PUBLIC;
