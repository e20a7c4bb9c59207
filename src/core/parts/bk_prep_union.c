/*
 * bk_prep_union.c
 *	  The union of two preparations of named rows, for merging models
 *	  whose rows showed different keys or text values (parallel workers,
 *	  partitions or shards that each saw their own vocabulary):
 *	  doc/preparation.md, "Continued, merged, stored".
 *
 *	  The union has every key of either side, in byte order of the names
 *	  (the order of every preparation's inputs, bk_prep.c); a key of both
 *	  sides must have the same kind on both, and both sides the same
 *	  modes ("scale", "impute").  A categorical input's levels are the
 *	  union of both sides' levels, in byte order.  Each side's stored
 *	  vectors are then re-laid into the union (BkPrepUnionSide's column
 *	  map): its own columns keep their values, and every column it did not
 *	  have holds what the union prepares for a row of that side, which
 *	  lacked the key or never had the level:
 *
 *	    - a categorical input's level the side never saw: 0, as a value
 *	      outside the vocabulary sets no column (BkPrepPutText);
 *	    - a categorical key the side never saw: 0 in every level, as a
 *	      missing value sets no column (BkPrepPutMissing);
 *	    - a numeric key the side never saw: the imputed value, which the
 *	      pooling (BkPrepPool, BkPrepRemapModel: a side with no value of
 *	      an input holds its fill) sets from the union's statistics, those
 *	      of the other side's rows alone.  The side's own preparation in
 *	      the union layout counts no value of the input, so its fill there
 *	      is 0 until then.
 *
 *	  A missing key is an error unless the models impute ("impute":
 *	  "none"): a row of the side that lacked a key would be refused by the
 *	  merged model, so such models do not merge.  New levels need no
 *	  imputation (a value outside the vocabulary is never an error).
 *	  Every column a side did not have is constant (0) over that side's
 *	  vectors, so the distances and dot products between them, hence its
 *	  kernel values, are those of the side's own layout.
 */
#include "bk_internal.h"

#include <stdio.h>
#include <string.h>

static const char *union_hint =
"Merge models trained with the same \"scale\" and \"impute\" on rows whose keys hold the same kind of value.";

/* c = a copy of in's name and kind (no statistics, no levels) */
static void
copy_input_head(const BkEnv *env, BkPrepInput *c, const BkPrepInput *in)
{
	memset(c, 0, sizeof(*c));
	c->name = BkCopyBytes(env, in->name, in->name_len);
	c->name_len = in->name_len;
	c->kind = in->kind;
	c->scale = 1.0;
}

/* c's levels: the union of x's and y's (either may be NULL), in byte order */
static void
union_levels(const BkEnv *env, BkPrepInput *c, const BkPrepInput *x,
			 const BkPrepInput *y)
{
	int			nx = x ? x->n_levels : 0;
	int			ny = y ? y->n_levels : 0;
	int			i = 0,
				j = 0,
				n = 0;
	size_t		cap = (size_t) nx + (size_t) ny;

	c->levels = BkAllocArray(env, cap > 0 ? cap : 1, sizeof(char *));
	c->level_len = BkAllocArray(env, cap > 0 ? cap : 1, sizeof(uint32_t));
	while (i < nx || j < ny)
	{
		const BkPrepInput *from;
		int			k;
		int			cmp;

		if (i == nx)
			cmp = 1;
		else if (j == ny)
			cmp = -1;
		else
			cmp = BkBytesCompare(x->levels[i], x->level_len[i],
								 y->levels[j], y->level_len[j]);
		from = cmp <= 0 ? x : y;
		k = cmp <= 0 ? i : j;
		c->levels[n] = BkCopyBytes(env, from->levels[k], from->level_len[k]);
		c->level_len[n] = from->level_len[k];
		n++;
		if (cmp <= 0)
			i++;
		if (cmp >= 0)
			j++;
	}
	c->n_levels = n;
	if (n > BK_MAX_LEVELS)
		BkRaiseHint(env, BK_ERR_LIMIT, NULL,
					"Leave the key out of the rows (an identifier or free text is no category).",
					"cannot merge: key \"%s\" would have %d distinct text values, more than %d",
					c->name, n, BK_MAX_LEVELS);
}

/*
 * Check that a and b (named preparations) can take a union, naming the
 * first obstacle: the modes, a key of two kinds, a key of one side only
 * in models that do not impute.
 */
static void
check_union(const BkEnv *env, const BkPrep *a, const BkPrep *b)
{
	int			i = 0,
				j = 0;

	if (!a->named || !b->named)
		BkRaiseHint(env, BK_ERR_PARAM, NULL, union_hint,
					"cannot merge models whose feature preparations differ: %s",
					a->named == b->named ?
					"arrays of different lengths" :
					"one takes named features (jsonb), the other arrays");
	if (a->scale != b->scale || a->impute != b->impute)
		BkRaiseHint(env, BK_ERR_PARAM, NULL, union_hint,
					"cannot merge models whose feature preparations differ in \"%s\"",
					a->scale != b->scale ? "scale" : "impute");
	while (i < a->n_inputs || j < b->n_inputs)
	{
		int			cmp;
		const BkPrepInput *one;

		if (i == a->n_inputs)
			cmp = 1;
		else if (j == b->n_inputs)
			cmp = -1;
		else
			cmp = BkBytesCompare(a->inputs[i].name, a->inputs[i].name_len,
								 b->inputs[j].name, b->inputs[j].name_len);
		if (cmp == 0)
		{
			if (a->inputs[i].kind != b->inputs[j].kind)
				BkRaiseHint(env, BK_ERR_PARAM, NULL, union_hint,
							"cannot merge models whose feature preparations differ: key \"%s\" is %s in one and %s in the other",
							a->inputs[i].name,
							a->inputs[i].kind == BK_INPUT_NUMERIC ? "numeric" : "categorical",
							b->inputs[j].kind == BK_INPUT_NUMERIC ? "numeric" : "categorical");
			i++;
			j++;
			continue;
		}
		one = cmp < 0 ? &a->inputs[i] : &b->inputs[j];
		if (a->impute == BK_IMPUTE_NONE)
			BkRaiseHint(env, BK_ERR_PARAM, NULL,
						"Train both models with \"impute\": \"mean\", or on rows with the same keys.",
						"cannot merge models whose feature preparations differ: key \"%s\" is in one only, and without \"impute\" the merged model could not prepare the other's rows, which lack it",
						one->name);
		if (cmp < 0)
			i++;
		else
			j++;
	}
}

