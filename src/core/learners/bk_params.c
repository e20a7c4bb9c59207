/*
 * bk_params.c
 *	  The training parameters: one table row each (name, kind, range, the
 *	  BkParams field, default or default rule, the kernels it applies to),
 *	  read by one generic set, get and list.  Which learner takes which
 *	  parameter, and the rules between parameters of one learner, live with
 *	  the learner (BkLearner.params, param_applies, param_defaults,
 *	  check_params).  The jsonb document of bk_train and the parameter
 *	  section of the binary format both go through the table, so a value is
 *	  checked the same way wherever it comes from.
 */
#include "bk_learner.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KER(k)		(1u << (k))
#define ALL_KERNELS (KER(BK_KERNEL_RBF) | KER(BK_KERNEL_LINEAR) | KER(BK_KERNEL_POLY))

/*
 * Largest seed: 2^53 - 1, so that every accepted value is exactly the
 * integer the user wrote (JSON numbers arrive as doubles; 2^53 + 1 would
 * round to 2^53, which is then out of range rather than silently changed).
 */
#define BK_MAX_EXACT_INT 9007199254740991.0

/* The C type of the BkParams field that holds a parameter. */
typedef enum FieldType
{
	F_INT,						/* int: a choice, value = index + 1 */
	F_INT64,
	F_UINT64,
	F_DOUBLE,
	F_BOOL
} FieldType;

typedef struct ParamDesc
{
	const char *name;
	BkParamId	id;
	BkParamKind kind;
	double		min;
	double		max;
	bool		min_exclusive;
	size_t		offset;			/* of its field in BkParams */
	FieldType	field;
	/* taken by every learner; otherwise by those listing it (BkLearner.params) */
	bool		common;
	uint32_t	kernels;		/* KER() mask it applies to */
	double		default_value;	/* unless default_rule */
	/* a default that depends on other parameters (all earlier in the table) */
	double		(*default_rule) (const BkParams *p, int dim);
} ParamDesc;

/* Pegasos' default: merging is derived for the Gaussian kernel (paper 004 §4.3) */
static double
default_maintenance(const BkParams *p, int dim)
{
	return p->kernel == BK_KERNEL_RBF ? BK_MAINT_MERGE : BK_MAINT_PROJECTION;
}

/*
 * BPA-NN; for a novelty detector the one-class SVM on a budget (Pegasos'
 * steps with merging), as BPA learns no novelty
 */
static double
default_algorithm(const BkParams *p, int dim)
{
	return p->novelty ? BK_ALG_PEGASOS : BK_DEFAULT_ALGORITHM;
}

/* LIBSVM's default width */
static double
default_gamma(const BkParams *p, int dim)
{
	return 1.0 / (double) dim;
}

/* paper 002 §4.2: 20 or 200, and at least alpha */
static double
default_beta(const BkParams *p, int dim)
{
	return p->alpha > 20.0 ? p->alpha : 20.0;
}

/* paper 003 Fig. 2: the no-bias SVM rule comes with margin 1 */
static double
default_margin(const BkParams *p, int dim)
{
	return p->update == BK_UPDATE_NOBIAS_SVM ? 1.0 : 0.0;
}

#define FIELD(f, t)	offsetof(BkParams, f), t
#define ANY			true, ALL_KERNELS
#define LEARNER		false, ALL_KERNELS

/*
 * One row per parameter, in the order bk_info lists them and models store
 * them.  Defaults are filled in two passes, choices first, then numbers,
 * each in table order: a default rule reads only parameters before it (or
 * choices).  doc/maintainers.md says how to add a parameter.
 */
