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
-- A bare text literal ('{1,2}') has no form: bk_features' input function
-- asks for a cast to float8[], jsonb or bk_sparse.  Its text form (0.4.0)
-- is below.
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

-- Availability: 0.4.0
-- The text and binary forms of bk_features, in which Citus moves the
-- arguments of an aggregate it pulls to the coordinator (bk_train with
-- ORDER BY inside) and COPY and pg_dump move a column of it.  Text:
-- "TYPE:TEXT", TYPE the value's own type (float8[], float4[], int2[],
-- int4[], int8[], numeric[], jsonb, bk_sparse), TEXT that type's text form,
-- floats printed exactly whatever extra_float_digits says (the shortest
-- digits that read back to the same bits): 'float8[]:{1.5,0.1}',
-- 'jsonb:{"a": 1}', 'bk_sparse:{2:0.5}/3'.  The input function reads that
-- back into the same type and bits, and keeps refusing a bare literal
-- ('{1,2}' could be an array, a JSON object or a sparse vector).  Binary:
-- one byte naming the form (1 an array, 2 jsonb, 3 bk_sparse), then the
-- binary form of that type (an array's names its element type).  A type of
-- the same kind (a value of one of several types, as bk_features) gives
-- its values these two forms, with its own type names and bytes.
CREATE FUNCTION @extschema@._bk_features_recv(internal)
	RETURNS @extschema@.bk_features
	AS 'MODULE_PATHNAME', 'bk_features_recv'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_features_send(@extschema@.bk_features)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'bk_features_send'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

ALTER TYPE @extschema@.bk_features SET (
	RECEIVE = @extschema@._bk_features_recv,
	SEND = @extschema@._bk_features_send
);

COMMENT ON TYPE @extschema@.bk_features IS
	'the features argument: float8[] (or int2[], int4[], int8[], float4[], numeric[]), jsonb named features or bk_sparse, cast implicitly; text form TYPE:TEXT';
COMMENT ON FUNCTION @extschema@._bk_features_in(cstring) IS
	'input function of bk_features: TYPE:TEXT as the output prints it (a bare literal is an error: cast it to float8[], jsonb or bk_sparse)';
COMMENT ON FUNCTION @extschema@._bk_features_out(@extschema@.bk_features) IS
	'output function of bk_features: TYPE:TEXT, the value''s type and its text form, floats exact';
COMMENT ON FUNCTION @extschema@._bk_features_recv(internal) IS
	'binary input function of bk_features: a byte naming the form, then that type''s binary form';
COMMENT ON FUNCTION @extschema@._bk_features_send(@extschema@.bk_features) IS
	'binary output function of bk_features: a byte naming the form, then that type''s binary form';

-- Availability: 0.2.0

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
