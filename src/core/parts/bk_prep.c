/*
 * bk_prep.c
 *	  The preparation of a model's inputs: fitted on the training rows,
 *	  stored in the model, replayed identically when it trains on and
 *	  scores rows (doc/preparation.md, "Feature preparation").
 *
 *	  Numeric inputs are standardised, x' = (x - mean) / sd, with the mean
 *	  and the population standard deviation of the training values (an sd
 *	  of 0 divides by 1, as scikit-learn's StandardScaler does).  The sums
 *	  are those of Youngs and Cramer (1971), which PostgreSQL's float8
 *	  aggregates keep: mean = sx / n and sd = sqrt(sxx / n) are, bit for
 *	  bit, avg() and stddev_pop() of the same values in the same order, so
 *	  a model prepared here gives exactly the predictions of a model
 *	  trained on rows standardised by hand in SQL.
 *
 *	  A missing value (a NULL array element, an absent key, a JSON null)
 *	  is an error, or with "impute": "mean" the training mean (0 once
 *	  standardised).  A text input is one-hot encoded with the training
 *	  rows' vocabulary in byte order: level j sets column offset + j to 1;
 *	  a value outside the vocabulary, or a missing one, sets none.  Named
 *	  inputs (the keys of a row) are kept in byte order of their names, so
 *	  the layout does not depend on the order in which keys first appear.
 */
#include "bk_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- byte strings: a hash table of indices (their order: bk_bytes.c) ---- */

static uint64_t
bytes_hash(const char *s, size_t len)
{
	uint64_t	h = UINT64_C(1469598103934665603);	/* FNV-1a */

	for (size_t i = 0; i < len; i++)
	{
		h ^= (uint8_t) s[i];
		h *= UINT64_C(1099511628211);
	}
	return h;
}

/* Open addressing over the indices of an array of strings */
typedef struct StrTable
{
	int			cap;			/* a power of two, or 0 */
	int		   *slot;			/* index + 1; 0 = empty */
} StrTable;

/*
 * The index of s among strs[0..n) through t, or -1; *where gets the slot
 * at which to insert it.
 */
static int
table_find(const StrTable *t, char *const *strs, const uint32_t *lens,
		   const char *s, size_t len, int *where)
{
	uint64_t	h;
	int			i;

	if (t->cap == 0)
	{
		*where = -1;
		return -1;
	}
	h = bytes_hash(s, len);
	for (i = (int) (h & (uint64_t) (t->cap - 1));; i = (i + 1) & (t->cap - 1))
	{
		int			k = t->slot[i] - 1;

		if (k < 0)
		{
			*where = i;
			return -1;
		}
		if (lens[k] == len && memcmp(strs[k], s, len) == 0)
			return k;
	}
}

/* Room for n + 1 strings at a load of at most one half */
static void
table_grow(const BkEnv *env, StrTable *t, char *const *strs, const uint32_t *lens,
		   int n)
{
	int			cap;

	if (t->cap >= 2 * (n + 1))
		return;
	cap = t->cap ? 2 * t->cap : 16;
	while (cap < 2 * (n + 1))
		cap *= 2;
	BkFree(env, t->slot);
	t->slot = BkAllocArray(env, (size_t) cap, sizeof(int));
	t->cap = cap;
	for (int k = 0; k < n; k++)
	{
		int			where;

		(void) table_find(t, strs, lens, strs[k], lens[k], &where);
		t->slot[where] = k + 1;
	}
}

/* ---- the parameters ---- */

void
BkPrepSpecInit(BkPrepSpec *s, bool named)
{
	s->scale = named ? BK_SCALE_STANDARD : BK_SCALE_NONE;
	s->impute = named ? BK_IMPUTE_MEAN : BK_IMPUTE_NONE;
	s->max_levels = BK_DEFAULT_MAX_LEVELS;
	s->target_scale = BK_SCALE_STANDARD;
	s->target_scale_given = false;
}

