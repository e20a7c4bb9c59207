/*
 * test_format.c
 *	  Unit tests: The format's validator and the core's errors: structure
 *	  and value checks, overflow guards, UTF-8 labels, the memory decoding
 *	  takes.
 */
#include "bk_test.h"
#include "bk_target.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
test_validator(void)
{
	const char *pp[][2] = {{"algorithm", "bpa"}, {"variant", "nn"}, {"budget", "20"}, {"gamma", "5"}};
	double		xs[2 * 300];
	int64_t		ys[300];
	BkRng		rng;
	BkModel    *m;
	uint8_t    *buf,
			   *bad;
	size_t		len;
	char		err[BK_ERRMSG_LEN];
	BkErrCode	code;
	int			flips_caught = 1,
				cuts_caught = 1;

	BkRngSeed(&rng, 3);
	checkerboard(&rng, 300, xs, ys, 0.0);
	m = train(pp, 4, xs, ys, 0, 300, NULL);
	buf = encode(m, &len);
	CHECK(BkFormatValidate(buf, len, err, sizeof(err), &code), "valid model accepted");
	{
		size_t		len2;
		uint8_t    *again = encode(m, &len2);

		CHECK(len2 == len && memcmp(buf, again, len) == 0,
			  "the encoder writes every byte: two encodings over different fillings are equal");
		free(again);
	}

	bad = malloc(len);
	/* every single-bit flip is caught (CRC-32C detects all of them) */
	for (size_t i = 0; i < len; i++)
		for (int b = 0; b < 8; b++)
		{
			memcpy(bad, buf, len);
			bad[i] ^= (uint8_t) (1 << b);
			flips_caught &= !BkFormatValidate(bad, len, err, sizeof(err), &code);
		}
	CHECK(flips_caught, "every bit flip refused");
	for (size_t cut = 0; cut < len; cut++)
		cuts_caught &= !BkFormatValidate(buf, cut, err, sizeof(err), &code);
	CHECK(cuts_caught, "every truncation refused");

	/* the digest: the SHA-256 of every byte before it, checked by the parser */
	{
		uint8_t		d[BK_DIGEST_LEN];
		const uint8_t *stored = BkModelStoredDigest(buf, len);

		BkSha256(buf, len - BK_TRAILER, d);
		CHECK(stored == buf + len - BK_TRAILER && memcmp(stored, d, BK_DIGEST_LEN) == 0,
			  "a version 2 model stores the SHA-256 of its bytes before the CRC");
		CHECK(BkModelStoredDigest(buf, len - 1) == NULL && BkModelStoredDigest(buf, 20) == NULL,
			  "no stored digest where the length field disagrees");
		memcpy(bad, buf, len);
		bad[len - BK_TRAILER - 1] ^= 1;
		{
			uint32_t	crc = BkCrc32c(0, bad, len - 4);

			for (int k = 0; k < 4; k++)
				bad[len - 4 + k] = (uint8_t) (crc >> (8 * k));
		}
		CHECK(!BkFormatValidateStructure(bad, len, err, sizeof(err), &code) &&
			  code == BK_ERR_CORRUPT && strstr(err, "digest mismatch") != NULL,
			  "a changed byte under a correct CRC fails the digest: %s", err);
		bad[4] = 1;				/* version 1 has no digest */
		CHECK(BkModelStoredDigest(bad, len) == NULL, "a version 1 model has no stored digest");
	}

	/* hostile counts with a correct checksum: refused without over-reading */
	{
		struct
		{
			size_t		off;
			uint32_t	value;
			const char *what;
		}			cases[] = {
			{12, 0xFFFFFFFFu, "dim"}, {16, 1000000, "n_params"},
		};

		for (int c = 0; c < 2; c++)
		{
			uint8_t    *h = malloc(len);

			memcpy(h, buf, len);
			for (int k = 0; k < 4; k++)
				h[cases[c].off + k] = (uint8_t) (cases[c].value >> (8 * k));
			BkModelSeal(h, len);
			CHECK(!BkFormatValidate(h, len, err, sizeof(err), &code),
				  "hostile %s refused: %s", cases[c].what, err);
			free(h);
		}
	}
	/* the machine's n_sv, past params and classes, set huge */
	{
		uint8_t    *h = malloc(len);
		uint32_t	np = buf[16] | buf[17] << 8;
		size_t		off = 12 + 8 + 16 * (size_t) np + 4 + 2 * 8 + 10 * 8 + 4;

		memcpy(h, buf, len);
		h[off] = h[off + 1] = h[off + 2] = 0xFF;
		h[off + 3] = 0x7F;
		BkModelSeal(h, len);
		CHECK(!BkFormatValidate(h, len, err, sizeof(err), &code) && strstr(err, "budget"),
			  "hostile n_sv refused: %s", err);
		free(h);
	}
	/* a newer format version is refused as such */
	memcpy(bad, buf, len);
	bad[4] = BK_FORMAT_VERSION + 1;
	CHECK(!BkFormatValidate(bad, len, err, sizeof(err), &code) && code == BK_ERR_VERSION,
		  "newer version refused with BK_ERR_VERSION: %s", err);
	free(bad);
	free(buf);
	BkModelFree(m);
}

