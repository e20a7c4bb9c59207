/*
 * bk_export.c
 *	  A model in another format (bk_core.h's BkModelExport and
 *	  BkModelImport): the format named, its writer or reader called.
 */
#include "bk_export.h"

#include <string.h>

uint8_t *
BkModelExport(BkModel *m, const char *format, size_t *len)
{
	if (strcmp(format, "onnx") == 0)
		return BkExportOnnx(m, len);
	if (strcmp(format, "libsvm") == 0)
		return BkExportLibsvm(m, len);
	BkRaiseHint(&m->env, BK_ERR_PARAM, NULL,
				"The formats are \"onnx\" and \"libsvm\".",
				"unknown export format \"%s\"", format);
}

BkModel *
BkModelImport(const BkEnv *env, const char *format, const uint8_t *data,
			  size_t len, int dim)
{
	if (strcmp(format, "libsvm") == 0)
		return BkImportLibsvm(env, (const char *) data, len, dim);
	BkRaiseHint(env, BK_ERR_PARAM, NULL, "The format is \"libsvm\".",
				"unknown import format \"%s\"", format);
}