int
BkPrepSpecSet(BkPrepSpec *s, const char *key, const BkParamInput *in,
			  char *err, size_t errlen)
{
	if (strcmp(key, "target_scale") == 0)
	{
		if (in->type != BK_IN_STRING ||
			(strcmp(in->string, "none") != 0 && strcmp(in->string, "standard") != 0))
		{
			snprintf(err, errlen, "target_scale must be \"none\" or \"standard\"");
			return -1;
		}
		s->target_scale = strcmp(in->string, "standard") == 0 ?
			BK_SCALE_STANDARD : BK_SCALE_NONE;
		s->target_scale_given = true;
		return 1;
	}
	if (strcmp(key, "scale") == 0 || strcmp(key, "impute") == 0)
	{
		bool		scale = key[0] == 's';
		const char *on = scale ? "standard" : "mean";

		if (in->type != BK_IN_STRING ||
			(strcmp(in->string, "none") != 0 && strcmp(in->string, on) != 0))
		{
			snprintf(err, errlen, "%s must be \"none\" or \"%s\"", key, on);
			return -1;
		}
		if (scale)
			s->scale = strcmp(in->string, on) == 0 ? BK_SCALE_STANDARD : BK_SCALE_NONE;
		else
			s->impute = strcmp(in->string, on) == 0 ? BK_IMPUTE_MEAN : BK_IMPUTE_NONE;
		return 1;
	}
	if (strcmp(key, "max_levels") == 0)
	{
		if (in->type != BK_IN_NUMBER || in->number != floor(in->number) ||
			in->number < 1 || in->number > BK_MAX_LEVELS)
		{
			snprintf(err, errlen, "max_levels must be an integer from 1 to %d",
					 BK_MAX_LEVELS);
			return -1;
		}
		s->max_levels = (int) in->number;
		return 1;
	}
	return 0;
}

bool
BkPrepSpecActive(const BkPrepSpec *s)
{
	return s->scale != BK_SCALE_NONE || s->impute != BK_IMPUTE_NONE;
}

/* ---- fitting ---- */

typedef struct FitInput
{
	int			kind;			/* 0 until its first value */
	BkRunningSums sums;			/* of a numeric input */
	int			n_levels;
	int			cap_levels;
	char	  **levels;
	uint32_t   *level_len;
	StrTable	table;
} FitInput;

struct BkPrepFit
{
	BkEnv		env;
	BkPrepSpec	spec;
	bool		named;
	int			n_inputs;		/* -1: an array form before its first row */
	int			cap;
	FitInput   *in;
	char	  **names;			/* named: the keys */
	uint32_t   *name_len;
	StrTable	keys;
	int		   *hint;			/* position in a row -> input + 1 (BkPrepFitKeyAt) */
	int			hint_cap;
};

BkPrepFit *
BkPrepFitNew(const BkEnv *env, const BkPrepSpec *s, bool named)
{
	BkPrepFit  *f = BkAllocArray(env, 1, sizeof(BkPrepFit));

	f->env = *env;
	f->spec = *s;
	f->named = named;
	f->n_inputs = named ? 0 : -1;
	return f;
}

/*
 * Youngs and Cramer's update, as PostgreSQL's float8_accum: n, the sum and
 * the sum of squared deviations from the running mean.
 */
void
BkRunningSumsAdd(BkRunningSums *s, double v)
{
	double		n = s->n + 1.0;
	double		sx = s->sx + v;

	if (s->n > 0.0)
	{
		double		tmp = v * n - sx;

		s->sxx += tmp * tmp / (n * s->n);
	}
	else
		s->sxx = 0.0;
	s->n = n;
	s->sx = sx;
}

