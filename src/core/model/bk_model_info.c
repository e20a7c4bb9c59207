/*
 * bk_model_info.c
 *	  What a caller outside the core reads of a model, and what it changes
 *	  in one (labels in UTF-8, frozen classes, the parameters that may
 *	  change when it is trained further): the model's struct is the core's
 *	  own (bk_internal.h).
 */
#include "bk_internal.h"

#include <string.h>

int
BkModelDim(const BkModel *m)
{
	return m->dim;
}

void
BkModelGetInfo(const BkModel *m, BkModelInfo *info)
{
	info->params = &m->params;
	info->format_version = m->format_version;
	info->dim = m->dim;
	info->text_labels = m->text_labels;
	info->labels_utf8 = m->labels_utf8;
	info->classes_declared = m->classes_declared;
	info->n_classes = m->n_classes;
	info->n_machines = m->n_machines;
	info->rows_seen = m->rows_seen;
	info->rows_skipped = m->rows_skipped;
	info->rows_updated = m->rows_updated;
	info->mistakes = m->mistakes;
	info->maintenance = m->maintenance;
	info->parts = m->parts;
}

int64_t
BkModelClassLabel(const BkModel *m, int c)
{
	return m->classes[c];
}

const char *
BkModelClassText(const BkModel *m, int c)
{
	return m->class_names[c];
}

void
BkModelFreezeClasses(BkModel *m, bool frozen)
{
	m->classes_frozen = frozen;
}

bool
BkModelOverride(BkModel *m, const char *key, const BkParamInput *in,
				char *err, size_t errlen)
{
	uint64_t	seed = m->params.seed;

	if (!BkParamsOverride(&m->params, key, in, err, errlen))
		return false;
	if (m->params.seed != seed)
		BkRngSeed(&m->rng, m->params.seed);
	return true;
}

void
BkModelSetLabelsUtf8(BkModel *m, bool utf8)
{
	m->labels_utf8 = utf8;
}

uint64_t
BkModelSvTotal(const BkModel *m)
{
	uint64_t	n = 0;

	for (int k = 0; k < m->n_machines; k++)
		n += (uint64_t) m->machines[k].n_sv;
	return n;
}

int
BkModelSvCount(const BkModel *m, int k)
{
	return m->machines[k].n_sv;
}

const double *
BkModelSv(const BkModel *m, int k, int j)
{
	return BkSvRow(&m->machines[k], j);
}

int
BkModelCoefCount(const BkModel *m, int k)
{
	return m->machines[k].n_coef;
}

int
BkModelCurve(const BkModel *m, const uint64_t **points)
{
	*points = m->curve;
	return m->curve_n;
}

void
BkModelSetParent(BkModel *m, const uint8_t *fingerprint)
{
	m->n_parents = 0;
	BkModelAddParent(m, fingerprint);
}

void
BkModelAddParent(BkModel *m, const uint8_t *fingerprint)
{
	if (m->n_parents < BK_MAX_PARENTS)
		memcpy(m->parents[m->n_parents++], fingerprint, BK_FINGERPRINT_LEN);
}

int
BkModelParents(const BkModel *m, const uint8_t **fingerprints)
{
	*fingerprints = &m->parents[0][0];
	return m->n_parents;
}
