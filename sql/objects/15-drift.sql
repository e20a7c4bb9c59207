-- ------------------------------------------------------------------------
-- Drift (availability: 0.3.0): bk_drift, change detection over a stream
-- of values; bk_data_drift, rows compared with a model's preparation
-- ------------------------------------------------------------------------
--
-- bk_drift(x [, params]) watches the values in the aggregate's order (give
-- it with ORDER BY inside the call): ADWIN (the default), Page-Hinkley or
-- DDM, and returns the changes with the position of the row that raised
-- each (doc/drift.md).  Its state is of fixed size; the final function
-- only reads it (FINALFUNC_MODIFY = READ_ONLY), so bk_drift is also a
-- window function over a growing frame.  A detector depends on the order
-- of its values: no combine function, the aggregate runs in one process.
-- bk_data_drift(model, features) compares the rows' values with the
-- preparation the model stores (means and deviations of numeric inputs,
-- the levels of text ones), input by input.  (One form only: the
-- thresholds of "moved" are fixed, every statistic is in the report.)

-- Availability: 0.3.0
CREATE FUNCTION @extschema@._bk_drift_trans(internal, float8)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_drift_trans'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_drift_trans(internal, float8, jsonb)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_drift_trans'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_drift_final(internal)
	RETURNS jsonb
	AS 'MODULE_PATHNAME', 'bk_drift_final'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@._bk_drift_trans(internal, float8) IS
	'transition function of bk_drift(float8)';
COMMENT ON FUNCTION @extschema@._bk_drift_trans(internal, float8, jsonb) IS
	'transition function of bk_drift(float8, jsonb)';
COMMENT ON FUNCTION @extschema@._bk_drift_final(internal) IS
	'final function of bk_drift: the report, NULL without rows; reads the state only';

CREATE AGGREGATE @extschema@.bk_drift(x float8) (
	SFUNC = @extschema@._bk_drift_trans,
	STYPE = internal,
	SSPACE = 16384,
	FINALFUNC = @extschema@._bk_drift_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);

CREATE AGGREGATE @extschema@.bk_drift(x float8, params jsonb) (
	SFUNC = @extschema@._bk_drift_trans,
	STYPE = internal,
	SSPACE = 16384,
	FINALFUNC = @extschema@._bk_drift_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bk_drift(float8) IS
	'changes in a stream of values (errors, residuals, a feature) in the aggregate''s order, by ADWIN with delta 0.002: the rows at which they were detected';
COMMENT ON AGGREGATE @extschema@.bk_drift(float8, jsonb) IS
	'changes in a stream of values in the aggregate''s order; params: method (adwin, page_hinkley, ddm) and its settings';

CREATE FUNCTION @extschema@._bk_data_drift_trans(internal, @extschema@.bk_model, @extschema@.bk_features)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_data_drift_trans'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_data_drift_final(internal)
	RETURNS jsonb
	AS 'MODULE_PATHNAME', 'bk_data_drift_final'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@._bk_data_drift_trans(internal, @extschema@.bk_model, @extschema@.bk_features) IS
	'transition function of bk_data_drift(bk_model, bk_features)';
COMMENT ON FUNCTION @extschema@._bk_data_drift_final(internal) IS
	'final function of bk_data_drift: the report, NULL without rows; reads the state only';

CREATE AGGREGATE @extschema@.bk_data_drift(model @extschema@.bk_model, features @extschema@.bk_features) (
	SFUNC = @extschema@._bk_data_drift_trans,
	STYPE = internal,
	SSPACE = 1048576,
	FINALFUNC = @extschema@._bk_data_drift_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bk_data_drift(@extschema@.bk_model, @extschema@.bk_features) IS
	'feature drift: the rows'' inputs against the preparation the model stores (mean shift and sd ratio of numbers, unseen share of text), and the inputs that moved';