void
BkPrepFitArray(BkPrepFit *f, const double *x, const bool *isnull, int n)
{
	if (f->n_inputs < 0)
	{
		if (n > BK_MAX_INPUTS)
			BkRaiseHint(&f->env, BK_ERR_LIMIT, NULL,
						"Prepare the features by hand, or use fewer of them.",
						"features of %d values are more than a prepared model takes (%d)",
						n, BK_MAX_INPUTS);
		f->in = BkAllocArray(&f->env, (size_t) n, sizeof(FitInput));
		f->n_inputs = f->cap = n;
		for (int i = 0; i < n; i++)
			f->in[i].kind = BK_INPUT_NUMERIC;
	}
	if (n != f->n_inputs)
		BkRaise(&f->env, BK_ERR_DATA, NULL,
				"features have %d values, expected %d (the first row's dimension)",
				n, f->n_inputs);
	for (int i = 0; i < n; i++)
	{
		if (isnull && isnull[i])
		{
			if (f->spec.impute == BK_IMPUTE_NONE)
				BkRaiseHint(&f->env, BK_ERR_NULL_VALUE, NULL,
							"Set \"impute\": \"mean\" to replace missing values by the training mean.",
							"NULL in features at position %d", i + 1);
			continue;
		}
		BkRunningSumsAdd(&f->in[i].sums, x[i]);
	}
}

int
BkPrepFitKey(BkPrepFit *f, const char *key, size_t len)
{
	int			where;
	int			k;

	k = table_find(&f->keys, f->names, f->name_len, key, len, &where);
	if (k >= 0)
		return k;
	if (len == 0 || len > BK_MAX_LABEL_LEN || memchr(key, '\0', len) != NULL ||
		!BkValidUtf8(key, len))
		BkRaise(&f->env, BK_ERR_DATA, NULL,
				"a feature key must have 1 to %d bytes of UTF-8, none of them NUL",
				BK_MAX_LABEL_LEN);
	if (f->n_inputs >= BK_MAX_INPUTS)
		BkRaiseHint(&f->env, BK_ERR_LIMIT, NULL,
					"Leave out the keys that are not features.",
					"the rows have more than %d distinct keys", BK_MAX_INPUTS);
	if (f->n_inputs == f->cap)
	{
		int			cap = f->cap ? 2 * f->cap : 16;

		f->in = BkReallocArray(&f->env, f->in, (size_t) cap, sizeof(FitInput));
		memset(f->in + f->cap, 0, sizeof(FitInput) * (size_t) (cap - f->cap));
		f->names = BkReallocArray(&f->env, f->names, (size_t) cap, sizeof(char *));
		f->name_len = BkReallocArray(&f->env, f->name_len, (size_t) cap, sizeof(uint32_t));
		f->cap = cap;
	}
	k = f->n_inputs;
	f->names[k] = BkCopyBytes(&f->env, key, len);
	f->name_len[k] = (uint32_t) len;
	table_grow(&f->env, &f->keys, f->names, f->name_len, k);
	(void) table_find(&f->keys, f->names, f->name_len, key, len, &where);
	f->keys.slot[where] = k + 1;
	f->n_inputs++;
	return k;
}

/*
 * Remember that the key at position pos of a row named input (-1: none):
 * hint[pos] = input + 1, the array grown as positions come (rows of one
 * table list the same keys in the same order)
 */
static void
remember_position(const BkEnv *env, int **hint, int *cap, int pos, int input)
{
	if (pos >= *cap && pos < BK_MAX_INPUTS)
	{
		int			n = *cap ? *cap : 16;

		while (n <= pos)
			n *= 2;
		*hint = BkReallocArray(env, *hint, (size_t) n, sizeof(int));
		memset(*hint + *cap, 0, sizeof(int) * (size_t) (n - *cap));
		*cap = n;
	}
	if (pos < *cap)
		(*hint)[pos] = input + 1;
}

int
BkPrepFitKeyAt(BkPrepFit *f, int pos, const char *key, size_t len)
{
	int			k;

	if (pos < f->hint_cap && f->hint[pos] > 0)
	{
		k = f->hint[pos] - 1;
		if (f->name_len[k] == len && memcmp(f->names[k], key, len) == 0)
			return k;
	}
	k = BkPrepFitKey(f, key, len);
	remember_position(&f->env, &f->hint, &f->hint_cap, pos, k);
	return k;
}

