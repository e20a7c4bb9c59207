/*
 * bk_test.c
 *	  What the unit tests share: counters, data sets and training helpers.
 */
#include "bk_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int			n_pass = 0;
int			n_fail = 0;


/* ---- data: a seeded checkerboard, 4 x 4 on [0,1]^2 ---- */

void
checkerboard(BkRng *rng, int n, double *x, int64_t *y, double noise)
{
	for (int i = 0; i < n; i++)
	{
		double		a = BkRngUniform(rng),
					b = BkRngUniform(rng);
		int			cell = (int) floor(4 * a) + (int) floor(4 * b);

		x[2 * i] = a;
		x[2 * i + 1] = b;
		y[i] = (cell % 2 == 0) ? 1 : -1;
		if (BkRngUniform(rng) < noise)
			y[i] = -y[i];
	}
}

void
make_params(BkParams *p, const char *json_like[][2], int n, int dim)
{
	make_task_params(p, json_like, n, dim, false);
}

void
make_task_params(BkParams *p, const char *json_like[][2], int n, int dim,
				 bool regression)
{
	BkParamsInit(p);
	p->regression = regression;
	make_task_params_into(p, json_like, n, dim);
}

void
make_task_params_into(BkParams *p, const char *json_like[][2], int n, int dim)
{
	char		err[BK_ERRMSG_LEN];

	for (int i = 0; i < n; i++)
	{
		BkParamInput in;
		char	   *end;
		double		v = strtod(json_like[i][1], &end);

		if (*end == '\0')
		{
			in.type = BK_IN_NUMBER;
			in.number = v;
		}
		else
		{
			in.type = BK_IN_STRING;
			in.string = json_like[i][1];
		}
		if (!BkParamsSet(p, json_like[i][0], &in, err, sizeof(err)))
		{
			fprintf(stderr, "param: %s\n", err);
			exit(2);
		}
	}
	if (!BkParamsFinish(p, dim, err, sizeof(err)))
	{
		fprintf(stderr, "finish: %s\n", err);
		exit(2);
	}
}

double
accuracy(BkModel *m, const double *x, const int64_t *y, int n)
{
	int			ok = 0;

	for (int i = 0; i < n; i++)
	{
		int64_t		lab;

		if (BkModelPredict(m, x + (size_t) i * m->dim, &lab) && lab == y[i])
			ok++;
	}
	return (double) ok / n;
}

/*
 * The model's bytes.  The buffer is filled with one of two patterns in
 * turn before BkModelEncode writes it, as the server hands it memory that
 * is not zeroed: a byte the encoder skipped would make two encodings of
 * one model differ, and the tests that compare models byte for byte fail.
 */
uint8_t *
encode(BkModel *m, size_t *len)
{
	static int	calls = 0;
	char		err[BK_ERRMSG_LEN];
	uint8_t    *buf;

	if (!BkModelEncodedSize(m, (size_t) 1 << 30, len, err, sizeof(err)))
	{
		fprintf(stderr, "%s\n", err);
		exit(2);
	}
	buf = malloc(*len);
	memset(buf, calls++ % 2 ? 0xA5 : 0x5A, *len);
	BkModelEncode(m, buf, *len);
	return buf;
}

/* the SHA-256 of data[0..n) as 64 hex digits and a NUL */
void
sha_hex(const void *data, size_t n, char *hex)
{
	uint8_t		d[BK_DIGEST_LEN];

	BkSha256(data, n, d);
	for (int i = 0; i < BK_DIGEST_LEN; i++)
		sprintf(hex + 2 * i, "%02x", d[i]);
}

/* A copy of m through its bytes, decoded for training (a stored model read back). */
BkModel *
copy_model(BkModel *m)
{
	size_t		len;
	uint8_t    *b = encode(m, &len);
	BkModel    *d = BkModelDecode(&bk_std_env, b, len, true);

	free(b);
	return d;
}

/*
 * parts[0 .. n_parts): *fold: folded by BkModelMerge, *u: kept whole by
 * BkModelMergeUnion (both from copies of the parts)
 */
void
merge_parts(BkModel **parts, int n_parts, BkModel **fold, BkModel **u)
{
	*fold = copy_model(parts[0]);
	*u = copy_model(parts[0]);
	for (int p = 1; p < n_parts; p++)
	{
		BkModel    *a = copy_model(parts[p]),
				   *b = copy_model(parts[p]);

		BkModelMerge(*fold, a);
		BkModelMergeUnion(*u, b);
		BkModelFree(a);
		BkModelFree(b);
	}
}

BkModel *
train(const char *pp[][2], int np, const double *x, const int64_t *y, int from, int to,
	  BkModel *start)
{
	BkParams	p;
	BkModel    *m = start;

	if (!m)
	{
		make_params(&p, pp, np, 2);
		m = BkModelCreate(&bk_std_env, &p, 2);
	}
	for (int i = from; i < to; i++)
		BkModelLearn(m, x + 2 * i, y[i]);
	return m;
}

/* three classes on [0,1]^2: class = (floor(3x) + floor(3y)) mod 3 */
void
three_class(BkRng *rng, int n, double *x, int64_t *y)
{
	for (int i = 0; i < n; i++)
	{
		double		a = BkRngUniform(rng),
					b = BkRngUniform(rng);

		x[2 * i] = a;
		x[2 * i + 1] = b;
		y[i] = ((int) floor(3 * a) + (int) floor(3 * b)) % 3;
	}
}

double
accuracy_mc(BkModel *m, const double *x, const int64_t *y, int n)
{
	int			ok = 0;

	for (int i = 0; i < n; i++)
	{
		int64_t		lab;

		if (BkModelPredict(m, x + 2 * (size_t) i, &lab) && lab == y[i])
			ok++;
	}
	return (double) ok / n;
}

/* train on rows [from, to), continuing m (or a new model) */
BkModel *
train_mc(const char *pp[][2], int np, const double *x, const int64_t *y,
		 int from, int to, BkModel *m)
{
	if (m == NULL)
	{
		BkParams	p;

		make_params(&p, pp, np, 2);
		m = BkModelCreate(&bk_std_env, &p, 2);
	}
	for (int i = from; i < to; i++)
		BkModelLearn(m, x + 2 * (size_t) i, y[i]);
	return m;
}

/* ---- models in bytes, and errors ---- */

/* The trailer: the digest (version 2) and the CRC-32C of the rest. */
void
fix_crc(uint8_t *buf, size_t len)
{
	BkModelSeal(buf, len);
}

/* Whether merging b into a reports an error of class code. */
bool
merge_fails(BkModel *a, BkModel *b, BkErrCode code)
{
	jmp_buf		jb;
	volatile bool failed = false;

	bk_std_jump = &jb;
	if (setjmp(jb) == 0)
		BkModelMerge(a, b);
	else
		failed = bk_std_last_code == code;
	bk_std_jump = NULL;
	return failed;
}

/* Whether learning (x, y) reports an error of class code. */
bool
learn_fails(BkModel *m, const double *x, int64_t y, BkErrCode code)
{
	jmp_buf		jb;
	volatile bool failed = false;

	bk_std_jump = &jb;
	if (setjmp(jb) == 0)
		BkModelLearn(m, x, y);
	else
		failed = bk_std_last_code == code;
	bk_std_jump = NULL;
	return failed;
}
