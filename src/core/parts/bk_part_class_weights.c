/*
 * bk_part_class_weights.c
 *	  The class weights as a part of the model (bk_part.h; bk_class_weight.c
 *	  keeps and applies them), the section of flag bit 5 (doc/format.md,
 *	  "Class weights"), and their merge: the same weights on both sides,
 *	  the counts added.
 */
#include "bk_part.h"

static bool
weights_present(const BkModel *m)
{
	return m->weights != NULL;
}

/*
 * The class weights (flag bit 5): u8 mode | u8 0 | u16 0 | u32 n, then n
 * entries in label order, each the label (i64, or u32 length + bytes) and
 * f64 weight, then u64 rows of each class counted since the weights were
 * set, n_classes of them.
 */
static size_t
weights_bytes(const BkModel *m)
{
	const BkClassWeights *cw = m->weights;
	size_t		total = 8 + 8 * (size_t) m->n_classes;

	for (int i = 0; i < cw->n; i++)
		total += 8 + BkLabelSize(m->text_labels, cw->names[i]);
	return total;
}

static void
weights_write(Writer *w, const BkModel *m)
{
	const BkClassWeights *cw = m->weights;

	w->buf[w->pos++] = (uint8_t) cw->mode;
	w->buf[w->pos++] = 0;
	w_u16(w, 0);
	w_u32(w, (uint32_t) cw->n);
	for (int i = 0; i < cw->n; i++)
	{
		BkWriteLabel(w, m->text_labels, cw->labels[i], m->text_labels ? cw->names[i] : NULL);
		w_f64s(w, &cw->w[i], 1);
	}
	/* a class added since the counts last grew has none yet */
	for (int c = 0; c < m->n_classes; c++)
		w_u64(w, c < cw->count_n ? cw->count[c] : 0);
}

static bool
weights_size(const BkModel *m, size_t *total)
{
	return BkAddSize(*total, weights_bytes(m), total);
}

/* not counted in BkFormatMaxSize (as before the parts were descriptors) */
static size_t
weights_max_size(int n_classes)
{
	return 0;
}

/*
 * The class weights (see weights_write): a known mode, explicit entries
 * only for explicit weights, labels of the model's type in strictly
 * ascending order (as classes: 1 to BK_MAX_LABEL_LEN bytes, no NUL, UTF-8
 * with the flag), weights in [BK_MIN_CLASS_WEIGHT, BK_MAX_CLASS_WEIGHT],
 * and counts that the rows seen can give.  Decoded into m when not NULL.
 */
static bool
weights_parse(Reader *r, const BkModel *hdr, BkModel *m)
{
	int			mode;
	uint32_t	n;
	const uint8_t *prev = NULL;
	uint32_t	prev_len = 0;
	int64_t		prev_label = 0;
	uint64_t	sum = 0;
	BkClassWeights *cw = NULL;

	if (hdr->params.regression || hdr->params.novelty)
		return BkReadFail(r, "a %s with class weights",
						  hdr->params.regression ? "regressor" : "novelty detector");
	if (!need(r, 8, "class weights"))
		return false;
	mode = r->buf[r->pos];
	if ((mode != BK_WEIGHT_EXPLICIT && mode != BK_WEIGHT_BALANCED) ||
		r->buf[r->pos + 1] != 0 || get_u16(r->buf + r->pos + 2) != 0)
		return BkReadFail(r, "invalid class weight mode at offset %zu", r->pos);
	r->pos += 4;
	n = r_u32(r);
	if (n > BK_MAX_CLASSES || (mode == BK_WEIGHT_BALANCED && n != 0))
		return BkReadFail(r, "%u class weight entries for mode %d", n, mode);
	if (m)
	{
		if (mode == BK_WEIGHT_BALANCED)
			BkModelWeightBalanced(m);
		else
			BkModelWeightExplicit(m);
		cw = m->weights;
	}
	for (uint32_t i = 0; i < n; i++)
	{
		double		w;
		const char *text = NULL;
		uint32_t	len = 0;
		int64_t		label = 0;

		if (hdr->text_labels)
		{
			if (!BkReadTextLabel(r, hdr->labels_utf8, "class weight label", i, &text, &len))
				return false;
			if (i > 0 && BkBytesCompare((const char *) prev, prev_len, text, len) >= 0)
				return BkReadFail(r, "class weight label %u is out of order", i);
			prev = (const uint8_t *) text;
			prev_len = len;
		}
		else
		{
			if (!need(r, 8, "class weight label"))
				return false;
			label = (int64_t) r_u64(r);
			if (i > 0 && label <= prev_label)
				return BkReadFail(r, "class weight label %u is out of order", i);
			prev_label = label;
		}
		if (!need(r, 8, "class weight"))
			return false;
		w = bits_to_double(r_u64(r));
		if (!(w >= BK_MIN_CLASS_WEIGHT && w <= BK_MAX_CLASS_WEIGHT))
			return BkReadFail(r, "class weight %u is %g, outside [%g, %g]", i, w,
						BK_MIN_CLASS_WEIGHT, BK_MAX_CLASS_WEIGHT);
		/* checked above: in order and in range, each is appended */
		if (m && text)
			BkModelWeightClassText(m, text, len, w);
		else if (m)
			BkModelWeightClass(m, label, w);
	}
	if (!need(r, 8 * (size_t) hdr->n_classes, "class weight counts"))
		return false;
	for (int c = 0; c < hdr->n_classes; c++)
	{
		uint64_t	v = r_u64(r);

		if (v > hdr->rows_seen - sum)
			return BkReadFail(r, "class weight counts sum beyond the %llu rows seen",
						(unsigned long long) hdr->rows_seen);
		sum += v;
		if (m)
			cw->count[c] = v;
	}
	return true;
}

static void
weights_permute(BkModel *m, const int *perm)
{
	BkWeightsPermute(m, perm);
}

static void
weights_merge_check(const BkModel *a, const BkModel *b)
{
	if (!BkWeightsSame(a, b))
		BkRaiseHint(&a->env, BK_ERR_PARAM, NULL,
					"Merge models trained with the same parameters on rows of the same shape.",
					"cannot merge models whose class weights differ");
}

/* the same classes in the same order on both sides: b's counts added */
static void
weights_merge(BkModel *dst, const BkModel *src)
{
	BkWeightsAddCounts(dst, src);
}

static void
weights_free(BkModel *m)
{
	BkWeightsFree(&m->env, m->weights);
	m->weights = NULL;
}

const BkPart BkPartClassWeights = {
	.name = "class weights",
	.flag = 0x20,
	.flag_name = "class weight",
	.since = 2,
	.present = weights_present,
	.size = weights_size,
	.max_size = weights_max_size,
	.write = weights_write,
	.parse = weights_parse,
	.permute = weights_permute,
	.merge_check = weights_merge_check,
	.merge = weights_merge,
	.free = weights_free,
};
