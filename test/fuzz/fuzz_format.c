/*
 * fuzz_format.c
 *	  Fuzz target of the model decoder.  For any bytes: the validator must
 *	  return (never crash, never read outside the buffer); bytes it accepts
 *	  must decode for scoring within a memory bound (a small multiple of
 *	  their length, see below), score, re-encode to bytes it accepts again,
 *	  and go on learning without a crash.  Every input is tried twice, the
 *	  second time with its trailer (digest and CRC-32C) recomputed, so that
 *	  mutations reach the parser past the checksum.
 */
#include "fuzz_common.h"
#include "bk_target.h"

#include <string.h>

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The memory bound of decoding for scoring.  The decoder keeps the stored
 * values and a bounded amount of derived data per stored item: per SV
 * (stored as at least two f64) its squared norm and, in the scratch, a
 * kernel value and a dot product; per class (an entry of 8 bytes or more)
 * a name pointer and a score; per machine (a 64-byte header) a BkMachine
 * and its blocks.  Each is a small multiple of the bytes it comes from, so
 * the peak of live bytes while decoding may be DECODE_BYTES_PER_BYTE times
 * the length, plus DECODE_FIXED_BYTES for what any model needs (the
 * BkModel, minimum blocks).  More is a memory amplifier: a bytea of some
 * kilobytes that makes every backend scoring with it allocate megabytes or
 * gigabytes.
 */
#define DECODE_BYTES_PER_BYTE	16
#define DECODE_FIXED_BYTES		((size_t) 1 << 20)

/* Decode for scoring (valid bytes: no error), within the memory bound. */
static BkModel *
decode_for_scoring(const uint8_t *buf, size_t len)
{
	size_t		base = bk_std_live;
	size_t		used;
	BkModel    *s;

	bk_std_peak = bk_std_live;
	s = BkModelDecode(&fuzz_env, buf, len, false);
	/*
	 * and score one sparse row: the scratch of the first scoring counts
	 * too (a kernel row per machine; nothing of the dimension's size)
	 */
	if (s->n_classes > 0 || s->target != NULL || s->novelty != NULL)
	{
		static const int32_t idx[1] = {1};
		static const double val[1] = {0.5};
		jmp_buf		jb;

		bk_std_jump = &jb;
		if (setjmp(jb) == 0)
		{
			const double *row = BkModelSparseScoringRow(s, idx, val, 1);

			if (s->target != NULL)
				(void) BkModelPredictValue(s, row);
			else if (s->novelty != NULL)
				(void) BkModelNoveltyScore(s, row);
			else
				(void) BkModelDecision(s, row);
		}
		else if (bk_std_last_code == BK_ERR_INTERNAL)
			abort();
		bk_std_jump = NULL;
	}
	used = bk_std_peak - base;
	if (used > DECODE_BYTES_PER_BYTE * len + DECODE_FIXED_BYTES)
	{
		fprintf(stderr,
				"decoding %zu bytes for scoring (%d classes, %d machines, dim %d) peaked at %zu bytes, %.1f x the length, more than the bound of %d x + %zu\n",
				len, s->n_classes, s->n_machines, s->dim, used,
				(double) used / (double) len, DECODE_BYTES_PER_BYTE,
				DECODE_FIXED_BYTES);
		abort();
	}
	return s;
}

/*
 * Decode to go on training, or NULL when the stored budget x dim exceeds
 * the allocation limit (BK_ERR_LIMIT is the right answer there, not a crash).
 */
static BkModel *
decode_for_training(const uint8_t *buf, size_t len)
{
	jmp_buf		jb;
	BkModel    *volatile m = NULL;

	bk_std_jump = &jb;
	if (setjmp(jb) == 0)
		m = BkModelDecode(&fuzz_env, buf, len, true);
	else if (bk_std_last_code != BK_ERR_LIMIT)
		abort();
	bk_std_jump = NULL;
	return m;
}

/* Learning from a hostile but well-formed state must not crash. */
static void
learn_a_little(BkModel *m, double *x)
{
	jmp_buf		jb;
	int64_t		labels[2] = {0, 1};

	if (m->n_classes > 0)
		labels[0] = m->classes[0];
	if (m->n_classes > 1)
		labels[1] = m->classes[1];
	bk_std_jump = &jb;
	if (setjmp(jb) == 0)
		for (int r = 0; r < 4; r++)
		{
			x[r % m->dim] += 0.5;
			if (m->target != NULL)
				BkModelLearnValue(m, x, (double) labels[r % 2] + 0.25 * r);
			else if (m->novelty != NULL)
				BkModelLearnNovel(m, x);
			else
				BkModelLearn(m, x, labels[r % 2]);
		}
	bk_std_jump = NULL;
}

