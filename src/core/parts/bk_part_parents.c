/*
 * bk_part_parents.c
 *	  The parents as a part of the model (bk_part.h): the fingerprints of
 *	  the models it was continued, merged or calibrated from
 *	  (BkModelSetParent, BkModelAddParent), present in every version 2
 *	  model (doc/format.md, "Parents"): u32 n, then n x 32 bytes.
 */
#include "bk_part.h"

static bool
parents_present(const BkModel *m)
{
	return true;
}

static bool
parents_size(const BkModel *m, size_t *total)
{
	return BkAddSize(*total, 4 + BK_FINGERPRINT_LEN * (size_t) m->n_parents, total);
}

static size_t
parents_max_size(int n_classes)
{
	return 4 + BK_FINGERPRINT_LEN * BK_MAX_PARENTS;
}

static void
parents_write(Writer *w, const BkModel *m)
{
	w_u32(w, (uint32_t) m->n_parents);
	memcpy(w->buf + w->pos, m->parents, BK_FINGERPRINT_LEN * (size_t) m->n_parents);
	w->pos += BK_FINGERPRINT_LEN * (size_t) m->n_parents;
}

/* at most BK_MAX_PARENTS fingerprints */
static bool
parents_parse(Reader *r, const BkModel *hdr, BkModel *m)
{
	uint32_t	nc;

	if (!need(r, 4, "parents"))
		return false;
	nc = r_u32(r);
	if (nc > BK_MAX_PARENTS)
		return BkReadFail(r, "%u parents, at most %d", nc, BK_MAX_PARENTS);
	if (!need(r, BK_FINGERPRINT_LEN * (size_t) nc, "parents"))
		return false;
	if (m)
	{
		memcpy(m->parents, r->buf + r->pos, BK_FINGERPRINT_LEN * (size_t) nc);
		m->n_parents = (int) nc;
	}
	r->pos += BK_FINGERPRINT_LEN * (size_t) nc;
	return true;
}

const BkPart BkPartParents = {
	.name = "parents",
	.flag = 0,
	.since = 2,
	.present = parents_present,
	.size = parents_size,
	.max_size = parents_max_size,
	.write = parents_write,
	.parse = parents_parse,
};
