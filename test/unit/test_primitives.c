/*
 * test_primitives.c
 *	  Unit tests: The small parts of the core: CRC-32C, SHA-256, the PRNG, the
 *	  kernels, the inverse kernel matrix.
 */
#include "bk_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


void
test_crc(void)
{
	/* the standard check value of CRC-32C */
	CHECK(BkCrc32c(0, "123456789", 9) == 0xE3069283u, "crc32c check value");
	CHECK(BkCrc32c(BkCrc32c(0, "1234", 4), "56789", 5) == 0xE3069283u,
		  "crc32c in pieces");
	/* the crc32 instruction's three streams and the tables agree, in pieces too */
	{
		static uint8_t buf[3 * 4096 * 3 + 777];
		uint64_t	s = 1;
		int			bad = 0;

		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (uint8_t) ((s = s * UINT64_C(6364136223846793005) + 1442695040888963407u) >> 56);
		for (size_t len = 0; len + 3 <= sizeof(buf); len += len < 64 ? 1 : 1013)
			for (size_t off = 0; off < 3; off++)
			{
				uint32_t	sw;

				BkVectorLanesEnable(false);
				sw = BkCrc32c(0, buf + off, len);
				BkVectorLanesEnable(true);
				bad += BkCrc32c(0, buf + off, len) != sw ||
					BkCrc32c(BkCrc32c(0, buf + off, len / 3), buf + off + len / 3, len - len / 3) != sw;
			}
		CHECK(bad == 0, "crc32c: the same on the crc32 instruction as by the tables");
	}
}

