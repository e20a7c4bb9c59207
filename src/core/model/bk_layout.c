/*
 * bk_layout.c
 *	  What a model of given parameters looks like and weighs: the machines,
 *	  coefficients and bookkeeping its algorithm keeps (what its learner
 *	  says, bk_learner.h), the slots of a training machine, the bytes a
 *	  training state needs and the largest encoded size it can reach.
 *	  Functions of the parameters (and, for the encoded size, of a model's
 *	  counts): the model (bk_model.c) and the format (bk_encode.c, bk_decode.c) call
 *	  them, and they call neither.
 */
#include "bk_learner.h"
#include "bk_part.h"

#include <stdio.h>

static bool BkFormatMaxSize(const BkParams *p, int dim, int n_classes, size_t *out);

/* ---- layout of each algorithm: what its learner says (bk_learner.h) ---- */

/*
 * Machines for n classes: a binary learner keeps one expansion for up to
 * two classes and one per class beyond (one-vs-rest); a natively
 * multi-class learner keeps one expansion with a coefficient per class.
 */
int
BkModelMachines(const BkParams *p, int n_classes)
{
	if (BkLearnerOf(p)->multiclass || n_classes <= 2)
		return 1;
	return n_classes;
}

int
BkModelCoefs(const BkParams *p, int n_classes)
{
	if (BkLearnerOf(p)->multiclass)
		return n_classes > 1 ? n_classes : 1;
	return 1;
}

bool
BkModelNeedsNearest(const BkParams *p)
{
	return (BkLearnerKeeps(p) & BK_KEEP_NEAREST) != 0;
}

bool
BkModelNeedsGram(const BkParams *p)
{
	return (BkLearnerKeeps(p) & BK_KEEP_GRAM) != 0;
}

double
BkModelGramRidge(const BkParams *p)
{
	return p->ridge;
}

bool
BkModelNeedsScores(const BkParams *p)
{
	return (BkLearnerKeeps(p) & BK_KEEP_SCORES) != 0;
}

static bool
needs_gram_scratch(const BkParams *p)
{
	return (BkLearnerKeeps(p) & BK_KEEP_GRAM_SCRATCH) != 0;
}

bool
BkModelNeedsBorn(const BkParams *p)
{
	return (BkLearnerKeeps(p) & BK_KEEP_BORN) != 0;
}

/* Points of a machine's evaluation set; 0 if none. */
int
BkModelEvalCap(const BkParams *p)
{
	if (!(BkLearnerKeeps(p) & BK_KEEP_EVAL))
		return 0;
	return BkLearnerOf(p)->eval_cap(p);
}

/*
 * SV slots a machine may need: the budget, plus the SVs its learner holds
 * before maintenance (Pegasos adds the new SV first, paper 004 Algorithm
 * 1, so B + 1), or the cap of an unbudgeted learner.
 */
static int
BkModelCapacity(const BkParams *p)
{
	if (!BkParamsBudgeted(p))
		return (int) p->max_sv;
	return (int) p->budget + BkLearnerOf(p)->extra_slots;
}

/* BkModel.grow_limit of a model with these parameters */
int
BkModelGrowLimit(const BkParams *p)
{
	return BkParamsBudgeted(p) ? BkModelCapacity(p) : 0;
}

/*
 * Initial SV slots of a training machine holding n_sv SVs: at least 16,
 * at most the full capacity.  Machines grow by doubling as SVs arrive
 * (budgeted ones in BkModelLearnClass, unbudgeted ones as their learners
 * reserve room), so a budget is allocated as it fills, not up front.
 */
int
BkModelInitialCapacity(const BkParams *p, int n_sv)
{
	int			full = BkModelCapacity(p);
	int			cap = n_sv > 16 ? n_sv : 16;

	return cap < full ? cap : full;
}

