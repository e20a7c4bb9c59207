-- ------------------------------------------------------------------------
-- Training aggregates: bk_train from parameters, bk_continue from a model
-- ------------------------------------------------------------------------
--
-- Training is one ordered stream: the model depends on the order of the
-- rows (fix it with ORDER BY inside the call).  A parallel plan would
-- interleave the rows of several workers nondeterministically, so the
-- aggregates are PARALLEL UNSAFE and have no combine function.  The final
-- function does not change the state (FINALFUNC_MODIFY = READ_ONLY), so
-- the aggregates also work as window functions (a running model).  SSPACE
-- is the planner's estimate of the state size (it depends on budget and
-- dim).  The transition functions are not strict: they count rows with a
-- NULL label or NULL features as skipped.
--
-- One label argument, bk_label (0.4.0; before, a form per label type:
-- int8, int4, text, float8), and one features argument, bk_features
-- (0.2.0; 0.1.0: float8[]): float8[], the other numeric arrays, jsonb and
-- bk_sparse reach it by implicit casts, and with a single candidate a
-- string literal for the parameters resolves to
-- jsonb (and carries no collation, so postgres_fdw can push the aggregate
-- down to a remote server).  Continuing a stored model has its own name,
-- so that a literal is never ambiguous between parameters and a model.
-- The support functions' names begin with an underscore: they are not
-- for users, and \df bk_* lists what is.

CREATE FUNCTION @extschema@._bk_train_final(internal)
	RETURNS @extschema@.bk_model
	AS 'MODULE_PATHNAME', 'bk_train_final'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- Parallel training and merging (availability: 0.2.0): a partial state
