/*
 * bk_bench.c
 *	  The bare learning core over rows in memory: the reference that the
 *	  in-database figures of the benchmark harness (test/bench/harness.py)
 *	  are divided by.
 *
 *	  It links the same core sources as the extension (every src/core C file), with a
 *	  malloc-based BkEnv, reads a LIBSVM file (gzip-compressed files through
 *	  "gzip -dc"), optionally standardises the features, streams the rows in
 *	  file order into BkModelLearn and scores a test file with
 *	  BkModelPredict.  Only the learning and scoring loops are timed
 *	  (clock_gettime(CLOCK_MONOTONIC); the training also by
 *	  CLOCK_PROCESS_CPUTIME_ID, "train_cpu_s", which other processes' load
 *	  does not inflate); parsing is not.
 *
 *	  bk_bench --train FILE --dim D --params 'key=value,key=value,...'
 *	           [--test FILE] [--standardize] [--stats FILE]
 *	           [--max-rows N] [--repeat N] [--merge-parts P [--combine]] [--order-seed S]
 *
 *	  --params      the bk_train parameters, e.g.
 *	                algorithm=bpa,variant=nn,loss=ramp,budget=100,gamma=0.5,C=1
 *	                (numbers are numbers, true and false booleans,
 *	                anything else a string)
 *	  --standardize mean 0 / std 1 with the training rows' statistics,
 *	                applied to the test rows too (population std; a constant
 *	                feature is only centred)
 *	  --stats FILE  standardise with given statistics instead: D lines
 *	                "mean std"
 *	  --max-rows N  use the first N training rows only
 *	  --repeat N    train (and score) N times, report the median times (and
 *	                every time, in train_runs_s / score_runs_s)
 *
 *	  --merge-parts P  also train P parts, part p the rows whose line number
 *	                (from 1) is p mod P, each in the rows' order, and merge them
 *	                as the aggregate bk_merge(m ORDER BY part) does (the
 *	                fold and the union kept whole, then distilled,
 *	                polished and refined by BkModelDistil): the merge's
 *	                and the serial training's CPU time (CLOCK_PROCESS_CPUTIME_ID,
 *	                robust to other processes' load) and the merged
 *	                model's accuracy, in "merge_*" keys
 *
 *	  --combine     with --merge-parts, also combine the parts as a
 *	                parallel plan's (or Citus's) combine function does,
 *	                pairwise, each step a merge and a polish: its CPU time
 *	                by step and its accuracy, in "combine_*" keys
 *
 *	  --order-seed S  train in the order of BkShuffleKey(line number, S)
 *	                (SQL's ORDER BY bk_shuffle_key(id, S)) instead of file order
 *
 *	  Output: one line of JSON with rows, seconds, rows/s, n_sv, online
 *	  mistakes and test accuracy.
 */
#include "bk_core.h"
#include "bk_stdenv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


