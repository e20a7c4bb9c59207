/*
 * bk_part_base.c
 *	  The model a model was continued from as a part of the model
 *	  (bk_part.h, bk_base.c), the section of flag bit 8 (doc/format.md,
 *	  "Base"): the 32-byte fingerprint of that stored model, then its u64
 *	  rows_seen, rows_skipped, rows_updated, mistakes, maintenance and
 *	  parts when training went on from it.  A merge keeps it when both sides share it
 *	  (and counts its rows once: bk_model_merge.c), else drops it.
 */
#include "bk_part.h"
#include "bk_base.h"

#define BASE_BYTES (BK_FINGERPRINT_LEN + 6 * 8)

static bool
base_present(const BkModel *m)
{
	return m->base != NULL;
}

static bool
base_size(const BkModel *m, size_t *total)
{
	return BkAddSize(*total, BASE_BYTES, total);
}

static size_t
base_max_size(int n_classes)
{
	return BASE_BYTES;
}

static void
base_write(Writer *w, const BkModel *m)
{
	const BkBase *b = m->base;

	memcpy(w->buf + w->pos, b->fingerprint, BK_FINGERPRINT_LEN);
	w->pos += BK_FINGERPRINT_LEN;
	w_u64(w, b->rows_seen);
	w_u64(w, b->rows_skipped);
	w_u64(w, b->rows_updated);
	w_u64(w, b->mistakes);
	w_u64(w, b->maintenance);
	w_u64(w, b->parts);
}

/* each count at most the model's own (the model went on from them) */
static bool
base_parse(Reader *r, const BkModel *hdr, BkModel *m)
{
	static const char *const names[] = {"rows_seen", "rows_skipped", "rows_updated",
	"mistakes", "maintenance", "parts"};
	const uint64_t own[] = {hdr->rows_seen, hdr->rows_skipped, hdr->rows_updated,
	hdr->mistakes, hdr->maintenance, hdr->parts};
	uint64_t	v[6],
				machines;
	size_t		at;

	if (!need(r, BASE_BYTES, "base"))
		return false;
	at = r->pos;
	r->pos += BK_FINGERPRINT_LEN;
	for (int i = 0; i < 6; i++)
	{
		v[i] = r_u64(r);
		if (v[i] > own[i])
			return BkReadFail(r, "the base's %s (%llu) exceeds the model's (%llu)",
							  names[i], (unsigned long long) v[i], (unsigned long long) own[i]);
	}
	/*
	 * and consistent among themselves, as the model's are (bk_decode.c),
	 * and with what the model added since: no more updates, mistakes or
	 * maintenance than the rows it went on with allow (a merge of models
	 * sharing the base counts them once)
	 */
	machines = hdr->n_machines > 0 ? (uint64_t) hdr->n_machines : 1;
	if (v[2] > v[0] || v[3] > v[0] || v[5] == 0 ||
		(v[0] <= UINT64_MAX / machines && v[4] > v[0] * machines) ||
		own[2] - v[2] > own[0] - v[0] || own[3] - v[3] > own[0] - v[0] ||
		(own[0] - v[0] <= UINT64_MAX / machines &&
		 own[4] - v[4] > (own[0] - v[0]) * machines))
		return BkReadFail(r, "inconsistent counters in the base");
	if (m)
	{
		BkBase	   *b = BkAllocArray(&m->env, 1, sizeof(BkBase));

		memcpy(b->fingerprint, r->buf + at, BK_FINGERPRINT_LEN);
		b->rows_seen = v[0];
		b->rows_skipped = v[1];
		b->rows_updated = v[2];
		b->mistakes = v[3];
		b->maintenance = v[4];
		b->parts = v[5];
		m->base = b;
	}
	return true;
}

/* kept when both sides share it, else the merge has none */
static void
base_merge_early(BkModel *dst, BkModel *src)
{
	if (dst->base != NULL && BkBaseShared(dst, src) == NULL)
		BkBaseFree(dst);
}

const BkPart BkPartBase = {
	.name = "base",
	.flag = 0x100,
	.flag_name = "base",
	.since = 2,
	.present = base_present,
	.size = base_size,
	.max_size = base_max_size,
	.write = base_write,
	.parse = base_parse,
	.merge_early = base_merge_early,
	.free = BkBaseFree,
};
