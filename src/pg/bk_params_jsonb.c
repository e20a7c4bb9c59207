/*
 * bk_params_jsonb.c
 *	  The jsonb parameter document of bk_train -> BkParams.
 *
 * This file only says what type each value has; the core decides which
 * keys exist, which values are allowed and what the message says.
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "bk_pg_train.h"

/*
 * A jsonb number as a double.  Numbers beyond the double range become
 * +-Infinity (numeric_float8_no_overflow does not raise), which the core
 * rejects as out of range with a message naming the key.
 */
static double
bk_numeric_to_double(Numeric num)
{
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
											  NumericGetDatum(num)));
}

/*
 * "epochs" of a jsonb value, the same key in params and in overrides;
 * errors name the document
 */
int
BkPgEpochsFromJsonb(const JsonbValue *v, const char *document)
{
	double		d = 0;

	if (v->type == jbvNumeric)
		d = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
											   NumericGetDatum(v->val.numeric)));
	if (v->type != jbvNumeric || d != floor(d) || d < 1 || d > BK_MAX_EPOCHS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s key \"epochs\" must be an integer between 1 and %d",
						document, BK_MAX_EPOCHS)));
	return (int) d;
}

/* What a jsonb value is, for the core's parameter checks */
void
BkPgParamInput(const JsonbValue *v, BkParamInput *in)
{
	memset(in, 0, sizeof(*in));
	switch (v->type)
	{
		case jbvNumeric:
			in->type = BK_IN_NUMBER;
			in->number = bk_numeric_to_double(v->val.numeric);
			break;
		case jbvString:
			in->type = BK_IN_STRING;
			in->string = pnstrdup(v->val.string.val, v->val.string.len);
			break;
		case jbvBool:
			in->type = BK_IN_BOOLEAN;
			in->boolean = v->val.boolean;
			break;
		case jbvNull:
			in->type = BK_IN_OTHER;
			in->type_name = "null";
			break;
		case jbvBinary:
			in->type = BK_IN_OTHER;
			in->type_name = JsonContainerIsArray(v->val.binary.data) ?
				"array" : "object";
			break;
		default:
			/* jbvArray/jbvObject do not come out with skipNested */
			in->type = BK_IN_OTHER;
			in->type_name = (v->type == jbvArray) ? "array" : "object";
			break;
	}
}

/*
 * BkParamsInit, then BkParamsSet for every key of the top-level object.
 * Four keys are not settings of the learner: "task" (BkPgTaskFromJsonb
 * reads it), "classes" (a list of labels)
 * is handed back as a jsonb array allocated in classes_cxt, or NULL,
 * "class_weight" as its jsonb value there too (the model keeps it once its
 * label type is known), and "epochs" (passes over the rows, of this run)
 * in *epochs, or 1.
 */
