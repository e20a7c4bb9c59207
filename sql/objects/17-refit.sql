-- ------------------------------------------------------------------------
-- Refitting the coefficients over the kept basis (doc/refit.md)
-- ------------------------------------------------------------------------
--
-- bk_refit(model, features, label, params) keeps the model's support
-- vectors and kernel and solves its coefficients (and an intercept where
-- the model keeps one) by ridge regression over them, in one scan: a
-- regressor on its target, a classifier on +1 / -1 targets per class.
-- One signature: the label is a bk_label (an integer or text, or a
-- number, as the model's labels are), params a JSON object ({"lambda": 1e-5}) or
-- NULL for the defaults.  The sums add up, so the aggregate has a combine
-- function and runs in parallel; only a serial scan gives the same bytes
-- twice (a parallel plan adds its workers' sums in the order it picks).

-- Availability: 0.4.0
CREATE FUNCTION @extschema@._bk_refit_trans(internal, @extschema@.bk_model, @extschema@.bk_features, @extschema@.bk_label, jsonb)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_refit_trans'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_refit_final(internal)
	RETURNS @extschema@.bk_model
	AS 'MODULE_PATHNAME', 'bk_refit_final'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_refit_combine(internal, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_refit_combine'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_refit_serialize(internal)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'bk_refit_serialize'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_refit_deserialize(bytea, internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_refit_deserialize'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@._bk_refit_trans(internal, @extschema@.bk_model, @extschema@.bk_features, @extschema@.bk_label, jsonb) IS
	'transition function of bk_refit(bk_model, bk_features, bk_label, jsonb)';
COMMENT ON FUNCTION @extschema@._bk_refit_final(internal) IS
	'final function of bk_refit: the model with its refit coefficients, NULL when no row was usable; reads the state only';
COMMENT ON FUNCTION @extschema@._bk_refit_combine(internal, internal) IS
	'combine function of bk_refit: adds two partial sums of one model';
COMMENT ON FUNCTION @extschema@._bk_refit_serialize(internal) IS
	'serialization function of bk_refit';
COMMENT ON FUNCTION @extschema@._bk_refit_deserialize(bytea, internal) IS
	'deserialization function of bk_refit';

CREATE AGGREGATE @extschema@.bk_refit(model @extschema@.bk_model, features @extschema@.bk_features, label @extschema@.bk_label, params jsonb) (
	SFUNC = @extschema@._bk_refit_trans,
	STYPE = internal,
	SSPACE = 1048576,
	FINALFUNC = @extschema@._bk_refit_final,
	FINALFUNC_MODIFY = READ_ONLY,
	COMBINEFUNC = @extschema@._bk_refit_combine,
	SERIALFUNC = @extschema@._bk_refit_serialize,
	DESERIALFUNC = @extschema@._bk_refit_deserialize,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE @extschema@.bk_refit(@extschema@.bk_model, @extschema@.bk_features, @extschema@.bk_label, jsonb) IS
	'refits a model''s coefficients over its kept support vectors in one scan (ridge over the basis); the same SVs and kernel; params: {"lambda": 1e-5} or NULL';
