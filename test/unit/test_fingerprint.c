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
 *	  every model's scores on held-out rows (each double and label as 8
 *	  little-endian bytes, as the format stores them, so the same hash on
 *	  a big-endian host).  It runs twice: with the
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

/* ---- the hashes: the core's SHA-256 (its vectors: test_primitives.c) ---- */

/* bytes collected to be hashed at the end (every model's scores) */
typedef struct ByteLog
{
	uint8_t    *b;
	size_t		n,
				cap;
} ByteLog;

static void
log_append(ByteLog *l, const void *data, size_t n)
{
	if (l->n + n > l->cap)
	{
		l->cap = 2 * (l->n + n);
		l->b = realloc(l->b, l->cap);
	}
	memcpy(l->b + l->n, data, n);
	l->n += n;
}

/*
 * The scores and labels as the model format stores numbers: each value's
 * 64 bits as 8 bytes, least significant first, whatever the host's byte
 * order (on x86-64 and aarch64 the bytes in memory; on s390x reversed),
 * so that the committed hash is the same on every architecture.
 */
static void
log_u64_le(ByteLog *l, uint64_t u)
{
	uint8_t		b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t) (u >> (8 * i));
	log_append(l, b, sizeof(b));
}

static void
log_doubles(ByteLog *l, const double *v, int n)
{
	for (int i = 0; i < n; i++)
	{
		uint64_t	u;

		memcpy(&u, &v[i], sizeof(u));
		log_u64_le(l, u);
	}
}