void
test_errors(void)
{
	const char *pp[][2] = {{"algorithm", "perceptron"}, {"max_sv", "5"}, {"gamma", "50"}};
	jmp_buf		jb;
	BkModel    *volatile m = NULL;
	double		xs[2 * 200];
	int64_t		ys[200];
	BkRng		rng;

	BkRngSeed(&rng, 5);
	checkerboard(&rng, 200, xs, ys, 0.0);
	bk_std_jump = &jb;
	if (setjmp(jb) == 0)
	{
		m = train(pp, 3, xs, ys, 0, 200, NULL);
		CHECK(0, "perceptron beyond max_sv must fail");
	}
	else
		CHECK(bk_std_last_code == BK_ERR_LIMIT && strstr(bk_std_last_msg, "max_sv"),
			  "perceptron beyond max_sv: %s", bk_std_last_msg);

	if (setjmp(jb) == 0)
	{
		BkParams	p;
		const char *p2[][2] = {{"budget", "10"}};

		make_params(&p, p2, 1, 2);
		m = BkModelCreate(&bk_std_env, &p, 2);
		BkModelDeclareClass(m, 1);
		BkModelDeclareClass(m, 2);
		BkModelLearn(m, xs, 1);
		BkModelLearn(m, xs + 2, 3);
		CHECK(0, "a label outside the declared classes must fail");
	}
	else
		CHECK(bk_std_last_code == BK_ERR_DATA && strstr(bk_std_last_msg, "not among the declared"),
			  "undeclared label refused: %s", bk_std_last_msg);
	if (setjmp(jb) == 0)
	{
		BkParams	p;
		const char *p2[][2] = {{"budget", "10"}};

		make_params(&p, p2, 1, 2);
		m = BkModelCreate(&bk_std_env, &p, 2);
		BkModelLearnText(m, xs, "a", 1);
		BkModelLearn(m, xs + 2, 3);
		CHECK(0, "an integer label in a text-labelled stream must fail");
	}
	else
		CHECK(bk_std_last_code == BK_ERR_DATA && strstr(bk_std_last_msg, "text labels"),
			  "mixed label types refused: %s", bk_std_last_msg);
	/* a valid model of no class (no row learned): scoring is an error, not a crash */
	{
		BkParams	p;
		const char *p4[][2] = {{"budget", "10"}};
		BkModel    *z,
				   *d;
		uint8_t    *buf;
		size_t		len;
		char		err[BK_ERRMSG_LEN];
		BkErrCode	code;
		double		sc[2];
		volatile int raised = 0;	/* set between setjmp and longjmp */

		make_params(&p, p4, 1, 2);
		z = BkModelCreate(&bk_std_env, &p, 2);
		buf = encode(z, &len);
		CHECK(BkFormatValidate(buf, len, err, sizeof(err), &code), "a model of no class is valid");
		d = BkModelDecode(&bk_std_env, buf, len, false);
		CHECK(BkModelPredictClass(d, xs) == -1, "no class: nothing predicted");
		if (setjmp(jb) == 0)
			(void) BkModelDecision(d, xs);
		else
			raised += bk_std_last_code == BK_ERR_DATA;
		if (setjmp(jb) == 0)
			BkModelScores(d, xs, sc);
		else
			raised += bk_std_last_code == BK_ERR_DATA;
		CHECK(raised == 2, "no class: bk_decision and bk_scores raise a data error");
		free(buf);
		BkModelFree(z);
		BkModelFree(d);
	}
	bk_std_jump = NULL;

	{
		BkParams	p;
		char		err[BK_ERRMSG_LEN];
		const char *p3[][2] = {{"budget", "1000000"}};

		make_params(&p, p3, 1, 1000);
		CHECK(!BkModelCheckSize(&p, 1000, (size_t) 1 << 30, err, sizeof(err)),
			  "budget x dim over 1 GB refused: %s", err);
	}
}

void
test_utf8(void)
{
	CHECK(BkValidUtf8("caf\xc3\xa9", 5) && BkValidUtf8("\xe2\x82\xac", 3) &&
		  BkValidUtf8("\xf0\x9f\x98\x80", 4) && BkValidUtf8("", 0),
		  "UTF-8: ASCII, two, three and four-byte forms accepted");
	CHECK(!BkValidUtf8("caf\xe9", 4), "UTF-8: a Latin-1 byte refused");
	CHECK(!BkValidUtf8("\xc0\x80", 2) && !BkValidUtf8("\xe0\x80\x80", 3),
		  "UTF-8: overlong forms refused");
	CHECK(!BkValidUtf8("\xed\xa0\x80", 3), "UTF-8: a surrogate refused");
	CHECK(!BkValidUtf8("\xf4\x90\x80\x80", 4), "UTF-8: beyond U+10FFFF refused");
	CHECK(!BkValidUtf8("\xe2\x82", 2) && !BkValidUtf8("\xe2\x28\xa1", 3),
		  "UTF-8: truncated and broken sequences refused");
}

/*
 * Nothing a learner returns fails validation: rows whose numbers would
 * overflow are errors before they change the model, and what was learned
 * still encodes to valid bytes.
 */
