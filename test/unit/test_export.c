/*
 * test_export.c
 *	  Other formats (src/core/format/bk_export*.c, bk_import_libsvm.c,
 *	  bk_onnx.c, base/bk_protobuf.c) and the bias part (bk_part_bias.c):
 *	  Protocol Buffers' encodings against bytes written out by hand; a
 *	  LIBSVM C-SVC of nonzero rho imported, scored against the decision
 *	  value computed here, its bias through the format, a merge and a new
 *	  class; LIBSVM export of it giving the same text's numbers back.
 *	  The runtimes themselves check the exports in test/export_check.sh.
 */
#include "bk_test.h"
#include "bk_onnx.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the wire format: a varint, a fixed32, a nested message */
static void
test_protobuf(void)
{
	BkPb		b,
				sub;
	static const uint8_t want[] = {
		0x08, 0x96, 0x01,		/* field 1, varint 150 */
		0x15, 0x00, 0x00, 0x80, 0x3f,	/* field 2, fixed32 1.0f */
		0x1a, 0x03, 'a', 'b', 'c',	/* field 3, "abc" */
		0x22, 0x02, 0x08, 0x01, /* field 4, { field 1: 1 } */
		0x28, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01	/* field 5, -1 */
	};

	BkPbInit(&b, &bk_std_env);
	BkPbVarint(&b, 1, 150);
	BkPbFloat(&b, 2, 1.0f);
	BkPbString(&b, 3, "abc");
	BkPbInit(&sub, &bk_std_env);
	BkPbVarint(&sub, 1, 1);
	BkPbMessage(&b, 4, &sub);
	BkPbVarint(&b, 5, (uint64_t) (int64_t) -1);
	CHECK(b.len == sizeof(want) && memcmp(b.buf, want, sizeof(want)) == 0,
		  "protobuf: varint, fixed32, bytes, message and a negative int64 as the wire format writes them");
	BkPbFree(&b);
	BkPbInit(&b, &bk_std_env);
	BkPbRawDouble(&b, 1.0);
	CHECK(b.len == 8 && b.buf[7] == 0x3f && b.buf[6] == 0xf0 && b.buf[0] == 0,
		  "protobuf: a double's raw bytes are little-endian");
	BkPbFree(&b);
}

static const char csvc[] =
	"svm_type c_svc\nkernel_type rbf\ngamma 0.5\nnr_class 2\ntotal_sv 3\n"
	"rho 0.375\nlabel 1 -1\nnr_sv 2 1\nSV\n"
	"0.75 1:0.5 2:-0.25\n1.25 2:1\n-2 1:-1 2:0.5\n";

/* LIBSVM's decision value of csvc at x, as svm.cpp computes it */
static double
csvc_decision(const double *x)
{
	static const double sv[3][2] = {{0.5, -0.25}, {0, 1}, {-1, 0.5}};
	static const double coef[3] = {0.75, 1.25, -2};
	double		f = 0.0;

	for (int j = 0; j < 3; j++)
	{
		double		d = (x[0] - sv[j][0]) * (x[0] - sv[j][0]) + (x[1] - sv[j][1]) * (x[1] - sv[j][1]);

		f += coef[j] * exp(-0.5 * d);
	}
	return f - 0.375;
}