static void
log_int64(ByteLog *l, int64_t v)
{
	log_u64_le(l, (uint64_t) v);
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
	"8ffecb978650c971bbac279f6dc04660f774999f7c4e67f13d72418a917050d8",	/* 0: perceptron, two classes */
	"3c77096d2aa3ad53dc76c2b626e2408cc417de6a95e91b4ea1c251fcbec8c817",	/* 1: perceptron, three classes */
	"5a48652fba8c84cdc3b4a655a6d514d855c9426a939c8b66cac6b810573c24c4",	/* 2: perceptron, two classes, continued, second pass */
	"45e7dccf77196698dae22ec9e586c33eb01669a6ad96d3c9f2d7a9a32adcf6a7",	/* 3: perceptron, two classes, merged */
	"ba501d33eecef506ca50a85da05dc05f44d0e418e0d1fbba50d1b73150274e08",	/* 4: perceptron, three classes, merged */
	"bb98ca00f1ff24010e9d806eaae8a7aceaecae4e240b426476d269744b73426a",	/* 5: pa, two classes */
	"05e590e4ab1946f81180b2adae5c2cb02f269a3951df906ee1031ef2aa8954b1",	/* 6: pa, three classes */
	"081542799d22733346f743ba337b90a0a8d903ef46820e1cdf09d880764622b5",	/* 7: pa, two classes, continued, second pass */
	"0cc519cc28cbe22aee0336133b2328ce9fd004a153a14ca38374ab13bb62ebed",	/* 8: pa, two classes, merged */
	"0920eee464a7470d5c63ff5823845e73d634cc966a7e1fa751cc5f98ce298b62",	/* 9: pa, three classes, merged */
	"fccc0dc12c005550aefa67b35c378a5ef575570049f6da9f6f12b0afc1d4a79c",	/* 10: bpa, two classes */
	"7c3272d5389d700492703f081e686bb3bd316302579d75843d3537f43a3003d5",	/* 11: bpa, three classes */
	"a6694c471d04181d10c297ffe60d5f39802ff4da29741a4ac042207396e00243",	/* 12: bpa, two classes, continued, second pass */
	"82d239bc0cee79dec9f596bb998dda109ebc648298605eea978caf6574a7149f",	/* 13: bpa, two classes, merged */
	"03a951d49a94e314aeb796e4516dc0c1b3a6e4959f567b5b954888b67efcd1d5",	/* 14: bpa, three classes, merged */
	"9b0e25a843cc2b6de1c916b2536fb7bd819b888df015bdd421140f8307984ab3",	/* 15: pegasos, two classes */
	"b9bad1556e7bbcba114bfe534f93bfde66ca949d3677a8b4674e7bebed77f9f6",	/* 16: pegasos, three classes */
	"120795d008850d9a211361117ac266bf7a6918f019d1f5e0db7ae9c4200f4273",	/* 17: pegasos, two classes, continued, second pass */
	"d7ac94b3231a2f67cdca3fa648f1dc581868fe415ea11982a0f4a007240b15da",	/* 18: pegasos, two classes, merged */
	"a614542521ac1b8eb4e22b0e98b0d182fb86f51e226ab3ae3eba3d9e6bd51966",	/* 19: pegasos, three classes, merged */
	"8853d1d2c825fcddc65db9b05d7c3726794f5266adcd73d3bf9643863d437962",	/* 20: stoptron, two classes */
	"e3bca8011802521f8963cbc62b5692db417e91c20f4f5abe829e91170e70bc6b",	/* 21: stoptron, three classes */
	"619c75ebbfc9970f478b2ec8538799ce6bc67693ff2546cf52789d278e320817",	/* 22: stoptron, two classes, continued, second pass */
	"44e5f54f32979a31ef75e94320c6602f6039c7374891c702907c0a67134de1b3",	/* 23: stoptron, two classes, merged */
	"4c11a5134f5278d542dc157ac501fe56df29816029190d9ae28c3a04c279f204",	/* 24: stoptron, three classes, merged */
	"01ca82902522bdde077f416ae8c14f90cca4643cf1536da5ab2aa6d6c76d02a4",	/* 25: rbp, two classes */
	"89d91a31d45244993ec853dc1d053fa9be106b04f757284bc795f86102491fee",	/* 26: rbp, three classes */
	"1257543abada28ac9711f9aaed834aab5a27336a596b6f3f5960f0e79ca66662",	/* 27: rbp, two classes, continued, second pass */
	"91226139e549b7357334454c03f020cc07baf6636a800992b981010c6a0c4ce3",	/* 28: rbp, two classes, merged */
	"fc724a0260bf677044954c8a8b71c77f7490940300324fce4af68584b39d2db5",	/* 29: rbp, three classes, merged */
	"135e9d239bd662bf74865de2468cf84458730a335a0a849e439e2b5cf8246797",	/* 30: pa_random, two classes */
	"74896d56746bd4d3c9a72adf64121240c85eeecdd41fcb40c4cd47450619f879",	/* 31: pa_random, three classes */
	"12e7ee2f384ba90baf41da3352361b28f5f122b6a20fbfa44c9c3a3aa31a9f50",	/* 32: pa_random, two classes, continued, second pass */
	"65bd13370c376ecdb38d01a7e2914b89a7d45ae41467b57e93a60a5ed6400d01",	/* 33: pa_random, two classes, merged */
	"b73075e7da7fd9f51d92eba2de6282a00929f4b3c4d4470fdfb3c17f61320b41",	/* 34: pa_random, three classes, merged */
	"436595d617106a925dfd68d127e7e8cc30cb17d234631aa148f72b1e1bb37d4b",	/* 35: budget_perceptron, two classes */
	"53459debdbdadbd1a4be56787772453df744d52fb2b0c17d4be64bc00dd70041",	/* 36: budget_perceptron, three classes */
	"15a88f5f318af9bdce154237fa6afbba917e33dac8752ed786c5b2dedad89292",	/* 37: budget_perceptron, two classes, continued, second pass */
	"ec4ed083b9648c862fdde5245da8c1b5d283a759b353c07dc4fd27829999a51d",	/* 38: budget_perceptron, two classes, merged */
	"db21305d943bbc20a9cc7791e0527a4bef64542f9740af8853db79264a03f010",	/* 39: budget_perceptron, three classes, merged */
	"1ab2eb28759bcd768195f200f99168371b517f26c5a3e8865418cbb21385f086",	/* 40: tighter_budget_perceptron, two classes */
	"a12ffdf46e8ed79f551d4e8fbca57a6938cca1297181993b15accef0f75052e3",	/* 41: tighter_budget_perceptron, three classes */
	"10975c9ddcd27a133814d697f6507a0f578577f8a494c4a14808e6909102cf93",	/* 42: tighter_budget_perceptron, two classes, continued, second pass */
	"69ee4acc12281b2f0ab457da9d9b718942529a1e8c4e61d544307023fab7aaaa",	/* 43: tighter_budget_perceptron, two classes, merged */
	"f134f9cdb15b12b3b8c54b6faff030eff25effb4ad9c4ac41210b034e32cf66a",	/* 44: tighter_budget_perceptron, three classes, merged */
	"e5247f926e8dd0a8af42d16615f8b049e2e88cd8c797ad66ab29ec6171c1bbd0",	/* 45: spa, two classes */
	"159eb39087d86a11cd3bd8ad7886083b4b3f36e82d5ea8b9846e680125e0daf0",	/* 46: spa, three classes */
	"cf52c4b1028e6d4442e416edfe4b729cd3d4361d7c531517fc9648af07e5630d",	/* 47: spa, two classes, continued, second pass */
	"ff598710d9c7f51958f545f99f1840937323e9245ce87bcf55f1a95716ebae37",	/* 48: spa, two classes, merged */
	"c70f9a324a8da026a8a16d315495f70c3fc106725461c0a5fc13a36603bfdc9f",	/* 49: spa, three classes, merged */
	"96950e377dcdf6bf79f43a4d0164e1a95a7ac9bcf1b453075a24c519e940dd96",	/* 50: ogd, two classes */
	"26d2a747e0dc848484b5e42a3bdbefa2a9fc5b6a7124ac199ad0fd7714e7fa49",	/* 51: ogd, three classes */
	"04fffe664c95dbf3cdf5ddf1a9b614d2eb191ffbba64b4dbbf4e7bfcf9e55407",	/* 52: ogd, two classes, continued, second pass */
	"7cbb51716635929d1aea28d2b27e0aa5c92169e1e420a71fd2519e80e005262e",	/* 53: ogd, two classes, merged */
	"81d8925d4a94cbbceb7970e026afe73175631219b9d074588b93cd634e5267ae",	/* 54: ogd, three classes, merged */
	"6b3259dc1517d1c5d86f061ed8d5587b95fcf40e2cb5232ac432ce6be8d98cd4",	/* 55: duol, two classes */
	"dde4ec01f0d68e0a2fa800c4d919ae27e02b2d28a0aece140a0edb1f16d09532",	/* 56: duol, three classes */
	"09a5d080c6c1177ca725411547525455654c38265cbf56ca74e005e107bbdbe8",	/* 57: duol, two classes, continued, second pass */
	"50bf88c7745f61542cd3017aed40becdc1e4c0de8a25e40429201b7deb73a05e",	/* 58: duol, two classes, merged */
	"b4aaa7c38630ada7cde48dfdb2c29165e98f654a0b25011e5b435c8e54530afa",	/* 59: duol, three classes, merged */
	"fb73d3254bfae90af21761d227777946366c3f011d50acb037ddb3dc874abe61",	/* 60: bduol, two classes */
	"a84eee170a7684c3509e0241d144e9f1eaface83dd88612f32b80b382a6ead7e",	/* 61: bduol, three classes */
	"a6eb08ead244008ea09685ab3336689408ca7ed2af22024319100b7bf979f4d8",	/* 62: bduol, two classes, continued, second pass */
	"3722539366790d4b517a815b51aa8af979eb83b4da3f635b2fabb08183e6c9a4",	/* 63: bduol, two classes, merged */
	"8859c69b7233025eec28bc3e668d9d1d70348d465ac54e5bfcbc1acd32480155",	/* 64: bduol, three classes, merged */
	"55d04d4d2f8ae0cbb96abd404994d49e6306778c8060009572d569ca2b57e155",	/* 65: bogd, two classes */
	"8c60f8cc9f2ad0c5ec7f810ad28b90cc5b3577327ecd41f27a9a21b8e4b045f6",	/* 66: bogd, three classes */
	"55b71adf84656a1b0c0bdb8c742c68c78271c7d9de1494327205ec0755188660",	/* 67: bogd, two classes, continued, second pass */
	"6b10f15279ef4519449aaf720a355d47ecafa1106c27b24cab354569810dd6b6",	/* 68: bogd, two classes, merged */
	"c89e265abbaab7468a54e2a17667d426ee795c2a61cad3905ad7178327349c10",	/* 69: bogd, three classes, merged */
	"0ee5edc3c17c7b3c1f2b8d70ea62b9f45b6d19a6c496f0f6ed5c4ff9885a23ce",	/* 70: forgetron, two classes */
	"e88b88d41da4be005ee4f51aacfa616117b4f2b5661ff54273fabc67689e91b4",	/* 71: forgetron, three classes */
	"f3aee5eaa28a215f16eb3e3c13a5ac378aad73f527fde38177981d9f4ec7f2fc",	/* 72: forgetron, two classes, continued, second pass */
	"7e5547c3cde3d22fff11cfe24abf207a791aa3722e77668c497e6116919f6583",	/* 73: forgetron, two classes, merged */
	"0142bd434715bc9a2fd0141179b24ec8d2ec1c5af4231025a174f3e733f6a89d",	/* 74: forgetron, three classes, merged */
	"0a8ead73d00d4f83bce10bef7e68da13d689fe414e2bfed5cfa78018124ca41d",	/* 75: projectron, two classes */
	"b622e32be3728d4f1a98238bb199a9093785df70d26b8a3d27bf2e2326bf825e",	/* 76: projectron, three classes */
	"1b3f36f16b1d455357bd9774f5b599dc98ab84759d550f396f6a1254a9dd3a70",	/* 77: projectron, two classes, continued, second pass */
	"5cb1e10325774222cf849fa8b01ac2edfbe0ce271622eea387d260792c7351ac",	/* 78: projectron, two classes, merged */
	"ba280915daf327ad71a06f470b1b3707ff3d621632362497b1afdc0f91e90628",	/* 79: projectron, three classes, merged */
	"9179b99193b4b6eeefcfc3fb62c31f331076c5bc6893b279db63dad0e7496062",	/* 80: projectron_pp, two classes */
	"9e522897303b9e74ea376c5b28cd384c2f379a2f62aa3cb1d0a9b25ecca34a02",	/* 81: projectron_pp, three classes */
	"8aaeb7cf33aba39aede2c050625fdaf838d298fc6b8101f07de7bcb6ffc56510",	/* 82: projectron_pp, two classes, continued, second pass */
	"a52f1d4827e777a5e9ba1e56c7737fa16e3c3629c79d5b31463e0f9949b10762",	/* 83: projectron_pp, two classes, merged */
	"985ed969db47d57238787dd6f42f481f762517ebb81aee83cd08fc60caf7d15d",	/* 84: projectron_pp, three classes, merged */
	"fccc0dc12c005550aefa67b35c378a5ef575570049f6da9f6f12b0afc1d4a79c",	/* 85: bpa variant=nn, two classes */
	"7c3272d5389d700492703f081e686bb3bd316302579d75843d3537f43a3003d5",	/* 86: bpa variant=nn, three classes */
	"a0550f771c7a8d8523128dcc17528c4fbf37e5fb4924e46bf3afe9375ca66dc4",	/* 87: bpa variant=p, two classes */
	"e28c0889db97df38751d74b40a8a8044e934c452a0acd106fe23d8e828937533",	/* 88: bpa variant=p, three classes */
	"1bd03011cc3fe0f4067b9dc6ffcd230218d63d1be62df495fdc2d0cb39e7a430",	/* 89: bpa variant=s kernel, two classes */
	"42270ab20b12c41e5642d53bd4cfb5a62740ef4a1bf5b2fd31446840a1f818d0",	/* 90: bpa variant=s kernel, three classes */
	"796a783b9f0d640190552fb3d17b8c67836dcfddb3d5eba1a6f2e3621c386d58",	/* 91: bpa variant=nn loss, two classes */
	"bd5b7eb6e3d646d607b8d36146f35de1ea441e3e1c36e803207787b7e4da3be1",	/* 92: bpa variant=nn loss, three classes */
	"9b0e25a843cc2b6de1c916b2536fb7bd819b888df015bdd421140f8307984ab3",	/* 93: pegasos maintenance=merge, two classes */
	"b9bad1556e7bbcba114bfe534f93bfde66ca949d3677a8b4674e7bebed77f9f6",	/* 94: pegasos maintenance=merge, three classes */
	"4b337d3730e0dd877ae1902797e95a097cf9d9e12ee2c2d5673efeb7543923e1",	/* 95: pegasos maintenance=projection, two classes */
	"00e9994c88a283ea1fed687178dcc2818347d79a1ac6734d93139545740d769f",	/* 96: pegasos maintenance=projection, three classes */
	"4965d26121846afe590cde9595ac329d31dd767debc7b21ca2599e7c3446d9a3",	/* 97: pegasos maintenance=projection_best, two classes */
	"a3f596c81f738243dce20b20c159a2471bf4f614c110a74a174cac74e019af58",	/* 98: pegasos maintenance=projection_best, three classes */
	"7b0496eac9e4e80e4a7db5ecbc1cc2cd5641b3e8c73a0af1885a24def312f870",	/* 99: bduol maintenance=projection, two classes */
	"cae68d531e382483d730c60e866ba4253c6c4979ef9db1e1d37c4f5fc20de26a",	/* 100: bduol maintenance=projection, three classes */
	"0c00b3c1daf7ba16722e422ddd9fc6e9ef6af57a046e31f05fd807d3c47d7ba7",	/* 101: bduol maintenance=approx_projection, two classes */
	"c05d1e4b4195fb876c457d004a16f8c7b28f408a03031c35aa1dfcfa20a5cd96",	/* 102: bduol maintenance=approx_projection, three classes */
	"5313ce1c2039a20ac64099badff2804a40955c135c855162acb0e0e7e3fbcd1e",	/* 103: pa kernel=linear, two classes */
	"d20106d5a01127a3f1d85d6b2880be3c16400801c986292843b95ea1f5d54f37",	/* 104: pa kernel=linear, three classes */
	"064af12f1d8a38c42aedb8f12ca6f1d7e5918600037ffd6b65d378833e11949a",	/* 105: projectron_pp kernel=poly degree, two classes */
	"0f7468f8e33f38b91d5d2dfa620969a49230d6db562238460c1fe2fd3edf2bb6",	/* 106: projectron_pp kernel=poly degree, three classes */
	"c6c8e33febeeec25535f4ef1ad62845e1bec3da0b99c69a3247f7e6fab60c6c7",	/* 107: bpa variant=nn, two classes, standardised */
	"a0b62322f6715f6d9874777fd5bd23ef75dd949a7fbf7521c469007fcc23bbd6",	/* 108: pegasos maintenance=merge, three classes, standardised */
	"6f81a2bb7149e9d7c742b9edb01bfa4381360bfdbac1e94e78dfde80a2842ca4",	/* 109: bpa variant=p, two classes, calibrated */
	"c676087547706cec34b21ffc3020cdf0433fc4182450010c1465687724e8927d",	/* 110: bpa variant=nn, three classes, calibrated */
	"b6bdabca0e1c6e8ab100c03e5d356f13b5301efa83a0a8629218c9b330721418",	/* 111: bpa variant=nn, three classes, balanced weights */
	"72e4e6629354007793a1fdd1f859e169d34f4199c935932279f7a9d36b377189",	/* 112: bpa variant=p, three classes, merged */
	"af60dad00c9bbc7f662056201df49feff6b991354d4634fb823253f2c33caaea",	/* 113: pegasos maintenance=merge, three classes, continued, second pass */
	"fc10b80bb6e6401db13b3ab9f4f3be74d34ab9c62c7c27974de05fa6cd4d3d9f",	/* 114: bduol maintenance=projection, two classes, merged */
	"834e8f08e95af45cd6db4807703fe81b3fbf11560f540be581a911d669a84f9e",	/* 115: pa, regression */
	"a62d6e55437d7891d1f99f77928bf80383a88e434c7e1ba9b7eae87649ff8e50",	/* 116: pa, regression, continued, second pass */
	"fd0854869d1b9bfe1aeacbd81b1c16aaca00ca74f3a8700bcb9f030a95f0d4ce",	/* 117: pa, regression, merged */
	"e2eab6fdd8d5258fb5e59a5d32f57468391f473c85e0c2402189c03ff19824f9",	/* 118: bpa variant=nn, regression */
	"eddb90d11e87896e2309e393e6b35ce3c9d2f192efeda69b79a73642a031a14a",	/* 119: bpa variant=nn, regression, continued, second pass */
	"fb7281274a1e8e01f714b950a8cbdf735ade12a18b1273229e09fbf61e88aee0",	/* 120: bpa variant=nn, regression, merged */
	"be2259b801f646ca61b36b2b6ba1d3a6557f8ff878ff9cfd544c8f44378544cc",	/* 121: bpa variant=s, regression */
	"02cb3129841bed87bb9ef9bbee20b6c52ccd28937e03514c1aad623d5bf61ba1",	/* 122: bpa variant=s, regression, continued, second pass */
	"308e8623f51a2dde4dcfe12b5778aa6019db9b57a013ed791a1e9eadc8fa552a",	/* 123: bpa variant=s, regression, merged */
	"66c5fbdc221a1d0f006850a1b35286d4f00977bd3e7dc2fca071d8811b7d2cdc",	/* 124: bpa variant=p, regression */
	"3e51997a84f518ff48410302ad25862ab81e339cd7694e474e04b2dfa40d4631",	/* 125: bpa variant=p, regression, continued, second pass */
	"de7044f9a3bec2ec6ca1110c65e3338851591ab276246353873234f82648127b",	/* 126: bpa variant=p, regression, merged */
	"1fec4d3643779008dc5189f6a931c48ea1964e4fe39d1fb53e1d98a2c7a5d3b8",	/* 127: pegasos, regression */
	"4f93c5278982867c40caba559e33c0080bf692a5f93c70952ee82b6c412e2165",	/* 128: pegasos, regression, continued, second pass */
	"82dfbb38cd888344bed224771a9e276610fe209585f4953c4a70821348856e24",	/* 129: pegasos, regression, merged */
	"b02fdf38fbcbb3917a48551fdf73d0dd24f394ffe353be3453049c75c80d1e7d",	/* 130: pa_random, regression */
	"94227834f72a9818dbffc5891acc0f2092108ccab953720e3e814d3e693eb84e",	/* 131: pa_random, regression, continued, second pass */
	"be0252562d8fc59456f5b6b7a007d3200dd7ec87e0f6e1001009c6961c4599d8",	/* 132: pa_random, regression, merged */
	"227a99d37b465f0dca746d028f5c52b2c46cf9e150713611ce8650cb45a482e7",	/* 133: ogd, regression */
	"cd53b4205779425ff54a1ce3d609d685d4686037576f0d37b9ec47243db9bbd9",	/* 134: ogd, regression, continued, second pass */
	"51326d045c7f9e042473cadbc23b698b269d95567bbd9695381e308e94fbecab",	/* 135: ogd, regression, merged */
	"4cf6dadfa8730ebdab0e4275f30981fc3adc909d62330927d41c701447306880",	/* 136: bogd, regression */
	"b9cd66706d83067e17d6c4eb84e0d6f07e7ed8e636169c5899ae8101d8c7e820",	/* 137: bogd, regression, continued, second pass */
	"424f521c671b8e9446100afc98a5e7ab6b4def2b64803d7e82399418a27eb427",	/* 138: bogd, regression, merged */
	"f509bdd76df7e2485793513131a95a1f53a2b3d5aa0fef0235e5d43c5b926ffc",	/* 139: pegasos, novelty */
	"e3388bc03ad77d6afb7a7d813350844e664585013dcaf5c4591bb880842aba0d",	/* 140: pegasos, novelty, continued, second pass */
	"13b974af0f17863f21b7312f342fbc588ec9a9dc07f681022af0aad0c02ab004",	/* 141: pegasos, novelty, merged */
	"5cb6e74bef382827b455ab0fab2b73d03abbf540c95e006f4c096c98e744d3b5",	/* 142: ogd, novelty */
	"f266be8a54be0f0620bfd1534397bbfb0c06b7d97cc75c66bdb03fc578c9ab05",	/* 143: ogd, novelty, continued, second pass */
	"61f25428c01e033507b32db22cc56a8529c2ef644e23e3ece62bf9feef70580c",	/* 144: ogd, novelty, merged */
	"7781bbdb785115628fcbcee67d0f046558b263a2685cd9a08770806fd0522b4d",	/* 145: bogd, novelty */
	"d5d6f817575a46ae483c9f2944a438696cf40d90fcad8fb494547a65bdb27b03",	/* 146: bogd, novelty, continued, second pass */
	"1afd441fef8dc9d843f9342e65f2bcd7c5ac22e721aff529ced272a3040d4a7d",	/* 147: bogd, novelty, merged */
	"16060dddc4305da1289ba5261d63fd78fb25709b9e4b2006d9e206461cb934de",	/* 148: bpa nn, three classes, 8 parts distilled */
	"e83112f0bd08fb0d0859abebd1005adffe719b1d9d067b895ad5fb5211055bfe",	/* 149: pegasos merge, three classes, 8 parts distilled */
	"2e0c72a46cfea5ba3cb8008bb3118c0b5b24c180bcb62dbb85bb2e7153c215a4",	/* 150: bpa variant=nn sv_precision=float4, three classes */
	"35f86cbba741a60164a3ef757d69f80013712267fcf224cd00f560676c819ea1",	/* 151: bpa variant=nn sv_precision=float4, two classes, standardised */
	"c311617b1c7034261c51404a6c763c49857154f0b5fef7067511f7d5d3622e7d",	/* 152: pegasos maintenance=merge sv_precision=float4, three classes */
	"2ba44a4108293beef3b23eadb6ec705c95ea5e044dd3ca24b727e5aeedb8713d",	/* 153: pegasos maintenance=merge sv_precision=float4, three classes, merged */
	"c620e39b7bb5cd242e88a1aff2590c3bc694d9de683ca8526d681c1de89db070",	/* 154: pegasos maintenance=merge sv_precision=float4, two classes, continued, second pass */
	"31c1177fa1d2af4b329f447ea8f3fccc44ee38ccfe87f4e978b0604107f8d016",	/* 155: tighter_budget_perceptron eval_set=svs sv_precision=float4, two classes, merged */
	"8d01d994060b01b7b7ab578a1b0414c40bb9c3bfaa56503adf4af05fff5cb45e",	/* 156: pegasos maintenance=merge sv_precision=float4, three classes, 8 parts distilled */
	"7f3c44ed6a05bf83b99f7a9706d63474e8b1cf00903da343971472b95891468f",	/* 157: the scores of every model */
};