static void
die(const char *msg, const char *arg)
{
	fprintf(stderr, "bk_bench: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
	exit(1);
}

/* ---- data ---- */

typedef struct Data
{
	int64_t		n;
	int64_t		cap;
	int			dim;
	double	   *x;				/* n x dim */
	int64_t    *y;
	int64_t    *id;				/* the row's line number (from 1), or NULL: i + 1 */
} Data;

static FILE *
open_data(const char *path, int *is_pipe)
{
	size_t		len = strlen(path);

	if (len > 3 && strcmp(path + len - 3, ".gz") == 0)
	{
		char	   *cmd = malloc(len * 4 + 32);
		char	   *o = cmd;
		FILE	   *f;

		/* single-quote the path for the shell */
		o += sprintf(o, "gzip -dc '");
		for (const char *c = path; *c; c++)
		{
			if (*c == '\'')
				o += sprintf(o, "'\\''");
			else
				*o++ = *c;
		}
		sprintf(o, "'");
		f = popen(cmd, "r");
		free(cmd);
		*is_pipe = 1;
		return f;
	}
	*is_pipe = 0;
	return fopen(path, "r");
}

static void
read_libsvm(const char *path, int dim, int64_t max_rows, Data *d)
{
	int			is_pipe;
	FILE	   *f = open_data(path, &is_pipe);
	char	   *line = NULL;
	size_t		linecap = 0;
	ssize_t		got;
	char		err[BK_ERRMSG_LEN];

	if (!f)
		die("cannot open", path);
	d->n = 0;
	d->id = NULL;
	d->cap = 1024;
	d->dim = dim;
	d->x = malloc(sizeof(double) * d->cap * dim);
	d->y = malloc(sizeof(int64_t) * d->cap);
	while ((got = getline(&line, &linecap, f)) > 0)
	{
		char	   *p = line;
		double	   *row;

		if (max_rows > 0 && d->n >= max_rows)
			break;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\n' || *p == '\0')
			continue;
		if (d->n == d->cap)
		{
			d->cap *= 2;
			d->x = realloc(d->x, sizeof(double) * d->cap * dim);
			d->y = realloc(d->y, sizeof(int64_t) * d->cap);
			if (!d->x || !d->y)
				die("out of memory reading", path);
		}
		row = d->x + d->n * (int64_t) dim;
		if (!BkParseLibsvm(line, dim, &d->y[d->n], row, err, sizeof(err)))
		{
			fprintf(stderr, "bk_bench: %s, line %lld: %s\n", path,
					(long long) (d->n + 1), err);
			exit(1);
		}
		d->n++;
	}
	free(line);
	if (is_pipe)
	{
		if (pclose(f) != 0)
			die("gzip -dc failed on", path);
	}
	else
		fclose(f);
}

static void
standardize(Data *d, const double *mean, const double *sd)
{
	for (int64_t i = 0; i < d->n; i++)
	{
		double	   *row = d->x + i * (int64_t) d->dim;

		for (int j = 0; j < d->dim; j++)
			row[j] = (row[j] - mean[j]) / sd[j];
	}
}

static void
own_stats(const Data *d, double *mean, double *sd)
{
	for (int j = 0; j < d->dim; j++)
	{
		double		s = 0,
					ss = 0;

		for (int64_t i = 0; i < d->n; i++)
			s += d->x[i * (int64_t) d->dim + j];
		mean[j] = s / (double) d->n;
		for (int64_t i = 0; i < d->n; i++)
		{
			double		v = d->x[i * (int64_t) d->dim + j] - mean[j];

			ss += v * v;
		}
		sd[j] = sqrt(ss / (double) d->n);
		if (!(sd[j] > 0))
			sd[j] = 1.0;
	}
}

/* ---- parameters ---- */

static void
make_params(BkParams *p, const char *spec, int dim)
{
	char		err[BK_ERRMSG_LEN];
	char	   *copy = strdup(spec);
	char	   *save = NULL;

	BkParamsInit(p);
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
	{
		char	   *eq = strchr(tok, '=');
		BkParamInput in;
		char	   *end;
		double		v;

		if (!eq)
			die("parameter without '=':", tok);
		*eq = '\0';
		v = strtod(eq + 1, &end);
		if (*end == '\0' && end != eq + 1)
		{
			in.type = BK_IN_NUMBER;
			in.number = v;
		}
		else if (strcmp(eq + 1, "true") == 0 || strcmp(eq + 1, "false") == 0)
		{
			in.type = BK_IN_BOOLEAN;
			in.boolean = eq[1] == 't';
		}
		else
		{
			in.type = BK_IN_STRING;
			in.string = eq + 1;
		}
		in.type_name = NULL;
		if (!BkParamsSet(p, tok, &in, err, sizeof(err)))
			die("parameter:", err);
	}
	if (!BkParamsFinish(p, dim, err, sizeof(err)))
		die("parameters:", err);
	free(copy);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double) ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* a copy of m through its bytes, decoded for training */
static BkModel *
copy_model(const BkModel *m)
{
	size_t		size;
	uint8_t    *buf;
	BkModel    *c;

	if (!BkModelEncodedSize(m, SIZE_MAX, &size, NULL, 0))
		die("the model cannot be encoded", NULL);
	buf = malloc(size);
	if (!buf)
		die("out of memory", NULL);
	BkModelEncode(m, buf, size);
	c = BkModelDecode(&bk_std_env, buf, size, true);
	free(buf);
	return c;
}

static double
accuracy(BkModel *m, const Data *test)
{
	int64_t		correct = 0;

	for (int64_t i = 0; i < test->n; i++)
	{
		int64_t		label;

		if (BkModelPredict(m, test->x + i * (int64_t) test->dim, &label) &&
			label == test->y[i])
			correct++;
	}
	return test->n > 0 ? (double) correct / test->n : 0.0;
}

static uint64_t
model_fnv(const BkModel *m)
{
	size_t		size;
	uint8_t    *buf;
	uint64_t	h = UINT64_C(14695981039346656037);

	if (!BkModelEncodedSize(m, SIZE_MAX, &size, NULL, 0))
		die("the model cannot be encoded", NULL);
	buf = malloc(size);
	if (!buf)
		die("out of memory", NULL);
	BkModelEncode(m, buf, size);
	for (size_t i = 0; i < size; i++)
		h = (h ^ buf[i]) * UINT64_C(1099511628211);
	free(buf);
	return h;
}

/*
 * --combine: the same parts combined as a parallel plan's or Citus's
 * combine function does (bk_train_combine, src/pg/bk_merge_agg.c): at
 * each step the union of both kept aside, the second merged into the
 * first (BkModelMerge: the fold, projected to the budget), then the fold
 * polished towards that union (BkModelPolish), no distillation.  Prints
 * the "combine_*" keys: the CPU time of each step's three parts, summed.
 */
static bool combine_replay = false;

static void
combine_parts(BkModel **part, int parts, const Data *test)
{
	BkModel    *c = NULL;
	double		t_union = 0.0,
				t_merge = 0.0,
				t_polish = 0.0,
				t;
	int			polished = 0;

	for (int p = 0; p < parts; p++)
	{
		BkModel    *src,
				   *u = NULL;

		if (c == NULL)
		{
			c = copy_model(part[p]);
			continue;
		}
		src = copy_model(part[p]);
		t = cpu_now();
		if (BkModelPolishable(c, src))
		{
			BkModel    *s2 = copy_model(part[p]);

			u = copy_model(c);
			BkModelMergeUnion(u, s2);
			BkModelFree(s2);
		}
		t_union += cpu_now() - t;
		t = cpu_now();
		BkModelMerge(c, src);
		t_merge += cpu_now() - t;
		t = cpu_now();
		if (u != NULL)
		{
			BkPolishReport pr;

			BkModelPolish(c, u, &pr);
			BkModelFree(u);
			polished++;
		}
		t_polish += cpu_now() - t;
		BkModelFree(src);
	}
	printf(", \"combine_cpu_s\": %.4f, \"combine_union_cpu_s\": %.4f, \"combine_merge_cpu_s\": %.4f, "
		   "\"combine_polish_cpu_s\": %.4f, \"combine_polished\": %d, \"combine_acc\": %.4f",
		   t_union + t_merge + t_polish, t_union, t_merge, t_polish, polished,
		   100.0 * accuracy(c, test));
	BkModelFree(c);
}

/*
 * --merge-parts: P parts (line number mod P), trained in file order and
 * encoded (untimed: the table of stored models), then merged as
 * bk_merge(m ORDER BY part) does: each part decoded for the fold
 * (BkModelMerge) and, from the second part on, again for the union kept
 * whole (BkModelMergeUnion) while it is distillable, until the fold
 * stops (BkModelFoldStops: then BkModelMergeCounts); then BkModelDistil,
 * or BkModelRetrain where the fold stopped, on a copy of the fold.  Prints the "merge_*" keys of the JSON line.
 */
static void
merge_parts(const BkParams *params, const Data *train, const Data *test, int parts)
{
	BkModel   **part = calloc(parts, sizeof(BkModel *));
	uint8_t   **bytes = calloc(parts, sizeof(uint8_t *));
	size_t	   *bytes_len = calloc(parts, sizeof(size_t));
	BkModel    *fold = NULL,
			   *uni = NULL,
			   *serial;
	BkDistilReport report;
	double		t0,
				t_serial,
				t_parts,
				t_merge,
				acc_union,
				acc_fold,
				t_decode = 0.0,
				t_union = 0.0,
				t_fold = 0.0,
				t_final,
				t1;
	int			dim = train->dim;
	bool		dropped = false,
				stopped = false;

	t0 = cpu_now();
	serial = BkModelCreate(&bk_std_env, params, dim);
	for (int64_t i = 0; i < train->n; i++)
		BkModelLearn(serial, train->x + i * (int64_t) dim, train->y[i]);
	t_serial = cpu_now() - t0;

	t0 = cpu_now();
	for (int p = 0; p < parts; p++)
	{
		part[p] = BkModelCreate(&bk_std_env, params, dim);
		for (int64_t i = 0; i < train->n; i++)
			if ((train->id ? train->id[i] : i + 1) % parts == p)
				BkModelLearn(part[p], train->x + i * (int64_t) dim, train->y[i]);
	}
	t_parts = cpu_now() - t0;

	/* the parts as stored, their bytes (untimed): bk_merge decodes them */
	for (int p = 0; p < parts; p++)
	{
		if (!BkModelEncodedSize(part[p], SIZE_MAX, &bytes_len[p], NULL, 0))
			die("the model cannot be encoded", NULL);
		bytes[p] = malloc(bytes_len[p]);
		if (!bytes[p])
			die("out of memory", NULL);
		BkModelEncode(part[p], bytes[p], bytes_len[p]);
	}

	memset(&report, 0, sizeof(report));
	t0 = cpu_now();
	for (int p = 0; p < parts; p++)
	{
		BkModel    *c,
				   *kept = NULL;

		if (fold == NULL)
		{
			fold = BkModelDecode(&bk_std_env, bytes[p], bytes_len[p], true);
			continue;
		}
		/* once dropped, the union is not kept again (it would not be the average of all) */
		if (uni == NULL && !dropped && BkModelDistillable(fold))
			uni = copy_model(fold);
		if (uni != NULL)
		{
			t1 = cpu_now();
			c = BkModelDecode(&bk_std_env, bytes[p], bytes_len[p], true);
			t_decode += cpu_now() - t1;
			t1 = cpu_now();
			/* a stopped fold's union stops growing at the bound instead */
			if (!stopped)
				BkModelMergeUnion(uni, c);
			else if (BkModelDistillableWith(uni, c))
				BkModelMergeUnionOwn(uni, c);
			/* one decoded copy serves both once the fold stopped (bk_merge_agg.c) */
			if (stopped && BkModelPrep(c) == NULL)
				kept = c;
			else
				BkModelFree(c);
			t_union += cpu_now() - t1;
			if (!stopped && !BkModelDistillable(uni))
			{
				BkModelFree(uni);
				uni = NULL;
				dropped = true;
			}
			else if (!stopped && BkModelFoldStops(uni))
				stopped = true;
		}
		t1 = cpu_now();
		c = kept != NULL ? kept : BkModelDecode(&bk_std_env, bytes[p], bytes_len[p], true);
		t_decode += cpu_now() - t1;
		t1 = cpu_now();
		if (stopped)
			BkModelMergeCounts(fold, c);
		else
			BkModelMerge(fold, c);
		BkModelFree(c);
		t_fold += cpu_now() - t1;
	}
	t_merge = cpu_now() - t0;
	/* the union's and the fold's accuracy, untimed */
	acc_union = uni != NULL ? 100.0 * accuracy(uni, test) : -1.0;
	acc_fold = 100.0 * accuracy(fold, test);
	t0 = cpu_now();
	if (uni != NULL)
	{
		BkModel    *d = copy_model(fold);

		if (stopped)
			BkModelRetrain(d, uni, &report);
		else
			BkModelDistil(d, uni, &report);
		BkModelFree(fold);
		fold = d;
	}
	t_final = cpu_now() - t0;
	t_merge += t_final;

	printf(", \"merge_decode_cpu_s\": %.4f, \"merge_union_cpu_s\": %.4f, \"merge_fold_cpu_s\": %.4f, "
		   "\"merge_final_cpu_s\": %.4f", t_decode, t_union, t_fold, t_final);
	printf(", \"merge_parts\": %d, \"merge_serial_cpu_s\": %.4f, \"merge_parts_cpu_s\": %.4f, "
		   "\"merge_cpu_s\": %.4f, \"merge_ratio\": %.3f, \"merge_serial_acc\": %.4f, "
		   "\"merge_part0_acc\": %.4f, \"merge_acc\": %.4f, \"merge_union_acc\": %.4f, \"merge_fold_acc\": %.4f, \"merge_fnv1a\": \"%016llx\", "
		   "\"merge_distil\": [%d, %d, %d, %d, %d, %d], \"merge_polish\": [%d, %d, %d, %.6g, %.6g], "
		   "\"merge_refine\": [%d, %d, %d, %d, %d], \"merge_retrained\": %d",
		   parts, t_serial, t_parts, t_merge, t_merge / t_serial,
		   100.0 * accuracy(serial, test), 100.0 * accuracy(part[0], test),
		   100.0 * accuracy(fold, test), acc_union, acc_fold, (unsigned long long) model_fnv(fold),
		   report.points, report.agree_merged, report.agree_distilled,
		   report.agree_quarter, report.agree_expected, report.distilled,
		   report.polish.machines, report.polish.steps, report.polish.points,
		   report.polish.before, report.polish.after,
		   report.own_points, report.own_merged, report.own_refined,
		   report.own_halves_agree, report.refined, report.retrained);
	if (combine_replay)
		combine_parts(part, parts, test);
	for (int p = 0; p < parts; p++)
	{
		BkModelFree(part[p]);
		free(bytes[p]);
	}
	free(part);
	free(bytes);
	free(bytes_len);
	if (uni)
		BkModelFree(uni);
	BkModelFree(fold);
	BkModelFree(serial);
}

/* rows sorted by their keys (BkShuffleKey of the line number) */
static const uint64_t *sort_keys;

static int
cmp_key(const void *a, const void *b)
{
	uint64_t	x = sort_keys[*(const int64_t *) a],
				y = sort_keys[*(const int64_t *) b];

	return (x > y) - (x < y);
}

/* d's rows in the order of BkShuffleKey(line number, seed), d->id their line numbers */
static void
shuffle_rows(Data *d, uint64_t seed)
{
	int64_t    *idx = malloc(sizeof(int64_t) * d->n);
	uint64_t   *keys = malloc(sizeof(uint64_t) * d->n);
	double	   *x = malloc(sizeof(double) * d->n * d->dim);
	int64_t    *y = malloc(sizeof(int64_t) * d->n);

	d->id = malloc(sizeof(int64_t) * d->n);
	for (int64_t i = 0; i < d->n; i++)
	{
		idx[i] = i;
		keys[i] = BkShuffleKey((uint64_t) i + 1, seed);
	}
	sort_keys = keys;
	qsort(idx, d->n, sizeof(int64_t), cmp_key);
	for (int64_t i = 0; i < d->n; i++)
	{
		memcpy(x + i * d->dim, d->x + idx[i] * d->dim, sizeof(double) * d->dim);
		y[i] = d->y[idx[i]];
		d->id[i] = idx[i] + 1;
	}
	free(d->x);
	free(d->y);
	d->x = x;
	d->y = y;
	free(idx);
	free(keys);
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

static double
median(double *v, int n)
{
	qsort(v, n, sizeof(double), cmp_double);
	return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* , "name": [v0, v1, ...] for the JSON line */
static void
print_runs(const char *name, const double *v, int n)
{
	printf(", \"%s\": [", name);
	for (int r = 0; r < n; r++)
		printf("%s%.6f", r ? ", " : "", v[r]);
	printf("]");
}

int
main(int argc, char **argv)
{
	const char *train_path = NULL,
			   *test_path = NULL,
			   *spec = NULL,
			   *stats_path = NULL;
	int			dim = 0,
				repeat = 1,
				parts = 0,
				do_std = 0;
	int64_t		max_rows = 0;
	uint64_t	order_seed = 0;
	Data		train,
				test;
	BkParams	params;
	double	   *mean,
			   *sd;
	double	   *t_train,
			   *c_train,
			   *t_score;
	BkModel    *model = NULL;
	int64_t		correct = 0;

	bk_std_program = "bk_bench";

	for (int i = 1; i < argc; i++)
	{
		const char *a = argv[i];

		if (strcmp(a, "--standardize") == 0)
		{
			do_std = 1;
			continue;
		}
		if (strcmp(a, "--combine") == 0)
		{
			combine_replay = true;
			continue;
		}
		if (i + 1 >= argc)
			die("missing value after", a);
		if (strcmp(a, "--train") == 0)
			train_path = argv[++i];
		else if (strcmp(a, "--test") == 0)
			test_path = argv[++i];
		else if (strcmp(a, "--dim") == 0)
			dim = atoi(argv[++i]);
		else if (strcmp(a, "--params") == 0)
			spec = argv[++i];
		else if (strcmp(a, "--stats") == 0)
			stats_path = argv[++i];
		else if (strcmp(a, "--max-rows") == 0)
			max_rows = atoll(argv[++i]);
		else if (strcmp(a, "--repeat") == 0)
			repeat = atoi(argv[++i]);
		else if (strcmp(a, "--merge-parts") == 0)
			parts = atoi(argv[++i]);
		else if (strcmp(a, "--order-seed") == 0)
			order_seed = strtoull(argv[++i], NULL, 10);
		else
			die("unknown option", a);
	}
	if (!train_path || dim < 1 || !spec || repeat < 1)
		die("usage: bk_bench --train FILE --dim D --params k=v,... [--test FILE] "
			"[--standardize | --stats FILE] [--max-rows N] [--repeat N] [--merge-parts P [--combine]] [--order-seed S]", NULL);

	make_params(&params, spec, dim);
	read_libsvm(train_path, dim, max_rows, &train);
	if (train.n == 0)
		die("no rows in", train_path);
	if (order_seed > 0)
		shuffle_rows(&train, order_seed);
	memset(&test, 0, sizeof(test));
	if (test_path)
		read_libsvm(test_path, dim, 0, &test);

	mean = calloc(dim, sizeof(double));
	sd = calloc(dim, sizeof(double));
	if (stats_path)
	{
		FILE	   *f = fopen(stats_path, "r");

		if (!f)
			die("cannot open", stats_path);
		for (int j = 0; j < dim; j++)
			if (fscanf(f, "%lf %lf", &mean[j], &sd[j]) != 2 || !(sd[j] > 0))
				die("bad statistics in", stats_path);
		fclose(f);
		do_std = 1;
	}
	else if (do_std)
		own_stats(&train, mean, sd);
	if (do_std)
	{
		standardize(&train, mean, sd);
		if (test.n > 0)
			standardize(&test, mean, sd);
	}

	t_train = calloc(repeat, sizeof(double));
	c_train = calloc(repeat, sizeof(double));
	t_score = calloc(repeat, sizeof(double));
	for (int r = 0; r < repeat; r++)
	{
		double		t0,
					c0;

		if (model)
			BkModelFree(model);
		t0 = now();
		c0 = cpu_now();
		model = BkModelCreate(&bk_std_env, &params, dim);
		for (int64_t i = 0; i < train.n; i++)
			BkModelLearn(model, train.x + i * (int64_t) dim, train.y[i]);
		c_train[r] = cpu_now() - c0;
		t_train[r] = now() - t0;

		if (test.n > 0)
		{
			t0 = now();
			correct = 0;
			for (int64_t i = 0; i < test.n; i++)
			{
				int64_t		label;

				if (BkModelPredict(model, test.x + i * (int64_t) dim, &label) &&
					label == test.y[i])
					correct++;
			}
			t_score[r] = now() - t0;
		}
	}

	{
		double		tt = median(t_train, repeat);
		double		ct = median(c_train, repeat);
		double		ts = median(t_score, repeat);
		int			n_sv = (int) BkModelSvTotal(model);
		BkModelInfo info;
		uint64_t	model_hash;

		BkModelGetInfo(model, &info);
		/*
		 * FNV-1a over the encoded model: equal on two builds = the same
		 * model (not its CRC-32C, which ends the bytes, so a CRC over
		 * them all is the same for every model)
		 */
		{
			size_t		size;
			uint8_t    *buf;

			if (!BkModelEncodedSize(model, SIZE_MAX, &size, NULL, 0))
				die("the model cannot be encoded", NULL);
			buf = malloc(size);
			if (!buf)
				die("out of memory", NULL);
			BkModelEncode(model, buf, size);
			model_hash = UINT64_C(14695981039346656037);
			for (size_t i = 0; i < size; i++)
				model_hash = (model_hash ^ buf[i]) * UINT64_C(1099511628211);
			free(buf);
		}
		printf("{\"train_rows\": %lld, \"train_s\": %.6f, \"train_rows_per_s\": %.1f, "
			   "\"train_cpu_s\": %.6f, \"n_sv\": %d, \"online_mistakes\": %llu, \"online_mistake_rate\": %.6f, "
			   "\"repeat\": %d, \"model_fnv1a\": \"%016llx\"",
			   (long long) train.n, tt, tt > 0 ? train.n / tt : 0.0, ct, n_sv,
			   (unsigned long long) info.mistakes,
			   info.rows_seen ? (double) info.mistakes / info.rows_seen : 0.0,
			   repeat, (unsigned long long) model_hash);
		if (test.n > 0)
			printf(", \"test_rows\": %lld, \"score_s\": %.6f, \"score_rows_per_s\": %.1f, "
				   "\"accuracy\": %.6f",
				   (long long) test.n, ts, ts > 0 ? test.n / ts : 0.0,
				   (double) correct / test.n);
		/* every repeat's time, fastest first (median() sorted them) */
		print_runs("train_runs_s", t_train, repeat);
		if (test.n > 0)
			print_runs("score_runs_s", t_score, repeat);
		if (parts > 0)
			merge_parts(&params, &train, &test, parts);
		printf("}\n");
	}
	BkModelFree(model);
	free(train.x);
	free(train.y);
	free(test.x);
	free(test.y);
	free(mean);
	free(sd);
	free(t_train);
	free(c_train);
	free(t_score);
	return 0;
}
