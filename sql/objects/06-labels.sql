-- ------------------------------------------------------------------------
-- Labels (availability: 0.4.0)
-- ------------------------------------------------------------------------
-- bk_label: the one type of every label argument (bk_train, bk_continue,
-- bk_calibrate, bk_refit, bk_metrics).  A column of int2, int4, int8,
-- numeric, float4, float8, text, varchar or char(n) reaches it by an
-- implicit cast, and the value keeps what it was: so one signature serves
-- every label type, an int2 label is an integer (before 0.4.0 PostgreSQL
-- chose the float8 form for it), and the task follows the column's type
-- whoever calls the aggregate.  Integers and text are a classifier's
-- labels, float4, float8 and numeric a regressor's targets, unless the
-- parameters name the task ({"task": "classification"}).  text and
-- varchar are cast WITHOUT FUNCTION (the value is the text itself);
-- char(n) loses its trailing blanks, as in its cast to text.  The text
-- form of a number says its type ('5::int8', '0.5::float8',
-- '2.5::numeric'); any other string is a text label.
-- Availability: 0.4.0
CREATE TYPE @extschema@.bk_label;

CREATE FUNCTION @extschema@._bk_label_in(cstring)
	RETURNS @extschema@.bk_label
	AS 'MODULE_PATHNAME', 'bk_label_in'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_label_out(@extschema@.bk_label)
	RETURNS cstring
	AS 'MODULE_PATHNAME', 'bk_label_out'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_label_recv(internal)
	RETURNS @extschema@.bk_label
	AS 'MODULE_PATHNAME', 'bk_label_recv'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@._bk_label_send(@extschema@.bk_label)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'bk_label_send'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.bk_label (
	INPUT = @extschema@._bk_label_in,
	OUTPUT = @extschema@._bk_label_out,
	RECEIVE = @extschema@._bk_label_recv,
	SEND = @extschema@._bk_label_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = int4,
	STORAGE = extended
);

COMMENT ON TYPE @extschema@.bk_label IS
	'a label or target: an integer, a number or text, as the column was (implicit casts from int2, int4, int8, numeric, float4, float8, text, varchar, char)';
COMMENT ON FUNCTION @extschema@._bk_label_in(cstring) IS
	'input function of bk_label: ''5::int8'', ''0.5::float8'', ''2.5::numeric'' are numbers, any other string a text label';
COMMENT ON FUNCTION @extschema@._bk_label_out(@extschema@.bk_label) IS
	'output function of bk_label: a number with its type (''5::int8''), text as itself';
COMMENT ON FUNCTION @extschema@._bk_label_recv(internal) IS
	'binary input function of bk_label';
COMMENT ON FUNCTION @extschema@._bk_label_send(@extschema@.bk_label) IS
	'binary output function of bk_label';

CREATE FUNCTION @extschema@._bk_label(int2)
	RETURNS @extschema@.bk_label
	AS 'MODULE_PATHNAME', 'bk_label_from_int2'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@._bk_label(int4)
	RETURNS @extschema@.bk_label
	AS 'MODULE_PATHNAME', 'bk_label_from_int4'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@._bk_label(int8)
	RETURNS @extschema@.bk_label
	AS 'MODULE_PATHNAME', 'bk_label_from_int8'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@._bk_label(float4)
	RETURNS @extschema@.bk_label
	AS 'MODULE_PATHNAME', 'bk_label_from_float4'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@._bk_label(float8)
	RETURNS @extschema@.bk_label
	AS 'MODULE_PATHNAME', 'bk_label_from_float8'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@._bk_label(numeric)
	RETURNS @extschema@.bk_label
	AS 'MODULE_PATHNAME', 'bk_label_from_numeric'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@._bk_label(bpchar)
	RETURNS @extschema@.bk_label
	AS 'MODULE_PATHNAME', 'bk_label_from_bpchar'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE CAST (int2 AS @extschema@.bk_label)
	WITH FUNCTION @extschema@._bk_label(int2) AS IMPLICIT;
