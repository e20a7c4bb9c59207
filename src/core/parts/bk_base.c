/*
 * bk_base.c
 *	  The model a model was continued from (bk_base.h): set when training
 *	  goes on from a stored model (BkModelSetBase), shared by the models
 *	  continued from one model, kept by their merge.
 */
#include "bk_internal.h"
#include "bk_base.h"

#include <string.h>

void
BkModelSetBase(BkModel *m, const uint8_t *fingerprint)
{
	BkBase	   *b = m->base;

	if (b == NULL)
		b = m->base = BkAllocArray(&m->env, 1, sizeof(BkBase));
	memcpy(b->fingerprint, fingerprint, BK_FINGERPRINT_LEN);
	b->rows_seen = m->rows_seen;
	b->rows_skipped = m->rows_skipped;
	b->rows_updated = m->rows_updated;
	b->mistakes = m->mistakes;
	b->maintenance = m->maintenance;
	b->parts = m->parts;
}

/*
 * Not with class weights: their counts per class would count the base's
 * rows twice, and the base does not keep them
 */
const BkBase *
BkBaseShared(const BkModel *a, const BkModel *b)
{
	if (a->base == NULL || b->base == NULL || a->weights != NULL || b->weights != NULL)
		return NULL;
	if (memcmp(a->base, b->base, sizeof(BkBase)) != 0)
		return NULL;
	return a->base;
}

void
BkBaseFree(BkModel *m)
{
	BkFree(&m->env, m->base);
	m->base = NULL;
}
