/*
 * test_base.c
 *	  The model a model was continued from (bk_base.c, bk_part_base.c):
 *	  kept through its bytes, refused when its counts exceed the model's,
 *	  and counted once when models continued from it are merged, each side
 *	  weighed by the rows it added.
 */
#include "bk_test.h"
#include "bk_base.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void
test_base(void)
{
	const char *pp[][2] = {{"algorithm", "bpa"}, {"variant", "nn"}, {"budget", "1000"}, {"gamma", "20"}};
	double		x[2 * 1200];
	int64_t		y[1200];
	BkRng		rng;
	BkModel    *base,
			   *a,
			   *b,
			   *m;
	uint8_t		fp[BK_FINGERPRINT_LEN];
	uint8_t    *buf;
	size_t		len;
	char		err[BK_ERRMSG_LEN] = "";
	BkErrCode	code;
	double		worst = 0.0;

	BkRngSeed(&rng, 91);
	checkerboard(&rng, 1200, x, y, 0.0);
	base = train(pp, 4, x, y, 0, 400, NULL);
	memset(fp, 0xAB, sizeof(fp));
	/* two parts continued from the base: 300 and 500 more rows */
	a = copy_model(base);
	BkModelSetBase(a, fp);
	a = train(pp, 4, x, y, 400, 700, a);
	b = copy_model(base);
	BkModelSetBase(b, fp);
	b = train(pp, 4, x, y, 700, 1200, b);
	CHECK(a->base != NULL && a->base->rows_seen == 400 && a->rows_seen == 700,
		  "a continued model keeps its base's counts (400 of 700 rows)");

	/* through its bytes; a count beyond the model's is refused */
	buf = encode(a, &len);
	CHECK(BkFormatValidate(buf, len, err, sizeof(err), &code) && (buf[7] & 0x01) != 0,
		  "a continued model is valid, flag bit 8 set (%s)", err);
	{
		BkModel    *d = BkModelDecode(&bk_std_env, buf, len, true);

		CHECK(d->base != NULL && memcmp(d->base, a->base, sizeof(*a->base)) == 0,
			  "the base decodes as it was");
		BkModelFree(d);
	}
	/* the base is the last section: its rows_seen is at len - BK_TRAILER - 48 */
	buf[len - BK_TRAILER - 48 + 1] = 0x10;
	fix_crc(buf, len);
	CHECK(!BkFormatValidate(buf, len, err, sizeof(err), &code) &&
		  strstr(err, "the base's rows_seen") != NULL,
		  "a base of more rows than the model is refused (%s)", err);
	free(buf);

	/* merged: the base's rows once, the sides weighed 300 : 500 */
	m = copy_model(a);
	{
		BkModel    *bc = copy_model(b);

		BkModelMerge(m, bc);
		BkModelFree(bc);
	}
	CHECK(m->rows_seen == 400 + 300 + 500 && m->base != NULL,
		  "the merge counts the base's rows once (%llu) and keeps the base",
		  (unsigned long long) m->rows_seen);
	CHECK(m->mistakes == a->mistakes + b->mistakes - base->mistakes &&
		  m->rows_updated == a->rows_updated + b->rows_updated - base->rows_updated,
		  "the merge counts the base's mistakes and updates once");
	/* within the budget nothing is reduced: the average by rows added */
	for (int i = 0; i < 200; i++)
	{
		double		fa = BkModelDecision(a, x + 2 * i),
					fb = BkModelDecision(b, x + 2 * i),
					fm = BkModelDecision(m, x + 2 * i);

		worst = fmax(worst, fabs(fm - (0.375 * fa + 0.625 * fb)));
	}
	CHECK(worst < 1e-9, "the merge is the average weighed by the rows each side added (%g)", worst);
	buf = encode(m, &len);
	CHECK(BkFormatValidate(buf, len, err, sizeof(err), &code), "the merge is valid (%s)", err);
	free(buf);
	BkModelFree(m);

	/* another base, or none: counted as before, no base kept */
	m = copy_model(a);
	{
		BkModel    *bc = copy_model(b);

		bc->base->rows_seen = 399;
		BkModelMerge(m, bc);
		BkModelFree(bc);
	}
	CHECK(m->rows_seen == 700 + 900 && m->base == NULL,
		  "models of different bases merge as unrelated ones (%llu rows, no base)",
		  (unsigned long long) m->rows_seen);
	BkModelFree(m);
	BkModelFree(a);
	BkModelFree(b);
	BkModelFree(base);
}
