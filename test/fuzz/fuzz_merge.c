/*
 * fuzz_merge.c
 *	  Fuzz target of merging: bk_merge(a, b) takes two models a role may
 *	  have crafted byte by byte, and the combine step of parallel training
 *	  takes the partial models of its workers.  For any two byte strings
 *	  that the validator accepts and that decode for training, the merge
 *	  must either refuse with an error a user can cause (different
 *	  parameters, dimensions, label types, preparations that do not fit
 *	  together, a limit) or return a model that encodes to bytes the
 *	  validator accepts, decodes again and goes on learning.
 *
 *	  The input: byte 0, flags (bit 0: recompute each model's length field
 *	  and trailer, so that mutations get past the checksum; bit 1: merge b
 *	  into a, else a into b), then each model as a u32 length L and L
 *	  bytes (a length past the end takes the rest), then the bytes of one
 *	  row of the merged model's dimension (a byte c gives (c - 96) / 8;
 *	  missing bytes are 0) to learn after the merge.  With flag bit 2 the
 *	  merge is bk_merge's of many parts: the two also merged kept whole
 *	  (BkModelMergeUnion), and the merged model distilled from that union
 *	  (BkModelDistil) before it is encoded.
 */
#include "fuzz_common.h"

#include <string.h>

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FLAG_FIX_CRC	0x01
#define FLAG_B_INTO_A	0x02
#define FLAG_DISTIL		0x04

/* a copy of m through its bytes (valid: m was decoded from them), or NULL */
static BkModel *
copy_of(BkModel *m)
{
	uint8_t    *buf;
	size_t		len;
	BkModel    *c;

	if ((buf = FuzzEncodeValid(m, &len, "decoded")) == NULL)
		return NULL;
	c = BkModelDecode(&fuzz_env, buf, len, true);
	free(buf);
	return c;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t		pos = 0;
	uint8_t		flags;
	BkModel    *a,
			   *b,
			   *dst,
			   *src;
	BkModel    *volatile again = NULL;
	BkModel    *volatile ua = NULL;
	BkModel    *volatile ub = NULL;
	double	   *volatile x = NULL;
	jmp_buf		jb;
	uint8_t    *buf;
	size_t		len;
	volatile bool merged = false;
	volatile bool learned = false;

	if (size < 1)
		return 0;
	flags = data[pos++];
	a = FuzzNextModel(data, size, &pos, (flags & FLAG_FIX_CRC) != 0);
	b = a != NULL ? FuzzNextModel(data, size, &pos, (flags & FLAG_FIX_CRC) != 0) : NULL;
	if (a == NULL || b == NULL)
	{
		BkStdReleaseAll();
		return 0;
	}
	dst = (flags & FLAG_B_INTO_A) ? a : b;
	src = (flags & FLAG_B_INTO_A) ? b : a;

	bk_std_jump = &jb;
	if (setjmp(jb) == 0)
	{
		if (flags & FLAG_DISTIL)
		{
			ua = copy_of(dst);
			ub = copy_of(src);
		}
		BkModelMerge(dst, src);
		merged = true;
	}
	else
		FuzzExpectUserError("merging two valid models");
	bk_std_jump = NULL;

	/* the same two kept whole, and the merge distilled from them */
	if (merged && ua != NULL && ub != NULL)
	{
		bk_std_jump = &jb;
		if (setjmp(jb) == 0)
		{
			BkDistilReport r;

			BkModelMergeUnion(ua, ub);
			BkModelDistil(dst, ua, &r);
		}
		else
			FuzzExpectUserError("merging two valid models whole, and distilling");
		bk_std_jump = NULL;
	}

	/* the merged model: valid bytes, which decode and go on learning */
	if (merged && (buf = FuzzEncodeValid(dst, &len, "merged")) != NULL)
	{
		bk_std_jump = &jb;
		if (setjmp(jb) == 0)
		{
			again = BkModelDecode(&fuzz_env, buf, len, true);
			x = calloc((size_t) again->dim, sizeof(double));
			for (int d = 0; d < again->dim && pos < size; d++)
				x[d] = ((double) data[pos++] - 96.0) / 8.0;
			if (again->n_classes > 0 && again->text_labels)
				BkModelLearnText(again, x, BkModelClassText(again, 0),
								 strlen(BkModelClassText(again, 0)));
			else if (again->n_classes > 0)
				BkModelLearn(again, x, BkModelClassLabel(again, 0));
			learned = true;
		}
		else
			FuzzExpectUserError("learning a row after a merge");
		bk_std_jump = NULL;
		/* the row, also when learning it jumped back with an error */
		free(x);
		free(buf);
		/* after an error the model is half-way through a change: dropped */
		if (learned && (buf = FuzzEncodeValid(again, &len, "merged, then trained")) != NULL)
			free(buf);
	}

	/*
	 * After an error a model may be half-way through a change: what the
	 * core holds is released wholesale, as the server resets the memory
	 * context, instead of by BkModelFree.
	 */
	BkStdReleaseAll();
	return 0;
}

