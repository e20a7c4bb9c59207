-- ------------------------------------------------------------------------
-- Features (availability: 0.2.0)
-- ------------------------------------------------------------------------
-- bk_features: the one type of every features argument.  A row's features
-- are a numeric array (float8[]; int2[], int4[], int8[], float4[] and
-- numeric[] are read as the float8[] of their values), a jsonb object of
-- named features, or a bk_sparse vector; each reaches bk_features by an
-- implicit cast that passes its bytes on unchanged (no copy, no
-- conversion), and the library tells the form from the bytes.  So every
-- aggregate and scoring function has one signature per label type, and
-- bk_cross_validate can call them with exact types.  PostgreSQL makes no
-- cast WITHOUT FUNCTION from an array type (nor between types of different
-- alignments): the arrays and jsonb are cast by _bk_features, which
-- returns its argument and which the planner removes; bk_sparse, a
-- varlena aligned to double like bk_features, is cast WITHOUT FUNCTION.
-- A text literal has no form: bk_features' input function asks for a
-- cast to float8[], jsonb or bk_sparse.  Its output function prints a
-- value in its own form.
CREATE TYPE @extschema@.bk_features;

CREATE FUNCTION @extschema@._bk_features_in(cstring)
	RETURNS @extschema@.bk_features
	AS 'MODULE_PATHNAME', 'bk_features_in'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_features_out(@extschema@.bk_features)
	RETURNS cstring
	AS 'MODULE_PATHNAME', 'bk_features_out'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.bk_features (
	INPUT = @extschema@._bk_features_in,
	OUTPUT = @extschema@._bk_features_out,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);

COMMENT ON TYPE @extschema@.bk_features IS
	'the features argument: float8[] (or int2[], int4[], int8[], float4[], numeric[]), jsonb named features or bk_sparse, cast implicitly';
COMMENT ON FUNCTION @extschema@._bk_features_in(cstring) IS
	'input function of bk_features: an error (a literal must be cast to float8[], jsonb or bk_sparse)';
COMMENT ON FUNCTION @extschema@._bk_features_out(@extschema@.bk_features) IS
	'output function of bk_features: the value in the text form of its own type';

