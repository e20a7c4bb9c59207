/*
 * bk_learner.h
 *	  The learner registry: each learner describes itself once, in its own
 *	  file (bk_alg_*.c), as a const BkLearner, and bk_learners.c lists them
 *	  by algorithm id.  The model, the format's validator and the glue ask
 *	  the learner's description instead of testing algorithm ids, so calls
 *	  flow one way: model -> registry -> learners -> primitives.
 *	  doc/maintainers.md says how to add a learner.
 */
#ifndef BK_LEARNER_H
#define BK_LEARNER_H

#include "bk_internal.h"

/*
 * What a machine keeps besides its SVs and coefficients, for training.
 * The first five are also the machine's aux bits in the format
 * (doc/format.md); GRAM_SCRATCH is work space only.
 */
#define BK_KEEP_NEAREST		1u	/* nearest other SV and its distance */
#define BK_KEEP_GRAM		2u	/* K^-1 of the SVs, by rank-one updates */
#define BK_KEEP_SCORES		4u	/* f(x_j) of every SV */
#define BK_KEEP_EVAL		8u	/* an evaluation set (eval_cap points) */
#define BK_KEEP_BORN		16u /* the row at which each SV was added */
#define BK_KEEP_STORED		31u /* the bits above: stored with the model */
#define BK_KEEP_GRAM_SCRATCH 32u	/* K, K^-1 and work built per step */

/* BkLearner.params: BK_TAKES(BUDGET) | BK_TAKES(C) ... */
#define BK_TAKES(name)		BK_PARAM_BIT(BK_P_##name)

/* results of BkLearner.check_sums */
#define BK_SUMS_OK				0
#define BK_SUMS_BAD_DEGRADATION 1
#define BK_SUMS_BAD_SCALE		2

typedef struct BkLearner
{
	BkAlgorithm id;
	const char *name;			/* the "algorithm" parameter's value */
	const char *source;			/* the paper and equations it implements */

	/*
	 * Natively multi-class: one machine with a coefficient per class
	 * (step_class, class_scores).  Otherwise a binary machine (step), and
	 * one-vs-rest from the third class.
	 */
	bool		multiclass;

	/*
	 * It also learns regression (BkParams.regression): its step reads the
	 * loss as row->margin - row->y f (the hinge with margin 1 for a
	 * classifier), so that the epsilon-insensitive loss is that hinge with
	 * y the sign of the residual and margin y target - epsilon
	 * (BkModelLearnValue).
	 */
	bool		regression;

	/*
	 * It also learns novelty (BkParams.novelty): its step takes y = +1 and
	 * the margin rho, and sets row->rate to the rate of its step, by which
	 * the model moves rho (BkModelLearnNovel).
	 */
	bool		novelty;

	/*
	 * Its parameters: the BK_PARAM_BIT of each one it takes besides those
	 * every learner takes (algorithm, seed, the kernel and the kernel's
	 * own), which bk_params.c's table marks as common.
	 */
	uint64_t	params;

	/*
	 * The parameters (BK_TAKES bits) that may change when a stored model
	 * is trained further: those that only shape the steps to come (a step
	 * size, a bound on the next steps, a regulariser), never one that the
	 * state already holds to (DUOL's C bounds every dual variable stored).
	 * "seed" may change for every learner.
	 */
	uint64_t	params_mutable;

	/*
	 * Whether one of its parameters applies, given the values of the
	 * others (Pegasos' budget only with a budgeted maintenance); if not,
	 * why (when why is not NULL) gets the message.  NULL: each of its
	 * parameters always applies.
	 */
	bool		(*param_applies) (const BkParams *p, BkParamId id,
								  char *why, size_t whylen);

	/*
	 * Its own defaults, after the table's: it sets only parameters the user
	 * did not give (BkParamGiven).  NULL: the table's defaults.
	 */
	void		(*param_defaults) (BkParams *p);

	/*
	 * Its rules between parameters, checked after the defaults; false with
	 * a message in err.  stored: the parameters of a stored model, which
	 * must stay readable even where a new model is refused.  NULL: none.
	 */
	bool		(*check_params) (const BkParams *p, bool stored, char *err,
								 size_t errlen);

	/*
	 * Every coefficient is gamma_i y_i with 0 < gamma_i <= C (DUOL's dual
	 * variables): a merged model clips its coefficients into the box.
	 */
	bool		dual_box;

	/* SVs held beyond the budget before maintenance brings them back */
	int			extra_slots;

	/*
	 * The relative ridge of the K^-1 it kept before "ridge" was a parameter
	 * (budgetkernel 0.2.0): a stored model without the parameter was
	 * trained with it and goes on with it.
	 */
	double		legacy_ridge;

	/* BK_KEEP_* bits it always keeps */
	unsigned	keeps;

	/* BK_KEEP_* bits that depend on the parameters; NULL: none */
	unsigned	(*keeps_for) (const BkParams *p);

	/* points of its evaluation set (with BK_KEEP_EVAL) */
	int			(*eval_cap) (const BkParams *p);

	/* one step of a binary machine on row (row->y is +1 or -1) */
	bool		(*step) (BkModel *m, BkMachine *mach, BkRow *row);

	/* one step of a multi-class machine on a row of class cls */
	bool		(*step_class) (BkModel *m, BkMachine *mach, BkRow *row, int cls);

	/* the n_classes scores of a multi-class machine */
	void		(*class_scores) (const BkModel *m, const BkMachine *mach,
								 const BkRow *row, double *scores);

	/* the score a binary machine predicts with, when it is not f; NULL: f */
	double		(*predict_score) (const BkModel *m, const BkMachine *mach,
								  const BkRow *row);

	/* the weight of SV j in predictions, times its coefficient; NULL: 1 */
	double		(*sv_weight) (const BkModel *m, const BkMachine *mach, int j);

	/*
	 * Check a stored machine's scale and degradation (given its updates):
	 * a BK_SUMS_* result.  NULL: the scale must be 1 and the degradation 0
	 * (BkLearnerCheckSums).
	 */
	int			(*check_sums) (const BkParams *p, uint64_t updates,
							   double scale, double degradation);

	/* what its degradation sum is called in messages; NULL: "weight degradation" */
	const char *degradation_name;

	/* the bk_info key that reports the degradation sum; NULL: not shown */
	const char *degradation_key;
} BkLearner;

/* The learner of p->algorithm (the parameters are validated). */
extern const BkLearner *BkLearnerOf(const BkParams *p);

/* The registered learners in id order, for tests; NULL past the last. */
extern const BkLearner *BkLearnerAt(int i);

/* BK_KEEP_* bits of the learner of p */
extern unsigned BkLearnerKeeps(const BkParams *p);

/* the learner's check of a stored scale and degradation, or the default */
extern int	BkLearnerCheckSums(const BkParams *p, uint64_t updates, double scale,
							   double degradation);

/* what the degradation sum of p's learner is called in messages */
extern const char *BkLearnerDegradationName(const BkParams *p);

#endif							/* BK_LEARNER_H */
