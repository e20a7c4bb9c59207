/*
 * bk_overrides.c
 *	  The overrides document of bk_continue(features, label, model,
 *	  overrides): what may change when a stored model is trained further.
 *	  "allow_new_classes" and "epochs" are about this run; "class_weight"
 *	  sets the class weights anew (bk_class_weights.c); every other key
 *	  is a parameter of the model's learner that may change (its step size,
 *	  its bound on the next steps, its regulariser, "seed"), which the core
 *	  checks and records in the model.
 *
 * Calls flow one way: the values of the document are read as parameter
 * values are (bk_params_jsonb.c), which knows nothing of overrides.
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "bk_pg_train.h"

void
BkPgOverridesFromJsonb(Jsonb *jb, BkOverrides *o, BkModel *m)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	int			depth = 0;

	memset(o, 0, sizeof(*o));
	o->epochs = 1;
	if (!JB_ROOT_IS_OBJECT(jb) || JB_ROOT_IS_SCALAR(jb))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("overrides must be a JSON object"),
				 errhint("For example '{\"allow_new_classes\": true}'.")));

	it = JsonbIteratorInit(&jb->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		char	   *key;

		if (tok == WJB_BEGIN_OBJECT)
			depth++;
		if (tok != WJB_KEY || depth != 1)
			continue;
		key = pnstrdup(v.val.string.val, v.val.string.len);
		tok = JsonbIteratorNext(&it, &v, true);
		if (strcmp(key, "epochs") == 0)
		{
			o->epochs = BkPgEpochsFromJsonb(&v, "overrides");
			continue;
		}
		/* the model's own task (bk_train_model_trans checks it) */
		if (strcmp(key, "task") == 0)
			continue;
		if (strcmp(key, "class_weight") == 0)
		{
			BkModelInfo info;

			BkModelGetInfo(m, &info);
			BkPgApplyClassWeights(m, JsonbValueToJsonb(&v), info.text_labels);
			continue;
		}
		if (strcmp(key, "allow_new_classes") != 0)
		{
			BkParamInput in;
			char		err[BK_ERRMSG_LEN];

			BkPgParamInput(&v, &in);
			err[0] = '\0';
			if (!BkModelOverride(m, key, &in, err, sizeof(err)))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s", err[0] ? err : "invalid override"),
						 errhint("Overrides take \"allow_new_classes\", \"epochs\", \"class_weight\", and the parameters of the model's learner that can change.")));
			continue;
		}
		if (v.type != jbvBool)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("override \"allow_new_classes\" must be a boolean")));
		o->allow_new_classes = v.val.boolean;
	}
}