/*
 * A regressor's prediction or a detector's score of x into *v; false when
 * it overflowed (the one error a hostile but valid model may give)
 */
static bool
value_of(BkModel *m, const double *x, double *v)
{
	jmp_buf		jb;
	volatile bool ok = true;

	bk_std_jump = &jb;
	if (setjmp(jb) == 0)
		*v = m->target ? BkModelPredictValue(m, x) : BkModelNoveltyScore(m, x);
	else if (bk_std_last_code != BK_ERR_OVERFLOW)
		abort();
	else
		ok = false;
	bk_std_jump = NULL;
	return ok;
}

static void
check_valid_model(const uint8_t *buf, size_t len)
{
	BkModel    *s = decode_for_scoring(buf, len);
	BkModel    *m = decode_for_training(buf, len);
	double	   *x = calloc((size_t) s->dim, sizeof(double));
	char		err[BK_ERRMSG_LEN];
	BkErrCode	code;
	size_t		len2;
	int64_t		label;

	for (int i = 0; i < s->dim; i++)
		x[i] = (double) (i % 3) - 1.0;
	if (s->target != NULL || s->novelty != NULL)
	{
		/* a regressor or detector: both decodings score alike, or both overflow */
		double		a,
					b;
		bool		ok_a = value_of(s, x, &a);

		if (m != NULL && value_of(m, x, &b) && ok_a && a != b)
			abort();
	}
	else
		(void) BkModelPredict(s, x, &label);
	if (s->target != NULL || s->novelty != NULL)
	{
		if (m != NULL)
			learn_a_little(m, x);
	}
	else if (s->n_classes == 0)
	{
		/* nothing to score: an error, never a read of the absent scores */
		jmp_buf		jb;

		bk_std_jump = &jb;
		if (setjmp(jb) == 0)
			(void) BkModelDecision(s, x);
		else if (bk_std_last_code != BK_ERR_DATA)
			abort();
		bk_std_jump = NULL;
	}
	else if (m != NULL)
	{
		double	   *a = calloc((size_t) s->n_classes + 1, sizeof(double));
		double	   *b = calloc((size_t) s->n_classes + 1, sizeof(double));

		/* the two decodings score every class alike */
		BkModelScores(m, x, a);
		BkModelScores(s, x, b);
		for (int c = 0; c < s->n_classes; c++)
			if (!(a[c] == b[c] || (a[c] != a[c] && b[c] != b[c])))
				abort();
		free(a);
		free(b);

		/* re-encoding gives a valid model */
		if (BkModelEncodedSize(m, (size_t) 64 << 20, &len2, err, sizeof(err)))
		{
			uint8_t    *buf2 = malloc(len2);

			BkModelEncode(m, buf2, len2);
			if (!BkFormatValidate(buf2, len2, err, sizeof(err), &code))
			{
				fprintf(stderr, "re-encoded model invalid: %s\n", err);
				abort();
			}
			free(buf2);
		}
		learn_a_little(m, x);
	}
	if (m != NULL)
		BkModelFree(m);
	free(x);
	BkModelFree(s);
}

static void
check(const uint8_t *buf, size_t len)
{
	char		err[BK_ERRMSG_LEN];
	BkErrCode	code;

	err[0] = '\0';
	if (BkFormatValidate(buf, len, err, sizeof(err), &code))
		check_valid_model(buf, len);
	else if (strlen(err) == 0 ||
			 (code != BK_ERR_CORRUPT && code != BK_ERR_VERSION && code != BK_ERR_OVERFLOW))
		abort();				/* every refusal says why */
	/* the structure checks accept all the full validation accepts */
	if (BkFormatValidate(buf, len, err, sizeof(err), &code) &&
		!BkFormatValidateStructure(buf, len, err, sizeof(err), &code))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t    *copy = malloc(size > 0 ? size : 1);

	memcpy(copy, data, size);
	check(copy, size);
	if (size >= 16)
	{
		/* make the length field agree too, half of the time */
		if (data[0] & 1)
			for (int k = 0; k < 4; k++)
				copy[8 + k] = (uint8_t) (size >> (8 * k));
		BkModelSeal(copy, size);
		check(copy, size);
	}
	free(copy);
	/* what errors left behind (a model too large to train, say) */
	BkStdReleaseAll();
	return 0;
}

/* ---- seeds for the standalone driver ---- */

/*
 * Models that decoding for scoring must not amplify: one-vs-rest learners
 * over many declared classes (the "classes" parameter), trained by the
 * core itself, so bk_train can produce every one of them.
 */
typedef struct WideSeed
{
	const char *algorithm;
	const char *kernel;			/* NULL: the default (rbf) */
	int			budget;			/* 0: none (unbudgeted) */
	int			max_sv;			/* 0: the default */
	int			dim;
	int			n_classes;		/* declared 0 .. n_classes - 1 */
	int			rows;			/* random rows of classes 0 and 1 */
} WideSeed;