/* ---- seeds for the standalone driver ---- */

size_t		FuzzSeeds(uint8_t **seeds, size_t *lens, size_t max);

/* flags, then a and b with their lengths, then a row */
static size_t
make_pair(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
		  uint8_t flags, uint8_t **out)
{
	size_t		len = 1 + 4 + alen + 4 + blen + 8;
	uint8_t    *p = malloc(len);
	size_t		pos = 0;

	p[pos++] = flags;
	for (int k = 0; k < 4; k++)
		p[pos++] = (uint8_t) (alen >> (8 * k));
	memcpy(p + pos, a, alen);
	pos += alen;
	for (int k = 0; k < 4; k++)
		p[pos++] = (uint8_t) (blen >> (8 * k));
	memcpy(p + pos, b, blen);
	pos += blen;
	for (int k = 0; k < 8; k++)
		p[pos++] = (uint8_t) (96 + 4 * k);
	*out = p;
	return len;
}

/*
 * A model that prepares named features as fuzz_seeds.c's does, but with
 * other text values and another key, so that merging the two takes the
 * union of their preparations.
 */
static size_t
other_prepared_seed(uint8_t **out)
{
	static const char *const levels[] = {"x", "ww"};
	BkParams	p;
	BkPrepSpec	spec;
	BkPrepFit  *f;
	BkModel    *m;
	BkRng		rng;
	char		err[BK_ERRMSG_LEN];
	double		rows[40][2];
	int			lv[40];
	double		o[8];
	size_t		len;

	BkRngSeed(&rng, 4242);
	BkPrepSpecInit(&spec, true);
	f = BkPrepFitNew(&fuzz_env, &spec, true);
	for (int i = 0; i < 40; i++)
	{
		rows[i][0] = 10 * BkRngUniform(&rng);
		rows[i][1] = BkRngUniform(&rng) - 0.5;
		lv[i] = (int) BkRngBelow(&rng, 2);
		BkPrepFitNumber(f, BkPrepFitKey(f, "a", 1), rows[i][0]);
		BkPrepFitText(f, BkPrepFitKey(f, "b", 1), levels[lv[i]], strlen(levels[lv[i]]));
		BkPrepFitNumber(f, BkPrepFitKey(f, "d", 1), rows[i][1]);
	}
	BkParamsInit(&p);
	if (!BkParamsFinish(&p, 4, err, sizeof(err)))
		abort();
	m = BkModelCreate(&fuzz_env, &p, 4);
	BkModelSetPrep(m, BkPrepFitFinish(f, &fuzz_env));
	for (int i = 0; i < 40; i++)
	{
		BkPrepRowBegin(m, o);
		BkPrepPutNumber(m, BkPrepKey(m, 0, "a", 1), rows[i][0], o);
		BkPrepPutText(m, BkPrepKey(m, 1, "b", 1), levels[lv[i]], strlen(levels[lv[i]]), o);
		BkPrepPutNumber(m, BkPrepKey(m, 2, "d", 1), rows[i][1], o);
		BkPrepRowEnd(m, o);
		BkModelLearn(m, o, rows[i][1] > 0 ? 1 : -1);
	}
	if (!BkModelEncodedSize(m, (size_t) 1 << 30, &len, err, sizeof(err)))
		abort();
	*out = malloc(len);
	BkModelEncode(m, *out, len);
	BkModelFree(m);
	return len;
}