-- crosses between processes as bytea; combining two merges their models
-- (weighted by rows seen, reduced to the budget).
CREATE FUNCTION @extschema@._bk_train_combine(internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_train_combine'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_train_serialize(internal)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'bk_train_serialize'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_train_deserialize(bytea, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_train_deserialize'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@._bk_train_combine(internal, internal) IS
	'combine function of bk_train and bk_merge: merges two partial models';
COMMENT ON FUNCTION @extschema@._bk_train_serialize(internal) IS
	'serialization function of bk_train and bk_merge';
COMMENT ON FUNCTION @extschema@._bk_train_deserialize(bytea, internal) IS
	'deserialization function of bk_train and bk_merge';

COMMENT ON FUNCTION @extschema@._bk_train_final(internal) IS
	'final function of bk_train and bk_continue: the encoded model, NULL when no row was usable';

-- Availability: 0.4.0
CREATE FUNCTION @extschema@._bk_train_trans(internal, @extschema@.bk_features, @extschema@.bk_label, jsonb)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_train_params_trans'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_continue_trans(internal, @extschema@.bk_features, @extschema@.bk_label, @extschema@.bk_model)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_train_model_trans'
	LANGUAGE C IMMUTABLE PARALLEL UNSAFE;

COMMENT ON FUNCTION @extschema@._bk_train_trans(internal, @extschema@.bk_features, @extschema@.bk_label, jsonb) IS
	'transition function of bk_train(bk_features, bk_label, jsonb)';
COMMENT ON FUNCTION @extschema@._bk_continue_trans(internal, @extschema@.bk_features, @extschema@.bk_label, @extschema@.bk_model) IS
	'transition function of bk_continue(bk_features, bk_label, bk_model)';

CREATE AGGREGATE @extschema@.bk_train(features @extschema@.bk_features, label @extschema@.bk_label, params jsonb) (
	SFUNC = @extschema@._bk_train_trans,
	STYPE = internal,
	SSPACE = 1048576,
	FINALFUNC = @extschema@._bk_train_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = @extschema@._bk_train_combine,
	SERIALFUNC = @extschema@._bk_train_serialize,
	DESERIALFUNC = @extschema@._bk_train_deserialize,
	PARALLEL = SAFE
);

CREATE AGGREGATE @extschema@.bk_continue(features @extschema@.bk_features, label @extschema@.bk_label, model @extschema@.bk_model) (
	SFUNC = @extschema@._bk_continue_trans,
	STYPE = internal,
	SSPACE = 1048576,
	FINALFUNC = @extschema@._bk_train_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = UNSAFE
);

COMMENT ON AGGREGATE @extschema@.bk_train(@extschema@.bk_features, @extschema@.bk_label, jsonb) IS
	'trains a model on the rows in stream order: a classifier of integer or text labels, a regressor of float8 or numeric targets, or the "task" the params name (a novelty detector: "task": "novelty" and a NULL label); params: a JSON object of learner parameters';
COMMENT ON AGGREGATE @extschema@.bk_continue(@extschema@.bk_features, @extschema@.bk_label, @extschema@.bk_model) IS
	'continues training a model on the rows in stream order, with the model''s parameters (a novelty detector''s rows have a NULL label)';

-- bk_train over jsonb rows (availability: 0.2.0; one label form: 0.4.0) runs serially: a
-- preparation fitted to named rows knows its keys and text values only
-- once every row is seen, so the parts of a parallel plan would each fit
-- a layout of their own, and models of two layouts do not merge.  These
-- exact jsonb forms, chosen over the bk_features cast for a jsonb
-- argument, have no combine function; arrays and bk_sparse rows reach
-- bk_train(bk_features, ...) and train in parallel.
CREATE FUNCTION @extschema@._bk_train_trans(internal, jsonb, @extschema@.bk_label, jsonb)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_train_params_trans'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@._bk_train_trans(internal, jsonb, @extschema@.bk_label, jsonb) IS
	'transition function of bk_train(jsonb, bk_label, jsonb)';

CREATE AGGREGATE @extschema@.bk_train(features jsonb, label @extschema@.bk_label, params jsonb) (
	SFUNC = @extschema@._bk_train_trans,
	STYPE = internal,
	SSPACE = 1048576,
	FINALFUNC = @extschema@._bk_train_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bk_train(jsonb, @extschema@.bk_label, jsonb) IS
	'trains a model on rows of named features (a JSON object: numbers standardised, text one-hot, nulls imputed, kept in the model), serially';

-- Continuing with overrides: bk_continue(features, label, model, overrides).
-- The model's classes are frozen once it has two (a label it has not seen
-- is an error) unless the overrides say {"allow_new_classes": true}.

-- Availability: 0.4.0
CREATE FUNCTION @extschema@._bk_continue_trans(internal, @extschema@.bk_features, @extschema@.bk_label, @extschema@.bk_model, jsonb)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_train_model_trans'
	LANGUAGE C IMMUTABLE PARALLEL UNSAFE;

COMMENT ON FUNCTION @extschema@._bk_continue_trans(internal, @extschema@.bk_features, @extschema@.bk_label, @extschema@.bk_model, jsonb) IS
	'transition function of bk_continue(bk_features, bk_label, bk_model, jsonb)';

CREATE AGGREGATE @extschema@.bk_continue(features @extschema@.bk_features, label @extschema@.bk_label, model @extschema@.bk_model, overrides jsonb) (
	SFUNC = @extschema@._bk_continue_trans,
	STYPE = internal,
	SSPACE = 1048576,
	FINALFUNC = @extschema@._bk_train_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = UNSAFE
);

COMMENT ON AGGREGATE @extschema@.bk_continue(@extschema@.bk_features, @extschema@.bk_label, @extschema@.bk_model, jsonb) IS
	'continues training a model with the model''s parameters; overrides: {"allow_new_classes": true} lets new labels add classes';

-- Availability: 0.2.0
CREATE FUNCTION @extschema@._bk_merge_trans(internal, @extschema@.bk_model)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_merge_trans'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@._bk_merge_trans(internal, @extschema@.bk_model) IS
	'transition function of bk_merge(bk_model)';

CREATE AGGREGATE @extschema@.bk_merge(model @extschema@.bk_model) (
	SFUNC = @extschema@._bk_merge_trans,
	STYPE = internal,
	SSPACE = 1048576,
	FINALFUNC = @extschema@._bk_train_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = @extschema@._bk_train_combine,
	SERIALFUNC = @extschema@._bk_train_serialize,
	DESERIALFUNC = @extschema@._bk_train_deserialize,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bk_merge(@extschema@.bk_model) IS
	'merges models trained on disjoint rows (partitions, shards): the weighted average by rows seen, reduced to the budget';

CREATE FUNCTION @extschema@.bk_merge(a @extschema@.bk_model, b @extschema@.bk_model)
	RETURNS @extschema@.bk_model
	AS 'MODULE_PATHNAME', 'bk_merge_pair'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bk_merge(@extschema@.bk_model, @extschema@.bk_model) IS
	'merges two models trained on disjoint rows; NULL counts as no model';
