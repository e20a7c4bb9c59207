/*
 * bk_export_libsvm.c
 *	  A model as LIBSVM's model text, the file svm-train writes and
 *	  svm-predict reads (LIBSVM 3.x, svm.cpp's svm_save_model): a header
 *	  of "keyword value" lines, "SV", then one support vector a line, its
 *	  coefficient then its non-zero values as index:value (1-based).
 *	  svm-predict's decision value is sum_j coef_j k(x, sv_j) - rho.
 *
 *	  What LIBSVM can express, and how it maps:
 *	  - a classifier of two integer classes (a binary machine, or Pegasos
 *	    with two classes): c_svc with labels "second first", so that its
 *	    decision value is the model's (bk_decision) and a positive one
 *	    predicts the second class, as the model does; the support vectors
 *	    of positive coefficient first (LIBSVM's nr_sv counts them per
 *	    label), rho minus its bias (0 but for a model imported from LIBSVM);
 *	  - a regressor: epsilon_svr, the coefficients times the target's
 *	    standard deviation and rho minus its mean, so that the decision
 *	    value is bk_predict_value;
 *	  - a novelty detector: one_class, rho its threshold, so that the
 *	    decision value is minus bk_novelty (svm-predict says -1, an
 *	    outlier, where bk_novelty is positive, and at exactly 0).
 *	  Numbers are written with 17 significant digits, which read back to
 *	  the same doubles.  Refused: more than two classes (LIBSVM's
 *	  multi-class is one-vs-one; a one-vs-rest or multi-class Pegasos
 *	  model is not), fewer than two, text labels or labels beyond LIBSVM's
 *	  int, and a model with a preparation of its inputs (LIBSVM scores raw
 *	  features).  A calibrated model's probabilities are not exported:
 *	  LIBSVM's one sigmoid is not the model's normalised pair.
 */
#include "bk_export.h"
#include "bk_protobuf.h"
#include "bk_target.h"

#include <stdarg.h>
#include <stdio.h>

static void
put(BkPb *b, const char *fmt,...) BK_PRINTF(2, 3);

static void
put(BkPb *b, const char *fmt,...)
{
	char		line[128];
	va_list		ap;
	int			n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t) n >= sizeof(line))
		BkRaise(b->env, BK_ERR_INTERNAL, NULL, "a line of the LIBSVM export is too long");
	BkPbRaw(b, line, (size_t) n);
}

static void
refuse(const BkModel *m, const char *hint, const char *why)
{
	BkRaiseHint(&m->env, BK_ERR_UNSUPPORTED, NULL, hint,
				"format \"libsvm\" cannot express %s", why);
}

/* the checks: what LIBSVM's model text cannot hold */
static void
check_expressible(const BkModel *m)
{
	bool		classifier = m->target == NULL && m->novelty == NULL;

	if (m->prep != NULL)
		refuse(m, "Train with \"scale\": \"none\" on a features array, or export to \"onnx\", whose graph holds the preparation.",
			   "a model that prepares its inputs (standardisation, imputation or named inputs): LIBSVM scores raw features");
	if (!classifier)
		return;
	if (m->n_classes > 2)
		refuse(m, "Export it to \"onnx\", or train one binary model per pair of classes.",
			   "a classifier of more than two classes: LIBSVM's multi-class models are one-vs-one, this model's are not");
	if (m->n_classes < 2)
		refuse(m, NULL, "a classifier of fewer than two classes");
	if (m->text_labels)
		refuse(m, "Train it with integer labels, or export to \"onnx\".",
			   "a classifier of text labels: LIBSVM's labels are integers");
	for (int c = 0; c < m->n_classes; c++)
		if (m->classes[c] < INT32_MIN || m->classes[c] > INT32_MAX)
			refuse(m, NULL, "a label beyond LIBSVM's 32-bit integers");
}

static void
put_sv(BkPb *b, const BkExpansion *e, int j, double coef)
{
	put(b, "%.17g", coef);
	for (int i = 0; i < e->dim; i++)
		if (e->sv[j][i] != 0.0)
			put(b, " %d:%.17g", i + 1, e->sv[j][i]);
	put(b, "\n");
}

uint8_t *
BkExportLibsvm(BkModel *m, size_t *len)
{
	const BkParams *p = &m->params;
	bool		classifier = m->target == NULL && m->novelty == NULL;
	BkExpansion e;
	BkPb		b;
	double		scale = 1.0,
				rho = 0.0;
	int			n_pos = 0;

	check_expressible(m);
	BkExpansionOf(m, &e);
	BkPbInit(&b, &m->env);

	put(&b, "svm_type %s\n", classifier ? "c_svc" :
		m->target != NULL ? "epsilon_svr" : "one_class");
	switch (p->kernel)
	{
		case BK_KERNEL_LINEAR:
			put(&b, "kernel_type linear\n");
			break;
		case BK_KERNEL_POLY:
			put(&b, "kernel_type polynomial\ndegree %lld\ngamma %.17g\ncoef0 %.17g\n",
				(long long) p->degree, p->gamma, p->coef0);
			break;
		case BK_KERNEL_RBF:
			put(&b, "kernel_type rbf\ngamma %.17g\n", p->gamma);
			break;
		default:
			refuse(m, NULL, "the model's kernel");
	}
	if (m->target != NULL)
	{
		scale = m->target->sd;
		rho = -m->target->mean;
	}
	else if (m->novelty != NULL)
		rho = m->novelty->rho;
	else
		rho = -e.decision_offset;
	put(&b, "nr_class 2\ntotal_sv %d\nrho %.17g\n", e.n_sv, rho);
	if (classifier)
	{
		for (int j = 0; j < e.n_sv; j++)
			n_pos += e.decision[j] > 0.0;
		put(&b, "label %lld %lld\nnr_sv %d %d\n",
			(long long) m->classes[1], (long long) m->classes[0],
			n_pos, e.n_sv - n_pos);
	}
	put(&b, "SV\n");
	if (classifier)
	{
		/* label 0's (the second class's) support vectors first */
		for (int j = 0; j < e.n_sv; j++)
			if (e.decision[j] > 0.0)
				put_sv(&b, &e, j, e.decision[j]);
		for (int j = 0; j < e.n_sv; j++)
			if (!(e.decision[j] > 0.0))
				put_sv(&b, &e, j, e.decision[j]);
	}
	else
		for (int j = 0; j < e.n_sv; j++)
			put_sv(&b, &e, j, scale * e.coef[j]);
	BkExpansionFree(m, &e);
	*len = b.len;
	return b.buf;
}