void
test_overflow_guards(void)
{
	const char *bpa[][2] = {{"algorithm", "bpa"}, {"budget", "20"}};
	const char *poly[][2] = {{"algorithm", "pa"}, {"kernel", "poly"}, {"degree", "100"}, {"gamma", "1e10"}};
	double		ok[2] = {0.3, 0.7};
	double		huge[2] = {1e200, 0.0};
	double		big[2] = {1e155, 0.0};
	double		fine[2] = {1e150, 0.0};
	char		err[BK_ERRMSG_LEN];
	BkErrCode	code;
	BkParams	p;
	BkModel    *m;
	uint8_t    *buf;
	size_t		len;

	make_params(&p, bpa, 2, 2);
	m = BkModelCreate(&bk_std_env, &p, 2);
	for (int i = 0; i < 30; i++)
	{
		double		x[2] = {(i % 7) / 7.0, (i % 11) / 11.0};

		BkModelLearn(m, x, i % 2 ? 1 : -1);
	}
	CHECK(learn_fails(m, huge, 1, BK_ERR_OVERFLOW) && strstr(bk_std_last_msg, "too large"),
		  "a feature of 1e200 is an overflow error: %s", bk_std_last_msg);
	CHECK(learn_fails(m, big, 1, BK_ERR_OVERFLOW), "a feature of 1e155 is an overflow error");
	CHECK(m->rows_seen == 30, "the refused rows were not counted");
	BkModelLearn(m, fine, 1);
	BkModelLearn(m, ok, -1);
	buf = encode(m, &len);
	CHECK(BkFormatValidate(buf, len, err, sizeof(err), &code),
		  "after refused rows and a row of 1e150 the model is valid: %s", err);
	free(buf);
	BkModelFree(m);

	make_params(&p, poly, 4, 2);
	m = BkModelCreate(&bk_std_env, &p, 2);
	CHECK(learn_fails(m, ok, 1, BK_ERR_OVERFLOW) && strstr(bk_std_last_msg, "polynomial"),
		  "a polynomial kernel that overflows is an error: %s", bk_std_last_msg);
	BkModelFree(m);

	/* Pegasos: lambda below 1e-100 refused for a new model only */
	{
		BkParamInput in = {BK_IN_STRING, 0, "pegasos", false, NULL};
		BkParamInput lam = {BK_IN_NUMBER, 1e-150, NULL, false, NULL};
		BkStoredParam st[64];
		BkParams	q;
		int			n;

		BkParamsInit(&p);
		BkParamsSet(&p, "algorithm", &in, err, sizeof(err));
		BkParamsSet(&p, "lambda", &lam, err, sizeof(err));
		CHECK(!BkParamsFinish(&p, 2, err, sizeof(err)) && strstr(err, "lambda"),
			  "Pegasos lambda 1e-150 refused for a new model: %s", err);
		/* the same parameters as a stored model (0.1.0 wrote such models) */
		p.lambda = 1e-150;
		n = BkParamsToStored(&p, st, 64);
		CHECK(BkParamsFromStored(&q, st, n, false, false, err, sizeof(err)) && q.lambda == 1e-150,
			  "a stored Pegasos lambda of 1e-150 stays readable: %s", err);
	}
}

/*
 * A model holding a non-finite value: its structure is valid (what the
 * input functions accept, so a restore keeps it), the full validation and
 * the decoder refuse it as an overflow.
 */
void
test_validation_levels(void)
{
	const char *pp[][2] = {{"algorithm", "pa"}, {"gamma", "2"}};
	char		err[BK_ERRMSG_LEN];
	BkErrCode	code = BK_ERR_CORRUPT;
	BkParams	p;
	BkModel    *m;
	uint8_t    *buf;
	size_t		len;
	double		inf = HUGE_VAL;
	jmp_buf		jb;

	make_params(&p, pp, 2, 2);
	m = BkModelCreate(&bk_std_env, &p, 2);
	for (int i = 0; i < 10; i++)
	{
		double		x[2] = {(i % 3) / 3.0, (i % 5) / 5.0};

		BkModelLearn(m, x, i % 2 ? 1 : -1);
	}
	buf = encode(m, &len);
	/*
	 * the last coefficient is the last f64 before the learning curve (a
	 * count and its points), the parents (a count, none here) and the
	 * trailer (digest and CRC)
	 * (pa: no aux)
	 */
	memcpy(buf + len - 12 - (4 + 8 * (size_t) m->curve_n) - BK_TRAILER, &inf, 8);
	fix_crc(buf, len);
	CHECK(BkFormatValidateStructure(buf, len, err, sizeof(err), &code),
		  "an infinite coefficient passes the structure checks: %s", err);
	CHECK(!BkFormatValidate(buf, len, err, sizeof(err), &code) &&
		  code == BK_ERR_OVERFLOW && strstr(err, "not finite"),
		  "and fails the value checks as an overflow: %s", err);
	bk_std_jump = &jb;
	if (setjmp(jb) == 0)
	{
		(void) BkModelDecode(&bk_std_env, buf, len, false);
		CHECK(0, "decoding a model with an infinite coefficient must fail");
	}
	else
		CHECK(bk_std_last_code == BK_ERR_OVERFLOW, "decoding it is an overflow error: %s", bk_std_last_msg);
	bk_std_jump = NULL;
	/* a broken checksum is a structure failure */
	buf[len - 20] ^= 1;
	CHECK(!BkFormatValidateStructure(buf, len, err, sizeof(err), &code) &&
		  code == BK_ERR_CORRUPT, "a flipped bit fails the structure checks");
	free(buf);
	BkModelFree(m);
}

/*
 * Decoding a model to score it takes memory in proportion to its stored
 * size: a one-vs-rest model of 512 classes with 128 SVs of dimension 64 in
 * one machine and none in the others is 120 kB, and took 32 MB when every
 * machine had the largest one's room.  Continuing to train it is checked
 * for every machine; a budget is allocated as it fills.
 */
