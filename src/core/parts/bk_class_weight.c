/*
 * bk_class_weight.c
 *	  Class weights: the loss of a row of class c counts w_c times, so that
 *	  a rare class is not drowned by a frequent one (the "class_weight"
 *	  parameter).  Either explicit, w_c given per label (1 for a label not
 *	  given), or "balanced": w_c = N / (K n_c) from the rows of each class
 *	  seen since the weights were set (N rows of K classes, n_c of class c),
 *	  the rule of LIBSVM's and scikit-learn's balanced weights, applied to
 *	  the stream so far.
 *
 *	  This file knows no learner: it gives each row its weight, and each
 *	  binary machine the weights of its two sides (BkRow.weight, w_pos,
 *	  w_neg).  Each learner scales its step or its bound by them, as its
 *	  paper's objective allows (doc/multiclass.md, "Class weights").
 */
#include "bk_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* the text labels of the explicit entries */
static void
free_names(const BkEnv *env, BkClassWeights *cw)
{
	if (cw->names != NULL)
		for (int i = 0; i < cw->n; i++)
			BkFree(env, cw->names[i]);
}

void
BkWeightsFree(const BkEnv *env, BkClassWeights *cw)
{
	if (cw == NULL)
		return;
	free_names(env, cw);
	BkFree(env, cw->names);
	BkFree(env, cw->labels);
	BkFree(env, cw->w);
	BkFree(env, cw->count);
	BkFree(env, cw->scratch);
	BkFree(env, cw);
}

/* the model's weights, made empty (counts kept) or new */
static BkClassWeights *
weights_reset(BkModel *m, int mode)
{
	BkClassWeights *cw = m->weights;

	if (cw == NULL)
	{
		cw = BkAllocArray(&m->env, 1, sizeof(BkClassWeights));
		memset(cw, 0, sizeof(*cw));
		m->weights = cw;
	}
	free_names(&m->env, cw);
	cw->n = 0;
	cw->mode = mode;
	cw->cached_n = -1;
	return cw;
}

/* room for the counts of every class of the model (new ones at 0) */
static void
weights_cover_classes(BkModel *m, BkClassWeights *cw)
{
	if (cw->count_n >= m->n_classes)
		return;
	if (cw->count_cap < m->n_classes)
	{
		int			cap = m->class_cap > m->n_classes ? m->class_cap : m->n_classes;

		cw->count = BkReallocArray(&m->env, cw->count, (size_t) cap, sizeof(uint64_t));
		cw->scratch = BkReallocArray(&m->env, cw->scratch, (size_t) cap, sizeof(double));
		cw->count_cap = cap;
	}
	memset(cw->count + cw->count_n, 0,
		   sizeof(uint64_t) * (size_t) (m->n_classes - cw->count_n));
	cw->count_n = m->n_classes;
}

void
BkModelWeightBalanced(BkModel *m)
{
	weights_cover_classes(m, weights_reset(m, BK_WEIGHT_BALANCED));
}

void
BkModelWeightClear(BkModel *m)
{
	BkWeightsFree(&m->env, m->weights);
	m->weights = NULL;
}

void
BkModelWeightExplicit(BkModel *m)
{
	weights_cover_classes(m, weights_reset(m, BK_WEIGHT_EXPLICIT));
}

/* compare entry i's label with (label, text, len), as classes are ordered */
static int
entry_compare(const BkModel *m, const BkClassWeights *cw, int i, int64_t label,
			  const char *text, size_t len)
{
	if (m->text_labels)
		return BkBytesCompare(cw->names[i], strlen(cw->names[i]), text, len);
	return cw->labels[i] < label ? -1 : (cw->labels[i] > label ? 1 : 0);
}

/* a label as messages show it, in quotes */
static const char *
quoted_label(int64_t label, const char *text, size_t len, char *buf, size_t buflen)
{
	if (text)
		snprintf(buf, buflen, "\"%.*s\"", (int) len, text);
	else
		snprintf(buf, buflen, "\"%lld\"", (long long) label);
	return buf;
}

/*
 * Add an entry in label order, checking its weight and that its label is
 * new.  Entries given in order (a stored model's) are appended after one
 * comparison each; others are placed by a search.
 */
