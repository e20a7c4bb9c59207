/*
 * bk_calibrate.c
 *	  Probabilities from scores: Platt scaling, one sigmoid per class.
 *
 *	  For class c, with f the class's score (bk_scores) of a row,
 *	      P(c | f) = 1 / (1 + exp(A_c f + B_c)),
 *	  A_c and B_c fitted on held-out rows by minimising the cross-entropy
 *	  against Platt's smoothed targets, t = (N+ + 1) / (N+ + 2) for the rows
 *	  of class c and 1 / (N- + 2) for the others, with the Newton method and
 *	  backtracking line search of Lin, Lin and Weng, "A note on Platt's
 *	  probabilistic outputs for support vector machines" (Machine Learning
 *	  68, 2007), Algorithm 1: the form of the loss that never overflows,
 *	  and a small ridge on the Hessian.  The probabilities of a row are the
 *	  classes' sigmoids normalised to sum 1 (one-vs-rest); for two classes,
 *	  whose scores are f and -f, the two sigmoids already sum to 1.
 *
 *	  A model trained further is no longer calibrated (its scores changed):
 *	  learning a row drops the calibration (bk_model.c, through the parts
 *	  table).
 */
#include "bk_internal.h"

#include <math.h>
#include <string.h>

#define PLATT_MAX_ITER	100
#define PLATT_MIN_STEP	1e-10
#define PLATT_SIGMA		1e-12	/* ridge on the Hessian */
#define PLATT_EPS		1e-5	/* stop when the gradient is this small */

/* the cross-entropy of the sigmoid with A, B over the rows */
static double
platt_loss(const double *f, const double *t, int64_t n, double A, double B)
{
	double		fval = 0.0;

	for (int64_t i = 0; i < n; i++)
	{
		double		fApB = f[i] * A + B;

		/* t log p + (1 - t) log(1 - p) without overflow */
		if (fApB >= 0)
			fval += t[i] * fApB + BkLog1p(BkExp(-fApB));
		else
			fval += (t[i] - 1.0) * fApB + BkLog1p(BkExp(fApB));
	}
	return fval;
}

bool
BkPlattFit(const BkEnv *env, const double *f, const bool *pos, int64_t n,
		   double *Aout, double *Bout)
{
	double	   *t;
	double		prior1 = 0.0,
				prior0,
				hi,
				lo,
				A = 0.0,
				B,
				fval;

	if (n <= 0)
		return false;
	for (int64_t i = 0; i < n; i++)
		prior1 += pos[i];
	prior0 = (double) n - prior1;
	hi = (prior1 + 1.0) / (prior1 + 2.0);
	lo = 1.0 / (prior0 + 2.0);
	t = BkAllocArray(env, (size_t) n, sizeof(double));
	for (int64_t i = 0; i < n; i++)
		t[i] = pos[i] ? hi : lo;
	B = BkLog((prior0 + 1.0) / (prior1 + 1.0));
	fval = platt_loss(f, t, n, A, B);

	for (int it = 0; it < PLATT_MAX_ITER; it++)
	{
		double		h11 = PLATT_SIGMA,
					h22 = PLATT_SIGMA,
					h21 = 0.0,
					g1 = 0.0,
					g2 = 0.0,
					det,
					dA,
					dB,
					gd,
					step = 1.0;

		/* gradient and Hessian */
		for (int64_t i = 0; i < n; i++)
		{
			double		fApB = f[i] * A + B;
			double		p,
						q,
						d1,
						d2;

			if (fApB >= 0)
			{
				p = BkExp(-fApB) / (1.0 + BkExp(-fApB));
				q = 1.0 / (1.0 + BkExp(-fApB));
			}
			else
			{
				p = 1.0 / (1.0 + BkExp(fApB));
				q = BkExp(fApB) / (1.0 + BkExp(fApB));
			}
			d2 = p * q;
			h11 += f[i] * f[i] * d2;
			h22 += d2;
			h21 += f[i] * d2;
			d1 = t[i] - p;
			g1 += f[i] * d1;
			g2 += d1;
		}
		if (fabs(g1) < PLATT_EPS && fabs(g2) < PLATT_EPS)
			break;
		/* Newton direction */
		det = h11 * h22 - h21 * h21;
		dA = -(h22 * g1 - h21 * g2) / det;
		dB = -(-h21 * g1 + h11 * g2) / det;
		gd = g1 * dA + g2 * dB;
		/* backtracking line search */
		while (step >= PLATT_MIN_STEP)
		{
			double		nA = A + step * dA,
						nB = B + step * dB,
						nf = platt_loss(f, t, n, nA, nB);

			if (nf < fval + 1e-4 * step * gd)
			{
				A = nA;
				B = nB;
				fval = nf;
				break;
			}
			step /= 2.0;
		}
		/* no progress along the Newton direction: as good as it gets */
		if (step < PLATT_MIN_STEP)
			break;
		BkCheckInterrupts(env);
	}
	BkFree(env, t);
	*Aout = A;
	*Bout = B;
	/* at the iteration limit the last iterate is still a fit */
	return isfinite(A) && isfinite(B);
}

void
BkModelSetCalibration(BkModel *m, const double *A, const double *B)
{
	if (m->platt == NULL)
		m->platt = BkAllocArray(&m->env, 2 * (size_t) (m->class_cap > 0 ? m->class_cap : 1),
								sizeof(double));
	for (int c = 0; c < m->n_classes; c++)
	{
		m->platt[2 * c] = A[c];
		m->platt[2 * c + 1] = B[c];
	}
}

void
BkModelClearCalibration(BkModel *m)
{
	BkFree(&m->env, m->platt);
	m->platt = NULL;
}

bool
BkModelCalibrated(const BkModel *m)
{
	return m->platt != NULL;
}

void
BkModelCalibration(const BkModel *m, int c, double *A, double *B)
{
	*A = m->platt[2 * c];
	*B = m->platt[2 * c + 1];
}

/*
 * One probability per class, in class order, summing to 1, from the
 * scores of the n classes (in place): each class's sigmoid of its score,
 * normalised.  BkModelProbabilities scores the row (bk_model.c).
 */
void
BkPlattProbabilities(const double *platt, int n, double *prob)
{
	double		sum = 0.0;

	for (int c = 0; c < n; c++)
	{
		double		z = platt[2 * c] * prob[c] + platt[2 * c + 1];

		/* 1 / (1 + exp(z)) without overflow */
		prob[c] = z >= 0 ? BkExp(-z) / (1.0 + BkExp(-z)) : 1.0 / (1.0 + BkExp(z));
		sum += prob[c];
	}
	for (int c = 0; c < n; c++)
		prob[c] = sum > 0.0 ? prob[c] / sum : 1.0 / n;
}