CREATE CAST (int4 AS @extschema@.bk_label)
	WITH FUNCTION @extschema@._bk_label(int4) AS IMPLICIT;
CREATE CAST (int8 AS @extschema@.bk_label)
	WITH FUNCTION @extschema@._bk_label(int8) AS IMPLICIT;
CREATE CAST (float4 AS @extschema@.bk_label)
	WITH FUNCTION @extschema@._bk_label(float4) AS IMPLICIT;
CREATE CAST (float8 AS @extschema@.bk_label)
	WITH FUNCTION @extschema@._bk_label(float8) AS IMPLICIT;
CREATE CAST (numeric AS @extschema@.bk_label)
	WITH FUNCTION @extschema@._bk_label(numeric) AS IMPLICIT;
CREATE CAST (bpchar AS @extschema@.bk_label)
	WITH FUNCTION @extschema@._bk_label(bpchar) AS IMPLICIT;
CREATE CAST (text AS @extschema@.bk_label)
	WITHOUT FUNCTION AS IMPLICIT;
CREATE CAST (varchar AS @extschema@.bk_label)
	WITHOUT FUNCTION AS IMPLICIT;

COMMENT ON FUNCTION @extschema@._bk_label(int2) IS 'cast of int2 to bk_label: an integer label';
COMMENT ON FUNCTION @extschema@._bk_label(int4) IS 'cast of int4 to bk_label: an integer label';
COMMENT ON FUNCTION @extschema@._bk_label(int8) IS 'cast of int8 to bk_label: an integer label';
COMMENT ON FUNCTION @extschema@._bk_label(float4) IS 'cast of float4 to bk_label: a number (a regressor''s target by default)';
COMMENT ON FUNCTION @extschema@._bk_label(float8) IS 'cast of float8 to bk_label: a number (a regressor''s target by default)';
COMMENT ON FUNCTION @extschema@._bk_label(numeric) IS 'cast of numeric to bk_label: its nearest float8 (a regressor''s target by default)';
COMMENT ON FUNCTION @extschema@._bk_label(bpchar) IS 'cast of char(n) to bk_label: a text label without trailing blanks';
COMMENT ON CAST (int2 AS @extschema@.bk_label) IS 'an integer label';
COMMENT ON CAST (int4 AS @extschema@.bk_label) IS 'an integer label';
COMMENT ON CAST (int8 AS @extschema@.bk_label) IS 'an integer label';
COMMENT ON CAST (float4 AS @extschema@.bk_label) IS 'a number';
COMMENT ON CAST (float8 AS @extschema@.bk_label) IS 'a number';
COMMENT ON CAST (numeric AS @extschema@.bk_label) IS 'a number, read as its nearest float8';
COMMENT ON CAST (bpchar AS @extschema@.bk_label) IS 'a text label, without trailing blanks';
COMMENT ON CAST (text AS @extschema@.bk_label) IS 'a text label (free)';
COMMENT ON CAST (varchar AS @extschema@.bk_label) IS 'a text label (free)';

-- An order (numbers by value before text, text by bytes), so that ORDER
-- BY label inside an aggregate call, whose sort key is the argument cast
-- to bk_label, has a sort operator.
CREATE FUNCTION @extschema@._bk_label_cmp(@extschema@.bk_label, @extschema@.bk_label)
	RETURNS int4
	AS 'MODULE_PATHNAME', 'bk_label_cmp'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._bk_label_cmp(@extschema@.bk_label, @extschema@.bk_label) IS
	'order of bk_label: numbers by value before text, text by bytes';
CREATE FUNCTION @extschema@._bk_label_lt(@extschema@.bk_label, @extschema@.bk_label)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bk_label_lt'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._bk_label_lt(@extschema@.bk_label, @extschema@.bk_label) IS
	'operator < of bk_label';
