/*
 * bk_choices.c
 *	  The names of the values of the choice parameters (all but
 *	  "algorithm", whose names are the learners' own, see bk_learners.c).
 *	  A leaf: the parameter table and the learners' messages both read it,
 *	  and it calls nothing, so neither depends on the other through it.
 */
#include "bk_internal.h"

/* indexed by value - 1: the values are stored in models, never reorder */
static const char *const kernel_names[] = {"rbf", "linear", "poly", NULL};
static const char *const loss_names[] = {"hinge", "ramp", NULL};
static const char *const variant_names[] = {"s", "nn", "p", NULL};
static const char *const maintenance_names[] = {"none", "random", "smallest",
"projection", "projection_best", "merge", "removal", "approx_projection",
"nearest", NULL};
static const char *const update_names[] = {"perceptron", "mira", "nobias_svm", NULL};
static const char *const eval_set_names[] = {"svs", "random", "flip", "all", NULL};
static const char *const output_names[] = {"last", "average", NULL};
static const char *const sv_precision_names[] = {"float8", "float4", NULL};

/* by parameter id; a new choice parameter adds its line here */
static const char *const *const choices_of[BK_P_MAX_ID + 1] = {
	[BK_P_KERNEL] = kernel_names,
	[BK_P_LOSS] = loss_names,
	[BK_P_VARIANT] = variant_names,
	[BK_P_MAINTENANCE] = maintenance_names,
	[BK_P_UPDATE] = update_names,
	[BK_P_EVAL_SET] = eval_set_names,
	[BK_P_OUTPUT] = output_names,
	[BK_P_SV_PRECISION] = sv_precision_names,
};

const char *const *
BkParamChoices(BkParamId id)
{
	return (int) id >= 0 && (int) id <= BK_P_MAX_ID ? choices_of[id] : NULL;
}

const char *
BkParamChoiceName(BkParamId id, int value)
{
	const char *const *names = BkParamChoices(id);

	if (names == NULL || value < 1)
		return "?";
	for (int i = 0; names[i] != NULL; i++)
		if (i + 1 == value)
			return names[i];
	return "?";
}