/* Bytes one machine needs at full capacity; false on overflow. */
static bool
machine_bytes(const BkParams *p, int dim, int n_coef, size_t *out)
{
	size_t		cap = (size_t) BkModelCapacity(p);
	size_t		row;
	size_t		total;
	size_t		part;
	bool		ok = true;

	/*
	 * one SV: the vector (its stride, and its float4 copy), its norm,
	 * coefficients, NN bookkeeping (and the kept kernel values to the
	 * neighbour)
	 */
	ok &= BkMulSize((size_t) BkSvStride(dim) + n_coef + 3 +
					(p->sv_precision == BK_SV_FLOAT4 ? (size_t) BkSvStride(dim) / 2 + 1 : 0) +
					(BkModelNeedsNearest(p) ? 2 : 0), sizeof(double), &row);
	ok &= BkMulSize(cap, row, &total);
	/* kernel row and dot products of the scratch */
	ok &= BkMulSize(2 * (cap + 1), sizeof(double), &part);
	ok &= BkAddSize(total, part, &total);
	if (BkModelNeedsGram(p))
	{
		int			stride;

		/* K^-1 of order cap + 1, as BkGramInit allocates it */
		ok &= cap < INT32_MAX && BkGramCells((int) cap + 1, &stride, &part);
		ok &= BkMulSize(part, sizeof(double), &part);
		ok &= BkAddSize(total, part, &total);
	}
	if (needs_gram_scratch(p))
	{
		ok &= BkMulSize(cap, 4 * cap + 10, &part);
		ok &= BkMulSize(part, sizeof(double), &part);
		ok &= BkAddSize(total, part, &total);
	}
	if (BkModelEvalCap(p) > 0)
	{
		size_t		q = (size_t) BkModelEvalCap(p);

		/* the points, their 7 arrays of bookkeeping and scratch, k(sv_j, e_k) */
		ok &= BkMulSize(q, ((size_t) dim + 7) * sizeof(double), &part);
		ok &= BkAddSize(total, part, &total);
		ok &= BkMulSize(cap * sizeof(double), q, &part);
		ok &= BkAddSize(total, part, &total);
	}
	*out = total;
	return ok;
}

/*
 * Whether a training state of n_classes classes fits in limit bytes and,
 * for a budgeted learner, whether its model at full budget can be encoded
 * within BK_MAX_MODEL_BYTES (an unbudgeted one is checked as it grows,
 * BkBudgetReserveUnbudgeted), with a message naming what does not.
 */
bool
BkModelCheckSizeClasses(const BkParams *p, int dim, int n_classes,
						size_t limit, char *err, size_t errlen)
{
	size_t		one,
				total,
				encoded;
	int			machines = BkModelMachines(p, n_classes);
	bool		ok = machine_bytes(p, dim, BkModelCoefs(p, n_classes), &one) &&
		BkMulSize(one, (size_t) machines, &total);

	if (ok && total <= limit)
	{
		if (!BkParamsBudgeted(p) ||
			(BkFormatMaxSize(p, dim, n_classes, &encoded) &&
			 encoded <= BK_MAX_MODEL_BYTES))
			return true;
		snprintf(err, errlen,
				 "a model of %d%s support vectors of dimension %d could take more than %zu bytes encoded, the largest model that pg_dump and COPY can always write (%zu MB)",
				 (int) p->budget, machines > 1 ? " x classes" : "", dim,
				 (size_t) BK_MAX_MODEL_BYTES, (size_t) BK_MAX_MODEL_BYTES >> 20);
		return false;
	}
	if (machines > 1)
		snprintf(err, errlen,
				 "%d classes of %d support vectors of dimension %d (one-vs-rest) need more than the limit of %zu bytes",
				 n_classes, BkModelCapacity(p), dim, limit);
	else if (ok)
		snprintf(err, errlen,
				 "a model of %d support vectors of dimension %d needs %zu bytes, more than the limit of %zu",
				 BkModelCapacity(p), dim, total, limit);
	else
		snprintf(err, errlen,
				 "a model of %d support vectors of dimension %d is too large to allocate",
				 BkModelCapacity(p), dim);
	return false;
}

bool
BkModelCheckSize(const BkParams *p, int dim, size_t limit, char *err,
				 size_t errlen)
{
	return BkModelCheckSizeClasses(p, dim, 1, limit, err, errlen);
}

/*
 * The machine aux flags a model of these parameters carries (the layout
 * the validator demands and the encoder writes).
 */
uint32_t
BkModelAux(const BkParams *p)
{
	return (BkModelNeedsNearest(p) ? AUX_NEAREST : 0) |
		(BkModelNeedsGram(p) ? AUX_GINV : 0) |
		(BkModelNeedsScores(p) ? AUX_SCORES : 0) |
		(BkModelEvalCap(p) > 0 ? AUX_EVAL : 0) |
		(BkModelNeedsBorn(p) ? AUX_BORN : 0);
}

