/*
 * bk_part_prep.c
 *	  The preparation of the inputs as a part of the model (bk_part.h;
 *	  bk_prep.c fits and applies it), the section of flag bit 4
 *	  (doc/format.md, "Preparation"), and its merge: the statistics of
 *	  both sides pooled.
 */
#include "bk_part.h"

#include <math.h>

static bool
prep_present(const BkModel *m)
{
	return m->prep != NULL;
}

/*
 * The preparation (flag bit 4): u32 n_inputs | u8 named | u8 scale |
 * u8 impute | u8 0, then per input u8 kind | u8 0 | u16 0 | u32 name_len |
 * the name's bytes, and for a numeric input f64 n, sx, sxx, for a
 * categorical one u32 n_levels and each level as u32 length + bytes.
 */
static size_t
prep_size(const BkPrep *p)
{
	size_t		total = 8;

	for (int i = 0; i < p->n_inputs; i++)
	{
		const BkPrepInput *in = &p->inputs[i];

		total += 8 + in->name_len;
		if (in->kind == BK_INPUT_NUMERIC)
			total += 24;
		else
		{
			total += 4;
			for (int j = 0; j < in->n_levels; j++)
				total += 4 + in->level_len[j];
		}
	}
	return total;
}

static void
prep_encode(Writer *w, const BkPrep *p)
{
	w_u32(w, (uint32_t) p->n_inputs);
	w->buf[w->pos++] = p->named ? 1 : 0;
	w->buf[w->pos++] = (uint8_t) p->scale;
	w->buf[w->pos++] = (uint8_t) p->impute;
	w->buf[w->pos++] = 0;
	for (int i = 0; i < p->n_inputs; i++)
	{
		const BkPrepInput *in = &p->inputs[i];

		w->buf[w->pos++] = (uint8_t) in->kind;
		w->buf[w->pos++] = 0;
		w_u16(w, 0);
		w_u32(w, in->name_len);
		if (in->name_len > 0)
			memcpy(w->buf + w->pos, in->name, in->name_len);
		w->pos += in->name_len;
		if (in->kind == BK_INPUT_NUMERIC)
		{
			double		v[3] = {in->n, in->sx, in->sxx};

			w_f64s(w, v, 3);
		}
		else
		{
			w_u32(w, (uint32_t) in->n_levels);
			for (int j = 0; j < in->n_levels; j++)
			{
				w_u32(w, in->level_len[j]);
				memcpy(w->buf + w->pos, in->levels[j], in->level_len[j]);
				w->pos += in->level_len[j];
			}
		}
	}
}

static bool
prep_size_of(const BkModel *m, size_t *total)
{
	return BkAddSize(*total, prep_size(m->prep), total);
}

/* not counted in BkFormatMaxSize (as before the parts were descriptors) */
static size_t
prep_max_size(int n_classes)
{
	return 0;
}

static void
prep_write(Writer *w, const BkModel *m)
{
	prep_encode(w, m->prep);
}

/* a numeric input's n, sx and sxx: sums that a stream of values can give */
static bool
prep_parse_sums(Reader *r, uint32_t i, const BkPrep *p, BkPrepInput *in)
{
	double		v[3];

	if (!BkReadF64s(r, v, 3, "an input's sums"))
		return false;
	if (v[0] < 0 || v[0] > BK_PREP_MAX_COUNT || v[0] != floor(v[0]) ||
		v[2] < 0 || (v[0] == 0 && (v[1] != 0 || v[2] != 0)))
		return BkReadFail(r, "input %u has impossible sums", i);
	if (in)
	{
		in->n = v[0];
		in->sx = v[1];
		in->sxx = v[2];
		BkPrepDerive(p, in);
	}
	return true;
}

/*
 * A categorical input's levels, in strictly ascending byte order; their
 * number added to *cols.  Decoded into in (env: the model's) when not NULL.
 */
static bool
prep_parse_levels(Reader *r, uint32_t i, const BkEnv *env, BkPrepInput *in,
				  size_t *cols)
{
	uint32_t	nl;
	const char *prev = NULL;
	uint32_t	prev_len = 0;

	if (!need(r, 4, "levels"))
		return false;
	nl = r_u32(r);
	if (nl > BK_MAX_LEVELS || nl > (r->len - r->pos) / 4)
		return BkReadFail(r, "input %u has %u levels", i, nl);
	if (in)
	{
		in->levels = BkAllocArray(env, nl ? nl : 1, sizeof(char *));
		in->level_len = BkAllocArray(env, nl ? nl : 1, sizeof(uint32_t));
		in->scale = 1.0;
	}
	for (uint32_t j = 0; j < nl; j++)
	{
		uint32_t	len;
		const char *lv;

		if (!need(r, 4, "level"))
			return false;
		len = r_u32(r);
		if (!BkReadBytes(r, len, true, "a level", &lv))
			return false;
		if (j > 0 && BkBytesCompare(prev, prev_len, lv, len) >= 0)
			return BkReadFail(r, "levels of input %u out of order", i);
		prev = lv;
		prev_len = len;
		if (in)
		{
			in->levels[j] = BkCopyBytes(env, lv, len);
			in->level_len[j] = len;
			in->n_levels = (int) j + 1;
		}
	}
	*cols += nl;
	return true;
}

/*
 * The preparation (see prep_write): inputs named in strictly ascending byte
 * order (or unnamed and numeric), levels in strictly ascending byte order,
 * sums that a stream of values can give, and as many prepared columns as
 * the model's dimension.  Decoded into m when m is not NULL.
 */
