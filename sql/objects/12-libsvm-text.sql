-- ------------------------------------------------------------------------
-- LIBSVM text
-- ------------------------------------------------------------------------
--
-- bk_libsvm(line, dim): one line of LIBSVM / svmlight text as its label
-- and dense features.  Load a file with \copy into a table of lines, then
-- SELECT id, (bk_libsvm(line, dim)).* FROM it.

-- Availability: 0.2.0
CREATE FUNCTION @extschema@.bk_libsvm(line text, dim int4, OUT label int8, OUT features float8[])
	RETURNS record
	AS 'MODULE_PATHNAME', 'bk_libsvm'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bk_libsvm(text, int4) IS
	'one line of LIBSVM / svmlight text ("label index:value ..."): its integer label and dense features of length dim';
