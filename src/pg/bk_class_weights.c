/*
 * bk_class_weights.c
 *	  The "class_weight" parameter of bk_train and override of bk_continue:
 *	  "balanced", "none" (or null), or an object {"<label>": weight, ...}
 *	  whose keys are the labels as text ("1" for the integer label 1).  The
 *	  core keeps the weights in the model and decides what they do.
 */
#include "postgres.h"

#include <errno.h>
#include <stdlib.h>

#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "bk_pg.h"

#define CLASS_WEIGHT_HINT \
	"Write \"class_weight\": \"balanced\", or an object of labels and weights such as {\"1\": 10}."

/* an integer label written as a JSON key: optional sign and digits, int8 range */
static int64
int_label_key(const char *key)
{
	char	   *end;
	long long	v;

	errno = 0;
	v = strtoll(key, &end, 10);
	if (key[0] == '\0' || *end != '\0' || errno != 0 ||
		!(key[0] == '-' || (key[0] >= '0' && key[0] <= '9')))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("class weight key \"%s\" is not an integer label", key),
				 errhint("The model's labels are integers: write them as keys such as \"1\".")));
	return (int64) v;
}

void
BkPgApplyClassWeights(BkModel *m, Jsonb *value, bool text_labels)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	if (JB_ROOT_IS_SCALAR(value))
	{
		JsonbValue	sv;

		if (!JsonbExtractScalar(&value->root, &sv))
			elog(ERROR, "a scalar jsonb without its scalar");
		if (sv.type == jbvNull ||
			(sv.type == jbvString && sv.val.string.len == 4 &&
			 memcmp(sv.val.string.val, "none", 4) == 0))
		{
			BkModelWeightClear(m);
			return;
		}
		if (sv.type == jbvString && sv.val.string.len == 8 &&
			memcmp(sv.val.string.val, "balanced", 8) == 0)
		{
			BkModelWeightBalanced(m);
			return;
		}
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"class_weight\" must be \"balanced\", \"none\" or an object of labels and weights"),
				 errhint(CLASS_WEIGHT_HINT)));
	}
	if (!JB_ROOT_IS_OBJECT(value))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"class_weight\" must be \"balanced\", \"none\" or an object of labels and weights, not an array"),
				 errhint(CLASS_WEIGHT_HINT)));

	BkModelWeightExplicit(m);
	it = JsonbIteratorInit(&value->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		char	   *key;
		double		w;

		if (tok != WJB_KEY)
			continue;
		key = pnstrdup(v.val.string.val, v.val.string.len);
		tok = JsonbIteratorNext(&it, &v, true);
		if (tok != WJB_VALUE || v.type != jbvNumeric)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the class weight of label \"%s\" must be a number", key),
					 errhint(CLASS_WEIGHT_HINT)));
		/* beyond float8, +-Infinity: the core refuses it with the range */
		w = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
											   NumericGetDatum(v.val.numeric)));
		if (text_labels)
		{
			size_t		len = strlen(key);
			const char *label = BkPgLabelIn(m, key, &len);

			BkModelWeightClassText(m, label, len, w);
		}
		else
			BkModelWeightClass(m, int_label_key(key), w);
		pfree(key);
	}
}

void
BkPgPushClassWeights(JsonbParseState **ps, const BkModel *m)
{
	BkModelInfo info;

	BkModelGetInfo(m, &info);
	switch (BkModelWeightMode(m))
	{
		case BK_WEIGHT_BALANCED:
			bk_push_string(ps, WJB_VALUE, "balanced");
			break;
		case BK_WEIGHT_EXPLICIT:
			pushJsonbValue(ps, WJB_BEGIN_OBJECT, NULL);
			for (int i = 0; i < BkModelWeightEntries(m); i++)
			{
				int64_t		label;
				const char *text;
				double		w = BkModelWeightEntry(m, i, &label, &text);

				bk_push_key(ps, info.text_labels ? BkPgModelText(m, text) :
							psprintf(INT64_FORMAT, (int64) label));
				bk_push_double(ps, WJB_VALUE, w);
			}
			pushJsonbValue(ps, WJB_END_OBJECT, NULL);
			break;
		default:
			bk_push_null(ps, WJB_VALUE);
	}
}