static void
add_entry(BkModel *m, int64_t label, const char *text, size_t len, double w)
{
	BkClassWeights *cw = m->weights;
	char		buf[BK_MAX_LABEL_LEN + 32];
	int			at;
	int			c = -1;

	if (cw == NULL || cw->mode != BK_WEIGHT_EXPLICIT)
		BkRaise(&m->env, BK_ERR_INTERNAL, NULL, "class weights are not explicit");
	if (!(w >= BK_MIN_CLASS_WEIGHT && w <= BK_MAX_CLASS_WEIGHT))
		BkRaise(&m->env, BK_ERR_PARAM, NULL,
				"the class weight of label %s must be between %g and %g, got %g",
				quoted_label(label, text, len, buf, sizeof(buf)),
				BK_MIN_CLASS_WEIGHT, BK_MAX_CLASS_WEIGHT, w);
	if (cw->n >= BK_MAX_CLASSES)
		BkRaise(&m->env, BK_ERR_LIMIT, NULL, "at most %d class weights", BK_MAX_CLASSES);
	at = cw->n;
	if (cw->n > 0 && entry_compare(m, cw, cw->n - 1, label, text, len) >= 0)
		for (at = 0; at < cw->n; at++)
			if ((c = entry_compare(m, cw, at, label, text, len)) >= 0)
				break;
	if (c == 0)
		BkRaise(&m->env, BK_ERR_PARAM, NULL,
				"the class weight of label %s is given twice",
				quoted_label(label, text, len, buf, sizeof(buf)));
	cw->labels = BkReallocArray(&m->env, cw->labels, (size_t) cw->n + 1, sizeof(int64_t));
	cw->names = BkReallocArray(&m->env, cw->names, (size_t) cw->n + 1, sizeof(char *));
	cw->w = BkReallocArray(&m->env, cw->w, (size_t) cw->n + 1, sizeof(double));
	memmove(cw->labels + at + 1, cw->labels + at, sizeof(int64_t) * (size_t) (cw->n - at));
	memmove(cw->names + at + 1, cw->names + at, sizeof(char *) * (size_t) (cw->n - at));
	memmove(cw->w + at + 1, cw->w + at, sizeof(double) * (size_t) (cw->n - at));
	cw->labels[at] = text ? 0 : label;
	cw->names[at] = text ? BkCopyBytes(&m->env, text, len) : NULL;
	cw->w[at] = w;
	cw->n++;
	cw->cached_n = -1;
}

/* the first label of a model, class or weight, fixes the label type */
static void
fix_label_type(BkModel *m, bool text)
{
	if (m->n_classes == 0 && m->weights->n == 0)
		m->text_labels = text;
	else if (m->text_labels != text)
		BkRaise(&m->env, BK_ERR_PARAM, NULL,
				"the model has %s labels, got a class weight of a%s label",
				m->text_labels ? "text" : "integer", text ? " text" : "n integer");
}

void
BkModelWeightClass(BkModel *m, int64_t label, double w)
{
	fix_label_type(m, false);
	add_entry(m, label, NULL, 0, w);
}

void
BkModelWeightClassText(BkModel *m, const char *label, size_t len, double w)
{
	fix_label_type(m, true);
	if (len == 0 || len > BK_MAX_LABEL_LEN || memchr(label, '\0', len) != NULL)
		BkRaise(&m->env, BK_ERR_PARAM, NULL,
				"a class weight's label must be 1 to %d bytes without NUL", BK_MAX_LABEL_LEN);
	add_entry(m, 0, label, len, w);
}

/* the explicit weight of class c: its entry's, or 1 */
static double
explicit_weight(const BkModel *m, const BkClassWeights *cw, int c)
{
	const char *text = m->text_labels ? m->class_names[c] : NULL;
	size_t		len = text ? strlen(text) : 0;

	for (int i = 0; i < cw->n; i++)
		if (entry_compare(m, cw, i, m->classes[c], text, len) == 0)
			return cw->w[i];
	return 1.0;
}

/*
 * The weight of every class into cw->scratch.  Balanced: N / (K n_c) over
 * the K classes with rows; a class without rows gets 0 (it weighs on no
 * step: no row of it was seen, and no SV carries its label alone).
 */
static void
class_weights(const BkModel *m, BkClassWeights *cw)
{
	if (cw->mode == BK_WEIGHT_EXPLICIT)
	{
		/*
		 * looked up once per class table: a row then costs O(K), not a
		 * search of the entries for each of its K classes
		 */
		if (cw->cached_n != m->n_classes)
		{
			for (int c = 0; c < m->n_classes; c++)
				cw->scratch[c] = explicit_weight(m, cw, c);
			cw->cached_n = m->n_classes;
		}
		return;
	}
	{
		uint64_t	total = 0;
		int			k = 0;

		for (int c = 0; c < m->n_classes; c++)
			if (cw->count[c] > 0)
			{
				total += cw->count[c];
				k++;
			}
		for (int c = 0; c < m->n_classes; c++)
			cw->scratch[c] = cw->count[c] > 0 ?
				(double) total / ((double) k * (double) cw->count[c]) : 0.0;
	}
}