static const ParamDesc param_table[] = {
	{"algorithm", BK_P_ALGORITHM, BK_KIND_ENUM, 0, 0, false, FIELD(algorithm, F_INT), ANY, BK_DEFAULT_ALGORITHM, default_algorithm},
	{"budget", BK_P_BUDGET, BK_KIND_INT, 1, BK_MAX_BUDGET, false, FIELD(budget, F_INT64), LEARNER, BK_DEFAULT_BUDGET, NULL},
	{"max_sv", BK_P_MAX_SV, BK_KIND_INT, 1, BK_MAX_BUDGET, false, FIELD(max_sv, F_INT64), LEARNER, BK_DEFAULT_MAX_SV, NULL},
	{"kernel", BK_P_KERNEL, BK_KIND_ENUM, 0, 0, false, FIELD(kernel, F_INT), ANY, BK_KERNEL_RBF, NULL},
	{"gamma", BK_P_GAMMA, BK_KIND_REAL, 0, HUGE_VAL, true, FIELD(gamma, F_DOUBLE), true, KER(BK_KERNEL_RBF) | KER(BK_KERNEL_POLY), 0, default_gamma},
	{"degree", BK_P_DEGREE, BK_KIND_INT, 1, 100, false, FIELD(degree, F_INT64), true, KER(BK_KERNEL_POLY), 3, NULL},
	/* coef0 >= 0 keeps the polynomial kernel positive semi-definite */
	{"coef0", BK_P_COEF0, BK_KIND_REAL, 0, HUGE_VAL, false, FIELD(coef0, F_DOUBLE), true, KER(BK_KERNEL_POLY), 0, NULL},
	{"C", BK_P_C, BK_KIND_REAL, 0, HUGE_VAL, true, FIELD(C, F_DOUBLE), LEARNER, 1, NULL},
	{"loss", BK_P_LOSS, BK_KIND_ENUM, 0, 0, false, FIELD(loss, F_INT), LEARNER, BK_LOSS_HINGE, NULL},
	{"variant", BK_P_VARIANT, BK_KIND_ENUM, 0, 0, false, FIELD(variant, F_INT), LEARNER, BK_VARIANT_NN, NULL},
	{"seed", BK_P_SEED, BK_KIND_INT, 0, BK_MAX_EXACT_INT, false, FIELD(seed, F_UINT64), ANY, 0, NULL},
	/* paper 004 §5 */
	{"lambda", BK_P_LAMBDA, BK_KIND_REAL, 0, HUGE_VAL, true, FIELD(lambda, F_DOUBLE), LEARNER, 1e-4, NULL},
	{"maintenance", BK_P_MAINTENANCE, BK_KIND_ENUM, 0, 0, false, FIELD(maintenance, F_INT), LEARNER, 0, default_maintenance},
	{"ball_projection", BK_P_BALL_PROJECTION, BK_KIND_BOOL, 0, 1, false, FIELD(ball_projection, F_BOOL), LEARNER, 0, NULL},
	{"margin", BK_P_MARGIN, BK_KIND_REAL, 0, HUGE_VAL, false, FIELD(margin, F_DOUBLE), LEARNER, 0, default_margin},
	{"update", BK_P_UPDATE, BK_KIND_ENUM, 0, 0, false, FIELD(update, F_INT), LEARNER, BK_UPDATE_PERCEPTRON, NULL},
	{"eval_set", BK_P_EVAL_SET, BK_KIND_ENUM, 0, 0, false, FIELD(eval_set, F_INT), LEARNER, BK_EVAL_FLIP, NULL},
	{"eval_size", BK_P_EVAL_SIZE, BK_KIND_INT, 1, BK_MAX_BUDGET, false, FIELD(eval_size, F_INT64), LEARNER, 100, NULL},
	/* paper 002 §4.2 */
	{"alpha", BK_P_ALPHA, BK_KIND_REAL, 0, HUGE_VAL, true, FIELD(alpha, F_DOUBLE), LEARNER, 1, NULL},
	{"beta", BK_P_BETA, BK_KIND_REAL, 0, HUGE_VAL, true, FIELD(beta, F_DOUBLE), LEARNER, 0, default_beta},
	{"eta", BK_P_ETA, BK_KIND_REAL, 0, HUGE_VAL, true, FIELD(eta, F_DOUBLE), LEARNER, 1, NULL},
	{"output", BK_P_OUTPUT, BK_KIND_ENUM, 0, 0, false, FIELD(output, F_INT), LEARNER, BK_OUTPUT_AVERAGE, NULL},
	/* paper 001 §2: double update when y_t y_b k(x_t, x_b) <= -rho; §4 sets 0 */
	{"rho", BK_P_RHO, BK_KIND_REAL, 0, 1, false, FIELD(rho, F_DOUBLE), LEARNER, 0, NULL},
	/* Zhao et al. (2012) search gamma in {1, 2, 4, 8, 16}: the middle */
	{"max_coef", BK_P_MAX_COEF, BK_KIND_REAL, 0, HUGE_VAL, true, FIELD(max_coef, F_DOUBLE), LEARNER, 4, NULL},
	/* the relative ridge of the K^-1 kept (bk_internal.h, BK_GRAM_RIDGE) */
	{"ridge", BK_P_RIDGE, BK_KIND_REAL, 0, 1e-2, false, FIELD(ridge, F_DOUBLE), LEARNER, BK_GRAM_RIDGE, NULL},
	/*
	 * regression: the insensitive tube's half-width, in the target's units
	 * after its preparation (Crammer et al. 2006 §4; 0.1 as LIBSVM's SVR)
	 */
	{"epsilon", BK_P_EPSILON, BK_KIND_REAL, 0, HUGE_VAL, false, FIELD(epsilon, F_DOUBLE), LEARNER, 0.1, NULL},
	/*
	 * novelty: the share of the training rows the detector flags, the nu
	 * of the one-class SVM (Schoelkopf et al. 2001) and of NORMA's novelty
	 * detector (Kivinen et al. 2004)
	 */
	{"nu", BK_P_NU, BK_KIND_REAL, 0, 1, true, FIELD(nu, F_DOUBLE), LEARNER, 0.1, NULL},
	/*
	 * the support vectors' storage: "float4" rounds every stored value to
	 * float4 (bk_svstore.c); stored in a model only when it is "float4",
	 * so that the models of before it keep their bytes
	 */
	{"sv_precision", BK_P_SV_PRECISION, BK_KIND_ENUM, 0, 0, false, FIELD(sv_precision, F_INT), ANY, BK_SV_FLOAT8, NULL},
};

