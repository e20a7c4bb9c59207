/*
 * test_fingerprint.c
 *	  Unit test: the same model bytes on every CPU (issue 32).  Trains a
 *	  fixed set of models on fixed seeded streams -- every learner of the
 *	  registry on two and three classes, continued through its bytes and
 *	  taken through a second pass in another order (as bk_train's epochs
 *	  do), two halves merged, and variants with other maintenance
 *	  strategies and kernels, a preparation (standardisation), Platt
 *	  calibration and class weights -- and compares the SHA-256 of each
 *	  encoded model with the value committed below; one more hash covers
 *	  every model's scores on held-out rows.  It runs twice: with the
 *	  AVX2 paths of the core and with its plain code, which a CPU without
 *	  AVX2 runs.  make unittest runs it under
 *	  several OPENBLAS_CORETYPE values and the CPU's own vector width, so
 *	  any arithmetic that depends on the CPU (a BLAS kernel, libmvec, an
 *	  FMA variant of exp, a padding-dependent order) fails here, naming
 *	  the setting.
 *
 *	  When a change of the arithmetic is intended, the failures print the
 *	  new values: check that they are the same under every coretype
 *	  (make unittest), and explain the change in the commit.
 *
 *	  The streams use integer random numbers and + - * only, so they are
 *	  the same bits everywhere.
 */
#include "bk_test.h"
#include "bk_target.h"
#include "bk_learner.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- SHA-256 (FIPS 180-4), enough for the test ---- */
typedef struct Sha256
{
	uint32_t	h[8];
	uint8_t		buf[64];
	uint64_t	len;
} Sha256;

