/*
 * fuzz_format.c
 *	  Fuzz target of the model decoder.  For any bytes: the validator must
 *	  return (never crash, never read outside the buffer); bytes it accepts
 *	  must decode, score, re-encode to bytes it accepts again, and go on
 *	  learning without a crash.  Every input is tried twice, the second time
 *	  with its trailing CRC-32C recomputed, so that mutations reach the
 *	  parser past the checksum.
 */
#include "fuzz_common.h"

#include <string.h>

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Decode to go on training, or NULL when the stored budget x dim exceeds
 * the allocation limit (BK_ERR_LIMIT is the right answer there, not a crash).
 */
static BkModel *
decode_for_training(const uint8_t *buf, size_t len)
{
	jmp_buf		jb;
	BkModel    *volatile m = NULL;

	fuzz_jump = &jb;
	if (setjmp(jb) == 0)
		m = BkModelDecode(&fuzz_env, buf, len, true);
	else if (last_fuzz_code != BK_ERR_LIMIT)
		abort();
	fuzz_jump = NULL;
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
	fuzz_jump = &jb;
	if (setjmp(jb) == 0)
		for (int r = 0; r < 4; r++)
		{
			x[r % m->dim] += 0.5;
			BkModelLearn(m, x, labels[r % 2]);
		}
	fuzz_jump = NULL;
}

static void
check_valid_model(const uint8_t *buf, size_t len)
{
	BkModel    *s = BkModelDecode(&fuzz_env, buf, len, false);
	BkModel    *m = decode_for_training(buf, len);
	double	   *x = calloc((size_t) s->dim, sizeof(double));
	char		err[BK_ERRMSG_LEN];
	BkErrCode	code;
	size_t		len2;
	int64_t		label;

	for (int i = 0; i < s->dim; i++)
		x[i] = (double) (i % 3) - 1.0;
	(void) BkModelPredict(s, x, &label);
	if (s->n_classes == 0)
	{
		/* nothing to score: an error, never a read of the absent scores */
		jmp_buf		jb;

		fuzz_jump = &jb;
		if (setjmp(jb) == 0)
			(void) BkModelDecision(s, x);
		else if (last_fuzz_code != BK_ERR_DATA)
			abort();
		fuzz_jump = NULL;
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
		BkModelFree(m);
	}
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
		uint32_t	crc = BkCrc32c(0, copy, size - 4);

		for (int k = 0; k < 4; k++)
			copy[size - 4 + k] = (uint8_t) (crc >> (8 * k));
		/* make the length field agree too, half of the time */
		if (data[0] & 1)
			for (int k = 0; k < 4; k++)
				copy[8 + k] = (uint8_t) (size >> (8 * k));
		crc = BkCrc32c(0, copy, size - 4);
		for (int k = 0; k < 4; k++)
			copy[size - 4 + k] = (uint8_t) (crc >> (8 * k));
		check(copy, size);
	}
	free(copy);
	return 0;
}

/* ---- seeds for the standalone driver: one model of each learner ---- */
size_t		FuzzSeeds(uint8_t **seeds, size_t *lens, size_t max);

size_t
FuzzSeeds(uint8_t **seeds, size_t *lens, size_t max)
{
	static const char *const configs[][3] = {
		{"bpa", "s", "hinge"}, {"bpa", "nn", "ramp"}, {"bpa", "p", "hinge"},
		{"pa", NULL, "ramp"}, {"perceptron", NULL, NULL},
		{"pegasos", "merge", NULL}, {"pegasos", "projection_best", NULL},
		{"pegasos", "none", NULL}, {"tighter_budget_perceptron", "flip", NULL},
		{"budget_perceptron", NULL, NULL}, {"spa", NULL, NULL},
		/* budget 6: the Forgetron's Q and born rows, the Projectrons' K^-1 */
		{"forgetron", "budget", NULL}, {"projectron", "budget", NULL},
		{"projectron_pp", "budget", NULL},
		/* DUOL's cached scores; BDUOL's scores and neighbour cache; BOGD */
		{"duol", NULL, NULL}, {"bduol", "nearest", NULL}, {"bduol", "projection", NULL},
		{"bogd", "budget", NULL},
	};
	size_t		n = 0;
	BkRng		rng;

	BkRngSeed(&rng, 99);
	for (size_t c = 0; c < sizeof(configs) / sizeof(configs[0]) && n < max; c++)
	{
		BkParams	p;
		BkParamInput in = {BK_IN_STRING, 0, NULL, false, NULL};
		BkParamInput num = {BK_IN_NUMBER, 0, NULL, false, NULL};
		BkParamInput yes = {BK_IN_BOOLEAN, 0, NULL, true, NULL};
		char		err[BK_ERRMSG_LEN];
		BkModel    *m;
		double		x[3];

		BkParamsInit(&p);
		in.string = configs[c][0];
		BkParamsSet(&p, "algorithm", &in, err, sizeof(err));
		if (configs[c][1] && strcmp(configs[c][0], "pegasos") == 0)
		{
			in.string = configs[c][1];
			BkParamsSet(&p, "maintenance", &in, err, sizeof(err));
			num.number = 6;
			if (strcmp(configs[c][1], "none") != 0)
				BkParamsSet(&p, "budget", &num, err, sizeof(err));
			else
				BkParamsSet(&p, "ball_projection", &yes, err, sizeof(err));
		}
		else if (configs[c][1] && strcmp(configs[c][0], "tighter_budget_perceptron") == 0)
		{
			in.string = configs[c][1];
			BkParamsSet(&p, "eval_set", &in, err, sizeof(err));
			num.number = 6;
			BkParamsSet(&p, "budget", &num, err, sizeof(err));
			BkParamsSet(&p, "eval_size", &num, err, sizeof(err));
		}
		else if (configs[c][1] && strcmp(configs[c][0], "bduol") == 0)
		{
			in.string = configs[c][1];
			BkParamsSet(&p, "maintenance", &in, err, sizeof(err));
			num.number = 6;
			BkParamsSet(&p, "budget", &num, err, sizeof(err));
		}
		else if (configs[c][1] && strcmp(configs[c][1], "budget") == 0)
		{
			num.number = 6;
			BkParamsSet(&p, "budget", &num, err, sizeof(err));
		}
		else if (configs[c][1])
		{
			in.string = configs[c][1];
			BkParamsSet(&p, "variant", &in, err, sizeof(err));
			num.number = 6;
			BkParamsSet(&p, "budget", &num, err, sizeof(err));
		}
		if (configs[c][2])
		{
			in.string = configs[c][2];
			BkParamsSet(&p, "loss", &in, err, sizeof(err));
		}
		if (!BkParamsFinish(&p, 3, err, sizeof(err)))
			abort();
		m = BkModelCreate(&fuzz_env, &p, 3);
		for (int i = 0; i < 40; i++)
		{
			static const char *const names[] = {"low", "mid", "high"};
			int			cls;

			for (int d = 0; d < 3; d++)
				x[d] = BkRngUniform(&rng);
			/* binary, then three integer classes, then three text classes */
			cls = c < 3 ? (x[0] + x[1] > 1.0) : (int) (3 * x[0]);
			if (c >= 6 && c < 8)
				BkModelLearnText(m, x, names[cls], strlen(names[cls]));
			else
				BkModelLearn(m, x, c < 3 ? 2 * cls - 1 : cls);
		}
		if (!BkModelEncodedSize(m, (size_t) 1 << 30, &lens[n], err, sizeof(err)))
			abort();
		seeds[n] = malloc(lens[n]);
		BkModelEncode(m, seeds[n], lens[n]);
		BkModelFree(m);
		n++;
	}
	return n;
}