double
BkModelClassWeight(BkModel *m, int c)
{
	BkClassWeights *cw = m->weights;

	if (cw == NULL)
		return 1.0;
	weights_cover_classes(m, cw);
	class_weights(m, cw);
	return cw->scratch[c];
}

double
BkWeightsLargest(BkModel *m)
{
	BkClassWeights *cw = m->weights;
	double		top = 0.0;

	if (cw == NULL)
		return 1.0;
	weights_cover_classes(m, cw);
	class_weights(m, cw);
	for (int c = 0; c < m->n_classes; c++)
		top = fmax(top, cw->scratch[c]);
	return top > 0.0 ? top : 1.0;
}

void
BkWeightsForRow(BkModel *m, int cls, BkRow *rows)
{
	BkClassWeights *cw = m->weights;
	const double *w;
	double		top = 0.0,
				second = 0.0;
	int			top_c = -1;

	if (cw == NULL)
	{
		for (int k = 0; k < m->n_machines; k++)
			rows[k].weight = rows[k].w_pos = rows[k].w_neg = 1.0;
		return;
	}
	weights_cover_classes(m, cw);
	cw->count[cls]++;
	class_weights(m, cw);
	w = cw->scratch;
	for (int c = 0; c < m->n_classes; c++)
	{
		if (w[c] > top)
		{
			second = top;
			top = w[c];
			top_c = c;
		}
		else if (w[c] > second)
			second = w[c];
	}
	for (int k = 0; k < m->n_machines; k++)
	{
		BkRow	   *row = &rows[k];

		row->weight = w[cls];
		if (m->n_machines == 1)
		{
			/* positive: the second class (a multi-class machine uses neither) */
			row->w_pos = m->n_classes > 1 ? w[1] : w[0];
			row->w_neg = w[0];
		}
		else
		{
			/*
			 * k versus the rest: the rest's SVs are of several classes, and
			 * a machine does not keep which; its side weight is the largest
			 * of theirs, a bound that holds for each
			 */
			row->w_pos = w[k];
			row->w_neg = top_c == k ? second : top;
		}
		/* a side with no class of rows yet: no SV of it has a bound to keep */
		if (row->w_pos <= 0.0)
			row->w_pos = row->weight;
		if (row->w_neg <= 0.0)
			row->w_neg = row->weight;
	}
}

void
BkWeightsPermute(BkModel *m, const int *perm)
{
	BkClassWeights *cw = m->weights;

	if (cw == NULL)
		return;
	weights_cover_classes(m, cw);
	{
		uint64_t   *tmp = BkAllocArray(&m->env, (size_t) m->n_classes, sizeof(uint64_t));

		for (int i = 0; i < m->n_classes; i++)
			tmp[i] = cw->count[perm[i]];
		memcpy(cw->count, tmp, sizeof(uint64_t) * (size_t) m->n_classes);
		BkFree(&m->env, tmp);
	}
	cw->cached_n = -1;
}

bool
BkWeightsSame(const BkModel *a, const BkModel *b)
{
	const BkClassWeights *x = a->weights,
			   *y = b->weights;

	if (x == NULL || y == NULL)
		return x == y;
	if (x->mode != y->mode || x->n != y->n)
		return false;
	/* entries of integer and of text labels are never the same */
	if (x->n > 0 && a->text_labels != b->text_labels)
		return false;
	for (int i = 0; i < x->n; i++)
	{
		if (x->w[i] != y->w[i])
			return false;
		if (a->text_labels ? strcmp(x->names[i], y->names[i]) != 0 :
			x->labels[i] != y->labels[i])
			return false;
	}
	return true;
}

void
BkWeightsAddCounts(BkModel *a, const BkModel *b)
{
	BkClassWeights *x = a->weights;
	const BkClassWeights *y = b->weights;

	if (x == NULL || y == NULL)
		return;
	weights_cover_classes(a, x);
	/* the same classes in the same order on both sides (BkModelMerge) */
	for (int c = 0; c < a->n_classes && c < y->count_n; c++)
		x->count[c] += y->count[c];
}

int
BkModelWeightMode(const BkModel *m)
{
	return m->weights ? m->weights->mode : BK_WEIGHT_NONE;
}

int
BkModelWeightEntries(const BkModel *m)
{
	return m->weights ? m->weights->n : 0;
}

double
BkModelWeightEntry(const BkModel *m, int i, int64_t *label, const char **text)
{
	const BkClassWeights *cw = m->weights;

	*label = cw->labels[i];
	*text = m->text_labels ? cw->names[i] : NULL;
	return cw->w[i];
}

uint64_t
BkModelWeightRows(const BkModel *m, int c)
{
	const BkClassWeights *cw = m->weights;

	return cw != NULL && c < cw->count_n ? cw->count[c] : 0;
}
