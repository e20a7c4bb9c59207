/*
 * bk_part_bias.c
 *	  A classifier's bias as a part of the model (bk_part.h), the section
 *	  of flag bit 9 (doc/format.md, "Bias"): f64 per class, what the
 *	  class's score adds.  A binary machine's f gives the scores -f and f,
 *	  so its two values are -b and b (f + b is the machine's decision);
 *	  one-vs-rest machine k's is b_k.  The bias stays fixed while the model
 *	  learns (the learners' steps see the biased f); a merge averages it
 *	  with the machines' weights, a missing one counting 0.  A model
 *	  imported from LIBSVM text has it (minus a C-SVC's rho); no learner
 *	  learns one, and models of natively multi-class learners, regressors
 *	  and novelty detectors have none (their offsets are elsewhere).
 */
#include "bk_part.h"
#include "bk_base.h"
#include "bk_learner.h"

#include <math.h>
#include <string.h>

static bool
bias_present(const BkModel *m)
{
	return m->bias != NULL;
}

static bool
bias_size(const BkModel *m, size_t *total)
{
	return BkAddSize(*total, 8 * (size_t) m->n_classes, total);
}

static size_t
bias_max_size(int n_classes)
{
	return 8 * (size_t) (n_classes > 0 ? n_classes : 1);
}

static void
bias_write(Writer *w, const BkModel *m)
{
	w_f64s(w, m->bias, (size_t) m->n_classes);
}

/*
 * finite values, one per class, of a classifier of binary machines; of
 * two classes (one machine), opposite
 */
static bool
bias_parse(Reader *r, const BkModel *hdr, BkModel *m)
{
	size_t		n = (size_t) hdr->n_classes;
	double		two[2];

	if (hdr->params.regression || hdr->params.novelty)
		return BkReadFail(r, "a bias in a %s", hdr->params.regression ? "regressor" : "novelty detector");
	if (BkLearnerOf(&hdr->params)->multiclass)
		return BkReadFail(r, "a bias in a model of algorithm \"%s\"", BkAlgorithmName(&hdr->params));
	if (n == 0)
		return BkReadFail(r, "a bias of no class");
	if (!need(r, 8 * n, "bias"))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(bits_to_double(get_u64(r->buf + r->pos + 8 * i))) &&
			!BkReadFailValue(r, "bias %zu is not finite", i))
			return false;
	if (n == 2)
	{
		two[0] = bits_to_double(get_u64(r->buf + r->pos));
		two[1] = bits_to_double(get_u64(r->buf + r->pos + 8));
		if (isfinite(two[0]) && two[0] != -two[1])
			return BkReadFail(r, "the two classes' biases %g and %g of one machine are not opposite",
							  two[0], two[1]);
	}
	if (m)
		m->bias = BkAllocArray(&m->env, n, sizeof(double));
	return BkReadF64s(r, m ? m->bias : NULL, n, "bias");
}

/*
 * a new class: of a model of one class (one machine, score -f - b) the
 * second class's score is f + b; a later class, a new one-vs-rest
 * machine, has none
 */
static void
bias_new_class(BkModel *m)
{
	int			n = m->n_classes;

	if (m->bias == NULL)
		return;
	m->bias = BkReallocArray(&m->env, m->bias, (size_t) n + 1, sizeof(double));
	m->bias[n] = n == 1 ? -m->bias[0] : 0.0;
}

static void
bias_permute(BkModel *m, const int *perm)
{
	int			n = m->n_classes;
	double	   *b;

	if (m->bias == NULL)
		return;
	b = BkAllocArray(&m->env, (size_t) n, sizeof(double));
	for (int i = 0; i < n; i++)
		b[i] = m->bias[perm[i]];
	memcpy(m->bias, b, sizeof(double) * (size_t) n);
	BkFree(&m->env, b);
}

/* the classes aligned: the average with the machines' weights */
static void
bias_merge(BkModel *dst, const BkModel *src)
{
	BkBase		shared;
	uint64_t	t;
	double		wa,
				wb;
	int			n = dst->n_classes;

	if (dst->bias == NULL && src->bias == NULL)
		return;
	memset(&shared, 0, sizeof(shared));
	if (BkBaseShared(dst, src) != NULL)
		shared = *BkBaseShared(dst, src);
	t = dst->rows_seen + src->rows_seen - 2 * shared.rows_seen;
	wa = t > 0 ? (double) (dst->rows_seen - shared.rows_seen) / (double) t : 0.5;
	wb = t > 0 ? (double) (src->rows_seen - shared.rows_seen) / (double) t : 0.5;
	if (dst->bias == NULL)
		dst->bias = BkAllocArray(&dst->env, (size_t) n, sizeof(double));
	else
		dst->bias = BkReallocArray(&dst->env, dst->bias, (size_t) n, sizeof(double));
	for (int c = 0; c < n; c++)
		dst->bias[c] = wa * dst->bias[c] + wb * (src->bias ? src->bias[c] : 0.0);
}

static void
bias_free(BkModel *m)
{
	BkFree(&m->env, m->bias);
	m->bias = NULL;
}

bool
BkModelBias(const BkModel *m, int c, double *bias)
{
	if (m->bias == NULL || c < 0 || c >= m->n_classes)
		return false;
	*bias = m->bias[c];
	return true;
}

const BkPart BkPartBias = {
	.name = "bias",
	.flag = 0x200,
	.flag_name = "bias",
	.since = 2,
	.present = bias_present,
	.size = bias_size,
	.max_size = bias_max_size,
	.write = bias_write,
	.parse = bias_parse,
	.on_new_class = bias_new_class,
	.permute = bias_permute,
	.merge = bias_merge,
	.free = bias_free,
};
