/*
 * bk_ddm.c
 *	  DDM, the drift detection method of J. Gama, P. Medas, G. Castillo and
 *	  P. Rodrigues (2004), "Learning with Drift Detection", Advances in
 *	  Artificial Intelligence (SBIA 2004), LNCS 3171, pp. 286-295, §3.
 *
 * The stream is a classifier's errors, x_i = 1 for a mistake and 0 for
 * a correct prediction: a Bernoulli sequence whose rate p_i after i values
 * has the standard deviation s_i = sqrt(p_i (1 - p_i) / i).  The method
 * keeps p_min and s_min where p_i + s_i was least, and (§3):
 *
 *	  p_i + s_i >= p_min + 2 s_min   the warning level (the zone's first
 *	                                 row is reported with the change)
 *	  p_i + s_i >= p_min + 3 s_min   the drift level: a change; the
 *	                                 statistics restart from the next value
 *
 * and tests nothing before 30 values (min_rows, the paper's and MOA's
 * n > 30).  As in MOA's DDM, the minimum is taken as the values come
 * (p_i + s_i <= p_min + s_min replaces it) once the 30 values are in, and
 * the levels are strict inequalities.  p_i is errors / i, exact.  Plain
 * IEEE double arithmetic with sqrt (correctly rounded): the same alarms
 * on every CPU.
 */
#include "bk_detect.h"

#include <math.h>

const char *const bk_ddm_change_stats[BK_DDM_CHANGE_STATS] =
{"error_rate", "sd", "min_error_rate", "min_sd", "warning_row"};

static void
restart(BkDdm *ddm)
{
	ddm->n = 0;
	ddm->errors = 0;
	ddm->p_min = HUGE_VAL;
	ddm->s_min = HUGE_VAL;
	ddm->warning_row = 0;
}

void
BkDdmInit(BkDdm *ddm, int64_t min_rows)
{
	ddm->min_rows = min_rows;
	restart(ddm);
}

bool
BkDdmAdd(BkDdm *ddm, double x, int64_t row, double *stat)
{
	double		n,
				p,
				s;

	ddm->n++;
	ddm->errors += x != 0.0;
	n = (double) ddm->n;
	p = (double) ddm->errors / n;
	s = sqrt(p * (1.0 - p) / n);
	if (ddm->n < ddm->min_rows)
		return false;
	if (p + s <= ddm->p_min + ddm->s_min)
	{
		ddm->p_min = p;
		ddm->s_min = s;
	}
	if (p + s > ddm->p_min + 3.0 * ddm->s_min)
	{
		stat[0] = p;
		stat[1] = s;
		stat[2] = ddm->p_min;
		stat[3] = ddm->s_min;
		/* no warning zone before it: null */
		stat[4] = ddm->warning_row > 0 ? (double) ddm->warning_row : NAN;
		restart(ddm);
		return true;
	}
	if (p + s > ddm->p_min + 2.0 * ddm->s_min)
	{
		if (ddm->warning_row == 0)
			ddm->warning_row = row;
	}
	else
		ddm->warning_row = 0;
	return false;
}