#define N_EXPECTED ((int) (sizeof(expected) / sizeof(expected[0])))

typedef struct FpRun
{
	int			at;				/* settings checked */
	int			bad;			/* models whose hash differs */
	bool		scores_bad;		/* the scores' hash differs */
	bool		lanes;			/* the AVX2 paths on */
	ByteLog		scores;			/* every model's scores, hashed at the end */
} FpRun;

static void
check_setting(FpRun *run, const char *label, BkModel *m, const Stream *s)
{
	char		hex[65];
	size_t		len;
	uint8_t    *b = encode(m, &len);
	const char *want = run->at < N_EXPECTED ? expected[run->at] : "(none)";
	double		sc[3];

	sha_hex(b, len, hex);
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
				log_doubles(&run->scores, sc, 1);
				continue;
			}
			BkModelScores(d, x, sc);
			log_doubles(&run->scores, sc, d->n_classes == 2 ? 1 : d->n_classes);
			BkModelPredict(d, x, &lab);
			log_int64(&run->scores, lab);
			if (BkModelCalibrated(d))
			{
				BkModelProbabilities(d, x, sc);
				log_doubles(&run->scores, sc, d->n_classes);
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
	/*
	 * support vectors stored as float4: rows rounded as they are learned,
	 * Pegasos' merged points, models merged, continued, prepared and
	 * distilled, and an evaluation set that mirrors the SVs
	 */
	{
		static const char *const f4[][5][2] = {
			{{"algorithm", "bpa"}, {"variant", "nn"}, {"sv_precision", "float4"}},
			{{"algorithm", "pegasos"}, {"maintenance", "merge"}, {"sv_precision", "float4"}},
			{{"algorithm", "tighter_budget_perceptron"}, {"eval_set", "svs"}, {"sv_precision", "float4"}},
			{{"algorithm", "pegasos"}, {"maintenance", "merge"}, {"sv_precision", "float4"},
			{"budget", "4"}, {"gamma", "2"}},
		};
		static const struct
		{
			int			variant;
			FpMode		mode;
			bool		three;
		}			f4_settings[] = {
			{0, FP_PLAIN, true}, {0, FP_PREPARED, false}, {1, FP_PLAIN, true},
			{1, FP_MERGED, true}, {1, FP_CONTINUED, false}, {2, FP_MERGED, false},
			{3, FP_DISTILLED, true},
		};

		for (size_t e = 0; e < sizeof(f4_settings) / sizeof(f4_settings[0]); e++)
		{
			int			v = f4_settings[e].variant;
			const Stream *s = f4_settings[e].three ? three : two;
			BkModel    *m = train_setting(f4[v], v == 3 ? 5 : 3, s, f4_settings[e].mode);

			snprintf(label, sizeof(label), "%s %s=%s sv_precision=float4, %s%s%s", f4[v][0][1],
					 f4[v][1][0], f4[v][1][1], s == three ? "three classes" : "two classes",
					 f4_settings[e].mode == FP_PLAIN ? "" : ", ", mode_names[f4_settings[e].mode]);
			check_setting(&run, label, m, s);
			BkModelFree(m);
		}
	}
	sha_hex(run.scores.b, run.scores.n, hex);
	free(run.scores.b);
	{
		const char *want = run.at < N_EXPECTED ? expected[run.at] : "(none)";

		CHECK(strcmp(hex, want) == 0,
			  "FINGERPRINT DIFFERS: setting %d, every model's scores, decisions and probabilities on %d held-out rows: SHA-256 %s, committed %s (AVX2 paths %s)",
			  run.at, FP_TEST, hex, want, lanes ? "on" : "off");
		run.scores_bad = strcmp(hex, want) != 0;
		run.at++;
	}
	CHECK(run.at == N_EXPECTED, "the fingerprint table has %d entries for %d settings",
		  N_EXPECTED, run.at);
	if (run.bad > 0)
		printf("# FINGERPRINTS: %d of %d models differ from the committed SHA-256 values "
			   "(OPENBLAS_CORETYPE=%s, AVX2 paths %s): the model bytes depend on something else than "
			   "the rows, their order, the parameters and the seed\n",
			   run.bad, run.at - 1, getenv("OPENBLAS_CORETYPE") ? getenv("OPENBLAS_CORETYPE") : "native",
			   lanes ? "on" : "off");
	else if (run.scores_bad)
		printf("# FINGERPRINTS: all %d models are the committed bytes, but the hash of their scores "
			   "differs (OPENBLAS_CORETYPE=%s, AVX2 paths %s): scoring the same models gives other "
			   "doubles here\n",
			   run.at - 1, getenv("OPENBLAS_CORETYPE") ? getenv("OPENBLAS_CORETYPE") : "native",
			   lanes ? "on" : "off");
	BkVectorLanesEnable(true);
	free(two);
	free(three);
}

void
test_fingerprints(void)
{
	fingerprint_run(true);
	fingerprint_run(false);
}