void
test_decode_memory(void)
{
		const char *pp[][2] = {{"algorithm", "perceptron"}, {"max_sv", "1"}};
	const char *big[][2] = {{"algorithm", "bpa"}, {"budget", "100000"}};
	BkParams	p;
	BkModel    *m;
	uint8_t    *buf;
	size_t		len,
				before;
	double		x[64];

	make_params(&p, pp, 2, 64);
	m = BkModelCreate(&bk_std_env, &p, 64);
	for (int c = 0; c < 512; c++)
		BkModelDeclareClass(m, c);
	m->params.max_sv = 128;
	for (int i = 0; i < 128; i++)
	{
		for (int j = 0; j < 64; j++)
			x[j] = (double) ((i + j) % 7) / 7.0;
		BkMachineReserve(&bk_std_env, &m->machines[0], 64, 128);
		BkMachineAppend(&m->machines[0], 64, x, BkDot(x, x, 64), i % 2 ? 1.0 : -1.0);
	}
	buf = encode(m, &len);
	BkModelFree(m);

	before = bk_std_live;
	bk_std_peak = bk_std_live;
	m = BkModelDecode(&bk_std_env, buf, len, false);
	(void) BkModelPredictClass(m, x);
	CHECK(bk_std_peak - before <= 4 * len + 256 * 1024,
		  "decoding %zu bytes for scoring peaks at %zu bytes (at most 4 x + 256 kB)",
		  len, bk_std_peak - before);
	BkModelFree(m);
	CHECK(bk_std_live == before, "decoding and freeing leaves nothing behind");
	free(buf);

	/*
	 * two classes, no SV, dimension 2^20, for every maintenance that
	 * keeps scratch: about 300 bytes decode and score (a sparse row and a
	 * dense one) in a few kB; the scratch held 8 MB of the dimension (a
	 * merge's point), 128 MB at 2^24, for each decoded copy
	 */
	{
		const char *settings[][3][2] = {
			{{"algorithm", "pa"}, {"max_sv", "1"}, {NULL, NULL}},
			{{"algorithm", "bpa"}, {"budget", "1"}, {"variant", "nn"}},
			{{"algorithm", "bpa"}, {"budget", "1"}, {"variant", "p"}},
			{{"algorithm", "pegasos"}, {"budget", "1"}, {"maintenance", "merge"}},
			{{"algorithm", "projectron"}, {"budget", "1"}, {NULL, NULL}},
			{{"algorithm", "bduol"}, {"budget", "1"}, {NULL, NULL}},
		};
		const int	wide = 1 << 20;
		double	   *dense = calloc((size_t) wide, sizeof(double));
		static const int32_t idx[1] = {3};
		static const double val[1] = {0.5};

		dense[2] = 0.5;
		for (size_t k = 0; k < sizeof(settings) / sizeof(settings[0]); k++)
		{
			double		fs,
						fd;

			make_params(&p, settings[k], settings[k][2][0] ? 3 : 2, wide);
			m = BkModelCreate(&bk_std_env, &p, wide);
			BkModelDeclareClass(m, -1);
			BkModelDeclareClass(m, 1);
			buf = encode(m, &len);
			BkModelFree(m);
			before = bk_std_live;
			bk_std_peak = bk_std_live;
			m = BkModelDecode(&bk_std_env, buf, len, false);
			fs = BkModelDecision(m, BkModelSparseScoringRow(m, idx, val, 1));
			fd = BkModelDecision(m, dense);
			CHECK(len < 400 && bk_std_peak - before <= 4 * len + 256 * 1024 && fs == fd,
				  "%s %s, no SV, dimension 2^20: %zu bytes decode and score in %zu bytes",
				  settings[k][0][1], settings[k][2][0] ? settings[k][2][1] : "", len,
				  bk_std_peak - before);
			BkModelFree(m);
			free(buf);
		}
		free(dense);
	}

	/* a budget of 100000 at dimension 2: four rows use a few kB */
	make_params(&p, big, 2, 2);
	before = bk_std_live;
	bk_std_peak = bk_std_live;
	m = BkModelCreate(&bk_std_env, &p, 2);
	for (int i = 0; i < 4; i++)
	{
		double		r[2] = {i * 0.25, 1.0 - i * 0.25};

		BkModelLearn(m, r, i % 2 ? 1 : -1);
	}
	CHECK(m->machines[0].capacity == 16 && bk_std_peak - before < 64 * 1024,
		  "four rows with budget 100000: %d slots, %zu bytes", m->machines[0].capacity,
		  bk_std_peak - before);
	BkModelFree(m);
}

/*
 * Version 2 stores learned classes in canonical order: a model whose two
 * labels are swapped (checksum fixed) is refused, so that every valid
 * model decodes and encodes to the same bytes (its fingerprint).
 */
void
test_canonical_class_order(void)
{
	const char *pp[][2] = {{"algorithm", "bpa"}, {"variant", "nn"}, {"budget", "10"}};
	double		xs[2 * 100];
	int64_t		ys[100];
	BkRng		rng;
	BkModel    *m;
	uint8_t    *buf;
	size_t		len,
				at;
	uint32_t	np;
	char		err[BK_ERRMSG_LEN] = "";
	BkErrCode	code;
	uint8_t		tmp[8];

	BkRngSeed(&rng, 5);
	checkerboard(&rng, 100, xs, ys, 0.0);
	m = train(pp, 3, xs, ys, 0, 100, NULL);
	buf = encode(m, &len);
	CHECK(BkFormatValidate(buf, len, err, sizeof(err), &code), "the model is valid");
	np = (uint32_t) buf[16] | (uint32_t) buf[17] << 8;
	at = 20 + 16 * (size_t) np;
	CHECK(buf[at] == 2 && buf[at + 1] == 0, "two classes at offset %zu", at);
	memcpy(tmp, buf + at + 4, 8);
	memcpy(buf + at + 4, buf + at + 12, 8);
	memcpy(buf + at + 12, tmp, 8);
	fix_crc(buf, len);
	CHECK(!BkFormatValidate(buf, len, err, sizeof(err), &code) &&
		  strstr(err, "canonical order") != NULL,
		  "swapped labels are refused (%s)", err);
	free(buf);
	BkModelFree(m);
}

/* One byte of a section set to a value, and what the refusal must say. */
typedef struct ByteMutation
{
	size_t		off;
	uint8_t		value;
	const char *why;
} ByteMutation;

/*
 * Each mutation of the section at offset at of buf (checksum fixed) is
 * refused by the validator with a message that says its why.
 */
