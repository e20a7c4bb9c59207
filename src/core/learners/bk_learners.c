/*
 * bk_learners.c
 *	  The registry: every learner, by algorithm id (the ids are stored in
 *	  models, see BkAlgorithm in bk_core.h).  One line per learner; its
 *	  description lives in its own bk_alg_*.c file.
 */
#include "bk_learner.h"

#include <math.h>

#define BK_LEARNERS(X) \
	X(BK_ALG_PERCEPTRON, bk_learner_perceptron) \
	X(BK_ALG_PA, bk_learner_pa) \
	X(BK_ALG_BPA, bk_learner_bpa) \
	X(BK_ALG_PEGASOS, bk_learner_pegasos) \
	X(BK_ALG_STOPTRON, bk_learner_stoptron) \
	X(BK_ALG_RBP, bk_learner_rbp) \
	X(BK_ALG_PA_RANDOM, bk_learner_pa_random) \
	X(BK_ALG_BUDGET_PERCEPTRON, bk_learner_budget_perceptron) \
	X(BK_ALG_TIGHTER_BUDGET_PERCEPTRON, bk_learner_tighter_budget_perceptron) \
	X(BK_ALG_SPA, bk_learner_spa) \
	X(BK_ALG_OGD, bk_learner_ogd) \
	X(BK_ALG_DUOL, bk_learner_duol) \
	X(BK_ALG_BDUOL, bk_learner_bduol) \
	X(BK_ALG_BOGD, bk_learner_bogd) \
	X(BK_ALG_FORGETRON, bk_learner_forgetron) \
	X(BK_ALG_PROJECTRON, bk_learner_projectron) \
	X(BK_ALG_PROJECTRON_PP, bk_learner_projectron_pp)

#define BK_DECLARE(id, sym) extern const BkLearner sym;
BK_LEARNERS(BK_DECLARE)

#define BK_ENTRY(id, sym) [id] = &sym,
static const BkLearner *const registry[] = {BK_LEARNERS(BK_ENTRY)};

#define N_SLOTS ((int) (sizeof(registry) / sizeof(registry[0])))

const BkLearner *
BkLearnerOf(const BkParams *p)
{
	return registry[p->algorithm];
}

const BkLearner *
BkLearnerAt(int i)
{
	/* slot 0 is no algorithm: ids start at 1 */
	return i + 1 < N_SLOTS ? registry[i + 1] : NULL;
}

unsigned
BkLearnerKeeps(const BkParams *p)
{
	const BkLearner *l = BkLearnerOf(p);

	return l->keeps | (l->keeps_for ? l->keeps_for(p) : 0);
}

int
BkLearnerCheckSums(const BkParams *p, uint64_t updates, double scale,
				   double degradation)
{
	const BkLearner *l = BkLearnerOf(p);

	if (l->check_sums)
		return l->check_sums(p, updates, scale, degradation);
	if (!isfinite(degradation) || degradation != 0.0)
		return BK_SUMS_BAD_DEGRADATION;
	return scale == 1.0 ? BK_SUMS_OK : BK_SUMS_BAD_SCALE;
}

const char *
BkLearnerDegradationName(const BkParams *p)
{
	const BkLearner *l = BkLearnerOf(p);

	return l->degradation_name ? l->degradation_name : "weight degradation";
}