static bool
BkFormatMaxSize(const BkParams *p, int dim, int n_classes, size_t *out)
{
	size_t		n_sv = BkParamsBudgeted(p) ? (size_t) p->budget : (size_t) p->max_sv;
	size_t		one,
				total,
				part;
	int			machines = BkModelMachines(p, n_classes);
	bool		ok;

	ok = BkCodecMachineSize((size_t) dim, n_sv, BK_SV_BYTES(p), (size_t) BkModelCoefs(p, n_classes),
					  BkModelAux(p), &one);
	if (BkModelEvalCap(p) > 0)
	{
		ok &= BkCodecEvalSize((size_t) dim, n_sv, (size_t) BkModelEvalCap(p), &part);
		ok &= BkAddSize(one, part + 16, &one);
	}
	/* header, parameters, counters; classes as the longest text labels */
	ok &= BkMulSize(one, (size_t) machines, &total);
	ok &= BkMulSize((size_t) (n_classes > 0 ? n_classes : 1), 4 + BK_MAX_LABEL_LEN, &part);
	ok &= BkAddSize(total, part + HEADER_LEN + 8 + BK_MAX_STORED_PARAMS * 16 + 128, &total);
	/* the parts: a calibration's two doubles per class, the curve, the parents */
	for (int i = 0; i < bk_n_parts; i++)
		ok &= BkAddSize(total, bk_parts[i]->max_size(n_classes), &total);
	*out = total;
	return ok;
}

/*
 * The bytes BkModelEncode writes for m, checked against limit: false, with
 * a message, if m would exceed it (or UINT32_MAX), or was decoded for
 * scoring only.
 */
bool
BkModelEncodedSize(const BkModel *m, size_t limit, size_t *size, char *err,
				   size_t errlen)
{
	BkStoredParam params[BK_MAX_STORED_PARAMS];
	int			np = BkParamsToStored(&m->params, params, BK_MAX_STORED_PARAMS);
	size_t		total;
	bool		ok = true;

	/* decoded for scoring, it lacks the learner's bookkeeping */
	if (!m->training)
	{
		snprintf(err, errlen, "a model decoded for scoring cannot be encoded");
		return false;
	}
	total = HEADER_LEN + 4 + 4 + (size_t) np * 16 + 4 + 6 * 8 + 4 * 8 + 4 +
		TRAILER_LEN(BK_FORMAT_VERSION);
	for (int i = 0; i < m->n_classes; i++)
		total += BkLabelSize(m->text_labels, m->class_names[i]);
	for (int i = 0; i < m->n_machines; i++)
	{
		const BkMachine *mach = &m->machines[i];
		size_t		part;

		if (m->params.sv_precision == BK_SV_FLOAT4 && !BkSvFloat4Holds(mach, m->dim))
			BkRaise(&m->env, BK_ERR_INTERNAL, NULL,
					"machine %d of a float4 model holds a support vector value that is not its float4 value", i);
		ok &= BkCodecMachineSize((size_t) m->dim, (size_t) mach->n_sv, BK_SV_BYTES(&m->params),
						   (size_t) mach->n_coef, BkCodecMachineAux(mach), &part);
		ok &= BkAddSize(total, part, &total);
		if (mach->eval)
		{
			ok &= BkCodecEvalSize((size_t) m->dim, (size_t) mach->n_sv,
							(size_t) mach->eval->n, &part);
			ok &= BkAddSize(total, part + 16, &total);
		}
	}
	/* the parts the model has */
	for (int i = 0; i < bk_n_parts; i++)
		if (bk_parts[i]->present(m))
			ok &= bk_parts[i]->size(m, &total);
	if (!ok || total > limit || total > UINT32_MAX)
	{
		snprintf(err, errlen, "encoded model would exceed the size limit of %zu bytes",
				 limit < UINT32_MAX ? limit : (size_t) UINT32_MAX);
		return false;
	}
	*size = total;
	return true;
}

/*
 * What the learners, below the model, ask of it (BkModelHooks): every
 * model made, created or decoded, points here.
 */
const BkModelHooks bk_model_hooks = {
	.encoded_size = BkModelEncodedSize,
	.algorithm_name = BkAlgorithmName,
};