#define N_PARAMS ((int) (sizeof(param_table) / sizeof(param_table[0])))

static const ParamDesc *
find_by_name(const char *key)
{
	for (int i = 0; i < N_PARAMS; i++)
		if (strcmp(param_table[i].name, key) == 0)
			return &param_table[i];
	return NULL;
}

static const ParamDesc *
find_by_id(int id)
{
	for (int i = 0; i < N_PARAMS; i++)
		if ((int) param_table[i].id == id)
			return &param_table[i];
	return NULL;
}

/* Choice i (from 0) of an enum parameter, NULL past the last. */
static const char *
choice_at(const ParamDesc *d, int i)
{
	/* the algorithms are the registered learners, in id order */
	if (d->id == BK_P_ALGORITHM)
	{
		const BkLearner *l = BkLearnerAt(i);

		return l != NULL ? l->name : NULL;
	}
	return BkParamChoices(d->id)[i];
}

static int
count_choices(const ParamDesc *d)
{
	int			n = 0;

	while (choice_at(d, n) != NULL)
		n++;
	return n;
}

/* Append to buf (len bytes), keeping it terminated when it fills up. */
static void
append(char *buf, size_t len, size_t *used, const char *sep, const char *s,
	   const char *quote)
{
	int			n;

	if (*used >= len)
		return;
	n = snprintf(buf + *used, len - *used, "%s%s%s%s", sep, quote, s, quote);
	*used = n < 0 ? len : (*used + (size_t) n < len ? *used + (size_t) n : len);
}

/* "a", "b", "c" */
static void
list_choices(const ParamDesc *d, char *buf, size_t len)
{
	size_t		used = 0;
	const char *c;

	buf[0] = '\0';
	for (int i = 0; (c = choice_at(d, i)) != NULL; i++)
		append(buf, len, &used, i > 0 ? ", " : "", c, "\"");
}

/*
 * Keys of the parameters that are not the learner's settings, read before
 * the table: by the caller ("classes", a list of labels; "epochs", the
 * passes; "class_weight") or by the preparation ("scale", "impute",
 * "max_levels", bk_prep.c)
 */
static const char *const other_keys[] = {
	"classes", "epochs", "class_weight", "scale", "impute", "max_levels",
	"target_scale"
};
#define N_OTHER_KEYS ((int) (sizeof(other_keys) / sizeof(other_keys[0])))