static const uint32_t sha_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void
sha_block(Sha256 *s, const uint8_t *p)
{
	uint32_t	w[64],
				a[8];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t) p[4 * i] << 24 | (uint32_t) p[4 * i + 1] << 16 |
			(uint32_t) p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++)
		w[i] = w[i - 16] + (ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3)) +
			w[i - 7] + (ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10));
	memcpy(a, s->h, sizeof(a));
	for (int i = 0; i < 64; i++)
	{
		uint32_t	t1 = a[7] + (ROR(a[4], 6) ^ ROR(a[4], 11) ^ ROR(a[4], 25)) +
			((a[4] & a[5]) ^ (~a[4] & a[6])) + sha_k[i] + w[i];
		uint32_t	t2 = (ROR(a[0], 2) ^ ROR(a[0], 13) ^ ROR(a[0], 22)) +
			((a[0] & a[1]) ^ (a[0] & a[2]) ^ (a[1] & a[2]));

		memmove(a + 1, a, 7 * sizeof(uint32_t));
		a[4] += t1;
		a[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		s->h[i] += a[i];
}

static void
sha_init(Sha256 *s)
{
	static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

	memcpy(s->h, h0, sizeof(h0));
	s->len = 0;
}

static void
sha_update(Sha256 *s, const void *data, size_t n)
{
	const uint8_t *p = data;

	while (n > 0)
	{
		size_t		at = s->len % 64;
		size_t		take = 64 - at < n ? 64 - at : n;

		memcpy(s->buf + at, p, take);
		s->len += take;
		p += take;
		n -= take;
		if (s->len % 64 == 0)
			sha_block(s, s->buf);
	}
}

/* the digest as 64 hex digits */
static void
sha_hex(Sha256 *s, char *hex)
{
	uint64_t	bits = s->len * 8;
	uint8_t		pad = 0x80,
				zero = 0,
				lenb[8];

	sha_update(s, &pad, 1);
	while (s->len % 64 != 56)
		sha_update(s, &zero, 1);
	for (int i = 0; i < 8; i++)
		lenb[i] = (uint8_t) (bits >> (56 - 8 * i));
	sha_update(s, lenb, 8);
	for (int i = 0; i < 8; i++)
		sprintf(hex + 8 * i, "%08x", s->h[i]);
}

/* ---- the streams ---- */
#define FP_DIM		19			/* > 16 and not a multiple of 4: padded rows, a tail */
#define FP_ROWS		240
#define FP_TEST		60
#define FP_BUDGET	14

typedef struct Stream
{
	double		x[(FP_ROWS + FP_TEST) * FP_DIM];
	int64_t		y[FP_ROWS + FP_TEST];
	double		t[FP_ROWS + FP_TEST];	/* a regression target */
} Stream;

/* features in [-1, 1); binary or three classes from + - * of them */
static void
make_stream(Stream *s, uint64_t seed, bool three)
{
	BkRng		rng;

	BkRngSeed(&rng, seed);
	for (int i = 0; i < FP_ROWS + FP_TEST; i++)
	{
		double	   *x = s->x + (size_t) i * FP_DIM;
		double		f,
					g;

		for (int d = 0; d < FP_DIM; d++)
			x[d] = 2.0 * BkRngUniform(&rng) - 1.0;
		f = x[0] * x[1] + 0.5 * x[2] - x[3] * x[3] + 0.3 * x[4] + 0.2;
		g = x[5] - x[6] * x[0] + 0.4 * x[7] * x[7];
		s->t[i] = 100.0 + 3.0 * f - g;
		if (three)
			s->y[i] = f > 0.0 ? (g > 0.0 ? 0 : 1) : 2;
		else
			s->y[i] = (f > 0.0) != (BkRngUniform(&rng) < 0.05) ? 1 : -1;
	}
}

/* ---- the settings ---- */
typedef enum FpMode
{
	FP_PLAIN,					/* the stream once */
	FP_CONTINUED,				/* half, bytes, the rest, bytes, a second pass reversed */
	FP_MERGED,					/* even and odd rows, merged */
	FP_PREPARED,				/* standardised by a preparation fitted on the rows */
	FP_CALIBRATED,				/* Platt scaling of the trained model's scores */
	FP_WEIGHTED,				/* balanced class weights */
	FP_DISTILLED				/* FP_PARTS parts merged by bk_merge: distilled */
} FpMode;

#define FP_PARTS	8

static const char *const mode_names[] = {"", "continued, second pass", "merged",
"standardised", "calibrated", "balanced weights", "8 parts distilled"};

static BkModel *
new_model(const char *const pp[][2], int np)
{
	BkParams	p;

	make_params(&p, (const char *(*)[2]) pp, np, FP_DIM);
	if (BkParamsBudgeted(&p) && !BkParamGiven(&p, BK_P_BUDGET))
		p.budget = FP_BUDGET;
	return BkModelCreate(&bk_std_env, &p, FP_DIM);
}

static void
learn(BkModel *m, const Stream *s, int from, int to, int step)
{
	for (int i = from; i != to; i += step)
		BkModelLearn(m, s->x + (size_t) i * FP_DIM, s->y[i]);
}

/* m through its bytes, as a model stored and read back for training */
static BkModel *
through_bytes(BkModel *m)
{
	BkModel    *d = copy_model(m);

	BkModelFree(m);
	return d;
}

/*
 * FP_PARTS models of the rows i % FP_PARTS merged as bk_merge merges them:
 * folded into parts[0], the union kept whole beside, then distilled
 */
static BkModel *
distilled_merge(const char *const pp[][2], int np, const Stream *s)
{
	BkModel    *parts[FP_PARTS];
	BkModel    *u;
	BkDistilReport r;

	for (int p = 0; p < FP_PARTS; p++)
	{
		parts[p] = new_model(pp, np);
		learn(parts[p], s, p, FP_ROWS - FP_PARTS + p, FP_PARTS);
	}
	u = copy_model(parts[0]);
	for (int p = 1; p < FP_PARTS; p++)
	{
		BkModel    *c = copy_model(parts[p]);

		BkModelMergeUnion(u, c);
		BkModelFree(c);
		BkModelMerge(parts[0], parts[p]);
		BkModelFree(parts[p]);
	}
	BkModelDistil(parts[0], u, &r);
	CHECK(r.distilled, "the merge of %d parts is distilled (%d points, %d against %d)",
		  FP_PARTS, r.points, r.agree_distilled, r.agree_merged);
	BkModelFree(u);
	return parts[0];
}

static BkModel *
train_setting(const char *const pp[][2], int np, const Stream *s, FpMode mode)
{
	BkModel    *m;

	if (mode == FP_DISTILLED)
		return distilled_merge(pp, np, s);
	m = new_model(pp, np);

	switch (mode)
	{
		case FP_PLAIN:
			learn(m, s, 0, FP_ROWS, 1);
			break;
		case FP_CONTINUED:
			learn(m, s, 0, FP_ROWS / 2, 1);
			m = through_bytes(m);
			learn(m, s, FP_ROWS / 2, FP_ROWS, 1);
			m = through_bytes(m);
			learn(m, s, FP_ROWS - 1, -1, -1);
			break;
		case FP_MERGED:
			{
				BkModel    *b = new_model(pp, np);

				for (int i = 0; i < FP_ROWS; i++)
					BkModelLearn(i % 2 ? b : m, s->x + (size_t) i * FP_DIM, s->y[i]);
				m = through_bytes(m);
				b = through_bytes(b);
				BkModelMerge(m, b);
				BkModelFree(b);
			}
			break;
		case FP_PREPARED:
			{
				BkPrepSpec	spec;
				BkParamInput in = {.type = BK_IN_STRING, .string = "standard"};
				char		err[BK_ERRMSG_LEN];
				BkPrepFit  *f;
				double		out[FP_DIM];

				BkPrepSpecInit(&spec, false);
				if (BkPrepSpecSet(&spec, "scale", &in, err, sizeof(err)) != 1)
				{
					fprintf(stderr, "scale: %s\n", err);
					exit(2);
				}
				f = BkPrepFitNew(&bk_std_env, &spec, false);
				for (int i = 0; i < FP_ROWS; i++)
					BkPrepFitArray(f, s->x + (size_t) i * FP_DIM, NULL, FP_DIM);
				BkModelSetPrep(m, BkPrepFitFinish(f, &bk_std_env));
				for (int i = 0; i < FP_ROWS; i++)
				{
					BkPrepApplyArray(m, s->x + (size_t) i * FP_DIM, NULL, FP_DIM, out);
					BkModelLearn(m, out, s->y[i]);
				}
			}
			break;
		case FP_CALIBRATED:
			{
				int			k;
				double	   *f = malloc(sizeof(double) * FP_ROWS * 3);
				double	   *sc = malloc(sizeof(double) * 3);
				bool	   *pos = malloc(sizeof(bool) * FP_ROWS);
				double		A[3],
							B[3];

				learn(m, s, 0, FP_ROWS, 1);
				k = m->n_classes;
				for (int i = 0; i < FP_ROWS; i++)
				{
					BkModelScores(m, s->x + (size_t) i * FP_DIM, sc);
					for (int c = 0; c < k; c++)
						f[(size_t) c * FP_ROWS + i] = sc[k == 2 ? 0 : c];
				}
				for (int c = 0; c < k; c++)
				{
					for (int i = 0; i < FP_ROWS; i++)
						pos[i] = s->y[i] == m->classes[c];
					if (!BkPlattFit(&bk_std_env, f + (size_t) c * FP_ROWS, pos, FP_ROWS, &A[c], &B[c]))
						A[c] = B[c] = 0.0;
				}
				BkModelSetCalibration(m, A, B);
				free(f);
				free(sc);
				free(pos);
			}
			break;
		case FP_WEIGHTED:
			BkModelWeightBalanced(m);
			learn(m, s, 0, FP_ROWS, 1);
			break;
		case FP_DISTILLED:
			break;
	}
	return m;
}

/*
 * A regressor of the stream's target, standardised by the target's mean
 * and deviation over the rows (as bk_train fits them): plain, continued
 * through its bytes with a second pass in reverse, or two halves merged.
 */
static BkModel *
regressor(const char *const pp[][2], int np, const Stream *s, FpMode mode)
{
	BkParams	p;
	BkRunningSums fit = {0};
	double		mean,
				sd;
	BkModel    *m,
			   *b;

	make_task_params(&p, (const char *(*)[2]) pp, np, FP_DIM, true);
	if (BkParamsBudgeted(&p) && !BkParamGiven(&p, BK_P_BUDGET))
		p.budget = FP_BUDGET;
	for (int i = 0; i < FP_ROWS; i++)
		BkRunningSumsAdd(&fit, s->t[i]);
	BkRunningSumsMoments(&fit, &mean, &sd);
	m = BkModelCreate(&bk_std_env, &p, FP_DIM);
	BkModelSetTargetScale(m, mean, sd);
	switch (mode)
	{
		case FP_CONTINUED:
			for (int i = 0; i < FP_ROWS / 2; i++)
				BkModelLearnValue(m, s->x + (size_t) i * FP_DIM, s->t[i]);
			m = through_bytes(m);
			for (int i = FP_ROWS / 2; i < FP_ROWS; i++)
				BkModelLearnValue(m, s->x + (size_t) i * FP_DIM, s->t[i]);
			m = through_bytes(m);
			for (int i = FP_ROWS - 1; i >= 0; i--)
				BkModelLearnValue(m, s->x + (size_t) i * FP_DIM, s->t[i]);
			break;
		case FP_MERGED:
			/* the odd rows standardised on their own (a part of a parallel plan) */
			memset(&fit, 0, sizeof(fit));
			for (int i = 1; i < FP_ROWS; i += 2)
				BkRunningSumsAdd(&fit, s->t[i]);
			BkRunningSumsMoments(&fit, &mean, &sd);
			b = BkModelCreate(&bk_std_env, &p, FP_DIM);
			BkModelSetTargetScale(b, mean, sd);
			for (int i = 0; i < FP_ROWS; i++)
				BkModelLearnValue(i % 2 ? b : m, s->x + (size_t) i * FP_DIM, s->t[i]);
			m = through_bytes(m);
			b = through_bytes(b);
			BkModelMerge(m, b);
			BkModelFree(b);
			break;
		default:
			for (int i = 0; i < FP_ROWS; i++)
				BkModelLearnValue(m, s->x + (size_t) i * FP_DIM, s->t[i]);
			break;
	}
	return m;
}

/* A novelty detector of the stream's rows: plain, continued or merged. */
static BkModel *
detector(const char *const pp[][2], int np, const Stream *s, FpMode mode)
{
	BkParams	p;
	BkModel    *m,
			   *b;

	BkParamsInit(&p);
	p.novelty = true;
	make_task_params_into(&p, (const char *(*)[2]) pp, np, FP_DIM);
	if (BkParamsBudgeted(&p) && !BkParamGiven(&p, BK_P_BUDGET))
		p.budget = FP_BUDGET;
	m = BkModelCreate(&bk_std_env, &p, FP_DIM);
	switch (mode)
	{
		case FP_CONTINUED:
			for (int i = 0; i < FP_ROWS / 2; i++)
				BkModelLearnNovel(m, s->x + (size_t) i * FP_DIM);
			m = through_bytes(m);
			for (int i = FP_ROWS / 2; i < FP_ROWS; i++)
				BkModelLearnNovel(m, s->x + (size_t) i * FP_DIM);
			m = through_bytes(m);
			for (int i = FP_ROWS - 1; i >= 0; i--)
				BkModelLearnNovel(m, s->x + (size_t) i * FP_DIM);
			break;
		case FP_MERGED:
			b = BkModelCreate(&bk_std_env, &p, FP_DIM);
			for (int i = 0; i < FP_ROWS; i++)
				BkModelLearnNovel(i % 2 ? b : m, s->x + (size_t) i * FP_DIM);
			m = through_bytes(m);
			b = through_bytes(b);
			BkModelMerge(m, b);
			BkModelFree(b);
			break;
		default:
			for (int i = 0; i < FP_ROWS; i++)
				BkModelLearnNovel(m, s->x + (size_t) i * FP_DIM);
			break;
	}
	return m;
}

/*
 * The expected SHA-256 of each setting's encoded model, in the order the
 * test trains them: every learner (registry order) plain on two classes,
 * on three, continued with a second pass, merged on two classes and on
 * three; then the variants; then the regressors; then the novelty
 * detectors.  The last entry hashes every model's scores.
 */
static const char *const expected[] = {
	"a16066da07d39cadbe2b95511289f5102340814904ae0c61a165d66a89e4253f",	/* 0: perceptron, two classes */
	"1cbfc266bb07cf8e19d96455ba378523fb64297cd3b57d9a4170c2981bfe5a82",	/* 1: perceptron, three classes */
	"da502beb2c45567febc970fd1c05e53850177a2614d60516a03be2124d4a953e",	/* 2: perceptron, two classes, continued, second pass */
	"724014d661fadb767917ecdcf6df3f6a1a41786c77a54bf25c01240e3b8db1a8",	/* 3: perceptron, two classes, merged */
	"e813a7bf539c7753265d5804e54fcd6e024b33c37a931babe54827b43c45a865",	/* 4: perceptron, three classes, merged */
	"6e17524165dab3fcc4d3f20f16da3e8bfe0f46a181d522ea049f0ae75a35a573",	/* 5: pa, two classes */
	"93af8f58ba3068d6c89ddd0d0443181e22dd8bd93d5124ed17fd8f85782c6fff",	/* 6: pa, three classes */
	"889cac244ee751cfde8ed124d3fa68e9540dab01e9c475d97eaf1fe277a0c4d0",	/* 7: pa, two classes, continued, second pass */
	"d309d152b3eed61c4e5ffc1da28b247e9decd8cd3e22b02f0740bb386f461ece",	/* 8: pa, two classes, merged */
	"2c83fbdfe730744f23c421c9de12756d0146c27a170ce6d5df35723bb2077f68",	/* 9: pa, three classes, merged */
	"f775b7b4ec0fbf94790db5ac630a066a4813b0366d5d13fa030e8f4dbd206ed9",	/* 10: bpa, two classes */
	"a2aa0fc915e58ed44434d1d661a9bce42bf34fe9055d620075217fc59873c7f3",	/* 11: bpa, three classes */
	"5c451a37f7e54f6ceccf8d57b01f38b02bf15076c6ba796a54e65e601c979107",	/* 12: bpa, two classes, continued, second pass */
	"1b721156c5d76934dad041e94a73798e933804e1d511c61f758e030b19a93dfb",	/* 13: bpa, two classes, merged */
	"f154ef20a58ac07ad454ef690b284e2fb890ec6d9a723a8d595b71e12e35f11f",	/* 14: bpa, three classes, merged */
	"16429911b4415627dd40cb9c4aab02f25c7d9bb42ec2af2c50b7f79ec2bfab52",	/* 15: pegasos, two classes */
	"bd7bdb176f35675c5c1b6ef537d6eb4e977b2de0654fabf394f34050c1de4741",	/* 16: pegasos, three classes */
	"e6f0beb65c27bd8e9a08c08b81c87a6cc113514d3905ae9a0f798208992e29dc",	/* 17: pegasos, two classes, continued, second pass */
	"11013ba1454f430c76531cc303c36cb0dc8a257e193ab8676ecaf9a387356fcf",	/* 18: pegasos, two classes, merged */
	"8b552be3261aaf1b1f483d699bd3ecf14d5aaa8a70a331cf86d76f05000c64e5",	/* 19: pegasos, three classes, merged */
	"60a6991c523c28a6c8111eafcbbd21a6cab32d4b9534dea70ae1584f73a1a03a",	/* 20: stoptron, two classes */
	"9cafda12a5f32281cd7b2da82dfa3aff89d9d0c118d56a54d4b967455d1c6d94",	/* 21: stoptron, three classes */
	"d186f9ec70d5dedd26fcfa068da2359eec1be8c6f43b25d6908f85ecba7a780d",	/* 22: stoptron, two classes, continued, second pass */
	"4eddf90d2316c4d500dc2242c2aafa8c7666e0d0f3a4534be45af520f3d04608",	/* 23: stoptron, two classes, merged */
	"4ef8f8677befe340cf3e610188123e497d02643e91741bee2e9bb33af3f94adc",	/* 24: stoptron, three classes, merged */
	"b4f271c1188279480d44ac1a4c1fcc7b6db43e35070794433a4ecdcfd286eac0",	/* 25: rbp, two classes */
	"c4b872e2a71921a5b16c5be471788371c3655266035703452c5d143630888bf4",	/* 26: rbp, three classes */
	"e9e6773a1348880f71c40ca5047a1f019cfdd51933af1816709184a0448f5797",	/* 27: rbp, two classes, continued, second pass */
	"50950b76e3a1e48b2b1dfe0877382e89ee15c79d6e770d820d23bc65512edddd",	/* 28: rbp, two classes, merged */
	"cd1c54c6356c82852cf32c32621a037f40b7488902647c5fc6b60e248e6f766f",	/* 29: rbp, three classes, merged */
	"fb1c5aa279792b5015f95e67926192a9ad6233ebb3e609c673927ad39fffe387",	/* 30: pa_random, two classes */
	"c63d0ee1a8be49330c1b6b1dfa1295be1aa8dcc930f4a5c8ae840144061eb5a8",	/* 31: pa_random, three classes */
	"c74acd907afafe86dc565cc88d9bdd8e4e6441dfb47d13e315e1846792f2b6c3",	/* 32: pa_random, two classes, continued, second pass */
	"6f1a0f13717b2142256a1b59e6c263063470c7519dcb1970fcbcfa1d83545396",	/* 33: pa_random, two classes, merged */
	"ae16b581aad85066e42bf97bff5b5d05ea78660c8534a2c573ef89dc4f51d1e1",	/* 34: pa_random, three classes, merged */
	"2adf63c4b4b1f53cbaa3b7d5f4303ce89d79b9060db8950a42d0659de0143cf6",	/* 35: budget_perceptron, two classes */
	"2e5961de51018498a134f929a8c24d77e9ceb6f3d7cd055dc17315268f90f3c8",	/* 36: budget_perceptron, three classes */
	"1f0e9b0eab8bae0dbb00ba132cdba8ad92a3fc6fde578e73de32e17fef0ff99a",	/* 37: budget_perceptron, two classes, continued, second pass */
	"08c14602f3584b0b4aa9db0f331b8fa5c67ed690cdbf9209f80fcf8f638aa96d",	/* 38: budget_perceptron, two classes, merged */
	"d28e134855df4936ffcac59dd8f39c055449eb01c93556a137e97383ce61c9e7",	/* 39: budget_perceptron, three classes, merged */
	"6869231f0d0b5409f25e421a3da046dbfbd47d0eeca43d491dbefed0f34b94d6",	/* 40: tighter_budget_perceptron, two classes */
	"88ea0c5800db1420828d8cb4d4261496fb9e1f9f62f750a1be47c84fab4e11e1",	/* 41: tighter_budget_perceptron, three classes */
	"8f21de8627b06585843622d7b43a8a928a0a683f24c56d2884dab7e16dc24d4a",	/* 42: tighter_budget_perceptron, two classes, continued, second pass */
	"bbcb54ce32269762f4eafd1cb8a466562558f5168ffb538368078a5e9b8eb85c",	/* 43: tighter_budget_perceptron, two classes, merged */
	"56a6a24c42473f8084128284b284cb899ea2596a77ed5c843d114b3c3280d2e6",	/* 44: tighter_budget_perceptron, three classes, merged */
	"a5a80c336f001795a59a956c1e4d6fde7e83a26516e6545c616dad5e08ef6536",	/* 45: spa, two classes */
	"d3516ba0e2e4b7a60fc98740bbcec57c924621241968791b4440fb028a472a5a",	/* 46: spa, three classes */
	"42bc8e3f0350fcb2ef1c524840668887b890bbfd3a1d1718b41b1610d3ef8846",	/* 47: spa, two classes, continued, second pass */
	"6d8cbf6488969de64ecece2bd68c35788bda2b53420c2060b5210dfc21966850",	/* 48: spa, two classes, merged */
	"3779a0e2aa07642477d870c4c60285fd2770a16d5289b1bcfc366da568e40300",	/* 49: spa, three classes, merged */
	"ec21a5050a80beebf8336b0b448743273cff806692f07716a0afe1613e975e82",	/* 50: ogd, two classes */
	"0d60c98b9646deb722c44d89d42b91c9935e939a6173d17fb2de033875bba7ee",	/* 51: ogd, three classes */
	"a603e4b685bd7ae3b35d52fb85d36784947b8460d826a2daf53b2ca1d463d2af",	/* 52: ogd, two classes, continued, second pass */
	"86b1ae4e068fe0bb460ff551a2365d4ec9c92af4583088bc0e5f250a62f39007",	/* 53: ogd, two classes, merged */
	"fe34bb0379108f3393b022c60396330b7b3f3e7bcd73653aac86cba3ecbff67e",	/* 54: ogd, three classes, merged */
	"f3404ae4b3a56eab772295ccc69b30d3d83e29940893a55a527a4cec832f278d",	/* 55: duol, two classes */
	"d90ba400784275bfe0e749457bb8e2ad3327e44f1ed78acd00e609e3b52fff0f",	/* 56: duol, three classes */
	"21ffb50a9cf4a6a02eed050d72a3ea08d076b8c58034beb2038608096fc0ab60",	/* 57: duol, two classes, continued, second pass */
	"74374d0d0a5d16c3620137ef93e0faf5cbd0a5d6db700beda8bf7b3998c02386",	/* 58: duol, two classes, merged */
	"25dad2d159377b8309ee6d965de6cd8c84fb4f09d47a4165a0ce1dd602b22788",	/* 59: duol, three classes, merged */
	"2f463c63e981606040e16b6051386f1b07e3b4b2eafea607e06b5858830c12c3",	/* 60: bduol, two classes */
	"01f10e5730906293b2d02a785b0810edff46e994f194880d5c0c73fe55261f26",	/* 61: bduol, three classes */
	"82070a92b5e1355b7377e3217cf17fbc10865b8021a22970ef1ce04dc151c013",	/* 62: bduol, two classes, continued, second pass */
	"545c5a1a7f4e69eb7fcfecfff82398ce2592dc7f06e4dfe4881a47ea036f5883",	/* 63: bduol, two classes, merged */
	"28610499976210a4818b0d5b477954e0f3cf8ee638839ba1e77cd6f2b831c673",	/* 64: bduol, three classes, merged */
	"e903e4866750a54a4a2cd7a4956b8bc0382d77e41210d34d11d3935d0b2ed10a",	/* 65: bogd, two classes */
	"f5077735c5e05bf1c520d0b82c3af9c109048afd285e51e456f3b751635e892c",	/* 66: bogd, three classes */
	"7d5bb1916ea8e60f655519bd0c9f73dfe72fe8f6f6d594407bcf670b651550f3",	/* 67: bogd, two classes, continued, second pass */
	"dd93d93727aa2dd94765c436ddaf89ac0fbef7d2f116877bf0e9cfb3e560cbd5",	/* 68: bogd, two classes, merged */
	"e063f2d7606fa613e49203db81bddb65f7affb0e1568d14ad8fb3e2eee33474d",	/* 69: bogd, three classes, merged */
	"bca235f91a92ae663a22a45341841e2fdc57f22f553098796f33ae56ca1d24fd",	/* 70: forgetron, two classes */
	"a9aa5a3a31de9bf13af3137734ae552ed680cabe6befb00fcbe3ceedff053961",	/* 71: forgetron, three classes */
	"ebe89e98909581176e5a4c7968d2c08cdd0022445619fbe473537f3e2d94dbfe",	/* 72: forgetron, two classes, continued, second pass */
	"44549a8125e5b4e128287f04573b0e8f8b63f997c65f8a9ed6964cc7f3a045d5",	/* 73: forgetron, two classes, merged */
	"3448b045bde505d571c8eef27ea72a6348f82cbd28538ecab1835509ed69c7ed",	/* 74: forgetron, three classes, merged */
	"2164abc0dcbaa9742f62f7d02d9f0777cfbafb701d98ba87a09470ab9c3af579",	/* 75: projectron, two classes */
	"48e754062e9149f979523cd2cf35ea1b5e8ff1cdb416ff7950bec2863a2ddfa0",	/* 76: projectron, three classes */
	"e8afca1e5b1e48950b6e436f6e6daac903310c968dda3bb15f63eec0ededb5a4",	/* 77: projectron, two classes, continued, second pass */
	"baba090152595f8b16e20ba9b78199377690e7533428794003641d5d3d424dab",	/* 78: projectron, two classes, merged */
	"4b28a84c71d280d66b912e87cec09764a5f84971321015a77c3fc93c81612aaf",	/* 79: projectron, three classes, merged */
	"494eade9ee82b3622e82f20cae26beec0789fe5165ff3191db6125ca4c9aaffd",	/* 80: projectron_pp, two classes */
	"925122f3b2c83b466e9cf5d23f21eebd49be2e74a74f5271b2f86950e8b4b367",	/* 81: projectron_pp, three classes */
	"ddb164335397d6a3bcf0524218e64b4f0e4595876ae05c595e2b9efaf3693748",	/* 82: projectron_pp, two classes, continued, second pass */
	"484cde09618139fd72bf5d845a1e640c156d87ee64a54ee878b2c596eda37dc4",	/* 83: projectron_pp, two classes, merged */
	"e612c4b5522e09bb80bc2c65acae53db63d5ab86f951ca06d6316fa850c737e2",	/* 84: projectron_pp, three classes, merged */
	"f775b7b4ec0fbf94790db5ac630a066a4813b0366d5d13fa030e8f4dbd206ed9",	/* 85: bpa variant=nn, two classes */
	"a2aa0fc915e58ed44434d1d661a9bce42bf34fe9055d620075217fc59873c7f3",	/* 86: bpa variant=nn, three classes */
	"6b5d37cd399806b8d0d836dfd4610d47d3adf9ab4a75b12063d04130ba872a7b",	/* 87: bpa variant=p, two classes */
	"eed5840e01dc6bafe69a02d011d2a38d453f4572531236601968736511e38754",	/* 88: bpa variant=p, three classes */
	"066e6095b90bb545ab034063d54146daf34654e4a111a65e53576855324e0849",	/* 89: bpa variant=s kernel, two classes */
	"a0b6b89ce5ddd9a7e392eb776a892b9119faa16008d299d064c93980f85f0cf9",	/* 90: bpa variant=s kernel, three classes */
	"d0265ee4f71a21bce5569f5cb7f6624994b56bf26b21f174b7c7622e7a37a90d",	/* 91: bpa variant=nn loss, two classes */
	"9b0b64b9b5b1969a5a21997ab14827a880062b3bf748941cce9bbb49dc424c20",	/* 92: bpa variant=nn loss, three classes */
	"16429911b4415627dd40cb9c4aab02f25c7d9bb42ec2af2c50b7f79ec2bfab52",	/* 93: pegasos maintenance=merge, two classes */
	"bd7bdb176f35675c5c1b6ef537d6eb4e977b2de0654fabf394f34050c1de4741",	/* 94: pegasos maintenance=merge, three classes */
	"963961920b7264b4dfd2cc505afbda0dd5590da5ad6fad66206cd51df41f4edd",	/* 95: pegasos maintenance=projection, two classes */
	"179fe289fa883fafa27787e36d5e590eab7a821faeffa9aeaa515b46c0e9a790",	/* 96: pegasos maintenance=projection, three classes */
	"d637f607f2167dd61c3d72ed0fea9413940930f0931fb683b98b601eb86b4257",	/* 97: pegasos maintenance=projection_best, two classes */
	"45702f163368d8b9a5b1ab5721906978f93c3f037301367eaf82f9153a01aa30",	/* 98: pegasos maintenance=projection_best, three classes */
	"237eb30742b23fe8ece8c93139dd7dcd32bee707a36f30f6463c0b040db29bd4",	/* 99: bduol maintenance=projection, two classes */
	"06b37327507922532a237fdf294b867f8e969ae3ad01acae858b76b8a07e7285",	/* 100: bduol maintenance=projection, three classes */
	"29f324cf368421e0ab52c64250e32989b13884cba6d93dc085e70127e7a0753a",	/* 101: bduol maintenance=approx_projection, two classes */
	"fddb69ad4222059e74c87eceeb7da4c5ab6c0cfe14da74ee575955fd8ba7a249",	/* 102: bduol maintenance=approx_projection, three classes */
	"0082223643e8317644228a0dbda63b34f7e4d58ab5f6bf41463f6c15a91d403f",	/* 103: pa kernel=linear, two classes */
	"eb588965dae97e81c47c036d12d66bb440d0d7b5d2abb05199139a38980ed39c",	/* 104: pa kernel=linear, three classes */
	"e6afd7640381a4830294f3ba13a5d2b08c832014e8b23372193dd91845ac4f4d",	/* 105: projectron_pp kernel=poly degree, two classes */
	"3e71d772133109978669e3ca51862570bd84ba3450fa4a2ffc3fc936979f3116",	/* 106: projectron_pp kernel=poly degree, three classes */
	"2c0c89f76cde2e6e7f1df6795977c15e79de1823124c818d6cf3ea29ad86a2af",	/* 107: bpa variant=nn, two classes, standardised */
	"e83f6615d0990e6632d9cf76a02d9360c937d6e659019fcf43ccad18ce8008ff",	/* 108: pegasos maintenance=merge, three classes, standardised */
	"fb55d4cd826d6a962ed168710ed41e9399d40b3ca0256c99798bf057be5edf79",	/* 109: bpa variant=p, two classes, calibrated */
	"6fcc601fe08fcf06d9d6fad9ba76ae4ed30ff4b6412f6aaa0be18ff0a837e8bb",	/* 110: bpa variant=nn, three classes, calibrated */
	"6c20a376736deb9078ac03ac5e9110b8781975b0aa12f9c01c075586a3f6dbf3",	/* 111: bpa variant=nn, three classes, balanced weights */
	"4dd9ab2b897ba98c76e309a652c5ec4f5e9a67c8b480e2b83670e8aecc45ad59",	/* 112: bpa variant=p, three classes, merged */
	"ed65059a4baf9afd2ca0faac5e428a4c91ce0a955e50a2d8abdf4fff4cd24f5b",	/* 113: pegasos maintenance=merge, three classes, continued, second pass */
	"ff59f2a16fd28a3c07cc8303fbee63213c6b8238d3c74acad97e6e10d18aeb21",	/* 114: bduol maintenance=projection, two classes, merged */
	"c13ed8bb260ad060d9d1b920a1e064f99e7b2d0d1a2b212113961e6f5687e393",	/* 115: pa, regression */
	"5255e906ff0ceb6d0c7bdb2a3a41375d4448c06f4bfc9d02602f4f230ea49234",	/* 116: pa, regression, continued, second pass */
	"c77a6711a67ec343103ef8ee4c704fa7ff410d7ab57ed0f35c45a20df66c1e8e",	/* 117: pa, regression, merged */
	"6d50416f5a297769431fbeda66d868d0f14ba1d3deec3ae17e5c14028b6398b3",	/* 118: bpa variant=nn, regression */
	"cd8792fee99cde3ed44c72a82154bf91a5c9582f66ec1843d7ef8bb2fb23ff69",	/* 119: bpa variant=nn, regression, continued, second pass */
	"76ad5265c485e9d37d65474853f9d7b0c27a208167075ea4e300196b256d9cdd",	/* 120: bpa variant=nn, regression, merged */
	"cd3adb90831b4e47bd1cb4ed7d91bbdaefb28a30567ba2db1c721386755e0755",	/* 121: bpa variant=s, regression */
	"d7c83b72481a543743258f838f7982599740a8aa435ea56ac78d51f40b386e06",	/* 122: bpa variant=s, regression, continued, second pass */
	"e848681093901329e34edbb38d2ed1c66a7fa5f2a92d8eb72061f1257dd207cb",	/* 123: bpa variant=s, regression, merged */
	"deb6c4ae2e3f1b8e536e3723fc0f9de6878b1781e922c11be43ba0ae62904e89",	/* 124: bpa variant=p, regression */
	"eacfe180baf3e3c9ec7e6e75dc33100b3aca47bb6e8c8f58f11c749b40ff4fde",	/* 125: bpa variant=p, regression, continued, second pass */
	"a4e5bf95a7f5c5c0e12c749b2e0544820aea10e685809deb1bb47d18aa1c9a92",	/* 126: bpa variant=p, regression, merged */
	"9f1908a3313d1a15dea3e9bbd666ae26df83779e85a564ac31193647072ab74b",	/* 127: pegasos, regression */
	"d2db80b479274d144d12f1ab4caf35fc35be379da5c7994e8ca722f2ff0ffa0e",	/* 128: pegasos, regression, continued, second pass */
	"0c373cdc364841fe6861db3cb87c8eb23a0f97c69f84f3a982881a93918b2545",	/* 129: pegasos, regression, merged */
	"d7e970551401da351f0f463e22a52ed739da8e7520aa9cd4d75fad9be4760dae",	/* 130: pa_random, regression */
	"195b214739aff8956400bae5c5c5a8141efe0b2cff57cdeb718bcca985feaadf",	/* 131: pa_random, regression, continued, second pass */
	"fd522fadbc1de915c4d38f5dffe4887eef02010c193011b018e49bff2debbe43",	/* 132: pa_random, regression, merged */
	"1b030a79cd37c3866b7442599b218027c8df48a55f4049e9d738328839d9425d",	/* 133: ogd, regression */
	"4aabb941ddd2bf6785d812caae5be922687d3272c50a786c397fb08f492e2949",	/* 134: ogd, regression, continued, second pass */
	"899564ab0ec67a37bbd5e77c0f1ca5c7282e7c7b750e0ff140b0128e20461a2b",	/* 135: ogd, regression, merged */
	"d69c0ccdba7cde7d702604ad854dbb979b282ded52e2642bb14ceaabe1331056",	/* 136: bogd, regression */
	"2816f3631d2afbbd9c610bd98c075a8cf738692c0e0e78b2c91aa29b7441682b",	/* 137: bogd, regression, continued, second pass */
	"3529f12fc76dea09d6654c9f5cf67439dbd12205f4b5f5c40816280e3ad6c6ac",	/* 138: bogd, regression, merged */
	"7a74bb5ab1e7ab3e74a498e342bb52142aa16d1fe79544645bd3e868f6707c93",	/* 139: pegasos, novelty */
	"2aead6e878b3419e10672e842e27d2007b9d356b586444a27a700aea15fbf688",	/* 140: pegasos, novelty, continued, second pass */
	"42a5027e9d513d8055e636e2ad56628c525bd341105eaf96411783b3613880b4",	/* 141: pegasos, novelty, merged */
	"7b2eef4bcf1dc8cfa5cd5bd7140e7bbaadebe2f2c69a6d5e16ddf8d1e96c3bc4",	/* 142: ogd, novelty */
	"341b3311bbe5f5d92c560f7e1eaac6dde81dc299e3d05c3ebb4b8db51a860269",	/* 143: ogd, novelty, continued, second pass */
	"d6a66b54fc422009ef5ebe8051531f08deefb06fd2844dbf3b5abf7f96454e12",	/* 144: ogd, novelty, merged */
	"ff8473a56d69b9fd9710533a3cbe8c6694d8d0320d8b965cad2f1f205d47ca3f",	/* 145: bogd, novelty */
	"c714358e87808080bee545f59729a34fd6403c4435daca18d7d1e870f65a0f82",	/* 146: bogd, novelty, continued, second pass */
	"fd3e0517d1df0bcaa3ab8aa07d92afc7c73486dd902610247eb0d7b3612bf02b",	/* 147: bogd, novelty, merged */
	"a575cf0e830b7e25536966504bf6d3d9912a96d9359003bce5b2c57ccf6e242f",	/* 148: bpa nn, three classes, 8 parts distilled */
	"b50f50b8456df0cae65e4d0698d4c7895d150a93bc2e5c3d1ea98d47fce36146",	/* 149: pegasos merge, three classes, 8 parts distilled */
	"e41d8b597d6957f1830e9440a1e6e99a79b121bf07be66d882e44df4aef27c6c",	/* 150: the scores of every model */
};

#define N_EXPECTED ((int) (sizeof(expected) / sizeof(expected[0])))

typedef struct FpRun
{
	int			at;				/* settings checked */
	int			bad;
	bool		lanes;			/* the AVX2 paths on */
	Sha256		scores;
} FpRun;

static void
check_setting(FpRun *run, const char *label, BkModel *m, const Stream *s)
{
	Sha256		h;
	char		hex[65];
	size_t		len;
	uint8_t    *b = encode(m, &len);
	const char *want = run->at < N_EXPECTED ? expected[run->at] : "(none)";
	double		sc[3];

	sha_init(&h);
	sha_update(&h, b, len);
	sha_hex(&h, hex);
	CHECK(strcmp(hex, want) == 0,
		  "FINGERPRINT DIFFERS: setting %d, %s: model SHA-256 %s, committed %s (AVX2 paths %s)",
		  run->at, label, hex, want, run->lanes ? "on" : "off");
	run->bad += strcmp(hex, want) != 0;
	run->at++;

	/* the decoded model's scores on the held-out rows (what scoring reads) */
	{
		BkModel    *d = BkModelDecode(&bk_std_env, b, len, false);

		for (int i = FP_ROWS; i < FP_ROWS + FP_TEST; i++)
		{
			const double *x = s->x + (size_t) i * FP_DIM;
			int64_t		lab = 0;

			if (BkModelPrep(d) != NULL)
				continue;		/* a prepared model's rows are prepared first */
			if (d->target != NULL || d->novelty != NULL)
			{
				sc[0] = d->target ? BkModelPredictValue(d, x) : BkModelNoveltyScore(d, x);
				sha_update(&run->scores, sc, sizeof(double));
				continue;
			}
			BkModelScores(d, x, sc);
			sha_update(&run->scores, sc, sizeof(double) * (d->n_classes == 2 ? 1 : d->n_classes));
			BkModelPredict(d, x, &lab);
			sha_update(&run->scores, &lab, sizeof(lab));
			if (BkModelCalibrated(d))
			{
				BkModelProbabilities(d, x, sc);
				sha_update(&run->scores, sc, sizeof(double) * d->n_classes);
			}
		}
		BkModelFree(d);
	}
	free(b);
}

/* every setting once, with the AVX2 paths on or off */
static void
fingerprint_run(bool lanes)
{
	Stream	   *two = malloc(sizeof(Stream));
	Stream	   *three = malloc(sizeof(Stream));
	FpRun		run;
	char		label[160];
	char		hex[65];

	static const char *const variants[][4][2] = {
		{{"algorithm", "bpa"}, {"variant", "nn"}},
		{{"algorithm", "bpa"}, {"variant", "p"}},
		{{"algorithm", "bpa"}, {"variant", "s"}, {"kernel", "poly"}, {"degree", "3"}},
		{{"algorithm", "bpa"}, {"variant", "nn"}, {"loss", "ramp"}},
		{{"algorithm", "pegasos"}, {"maintenance", "merge"}},
		{{"algorithm", "pegasos"}, {"maintenance", "projection"}},
		{{"algorithm", "pegasos"}, {"maintenance", "projection_best"}},
		{{"algorithm", "bduol"}, {"maintenance", "projection"}},
		{{"algorithm", "bduol"}, {"maintenance", "approx_projection"}},
		{{"algorithm", "pa"}, {"kernel", "linear"}},
		{{"algorithm", "projectron_pp"}, {"kernel", "poly"}, {"degree", "2"}},
	};
	static const int variant_np[] = {2, 2, 4, 3, 2, 2, 2, 2, 2, 2, 3};
	/* the variants also taken through the other modes: name, mode, stream */
	static const struct
	{
		int			variant;
		FpMode		mode;
		bool		three;
	}			extra[] = {
		{0, FP_PREPARED, false}, {4, FP_PREPARED, true}, {1, FP_CALIBRATED, false},
		{0, FP_CALIBRATED, true}, {0, FP_WEIGHTED, true}, {1, FP_MERGED, true},
		{4, FP_CONTINUED, true}, {7, FP_MERGED, false},
	};

	memset(&run, 0, sizeof(run));
	run.lanes = lanes;
	BkVectorLanesEnable(lanes);
	make_stream(two, 101, false);
	make_stream(three, 202, true);
	sha_init(&run.scores);
	for (int i = 0; BkLearnerAt(i) != NULL; i++)
	{
		const char *pp[1][2] = {{"algorithm", BkLearnerAt(i)->name}};
		static const struct
		{
			FpMode		mode;
			bool		three;
		}			modes[] = {{FP_PLAIN, false}, {FP_PLAIN, true}, {FP_CONTINUED, false},
		{FP_MERGED, false}, {FP_MERGED, true}};

		for (size_t k = 0; k < sizeof(modes) / sizeof(modes[0]); k++)
		{
			const Stream *s = modes[k].three ? three : two;
			BkModel    *m = train_setting((const char *const (*)[2]) pp, 1, s, modes[k].mode);

			snprintf(label, sizeof(label), "%s, %s%s%s", BkLearnerAt(i)->name,
					 modes[k].three ? "three classes" : "two classes",
					 modes[k].mode == FP_PLAIN ? "" : ", ", mode_names[modes[k].mode]);
			check_setting(&run, label, m, s);
			BkModelFree(m);
		}
	}
	for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); v++)
		for (int t = 0; t < 2; t++)
		{
			const Stream *s = t ? three : two;
			BkModel    *m = train_setting(variants[v], variant_np[v], s, FP_PLAIN);

			snprintf(label, sizeof(label), "%s %s=%s%s%s, %s", variants[v][0][1],
					 variants[v][1][0], variants[v][1][1],
					 variant_np[v] > 2 ? " " : "", variant_np[v] > 2 ? variants[v][2][0] : "",
					 t ? "three classes" : "two classes");
			check_setting(&run, label, m, s);
			BkModelFree(m);
		}
	for (size_t e = 0; e < sizeof(extra) / sizeof(extra[0]); e++)
	{
		int			v = extra[e].variant;
		const Stream *s = extra[e].three ? three : two;
		BkModel    *m = train_setting(variants[v], variant_np[v], s, extra[e].mode);

		snprintf(label, sizeof(label), "%s %s=%s, %s, %s", variants[v][0][1],
				 variants[v][1][0], variants[v][1][1],
				 extra[e].three ? "three classes" : "two classes", mode_names[extra[e].mode]);
		check_setting(&run, label, m, s);
		BkModelFree(m);
	}
	/* regressors: every learner of regression, plain, continued and merged */
	for (int i = 0; BkLearnerAt(i) != NULL; i++)
	{
		static const char *const variants_r[] = {"nn", "s", "p"};

		if (!BkLearnerAt(i)->regression)
			continue;
		for (int v = 0; v < (BkLearnerAt(i)->id == BK_ALG_BPA ? 3 : 1); v++)
			for (FpMode mode = FP_PLAIN; mode <= FP_MERGED; mode++)
			{
				const char *pp[2][2] = {{"algorithm", BkLearnerAt(i)->name},
				{"variant", variants_r[v]}};
				BkModel    *m = regressor((const char *const (*)[2]) pp,
										  BkLearnerAt(i)->id == BK_ALG_BPA ? 2 : 1, two, mode);

				snprintf(label, sizeof(label), "%s%s%s, regression%s%s", BkLearnerAt(i)->name,
						 BkLearnerAt(i)->id == BK_ALG_BPA ? " variant=" : "",
						 BkLearnerAt(i)->id == BK_ALG_BPA ? variants_r[v] : "",
						 mode == FP_PLAIN ? "" : ", ", mode_names[mode]);
				check_setting(&run, label, m, two);
				BkModelFree(m);
			}
	}
	/* novelty detectors: every learner of novelty, plain, continued and merged */
	for (int i = 0; BkLearnerAt(i) != NULL; i++)
	{
		const char *pp[1][2] = {{"algorithm", BkLearnerAt(i)->name}};

		if (!BkLearnerAt(i)->novelty)
			continue;
		for (FpMode mode = FP_PLAIN; mode <= FP_MERGED; mode++)
		{
			BkModel    *m = detector((const char *const (*)[2]) pp, 1, two, mode);

			snprintf(label, sizeof(label), "%s, novelty%s%s", BkLearnerAt(i)->name,
					 mode == FP_PLAIN ? "" : ", ", mode_names[mode]);
			check_setting(&run, label, m, two);
			BkModelFree(m);
		}
	}
	/*
	 * merges of many parts, distilled: BPA-NN and Pegasos-merge, three
	 * classes, at budgets and widths where the distilled model is kept
	 */
	{
		static const char *const distil[][4][2] = {
			{{"algorithm", "bpa"}, {"variant", "nn"}, {"budget", "3"}, {"gamma", "2"}},
			{{"algorithm", "pegasos"}, {"maintenance", "merge"}, {"budget", "4"}, {"gamma", "2"}},
		};

		for (int v = 0; v < 2; v++)
		{
			BkModel    *m = train_setting(distil[v], 4, three, FP_DISTILLED);

			snprintf(label, sizeof(label), "%s %s=%s, three classes, %s", distil[v][0][1],
					 distil[v][1][0], distil[v][1][1], mode_names[FP_DISTILLED]);
			check_setting(&run, label, m, three);
			BkModelFree(m);
		}
	}
	sha_hex(&run.scores, hex);
	{
		const char *want = run.at < N_EXPECTED ? expected[run.at] : "(none)";

		CHECK(strcmp(hex, want) == 0,
			  "FINGERPRINT DIFFERS: setting %d, every model's scores, decisions and probabilities on %d held-out rows: SHA-256 %s, committed %s (AVX2 paths %s)",
			  run.at, FP_TEST, hex, want, lanes ? "on" : "off");
		run.bad += strcmp(hex, want) != 0;
		run.at++;
	}
	CHECK(run.at == N_EXPECTED, "the fingerprint table has %d entries for %d settings",
		  N_EXPECTED, run.at);
	if (run.bad > 0)
		printf("# FINGERPRINTS: %d of %d settings differ from the committed SHA-256 values "
			   "(OPENBLAS_CORETYPE=%s, AVX2 paths %s): the model bytes depend on something else than "
			   "the rows, their order, the parameters and the seed\n",
			   run.bad, run.at, getenv("OPENBLAS_CORETYPE") ? getenv("OPENBLAS_CORETYPE") : "native",
			   lanes ? "on" : "off");
	BkVectorLanesEnable(true);
	free(two);
	free(three);
}

void
test_fingerprints(void)
{
	Sha256		h;
	char		hex[65];

	/* FIPS 180-4's example: SHA-256("abc") */
	sha_init(&h);
	sha_update(&h, "abc", 3);
	sha_hex(&h, hex);
	CHECK(strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0,
		  "the test's SHA-256 of \"abc\" is FIPS 180-4's (%s)", hex);
	fingerprint_run(true);
	fingerprint_run(false);
}
