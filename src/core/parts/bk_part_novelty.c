/*
 * bk_part_novelty.c
 *	  A novelty detector's threshold as a part of the model (bk_part.h,
 *	  bk_target.c), the section of flag bit 7 (doc/format.md, "Novelty"):
 *	  f64 rho.  Its flag makes the model a novelty detector: no classes,
 *	  one machine, the parameters of novelty detection.
 */
#include "bk_part.h"
#include "bk_target.h"

static bool
novelty_present(const BkModel *m)
{
	return m->novelty != NULL;
}

static bool
novelty_size(const BkModel *m, size_t *total)
{
	return BkAddSize(*total, 8, total);
}

static size_t
novelty_max_size(int n_classes)
{
	return 8;
}

static void
novelty_write(Writer *w, const BkModel *m)
{
	w_f64s(w, &m->novelty->rho, 1);
}

/* rho, finite */
static bool
novelty_parse(Reader *r, const BkModel *hdr, BkModel *m)
{
	double		rho;

	if (!BkReadF64s(r, &rho, 1, "novelty threshold"))
		return false;
	if (m)
	{
		m->novelty = BkNoveltyNew(&m->env);
		m->novelty->rho = rho;
	}
	return true;
}

/* the merged threshold, with the weights of the machines' merge */
static void
novelty_merge_early(BkModel *dst, BkModel *src)
{
	uint64_t	t = dst->rows_seen + src->rows_seen;

	if (dst->novelty == NULL)
		return;
	BkNoveltyPool(dst, src,
				  t > 0 ? (double) dst->rows_seen / (double) t : 0.5,
				  t > 0 ? (double) src->rows_seen / (double) t : 0.5);
}

const BkPart BkPartNovelty = {
	.name = "novelty",
	.flag = 0x80,
	.flag_name = "novelty",
	.since = 2,
	.present = novelty_present,
	.size = novelty_size,
	.max_size = novelty_max_size,
	.write = novelty_write,
	.parse = novelty_parse,
	.merge_early = novelty_merge_early,
	.free = BkNoveltyFree,
};
