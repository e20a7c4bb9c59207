/*
 * bk_params.c
 *	  The training parameters: names, types, ranges, defaults, and which
 *	  algorithm or kernel each applies to.  The jsonb document of bk_train
 *	  and the parameter section of the binary format both go through the
 *	  table below, so a value is checked the same way wherever it comes from.
 */
#include "bk_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define ALG(a)		(1u << (a))
#define ALL_ALGS	(ALG(BK_ALG_PERCEPTRON) | ALG(BK_ALG_PA) | ALG(BK_ALG_BPA) | \
					 ALG(BK_ALG_PEGASOS) | ALG(BK_ALG_STOPTRON) | ALG(BK_ALG_RBP) | \
					 ALG(BK_ALG_PA_RANDOM) | ALG(BK_ALG_BUDGET_PERCEPTRON) | \
					 ALG(BK_ALG_TIGHTER_BUDGET_PERCEPTRON) | ALG(BK_ALG_SPA) | ALG(BK_ALG_OGD) | \
					 ALG(BK_ALG_DUOL) | ALG(BK_ALG_BDUOL) | ALG(BK_ALG_BOGD) | \
					 ALG(BK_ALG_FORGETRON) | ALG(BK_ALG_PROJECTRON) | ALG(BK_ALG_PROJECTRON_PP))
/* double updating (paper 001): C and rho */
#define DUOL_ALGS	(ALG(BK_ALG_DUOL) | ALG(BK_ALG_BDUOL))
/* the budget perceptrons of paper 003: margin, update rule */
#define BP_ALGS		(ALG(BK_ALG_BUDGET_PERCEPTRON) | ALG(BK_ALG_TIGHTER_BUDGET_PERCEPTRON))
/* learners with a fixed budget B of SVs */
#define BUDGET_ALGS (ALG(BK_ALG_BPA) | ALG(BK_ALG_PEGASOS) | ALG(BK_ALG_STOPTRON) | \
					 ALG(BK_ALG_RBP) | ALG(BK_ALG_PA_RANDOM) | ALG(BK_ALG_BUDGET_PERCEPTRON) | \
					 ALG(BK_ALG_TIGHTER_BUDGET_PERCEPTRON) | ALG(BK_ALG_BDUOL) | \
					 ALG(BK_ALG_BOGD) | \
					 ALG(BK_ALG_FORGETRON) | ALG(BK_ALG_PROJECTRON) | ALG(BK_ALG_PROJECTRON_PP))
/* Passive-Aggressive learners: C and the loss */
#define PA_ALGS		(ALG(BK_ALG_PA) | ALG(BK_ALG_BPA) | ALG(BK_ALG_PA_RANDOM))
#define KER(k)		(1u << (k))
#define GIVEN(id)	(UINT64_C(1) << (id))
#define ALL_KERNELS (KER(BK_KERNEL_RBF) | KER(BK_KERNEL_LINEAR) | KER(BK_KERNEL_POLY))

/*
 * Largest seed: 2^53 - 1, so that every accepted value is exactly the
 * integer the user wrote (JSON numbers arrive as doubles; 2^53 + 1 would
 * round to 2^53, which is then out of range rather than silently changed).
 */
#define BK_MAX_EXACT_INT 9007199254740991.0

/* the smallest lambda a new Pegasos model takes (see finish) */
#define BK_MIN_PEGASOS_LAMBDA 1e-100

/* indexed by BkAlgorithm - 1 */
static const char *const algorithm_names[] = {"perceptron", "pa", "bpa", "pegasos",
"stoptron", "rbp", "pa_random", "budget_perceptron", "tighter_budget_perceptron",
"spa", "ogd", "duol", "bduol", "bogd", "forgetron", "projectron", "projectron_pp",
NULL};
static const char *const output_names[] = {"last", "average", NULL};
static const char *const eval_set_names[] = {"svs", "random", "flip", "all", NULL};
static const char *const update_names[] = {"perceptron", "mira", "nobias_svm", NULL};
static const char *const kernel_names[] = {"rbf", "linear", "poly", NULL};
static const char *const loss_names[] = {"hinge", "ramp", NULL};
static const char *const variant_names[] = {"s", "nn", "p", NULL};
static const char *const maintenance_names[] = {"none", "random", "smallest",
"projection", "projection_best", "merge", "removal", "approx_projection",
"nearest", NULL};