/*
 * Two models of three classes on disjoint rows (algorithm alg, budget 3,
 * gamma 2) as bk_merge's parts, whose merge the distillation replaces:
 * the labelling, the distilled learner and BkMergeInstall all run.
 */
static size_t
distilled_pair_seed(const char *alg, const char *variant_key, const char *variant,
					uint8_t **out)
{
	uint8_t    *b[2];
	size_t		len[2],
				n;
	BkRng		rng;

	BkRngSeed(&rng, 31);
	for (int part = 0; part < 2; part++)
	{
		BkParams	p;
		BkParamInput in = {BK_IN_STRING, 0, NULL, false, NULL};
		BkParamInput num = {BK_IN_NUMBER, 0, NULL, false, NULL};
		char		err[BK_ERRMSG_LEN];
		BkModel    *m;

		BkParamsInit(&p);
		in.string = alg;
		BkParamsSet(&p, "algorithm", &in, err, sizeof(err));
		in.string = variant;
		BkParamsSet(&p, variant_key, &in, err, sizeof(err));
		num.number = 3;
		BkParamsSet(&p, "budget", &num, err, sizeof(err));
		num.number = 2;
		BkParamsSet(&p, "gamma", &num, err, sizeof(err));
		if (!BkParamsFinish(&p, 3, err, sizeof(err)))
			abort();
		m = BkModelCreate(&fuzz_env, &p, 3);
		for (int i = 0; i < 40; i++)
		{
			double		x[3];

			for (int d = 0; d < 3; d++)
				x[d] = 2.0 * BkRngUniform(&rng) - 1.0;
			BkModelLearn(m, x, x[0] * x[1] > 0.1 ? 0 : x[2] > 0 ? 1 : 2);
		}
		if (!BkModelEncodedSize(m, (size_t) 1 << 30, &len[part], err, sizeof(err)))
			abort();
		b[part] = malloc(len[part]);
		BkModelEncode(m, b[part], len[part]);
		BkModelFree(m);
	}
	n = make_pair(b[0], len[0], b[1], len[1], FLAG_FIX_CRC | FLAG_DISTIL, out);
	free(b[0]);
	free(b[1]);
	return n;
}

/*
 * Each seed model (fuzz_seeds.c) merged with itself, as a pair and as
 * bk_merge's parts (distilled: a mutated copy makes the union outgrow the
 * budget), and the model that prepares named features merged with one of
 * other text values and keys.
 */
size_t
FuzzSeeds(uint8_t **seeds, size_t *lens, size_t max)
{
	uint8_t    *models[32];
	size_t		mlens[32];
	size_t		nm = FuzzModelSeeds(models, mlens, 32);
	size_t		n = 0;
	uint8_t    *other;
	size_t		olen = other_prepared_seed(&other);

	for (size_t i = 0; i < nm && n + 4 < max; i++)
	{
		BkModel    *m;

		lens[n] = make_pair(models[i], mlens[i], models[i], mlens[i],
							(uint8_t) (FLAG_FIX_CRC | (i % 2 ? FLAG_B_INTO_A : 0)),
							&seeds[n]);
		n++;
		lens[n] = make_pair(models[i], mlens[i], models[i], mlens[i],
							FLAG_FIX_CRC | FLAG_DISTIL, &seeds[n]);
		n++;
		/* the named-features model: a pair that needs the union */
		m = BkModelDecode(&fuzz_env, models[i], mlens[i], false);
		if (m->prep != NULL && m->prep->named)
		{
			lens[n] = make_pair(models[i], mlens[i], other, olen, FLAG_FIX_CRC, &seeds[n]);
			n++;
		}
		BkModelFree(m);
	}
	if (n + 2 <= max)
	{
		lens[n] = distilled_pair_seed("bpa", "variant", "nn", &seeds[n]);
		n++;
		lens[n] = distilled_pair_seed("pegasos", "maintenance", "merge", &seeds[n]);
		n++;
	}
	for (size_t i = 0; i < nm; i++)
		free(models[i]);
	free(other);
	return n;
}