static bool
prep_parse(Reader *r, const BkModel *hdr, BkModel *m)
{
	int			dim = hdr->dim;
	uint32_t	n;
	int			named,
				scale,
				impute;
	size_t		cols = 0;
	BkPrep	   *p = NULL;
	const char *prev = NULL;
	uint32_t	prev_len = 0;

	if (!need(r, 8, "preparation"))
		return false;
	n = r_u32(r);
	named = r->buf[r->pos];
	scale = r->buf[r->pos + 1];
	impute = r->buf[r->pos + 2];
	if (r->buf[r->pos + 3] != 0 || named > 1 || scale > BK_SCALE_STANDARD ||
		impute > BK_IMPUTE_MEAN)
		return BkReadFail(r, "invalid preparation modes at offset %zu", r->pos);
	r->pos += 4;
	if (n < 1 || n > BK_MAX_INPUTS)
		return BkReadFail(r, "a preparation of %u inputs, expected 1 to %d", n, BK_MAX_INPUTS);
	if (n > (r->len - r->pos) / 8)
		return BkReadFail(r, "truncated: %u inputs need at least %u bytes", n, 8 * n);
	if (m != NULL)
	{
		p = BkAllocArray(&m->env, 1, sizeof(BkPrep));
		p->named = named;
		p->scale = scale;
		p->impute = impute;
		p->inputs = BkAllocArray(&m->env, n, sizeof(BkPrepInput));
		p->n_inputs = (int) n;
		m->prep = p;			/* freed with the model on any failure below */
	}
	for (uint32_t i = 0; i < n; i++)
	{
		int			kind;
		uint32_t	name_len;
		const char *name = NULL;
		BkPrepInput *in = p ? &p->inputs[i] : NULL;

		if (!need(r, 8, "preparation input"))
			return false;
		kind = r->buf[r->pos];
		if (kind != BK_INPUT_NUMERIC && kind != BK_INPUT_CATEGORICAL)
			return BkReadFail(r, "input %u has kind %d", i, kind);
		if (r->buf[r->pos + 1] != 0 || get_u16(r->buf + r->pos + 2) != 0)
			return BkReadFail(r, "input %u has non-zero padding", i);
		r->pos += 4;
		name_len = r_u32(r);
		if (named)
		{
			if (!BkReadBytes(r, name_len, false, "an input's name", &name))
				return false;
			if (prev != NULL && BkBytesCompare(prev, prev_len, name, name_len) >= 0)
				return BkReadFail(r, "input names out of order at input %u", i);
			prev = name;
			prev_len = name_len;
		}
		else if (name_len != 0 || kind != BK_INPUT_NUMERIC)
			return BkReadFail(r, "input %u of an array is named or not numeric", i);
		if (in)
		{
			in->kind = kind;
			in->offset = (int) cols;
			in->name_len = name_len;
			if (named)
				in->name = BkCopyBytes(&m->env, name, name_len);
		}
		if (kind == BK_INPUT_NUMERIC ? !prep_parse_sums(r, i, p, in) :
			!prep_parse_levels(r, i, m ? &m->env : NULL, in, &cols))
			return false;
		if (kind == BK_INPUT_NUMERIC)
			cols++;
	}
	if (cols != (size_t) dim)
		return BkReadFail(r, "the preparation has %zu columns, the model's dimension is %d",
					cols, dim);
	if (p)
		p->dim = dim;
	return true;
}

/*
 * One preparation for both models: the same inputs, kinds and levels are
 * required (models of named features whose keys or levels differ have
 * been re-laid into the union of both before, BkModelUnionLayout); the
 * statistics are pooled (those of the union of both sides'
 * rows) and each side's vectors are moved into the pooled preparation, so
 * that parts trained in parallel, each standardised by its own rows, merge
 * into a model that standardises by all of them.  (A Gaussian kernel is
 * not invariant under a change of scale: the moved expansion approximates
 * what the side learned, closely when both sides' statistics are close,
 * as with a random split.)
 */
static void
prep_merge_early(BkModel *dst, BkModel *src)
{
	const BkEnv *env = &dst->env;
	const char *hint = "Merge models trained with the same preparation parameters on rows with the same keys and text values.";
	BkPrep	   *pooled;
	int			bad;

	if ((dst->prep == NULL) != (src->prep == NULL))
		BkRaiseHint(env, BK_ERR_PARAM, NULL, hint,
					"cannot merge a model that prepares its features with one that does not");
	if (dst->prep == NULL)
		return;
	if (!BkPrepSameLayout(dst->prep, src->prep))
		BkRaiseHint(env, BK_ERR_PARAM, NULL, hint,
					"cannot merge models whose feature preparations differ (keys, kinds, text values or modes)");
	/* the same statistics (models continued from one model): kept as they are */
	if (BkPrepSameSums(dst->prep, src->prep))
		return;
	bad = BkPrepPoolOverflow(dst->prep, src->prep);
	if (bad >= 0)
		BkRaiseHint(env, BK_ERR_OVERFLOW, NULL,
					"Each side's preparation counts its rows of each input; a merged model can count at most 2^53.",
					"cannot merge: the pooled statistics of input %d would be out of range (more than 2^53 rows, or sums that are not finite)",
					bad + 1);
	pooled = BkPrepCopy(env, dst->prep);
	BkPrepPool(pooled, src->prep);
	BkPrepRemapModel(dst, pooled);
	BkPrepRemapModel(src, pooled);
	BkModelSetPrep(dst, pooled);
}

static void
prep_free(BkModel *m)
{
	BkPrepFree(&m->env, m->prep);
	m->prep = NULL;
}

const BkPart BkPartPrep = {
	.name = "preparation",
	.flag = 0x10,
	.flag_name = "preparation",
	.since = 2,
	.present = prep_present,
	.size = prep_size_of,
	.max_size = prep_max_size,
	.write = prep_write,
	.parse = prep_parse,
	.merge_early = prep_merge_early,
	.free = prep_free,
};