static void
mutations_refused(const uint8_t *buf, size_t len, size_t at,
				  const ByteMutation *cases, size_t n, const char *what)
{
	uint8_t    *bad = malloc(len);
	char		err[BK_ERRMSG_LEN];
	BkErrCode	code;

	for (size_t c = 0; c < n; c++)
	{
		memcpy(bad, buf, len);
		bad[at + cases[c].off] = cases[c].value;
		fix_crc(bad, len);
		err[0] = '\0';
		CHECK(!BkFormatValidate(bad, len, err, sizeof(err), &code) &&
			  strstr(err, cases[c].why) != NULL,
			  "a mutated %s (byte %zu = %u) is refused (%s)",
			  what, cases[c].off, cases[c].value, err);
	}
	free(bad);
}

/*
 * A model that prepares named features: decode and encode give back its
 * bytes, the preparation's values survive, and malformed preparation
 * sections (checksum fixed) are refused with the reason.
 */
void
test_prep_format(void)
{
	BkPrepSpec	spec;
	BkPrepFit  *f;
	BkParams	p;
	BkModel    *m,
			   *d;
	BkRng		rng;
	char		err[BK_ERRMSG_LEN] = "";
	BkErrCode	code;
	uint8_t    *buf,
			   *buf2,
			   *bad;
	size_t		len,
				len2,
				at = 0;
	double		out[8];
	static const char *const lv[] = {"blue", "green", "red"};

	BkRngSeed(&rng, 12);
	BkPrepSpecInit(&spec, true);
	f = BkPrepFitNew(&bk_std_env, &spec, true);
	for (int i = 0; i < 50; i++)
	{
		BkPrepFitNumber(f, BkPrepFitKey(f, "size", 4), 10 * BkRngUniform(&rng));
		BkPrepFitText(f, BkPrepFitKey(f, "colour", 6), lv[i % 3], strlen(lv[i % 3]));
	}
	BkParamsInit(&p);
	BkParamsFinish(&p, 4, err, sizeof(err));
	m = BkModelCreate(&bk_std_env, &p, 4);
	BkModelSetPrep(m, BkPrepFitFinish(f, &bk_std_env));
	for (int i = 0; i < 50; i++)
	{
		BkPrepRowBegin(m, out);
		BkPrepPutNumber(m, BkPrepKey(m, 0, "size", 4), 10 * BkRngUniform(&rng), out);
		BkPrepPutText(m, BkPrepKey(m, 1, "colour", 6), lv[i % 3], strlen(lv[i % 3]), out);
		BkPrepRowEnd(m, out);
		BkModelLearn(m, out, i % 2);
	}
	buf = encode(m, &len);
	CHECK(BkFormatValidate(buf, len, err, sizeof(err), &code), "a prepared model is valid (%s)", err);
	d = BkModelDecode(&bk_std_env, buf, len, true);
	buf2 = encode(d, &len2);
	CHECK(len == len2 && memcmp(buf, buf2, len) == 0, "a prepared model decodes and encodes to its bytes");
	CHECK(BkPrepInputs(BkModelPrep(d)) == 2 && BkPrepLevels(BkModelPrep(d), 0) == 3 &&
		  BkPrepInputKind(BkModelPrep(d), 1) == BK_INPUT_NUMERIC,
		  "the decoded preparation: colour (3 levels), then size");

	/* the section starts at its n_inputs (2) followed by named=1, scale=1, impute=1 */
	for (size_t i = 0; i + 8 < len; i++)
		if (buf[i] == 2 && buf[i + 1] == 0 && buf[i + 2] == 0 && buf[i + 3] == 0 &&
			buf[i + 4] == 1 && buf[i + 5] == 1 && buf[i + 6] == 1 && buf[i + 7] == 0 &&
			buf[i + 8] == BK_INPUT_CATEGORICAL)
			at = i;
	CHECK(at > 0, "the preparation section found");
	{
		static const ByteMutation cases[] = {
			{0, 3, "input 2 has kind"},	/* 3 inputs: a third is read from the bytes after */
			{5, 2, "invalid preparation modes"},	/* scale 2 */
			{8, 7, "has kind"},	/* input 0 of kind 7 */
			{12, 1, "levels"},	/* colour's name length 1: "c", then bytes misread */
			{16, 'z', "out of order"},	/* "zolour" before "size": names out of order */
		};

		mutations_refused(buf, len, at, cases, sizeof(cases) / sizeof(cases[0]), "preparation");
	}
	bad = malloc(len);
	/* levels out of byte order: swap blue and green */
	memcpy(bad, buf, len);
	for (size_t i = at; i + 5 < len; i++)
		if (memcmp(bad + i, "blue", 4) == 0)
		{
			memcpy(bad + i, "grxx", 4);
			break;
		}
	fix_crc(bad, len);
	CHECK(!BkFormatValidate(bad, len, err, sizeof(err), &code) && strstr(err, "out of order"),
		  "levels out of order are refused (%s)", err);
	free(bad);
	free(buf);
	free(buf2);
	BkModelFree(d);
	BkModelFree(m);
}

/*
 * Class weights in the format: explicit text weights and balanced counts
 * decode and encode to their bytes (and keep training the same way), the
 * counts follow a class that sorts first, and malformed weight sections
 * (checksum fixed) are refused with the reason.
 */