/* The kind of input i is kind from its first value on */
static void
set_kind(BkPrepFit *f, int i, int kind)
{
	FitInput   *in = &f->in[i];

	if (in->kind == 0)
		in->kind = kind;
	else if (in->kind != kind)
		BkRaiseHint(&f->env, BK_ERR_DATA, NULL,
					"Give every row the same kind of value for a key: cast it to text to make it categorical, or to a number.  (to_jsonb writes a float8 NaN or Infinity as the string \"NaN\" or \"Infinity\": leave such rows out.)",
					"key \"%s\" holds %s here and %s in earlier rows", f->names[i],
					kind == BK_INPUT_NUMERIC ? "a number" : "text",
					kind == BK_INPUT_NUMERIC ? "text" : "numbers");
}

void
BkPrepFitNumber(BkPrepFit *f, int i, double v)
{
	set_kind(f, i, BK_INPUT_NUMERIC);
	BkRunningSumsAdd(&f->in[i].sums, v);
}

void
BkPrepFitText(BkPrepFit *f, int i, const char *s, size_t len)
{
	FitInput   *in = &f->in[i];
	int			where;

	set_kind(f, i, BK_INPUT_CATEGORICAL);
	if (table_find(&in->table, in->levels, in->level_len, s, len, &where) >= 0)
		return;
	if (len > BK_MAX_LABEL_LEN)
		BkRaise(&f->env, BK_ERR_LIMIT, NULL,
				"a text value of key \"%s\" has %zu bytes, more than %d",
				f->names[i], len, BK_MAX_LABEL_LEN);
	if (memchr(s, '\0', len) != NULL || !BkValidUtf8(s, len))
		BkRaise(&f->env, BK_ERR_DATA, NULL,
				"a text value of key \"%s\" holds a NUL byte or is not UTF-8", f->names[i]);
	if (in->n_levels >= f->spec.max_levels)
		BkRaiseHint(&f->env, BK_ERR_LIMIT, NULL,
					"Leave the key out (an identifier or free text is no category), or raise \"max_levels\".",
					"key \"%s\" has more than %d distinct text values (max_levels)",
					f->names[i], f->spec.max_levels);
	if (in->n_levels == in->cap_levels)
	{
		int			cap = in->cap_levels ? 2 * in->cap_levels : 8;

		in->levels = BkReallocArray(&f->env, in->levels, (size_t) cap, sizeof(char *));
		in->level_len = BkReallocArray(&f->env, in->level_len, (size_t) cap,
									   sizeof(uint32_t));
		in->cap_levels = cap;
	}
	in->levels[in->n_levels] = BkCopyBytes(&f->env, s, len);
	in->level_len[in->n_levels] = (uint32_t) len;
	table_grow(&f->env, &in->table, in->levels, in->level_len, in->n_levels);
	(void) table_find(&in->table, in->levels, in->level_len, s, len, &where);
	in->table.slot[where] = in->n_levels + 1;
	in->n_levels++;
}

/* qsort of indices by the bytes they point to */
typedef struct SortItem
{
	const char *s;
	uint32_t	len;
	int			k;
} SortItem;

static int
sort_item_cmp(const void *a, const void *b)
{
	const SortItem *x = a,
			   *y = b;

	return BkBytesCompare(x->s, x->len, y->s, y->len);
}

static SortItem *
sorted_items(const BkEnv *env, char *const *strs, const uint32_t *lens, int n)
{
	SortItem   *items = BkAllocArray(env, n > 0 ? (size_t) n : 1, sizeof(SortItem));

	for (int k = 0; k < n; k++)
	{
		items[k].s = strs[k];
		items[k].len = lens[k];
		items[k].k = k;
	}
	qsort(items, (size_t) n, sizeof(SortItem), sort_item_cmp);
	return items;
}

/*
 * Whether a column of variance var and this mean over n values is constant
 * up to rounding: the running sums of a constant 0.7 leave a variance of
 * about 1e-29, and dividing by its root would blow every other value up by
 * 1e14.  The bound is scikit-learn's (_is_constant_feature): var <= n eps
 * var + (n mean eps)^2.
 */
static bool
constant_column(double var, double mean, double n)
{
	const double eps = 2.220446049250313e-16;	/* DBL_EPSILON */
	double		b = n * mean * eps;

	return var <= n * eps * var + b * b;
}