CREATE FUNCTION @extschema@._bk_label_le(@extschema@.bk_label, @extschema@.bk_label)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bk_label_le'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._bk_label_le(@extschema@.bk_label, @extschema@.bk_label) IS
	'operator <= of bk_label';
CREATE FUNCTION @extschema@._bk_label_eq(@extschema@.bk_label, @extschema@.bk_label)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bk_label_eq'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._bk_label_eq(@extschema@.bk_label, @extschema@.bk_label) IS
	'operator = of bk_label';
CREATE FUNCTION @extschema@._bk_label_ge(@extschema@.bk_label, @extschema@.bk_label)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bk_label_ge'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._bk_label_ge(@extschema@.bk_label, @extschema@.bk_label) IS
	'operator >= of bk_label';
CREATE FUNCTION @extschema@._bk_label_gt(@extschema@.bk_label, @extschema@.bk_label)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'bk_label_gt'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._bk_label_gt(@extschema@.bk_label, @extschema@.bk_label) IS
	'operator > of bk_label';
CREATE OPERATOR @extschema@.< (
	LEFTARG = @extschema@.bk_label, RIGHTARG = @extschema@.bk_label,
	FUNCTION = @extschema@._bk_label_lt,
	COMMUTATOR = OPERATOR(@extschema@.>),
	NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
	LEFTARG = @extschema@.bk_label, RIGHTARG = @extschema@.bk_label,
	FUNCTION = @extschema@._bk_label_le,
	COMMUTATOR = OPERATOR(@extschema@.>=),
	NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.bk_label, RIGHTARG = @extschema@.bk_label,
	FUNCTION = @extschema@._bk_label_eq,
	COMMUTATOR = OPERATOR(@extschema@.=),
	RESTRICT = eqsel, JOIN = eqjoinsel
);
CREATE OPERATOR @extschema@.>= (
	LEFTARG = @extschema@.bk_label, RIGHTARG = @extschema@.bk_label,
	FUNCTION = @extschema@._bk_label_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=),
	NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR @extschema@.> (
	LEFTARG = @extschema@.bk_label, RIGHTARG = @extschema@.bk_label,
	FUNCTION = @extschema@._bk_label_gt,
	COMMUTATOR = OPERATOR(@extschema@.<),
	NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR CLASS @extschema@.bk_label_ops
	DEFAULT FOR TYPE @extschema@.bk_label USING btree AS
	OPERATOR 1 @extschema@.< ,
	OPERATOR 2 @extschema@.<= ,
	OPERATOR 3 @extschema@.= ,
	OPERATOR 4 @extschema@.>= ,
	OPERATOR 5 @extschema@.> ,
	FUNCTION 1 @extschema@._bk_label_cmp(@extschema@.bk_label, @extschema@.bk_label);
COMMENT ON OPERATOR CLASS @extschema@.bk_label_ops USING btree IS
	'order of bk_label: numbers by value before text, text by bytes';
COMMENT ON OPERATOR @extschema@.< (@extschema@.bk_label, @extschema@.bk_label) IS
	'less than, in bk_label''s order (numbers by value before text, text by bytes)';
COMMENT ON OPERATOR @extschema@.<= (@extschema@.bk_label, @extschema@.bk_label) IS
	'less than or equal, in bk_label''s order (numbers by value before text, text by bytes)';
COMMENT ON OPERATOR @extschema@.= (@extschema@.bk_label, @extschema@.bk_label) IS
	'equal, in bk_label''s order (numbers by value before text, text by bytes)';
COMMENT ON OPERATOR @extschema@.>= (@extschema@.bk_label, @extschema@.bk_label) IS
	'greater than or equal, in bk_label''s order (numbers by value before text, text by bytes)';
COMMENT ON OPERATOR @extschema@.> (@extschema@.bk_label, @extschema@.bk_label) IS
	'greater than, in bk_label''s order (numbers by value before text, text by bytes)';
COMMENT ON OPERATOR FAMILY @extschema@.bk_label_ops USING btree IS
	'order of bk_label: numbers by value before text, text by bytes';
