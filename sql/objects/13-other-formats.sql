-- ------------------------------------------------------------------------
-- Other formats (availability: 0.3.0)
-- ------------------------------------------------------------------------
--
-- bk_export(model, format): the model as an ONNX graph ('onnx') or as
-- LIBSVM's model text ('libsvm'); bk_import(data, format, dim): a model
-- from LIBSVM's model text.  doc/export.md says what each format holds
-- and what is refused.

-- Availability: 0.3.0
CREATE FUNCTION @extschema@.bk_export(model @extschema@.bk_model, format text)
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'bk_export'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bk_export(@extschema@.bk_model, text) IS
	'the model in another format: ''onnx'' (an ONNX graph that scores raw rows as the model does) or ''libsvm'' (LIBSVM''s model text); a model the format cannot express is refused';

-- Availability: 0.3.0
CREATE FUNCTION @extschema@.bk_import(data bytea, format text, dim int4 DEFAULT 0)
	RETURNS @extschema@.bk_model
	AS 'MODULE_PATHNAME', 'bk_import'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.bk_import(bytea, text, int4) IS
	'a model from another format''s bytes: ''libsvm'' (a binary C-SVC, epsilon-SVR or one-class model file of svm-train); dim, the number of features, 0 for the largest index of its support vectors';