static void
list_names(char *buf, size_t len)
{
	size_t		used = 0;

	buf[0] = '\0';
	for (int i = 0; i < N_PARAMS; i++)
		append(buf, len, &used, i > 0 ? ", " : "", param_table[i].name, "");
	for (int i = 0; i < N_OTHER_KEYS; i++)
		append(buf, len, &used, ", ", other_keys[i], "");
}

/*
 * Levenshtein's distance between a and b, ASCII letters compared without
 * case, or max + 1 once it must exceed max (keys are short)
 */
static int
edit_distance(const char *a, const char *b, int max)
{
	int			la = (int) strlen(a),
				lb = (int) strlen(b);
	int			row[64];

	if (la >= 64 || lb >= 64 || abs(la - lb) > max)
		return max + 1;
	for (int j = 0; j <= lb; j++)
		row[j] = j;
	for (int i = 1; i <= la; i++)
	{
		int			diag = row[0];

		row[0] = i;
		for (int j = 1; j <= lb; j++)
		{
			int			up = row[j];
			int			same = tolower((unsigned char) a[i - 1]) == tolower((unsigned char) b[j - 1]);
			int			best = diag + (same ? 0 : 1);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* the known key nearest to key, if it is a likely typo of it; NULL if none */
static const char *
nearest_name(const char *key)
{
	const char *best = NULL;
	int			max = strlen(key) <= 4 ? 1 : 2;
	int			dist = max + 1;

	for (int i = 0; i < N_PARAMS + N_OTHER_KEYS; i++)
	{
		const char *name = i < N_PARAMS ? param_table[i].name : other_keys[i - N_PARAMS];
		int			d = edit_distance(key, name, max);

		if (d < dist)
		{
			dist = d;
			best = name;
		}
	}
	return best;
}

/*
 * The value of an integer, choice or boolean parameter d, read from its
 * field without a round trip through double.
 */
static int64_t
fetch_integer(const BkParams *p, const ParamDesc *d)
{
	const char *field = (const char *) p + d->offset;

	switch (d->field)
	{
		case F_INT:
			return *(const int *) field;
		case F_INT64:
			return *(const int64_t *) field;
		case F_UINT64:
			/* in range, at most 2^53 - 1: the same value */
			return (int64_t) *(const uint64_t *) field;
		case F_BOOL:
			return *(const bool *) field ? 1 : 0;
		case F_DOUBLE:
			break;
	}
	return 0;
}

/* Set the field of parameter d to v (a choice's value for enums). */
static void
store_value(BkParams *p, const ParamDesc *d, double v)
{
	char	   *field = (char *) p + d->offset;

	switch (d->field)
	{
		case F_INT:
			*(int *) field = (int) v;
			break;
		case F_INT64:
			*(int64_t *) field = (int64_t) v;
			break;
		case F_UINT64:
			*(uint64_t *) field = (uint64_t) v;
			break;
		case F_DOUBLE:
			*(double *) field = v;
			break;
		case F_BOOL:
			*(bool *) field = v != 0.0;
			break;
	}
}

/* The field of parameter d (a choice's value for enums). */
static double
fetch_value(const BkParams *p, const ParamDesc *d)
{
	const char *field = (const char *) p + d->offset;

	switch (d->field)
	{
		case F_INT:
			return (double) *(const int *) field;
		case F_INT64:
			return (double) *(const int64_t *) field;
		case F_UINT64:
			return (double) *(const uint64_t *) field;
		case F_DOUBLE:
			return *(const double *) field;
		case F_BOOL:
			return *(const bool *) field ? 1.0 : 0.0;
	}
	return 0;
}

/* Set parameter d as given by the user (or by a stored model). */
static void
give(BkParams *p, const ParamDesc *d, double v)
{
	store_value(p, d, v);
	p->given |= BK_PARAM_BIT(d->id);
}

void
BkParamsInit(BkParams *p)
{
	memset(p, 0, sizeof(*p));
}

/* Check a number against the descriptor's range; message on failure. */
static bool
check_number(const ParamDesc *d, double v, char *err, size_t errlen)
{
	bool		low;

	if (d->kind == BK_KIND_INT)
	{
		if (!isfinite(v) || v != floor(v) || v < d->min || v > d->max)
		{
			if (isfinite(v) && v == floor(v) && fabs(v) < 1e18)
				snprintf(err, errlen,
						 "parameter \"%s\" must be an integer between %.0f and %.0f, got %.0f",
						 d->name, d->min, d->max, v);
			else
				snprintf(err, errlen,
						 "parameter \"%s\" must be an integer between %.0f and %.0f, got %.15g",
						 d->name, d->min, d->max, v);
			return false;
		}
		return true;
	}
	low = d->min_exclusive ? !(v > d->min) : !(v >= d->min);
	if (!isfinite(v) || low || v > d->max)
	{
		if (isfinite(d->max))
			snprintf(err, errlen,
					 "parameter \"%s\" must be a number %s %g and <= %g, got %.15g",
					 d->name, d->min_exclusive ? ">" : ">=", d->min, d->max, v);
		else
			snprintf(err, errlen,
					 "parameter \"%s\" must be a finite number %s %g, got %.15g",
					 d->name, d->min_exclusive ? ">" : ">=", d->min, v);
		return false;
	}
	return true;
}

bool
BkParamsSet(BkParams *p, const char *key, const BkParamInput *in,
			char *err, size_t errlen)
{
	const ParamDesc *d = find_by_name(key);
	const char *want;
	const char *got;

	if (d == NULL)
	{
		char		names[BK_ERRMSG_LEN];

		const char *near = nearest_name(key);

		list_names(names, sizeof(names));
		if (near != NULL)
			snprintf(err, errlen, "unknown parameter \"%s\": did you mean \"%s\"? (allowed: %s)",
					 key, near, names);
		else
			snprintf(err, errlen, "unknown parameter \"%s\" (allowed: %s)",
					 key, names);
		return false;
	}

	want = d->kind == BK_KIND_ENUM ? "a string" :
		d->kind == BK_KIND_INT ? "an integer" :
		d->kind == BK_KIND_BOOL ? "a boolean" : "a number";
	got = in->type == BK_IN_NUMBER ? "a number" :
		in->type == BK_IN_STRING ? "a string" :
		in->type == BK_IN_BOOLEAN ? "a boolean" :
		in->type_name == NULL ? "another type" :
		strcmp(in->type_name, "array") == 0 ? "an array" :
		strcmp(in->type_name, "object") == 0 ? "an object" :
		strcmp(in->type_name, "boolean") == 0 ? "a boolean" : in->type_name;

	if (d->kind == BK_KIND_ENUM)
	{
		char		choices[BK_ERRMSG_LEN];
		const char *c;

		if (in->type != BK_IN_STRING)
		{
			list_choices(d, choices, sizeof(choices));
			snprintf(err, errlen,
					 "parameter \"%s\" must be a string, one of %s, not %s",
					 d->name, choices, got);
			return false;
		}
		for (int i = 0; (c = choice_at(d, i)) != NULL; i++)
			if (strcmp(c, in->string) == 0)
			{
				give(p, d, i + 1);
				return true;
			}
		list_choices(d, choices, sizeof(choices));
		snprintf(err, errlen, "parameter \"%s\" must be one of %s, got \"%s\"",
				 d->name, choices, in->string);
		return false;
	}

	if (d->kind == BK_KIND_BOOL)
	{
		if (in->type != BK_IN_BOOLEAN)
		{
			snprintf(err, errlen, "parameter \"%s\" must be a boolean, not %s",
					 d->name, got);
			return false;
		}
		give(p, d, in->boolean ? 1.0 : 0.0);
		return true;
	}
	if (in->type != BK_IN_NUMBER)
	{
		snprintf(err, errlen, "parameter \"%s\" must be %s, not %s",
				 d->name, want, got);
		return false;
	}
	if (!check_number(d, in->number, err, errlen))
		return false;
	give(p, d, in->number);
	return true;
}

/*
 * Whether parameter d applies to p's learner and kernel; if not and why is
 * not NULL, why says so.
 */
static bool
applies(const ParamDesc *d, const BkParams *p, char *why, size_t whylen)
{
	const BkLearner *l = BkLearnerOf(p);
	const char *algorithm = l->name;
	const char *kernel = BkParamChoiceName(BK_P_KERNEL, p->kernel);
	char		names[BK_ERRMSG_LEN];
	size_t		used = 0;

	/*
	 * The task's own: "epsilon" is a regressor's; "loss" chooses between a
	 * classifier's hinge and ramp losses (a regressor's is the
	 * epsilon-insensitive loss)
	 */
	if ((d->id == BK_P_EPSILON && !p->regression) ||
		(d->id == BK_P_LOSS && p->regression))
	{
		if (why != NULL)
			snprintf(why, whylen, d->id == BK_P_EPSILON ?
					 "parameter \"epsilon\" applies to regression only (a float8 target)" :
					 "parameter \"loss\" does not apply to regression (its loss is the epsilon-insensitive loss: set \"epsilon\")");
		return false;
	}
	if ((d->id == BK_P_NU && !p->novelty) || (d->id == BK_P_LOSS && p->novelty))
	{
		if (why != NULL)
			snprintf(why, whylen, d->id == BK_P_NU ?
					 "parameter \"nu\" applies to novelty detection only (\"task\": \"novelty\")" :
					 "parameter \"loss\" does not apply to novelty detection (set \"nu\", the share of rows flagged)");
		return false;
	}
	if (d->common || (l->params & BK_PARAM_BIT(d->id)))
	{
		if (!(d->kernels & KER(p->kernel)))
		{
			if (why == NULL)
				return false;
			snprintf(why, whylen,
					 "parameter \"%s\" does not apply to kernel \"%s\" (parameters of algorithm \"%s\" with this kernel: ",
					 d->name, kernel, algorithm);
		}
		else
			return l->param_applies == NULL || d->common ||
				l->param_applies(p, d->id, why, whylen);
	}
	else
	{
		if (why == NULL)
			return false;
		snprintf(why, whylen,
				 "parameter \"%s\" does not apply to algorithm \"%s\" (its parameters with kernel \"%s\": ",
				 d->name, algorithm, kernel);
	}
	/* name the parameters that do apply */
	names[0] = '\0';
	for (int j = 0; j < N_PARAMS; j++)
		if (applies(&param_table[j], p, NULL, 0))
			append(names, sizeof(names), &used, used > 0 ? ", " : "",
				   param_table[j].name, "");
	used = strlen(why);
	append(why, whylen, &used, "", names, "");
	append(why, whylen, &used, "", ")", "");
	return false;
}

/* Fill in the defaults of one kind of parameter the user did not give. */
static void
fill_defaults(BkParams *p, int dim, bool choices)
{
	for (int i = 0; i < N_PARAMS; i++)
	{
		const ParamDesc *d = &param_table[i];

		if ((d->kind == BK_KIND_ENUM) != choices || BkParamGiven(p, d->id))
			continue;
		store_value(p, d, d->default_rule ? d->default_rule(p, dim) :
					d->default_value);
	}
}

/*
 * Fill in defaults, refuse parameters that do not apply, check the rules
 * between parameters.  stored: the parameters of a stored model (which
 * must stay readable even where new models are refused).
 */
static bool
finish(BkParams *p, int dim, bool stored, char *err, size_t errlen)
{
	const BkLearner *l;

	if (!BkParamGiven(p, BK_P_GAMMA) && dim < 1)
	{
		snprintf(err, errlen, "dimension must be positive to default gamma");
		return false;
	}
	/* the choices first: applicability and some defaults depend on them */
	fill_defaults(p, dim, true);
	fill_defaults(p, dim, false);
	l = BkLearnerOf(p);
	if ((p->regression && !l->regression) || (p->novelty && !l->novelty))
	{
		char		names[BK_ERRMSG_LEN];
		size_t		used = 0;
		const BkLearner *o;

		names[0] = '\0';
		for (int i = 0; (o = BkLearnerAt(i)) != NULL; i++)
			if (p->regression ? o->regression : o->novelty)
				append(names, sizeof(names), &used, used > 0 ? ", " : "",
					   o->name, "");
		snprintf(err, errlen,
				 "algorithm \"%s\" does not learn %s; the algorithms that do: %s",
				 l->name, p->regression ? "regression (a float8 target)" :
				 "novelty detection (rows without a label)", names);
		return false;
	}
	if (l->param_defaults)
		l->param_defaults(p);

	for (int i = 0; i < N_PARAMS; i++)
	{
		const ParamDesc *d = &param_table[i];

		if (BkParamGiven(p, d->id) && !applies(d, p, err, errlen))
			return false;
	}
	return l->check_params == NULL || l->check_params(p, stored, err, errlen);
}

bool
BkParamsFinish(BkParams *p, int dim, char *err, size_t errlen)
{
	return finish(p, dim, false, err, errlen);
}

int
BkParamsList(const BkParams *p, BkParamValue *out, int maxout)
{
	int			n = 0;

	for (int i = 0; i < N_PARAMS && n < maxout; i++)
	{
		const ParamDesc *d = &param_table[i];

		if (!applies(d, p, NULL, 0))
			continue;
		out[n].key = d->name;
		out[n].is_string = d->kind == BK_KIND_ENUM;
		out[n].is_integer = d->kind == BK_KIND_INT;
		out[n].is_boolean = d->kind == BK_KIND_BOOL;
		if (d->kind == BK_KIND_ENUM)
		{
			int			c = (int) fetch_value(p, d);

			out[n].string = (c >= 1 && c <= count_choices(d)) ?
				choice_at(d, c - 1) : "?";
			out[n].number = 0;
		}
		else
		{
			out[n].string = NULL;
			out[n].number = fetch_value(p, d);
		}
		n++;
	}
	return n;
}

/*
 * Change one parameter of finished parameters, for a stored model trained
 * further: "seed" and the learner's params_mutable, set and checked as
 * bk_train's are, then the learner's rules between parameters.
 */
bool
BkParamsOverride(BkParams *p, const char *key, const BkParamInput *in,
				 char *err, size_t errlen)
{
	const BkLearner *l = BkLearnerOf(p);
	const ParamDesc *d = find_by_name(key);
	BkParams	q = *p;

	if (d == NULL || !applies(d, p, NULL, 0) ||
		!(d->id == BK_P_SEED || (l->params_mutable & BK_PARAM_BIT(d->id))))
	{
		char		names[BK_ERRMSG_LEN];
		size_t		used = 0;

		names[0] = '\0';
		for (int i = 0; i < N_PARAMS; i++)
		{
			const ParamDesc *e = &param_table[i];

			if (applies(e, p, NULL, 0) &&
				(e->id == BK_P_SEED || (l->params_mutable & BK_PARAM_BIT(e->id))))
				append(names, sizeof(names), &used, used > 0 ? ", " : "",
					   e->name, "");
		}
		if (d == NULL)
			snprintf(err, errlen,
					 "unknown parameter \"%s\" (those of algorithm \"%s\" that can change when a model is trained further: %s)",
					 key, l->name, names);
		else
			snprintf(err, errlen,
					 "parameter \"%s\" cannot change when a model of algorithm \"%s\" is trained further (these can: %s)",
					 key, l->name, names);
		return false;
	}
	if (!BkParamsSet(&q, key, in, err, errlen))
		return false;
	if (l->check_params != NULL && !l->check_params(&q, false, err, errlen))
		return false;
	*p = q;
	return true;
}

const char *
BkAlgorithmName(const BkParams *p)
{
	const BkLearner *l = p->algorithm >= 1 ? BkLearnerAt(p->algorithm - 1) : NULL;

	return l != NULL ? l->name : "?";
}

/* budgeted: the budget applies (Pegasos: with a maintenance other than "none") */
bool
BkParamsBudgeted(const BkParams *p)
{
	return applies(find_by_id(BK_P_BUDGET), p, NULL, 0);
}

/*
 * The parameters of a finished BkParams that apply to its algorithm and
 * kernel, as the binary format stores them.
 */
int
BkParamsToStored(const BkParams *p, BkStoredParam *out, int maxout)
{
	int			n = 0;

	for (int i = 0; i < N_PARAMS && n < maxout; i++)
	{
		const ParamDesc *d = &param_table[i];
		if (!applies(d, p, NULL, 0))
			continue;
		/* float8 support vectors, the default, go unsaid (the table's note) */
		if (d->id == BK_P_SV_PRECISION && p->sv_precision == BK_SV_FLOAT8)
			continue;
		out[n].id = (uint16_t) d->id;
		out[n].kind = (uint16_t) d->kind;
		if (d->kind == BK_KIND_REAL)
		{
			double		v = fetch_value(p, d);

			memcpy(&out[n].bits, &v, sizeof(v));
		}
		else
		{
			/*
			 * a choice's value, 0 or 1, or an integer (two's complement),
			 * read from its field as an integer: a real parameter's value
			 * is never converted to one (out of range, that is undefined)
			 */
			int64_t		iv = fetch_integer(p, d);

			memcpy(&out[n].bits, &iv, sizeof(iv));
		}
		n++;
	}
	return n;
}

/*
 * Rebuild parameters from the binary format: every id known and present
 * once, of the right kind, in range, and exactly the set that applies to
 * the algorithm and kernel (a model must carry everything it was trained
 * with).
 */
bool
BkParamsFromStored(BkParams *p, const BkStoredParam *in, int n,
				   bool regression, bool novelty, char *err, size_t errlen)
{
	uint64_t	seen = 0;

	BkParamsInit(p);
	p->regression = regression;
	p->novelty = novelty;
	for (int i = 0; i < n; i++)
	{
		const ParamDesc *d = find_by_id(in[i].id);

		if (d == NULL)
		{
			snprintf(err, errlen, "unknown parameter id %u", in[i].id);
			return false;
		}
		if (seen & BK_PARAM_BIT(d->id))
		{
			snprintf(err, errlen, "parameter \"%s\" stored twice", d->name);
			return false;
		}
		seen |= BK_PARAM_BIT(d->id);
		if (in[i].kind != d->kind)
		{
			snprintf(err, errlen, "parameter \"%s\" stored with kind %u",
					 d->name, in[i].kind);
			return false;
		}
		if (d->kind == BK_KIND_BOOL || d->kind == BK_KIND_ENUM)
		{
			uint64_t	last = d->kind == BK_KIND_BOOL ? 1 :
				(uint64_t) count_choices(d);
			uint64_t	first = d->kind == BK_KIND_BOOL ? 0 : 1;

			if (in[i].bits < first || in[i].bits > last)
			{
				snprintf(err, errlen, "parameter \"%s\" has invalid value %llu",
						 d->name, (unsigned long long) in[i].bits);
				return false;
			}
			give(p, d, (double) in[i].bits);
		}
		else
		{
			double		v;

			if (d->kind == BK_KIND_INT)
			{
				int64_t		iv;

				memcpy(&iv, &in[i].bits, sizeof(iv));
				v = (double) iv;
			}
			else
				memcpy(&v, &in[i].bits, sizeof(v));
			if (!check_number(d, v, err, errlen))
				return false;
			give(p, d, v);
		}
	}

	if (!(seen & BK_PARAM_BIT(BK_P_ALGORITHM)) || !(seen & BK_PARAM_BIT(BK_P_KERNEL)))
	{
		snprintf(err, errlen, "algorithm or kernel missing");
		return false;
	}
	for (int i = 0; i < N_PARAMS; i++)
	{
		const ParamDesc *d = &param_table[i];
		bool		present = (seen & BK_PARAM_BIT(d->id)) != 0;

		/*
		 * A parameter added after a model was stored: the model was trained
		 * with its learner's value of then ("ridge": BkLearner.legacy_ridge)
		 */
		if (!present && d->id == BK_P_RIDGE && applies(d, p, NULL, 0))
		{
			give(p, d, BkLearnerOf(p)->legacy_ridge);
			continue;
		}
		/* stored only when "float4": one encoding for each model */
		if (d->id == BK_P_SV_PRECISION)
		{
			if (present && p->sv_precision != BK_SV_FLOAT4)
			{
				snprintf(err, errlen, "parameter \"sv_precision\" stored with its default value");
				return false;
			}
			continue;
		}
		if (present != applies(d, p, NULL, 0))
		{
			snprintf(err, errlen, "parameter \"%s\" %s", d->name,
					 present ? "stored but does not apply" : "missing");
			return false;
		}
	}
	/* fill the fields that do not apply with their defaults */
	return finish(p, 1, true, err, errlen);
}
