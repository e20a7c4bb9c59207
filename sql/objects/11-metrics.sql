-- ------------------------------------------------------------------------
-- Metrics
-- ------------------------------------------------------------------------
--
-- bk_metrics(actual, predicted): a classification report (jsonb) of the
-- rows: accuracy, balanced accuracy, macro and per-class precision, recall
-- and F1, support, the confusion matrix.  The state is a confusion matrix:
-- partial states add up, so the aggregate runs in parallel workers.

-- Availability: 0.2.0
CREATE FUNCTION @extschema@._bk_metrics_trans(internal, int8, int8)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_metrics_trans'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_metrics_trans(internal, text, text)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_metrics_trans'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_metrics_combine(internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_metrics_combine'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_metrics_serialize(internal)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'bk_metrics_serialize'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_metrics_deserialize(bytea, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_metrics_deserialize'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_metrics_final(internal)
	RETURNS jsonb
	AS 'MODULE_PATHNAME', 'bk_metrics_final'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@._bk_metrics_trans(internal, int8, int8) IS
	'transition function of bk_metrics(int8, int8)';
COMMENT ON FUNCTION @extschema@._bk_metrics_trans(internal, text, text) IS
	'transition function of bk_metrics(text, text)';
COMMENT ON FUNCTION @extschema@._bk_metrics_combine(internal, internal) IS
	'combine function of bk_metrics: adds two confusion matrices';
COMMENT ON FUNCTION @extschema@._bk_metrics_serialize(internal) IS
	'serialize function of bk_metrics';
COMMENT ON FUNCTION @extschema@._bk_metrics_deserialize(bytea, internal) IS
	'deserialize function of bk_metrics';
COMMENT ON FUNCTION @extschema@._bk_metrics_final(internal) IS
	'final function of bk_metrics: the report, NULL when no row had both labels';

CREATE AGGREGATE @extschema@.bk_metrics(actual int8, predicted int8) (
	SFUNC = @extschema@._bk_metrics_trans,
	STYPE = internal,
	FINALFUNC = @extschema@._bk_metrics_final,
	COMBINEFUNC = @extschema@._bk_metrics_combine,
	SERIALFUNC = @extschema@._bk_metrics_serialize,
	DESERIALFUNC = @extschema@._bk_metrics_deserialize,
	PARALLEL = SAFE
);

CREATE AGGREGATE @extschema@.bk_metrics(actual text, predicted text) (
	SFUNC = @extschema@._bk_metrics_trans,
	STYPE = internal,
	FINALFUNC = @extschema@._bk_metrics_final,
	COMBINEFUNC = @extschema@._bk_metrics_combine,
	SERIALFUNC = @extschema@._bk_metrics_serialize,
	DESERIALFUNC = @extschema@._bk_metrics_deserialize,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bk_metrics(int8, int8) IS
	'classification report of (actual, predicted) labels: accuracy, balanced accuracy, per-class precision, recall, F1, support, confusion matrix';
COMMENT ON AGGREGATE @extschema@.bk_metrics(text, text) IS
	'classification report of (actual, predicted) text labels: accuracy, balanced accuracy, per-class precision, recall, F1, support, confusion matrix';

-- bk_metrics(actual, predicted, score): the same report, and the ROC AUC
-- of two classes, score positive for the last class of "classes" (as
-- bk_decision).  The state keeps every score (12 bytes a row).
CREATE FUNCTION @extschema@._bk_metrics_trans(internal, int8, int8, float8)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_metrics_trans'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_metrics_trans(internal, text, text, float8)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_metrics_trans'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@._bk_metrics_trans(internal, int8, int8, float8) IS
	'transition function of bk_metrics(int8, int8, float8)';
COMMENT ON FUNCTION @extschema@._bk_metrics_trans(internal, text, text, float8) IS
	'transition function of bk_metrics(text, text, float8)';

CREATE AGGREGATE @extschema@.bk_metrics(actual int8, predicted int8, score float8) (
	SFUNC = @extschema@._bk_metrics_trans,
	STYPE = internal,
	FINALFUNC = @extschema@._bk_metrics_final,
	COMBINEFUNC = @extschema@._bk_metrics_combine,
	SERIALFUNC = @extschema@._bk_metrics_serialize,
	DESERIALFUNC = @extschema@._bk_metrics_deserialize,
	PARALLEL = SAFE
);

CREATE AGGREGATE @extschema@.bk_metrics(actual text, predicted text, score float8) (
	SFUNC = @extschema@._bk_metrics_trans,
	STYPE = internal,
	FINALFUNC = @extschema@._bk_metrics_final,
	COMBINEFUNC = @extschema@._bk_metrics_combine,
	SERIALFUNC = @extschema@._bk_metrics_serialize,
	DESERIALFUNC = @extschema@._bk_metrics_deserialize,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bk_metrics(int8, int8, float8) IS
	'classification report of (actual, predicted) labels with the ROC AUC of a score (bk_decision) for two classes';
COMMENT ON AGGREGATE @extschema@.bk_metrics(text, text, float8) IS
	'classification report of (actual, predicted) text labels with the ROC AUC of a score (bk_decision) for two classes';
