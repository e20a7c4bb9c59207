-- ------------------------------------------------------------------------
-- Comparison: equality, hashing and ordering of the encoded bytes
-- ------------------------------------------------------------------------
--
-- Two models are equal when their bytes are (the encoding is canonical:
-- one byte form per model), so DISTINCT, UNION, GROUP BY and joins on a
-- model column work, hashed or sorted.  The order is bytewise, which is
-- meaningful for nothing but grouping.  The functions are the server's own
-- bytea ones: a bk_model is a varlena of bytes like bytea, and they compare
-- lengths before detoasting.

-- Availability: 0.2.0
CREATE FUNCTION @extschema@._bk_model_eq(@extschema@.bk_model, @extschema@.bk_model)
	RETURNS boolean AS 'byteaeq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@._bk_model_ne(@extschema@.bk_model, @extschema@.bk_model)
	RETURNS boolean AS 'byteane' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@._bk_model_lt(@extschema@.bk_model, @extschema@.bk_model)
	RETURNS boolean AS 'bytealt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@._bk_model_le(@extschema@.bk_model, @extschema@.bk_model)
	RETURNS boolean AS 'byteale' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@._bk_model_gt(@extschema@.bk_model, @extschema@.bk_model)
	RETURNS boolean AS 'byteagt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@._bk_model_ge(@extschema@.bk_model, @extschema@.bk_model)
	RETURNS boolean AS 'byteage' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@._bk_model_cmp(@extschema@.bk_model, @extschema@.bk_model)
	RETURNS integer AS 'byteacmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@._bk_model_hash(@extschema@.bk_model)
	RETURNS integer AS 'hashvarlena' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@._bk_model_hash_extended(@extschema@.bk_model, bigint)
	RETURNS bigint AS 'hashvarlenaextended' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.bk_model, RIGHTARG = @extschema@.bk_model,
	FUNCTION = @extschema@._bk_model_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES);
CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.bk_model, RIGHTARG = @extschema@.bk_model,
	FUNCTION = @extschema@._bk_model_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = neqsel, JOIN = neqjoinsel);
CREATE OPERATOR @extschema@.< (
	LEFTARG = @extschema@.bk_model, RIGHTARG = @extschema@.bk_model,
	FUNCTION = @extschema@._bk_model_lt,
	COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR @extschema@.<= (
	LEFTARG = @extschema@.bk_model, RIGHTARG = @extschema@.bk_model,
	FUNCTION = @extschema@._bk_model_le,
	COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR @extschema@.> (
	LEFTARG = @extschema@.bk_model, RIGHTARG = @extschema@.bk_model,
	FUNCTION = @extschema@._bk_model_gt,
	COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR @extschema@.>= (
	LEFTARG = @extschema@.bk_model, RIGHTARG = @extschema@.bk_model,
	FUNCTION = @extschema@._bk_model_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = scalargesel, JOIN = scalargejoinsel);

CREATE OPERATOR CLASS @extschema@.bk_model_ops
	DEFAULT FOR TYPE @extschema@.bk_model USING btree AS
	OPERATOR 1 @extschema@.<,
	OPERATOR 2 @extschema@.<=,
	OPERATOR 3 @extschema@.=,
	OPERATOR 4 @extschema@.>=,
	OPERATOR 5 @extschema@.>,
	FUNCTION 1 @extschema@._bk_model_cmp(@extschema@.bk_model, @extschema@.bk_model);

CREATE OPERATOR CLASS @extschema@.bk_model_hash_ops
	DEFAULT FOR TYPE @extschema@.bk_model USING hash AS
	OPERATOR 1 @extschema@.=,
	FUNCTION 1 @extschema@._bk_model_hash(@extschema@.bk_model),
	FUNCTION 2 @extschema@._bk_model_hash_extended(@extschema@.bk_model, bigint);

COMMENT ON FUNCTION @extschema@._bk_model_eq(@extschema@.bk_model, @extschema@.bk_model) IS
	'implementation of = for bk_model: the encoded bytes are equal';
COMMENT ON FUNCTION @extschema@._bk_model_ne(@extschema@.bk_model, @extschema@.bk_model) IS
	'implementation of <> for bk_model';
COMMENT ON FUNCTION @extschema@._bk_model_lt(@extschema@.bk_model, @extschema@.bk_model) IS
	'implementation of < for bk_model (bytewise)';
COMMENT ON FUNCTION @extschema@._bk_model_le(@extschema@.bk_model, @extschema@.bk_model) IS
	'implementation of <= for bk_model (bytewise)';
COMMENT ON FUNCTION @extschema@._bk_model_gt(@extschema@.bk_model, @extschema@.bk_model) IS
	'implementation of > for bk_model (bytewise)';
COMMENT ON FUNCTION @extschema@._bk_model_ge(@extschema@.bk_model, @extschema@.bk_model) IS
	'implementation of >= for bk_model (bytewise)';
COMMENT ON FUNCTION @extschema@._bk_model_cmp(@extschema@.bk_model, @extschema@.bk_model) IS
	'B-tree support for bk_model: bytewise comparison';
COMMENT ON FUNCTION @extschema@._bk_model_hash(@extschema@.bk_model) IS
	'hash support for bk_model: hash of the encoded bytes';
COMMENT ON FUNCTION @extschema@._bk_model_hash_extended(@extschema@.bk_model, bigint) IS
	'hash support for bk_model: seeded 64-bit hash of the encoded bytes';
COMMENT ON OPERATOR @extschema@.= (@extschema@.bk_model, @extschema@.bk_model) IS
	'equal encoded bytes (the same model)';
COMMENT ON OPERATOR @extschema@.<> (@extschema@.bk_model, @extschema@.bk_model) IS
	'different encoded bytes';
COMMENT ON OPERATOR @extschema@.< (@extschema@.bk_model, @extschema@.bk_model) IS
	'bytewise less than (a grouping order only)';
COMMENT ON OPERATOR @extschema@.<= (@extschema@.bk_model, @extschema@.bk_model) IS
	'bytewise less than or equal (a grouping order only)';
COMMENT ON OPERATOR @extschema@.> (@extschema@.bk_model, @extschema@.bk_model) IS
	'bytewise greater than (a grouping order only)';
COMMENT ON OPERATOR @extschema@.>= (@extschema@.bk_model, @extschema@.bk_model) IS
	'bytewise greater than or equal (a grouping order only)';
COMMENT ON OPERATOR CLASS @extschema@.bk_model_ops USING btree IS
	'bytewise order of bk_model (sorted DISTINCT, GROUP BY, merge joins)';
COMMENT ON OPERATOR CLASS @extschema@.bk_model_hash_ops USING hash IS
	'hash of bk_model bytes (hashed DISTINCT, GROUP BY, UNION, hash joins)';
COMMENT ON OPERATOR FAMILY @extschema@.bk_model_ops USING btree IS
	'the operator family of bk_model_ops';
COMMENT ON OPERATOR FAMILY @extschema@.bk_model_hash_ops USING hash IS
	'the operator family of bk_model_hash_ops';