BkPrep *
BkPrepUnion(const BkEnv *env, const BkPrep *a, const BkPrep *b)
{
	BkPrep	   *u;
	int			i = 0,
				j = 0,
				n = 0;
	int64_t		dim = 0;

	check_union(env, a, b);
	if ((int64_t) a->n_inputs + b->n_inputs > INT32_MAX)
		BkRaise(env, BK_ERR_LIMIT, NULL, "cannot merge: too many inputs");
	u = BkAllocArray(env, 1, sizeof(BkPrep));
	u->scale = a->scale;
	u->impute = a->impute;
	u->named = true;
	u->inputs = BkAllocArray(env, (size_t) a->n_inputs + (size_t) b->n_inputs,
							 sizeof(BkPrepInput));
	while (i < a->n_inputs || j < b->n_inputs)
	{
		const BkPrepInput *x = i < a->n_inputs ? &a->inputs[i] : NULL;
		const BkPrepInput *y = j < b->n_inputs ? &b->inputs[j] : NULL;
		BkPrepInput *c = &u->inputs[n];
		int			cmp;

		if (x == NULL)
			cmp = 1;
		else if (y == NULL)
			cmp = -1;
		else
			cmp = BkBytesCompare(x->name, x->name_len, y->name, y->name_len);
		if (cmp > 0)
			x = NULL;
		if (cmp < 0)
			y = NULL;
		copy_input_head(env, c, x ? x : y);
		u->n_inputs = ++n;		/* freed with u from here on */
		c->offset = (int) dim;
		if (c->kind == BK_INPUT_CATEGORICAL)
		{
			union_levels(env, c, x, y);
			dim += c->n_levels;
		}
		else
		{
			BkPrepDerive(u, c);
			dim++;
		}
		if (x)
			i++;
		if (y)
			j++;
	}
	if (n > BK_MAX_INPUTS || dim > BK_MAX_DIM)
	{
		BkPrepFree(env, u);
		BkRaiseHint(env, BK_ERR_LIMIT, NULL,
					"Leave out the keys that are not features.",
					n > BK_MAX_INPUTS ?
					"cannot merge: the merged preparation would have more than %d keys" :
					"cannot merge: the merged preparation would have more than %d columns",
					n > BK_MAX_INPUTS ? BK_MAX_INPUTS : BK_MAX_DIM);
	}
	u->dim = (int) dim;
	return u;
}

/* the input of p named like in, or -1 (names in byte order) */
static int
find_named(const BkPrep *p, const BkPrepInput *in)
{
	int			lo = 0,
				hi = p->n_inputs - 1;

	while (lo <= hi)
	{
		int			mid = lo + (hi - lo) / 2;
		int			c = BkBytesCompare(p->inputs[mid].name, p->inputs[mid].name_len,
									   in->name, in->name_len);

		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

BkPrep *
BkPrepUnionSide(const BkEnv *env, const BkPrep *u, const BkPrep *side, int *map,
				double *fill)
{
	BkPrep	   *s = BkPrepCopy(env, u);

	memset(fill, 0, sizeof(double) * (size_t) u->dim);
	for (int i = 0; i < side->n_inputs; i++)
	{
		const BkPrepInput *from = &side->inputs[i];
		int			k = find_named(u, from);
		BkPrepInput *to;

		if (k < 0 || u->inputs[k].kind != from->kind)
			BkRaise(env, BK_ERR_INTERNAL, NULL, "a side's input is not in the union");
		to = &s->inputs[k];
		if (from->kind == BK_INPUT_NUMERIC)
		{
			/* the side's statistics: its values stay as they are */
			to->n = from->n;
			to->sx = from->sx;
			to->sxx = from->sxx;
			BkPrepDerive(s, to);
			map[from->offset] = to->offset;
		}
		else
		{
			/* both level lists in byte order: walk them together */
			int			j = 0;

			for (int l = 0; l < from->n_levels; l++)
			{
				while (j < to->n_levels &&
					   BkBytesCompare(to->levels[j], to->level_len[j],
									  from->levels[l], from->level_len[l]) < 0)
					j++;
				if (j == to->n_levels ||
					BkBytesCompare(to->levels[j], to->level_len[j],
								   from->levels[l], from->level_len[l]) != 0)
					BkRaise(env, BK_ERR_INTERNAL, NULL, "a side's level is not in the union");
				map[from->offset + l] = to->offset + j;
			}
		}
	}
	/* a numeric input the side lacks: its fill (0: no value counted) */
	for (int k = 0; k < s->n_inputs; k++)
		if (s->inputs[k].kind == BK_INPUT_NUMERIC && find_named(side, &s->inputs[k]) < 0)
			fill[s->inputs[k].offset] = s->inputs[k].fill;
	return s;
}
