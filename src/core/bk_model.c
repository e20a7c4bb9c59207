/*
 * bk_model.c
 *	  The model (learner state): creation, the per-row learning loop shared
 *	  by every algorithm (class mapping, kernel row, online mistakes,
 *	  counters), scoring, and the machine layout each algorithm needs.
 */
#include "bk_internal.h"

#include <stdio.h>
#include <string.h>

/* ---- layout of each algorithm ---- */

int
BkModelMachines(const BkParams *p)
{
	(void) p;
	return 1;					/* binary learners: one expansion */
}

bool
BkModelNeedsNearest(const BkParams *p)
{
	return p->algorithm == BK_ALG_BPA && p->variant == BK_VARIANT_NN;
}

bool
BkModelNeedsGram(const BkParams *p)
{
	return p->algorithm == BK_ALG_BPA && p->variant == BK_VARIANT_P;
}

/* SV slots a training state may need: the budget, or the safety cap */
int
BkModelCapacity(const BkParams *p)
{
	return (int) (BkParamsBudgeted(p) ? p->budget : p->max_sv);
}

/* kernel row, dot products and two work vectors of capacity + 1 */
size_t
BkModelScratchLen(const BkParams *p, int capacity)
{
	(void) p;
	return 4 * ((size_t) capacity + 1);
}

/* Initial SV slots: budgeted learners once at B, unbudgeted ones grow. */
static int
initial_capacity(const BkParams *p, int n_sv)
{
	int			cap;

	if (BkParamsBudgeted(p))
		return (int) p->budget;
	cap = n_sv > 16 ? n_sv : 16;
	return cap < p->max_sv ? cap : (int) p->max_sv;
}

bool
BkModelCheckSize(const BkParams *p, int dim, size_t limit, char *err,
				 size_t errlen)
{
	size_t		cap = (size_t) BkModelCapacity(p);
	size_t		row;
	size_t		total;
	size_t		part;
	bool		ok = true;

	/* one SV: the vector, its norm and coefficient, NN bookkeeping */
	ok &= BkMulSize((size_t) dim, sizeof(double), &row);
	ok &= BkAddSize(row, 2 * sizeof(double) + sizeof(int32_t) + sizeof(double), &row);
	ok &= BkMulSize(cap, row, &total);
	ok &= BkMulSize(BkModelScratchLen(p, (int) cap), sizeof(double), &part);
	ok &= BkAddSize(total, part, &total);
	if (BkModelNeedsGram(p))
	{
		ok &= BkMulSize(cap + 1, cap + 1, &part);
		ok &= BkMulSize(part, sizeof(double), &part);
		ok &= BkAddSize(total, part, &total);
	}
	if (!ok)
	{
		snprintf(err, errlen,
				 "a model of %zu support vectors of dimension %d is too large to allocate",
				 cap, dim);
		return false;
	}
	if (total > limit)
	{
		snprintf(err, errlen,
				 "a model of %zu support vectors of dimension %d needs %zu bytes, more than the limit of %zu",
				 cap, dim, total, limit);
		return false;
	}
	return true;
}

static void
ensure_scratch(BkModel *m)
{
	size_t		need = BkModelScratchLen(&m->params, m->machines[0].capacity);

	if (m->scratch_len < need)
	{
		m->scratch = BkReallocArray(&m->env, m->scratch, need, sizeof(double));
		m->scratch_len = need;
	}
}

/*
 * Allocate the machines with room for capacity SVs each, and, for a model
 * that will go on learning, the bookkeeping its algorithm needs (scoring
 * needs neither the neighbour cache nor K^-1).
 */
void
BkModelAllocMachines(BkModel *m, int capacity)
{
	m->n_machines = BkModelMachines(&m->params);
	m->machines = BkAllocArray(&m->env, (size_t) m->n_machines, sizeof(BkMachine));
	for (int i = 0; i < m->n_machines; i++)
	{
		BkMachine  *mach = &m->machines[i];

		BkMachineInit(&m->env, mach, m->dim, 1, capacity);
		if (!m->training)
			continue;
		if (BkModelNeedsNearest(&m->params))
			BkNearestInit(&m->env, mach, capacity);
		if (BkModelNeedsGram(&m->params))
		{
			mach->has_ginv = true;
			BkGramInit(&m->env, &mach->ginv, capacity + 1);
		}
	}
	ensure_scratch(m);
}

BkModel *
BkModelCreate(const BkEnv *env, const BkParams *p, int dim)
{
	BkModel    *m = env->alloc(env->ctx, sizeof(BkModel));

	memset(m, 0, sizeof(*m));
	m->env = *env;
	m->params = *p;
	m->dim = dim;
	m->training = true;
	BkRngSeed(&m->rng, p->seed);
	BkModelAllocMachines(m, initial_capacity(p, 0));
	return m;
}