typedef struct ParamDesc
{
	const char *name;
	BkParamId	id;
	BkParamKind kind;
	double		min;
	double		max;
	bool		min_exclusive;
	const char *const *choices; /* BK_KIND_ENUM: value = index + 1 */
	uint32_t	algorithms;		/* ALG() mask it applies to */
	uint32_t	kernels;		/* KER() mask it applies to */
} ParamDesc;

static const ParamDesc param_table[] = {
	{"algorithm", BK_P_ALGORITHM, BK_KIND_ENUM, 0, 0, false, algorithm_names, ALL_ALGS, ALL_KERNELS},
	/* pegasos: budget with a maintenance strategy, max_sv with "none" */
	{"budget", BK_P_BUDGET, BK_KIND_INT, 1, BK_MAX_BUDGET, false, NULL, BUDGET_ALGS, ALL_KERNELS},
	{"max_sv", BK_P_MAX_SV, BK_KIND_INT, 1, BK_MAX_BUDGET, false, NULL, ALG(BK_ALG_PERCEPTRON) | ALG(BK_ALG_PA) | ALG(BK_ALG_PEGASOS) | ALG(BK_ALG_SPA) | ALG(BK_ALG_OGD) | ALG(BK_ALG_DUOL), ALL_KERNELS},
	{"kernel", BK_P_KERNEL, BK_KIND_ENUM, 0, 0, false, kernel_names, ALL_ALGS, ALL_KERNELS},
	{"gamma", BK_P_GAMMA, BK_KIND_REAL, 0, HUGE_VAL, true, NULL, ALL_ALGS, KER(BK_KERNEL_RBF) | KER(BK_KERNEL_POLY)},
	{"degree", BK_P_DEGREE, BK_KIND_INT, 1, 100, false, NULL, ALL_ALGS, KER(BK_KERNEL_POLY)},
	/* coef0 >= 0 keeps the polynomial kernel positive semi-definite */
	{"coef0", BK_P_COEF0, BK_KIND_REAL, 0, HUGE_VAL, false, NULL, ALL_ALGS, KER(BK_KERNEL_POLY)},
	/* budget_perceptron: C with update "nobias_svm" only (see applies) */
	{"C", BK_P_C, BK_KIND_REAL, 0, HUGE_VAL, true, NULL, PA_ALGS | BP_ALGS | DUOL_ALGS, ALL_KERNELS},
	{"loss", BK_P_LOSS, BK_KIND_ENUM, 0, 0, false, loss_names, PA_ALGS, ALL_KERNELS},
	{"variant", BK_P_VARIANT, BK_KIND_ENUM, 0, 0, false, variant_names, ALG(BK_ALG_BPA), ALL_KERNELS},
	{"seed", BK_P_SEED, BK_KIND_INT, 0, BK_MAX_EXACT_INT, false, NULL, ALL_ALGS, ALL_KERNELS},
	{"lambda", BK_P_LAMBDA, BK_KIND_REAL, 0, HUGE_VAL, true, NULL, ALG(BK_ALG_PEGASOS) | ALG(BK_ALG_BOGD), ALL_KERNELS},
	/* which choices each algorithm takes: maintenance_allowed() */
	{"maintenance", BK_P_MAINTENANCE, BK_KIND_ENUM, 0, 0, false, maintenance_names, ALG(BK_ALG_PEGASOS) | ALG(BK_ALG_BDUOL), ALL_KERNELS},
	{"ball_projection", BK_P_BALL_PROJECTION, BK_KIND_BOOL, 0, 1, false, NULL, ALG(BK_ALG_PEGASOS), ALL_KERNELS},
	{"margin", BK_P_MARGIN, BK_KIND_REAL, 0, HUGE_VAL, false, NULL, BP_ALGS, ALL_KERNELS},
	{"update", BK_P_UPDATE, BK_KIND_ENUM, 0, 0, false, update_names, BP_ALGS, ALL_KERNELS},
	{"eval_set", BK_P_EVAL_SET, BK_KIND_ENUM, 0, 0, false, eval_set_names, ALG(BK_ALG_TIGHTER_BUDGET_PERCEPTRON), ALL_KERNELS},
	/* eval_set "svs": the SVs are the set, so no size (see applies) */
	{"eval_size", BK_P_EVAL_SIZE, BK_KIND_INT, 1, BK_MAX_BUDGET, false, NULL, ALG(BK_ALG_TIGHTER_BUDGET_PERCEPTRON), ALL_KERNELS},
	{"alpha", BK_P_ALPHA, BK_KIND_REAL, 0, HUGE_VAL, true, NULL, ALG(BK_ALG_SPA), ALL_KERNELS},
	{"beta", BK_P_BETA, BK_KIND_REAL, 0, HUGE_VAL, true, NULL, ALG(BK_ALG_SPA), ALL_KERNELS},
	/* projectron_pp: the threshold of its margin-error updates; (b)ogd: the step */
	{"eta", BK_P_ETA, BK_KIND_REAL, 0, HUGE_VAL, true, NULL, ALG(BK_ALG_SPA) | ALG(BK_ALG_OGD) | ALG(BK_ALG_PROJECTRON_PP) | ALG(BK_ALG_BOGD), ALL_KERNELS},
	{"output", BK_P_OUTPUT, BK_KIND_ENUM, 0, 0, false, output_names, ALG(BK_ALG_SPA), ALL_KERNELS},
	/* paper 001 §2: double update when y_t y_b k(x_t, x_b) <= -rho, rho in [0, 1) */
	{"rho", BK_P_RHO, BK_KIND_REAL, 0, 1, false, NULL, DUOL_ALGS, ALL_KERNELS},
	/* BOGD's bound gamma on the coefficients: |alpha_i| <= gamma eta */
	{"max_coef", BK_P_MAX_COEF, BK_KIND_REAL, 0, HUGE_VAL, true, NULL, ALG(BK_ALG_BOGD), ALL_KERNELS},
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

static int
count_choices(const char *const *choices)
{
	int			n = 0;

	while (choices[n] != NULL)
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
list_choices(const char *const *choices, char *buf, size_t len)
{
	size_t		used = 0;

	buf[0] = '\0';
	for (int i = 0; choices[i] != NULL; i++)
		append(buf, len, &used, i > 0 ? ", " : "", choices[i], "\"");
}

static void
list_names(char *buf, size_t len)
{
	size_t		used = 0;

	buf[0] = '\0';
	for (int i = 0; i < N_PARAMS; i++)
		append(buf, len, &used, i > 0 ? ", " : "", param_table[i].name, "");
	/* read by the caller before the table: a list of labels */
	append(buf, len, &used, ", ", "classes", "");
}

/* Field of p that holds parameter id. */
static void
store_value(BkParams *p, BkParamId id, double num, int choice)
{
	switch (id)
	{
		case BK_P_ALGORITHM:
			p->algorithm = choice;
			break;
		case BK_P_KERNEL:
			p->kernel = choice;
			break;
		case BK_P_LOSS:
			p->loss = choice;
			break;
		case BK_P_VARIANT:
			p->variant = choice;
			break;
		case BK_P_MAINTENANCE:
			p->maintenance = choice;
			break;
		case BK_P_LAMBDA:
			p->lambda = num;
			break;
		case BK_P_BALL_PROJECTION:
			p->ball_projection = num != 0.0;
			break;
		case BK_P_MARGIN:
			p->margin = num;
			break;
		case BK_P_UPDATE:
			p->update = choice;
			break;
		case BK_P_EVAL_SET:
			p->eval_set = choice;
			break;
		case BK_P_EVAL_SIZE:
			p->eval_size = (int64_t) num;
			break;
		case BK_P_ALPHA:
			p->alpha = num;
			break;
		case BK_P_BETA:
			p->beta = num;
			break;
		case BK_P_ETA:
			p->eta = num;
			break;
		case BK_P_OUTPUT:
			p->output = choice;
			break;
		case BK_P_RHO:
			p->rho = num;
			break;
		case BK_P_MAX_COEF:
			p->max_coef = num;
			break;
		case BK_P_BUDGET:
			p->budget = (int64_t) num;
			break;
		case BK_P_MAX_SV:
			p->max_sv = (int64_t) num;
			break;
		case BK_P_DEGREE:
			p->degree = (int64_t) num;
			break;
		case BK_P_SEED:
			p->seed = (uint64_t) num;
			break;
		case BK_P_GAMMA:
			p->gamma = num;
			break;
		case BK_P_COEF0:
			p->coef0 = num;
			break;
		case BK_P_C:
			p->C = num;
			break;
	}
	p->given |= GIVEN(id);
}

static double
fetch_number(const BkParams *p, BkParamId id)
{
	switch (id)
	{
		case BK_P_BUDGET:
			return (double) p->budget;
		case BK_P_MAX_SV:
			return (double) p->max_sv;
		case BK_P_DEGREE:
			return (double) p->degree;
		case BK_P_SEED:
			return (double) p->seed;
		case BK_P_GAMMA:
			return p->gamma;
		case BK_P_COEF0:
			return p->coef0;
		case BK_P_C:
			return p->C;
		case BK_P_LAMBDA:
			return p->lambda;
		case BK_P_BALL_PROJECTION:
			return p->ball_projection ? 1.0 : 0.0;
		case BK_P_MARGIN:
			return p->margin;
		case BK_P_EVAL_SIZE:
			return (double) p->eval_size;
		case BK_P_ALPHA:
			return p->alpha;
		case BK_P_BETA:
			return p->beta;
		case BK_P_ETA:
			return p->eta;
		case BK_P_RHO:
			return p->rho;
		case BK_P_MAX_COEF:
			return p->max_coef;
		default:
			return 0;
	}
}

static int
fetch_choice(const BkParams *p, BkParamId id)
{
	switch (id)
	{
		case BK_P_ALGORITHM:
			return p->algorithm;
		case BK_P_KERNEL:
			return p->kernel;
		case BK_P_LOSS:
			return p->loss;
		case BK_P_VARIANT:
			return p->variant;
		case BK_P_MAINTENANCE:
			return p->maintenance;
		case BK_P_UPDATE:
			return p->update;
		case BK_P_EVAL_SET:
			return p->eval_set;
		case BK_P_OUTPUT:
			return p->output;
		default:
			return 0;
	}
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

		list_names(names, sizeof(names));
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

		if (in->type != BK_IN_STRING)
		{
			list_choices(d->choices, choices, sizeof(choices));
			snprintf(err, errlen,
					 "parameter \"%s\" must be a string, one of %s, not %s",
					 d->name, choices, got);
			return false;
		}
		for (int i = 0; d->choices[i] != NULL; i++)
			if (strcmp(d->choices[i], in->string) == 0)
			{
				store_value(p, d->id, 0, i + 1);
				return true;
			}
		list_choices(d->choices, choices, sizeof(choices));
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
		store_value(p, d->id, in->boolean ? 1.0 : 0.0, 0);
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
	store_value(p, d->id, in->number, 0);
	return true;
}

/* The maintenance strategies of Pegasos (paper 004 §4) and BDUOL (001 §3). */
static bool
maintenance_allowed(int algorithm, int maintenance)
{
	if (algorithm == BK_ALG_BDUOL)
		return maintenance == BK_MAINT_REMOVAL ||
			maintenance == BK_MAINT_PROJECTION ||
			maintenance == BK_MAINT_APPROX_PROJECTION ||
			maintenance == BK_MAINT_NEAREST;
	return maintenance >= BK_MAINT_NONE && maintenance <= BK_MAINT_MERGE;
}

static bool
applies(const ParamDesc *d, const BkParams *p)
{
	if (p->algorithm == BK_ALG_PEGASOS && d->id == BK_P_BUDGET)
		return p->maintenance != BK_MAINT_NONE;
	if (p->algorithm == BK_ALG_PEGASOS && d->id == BK_P_MAX_SV)
		return p->maintenance == BK_MAINT_NONE;
	if ((BP_ALGS & ALG(p->algorithm)) && d->id == BK_P_C)
		return p->update == BK_UPDATE_NOBIAS_SVM;
	if (d->id == BK_P_EVAL_SIZE)
		return p->algorithm == BK_ALG_TIGHTER_BUDGET_PERCEPTRON &&
			p->eval_set != BK_EVAL_SVS;
	return (d->algorithms & ALG(p->algorithm)) != 0 &&
		(d->kernels & KER(p->kernel)) != 0;
}

/*
 * Fill in defaults, check the rules between parameters, resolve gamma.
 * stored: the parameters of a stored model (which must stay readable even
 * where new models are refused).
 */
static bool
finish(BkParams *p, int dim, bool stored, char *err, size_t errlen)
{
	/* defaults of the choice parameters first: applicability depends on them */
	if (!(p->given & GIVEN(BK_P_ALGORITHM)))
		p->algorithm = BK_ALG_BPA;
	if (!(p->given & GIVEN(BK_P_KERNEL)))
		p->kernel = BK_KERNEL_RBF;
	if (!(p->given & GIVEN(BK_P_UPDATE)))
		p->update = BK_UPDATE_PERCEPTRON;
	if (!(p->given & GIVEN(BK_P_EVAL_SET)))
		p->eval_set = BK_EVAL_FLIP;
	/*
	 * Pegasos: merging is derived for the Gaussian kernel (paper 004
	 * §4.3).  BDUOL: the nearest-neighbour projection, the strategy paper
	 * 001 §4 finds as accurate as the projection at a fraction of its cost.
	 */
	if (!(p->given & GIVEN(BK_P_MAINTENANCE)))
	{
		if (p->algorithm == BK_ALG_BDUOL)
			p->maintenance = BK_MAINT_NEAREST;
		else
			p->maintenance = p->kernel == BK_KERNEL_RBF ? BK_MAINT_MERGE :
				BK_MAINT_PROJECTION;
	}
	/* (for an algorithm without maintenance, the key is refused below) */
	if ((p->given & GIVEN(BK_P_MAINTENANCE)) &&
		(p->algorithm == BK_ALG_PEGASOS || p->algorithm == BK_ALG_BDUOL) &&
		!maintenance_allowed(p->algorithm, p->maintenance))
	{
		snprintf(err, errlen,
				 "maintenance \"%s\" does not apply to algorithm \"%s\" (its strategies: %s)",
				 maintenance_names[p->maintenance - 1],
				 algorithm_names[p->algorithm - 1],
				 p->algorithm == BK_ALG_BDUOL ?
				 "\"removal\", \"projection\", \"approx_projection\", \"nearest\"" :
				 "\"none\", \"random\", \"smallest\", \"projection\", \"projection_best\", \"merge\"");
		return false;
	}

	for (int i = 0; i < N_PARAMS; i++)
	{
		const ParamDesc *d = &param_table[i];

		if ((p->given & GIVEN(d->id)) && !applies(d, p))
		{
			char		names[BK_ERRMSG_LEN];
			size_t		used = 0;

			/* name the parameters that do apply */
			names[0] = '\0';
			for (int j = 0; j < N_PARAMS; j++)
				if (applies(&param_table[j], p))
					append(names, sizeof(names), &used, used > 0 ? ", " : "",
						   param_table[j].name, "");
			if ((BP_ALGS & ALG(p->algorithm)) && d->id == BK_P_C)
				snprintf(err, errlen,
						 "parameter \"C\" applies to algorithm \"%s\" with update \"nobias_svm\" only",
						 algorithm_names[p->algorithm - 1]);
			else if (p->algorithm == BK_ALG_TIGHTER_BUDGET_PERCEPTRON &&
					 d->id == BK_P_EVAL_SIZE)
				snprintf(err, errlen,
						 "parameter \"eval_size\" does not apply to eval_set \"svs\" (the support vectors are the evaluation set)");
			else if (p->algorithm == BK_ALG_PEGASOS &&
				(d->id == BK_P_BUDGET || d->id == BK_P_MAX_SV))
				snprintf(err, errlen,
						 "parameter \"%s\" does not apply to algorithm \"pegasos\" with maintenance \"%s\" (%s)",
						 d->name, maintenance_names[p->maintenance - 1],
						 d->id == BK_P_BUDGET ? "\"none\" is unbudgeted, capped by max_sv" :
						 "max_sv caps the unbudgeted maintenance \"none\"");
			else if ((d->algorithms & ALG(p->algorithm)) == 0)
				snprintf(err, errlen,
						 "parameter \"%s\" does not apply to algorithm \"%s\" (its parameters with kernel \"%s\": %s)",
						 d->name, algorithm_names[p->algorithm - 1],
						 kernel_names[p->kernel - 1], names);
			else
				snprintf(err, errlen,
						 "parameter \"%s\" does not apply to kernel \"%s\" (parameters of algorithm \"%s\" with this kernel: %s)",
						 d->name, kernel_names[p->kernel - 1],
						 algorithm_names[p->algorithm - 1], names);
			return false;
		}
	}

	if (!(p->given & GIVEN(BK_P_LOSS)))
		p->loss = BK_LOSS_HINGE;
	if (!(p->given & GIVEN(BK_P_VARIANT)))
		p->variant = BK_VARIANT_NN;
	if (!(p->given & GIVEN(BK_P_BUDGET)))
		p->budget = BK_DEFAULT_BUDGET;
	if (!(p->given & GIVEN(BK_P_MAX_SV)))
		p->max_sv = BK_DEFAULT_MAX_SV;
	if (!(p->given & GIVEN(BK_P_DEGREE)))
		p->degree = 3;
	if (!(p->given & GIVEN(BK_P_COEF0)))
		p->coef0 = 0.0;
	if (!(p->given & GIVEN(BK_P_C)))
		p->C = 1.0;
	if (!(p->given & GIVEN(BK_P_LAMBDA)))
		p->lambda = 1e-4;		/* paper 004 §5 */
	if (!(p->given & GIVEN(BK_P_EVAL_SIZE)))
		p->eval_size = 100;
	if (!(p->given & GIVEN(BK_P_ALPHA)))
		p->alpha = 1.0;			/* paper 002 §4.2 */
	if (!(p->given & GIVEN(BK_P_BETA)))
		p->beta = p->alpha > 20.0 ? p->alpha : 20.0;	/* paper 002 §4.2: 20 or 200 */
	if (!(p->given & GIVEN(BK_P_ETA)))
		p->eta = (p->algorithm == BK_ALG_OGD || p->algorithm == BK_ALG_BOGD ||
				  p->algorithm == BK_ALG_PROJECTRON_PP) ? 0.1 : 1.0;
	/* paper 001 §4 sets rho = 0 */
	if (!(p->given & GIVEN(BK_P_RHO)))
		p->rho = 0.0;
	if (p->rho >= 1.0)
	{
		snprintf(err, errlen,
				 "parameter \"rho\" must be in [0, 1) (paper 001: rho < 1), got %.15g",
				 p->rho);
		return false;
	}
	/* Zhao et al. (2012) search gamma in {1, 2, 4, 8, 16}: the middle */
	if (!(p->given & GIVEN(BK_P_MAX_COEF)))
		p->max_coef = 4.0;
	if (!(p->given & GIVEN(BK_P_OUTPUT)))
		p->output = BK_OUTPUT_AVERAGE;
	if (p->algorithm == BK_ALG_SPA && p->beta < p->alpha)
	{
		snprintf(err, errlen,
				 "parameter \"beta\" must be at least \"alpha\" (%g), got %g (paper 002: beta >= alpha > 0)",
				 p->alpha, p->beta);
		return false;
	}
	/* paper 003 Fig. 2: the no-bias SVM rule comes with margin 1 */
	if (!(p->given & GIVEN(BK_P_MARGIN)))
		p->margin = p->update == BK_UPDATE_NOBIAS_SVM ? 1.0 : 0.0;
	if (p->algorithm == BK_ALG_PEGASOS && p->maintenance == BK_MAINT_MERGE &&
		p->kernel != BK_KERNEL_RBF)
	{
		snprintf(err, errlen,
				 "maintenance \"merge\" needs the \"rbf\" kernel (paper 004 derives merging for the Gaussian kernel)");
		return false;
	}
	if (!(p->given & GIVEN(BK_P_GAMMA)))
	{
		if (dim < 1)
		{
			snprintf(err, errlen, "dimension must be positive to default gamma");
			return false;
		}
		/* LIBSVM's default width */
		p->gamma = 1.0 / (double) dim;
	}
	/*
	 * Pegasos' first step is eta_1 = 1 / lambda, and its weight degradation
	 * and ||w||^2 grow with 1 / lambda^2: below 1e-100 they overflow a double
	 * within a few rows, and no such setting is useful.  Refused for new
	 * models only: a stored model with a smaller lambda stays readable.
	 */
	if (!stored && p->algorithm == BK_ALG_PEGASOS && p->lambda < BK_MIN_PEGASOS_LAMBDA)
	{
		snprintf(err, errlen,
				 "parameter \"lambda\" of algorithm \"pegasos\" must be at least %g (its steps 1/(lambda t) would overflow), got %g",
				 BK_MIN_PEGASOS_LAMBDA, p->lambda);
		return false;
	}
	/* seed defaults to 0 (zeroed by BkParamsInit) */
	return true;
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

		if (!applies(d, p))
			continue;
		out[n].key = d->name;
		out[n].is_string = d->kind == BK_KIND_ENUM;
		out[n].is_integer = d->kind == BK_KIND_INT;
		out[n].is_boolean = d->kind == BK_KIND_BOOL;
		if (d->kind == BK_KIND_ENUM)
		{
			int			c = fetch_choice(p, d->id);

			out[n].string = (c >= 1 && c <= count_choices(d->choices)) ?
				d->choices[c - 1] : "?";
			out[n].number = 0;
		}
		else
		{
			out[n].string = NULL;
			out[n].number = fetch_number(p, d->id);
		}
		n++;
	}
	return n;
}

const char *
BkAlgorithmName(const BkParams *p)
{
	if (p->algorithm >= 1 && p->algorithm <= count_choices(algorithm_names))
		return algorithm_names[p->algorithm - 1];
	return "?";
}

bool
BkParamsBudgeted(const BkParams *p)
{
	if (p->algorithm == BK_ALG_PEGASOS)
		return p->maintenance != BK_MAINT_NONE;
	return (BUDGET_ALGS & ALG(p->algorithm)) != 0;
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
		double		v;
		int64_t		iv;

		if (!applies(d, p))
			continue;
		out[n].id = (uint16_t) d->id;
		out[n].kind = (uint16_t) d->kind;
		switch (d->kind)
		{
			case BK_KIND_ENUM:
				out[n].bits = (uint64_t) fetch_choice(p, d->id);
				break;
			case BK_KIND_BOOL:
				out[n].bits = p->ball_projection ? 1 : 0;
				break;
			case BK_KIND_INT:
				iv = (int64_t) fetch_number(p, d->id);
				if (d->id == BK_P_SEED)
					iv = (int64_t) p->seed;
				memcpy(&out[n].bits, &iv, sizeof(iv));
				break;
			case BK_KIND_REAL:
				v = fetch_number(p, d->id);
				memcpy(&out[n].bits, &v, sizeof(v));
				break;
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
				   char *err, size_t errlen)
{
	uint64_t	seen = 0;

	BkParamsInit(p);
	for (int i = 0; i < n; i++)
	{
		const ParamDesc *d = find_by_id(in[i].id);

		if (d == NULL)
		{
			snprintf(err, errlen, "unknown parameter id %u", in[i].id);
			return false;
		}
		if (seen & GIVEN(d->id))
		{
			snprintf(err, errlen, "parameter \"%s\" stored twice", d->name);
			return false;
		}
		seen |= GIVEN(d->id);
		if (in[i].kind != d->kind)
		{
			snprintf(err, errlen, "parameter \"%s\" stored with kind %u",
					 d->name, in[i].kind);
			return false;
		}
		if (d->kind == BK_KIND_BOOL)
		{
			if (in[i].bits > 1)
			{
				snprintf(err, errlen, "parameter \"%s\" has invalid value %llu",
						 d->name, (unsigned long long) in[i].bits);
				return false;
			}
			store_value(p, d->id, (double) in[i].bits, 0);
		}
		else if (d->kind == BK_KIND_ENUM)
		{
			if (in[i].bits < 1 || in[i].bits > (uint64_t) count_choices(d->choices))
			{
				snprintf(err, errlen, "parameter \"%s\" has invalid value %llu",
						 d->name, (unsigned long long) in[i].bits);
				return false;
			}
			store_value(p, d->id, 0, (int) in[i].bits);
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
			store_value(p, d->id, v, 0);
		}
	}

	if (!(seen & GIVEN(BK_P_ALGORITHM)) || !(seen & GIVEN(BK_P_KERNEL)))
	{
		snprintf(err, errlen, "algorithm or kernel missing");
		return false;
	}
	for (int i = 0; i < N_PARAMS; i++)
	{
		const ParamDesc *d = &param_table[i];
		bool		present = (seen & GIVEN(d->id)) != 0;

		if (present != applies(d, p))
		{
			snprintf(err, errlen, "parameter \"%s\" %s", d->name,
					 present ? "stored but does not apply" : "missing");
			return false;
		}
	}
	/* fill the fields that do not apply with their defaults */
	return finish(p, 1, true, err, errlen);
}
