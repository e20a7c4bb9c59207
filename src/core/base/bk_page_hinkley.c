/*
 * bk_page_hinkley.c
 *	  The Page-Hinkley test for an increase of a stream's mean: E. S. Page
 *	  (1954), "Continuous inspection schemes", Biometrika 41(1/2),
 *	  pp. 100-115, in the form of the drift-detection literature
 *	  (Mouss et al. 2004; Gama, Sebastião and Rodrigues 2013, "On
 *	  evaluating stream learning algorithms", Machine Learning 90(3),
 *	  with its fading factor alpha):
 *
 *	      x̄_T = (1/T) sum_{t<=T} x_t                  (the running mean)
 *	      m_T = alpha m_{T-1} + (x_T - x̄_T - delta)   (m_0 = 0)
 *	      M_T = min_{t<=T} m_t
 *	      PH_T = m_T - M_T;  a change when PH_T > lambda
 *
 * delta is the magnitude of change tolerated, lambda the alarm threshold;
 * alpha = 1 is Page's cumulative sum.  The defaults are MOA's and river's
 * (delta 0.005, lambda 50, alpha 1 - 0.0001, no alarm before 30 values).
 * After a change the test starts again from the next value.  It watches
 * increases only (a rising error rate); a fall of the mean raises
 * nothing.  Plain IEEE double arithmetic in a fixed order: the same
 * alarms on every CPU.
 */
#include "bk_detect.h"

const char *const bk_page_hinkley_change_stats[BK_PAGE_HINKLEY_CHANGE_STATS] =
{"rows", "mean", "ph"};

static void
restart(BkPageHinkley *ph)
{
	ph->n = 0;
	ph->mean = 0.0;
	ph->sum = 0.0;
	ph->min_sum = 0.0;
}

void
BkPageHinkleyInit(BkPageHinkley *ph, double delta, double lambda, double alpha,
				  int64_t min_rows)
{
	ph->delta = delta;
	ph->lambda = lambda;
	ph->alpha = alpha;
	ph->min_rows = min_rows;
	restart(ph);
}

bool
BkPageHinkleyAdd(BkPageHinkley *ph, double x, double *stat)
{
	double		value;

	ph->n++;
	ph->mean += (x - ph->mean) / (double) ph->n;
	ph->sum = ph->alpha * ph->sum + (x - ph->mean - ph->delta);
	if (ph->sum < ph->min_sum)
		ph->min_sum = ph->sum;
	value = ph->sum - ph->min_sum;
	if (ph->n < ph->min_rows || !(value > ph->lambda))
		return false;
	stat[0] = (double) ph->n;
	stat[1] = ph->mean;
	stat[2] = value;
	restart(ph);
	return true;
}