void
BkModelFree(BkModel *m)
{
	BkEnv		env = m->env;

	for (int i = 0; i < m->n_machines; i++)
		BkMachineFree(&env, &m->machines[i]);
	BkFree(&env, m->machines);
	BkFree(&env, m->scratch);
	BkFree(&env, m);
}

/*
 * Room for one more SV in an unbudgeted learner; reaching max_sv is an
 * error rather than a silently different algorithm.
 */
void
BkModelReserveUnbudgeted(BkModel *m, BkMachine *mach)
{
	if (!BkMachineReserve(&m->env, mach, m->dim, (int) m->params.max_sv))
		BkRaise(&m->env, BK_ERR_LIMIT,
				"Raise max_sv, or use a budgeted algorithm such as \"bpa\".",
				"algorithm \"%s\" reached max_sv = %lld support vectors",
				BkAlgorithmName(&m->params), (long long) m->params.max_sv);
}

void
BkModelSkip(BkModel *m)
{
	m->rows_skipped++;
}

/* Index of label among the classes, adding it if new; -1 if it cannot be. */
static int
class_index(BkModel *m, int64_t label, bool *is_new)
{
	*is_new = false;
	for (int i = 0; i < m->n_classes; i++)
		if (m->classes[i] == label)
			return i;
	if (m->n_classes >= BK_MAX_CLASSES)
		return -1;
	*is_new = true;
	m->classes[m->n_classes] = label;
	return m->n_classes++;
}

/* The kernel row of x against machine 0, into the model's scratch. */
static void
fill_row(BkModel *m, const double *x, BkRow *row)
{
	BkMachine  *mach = &m->machines[0];
	size_t		stride = (size_t) mach->capacity + 1;

	row->x = x;
	row->sqx = BkDot(x, x, m->dim);
	row->ktt = BkKernelSelf(&m->params, row->sqx);
	row->dots = m->scratch;
	row->krow = m->scratch + stride;
	row->work = m->scratch + 2 * stride;
	BkKernelRow(&m->params, mach, m->dim, x, row->sqx, row->dots, row->krow);
	row->f = BkMachineScore(mach, row->krow);
}

void
BkModelLearn(BkModel *m, const double *x, int64_t label)
{
	BkMachine  *mach = &m->machines[0];
	BkRow		row;
	bool		is_new;
	int			cls;
	bool		changed = false;

	if (!m->training)
		BkRaise(&m->env, BK_ERR_INTERNAL, NULL, "model was not decoded for training");

	cls = class_index(m, label, &is_new);
	if (cls < 0)
		BkRaise(&m->env, BK_ERR_DATA,
				"Binary algorithms learn two classes; one-vs-rest training of more classes is not available yet.",
				"label %lld is a third class (classes seen: %lld, %lld)",
				(long long) label, (long long) m->classes[0],
				(long long) m->classes[1]);

	ensure_scratch(m);
	fill_row(m, x, &row);
	/* the second class seen is the positive one (bk_decision > 0) */
	row.y = cls == 1 ? 1.0 : -1.0;

	/* prequential: predict with the current model, then learn */
	if (is_new)
		m->mistakes++;
	else
	{
		int			predicted = (m->n_classes >= 2 && row.f > 0.0) ? 1 : 0;

		if (predicted != cls)
			m->mistakes++;
	}
	m->rows_seen++;

	switch (m->params.algorithm)
	{
		case BK_ALG_PERCEPTRON:
			changed = BkPerceptronStep(m, mach, &row);
			break;
		case BK_ALG_PA:
			changed = BkPaStep(m, mach, &row);
			break;
		case BK_ALG_BPA:
			changed = BkBpaStep(m, mach, &row);
			break;
		default:
			BkRaise(&m->env, BK_ERR_INTERNAL, NULL, "unknown algorithm %d",
					m->params.algorithm);
	}
	if (changed)
	{
		m->rows_updated++;
		mach->updates++;
	}
}

double
BkModelDecision(BkModel *m, const double *x)
{
	BkRow		row;

	fill_row(m, x, &row);
	return row.f;
}

bool
BkModelPredict(BkModel *m, const double *x, int64_t *label)
{
	if (m->n_classes == 0)
		return false;
	if (m->n_classes == 1)
	{
		*label = m->classes[0];
		return true;
	}
	*label = BkModelDecision(m, x) > 0.0 ? m->classes[1] : m->classes[0];
	return true;
}