/* SHA-256 against the test vectors of FIPS 180-4 (and its padding edges) */
void
test_sha256(void)
{
	static const struct
	{
		const char *msg;
		size_t		repeat;
		const char *hex;
	}			cases[] = {
		{"", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
		"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
		{"a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
		/* 55, 56 and 64 bytes: one or two blocks of padding */
		{"a", 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
		{"a", 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
		{"a", 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		size_t		mlen = strlen(cases[c].msg) * cases[c].repeat;
		char	   *buf = malloc(mlen + 1);
		uint8_t		d[BK_DIGEST_LEN];
		char		hex[2 * BK_DIGEST_LEN + 1];

		for (size_t r = 0; r < cases[c].repeat; r++)
			memcpy(buf + r * strlen(cases[c].msg), cases[c].msg, strlen(cases[c].msg));
		BkSha256(buf, mlen, d);
		for (int i = 0; i < BK_DIGEST_LEN; i++)
			snprintf(hex + 2 * i, 3, "%02x", d[i]);
		CHECK(strcmp(hex, cases[c].hex) == 0, "sha256 case %zu: %s", c, hex);
		free(buf);
	}
	/*
	 * The SHA extensions' path (where the CPU has them) and the portable
	 * code give the same digest, at every length from 0 to 300 bytes and
	 * of 1 MB, of seeded bytes; the FIPS cases above ran on the first
	 */
	{
		size_t		big = (size_t) 1 << 20;
		uint8_t    *buf = malloc(big);
		uint8_t		d1[BK_DIGEST_LEN],
					d2[BK_DIGEST_LEN];
		BkRng		rng;
		bool		same = true;

		BkRngSeed(&rng, 256);
		for (size_t i = 0; i < big; i++)
			buf[i] = (uint8_t) BkRngNext(&rng);
		for (size_t len = 0; len <= 300 + 1; len++)
		{
			size_t		n = len <= 300 ? len : big;

			BkSha256(buf, n, d1);
			BkVectorLanesEnable(false);
			BkSha256(buf, n, d2);
			BkVectorLanesEnable(true);
			same &= memcmp(d1, d2, BK_DIGEST_LEN) == 0;
		}
		CHECK(same, "sha256: the same digests with and without the SHA extensions (CPU has them: %d)",
			  (int) BkCpuHasSha());
		free(buf);
	}
}

void
test_rng(void)
{
	BkRng		a,
				b;
	int			same = 1,
				inrange = 1;

	BkRngSeed(&a, 42);
	BkRngSeed(&b, 42);
	for (int i = 0; i < 1000; i++)
		same &= BkRngNext(&a) == BkRngNext(&b);
	CHECK(same, "same seed gives the same sequence");
	BkRngSeed(&b, 43);
	CHECK(BkRngNext(&a) != BkRngNext(&b), "different seeds differ");
	for (int i = 0; i < 10000; i++)
	{
		double		u = BkRngUniform(&a);

		inrange &= u >= 0.0 && u < 1.0 && BkRngBelow(&a, 7) < 7;
	}
	CHECK(inrange, "uniform in [0,1) and below(n) < n");
}

void
test_kernels(void)
{
	BkParams	p;
	double		a[3] = {1, 2, 3},
				b[3] = {-1, 0.5, 2};
	double		dot = BkDot(a, b, 3),
				sqa = BkDot(a, a, 3),
				sqb = BkDot(b, b, 3);

	BkParamsInit(&p);
	p.kernel = BK_KERNEL_RBF;
	p.gamma = 0.3;
	CHECK(fabs(BkKernelFromDot(&p, dot, sqa, sqb) - exp(-0.3 * (4 + 2.25 + 1))) < 1e-15,
		  "rbf = exp(-gamma ||a-b||^2)");
	p.kernel = BK_KERNEL_LINEAR;
	CHECK(BkKernelFromDot(&p, dot, sqa, sqb) == 6.0, "linear = a.b");
	p.kernel = BK_KERNEL_POLY;
	p.degree = 3;
	p.coef0 = 1;
	CHECK(fabs(BkKernelFromDot(&p, dot, sqa, sqb) - pow(0.3 * 6 + 1, 3)) < 1e-12,
		  "poly = (gamma a.b + coef0)^degree");
	CHECK(fabs(BkKernelSelf(&p, sqa) - pow(0.3 * 14 + 1, 3)) < 1e-9, "poly self");
}

/* ||G (K + ridge diag(K)) - I||_max for the machine's SVs, G the inverse kept */
static double
gram_error(const BkParams *p, const BkMachine *mach, const BkGramInverse *g, int dim)
{
	int			n = mach->n_sv;
	double		worst = 0;

	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
		{
			double		s = 0;

			for (int l = 0; l < n; l++)
			{
				const double *xl = mach->sv + (size_t) l * dim;
				const double *xj = mach->sv + (size_t) j * dim;
				double		k = BkKernelFromDot(p, BkDot(xl, xj, dim),
											   mach->sqnorm[l], mach->sqnorm[j]);

				/* the inverse kept is that of K + ridge diag(K) */
				if (l == j)
					k *= 1.0 + g->ridge;

				s += BkGramAt(g, i, l) * k;
			}
			s -= (i == j);
			if (fabs(s) > worst)
				worst = fabs(s);
		}
	return worst;
}

/*
 * BkKernelRow's RBF row (a vectorised path on CPUs with AVX2) against the
 * scalar recipe: from its dot products, the arguments
 * -gamma max(|sv|^2 + |x|^2 - 2 sv.x, 0) then BkExpArray, bit for bit, for every length modulo 4; against exp()
 * of BkKernelFromDot to 1e-15; an SV equal to x (rounding may make its
 * distance negative) gives 1.
 */
void
test_kernel_row(void)
{
	const char *pp[][2] = {{"algorithm", "bpa"}, {"variant", "s"}, {"budget", "40"}, {"gamma", "0.7"}};
	BkParams	p;
	BkModel    *m;
	BkMachine  *mach;
	BkRng		rng;
	double		x[5],
				dots[40],
				krow[40],
				want[40];
	int			same = 1,
				close = 1;

	make_params(&p, pp, 4, 5);
	m = BkModelCreate(&bk_std_env, &p, 5);
	mach = &m->machines[0];
	BkRngSeed(&rng, 11);
	for (int d = 0; d < 5; d++)
		x[d] = 3.0 * BkRngUniform(&rng) - 1.5;
	for (int n = 1; n <= 40; n++)
	{
		double		sv[5];
		double		sqx = BkDot(x, x, 5);

		for (int d = 0; d < 5; d++)
			sv[d] = n == 7 ? x[d] : 3.0 * BkRngUniform(&rng) - 1.5;
		if (mach->n_sv == mach->capacity)
			BkMachineGrow(&bk_std_env, mach, 5, 2 * mach->capacity);
		BkMachineAppend(mach, 5, sv, BkDot(sv, sv, 5), 1.0);
		BkKernelRow(&p, mach, 5, x, sqx, dots, krow);
		for (int i = 0; i < n; i++)
			want[i] = -p.gamma * BkDist2(dots[i], mach->sqnorm[i], sqx);
		BkExpArray(want, n);
		for (int i = 0; i < n; i++)
		{
			double		k = BkKernelFromDot(&p, BkDot(mach->sv + i * 5, x, 5), mach->sqnorm[i], sqx);

			same &= memcmp(&krow[i], &want[i], sizeof(double)) == 0;
			close &= fabs(krow[i] - k) <= 1e-15;
		}
	}
	CHECK(same, "RBF kernel row equals the scalar arguments' BkExpArray bit for bit");
	CHECK(close, "RBF kernel row within 1e-15 of exp()");
	CHECK(krow[6] == 1.0, "an SV equal to x has kernel 1 (got %.17g)", krow[6]);
	BkModelFree(m);
}

/*
 * The AVX2 lane paths (kernel rows, BPA-NN's candidates, nearest-SV
 * searches, the rank-one updates of K^-1) against the scalar code (the
 * vector exp stays on in both): the same model, byte for byte, from
 * learners that use them, at budgets that are and are not multiples of
 * 4.  On a CPU without AVX2 both runs are scalar and the check says so.
 */
void
test_vector_paths(void)
{
	static const char *configs[][6][2] = {
		{{"algorithm", "bpa"}, {"variant", "s"}, {"gamma", "3"}, {"budget", "16"}, {"C", "1"}, {"seed", "1"}},
		{{"algorithm", "bpa"}, {"variant", "nn"}, {"gamma", "3"}, {"budget", "16"}, {"C", "1"}, {"seed", "1"}},
		{{"algorithm", "bpa"}, {"variant", "nn"}, {"gamma", "3"}, {"budget", "13"}, {"C", "1"}, {"seed", "1"}},
		{{"algorithm", "bpa"}, {"variant", "p"}, {"gamma", "3"}, {"budget", "13"}, {"C", "1"}, {"seed", "1"}},
		{{"algorithm", "bduol"}, {"maintenance", "nearest"}, {"gamma", "3"}, {"budget", "14"}, {"C", "1"}, {"seed", "1"}},
		{{"algorithm", "pegasos"}, {"maintenance", "merge"}, {"gamma", "3"}, {"budget", "15"}, {"lambda", "0.001"}, {"seed", "1"}},
		{{"algorithm", "pegasos"}, {"maintenance", "projection"}, {"gamma", "3"}, {"budget", "14"}, {"lambda", "0.001"}, {"seed", "1"}},
		{{"algorithm", "projectron_pp"}, {"kernel", "rbf"}, {"gamma", "3"}, {"budget", "17"}, {"eta", "0.5"}, {"seed", "1"}},
	};
	const int	n = 1500;
	double	   *x = malloc(sizeof(double) * 2 * n);
	int64_t    *y = malloc(sizeof(int64_t) * n);
	BkRng		rng;
	bool		avx2 = BkCpuHasAvx2();

	BkRngSeed(&rng, 5);
	checkerboard(&rng, n, x, y, 0.1);
	for (size_t c = 0; c < sizeof(configs) / sizeof(configs[0]); c++)
	{
		BkModel    *mv,
				   *ms;
		uint8_t    *bv,
				   *bs;
		size_t		lv,
					ls;

		BkVectorLanesEnable(true);
		mv = train(configs[c], 6, x, y, 0, n, NULL);
		BkVectorLanesEnable(false);
		ms = train(configs[c], 6, x, y, 0, n, NULL);
		BkVectorLanesEnable(true);
		bv = encode(mv, &lv);
		bs = encode(ms, &ls);
		CHECK(lv == ls && memcmp(bv, bs, lv) == 0,
			  "%s %s B = %s: the same model with and without the AVX2 paths%s",
			  configs[c][0][1], configs[c][1][1], configs[c][3][1],
			  avx2 ? "" : " (this CPU has no AVX2: both scalar)");
		free(bv);
		free(bs);
		BkModelFree(mv);
		BkModelFree(ms);
	}
	free(x);
	free(y);
}

/* rows [from, to) of dim features into m */
static void
learn_rows(BkModel *m, const double *x, const int64_t *y, int from, int to,
		   int dim)
{
	for (int i = from; i < to; i++)
		BkModelLearn(m, x + (size_t) i * dim, y[i]);
}

/*
 * The encoded model half (of len hlen), decoded for training with or
 * without padded SV rows and continued on rows [from, to), encoded
 */
static uint8_t *
continued(const uint8_t *half, size_t hlen, bool pad, const double *x,
		  const int64_t *y, int from, int to, int dim, size_t *len)
{
	BkModel    *m;
	uint8_t    *b;

	BkSvPaddingEnable(pad);
	m = BkModelDecode(&bk_std_env, half, hlen, true);
	learn_rows(m, x, y, from, to, dim);
	b = encode(m, len);
	BkModelFree(m);
	return b;
}

/*
 * SV rows padded to a multiple of 4 doubles (dimension 19: rows 20 apart)
 * against rows dim apart: every learner trains the same model, byte for
 * byte, in one run and when the first half's model is encoded under one
 * layout and decoded and continued under the other; two halves merged
 * give the same model too.  The padding changes where the rows lie, never
 * a value.
 */
void
test_sv_stride(void)
{
	static const char *configs[][5][2] = {
		{{"algorithm", "bpa"}, {"variant", "s"}, {"budget", "20"}, {"gamma", "2"}, {"C", "1"}},
		{{"algorithm", "bpa"}, {"variant", "nn"}, {"budget", "20"}, {"gamma", "2"}, {"C", "1"}},
		{{"algorithm", "bpa"}, {"variant", "p"}, {"budget", "20"}, {"gamma", "2"}, {"C", "1"}},
		{{"algorithm", "pa"}, {"gamma", "2"}, {"C", "1"}, {"max_sv", "5000"}, {"loss", "hinge"}},
		{{"algorithm", "perceptron"}, {"gamma", "2"}, {"max_sv", "5000"}, {"kernel", "rbf"}, {"seed", "2"}},
		{{"algorithm", "stoptron"}, {"gamma", "2"}, {"budget", "20"}, {"kernel", "rbf"}, {"seed", "2"}},
		{{"algorithm", "rbp"}, {"gamma", "2"}, {"budget", "20"}, {"kernel", "rbf"}, {"seed", "2"}},
		{{"algorithm", "pa_random"}, {"gamma", "2"}, {"budget", "20"}, {"C", "1"}, {"seed", "2"}},
		{{"algorithm", "budget_perceptron"}, {"gamma", "2"}, {"budget", "20"}, {"update", "mira"}, {"margin", "0.5"}},
		{{"algorithm", "tighter_budget_perceptron"}, {"gamma", "2"}, {"budget", "20"}, {"eval_set", "random"}, {"eval_size", "50"}},
		{{"algorithm", "spa"}, {"gamma", "2"}, {"alpha", "1"}, {"beta", "2"}, {"eta", "1"}},
		{{"algorithm", "ogd"}, {"gamma", "2"}, {"eta", "0.5"}, {"max_sv", "5000"}, {"kernel", "rbf"}},
		{{"algorithm", "duol"}, {"gamma", "2"}, {"C", "10"}, {"max_sv", "5000"}, {"rho", "0"}},
		{{"algorithm", "bduol"}, {"gamma", "2"}, {"C", "10"}, {"budget", "20"}, {"maintenance", "nearest"}},
		{{"algorithm", "bduol"}, {"gamma", "2"}, {"C", "10"}, {"budget", "20"}, {"maintenance", "projection"}},
		{{"algorithm", "bogd"}, {"gamma", "2"}, {"eta", "0.5"}, {"budget", "20"}, {"seed", "3"}},
		{{"algorithm", "forgetron"}, {"gamma", "2"}, {"budget", "20"}, {"kernel", "rbf"}, {"seed", "2"}},
		{{"algorithm", "projectron"}, {"gamma", "2"}, {"budget", "20"}, {"kernel", "rbf"}, {"seed", "2"}},
		{{"algorithm", "projectron_pp"}, {"gamma", "2"}, {"budget", "20"}, {"eta", "0.1"}, {"seed", "2"}},
		{{"algorithm", "pegasos"}, {"maintenance", "merge"}, {"budget", "20"}, {"gamma", "2"}, {"seed", "1"}},
		{{"algorithm", "pegasos"}, {"maintenance", "projection"}, {"budget", "20"}, {"gamma", "2"}, {"seed", "1"}},
		{{"algorithm", "pegasos"}, {"maintenance", "smallest"}, {"budget", "20"}, {"kernel", "poly"}, {"seed", "1"}},
	};
	const int	dim = 19,
				n = 600;
	double	   *x = malloc(sizeof(double) * dim * n);
	double	   *xy = malloc(sizeof(double) * 2 * n);
	int64_t    *y = malloc(sizeof(int64_t) * n);
	BkRng		rng;
	int			same_run = 0,
				same_continued = 0,
				same_merged = 0,
				merges = 0;
	const int	nc = (int) (sizeof(configs) / sizeof(configs[0]));

	CHECK(BkSvStride(dim) == 20 && BkSvStride(15) == 15 && BkSvStride(16) == 16,
		  "SV rows of dimension 19 lie 20 doubles apart, of 15 and 16 dim apart");
	BkRngSeed(&rng, 11);
	checkerboard(&rng, n, xy, y, 0.1);
	for (int i = 0; i < n; i++)
	{
		x[(size_t) i * dim] = xy[2 * i];
		x[(size_t) i * dim + 1] = xy[2 * i + 1];
		for (int j = 2; j < dim; j++)
			x[(size_t) i * dim + j] = 0.2 * BkRngUniform(&rng);
	}
	for (int c = 0; c < nc; c++)
	{
		BkParams	p;
		uint8_t    *b[2],
				   *half,
				   *cont[2];
		size_t		len[2],
					hlen,
					clen[2];
		BkModel    *m;

		make_params(&p, configs[c], 5, dim);
		for (int pad = 0; pad < 2; pad++)
		{
			BkSvPaddingEnable(pad == 1);
			m = BkModelCreate(&bk_std_env, &p, dim);
			learn_rows(m, x, y, 0, n, dim);
			b[pad] = encode(m, &len[pad]);
			BkModelFree(m);
		}
		same_run += len[0] == len[1] && memcmp(b[0], b[1], len[0]) == 0;

		/*
		 * the first half padded, continued unpadded and padded (a continued
		 * model differs from one run only in its run history)
		 */
		BkSvPaddingEnable(true);
		m = BkModelCreate(&bk_std_env, &p, dim);
		learn_rows(m, x, y, 0, n / 2, dim);
		half = encode(m, &hlen);
		BkModelFree(m);
		cont[0] = continued(half, hlen, false, x, y, n / 2, n, dim, &clen[0]);
		cont[1] = continued(half, hlen, true, x, y, n / 2, n, dim, &clen[1]);
		same_continued += clen[0] == clen[1] && memcmp(cont[0], cont[1], clen[0]) == 0;
		free(half);
		free(cont[0]);
		free(cont[1]);

		/* two halves merged, under each layout */
		if (strcmp(configs[c][0][1], "pegasos") == 0 || strcmp(configs[c][0][1], "bpa") == 0)
		{
			uint8_t    *mb[2];
			size_t		ml[2];

			for (int pad = 0; pad < 2; pad++)
			{
				BkModel    *a,
						   *bm;

				BkSvPaddingEnable(pad == 1);
				a = BkModelCreate(&bk_std_env, &p, dim);
				bm = BkModelCreate(&bk_std_env, &p, dim);
				for (int i = 0; i < n; i++)
					BkModelLearn(i % 2 ? bm : a, x + (size_t) i * dim, y[i]);
				BkModelMerge(a, bm);
				mb[pad] = encode(a, &ml[pad]);
				BkModelFree(a);
				BkModelFree(bm);
			}
			merges++;
			same_merged += ml[0] == ml[1] && memcmp(mb[0], mb[1], ml[0]) == 0;
			free(mb[0]);
			free(mb[1]);
		}
		free(b[0]);
		free(b[1]);
	}
	BkSvPaddingEnable(true);
	CHECK(same_run == nc, "padded SV rows: the same model as unpadded for %d of %d learners",
		  same_run, nc);
	CHECK(same_continued == nc,
		  "a model encoded padded, decoded and continued unpadded: the same model for %d of %d learners",
		  same_continued, nc);
	CHECK(merges > 0 && same_merged == merges,
		  "two halves merged: the same model padded and unpadded for %d of %d learners",
		  same_merged, merges);
	free(x);
	free(xy);
	free(y);
}

/*
 * BPA-NN's kept values k(x_r, x_n(r)) (BkNearestRbf) against all of them
 * evaluated afresh, bit for bit, every 50 rows of a run, with and without
 * the lane check: a value kept past a change of its neighbour or distance
 * fails this.
 */
void
test_nearest_rbf(void)
{
	const char *pp[][2] = {{"algorithm", "bpa"}, {"variant", "nn"}, {"gamma", "3"},
	{"budget", "13"}, {"C", "1"}};
	const int	n = 1500;
	double	   *x = malloc(sizeof(double) * 2 * n);
	int64_t    *y = malloc(sizeof(int64_t) * n);
	BkRng		rng;
	bool		ok = true;
	int			checks = 0;

	BkRngSeed(&rng, 9);
	checkerboard(&rng, n, x, y, 0.1);
	for (int lanes = 0; lanes < 2; lanes++)
	{
		BkModel    *m = NULL;

		BkVectorLanesEnable(lanes == 1);
		for (int from = 0; from < n; from += 50)
		{
			BkMachine  *mach;
			double		want[13];
			const double *got;

			m = train(pp, 5, x, y, from, from + 50, m);
			mach = &m->machines[0];
			for (int r = 0; r < mach->n_sv; r++)
				want[r] = mach->nearest.idx[r] < 0 ? -INFINITY :
					-3.0 * mach->nearest.dist2[r];
			BkExpArray(want, mach->n_sv);
			got = BkNearestRbf(mach, 3.0);
			ok &= memcmp(got, want, sizeof(double) * mach->n_sv) == 0;
			checks++;
		}
		BkModelFree(m);
	}
	BkVectorLanesEnable(true);
	CHECK(ok, "BPA-NN's kept k(x_r, x_n(r)) equal a fresh evaluation bit for bit (%d checks)",
		  checks);
	free(x);
	free(y);
}

/*
 * BkFirstNonFinite: the first NaN or infinity at every position and length
 * (past two of the AVX2 form's eight-value steps), in its lane form and in
 * its scalar form
 */
void
test_first_non_finite(void)
{
	const double bad[3] = {NAN, INFINITY, -INFINITY};
	double		x[27];
	bool		ok = true;

	for (int lanes = 0; lanes < 2; lanes++)
	{
		BkVectorLanesEnable(lanes == 1);
		for (int n = 0; n <= 27; n++)
		{
			for (int i = 0; i < n; i++)
				x[i] = i % 2 ? 1e308 : -(double) i;
			ok &= BkFirstNonFinite(x, n) == -1;
			for (int b = 0; b < 3; b++)
				for (int at = 0; at < n; at++)
				{
					x[at] = bad[b];
					ok &= BkFirstNonFinite(x, n) == at;
					/* a second bad value after it does not move the answer */
					if (at + 2 < n)
					{
						x[at + 2] = bad[(b + 1) % 3];
						ok &= BkFirstNonFinite(x, n) == at;
						x[at + 2] = 0.0;
					}
					x[at] = 0.5;
				}
		}
	}
	BkVectorLanesEnable(true);
	CHECK(ok, "BkFirstNonFinite finds the first NaN or infinity at every position, -1 if none");
}

void
test_gram(void)
{
	const char *pp[][2] = {{"algorithm", "bpa"}, {"variant", "p"}, {"budget", "12"}, {"gamma", "2"}};
	BkParams	p;
	BkModel    *m;
	BkMachine  *mach;
	BkRng		rng;
	double		x[3],
				k[16],
				a[16];

	make_params(&p, pp, 4, 3);
	m = BkModelCreate(&bk_std_env, &p, 3);
	mach = &m->machines[0];
	BkRngSeed(&rng, 7);
	/* border 10 random points in */
	for (int t = 0; t < 10; t++)
	{
		double		sq,
					q;

		for (int d = 0; d < 3; d++)
			x[d] = BkRngUniform(&rng);
		sq = BkDot(x, x, 3);
		for (int i = 0; i < mach->n_sv; i++)
			k[i] = BkKernelFromDot(&p, BkDot(mach->sv + i * 3, x, 3), mach->sqnorm[i], sq);
		q = BkGramApply(&mach->ginv, k, a);
		BkGramBorder(&bk_std_env, &mach->ginv, a, 1.0 - q, 1.0);
		BkMachineAppend(mach, 3, x, sq, 1.0);
	}
	CHECK(gram_error(&p, mach, &mach->ginv, 3) < 1e-8, "bordered inverse is K^-1 (err %g)",
		  gram_error(&p, mach, &mach->ginv, 3));
	/* remove slot 3: the last SV moves into slot 3, as the store does */
	BkGramRemove(&bk_std_env, &mach->ginv, 3);
	memcpy(mach->sv + 3 * 3, mach->sv + 9 * 3, 3 * sizeof(double));
	mach->sqnorm[3] = mach->sqnorm[9];
	mach->n_sv = 9;
	CHECK(gram_error(&p, mach, &mach->ginv, 3) < 1e-8, "downdated inverse is K^-1 (err %g)",
		  gram_error(&p, mach, &mach->ginv, 3));
	CHECK(BkGramRefresh(&bk_std_env, &mach->ginv, &p, mach, 3) &&
		  gram_error(&p, mach, &mach->ginv, 3) < 1e-10, "the Cholesky refresh is K^-1");
	BkModelFree(m);
}

/*
 * BPA-P's update at a full budget in one pass (BkGramBorderRemove) is
 * BkGramBorder and then BkGramRemove bit for bit, with the column it
 * returns that of the bordered matrix: orders 1-13 (every remainder of
 * the lanes), every index removed, lanes on and off.  The updates keep
 * the upper triangle alone: the lower one holds other values, which
 * neither may read, and only the upper ones are compared.
 */
void
test_gram_border_remove(void)
{
	BkRng		rng;
	int			ok = 1,
				cases = 0;

	BkRngSeed(&rng, 41);
	for (int lanes = 0; lanes <= 1; lanes++)
	{
		BkVectorLanesEnable(lanes);
		for (int n = 1; n <= 13; n++)
			for (int r = 0; r < n; r++)
			{
				BkGramInverse g1,
							g2;
				double		a[16],
							col[16],
							col2[16];
				double		s = 0.5 + BkRngUniform(&rng);

				BkGramInit(&bk_std_env, &g1, n + 1);
				BkGramInit(&bk_std_env, &g2, n + 1);
				g1.ridge = g2.ridge = 1e-6;
				for (int i = 0; i < n; i++)
				{
					a[i] = 2.0 * BkRngUniform(&rng) - 1.0;
					for (int j = 0; j < n; j++)
						g1.m[(size_t) i * g1.cap + j] = i == j ? 2.0 + BkRngUniform(&rng) :
							0.3 * (2.0 * BkRngUniform(&rng) - 1.0);
				}
				memcpy(g2.m, g1.m, sizeof(double) * (size_t) g1.cap * g1.cap);
				/* g2's lower triangle NaN: nothing may read it */
				for (int i = 0; i < n; i++)
					for (int j = 0; j < i; j++)
						g2.m[(size_t) i * g2.cap + j] = NAN;
				g1.n = g2.n = n;

				BkGramBorder(&bk_std_env, &g1, a, s, 1.0);
				for (int i = 0; i <= n; i++)
					col[i] = BkGramAt(&g1, i, r);
				BkGramRemove(&bk_std_env, &g1, r);
				BkGramBorderRemove(&bk_std_env, &g2, a, s, 1.0, r, col2);

				ok &= g1.n == n && g2.n == n;
				ok &= memcmp(col, col2, sizeof(double) * (size_t) (n + 1)) == 0;
				for (int i = 0; i < n; i++)
					ok &= memcmp(g1.m + (size_t) i * g1.cap + i, g2.m + (size_t) i * g2.cap + i,
								 sizeof(double) * (n - i)) == 0;
				cases++;
				BkGramFree(&bk_std_env, &g1);
				BkGramFree(&bk_std_env, &g2);
			}
	}
	BkVectorLanesEnable(true);
	CHECK(ok, "BkGramBorderRemove: BkGramBorder then BkGramRemove bit for bit, and the bordered column (%d cases)",
		  cases);
}

/* BkParseLibsvm: labels, indices, values, comments; each malformed kind */
void
test_libsvm(void)
{
	double		x[4];
	int64_t		label = 0;
	char		err[BK_ERRMSG_LEN];
	const char *bad[] = {"", "# c", "x 1:1", "1.5", "1 5:1", "1 0:1", "1 2:1 1:1",
	"1 1:z", "1 1:inf", "1 1", "1 qid:1"};

	CHECK(BkParseLibsvm("+1 1:0.5 4:-2 # c", 4, &label, x, err, sizeof(err)) &&
		  label == 1 && x[0] == 0.5 && x[1] == 0 && x[2] == 0 && x[3] == -2,
		  "libsvm: a line with a comment");
	CHECK(BkParseLibsvm("\t-7\r\n", 4, &label, x, err, sizeof(err)) &&
		  label == -7 && x[0] == 0 && x[3] == 0, "libsvm: a label alone");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		err[0] = '\0';
		CHECK(!BkParseLibsvm(bad[i], 4, &label, x, err, sizeof(err)) && err[0] != '\0',
			  "libsvm: \"%s\" refused (%s)", bad[i], err);
	}
}

/*
 * The merge partner search skips partners whose lower bound cannot beat
 * the best found (bk_merge.c): on random expansions (one and three
 * coefficients per SV, both signs or one, narrow and wide kernels) it
 * chooses the same partner, h and degradation as the exhaustive search,
 * bit for bit.  With a wide kernel and coefficients of one sign (every
 * pair near, as in Pegasos on a9a) the near-pair bound must prune most
 * partners, and the far-pair bound must with a narrow one.
 */
void
test_merge_pruning(void)
{
	const double gammas[] = {0.005, 0.05, 1.0, 8.0, 60.0};
	BkRng		rng;
	int			trials = 0,
				same = 0;
	long		searched[5][2] = {{0}},
				partners[5][2] = {{0}};

	BkRngSeed(&rng, 23);
	for (int g = 0; g < 5; g++)
		for (int K = 1; K <= 3; K += 2)
			for (int one_sign = 0; one_sign <= 1; one_sign++)
			{
				const char *pp[][2] = {{"algorithm", "pegasos"}, {"maintenance", "merge"}};
				BkParams	p;
				BkMachine	mach;
				double		work[200];
				int			dim = 3;

				make_params(&p, pp, 2, dim);
				p.gamma = gammas[g];
				BkMachineInit(&bk_std_env, &mach, dim, K, 150);
				for (int j = 0; j < 150; j++)
				{
					double		x[3];

					for (int d = 0; d < dim; d++)
						x[d] = BkRngUniform(&rng) * 2.0 - 1.0;
					BkMachineAppend(&mach, dim, x, BkDot(x, x, dim), 0.0);
					for (int c = 0; c < K; c++)
					{
						double		v = (BkRngUniform(&rng) - 0.5) *
							(j % 7 == 0 ? 0.01 : 1.0);

						mach.coef[(size_t) j * K + c] = one_sign ? fabs(v) : v;
					}
				}
				for (int mi = 0; mi < 150; mi += 3)
				{
					BkMergeChoice a,
								a0,
								b;

					BkMergeChoose(&bk_std_env, &p, &mach, dim, mi, work, &a);
					/* and without the lane paths (bounds, Newton's method in lanes) */
					BkVectorLanesEnable(false);
					BkMergeChoose(&bk_std_env, &p, &mach, dim, mi, work, &a0);
					BkVectorLanesEnable(true);
					BkMergeChooseExhaustive(&bk_std_env, &p, &mach, dim, mi, work, &b);
					trials++;
					same += a.n == b.n && a.h == b.h && a.degradation == b.degradation &&
						a0.n == b.n && a0.h == b.h && a0.degradation == b.degradation;
					if (K == 1)
					{
						searched[g][one_sign] += a.searched;
						partners[g][one_sign] += b.searched;
					}
				}
				BkMachineFree(&bk_std_env, &mach);
			}
	CHECK(same == trials, "merge partner search with bounds, with and without lanes = exhaustive search in %d of %d choices",
		  same, trials);
	CHECK(partners[0][1] == 50 * 149 && 5 * searched[0][1] < partners[0][1],
		  "merge partner search: near pairs of one sign, %ld of %ld partners searched",
		  searched[0][1], partners[0][1]);
	CHECK(5 * searched[4][0] < partners[4][0],
		  "merge partner search: far pairs, %ld of %ld partners searched",
		  searched[4][0], partners[4][0]);
}

/* The gain of merging at h (bk_merge.c), computed directly. */
static double
merge_gain(double L, double aa, double bb, double ab, double h)
{
	double		e1 = exp(-L * (1.0 - h) * (1.0 - h)),
				e2 = exp(-L * h * h);

	return aa * e1 * e1 + bb * e2 * e2 + 2.0 * ab * e1 * e2;
}

/*
 * The largest gain on [0, 1] by brute force: a grid of 4001 points, then
 * 80 golden-section steps around the best one.  Independent of the
 * search it checks, and global.
 */
static double
merge_gain_max(double L, double aa, double bb, double ab)
{
	const double invphi = 0.6180339887498949;
	double		best = -INFINITY,
				hb = 0.0,
				lo,
				hi;

	for (int i = 0; i <= 4000; i++)
	{
		double		g = merge_gain(L, aa, bb, ab, i / 4000.0);

		if (g > best)
		{
			best = g;
			hb = i / 4000.0;
		}
	}
	lo = fmax(0.0, hb - 1.0 / 4000.0);
	hi = fmin(1.0, hb + 1.0 / 4000.0);
	for (int it = 0; it < 80; it++)
	{
		double		x1 = hi - invphi * (hi - lo),
					x2 = lo + invphi * (hi - lo);

		if (merge_gain(L, aa, bb, ab, x1) >= merge_gain(L, aa, bb, ab, x2))
			hi = x2;
		else
			lo = x1;
	}
	return fmax(best, merge_gain(L, aa, bb, ab, 0.5 * (lo + hi)));
}

/* A random pair of SVs for the merge tests (random_merge_pair) */
typedef struct MergeCase
{
	int			kind;			/* 0 one class, one sign; 1 both signs; 2 three classes */
	double		a[3];
	double		b[3];
	double		aa;
	double		bb;
	double		ab;
	double		L;
	double		scale;			/* aa + bb + 2 |ab| */
} MergeCase;

/*
 * Pair t: kind t % 3, a small first SV in one pair of five, L from 1e-4 to
 * 30 (log-uniform).
 */
static MergeCase
random_merge_pair(BkRng *rng, int t)
{
	MergeCase	c = {0};
	int			K;

	c.kind = t % 3;
	K = c.kind == 2 ? 3 : 1;
	c.L = 1e-4 * pow(3e5, BkRngUniform(rng));
	for (int k = 0; k < K; k++)
	{
		c.a[k] = BkRngUniform(rng) * (t % 5 == 0 ? 0.01 : 1.0);
		c.b[k] = BkRngUniform(rng);
		if (c.kind > 0 && BkRngUniform(rng) < 0.5)
			c.b[k] = -c.b[k];
		c.aa += c.a[k] * c.a[k];
		c.bb += c.b[k] * c.b[k];
		c.ab += c.a[k] * c.b[k];
	}
	c.scale = c.aa + c.bb + 2.0 * fabs(c.ab);
	return c;
}

/*
 * One pair's merge (BkMergePair: Newton's method, or golden-section search
 * where the gain may have several maxima) against the brute-force global
 * maximum, on random pairs: coefficient sums of one class of one sign, of
 * one class of both signs, and of three classes; kernel widths L from
 * 1e-4 to 30.  Where the gain has a single maximum (one class, one sign,
 * L <= 2) the degradation must be the global one to 1e-12 of the
 * coefficients' scale; everywhere the returned degradation must be that
 * of the returned h, and never below the global minimum.  How far the
 * other cases fall short is printed: it is the measured bound of the
 * difference (doc/pegasos.md, "Merging: how h is found").
 */
void
test_merge_search(void)
{
	BkRng		rng;
	int			unimodal = 0,
				unimodal_ok = 0,
				consistent = 0,
				pairs = 0,
				short_of = 0;
	double		worst = 0.0;

	BkRngSeed(&rng, 31);
	for (int t = 0; t < 6000; t++)
	{
		MergeCase	mc = random_merge_pair(&rng, t);
		int			kind = mc.kind;
		double		aa = mc.aa,
					bb = mc.bb,
					ab = mc.ab,
					L = mc.L,
					scale = mc.scale,
					h,
					d,
					dref;

		d = BkMergePair(L, exp(-L), aa, bb, ab, &h);
		dref = aa + bb + 2.0 * ab * exp(-L) - merge_gain_max(L, aa, bb, ab);
		pairs++;
		consistent += h >= 0.0 && h <= 1.0 &&
			fabs(d - (aa + bb + 2.0 * ab * exp(-L) - merge_gain(L, aa, bb, ab, h))) <= 1e-14 * scale &&
			d >= dref - 1e-13 * scale;
		if (kind == 0 && L <= 2.0)
		{
			unimodal++;
			unimodal_ok += fabs(d - dref) <= 1e-12 * scale;
		}
		if (d - dref > 1e-12 * scale)
		{
			short_of++;
			worst = fmax(worst, (d - dref) / scale);
		}
	}
	CHECK(consistent == pairs,
		  "merge search: the degradation is that of h in [0, 1], never below the global minimum (%d of %d pairs)",
		  consistent, pairs);
	CHECK(unimodal > 1000 && unimodal_ok == unimodal,
		  "merge search: one class, one sign, L <= 2: the global minimum to 1e-12 (%d of %d pairs)",
		  unimodal_ok, unimodal);
	printf("# merge search: %d of %d random pairs short of the global minimum by more than 1e-12, by at most %.3g of the coefficients' scale\n",
		   short_of, pairs, worst);

	/*
	 * BkMergePairs, n = 1 to 4 partners of one SV (the first case's
	 * coefficients, with each case's partner and L), against BkMergePair
	 * one by one: the same bits, Newton's method in lanes or not
	 */
	{
		int			groups = 0,
					equal = 0;

		for (int t = 0; t + 12 <= 6000; t += 12)
		{
			MergeCase	mc[4];
			double		L[4],
						k[4],
						bb[4],
						ab[4],
						d[4],
						h[4],
						aa;
			int			n = 1 + (t / 12) % 4;
			bool		ok = true;

			/* cases t, t + 3, t + 6, t + 9: one kind, so one number of classes */
			for (int i = 0; i < 4; i++)
				mc[i] = random_merge_pair(&rng, t + 3 * i);
			aa = mc[0].aa;
			for (int i = 0; i < n; i++)
			{
				L[i] = mc[i].L;
				k[i] = BkExp(-mc[i].L);
				bb[i] = mc[i].bb;
				ab[i] = 0.0;
				for (int c = 0; c < 3; c++)
					ab[i] += mc[0].a[c] * mc[i].b[c];
			}
			BkMergePairs(n, L, k, aa, bb, ab, d, h);
			for (int i = 0; i < n; i++)
			{
				double		h1,
							d1 = BkMergePair(L[i], k[i], aa, bb[i], ab[i], &h1);

				ok = ok && memcmp(&d1, &d[i], sizeof(double)) == 0 &&
					memcmp(&h1, &h[i], sizeof(double)) == 0;
			}
			groups++;
			equal += ok;
		}
		CHECK(equal == groups,
			  "merge search of up to four partners at once (BkMergePairs) = one by one, bit for bit, in %d of %d groups",
			  equal, groups);
	}
}

/*
 * The lower bounds of a pair's degradation that prune the partner search
 * (BkMergeBound, and BkMergeBoundTight, its second filter) against the
 * brute-force minimum, on random pairs of the same kinds as above and L
 * from 1e-4 to 30: never above it (beyond rounding); for near pairs of one
 * sign and similar coefficients, within 10 % of it (exact to second order
 * in L, so it prunes); for pairs of opposite signs of one class, equal to
 * it (the better end); and the tighter bound, for one-sign pairs at L from
 * 0.05 to 0.35 whatever their coefficients' ratio, within 25 % of it, and
 * within 10 % more often than the first bound.
 */
void
test_merge_bound(void)
{
	BkRng		rng;
	int			below = 0,
				pairs = 0,
				near = 0,
				near_tight = 0,
				opposite = 0,
				opposite_exact = 0,
				mid = 0,
				mid_tight = 0,
				mid_tight10 = 0,
				mid_cheap10 = 0;

	BkRngSeed(&rng, 37);
	for (int t = 0; t < 6000; t++)
	{
		MergeCase	mc = random_merge_pair(&rng, t);
		double		aa = mc.aa,
					bb = mc.bb,
					ab = mc.ab,
					L = mc.L,
					scale = mc.scale,
					dref,
					bound,
					tight;

		dref = aa + bb + 2.0 * ab * exp(-L) - merge_gain_max(L, aa, bb, ab);
		bound = BkMergeBound(L, exp(-L), aa, bb, ab);
		tight = BkMergeBoundTight(L, exp(-L), aa, bb, ab);
		pairs++;
		below += bound <= dref + 1e-13 * scale && tight <= dref + 1e-13 * scale &&
			tight >= bound;
		if (mc.kind == 0 && L < 0.1 && t % 5 != 0 && mc.a[0] > 0.25 * mc.b[0] &&
			mc.b[0] > 0.25 * mc.a[0] && dref > 1e-9 * scale)
		{
			near++;
			near_tight += bound >= 0.9 * dref;
		}
		if (mc.kind == 1 && ab < 0.0)
		{
			opposite++;
			opposite_exact += bound >= dref - 1e-13 * scale;
		}
		if (mc.kind == 0 && L >= 0.05 && L <= 0.35 && dref > 1e-9 * scale)
		{
			mid++;
			mid_tight += tight >= 0.75 * dref;
			mid_tight10 += tight >= 0.9 * dref;
			mid_cheap10 += bound >= 0.9 * dref;
		}
	}
	CHECK(below == pairs, "merge bounds: never above the global minimum degradation (%d of %d pairs)",
		  below, pairs);
	CHECK(near > 100 && near_tight == near,
		  "merge bound: near pairs of one sign, within 10 %% of the minimum (%d of %d pairs)",
		  near_tight, near);
	CHECK(opposite > 100 && opposite_exact == opposite,
		  "merge bound: opposite signs of one class, the minimum (%d of %d pairs)",
		  opposite_exact, opposite);
	CHECK(mid > 50 && mid_tight == mid && mid_tight10 > mid_cheap10,
		  "merge bound, tighter: one sign at L 0.05 to 0.35 within 25 %% of the minimum (%d of %d pairs; within 10 %%: %d, the first bound %d)",
		  mid_tight, mid, mid_tight10, mid_cheap10);
}

/*
 * BkMachineCoefSumsModest, the check that lets a learning step skip the
 * exact per-class sums: for every number of classes (1 to 9, so 3, 5, 6,
 * 7 and 9 take the bound of the sum of all classes), modest coefficients
 * pass, and a NaN, an infinity, or a sum past 2^1000 (alone or times the
 * scale) send the machine to the exact check.
 */
void
test_coef_sums_modest(void)
{
	BkRng		rng;
	int			cases = 0,
				right = 0;

	BkRngSeed(&rng, 47);
	for (int K = 1; K <= 9; K++)
		for (int n_sv = 0; n_sv <= 13; n_sv += 13)
			for (int bad = 0; bad < 5; bad++)
			{
				BkMachine	mach;
				double		coef[13 * 9];
				bool		want,
							got;

				memset(&mach, 0, sizeof(mach));
				mach.n_sv = n_sv;
				mach.n_coef = K;
				mach.coef = coef;
				mach.scale = bad == 4 ? 0x1p60 : 0.5;
				for (int i = 0; i < n_sv * K; i++)
					coef[i] = (BkRngUniform(&rng) - 0.5) * 1e3;
				if (n_sv > 0 && bad == 1)
					coef[(n_sv * K) / 2] = NAN;
				if (n_sv > 0 && bad == 2)
					coef[n_sv * K - 1] = -INFINITY;
				if (n_sv > 0 && bad == 3)
					coef[0] = 0x1p1001;
				if (n_sv > 0 && bad == 4)
					coef[0] = 0x1p950;
				want = n_sv == 0 || bad == 0;
				got = BkMachineCoefSumsModest(&mach);
				cases++;
				right += got == want;
			}
	CHECK(right == cases,
		  "coefficient sums: modest ones pass, a NaN, an infinity or a sum past 2^1000 does not, for 1 to 9 classes (%d of %d)",
		  right, cases);
}