void
BkPgParamsFromJsonb(BkParams *p, Jsonb *jb, Jsonb **classes,
					Jsonb **class_weight, int *epochs, BkPrepSpec *spec,
					MemoryContext classes_cxt)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	BkParamsInit(p);
	*epochs = 1;

	if (!JB_ROOT_IS_OBJECT(jb))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("params must be a JSON object"),
				 errhint("Write the parameters as an object, for example '{\"algorithm\": \"bpa\", \"budget\": 100}'.")));

	it = JsonbIteratorInit(&jb->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		char	   *key;
		BkParamInput in;
		char		err[BK_ERRMSG_LEN];

		if (tok != WJB_KEY)
			continue;			/* WJB_BEGIN_OBJECT / WJB_END_OBJECT */

		key = pnstrdup(v.val.string.val, v.val.string.len);

		tok = JsonbIteratorNext(&it, &v, true);
		if (tok != WJB_VALUE)
			elog(ERROR, "unexpected jsonb token %d after key \"%s\"",
				 (int) tok, key);

		if (strcmp(key, "epochs") == 0)
		{
			*epochs = BkPgEpochsFromJsonb(&v, "params");
			pfree(key);
			continue;
		}
		/* the task: read by BkPgTaskFromJsonb, with the label's kind */
		if (strcmp(key, "task") == 0)
		{
			pfree(key);
			continue;
		}
		if (strcmp(key, "class_weight") == 0)
		{
			MemoryContext old = MemoryContextSwitchTo(classes_cxt);

			*class_weight = JsonbValueToJsonb(&v);
			MemoryContextSwitchTo(old);
			pfree(key);
			continue;
		}
		if (strcmp(key, "classes") == 0)
		{
			MemoryContext old;

			if (v.type != jbvBinary || !JsonContainerIsArray(v.val.binary.data) ||
				JsonContainerSize(v.val.binary.data) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("parameter \"classes\" must be a non-empty array of labels"),
						 errhint("For example '{\"classes\": [0, 1, 2]}' or '{\"classes\": [\"cat\", \"dog\"]}'.")));
			old = MemoryContextSwitchTo(classes_cxt);
			*classes = JsonbValueToJsonb(&v);
			MemoryContextSwitchTo(old);
			pfree(key);
			continue;
		}
		BkPgParamInput(&v, &in);

		/* the preparation's parameters ("scale", "impute", "max_levels") */
		err[0] = '\0';
		if (spec != NULL)
		{
			int			taken = BkPrepSpecSet(spec, key, &in, err, sizeof(err));

			if (taken < 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s", err)));
			if (taken > 0)
			{
				pfree(key);
				continue;
			}
		}
		if (!BkParamsSet(p, key, &in, err, sizeof(err)))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s", err[0] ? err : "invalid parameter")));

		pfree(key);
	}
}

/*
 * Declare the labels of the "classes" array to a new model, in order:
 * integers for an int8-labelled stream, strings for a text one.
 */
void
BkPgDeclareClasses(BkModel *m, Jsonb *classes, bool text_labels)
{
	JsonbIterator *it = JsonbIteratorInit(&classes->root);
	JsonbValue	v;
	JsonbIteratorToken tok;

	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok != WJB_ELEM)
			continue;
		if (text_labels && v.type == jbvString)
		{
			size_t		len = (size_t) v.val.string.len;
			const char *label = BkPgLabelIn(m, v.val.string.val, &len);

			BkModelDeclareClassText(m, label, len);
		}
		else if (!text_labels && v.type == jbvNumeric)
		{
			double		d = bk_numeric_to_double(v.val.numeric);

			if (d != floor(d) || fabs(d) > 9007199254740991.0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("parameter \"classes\" must list integer labels, got %.15g", d)));
			BkModelDeclareClass(m, (int64_t) d);
		}
		else
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("parameter \"classes\" must list %s labels, as the stream's labels are %s",
							text_labels ? "string" : "integer",
							text_labels ? "text" : "int8")));
	}
}

/*
 * Every key of a parameter document (a JSON object) through set, whose
 * false is an error (22023) with its message; fname names the function
 * in the messages.  For the documents of the functions that are not a
 * learner's: bk_drift, bk_data_drift.
 */
void
BkPgEachParam(Jsonb *jb, const char *fname, BkPgParamSetter set, void *target)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	if (!JB_ROOT_IS_OBJECT(jb) || JB_ROOT_IS_SCALAR(jb))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: params must be a JSON object", fname)));
	it = JsonbIteratorInit(&jb->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		char	   *key;
		BkParamInput in;
		char		err[BK_ERRMSG_LEN];

		if (tok != WJB_KEY)
			continue;
		key = pnstrdup(v.val.string.val, v.val.string.len);
		tok = JsonbIteratorNext(&it, &v, true);
		if (tok != WJB_VALUE)
			elog(ERROR, "unexpected jsonb token %d after key \"%s\"", (int) tok, key);
		BkPgParamInput(&v, &in);
		if (!set(target, key, &in, err, sizeof(err)))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s", fname, err)));
		pfree(key);
	}
}