void
test_weights_format(void)
{
	const char *pp[][2] = {{"algorithm", "pa"}, {"gamma", "4"}};
	BkParams	p;
	BkModel    *m,
			   *d,
			   *b;
	BkRng		rng;
	char		err[BK_ERRMSG_LEN] = "";
	BkErrCode	code;
	uint8_t    *buf,
			   *buf2;
	size_t		len,
				len2,
				at = 0;
	double		x[2];
	static const char *const lv[] = {"rare", "often", "some"};

	BkRngSeed(&rng, 21);
	make_params(&p, pp, 2, 2);
	m = BkModelCreate(&bk_std_env, &p, 2);
	BkModelWeightExplicit(m);
	BkModelWeightClassText(m, "rare", 4, 8.0);
	BkModelWeightClassText(m, "absent", 6, 0.5);
	for (int i = 0; i < 60; i++)
	{
		const char *l = lv[i % 7 == 0 ? 0 : 1 + i % 2];

		x[0] = BkRngUniform(&rng);
		x[1] = BkRngUniform(&rng);
		BkModelLearnText(m, x, l, strlen(l));
	}
	CHECK(BkModelWeightEntries(m) == 2 && BkModelClassWeight(m, BkModelClassIndex(m, 0, "rare", 4)) == 8.0 &&
		  BkModelClassWeight(m, BkModelClassIndex(m, 0, "often", 5)) == 1.0,
		  "explicit weights: 8 for rare, 1 for a label not given");
	buf = encode(m, &len);
	CHECK(BkFormatValidate(buf, len, err, sizeof(err), &code), "a weighted model is valid (%s)", err);
	d = BkModelDecode(&bk_std_env, buf, len, true);
	buf2 = encode(d, &len2);
	CHECK(len == len2 && memcmp(buf, buf2, len) == 0, "a weighted model decodes and encodes to its bytes");
	free(buf2);
	/* the decoded model goes on as the original does */
	for (int i = 0; i < 20; i++)
	{
		x[0] = BkRngUniform(&rng);
		x[1] = BkRngUniform(&rng);
		BkModelLearnText(m, x, lv[i % 3], strlen(lv[i % 3]));
		BkModelLearnText(d, x, lv[i % 3], strlen(lv[i % 3]));
	}
	buf2 = encode(d, &len2);
	free(buf);
	buf = encode(m, &len);
	CHECK(len == len2 && memcmp(buf, buf2, len) == 0, "a decoded weighted model trains on as the original");
	free(buf2);
	BkModelFree(d);

	/* balanced: counts per class, following a class that sorts before the others */
	make_params(&p, pp, 2, 2);
	b = BkModelCreate(&bk_std_env, &p, 2);
	BkModelWeightBalanced(b);
	for (int i = 0; i < 30; i++)
	{
		x[0] = BkRngUniform(&rng);
		x[1] = BkRngUniform(&rng);
		BkModelLearn(b, x, i < 20 ? 5 : (i < 27 ? 9 : 1));
	}
	CHECK(BkModelWeightRows(b, 0) == 3 && BkModelWeightRows(b, 1) == 20 && BkModelWeightRows(b, 2) == 7,
		  "balanced counts of classes 1, 5, 9: %llu %llu %llu",
		  (unsigned long long) BkModelWeightRows(b, 0), (unsigned long long) BkModelWeightRows(b, 1),
		  (unsigned long long) BkModelWeightRows(b, 2));
	CHECK(fabs(BkModelClassWeight(b, 0) - 30.0 / 9.0) < 1e-15 && fabs(BkModelClassWeight(b, 1) - 0.5) < 1e-15,
		  "balanced weights N / (K n_c): %g %g", BkModelClassWeight(b, 0), BkModelClassWeight(b, 1));
	free(buf);
	buf = encode(b, &len);
	d = BkModelDecode(&bk_std_env, buf, len, true);
	CHECK(BkModelWeightMode(d) == BK_WEIGHT_BALANCED && BkModelWeightRows(d, 2) == 7,
		  "balanced weights and their counts decode");
	BkModelFree(d);
	/* the section: mode 2, three zero bytes, n = 0, then counts 3, 20, 7 */
	for (size_t i = 0; i + 32 <= len; i++)
		if (buf[i] == 2 && buf[i + 1] == 0 && buf[i + 2] == 0 && buf[i + 3] == 0 &&
			buf[i + 4] == 0 && buf[i + 8] == 3 && buf[i + 16] == 20 && buf[i + 24] == 7)
			at = i;
	CHECK(at > 0, "the class weight section found");
	{
		static const ByteMutation cases[] = {
			{0, 3, "mode"},		/* no such mode */
			{1, 1, "mode"},		/* a reserved byte set */
			{4, 1, "entries"},	/* an entry in a balanced section */
			{16, 200, "sum beyond"},	/* more rows than seen */
		};

		mutations_refused(buf, len, at, cases, sizeof(cases) / sizeof(cases[0]), "class weight section");
	}
	free(buf);
	BkModelFree(b);
	BkModelFree(m);
}

/*
 * Class weights and merging: a model of no class but integer weights and
 * a text model of text weights are refused both ways (their entries once
 * compared equal, and the merge left a text model with an integer entry);
 * a DUOL model trained under balanced weights, merged with itself, keeps
 * its dual variables (the box of the weights at merge time is smaller
 * than the ones set while the rare class was rarer).
 */