void
BkRunningSumsMoments(const BkRunningSums *s, double *mean, double *sd)
{
	double		var = s->n > 0.0 ? s->sxx / s->n : 0.0;

	*mean = s->n > 0.0 ? s->sx / s->n : 0.0;
	*sd = constant_column(var, *mean, s->n) ? 0.0 : sqrt(var);
}

void
BkPrepDerive(const BkPrep *p, BkPrepInput *in)
{
	BkRunningSums s = {in->n, in->sx, in->sxx};
	double		mean,
				sd;

	BkRunningSumsMoments(&s, &mean, &sd);
	in->center = p->scale == BK_SCALE_STANDARD ? mean : 0.0;
	in->scale = (p->scale == BK_SCALE_STANDARD && sd > 0.0 && isfinite(sd)) ? sd : 1.0;
	in->fill = p->impute == BK_IMPUTE_MEAN ? (mean - in->center) / in->scale : 0.0;
}

BkPrep *
BkPrepFitFinish(const BkPrepFit *f, const BkEnv *env)
{
	BkPrep	   *p;
	SortItem   *order = NULL;
	int			dim = 0;
	bool		any_value = !f->named;

	if (f->n_inputs <= 0)
		BkRaise(env, BK_ERR_DATA, NULL, "the rows have no features");
	p = BkAllocArray(env, 1, sizeof(BkPrep));
	p->scale = f->spec.scale;
	p->impute = f->spec.impute;
	p->named = f->named;
	p->n_inputs = f->n_inputs;
	p->inputs = BkAllocArray(env, (size_t) f->n_inputs, sizeof(BkPrepInput));
	if (f->named)
		order = sorted_items(env, f->names, f->name_len, f->n_inputs);
	for (int i = 0; i < f->n_inputs; i++)
	{
		int			k = order ? order[i].k : i;
		const FitInput *src = &f->in[k];
		BkPrepInput *in = &p->inputs[i];

		if (f->named)
		{
			in->name = BkCopyBytes(env, f->names[k], f->name_len[k]);
			in->name_len = f->name_len[k];
		}
		/* a key that was only ever null is a numeric input with no value */
		in->kind = src->kind ? src->kind : BK_INPUT_NUMERIC;
		any_value |= src->kind != 0;
		in->offset = dim;
		if (in->kind == BK_INPUT_NUMERIC)
		{
			if (!isfinite(src->sums.sx) || !isfinite(src->sums.sxx))
				BkRaiseHint(env, BK_ERR_OVERFLOW, NULL,
							"Scale the input down before training.",
							"the values of %s%s%s are too large to standardise",
							in->name ? "key \"" : "input ",
							in->name ? in->name : "",
							in->name ? "\"" : "");
			in->n = src->sums.n;
			in->sx = src->sums.sx;
			in->sxx = src->sums.sxx;
			BkPrepDerive(p, in);
			dim++;
		}
		else
		{
			SortItem   *lv = sorted_items(env, src->levels, src->level_len, src->n_levels);
			size_t		nl = src->n_levels > 0 ? (size_t) src->n_levels : 1;

			in->n_levels = src->n_levels;
			in->levels = BkAllocArray(env, nl, sizeof(char *));
			in->level_len = BkAllocArray(env, nl, sizeof(uint32_t));
			for (int j = 0; j < src->n_levels; j++)
			{
				in->levels[j] = BkCopyBytes(env, lv[j].s, lv[j].len);
				in->level_len[j] = lv[j].len;
			}
			BkFree(env, lv);
			in->scale = 1.0;
			dim += in->n_levels;
		}
		if (dim > BK_MAX_DIM)
			BkRaise(env, BK_ERR_LIMIT, NULL,
					"the prepared features would have more than %d columns", BK_MAX_DIM);
	}
	BkFree(env, order);
	if (dim == 0 || !any_value)
		BkRaiseHint(env, BK_ERR_DATA, NULL,
					"Give the rows at least one number or text value.",
					"the rows have no feature with a value");
	p->dim = dim;
	return p;
}