static void
test_import_bias(void)
{
	BkModel    *m = BkModelImport(&bk_std_env, "libsvm", (const uint8_t *) csvc, strlen(csvc), 2);
	BkModel    *d,
			   *plain,
			   *merged;
	uint8_t    *buf,
			   *buf2,
			   *text;
	size_t		len,
				len2;
	char		err[BK_ERRMSG_LEN] = "";
	BkErrCode	code;
	double		worst = 0.0;
	bool		labels = true;
	BkRng		rng;

	CHECK(m->n_classes == 2 && m->classes[0] == -1 && m->classes[1] == 1 && m->bias != NULL &&
		  m->bias[1] == -0.375 && m->bias[0] == 0.375,
		  "a C-SVC imported: classes -1 and 1, bias -rho on the second class's score");
	BkRngSeed(&rng, 7);
	for (int i = 0; i < 200; i++)
	{
		double		x[2] = {4 * BkRngUniform(&rng) - 2, 4 * BkRngUniform(&rng) - 2};
		double		want = csvc_decision(x);
		int64_t		label;

		worst = fmax(worst, fabs(BkModelDecision(m, x) - want));
		labels &= BkModelPredict(m, x, &label) && label == (want > 0 ? 1 : -1);
	}
	CHECK(worst < 1e-12 && labels, "the imported C-SVC's decision is LIBSVM's (%g), its labels svm-predict's", worst);

	buf = encode(m, &len);
	CHECK(BkFormatValidate(buf, len, err, sizeof(err), &code), "a model with a bias is valid (%s)", err);
	CHECK((buf[7] & 0x02) != 0, "its flags have bit 9 (0x200)");
	d = BkModelDecode(&bk_std_env, buf, len, true);
	buf2 = encode(d, &len2);
	CHECK(len == len2 && memcmp(buf, buf2, len) == 0, "a model with a bias decodes and encodes to its bytes");
	/* the two values must be opposite */
	buf2[len - BK_TRAILER - 1] ^= 0x01;
	BkModelSeal(buf2, len2);
	CHECK(!BkFormatValidate(buf2, len2, err, sizeof(err), &code) && strstr(err, "opposite") != NULL,
		  "biases of one machine that are not opposite are invalid (%s)", err);
	free(buf2);

	/* exported to LIBSVM: rho back, the same decision */
	text = BkModelExport(d, "libsvm", &len2);
	CHECK(len2 > 0 && strstr((char *) text, "rho 0.375\n") != NULL && strstr((char *) text, "label 1 -1\n") != NULL,
		  "exported to LIBSVM: rho 0.375, label 1 -1");
	BkFree(&bk_std_env, text);

	/* merged with a model of no bias and as many rows: half the bias */
	plain = copy_model(d);
	BkFree(&bk_std_env, plain->bias);
	plain->bias = NULL;
	merged = copy_model(d);
	BkModelMerge(merged, plain);
	CHECK(merged->bias != NULL && merged->bias[1] == -0.375 / 2 && merged->bias[0] == 0.375 / 2,
		  "merged with a model without a bias, of as many rows: half the bias (%g)", merged->bias ? merged->bias[1] : 0.0);

	/* a third class: one-vs-rest machines -f - b, f + b, and 0 */
	{
		double		far[2] = {5, 5};

		BkModelLearn(d, far, 9);
		CHECK(d->n_classes == 3 && d->bias[0] == 0.375 && d->bias[1] == -0.375 && d->bias[2] == 0.0,
			  "a third class: the biases -b, b, 0 of one-vs-rest machines");
	}
	free(buf);
	BkModelFree(merged);
	BkModelFree(plain);
	BkModelFree(d);
	BkModelFree(m);
}

/* whether s occurs in g[0..len) */
static bool
contains(const uint8_t *g, size_t len, const char *s)
{
	size_t		n = strlen(s);

	for (size_t i = 0; i + n <= len; i++)
		if (memcmp(g + i, s, n) == 0)
			return true;
	return false;
}

/* an ONNX export starts with ir_version 8 and names its opsets */
static void
test_onnx_header(void)
{
	BkModel    *m = BkModelImport(&bk_std_env, "libsvm", (const uint8_t *) csvc, strlen(csvc), 2);
	size_t		len;
	uint8_t    *g = BkModelExport(m, "onnx", &len);

	CHECK(len > 16 && g[0] == 0x08 && g[1] == BK_ONNX_IR_VERSION, "an ONNX export begins with ir_version %d", BK_ONNX_IR_VERSION);
	CHECK(contains(g, len, "ai.onnx.ml") && contains(g, len, "features") &&
		  contains(g, len, "scores") && contains(g, len, "label"),
		  "it imports ai.onnx.ml and names its input and outputs");
	BkFree(&bk_std_env, g);
	BkModelFree(m);
}

void
test_export(void)
{
	test_protobuf();
	test_import_bias();
	test_onnx_header();
}
