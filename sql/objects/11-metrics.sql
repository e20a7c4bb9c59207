-- ------------------------------------------------------------------------
-- Metrics
-- ------------------------------------------------------------------------
--
-- bk_metrics(actual, predicted): a report (jsonb) of the rows.  Labels
-- of one kind, integers or text, make a classification report: accuracy,
-- balanced accuracy, macro and per-class precision, recall and F1,
-- support, the confusion matrix; a float8 or numeric label on either side
-- makes a regression report (RMSE, MAE, R², ...).  With a third argument,
-- a score (bk_decision) adds the ROC AUC of two classes, probabilities
-- (bk_probabilities) the log loss and the Brier score.  The labels are
-- bk_label (0.4.0; before, one form per label type): the state is a
-- confusion matrix or running sums, partial states add up, so the
-- aggregate runs in parallel workers.

-- Availability: 0.4.0
CREATE FUNCTION @extschema@._bk_metrics_trans(internal, @extschema@.bk_label, @extschema@.bk_label)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_label_metrics_trans'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@._bk_metrics_trans(internal, @extschema@.bk_label, @extschema@.bk_label) IS
	'transition function of bk_metrics(bk_label, bk_label)';

CREATE FUNCTION @extschema@._bk_metrics_trans(internal, @extschema@.bk_label, @extschema@.bk_label, float8)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_label_metrics_trans'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@._bk_metrics_trans(internal, @extschema@.bk_label, @extschema@.bk_label, float8) IS
	'transition function of bk_metrics(bk_label, bk_label, float8)';

CREATE FUNCTION @extschema@._bk_metrics_trans(internal, @extschema@.bk_label, @extschema@.bk_label, float8[])
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_label_metrics_trans'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@._bk_metrics_trans(internal, @extschema@.bk_label, @extschema@.bk_label, float8[]) IS
	'transition function of bk_metrics(bk_label, bk_label, float8[])';

CREATE FUNCTION @extschema@._bk_label_metrics_combine(internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_label_metrics_combine'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_label_metrics_serialize(internal)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'bk_label_metrics_serialize'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_label_metrics_deserialize(bytea, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_label_metrics_deserialize'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_label_metrics_final(internal)
	RETURNS jsonb
	AS 'MODULE_PATHNAME', 'bk_label_metrics_final'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@._bk_label_metrics_combine(internal, internal) IS
	'combine function of bk_metrics: adds two confusion matrices or two regression sums';
COMMENT ON FUNCTION @extschema@._bk_label_metrics_serialize(internal) IS
	'serialize function of bk_metrics';
COMMENT ON FUNCTION @extschema@._bk_label_metrics_deserialize(bytea, internal) IS
	'deserialize function of bk_metrics';
COMMENT ON FUNCTION @extschema@._bk_label_metrics_final(internal) IS
	'final function of bk_metrics: the report, NULL when no row had both labels';

CREATE AGGREGATE @extschema@.bk_metrics(actual @extschema@.bk_label, predicted @extschema@.bk_label) (
	SFUNC = @extschema@._bk_metrics_trans,
	STYPE = internal,
	FINALFUNC = @extschema@._bk_label_metrics_final,
	COMBINEFUNC = @extschema@._bk_label_metrics_combine,
	SERIALFUNC = @extschema@._bk_label_metrics_serialize,
	DESERIALFUNC = @extschema@._bk_label_metrics_deserialize,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bk_metrics(@extschema@.bk_label, @extschema@.bk_label) IS
	'report of (actual, predicted): a classification report of integer or text labels (accuracy, balanced accuracy, per-class precision, recall, F1, support, confusion matrix), a regression report of numbers';

CREATE AGGREGATE @extschema@.bk_metrics(actual @extschema@.bk_label, predicted @extschema@.bk_label, score float8) (
	SFUNC = @extschema@._bk_metrics_trans,
	STYPE = internal,
	FINALFUNC = @extschema@._bk_label_metrics_final,
	COMBINEFUNC = @extschema@._bk_label_metrics_combine,
	SERIALFUNC = @extschema@._bk_label_metrics_serialize,
	DESERIALFUNC = @extschema@._bk_label_metrics_deserialize,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bk_metrics(@extschema@.bk_label, @extschema@.bk_label, float8) IS
	'classification report of (actual, predicted) labels with the ROC AUC of a score (bk_decision) for two classes';

CREATE AGGREGATE @extschema@.bk_metrics(actual @extschema@.bk_label, predicted @extschema@.bk_label, probabilities float8[]) (
	SFUNC = @extschema@._bk_metrics_trans,
	STYPE = internal,
	FINALFUNC = @extschema@._bk_label_metrics_final,
	COMBINEFUNC = @extschema@._bk_label_metrics_combine,
	SERIALFUNC = @extschema@._bk_label_metrics_serialize,
	DESERIALFUNC = @extschema@._bk_label_metrics_deserialize,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bk_metrics(@extschema@.bk_label, @extschema@.bk_label, float8[]) IS
	'classification report of (actual, predicted) labels with the log loss, Brier score and ROC AUC of bk_probabilities';