void
BkPrepFree(const BkEnv *env, BkPrep *p)
{
	if (p == NULL)
		return;
	for (int i = 0; i < p->n_inputs; i++)
	{
		BkPrepInput *in = &p->inputs[i];

		BkFree(env, in->name);
		for (int j = 0; j < in->n_levels; j++)
			BkFree(env, in->levels[j]);
		BkFree(env, in->levels);
		BkFree(env, in->level_len);
	}
	BkFree(env, p->inputs);
	BkFree(env, p->hint);
	BkFree(env, p->stamp);
	BkFree(env, p);
}

/* ---- the model's preparation ---- */

const BkPrep *
BkModelPrep(const BkModel *m)
{
	return m->prep;
}

void
BkModelSetPrep(BkModel *m, BkPrep *p)
{
	if (p->dim != m->dim)
		BkRaise(&m->env, BK_ERR_INTERNAL, NULL,
				"a preparation of %d columns for a model of dimension %d",
				p->dim, m->dim);
	BkPrepFree(&m->env, m->prep);
	m->prep = p;
}

int
BkPrepDim(const BkPrep *p)
{
	return p->dim;
}

int
BkPrepInputs(const BkPrep *p)
{
	return p->n_inputs;
}

bool
BkPrepNamed(const BkPrep *p)
{
	return p->named;
}

int
BkPrepScale(const BkPrep *p)
{
	return p->scale;
}

int
BkPrepImpute(const BkPrep *p)
{
	return p->impute;
}

const char *
BkPrepInputName(const BkPrep *p, int i, size_t *len)
{
	*len = p->inputs[i].name_len;
	return p->inputs[i].name;
}

int
BkPrepInputKind(const BkPrep *p, int i)
{
	return p->inputs[i].kind;
}

void
BkPrepNumeric(const BkPrep *p, int i, double *count, double *mean,
			  double *center, double *scale, double *fill)
{
	const BkPrepInput *in = &p->inputs[i];

	*count = in->n;
	*mean = in->n > 0.0 ? in->sx / in->n : 0.0;
	*center = in->center;
	*scale = in->scale;
	*fill = in->fill;
}

int
BkPrepLevels(const BkPrep *p, int i)
{
	return p->inputs[i].n_levels;
}

const char *
BkPrepLevel(const BkPrep *p, int i, int j, size_t *len)
{
	*len = p->inputs[i].level_len[j];
	return p->inputs[i].levels[j];
}

/* ---- applying it ---- */

/* "key \"age\"" or "position 3", for messages */
static const char *
input_text(const BkPrep *p, int i, char *buf, size_t len)
{
	if (p->named)
		snprintf(buf, len, "key \"%s\"", p->inputs[i].name);
	else
		snprintf(buf, len, "position %d", i + 1);
	return buf;
}

void
BkPrepApplyArray(const BkModel *m, const double *x, const bool *isnull, int n,
				 double *out)
{
	const BkPrep *p = m->prep;

	if (n != p->n_inputs)
		BkRaise(&m->env, BK_ERR_DATA, NULL,
				"features have %d values, expected %d (the model's inputs)",
				n, p->n_inputs);
	for (int i = 0; i < n; i++)
	{
		const BkPrepInput *in = &p->inputs[i];

		if (isnull && isnull[i])
			BkPrepPutMissing(m, i, out);
		else
			out[in->offset] = (x[i] - in->center) / in->scale;
	}
}

void
BkPrepRowBegin(const BkModel *m, double *out)
{
	BkPrep	   *p = m->prep;	/* its cache changes, not its value */

	memset(out, 0, sizeof(double) * (size_t) p->dim);
	if (p->stamp == NULL)
		p->stamp = BkAllocArray(&m->env, (size_t) p->n_inputs, sizeof(uint32_t));
	if (++p->row == 0)
	{
		memset(p->stamp, 0, sizeof(uint32_t) * (size_t) p->n_inputs);
		p->row = 1;
	}
}