static const WideSeed wide_seeds[] = {
	/*
	 * Two machines of some 200 SVs among 256.  The perceptron errs on half
	 * of the rows of random labels, so machines 0 and 1 keep some 200 SVs;
	 * every other machine takes the first row as a negative SV and then
	 * scores every row below 0 (an RBF kernel is positive): one SV each.
	 * A decoder that gives every machine the largest machine's capacity
	 * allocates 256 x 200 SV slots for some 670 stored ones.
	 */
	{"perceptron", NULL, 0, 400, 8, 256, 400},
	/*
	 * 256 machines without an SV: under the linear kernel a zero row
	 * changes nothing (k(x, x) = 0).  Stored, an empty machine is its
	 * 64-byte header; a decoder that gives it one SV slot anyway allocates
	 * dim doubles (16 KiB here) for each.
	 */
	{"stoptron", "linear", 1, 0, 2048, 256, 0},
	/*
	 * 512 machines of one SV in dimension 1, two of them of some 600: the
	 * scratch (a kernel row and dot products per machine, each as long as
	 * the largest machine) is 2 x 512 x 600 doubles for a model of some
	 * 512 x 88 bytes, even when every machine gets its own capacity.
	 */
	{"perceptron", NULL, 0, 800, 1, 512, 1200},
	/*
	 * Two classes, no SV (the linear kernel again), dimension 2^20: some
	 * 300 bytes.  A decoder whose scratch held a vector of the dimension
	 * (for the point a merge builds) allocated 8 MB to score it; at 2^24,
	 * 128 MB for each decoded copy.
	 */
	{"stoptron", "linear", 1, 0, 1 << 20, 2, 0},
};

/* Train and encode a wide seed; the core's errors abort (a bad seed). */
static size_t
make_wide_seed(const WideSeed *w, uint8_t **seed)
{
	BkParams	p;
	BkParamInput in = {BK_IN_STRING, 0, NULL, false, NULL};
	BkParamInput num = {BK_IN_NUMBER, 0, NULL, false, NULL};
	char		err[BK_ERRMSG_LEN];
	BkModel    *m;
	double	   *x = calloc((size_t) w->dim, sizeof(double));
	BkRng		rng;
	size_t		len;

	BkParamsInit(&p);
	in.string = w->algorithm;
	if (!BkParamsSet(&p, "algorithm", &in, err, sizeof(err)))
		abort();
	if (w->kernel)
	{
		in.string = w->kernel;
		if (!BkParamsSet(&p, "kernel", &in, err, sizeof(err)))
			abort();
	}
	if (w->budget > 0)
	{
		num.number = w->budget;
		if (!BkParamsSet(&p, "budget", &num, err, sizeof(err)))
			abort();
	}
	/*
	 * an unbudgeted learner's room is max_sv SVs per class: declaring the
	 * classes checks it against the 64 MB limit
	 */
	if (w->max_sv > 0)
	{
		num.number = w->max_sv;
		if (!BkParamsSet(&p, "max_sv", &num, err, sizeof(err)))
			abort();
	}
	if (!BkParamsFinish(&p, w->dim, err, sizeof(err)))
		abort();
	m = BkModelCreate(&fuzz_env, &p, w->dim);
	for (int c = 0; c < w->n_classes; c++)
		BkModelDeclareClass(m, c);
	BkRngSeed(&rng, 7);
	if (w->rows == 0)
		BkModelLearn(m, x, 0);	/* the zero row */
	for (int r = 0; r < w->rows; r++)
	{
		for (int d = 0; d < w->dim; d++)
			x[d] = BkRngUniform(&rng);
		BkModelLearn(m, x, (int64_t) BkRngBelow(&rng, 2));
	}
	if (!BkModelEncodedSize(m, (size_t) 1 << 30, &len, err, sizeof(err)))
		abort();
	*seed = malloc(len);
	BkModelEncode(m, *seed, len);
	BkModelFree(m);
	free(x);
	return len;
}

size_t		FuzzSeeds(uint8_t **seeds, size_t *lens, size_t max);

/* One model of each learner (fuzz_seeds.c), then the wide models. */
size_t
FuzzSeeds(uint8_t **seeds, size_t *lens, size_t max)
{
	size_t		n = FuzzModelSeeds(seeds, lens, max);

	for (size_t i = 0; i < sizeof(wide_seeds) / sizeof(wide_seeds[0]) && n < max; i++)
	{
		lens[n] = make_wide_seed(&wide_seeds[i], &seeds[n]);
		n++;
	}
	return n;
}
