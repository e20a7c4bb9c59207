/*
 * bk_export.c
 *	  bk_export and bk_import: a model to and from another format's bytes
 *	  (doc/export.md).  The core writes and reads the formats
 *	  (src/core/format/bk_export*.c, bk_import_libsvm.c); this file turns
 *	  the SQL values into its calls.
 */
#include "postgres.h"

#include <string.h>

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "bk_pg.h"

PG_FUNCTION_INFO_V1(bk_export);
PG_FUNCTION_INFO_V1(bk_import);

/*
 * bk_export(model bk_model, format text) RETURNS bytea
 */
Datum
bk_export(PG_FUNCTION_ARGS)
{
	BkModel    *m = BkPgDecodeDatum(PG_GETARG_DATUM(0), CurrentMemoryContext, false);
	char	   *format = text_to_cstring(PG_GETARG_TEXT_PP(1));
	size_t		len;
	uint8_t    *bytes = BkModelExport(m, format, &len);
	bytea	   *result;

	if (len > MaxAllocSize - VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the export of the model is too large for a bytea (%zu bytes)", len)));
	result = (bytea *) palloc(VARHDRSZ + len);
	SET_VARSIZE(result, VARHDRSZ + len);
	memcpy(VARDATA(result), bytes, len);
	pfree(bytes);
	BkModelFree(m);
	PG_RETURN_BYTEA_P(result);
}

/*
 * bk_import(data bytea, format text, dim int4 DEFAULT 0) RETURNS bk_model
 */
Datum
bk_import(PG_FUNCTION_ARGS)
{
	bytea	   *data = PG_GETARG_BYTEA_PP(0);
	char	   *format = text_to_cstring(PG_GETARG_TEXT_PP(1));
	int32		dim = PG_GETARG_INT32(2);
	BkEnv		env;
	BkModel    *m;
	struct varlena *result;

	if (dim < 0 || dim > BK_MAX_DIM)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dim must be between 1 and %d, or 0 for the largest index of the model, got %d",
						BK_MAX_DIM, dim)));
	BkPgEnvInit(&env, CurrentMemoryContext);
	m = BkModelImport(&env, format, (const uint8_t *) VARDATA_ANY(data),
					  VARSIZE_ANY_EXHDR(data), dim);
	result = BkPgEncodeModel(m, "bk_import");
	BkModelFree(m);
	PG_RETURN_POINTER(result);
}