/* the input named key (names in byte order), or -1 */
static int
find_input(const BkPrep *p, const char *key, size_t len)
{
	int			lo = 0,
				hi = p->n_inputs - 1;

	while (lo <= hi)
	{
		int			mid = lo + (hi - lo) / 2;
		int			c = BkBytesCompare(p->inputs[mid].name, p->inputs[mid].name_len, key, len);

		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

int
BkPrepKey(const BkModel *m, int pos, const char *key, size_t len)
{
	BkPrep	   *p = m->prep;
	int			i = -1;

	if (pos < p->hint_cap && p->hint[pos] > 0)
	{
		const BkPrepInput *in = &p->inputs[p->hint[pos] - 1];

		if (in->name_len == len && memcmp(in->name, key, len) == 0)
			i = p->hint[pos] - 1;
	}
	if (i < 0)
	{
		i = find_input(p, key, len);
		remember_position(&m->env, &p->hint, &p->hint_cap, pos, i);
	}
	if (i >= 0)
		p->stamp[i] = p->row;
	return i;
}

int
BkPrepRowEnd(const BkModel *m, double *out)
{
	const BkPrep *p = m->prep;
	int			absent = 0;

	for (int i = 0; i < p->n_inputs; i++)
		if (p->stamp[i] != p->row)
		{
			BkPrepPutMissing(m, i, out);
			absent++;
		}
	return absent;
}

bool
BkPrepRowNamed(const BkModel *m, int input)
{
	return m->prep->stamp[input] == m->prep->row;
}

void
BkPrepPutNumber(const BkModel *m, int i, double v, double *out)
{
	const BkPrepInput *in = &m->prep->inputs[i];
	char		buf[BK_MAX_LABEL_LEN + 16];

	if (in->kind != BK_INPUT_NUMERIC)
		BkRaiseHint(&m->env, BK_ERR_DATA, NULL,
					"Give the key the kind of value it had in training (text), or a null.",
					"%s holds a number; the model takes it as text (categorical)",
					input_text(m->prep, i, buf, sizeof(buf)));
	out[in->offset] = (v - in->center) / in->scale;
}

void
BkPrepPutText(const BkModel *m, int i, const char *s, size_t len, double *out)
{
	const BkPrepInput *in = &m->prep->inputs[i];
	char		buf[BK_MAX_LABEL_LEN + 16];
	int			lo = 0,
				hi = in->n_levels - 1;

	if (in->kind != BK_INPUT_CATEGORICAL)
		BkRaiseHint(&m->env, BK_ERR_DATA, NULL,
					"Give the key the kind of value it had in training (a number), or a null.  (to_jsonb writes a float8 NaN or Infinity as the string \"NaN\" or \"Infinity\".)",
					"%s holds text; the model takes it as a number",
					input_text(m->prep, i, buf, sizeof(buf)));
	while (lo <= hi)
	{
		int			mid = lo + (hi - lo) / 2;
		int			c = BkBytesCompare(in->levels[mid], in->level_len[mid], s, len);

		if (c == 0)
		{
			out[in->offset + mid] = 1.0;
			return;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	/* outside the vocabulary: no column, as one-hot encoding */
}

void
BkPrepPutMissing(const BkModel *m, int i, double *out)
{
	const BkPrep *p = m->prep;
	const BkPrepInput *in = &p->inputs[i];
	char		buf[BK_MAX_LABEL_LEN + 16];

	if (p->impute == BK_IMPUTE_NONE)
		BkRaiseHint(&m->env, BK_ERR_NULL_VALUE, NULL,
					"Train with \"impute\": \"mean\" to replace missing values by the training mean.",
					"%s is missing (NULL), and the model does not impute",
					input_text(p, i, buf, sizeof(buf)));
	if (in->kind == BK_INPUT_NUMERIC)
		out[in->offset] = in->fill;
}

bool
BkPrepSameLayout(const BkPrep *a, const BkPrep *b)
{
	if (a->named != b->named || a->scale != b->scale || a->impute != b->impute ||
		a->n_inputs != b->n_inputs || a->dim != b->dim)
		return false;
	for (int i = 0; i < a->n_inputs; i++)
	{
		const BkPrepInput *x = &a->inputs[i],
				   *y = &b->inputs[i];

		if (x->kind != y->kind || x->name_len != y->name_len ||
			(x->name_len && memcmp(x->name, y->name, x->name_len) != 0) ||
			x->n_levels != y->n_levels)
			return false;
		for (int j = 0; j < x->n_levels; j++)
			if (BkBytesCompare(x->levels[j], x->level_len[j], y->levels[j], y->level_len[j]) != 0)
				return false;
	}
	return true;
}

/* ---- merging: one preparation for two models ---- */

BkPrep *
BkPrepCopy(const BkEnv *env, const BkPrep *p)
{
	BkPrep	   *c = BkAllocArray(env, 1, sizeof(BkPrep));

	*c = *p;
	c->hint = NULL;				/* the caches are the copy's own */
	c->hint_cap = 0;
	c->stamp = NULL;
	c->row = 0;
	c->inputs = BkAllocArray(env, (size_t) p->n_inputs, sizeof(BkPrepInput));
	for (int i = 0; i < p->n_inputs; i++)
	{
		const BkPrepInput *in = &p->inputs[i];
		BkPrepInput *out = &c->inputs[i];

		*out = *in;
		if (in->name)
			out->name = BkCopyBytes(env, in->name, in->name_len);
		if (in->kind == BK_INPUT_CATEGORICAL)
		{
			size_t		nl = in->n_levels > 0 ? (size_t) in->n_levels : 1;

			out->levels = BkAllocArray(env, nl, sizeof(char *));
			out->level_len = BkAllocArray(env, nl, sizeof(uint32_t));
			for (int j = 0; j < in->n_levels; j++)
			{
				out->levels[j] = BkCopyBytes(env, in->levels[j], in->level_len[j]);
				out->level_len[j] = in->level_len[j];
			}
		}
	}
	return c;
}

/* whether the numeric inputs of a and b (same layout) have the same sums */
bool
BkPrepSameSums(const BkPrep *a, const BkPrep *b)
{
	for (int i = 0; i < a->n_inputs; i++)
	{
		const BkPrepInput *x = &a->inputs[i],
				   *y = &b->inputs[i];

		if (x->n != y->n || x->sx != y->sx || x->sxx != y->sxx)
			return false;
	}
	return true;
}

/*
 * The first numeric input whose pooled statistics a model could not hold
 * (BkPrepPool): a count of rows beyond 2^53, which a double no longer
 * counts exactly and the format refuses, or sums that are not finite; -1
 * when every input pools.
 */
int
BkPrepPoolOverflow(const BkPrep *a, const BkPrep *b)
{
	for (int i = 0; i < a->n_inputs; i++)
	{
		const BkPrepInput *x = &a->inputs[i];
		const BkPrepInput *y = &b->inputs[i];
		double		n,
					tmp;

		if (x->kind != BK_INPUT_NUMERIC || y->n == 0.0 || x->n == 0.0)
			continue;
		n = x->n + y->n;
		tmp = x->sx / x->n - y->sx / y->n;
		if (!(n <= BK_PREP_MAX_COUNT) || !isfinite(x->sx + y->sx) ||
			!isfinite(x->sxx + y->sxx + x->n * y->n * tmp * tmp / n))
			return i;
	}
	return -1;
}

/*
 * Pool the sums of b's numeric inputs into a's (same layout), as
 * PostgreSQL's float8_combine does: the statistics of the union of both
 * sides' training rows.
 */
void
BkPrepPool(BkPrep *a, const BkPrep *b)
{
	for (int i = 0; i < a->n_inputs; i++)
	{
		BkPrepInput *x = &a->inputs[i];
		const BkPrepInput *y = &b->inputs[i];

		if (x->kind != BK_INPUT_NUMERIC || y->n == 0.0)
			continue;
		if (x->n == 0.0)
		{
			x->n = y->n;
			x->sx = y->sx;
			x->sxx = y->sxx;
		}
		else
		{
			double		n = x->n + y->n;
			double		tmp = x->sx / x->n - y->sx / y->n;

			x->sxx = x->sxx + y->sxx + x->n * y->n * tmp * tmp / n;
			x->sx += y->sx;
			x->n = n;
		}
	}
	for (int i = 0; i < a->n_inputs; i++)
		if (a->inputs[i].kind == BK_INPUT_NUMERIC)
			BkPrepDerive(a, &a->inputs[i]);
}