-- the planner simplifies each call of _bk_features into a relabelling of
-- its argument (_bk_features_support), as if the cast were binary: no
-- call per row
CREATE FUNCTION @extschema@._bk_features_support(internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'bk_features_support'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@._bk_features_support(internal) IS
	'planner support function of _bk_features: its calls become relabellings of their argument';

CREATE FUNCTION @extschema@._bk_features(float8[])
	RETURNS @extschema@.bk_features
	AS 'MODULE_PATHNAME', 'bk_features_cast'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT @extschema@._bk_features_support;
CREATE FUNCTION @extschema@._bk_features(float4[])
	RETURNS @extschema@.bk_features
	AS 'MODULE_PATHNAME', 'bk_features_cast'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT @extschema@._bk_features_support;
CREATE FUNCTION @extschema@._bk_features(int2[])
	RETURNS @extschema@.bk_features
	AS 'MODULE_PATHNAME', 'bk_features_cast'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT @extschema@._bk_features_support;
CREATE FUNCTION @extschema@._bk_features(int4[])
	RETURNS @extschema@.bk_features
	AS 'MODULE_PATHNAME', 'bk_features_cast'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT @extschema@._bk_features_support;
CREATE FUNCTION @extschema@._bk_features(int8[])
	RETURNS @extschema@.bk_features
	AS 'MODULE_PATHNAME', 'bk_features_cast'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT @extschema@._bk_features_support;
CREATE FUNCTION @extschema@._bk_features(numeric[])
	RETURNS @extschema@.bk_features
	AS 'MODULE_PATHNAME', 'bk_features_cast'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT @extschema@._bk_features_support;
CREATE FUNCTION @extschema@._bk_features(jsonb)
	RETURNS @extschema@.bk_features
	AS 'MODULE_PATHNAME', 'bk_features_cast'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT @extschema@._bk_features_support;

CREATE CAST (float8[] AS @extschema@.bk_features)
	WITH FUNCTION @extschema@._bk_features(float8[]) AS IMPLICIT;
CREATE CAST (float4[] AS @extschema@.bk_features)
	WITH FUNCTION @extschema@._bk_features(float4[]) AS IMPLICIT;
CREATE CAST (int2[] AS @extschema@.bk_features)
	WITH FUNCTION @extschema@._bk_features(int2[]) AS IMPLICIT;
CREATE CAST (int4[] AS @extschema@.bk_features)
	WITH FUNCTION @extschema@._bk_features(int4[]) AS IMPLICIT;
CREATE CAST (int8[] AS @extschema@.bk_features)
	WITH FUNCTION @extschema@._bk_features(int8[]) AS IMPLICIT;
CREATE CAST (numeric[] AS @extschema@.bk_features)
	WITH FUNCTION @extschema@._bk_features(numeric[]) AS IMPLICIT;
CREATE CAST (jsonb AS @extschema@.bk_features)
	WITH FUNCTION @extschema@._bk_features(jsonb) AS IMPLICIT;
CREATE CAST (@extschema@.bk_sparse AS @extschema@.bk_features)
	WITHOUT FUNCTION AS IMPLICIT;

COMMENT ON FUNCTION @extschema@._bk_features(float8[]) IS
	'cast of float8[] to bk_features: the array itself';
COMMENT ON FUNCTION @extschema@._bk_features(float4[]) IS
	'cast of float4[] to bk_features: the array itself, read as float8 values';
COMMENT ON FUNCTION @extschema@._bk_features(int2[]) IS
	'cast of int2[] to bk_features: the array itself, read as float8 values';
COMMENT ON FUNCTION @extschema@._bk_features(int4[]) IS
	'cast of int4[] to bk_features: the array itself, read as float8 values';
COMMENT ON FUNCTION @extschema@._bk_features(int8[]) IS
	'cast of int8[] to bk_features: the array itself, read as float8 values';
COMMENT ON FUNCTION @extschema@._bk_features(numeric[]) IS
	'cast of numeric[] to bk_features: the array itself, read as float8 values';
COMMENT ON FUNCTION @extschema@._bk_features(jsonb) IS
	'cast of jsonb (named features) to bk_features: the document itself';
COMMENT ON CAST (float8[] AS @extschema@.bk_features) IS
	'features array (free)';
COMMENT ON CAST (float4[] AS @extschema@.bk_features) IS
	'features array, read as float8 values';
COMMENT ON CAST (int2[] AS @extschema@.bk_features) IS
	'features array, read as float8 values';
COMMENT ON CAST (int4[] AS @extschema@.bk_features) IS
	'features array, read as float8 values';
COMMENT ON CAST (int8[] AS @extschema@.bk_features) IS
	'features array, read as float8 values';
COMMENT ON CAST (numeric[] AS @extschema@.bk_features) IS
	'features array, read as float8 values';
COMMENT ON CAST (jsonb AS @extschema@.bk_features) IS
	'named features: a JSON object (free)';
COMMENT ON CAST (@extschema@.bk_sparse AS @extschema@.bk_features) IS
	'sparse features (free)';

-- Named features.
-- The features of a row as a jsonb object, for example
-- to_jsonb(t) - 'label' - 'id': numbers are numeric inputs (standardised),
-- strings and booleans categorical (one-hot with the training rows'
-- vocabulary), null or an absent key missing (imputed).  The model keeps
-- the keys, kinds and statistics (bk_info -> 'preparation') and replays
-- them when it scores an object; keys it does not know are ignored.  The
-- preparation is fitted on every training row before the first is
-- learned, so training keeps the rows (within work_mem, spilling to
-- temporary files).  In a parallel plan (training without ORDER BY) each
-- part fits its own preparation and the parts' models are merged, which
-- takes preparations of the same inputs, kinds and text values.