void
test_weights_merge(void)
{
	const char *pp[][2] = {{"algorithm", "pa"}, {"gamma", "4"}};
	const char *pd[][2] = {{"algorithm", "duol"}, {"gamma", "4"}, {"C", "1"}};
	BkParams	p;
	BkModel    *a,
			   *b,
			   *c,
			   *d;
	double		x[2] = {0.3, 0.7};
	double		before = 0.0,
				after = 0.0;
	BkRng		rng;

	make_params(&p, pp, 2, 2);
	a = BkModelCreate(&bk_std_env, &p, 2);
	BkModelWeightExplicit(a);
	BkModelWeightClass(a, 0, 2.0);
	b = BkModelCreate(&bk_std_env, &p, 2);
	BkModelSetLabelsUtf8(b, true);
	BkModelWeightExplicit(b);
	BkModelWeightClassText(b, "y", 1, 2.0);
	BkModelLearnText(b, x, "x", 1);
	CHECK(merge_fails(a, b, BK_ERR_PARAM) && merge_fails(b, a, BK_ERR_PARAM),
		  "integer and text class weights do not merge, either way round");
	BkModelFree(a);
	BkModelFree(b);

	/* 200 rows of class 0, one of class 1 (weight 100.5), then both in turn */
	BkRngSeed(&rng, 5);
	make_params(&p, pd, 3, 2);
	c = BkModelCreate(&bk_std_env, &p, 2);
	BkModelWeightBalanced(c);
	for (int i = 0; i < 601; i++)
	{
		x[0] = BkRngUniform(&rng);
		x[1] = BkRngUniform(&rng);
		BkModelLearn(c, x, i < 200 ? 0 : (i == 200 ? 1 : i % 2));
	}
	{
		size_t		len;
		uint8_t    *buf = encode(c, &len);

		d = BkModelDecode(&bk_std_env, buf, len, true);
		free(buf);
	}
	for (int j = 0; j < BkModelSvCount(c, 0); j++)
		before = fmax(before, fabs(BkModelSvCoef(c, 0, j, 0)));
	BkModelMerge(c, d);
	/* the same model twice: its decisions, each copy's SVs at half weight */
	for (int i = 0; i < 50; i++)
	{
		x[0] = BkRngUniform(&rng);
		x[1] = BkRngUniform(&rng);
		after = fmax(after, fabs(BkModelDecision(c, x) - BkModelDecision(d, x)));
	}
	CHECK(before > 1.5 && after < 1e-9,
		  "a balanced DUOL model (largest dual variable %g, above C w_max) merged with itself decides as it did (largest difference %g)",
		  before, after);
	BkModelFree(c);
	BkModelFree(d);
}

/*
 * A regressor in the format: decode and encode give back its bytes, its
 * predictions survive, and a malformed target section or framing
 * (checksum fixed) is refused with the reason.
 */
void
test_target_format(void)
{
	BkParams	p;
	BkModel    *m,
			   *d;
	BkRng		rng;
	char		err[BK_ERRMSG_LEN] = "";
	BkErrCode	code;
	uint8_t    *buf,
			   *buf2,
			   *bad;
	size_t		len,
				len2,
				at;
	double		x[3];
	BkTargetInfo ti;

	BkRngSeed(&rng, 21);
	BkParamsInit(&p);
	p.regression = true;
	CHECK(BkParamsFinish(&p, 3, err, sizeof(err)), "regression parameters (%s)", err);
	m = BkModelCreate(&bk_std_env, &p, 3);
	BkModelSetTargetScale(m, 50.0, 4.0);
	for (int i = 0; i < 200; i++)
	{
		for (int k = 0; k < 3; k++)
			x[k] = 2.0 * BkRngUniform(&rng) - 1.0;
		BkModelLearnValue(m, x, 50.0 + 4.0 * (x[0] * x[1] + x[2]));
	}
	buf = encode(m, &len);
	CHECK(BkFormatValidate(buf, len, err, sizeof(err), &code), "a regressor is valid (%s)", err);
	d = BkModelDecode(&bk_std_env, buf, len, true);
	buf2 = encode(d, &len2);
	CHECK(len == len2 && memcmp(buf, buf2, len) == 0, "a regressor decodes and encodes to its bytes");
	x[0] = 0.5;
	x[1] = -0.25;
	x[2] = 0.1;
	CHECK(BkModelPredictValue(d, x) == BkModelPredictValue(m, x), "the decoded regressor predicts the same");
	CHECK(BkModelTargetInfo(d, &ti) && ti.standardised && ti.mean == 50.0 && ti.sd == 4.0 &&
		  ti.sq_error > 0.0, "the decoded target: standardised by 50 and 4, its errors kept");
	CHECK(buf[6] == 0x40 && buf[7] == 0, "a regressor's flags are 0x40");

	/*
	 * The target is the last section: 56 bytes and the squared error after
	 * 1, 2, ..., 128 rows (8 points) before the checksum
	 */
	{
		const double *c1,
				   *c2;

		CHECK(BkModelTargetCurve(m, &c1) == 8 && BkModelTargetCurve(d, &c2) == 8 &&
			  memcmp(c1, c2, 8 * sizeof(double)) == 0 && c1[0] > 0.0 &&
			  c1[7] >= c1[6] && c1[7] <= ti.sq_error,
			  "the squared error's curve: 8 points, kept by decoding, rising to the total");
	}
	at = len - BK_TRAILER - 56 - 8 * 8;
	CHECK(buf[at + 4] == 8 && buf[at + 5] == 0, "the target's curve has 8 points");
	{
		static const ByteMutation cases[] = {
			{0, 2, "target mode 2"},
			{4, 1, "a squared-error curve of 1 points after 200 rows"},
			{0, 0, "a target not standardised"},	/* mode 0 with mean 50 */
			{23, 0xC0, "sd -4 is not positive"},	/* sd's sign bit */
			{31, 0xC0, "is negative"},	/* the squared error's sign bit */
			{56 + 8 * 3 + 7, 0xC0, "squared-error curve point 3"},	/* negative */
			{56 + 8 * 7 + 7, 0x7F, "squared-error curve point 7"},	/* above the total */
		};

		mutations_refused(buf, len, at, cases, sizeof(cases) / sizeof(cases[0]), "target");
	}
	bad = malloc(len);
	/* the framing: text labels or declared classes on a regressor */
	for (int f = 0; f < 2; f++)
	{
		memcpy(bad, buf, len);
		bad[6] |= f == 0 ? 0x1 : 0x2;
		fix_crc(bad, len);
		CHECK(!BkFormatValidate(bad, len, err, sizeof(err), &code) &&
			  strstr(err, "a regressor with") != NULL,
			  "a regressor with %s is refused (%s)", f == 0 ? "text labels" : "declared classes", err);
	}
	/* without its flag, the model stores a regressor's parameters */
	memcpy(bad, buf, len);
	bad[6] = 0;
	fix_crc(bad, len);
	CHECK(!BkFormatValidate(bad, len, err, sizeof(err), &code) &&
		  strstr(err, "parameter \"loss\" missing") != NULL,
		  "a regressor without its flag is refused (%s)", err);
	free(bad);
	free(buf);
	free(buf2);
	/* a merged regressor has no single stream: no curves (the mistakes' neither) */
	BkModelMerge(d, m);
	buf = encode(d, &len2);
	{
		const double *c;

		CHECK(BkModelTargetCurve(d, &c) == 0 && len2 == len - 2 * 8 * 8 &&
			  BkFormatValidate(buf, len2, err, sizeof(err), &code),
			  "a merged regressor keeps no curve and is valid (%s)", err);
	}
	free(buf);
	BkModelFree(d);
	BkModelFree(m);

	/* a classifier flagged as a regressor: the classes, or its parameters */
	{
		BkModel    *c;

		BkParamsInit(&p);
		BkParamsFinish(&p, 3, err, sizeof(err));
		c = BkModelCreate(&bk_std_env, &p, 3);
		for (int i = 0; i < 50; i++)
		{
			for (int k = 0; k < 3; k++)
				x[k] = 2.0 * BkRngUniform(&rng) - 1.0;
			BkModelLearn(c, x, x[0] > 0 ? 1 : -1);
		}
		buf = encode(c, &len);
		buf[6] |= 0x40;
		fix_crc(buf, len);
		CHECK(!BkFormatValidate(buf, len, err, sizeof(err), &code),
			  "a classifier flagged as a regressor is refused (%s)", err);
		free(buf);
		BkModelFree(c);
	}
}

