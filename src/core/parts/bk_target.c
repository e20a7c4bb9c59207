/*
 * bk_target.c
 *	  The state of the tasks other than classification (bk_target.h): a
 *	  novelty detector's threshold (at the end), and a regressor's target
 *	  (BkTarget): its standardisation,
 *	  fitted on the training rows as the features' is (bk_prep.c), and
 *	  what the regressor saw of its rows, prequentially.  Two regressors
 *	  merge into the weighted average of their predictions, the weights
 *	  those of the machines' merge (rows seen): with predictions
 *	  m_a + s_a f_a and m_b + s_b f_b, the average is
 *	      (w_a m_a + w_b m_b) + s (w_a (s_a / s) f_a + w_b (s_b / s) f_b),
 *	  so the merged target keeps the mean m = w_a m_a + w_b m_b and the
 *	  pooled deviation s, s^2 = w_a (s_a^2 + (m_a - m)^2) + w_b (s_b^2 +
 *	  (m_b - m)^2), and each side's coefficients are scaled by s_side / s
 *	  before the machines merge (BkTargetPool).
 */
#include "bk_internal.h"
#include "bk_target.h"

#include <math.h>

BkTarget *
BkTargetNew(const BkEnv *env)
{
	BkTarget   *t = BkAllocArray(env, 1, sizeof(BkTarget));

	t->mode = BK_TARGET_NONE;
	t->mean = 0.0;
	t->sd = 1.0;
	return t;
}

void
BkModelSetTargetScale(BkModel *m, double mean, double sd)
{
	if (m->target == NULL || m->rows_seen > 0)
		BkRaise(&m->env, BK_ERR_INTERNAL, NULL,
				"a target standardisation is set on a new regressor only");
	/* (never printed: an overflowed sum reads "inf" or "-nan") */
	if (!isfinite(mean) || !isfinite(sd) || sd < 0.0)
		BkRaiseHint(&m->env, BK_ERR_OVERFLOW, NULL,
					"Scale the target (for example to thousands) before training.",
					"the target's %s is not finite: its values are too large to standardise",
					isfinite(mean) ? "standard deviation" : "mean");
	m->target->mode = BK_TARGET_STANDARD;
	m->target->mean = mean;
	/* a constant target (up to rounding: BkRunningSumsMoments) divides by 1 */
	m->target->sd = sd > 0.0 ? sd : 1.0;
}

/* one learned row's target and prediction, in the target's units */
void
BkTargetNote(BkTarget *t, uint64_t n_before, double target, double err)
{
	double		n = (double) n_before + 1.0;
	double		d = target - t->seen_mean;

	t->sq_error += err * err;
	t->abs_error += fabs(err);
	/* Welford's update of the mean and squared deviations of the targets */
	t->seen_mean += d / n;
	t->seen_m2 += d * (target - t->seen_mean);
}

bool
BkModelTargetInfo(const BkModel *m, BkTargetInfo *out)
{
	const BkTarget *t = m->target;

	if (t == NULL)
		return false;
	out->standardised = t->mode == BK_TARGET_STANDARD;
	out->mean = t->mean;
	out->sd = t->sd;
	out->sq_error = t->sq_error;
	out->abs_error = t->abs_error;
	out->seen_mean = t->seen_mean;
	out->seen_var = m->rows_seen > 0 ? t->seen_m2 / (double) m->rows_seen : 0.0;
	return true;
}

/*
 * Pool the targets of a and b, merged with weights wa and wb (header
 * comment), into a; each side's machines get the factor s_side / s on
 * their scale, which the machines' merge multiplies in.  Their sums add;
 * the targets' spreads pool as Chan et al. pool two variances.
 */
void
BkTargetPool(BkModel *a, BkModel *b, double wa, double wb)
{
	BkTarget   *ta = a->target;
	BkTarget   *tb = b->target;
	double		na = (double) a->rows_seen,
				nb = (double) b->rows_seen;
	double		mean = ta->mean,
				sd = ta->sd;

	if (ta->mode == BK_TARGET_STANDARD)
	{
		double		da,
					db;

		mean = wa * ta->mean + wb * tb->mean;
		da = ta->mean - mean;
		db = tb->mean - mean;
		sd = sqrt(wa * (ta->sd * ta->sd + da * da) + wb * (tb->sd * tb->sd + db * db));
		if (!(sd > 0.0) || !isfinite(sd))
			BkRaise(&a->env, BK_ERR_OVERFLOW, NULL,
					"the merged target's standard deviation is not finite (%g)", sd);
		for (int k = 0; k < a->n_machines; k++)
			a->machines[k].scale *= ta->sd / sd;
		for (int k = 0; k < b->n_machines; k++)
			b->machines[k].scale *= tb->sd / sd;
	}
	if (na + nb > 0.0)
	{
		double		d = tb->seen_mean - ta->seen_mean;

		ta->seen_m2 += tb->seen_m2 + d * d * na * nb / (na + nb);
		ta->seen_mean += d * nb / (na + nb);
	}
	ta->mean = mean;
	ta->sd = sd;
	ta->sq_error += tb->sq_error;
	ta->abs_error += tb->abs_error;
	/* sums of stored models' extreme targets may overflow */
	if (!isfinite(ta->sq_error) || !isfinite(ta->abs_error) ||
		!isfinite(ta->seen_mean) || !isfinite(ta->seen_m2))
		BkRaiseHint(&a->env, BK_ERR_OVERFLOW, NULL,
					"Scale the target of the models merged.",
					"the merged target's error sums are not finite");
}

int
BkModelTargetCurve(const BkModel *m, const double **points)
{
	if (m->target == NULL)
		return 0;
	*points = m->target->sq_curve;
	return m->target->sq_curve_n;
}

void
BkTargetFree(BkModel *m)
{
	BkFree(&m->env, m->target);
	m->target = NULL;
}

BkNovelty *
BkNoveltyNew(const BkEnv *env)
{
	return BkAllocArray(env, 1, sizeof(BkNovelty));
}

bool
BkModelNoveltyRho(const BkModel *m, double *rho)
{
	if (m->novelty == NULL)
		return false;
	*rho = m->novelty->rho;
	return true;
}

/*
 * The merged detector's score, rho - f, is the weighted average of the
 * two when f is (the machines' merge) and rho is
 */
void
BkNoveltyPool(BkModel *a, const BkModel *b, double wa, double wb)
{
	a->novelty->rho = wa * a->novelty->rho + wb * b->novelty->rho;
}

void
BkNoveltyFree(BkModel *m)
{
	BkFree(&m->env, m->novelty);
	m->novelty = NULL;
}