/*
 * A novelty detector in the format: decode and encode give back its
 * bytes and its scores, and a malformed threshold or framing (checksum
 * fixed) is refused.
 */
void
test_novelty_format(void)
{
	BkParams	p;
	BkModel    *m,
			   *d;
	BkRng		rng;
	char		err[BK_ERRMSG_LEN] = "";
	BkErrCode	code;
	uint8_t    *buf,
			   *buf2,
			   *bad;
	size_t		len,
				len2;
	double		x[2] = {0.25, -0.5},
				rho;

	BkRngSeed(&rng, 31);
	BkParamsInit(&p);
	p.novelty = true;
	CHECK(BkParamsFinish(&p, 2, err, sizeof(err)) && p.algorithm == BK_ALG_PEGASOS,
		  "novelty parameters: pegasos by default (%s)", err);
	m = BkModelCreate(&bk_std_env, &p, 2);
	for (int i = 0; i < 300; i++)
	{
		double		r[2] = {BkRngUniform(&rng), BkRngUniform(&rng)};

		BkModelLearnNovel(m, r);
	}
	buf = encode(m, &len);
	CHECK(BkFormatValidate(buf, len, err, sizeof(err), &code), "a novelty detector is valid (%s)", err);
	d = BkModelDecode(&bk_std_env, buf, len, true);
	buf2 = encode(d, &len2);
	CHECK(len == len2 && memcmp(buf, buf2, len) == 0, "a novelty detector decodes and encodes to its bytes");
	CHECK(BkModelNoveltyScore(d, x) == BkModelNoveltyScore(m, x) &&
		  BkModelNoveltyRho(d, &rho) && rho == m->novelty->rho,
		  "the decoded detector scores the same, with the same threshold");
	CHECK(buf[6] == 0x80 && buf[7] == 0, "a novelty detector's flags are 0x80");
	bad = malloc(len);
	/* rho NaN: the value check */
	memcpy(bad, buf, len);
	memset(bad + len - BK_TRAILER - 8, 0xFF, 8);
	fix_crc(bad, len);
	CHECK(!BkFormatValidate(bad, len, err, sizeof(err), &code) && strstr(err, "not finite"),
		  "a threshold that is not a number is refused (%s)", err);
	CHECK(BkFormatValidateStructure(bad, len, err, sizeof(err), &code),
		  "and passes the structure checks (bk_model's input keeps it)");
	/* a regressor's flag too */
	memcpy(bad, buf, len);
	bad[6] |= 0x40;
	fix_crc(bad, len);
	CHECK(!BkFormatValidate(bad, len, err, sizeof(err), &code) &&
		  strstr(err, "a regressor and a novelty detector at once"),
		  "a regressor and a novelty detector at once is refused (%s)", err);
	/* without its flag: a novelty detector's parameters */
	memcpy(bad, buf, len);
	bad[6] = 0;
	fix_crc(bad, len);
	CHECK(!BkFormatValidate(bad, len, err, sizeof(err), &code) && strstr(err, "parameter") != NULL,
		  "a novelty detector without its flag is refused (%s)", err);
	/* text labels */
	memcpy(bad, buf, len);
	bad[6] |= 0x1;
	fix_crc(bad, len);
	CHECK(!BkFormatValidate(bad, len, err, sizeof(err), &code) &&
		  strstr(err, "a novelty detector with") != NULL,
		  "a novelty detector with text labels is refused (%s)", err);
	free(bad);
	free(buf);
	free(buf2);
	BkModelFree(d);
	BkModelFree(m);
}
