/*
 * fuzz_learn.c
 *	  Fuzz target "learn then validate": whatever a user can feed the
 *	  learner (parameters or a base model, then rows of any finite values
 *	  and any labels), what bk_train returns must be a model that passes the
 *	  core's own validator.  Learning may stop with an error a user can
 *	  cause (invalid data or parameters, a limit, numerical trouble); any
 *	  other error is a bug, and so is an encoded model the validator
 *	  refuses: both abort.
 *
 *	  The input, read front to back (a read past the end ends the stream:
 *	  the rows read until then are learned):
 *
 *	  byte 0	flags: bit 0, the source (0 parameters, 1 a base model);
 *				bit 1, text labels (a base model with classes keeps its own
 *				label type: mixing is refused, and tested elsewhere); bit 2,
 *				declare classes (parameters) or recompute the base model's
 *				length field, digest and CRC, so that mutated models get past the
 *				checksum (model)
 *	  parameters: the algorithm, the kernel (0: the default), dim - 1
 *				(mod 8), a count n (mod 16), then n key and value byte
 *				pairs; values come from a table per key, and 0xFF for a
 *				real-valued key takes the next 8 bytes as a double.  With
 *				bit 2, a count (1 to 4) and as many label bytes, declared
 *				as the classes.  A budget and evaluation-set size that
 *				the keys do not give are 20 (default_size), not 100.
 *	  model:	a u32 length L, then L bytes of a model
 *	  rows:		a label byte (0xFF: a NULL label, the row is skipped; else
 *				an index into a table of integer or text labels), then dim
 *				features, each a byte c: below 0xC0 the small number
 *				(c - 96) / 8, 0xC0 to 0xDF an extreme value from a table
 *				(1e200, 1e155, 1e-300, -1e308, ...), 0xE0 and above the next
 *				8 bytes as an IEEE double, made finite (bk_train refuses
 *				NaN and infinity before the core sees them).
 */
#include "fuzz_common.h"
#include "bk_target.h"
#include "bk_learner.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/* numeric overflow, being added to BkErrCode: compile before and after */
#ifndef BK_ERR_OVERFLOW
#define BK_ERR_OVERFLOW 9
#endif

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FLAG_MODEL		0x01
#define FLAG_TEXT		0x02
#define FLAG_DECLARE	0x04	/* parameters */
#define FLAG_FIX_CRC	0x04	/* model */
#define FLAG_REGRESSION 0x08	/* parameters: a regressor (float8 targets) */
#define FLAG_NOVELTY	0x10	/* parameters: a novelty detector (no label) */

#define MAX_PARAM_DIM	8
#define NULL_LABEL		0xFF
#define RAW_NUMBER		0xFF	/* value byte of a real-valued key */
#define FEATURE_EXTREME 0xC0
#define FEATURE_RAW		0xE0


typedef struct Input
{
	const uint8_t *data;
	size_t		len;
	size_t		pos;
} Input;

static bool
take(Input *in, size_t n, const uint8_t **out)
{
	if (n > in->len - in->pos)
		return false;
	*out = in->data + in->pos;
	in->pos += n;
	return true;
}

static bool
take_byte(Input *in, uint8_t *b)
{
	const uint8_t *p;

	if (!take(in, 1, &p))
		return false;
	*b = *p;
	return true;
}

static uint64_t
get_u64(const uint8_t *p)
{
	uint64_t	v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/*
 * The next 8 bytes as a double.  NaN and infinity (exponent all ones) lose
 * the exponent's lowest bit: finite, of magnitude 2^1023 or more, so the
 * largest values still come up.
 */
static bool
take_double(Input *in, double *v)
{
	const uint8_t *p;
	uint64_t	bits;

	if (!take(in, 8, &p))
		return false;
	bits = get_u64(p);
	if (((bits >> 52) & 0x7FF) == 0x7FF)
		bits &= ~((uint64_t) 1 << 52);
	memcpy(v, &bits, sizeof(*v));
	return true;
}

/* ---- errors ---- */

/* ---- parameters ---- */

/*
 * The choices of the enum keys are the core's own (bk_choices.c), the
 * algorithms the registry's, in id order: a new learner or choice is
 * fuzzed without a change here.
 */
static const char *const *algorithm_names;
static const char *const *kernel_names;

/* the registry's names, NULL-terminated, built once */
static void
init_names(void)
{
	static const char *names[64];
	int			n = 0;

	if (algorithm_names != NULL)
		return;
	while (BkLearnerAt(n) != NULL && n < 63)
	{
		names[n] = BkLearnerAt(n)->name;
		n++;
	}
	names[n] = NULL;
	algorithm_names = names;
	kernel_names = BkParamChoices(BK_P_KERNEL);
}

/*
 * Values of the real-valued keys, from the smallest positive to the
 * largest (the parser takes every finite value in range, so a user can
 * give all of them), and 0 where the range starts there.
 */
static const double real_values[] = {1e-300, 1e-200, 1e-100, 1e-10, 1e-4,
	0.01, 0.1, 0.5, 1, 2, 10, 1e3, 1e10, 1e100, 1e200, 1e300, 0, DBL_MAX};
static const double gamma_values[] = {1e-300, 1e-10, 1e-3, 0.1, 0.5, 1, 2,
	10, 1e3, 1e5, 1e10};
static const double rho_values[] = {0, 0.1, 0.5, 0.9, 0.999, 1 - DBL_EPSILON / 2};
static const double degree_values[] = {1, 2, 3, 4, 5, 7, 10, 20, 50, 99, 100};

typedef enum ValueKind
{
	V_SMALL,					/* an integer 1 to 12: sizes */
	V_BYTE,						/* an integer 0 to 255: the seed */
	V_TABLE,					/* a number from a table, or raw */
	V_ENUM,						/* a string from a list */
	V_BOOL
} ValueKind;

typedef struct KeySpec
{
	const char *key;
	ValueKind	kind;
	const double *values;		/* V_TABLE */
	int			n_values;
	BkParamId	choices;		/* V_ENUM: BkParamChoices(choices) */
} KeySpec;

#define TABLE(t) V_TABLE, t, (int) (sizeof(t) / sizeof(t[0])), 0
#define CHOICES(id) V_ENUM, NULL, 0, id

static const KeySpec keys[] = {
	{"budget", V_SMALL, NULL, 0, 0},
	{"max_sv", V_SMALL, NULL, 0, 0},
	{"gamma", TABLE(gamma_values)},
	{"degree", TABLE(degree_values)},
	{"coef0", TABLE(real_values)},
	{"C", TABLE(real_values)},
	{"loss", CHOICES(BK_P_LOSS)},
	{"variant", CHOICES(BK_P_VARIANT)},
	{"seed", V_BYTE, NULL, 0, 0},
	{"lambda", TABLE(real_values)},
	{"maintenance", CHOICES(BK_P_MAINTENANCE)},
	{"ball_projection", V_BOOL, NULL, 0, 0},
	{"margin", TABLE(real_values)},
	{"update", CHOICES(BK_P_UPDATE)},
	{"eval_set", CHOICES(BK_P_EVAL_SET)},
	{"eval_size", V_SMALL, NULL, 0, 0},
	{"alpha", TABLE(real_values)},
	{"beta", TABLE(real_values)},
	{"eta", TABLE(real_values)},
	{"output", CHOICES(BK_P_OUTPUT)},
	{"rho", TABLE(rho_values)},
	{"max_coef", TABLE(real_values)},
	{"sv_precision", CHOICES(BK_P_SV_PRECISION)},
};

#define N_KEYS ((int) (sizeof(keys) / sizeof(keys[0])))

static int
count_names(const char *const *names)
{
	int			n = 0;

	while (names[n] != NULL)
		n++;
	return n;
}

/* One key's value from the input; false at the end of the input. */
static bool
read_value(Input *in, const KeySpec *k, BkParamInput *v)
{
	uint8_t		b;

	if (!take_byte(in, &b))
		return false;
	v->type = BK_IN_NUMBER;
	switch (k->kind)
	{
		case V_SMALL:
			v->number = 1 + b % 12;
			break;
		case V_BYTE:
			v->number = b;
			break;
		case V_TABLE:
			if (b == RAW_NUMBER)
				return take_double(in, &v->number);
			v->number = k->values[b % k->n_values];
			break;
		case V_ENUM:
			v->type = BK_IN_STRING;
			v->string = BkParamChoices(k->choices)[b % count_names(BkParamChoices(k->choices))];
			break;
		case V_BOOL:
			v->type = BK_IN_BOOLEAN;
			v->boolean = b & 1;
			break;
	}
	return true;
}

/*
 * Set a key if the parser takes it and the parameters still finish with
 * it: a key that does not apply to the algorithm (most keys, for any one
 * algorithm) is skipped rather than ending the input, so that random keys
 * still reach the learners.  A key may apply only after another (C after
 * update "nobias_svm"); the input's order decides.
 */
static void
try_set(BkParams *p, int dim, const char *key, const BkParamInput *v)
{
	BkParams	q = *p;
	BkParams	r;
	char		err[BK_ERRMSG_LEN];

	err[0] = '\0';
	if (!BkParamsSet(&q, key, v, err, sizeof(err)))
	{
		/* every refusal says why */
		if (err[0] == '\0')
			abort();
		return;
	}
	r = q;
	if (BkParamsFinish(&r, dim, err, sizeof(err)))
		*p = q;
}

/*
 * The budget and evaluation-set size of an input that gives none: 20, or
 * BK_FUZZ_DEFAULT_SIZE (1 to 1000; 0: leave the library's defaults).  The
 * inputs of test/fuzz/regress/learn were found under the library's
 * defaults, and make fuzzcheck replays them under both.
 */
static int
default_size(void)
{
	static int	size = -1;

	if (size < 0)
	{
		const char *env = getenv("BK_FUZZ_DEFAULT_SIZE");
		long		v = env != NULL ? strtol(env, NULL, 10) : 20;

		size = v >= 0 && v <= 1000 ? (int) v : 20;
	}
	return size;
}

/*
 * A number the input did not give, set to value where the algorithm takes
 * it (a key that does not apply is skipped, as try_set does).
 */
static void
default_number(BkParams *p, int dim, const char *key, BkParamId id, double value)
{
	BkParamInput v;

	if (BkParamGiven(p, id) || value <= 0)
		return;
	v.type = BK_IN_NUMBER;
	v.number = value;
	try_set(p, dim, key, &v);
}

/* ---- labels ---- */

static const int64_t int_labels[] = {1, -1, 0, 2, 3, 7, -1000, 42,
	INT64_MAX, INT64_MIN};

#define N_INT_LABELS ((int) (sizeof(int_labels) / sizeof(int_labels[0])))

/* at the limit, and one byte over it (BK_ERR_LIMIT) */
static char long_label[BK_MAX_LABEL_LEN + 1];

static const char *const text_labels[] = {"yes", "no", "maybe", "a", "b",
	"\xc3\xa9t\xc3\xa9", "two words", "", long_label, long_label};

#define N_TEXT_LABELS ((int) (sizeof(text_labels) / sizeof(text_labels[0])))

static size_t
text_label_len(int i)
{
	if (text_labels[i] == long_label)
		return i == N_TEXT_LABELS - 1 ? BK_MAX_LABEL_LEN + 1 : BK_MAX_LABEL_LEN;
	return strlen(text_labels[i]);
}

static void
declare_class(BkModel *m, bool text, uint8_t b)
{
	if (text)
		BkModelDeclareClassText(m, text_labels[b % N_TEXT_LABELS],
								text_label_len(b % N_TEXT_LABELS));
	else
		BkModelDeclareClass(m, int_labels[b % N_INT_LABELS]);
}

/* ---- the two sources ---- */

/*
 * A new model from parameters read from the input (bk_train with a
 * parameter document), or NULL when they are refused.
 */
static BkModel *
model_from_params(Input *in, bool text, bool declare, bool regression,
				  bool novelty)
{
	BkParams	p;
	BkParamInput v = {BK_IN_STRING, 0, NULL, false, NULL};
	char		err[BK_ERRMSG_LEN];
	uint8_t		alg,
				kernel,
				dim_byte,
				npairs,
				ndeclare = 0;
	int			dim;
	const uint8_t *declared = NULL;
	jmp_buf		jb;
	BkModel    *volatile m = NULL;

	if (!take_byte(in, &alg) || !take_byte(in, &kernel) ||
		!take_byte(in, &dim_byte) || !take_byte(in, &npairs))
		return NULL;
	dim = 1 + dim_byte % MAX_PARAM_DIM;

	init_names();
	BkParamsInit(&p);
	p.regression = regression;
	p.novelty = novelty && !regression;
	v.string = algorithm_names[alg % count_names(algorithm_names)];
	if (!BkParamsSet(&p, "algorithm", &v, err, sizeof(err)))
		abort();
	if (kernel % 4 != 0)
	{
		v.string = kernel_names[kernel % 4 - 1];
		try_set(&p, dim, "kernel", &v);
	}
	for (int i = 0; i < npairs % 16; i++)
	{
		uint8_t		key;

		if (!take_byte(in, &key) || !read_value(in, &keys[key % N_KEYS], &v))
			return NULL;
		try_set(&p, dim, keys[key % N_KEYS].key, &v);
	}
	/* a regressor's tube, from the reals' table (its own key: the table's stays) */
	if (regression || novelty)
	{
		uint8_t		e;
		BkParamInput num = {BK_IN_NUMBER, 0, NULL, false, NULL};

		if (!take_byte(in, &e))
			return NULL;
		num.number = real_values[e % (sizeof(real_values) / sizeof(real_values[0]))];
		try_set(&p, dim, regression ? "epsilon" : "nu", &num);
	}
	/*
	 * A budget and an evaluation set that the input did not give are
	 * default_size() (20), not the library's defaults of 100: the
	 * maintenance of BPA-P, BDUOL and the Projectrons is cubic in B, and at
	 * 100 one input of 2 kB took from 5 to 60 s under the sanitizers, so
	 * that a long run averaged 250 inputs a second.  20 still takes a
	 * machine past its first growth (16 slots); the keys give 1 to 12.
	 */
	default_number(&p, dim, "budget", BK_P_BUDGET, default_size());
	default_number(&p, dim, "eval_size", BK_P_EVAL_SIZE, default_size());
	if (declare)
	{
		if (!take_byte(in, &ndeclare))
			return NULL;
		ndeclare = 1 + ndeclare % 4;
		if (!take(in, ndeclare, &declared))
			return NULL;
	}

	/* as bk_train does on the first row */
	err[0] = '\0';
	if (!BkParamsFinish(&p, dim, err, sizeof(err)))
	{
		if (err[0] == '\0')
			abort();
		return NULL;
	}
	if (!BkModelCheckSize(&p, dim, fuzz_env.max_alloc, err, sizeof(err)))
		return NULL;

	bk_std_jump = &jb;
	if (setjmp(jb) == 0)
	{
		m = BkModelCreate(&fuzz_env, &p, dim);
		/* a regressor standardised as bk_train does, by the label byte's scale */
		if (regression && declare)
			BkModelSetTargetScale(m, 1.0, 4.0);
		for (int i = 0; i < ndeclare && !regression && !novelty; i++)
			declare_class(m, text, declared[i]);
	}
	else
	{
		FuzzExpectUserError("creating a model and declaring its classes");
		m = NULL;
	}
	bk_std_jump = NULL;
	return m;
}

/* ---- rows ---- */

static const double extreme_values[] = {1e200, -1e200, 1e155, -1e155,
	1e-300, -1e-300, 1e308, -1e308, DBL_MAX, -DBL_MAX, DBL_MIN, 4.9e-324,
	1e100, 1e20, 1e-20, -0.0};

#define N_EXTREME ((int) (sizeof(extreme_values) / sizeof(extreme_values[0])))

static bool
read_feature(Input *in, double *v)
{
	uint8_t		c;

	if (!take_byte(in, &c))
		return false;
	if (c >= FEATURE_RAW)
		return take_double(in, v);
	if (c >= FEATURE_EXTREME)
		*v = extreme_values[(c - FEATURE_EXTREME) % N_EXTREME];
	else
		*v = ((double) c - 96.0) / 8.0;
	return true;
}

/*
 * Learn the rows of the input (bk_train's transition function for each);
 * *rows counts them, skipped or not.  False if the core reported an
 * error, which must be one a user can cause.
 */
static bool
learn_rows(BkModel *m, Input *in, bool text, double *x, int *rows)
{
	jmp_buf		jb;
	volatile bool ok = true;

	bk_std_jump = &jb;
	if (setjmp(jb) == 0)
	{
		for (;;)
		{
			uint8_t		b;
			bool		full = true;

			if (!take_byte(in, &b))
				break;
			if (b == NULL_LABEL)
			{
				BkModelSkip(m, 1);
				(*rows)++;
				continue;
			}
			for (int d = 0; d < m->dim && full; d++)
				full = read_feature(in, &x[d]);
			if (!full)
				break;
			(*rows)++;
			/* a regressor's target: the byte, or one of the extreme values */
			if (m->novelty != NULL)
				BkModelLearnNovel(m, x);
			else if (m->target != NULL)
				BkModelLearnValue(m, x, b >= FEATURE_EXTREME ?
								  extreme_values[(b - FEATURE_EXTREME) % N_EXTREME] :
								  ((double) b - 96.0) / 8.0);
			else if (text)
				BkModelLearnText(m, x, text_labels[b % N_TEXT_LABELS],
								 text_label_len(b % N_TEXT_LABELS));
			else
				BkModelLearn(m, x, int_labels[b % N_INT_LABELS]);
		}
	}
	else
	{
		FuzzExpectUserError("learning");
		ok = false;
	}
	bk_std_jump = NULL;
	return ok;
}

/* ---- the check ---- */

/* bk_train's final function: encode, then the validator must agree. */
static void
check_result(const BkModel *m, bool from_model, int rows)
{
	char		what[64];
	uint8_t    *buf;
	size_t		len;

	snprintf(what, sizeof(what), "learned from %s in %d rows",
			 from_model ? "a base model" : "parameters", rows);
	buf = FuzzEncodeValid(m, &len, what);
	free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input		in = {data, size, 0};
	uint8_t		flags;
	bool		text;
	BkModel    *m;
	double	   *x;
	int			rows = 0;

	memset(long_label, 'x', sizeof(long_label));
	if (!take_byte(&in, &flags))
		return 0;
	text = (flags & FLAG_TEXT) != 0;
	if (flags & FLAG_MODEL)
	{
		m = FuzzNextModel(in.data, in.len, &in.pos, (flags & FLAG_FIX_CRC) != 0);
		if (m != NULL && m->n_classes > 0)
			text = m->text_labels;
	}
	else
		m = model_from_params(&in, text, (flags & FLAG_DECLARE) != 0,
							  (flags & FLAG_REGRESSION) != 0,
							  (flags & FLAG_NOVELTY) != 0);
	if (m == NULL)
	{
		BkStdReleaseAll();
		return 0;
	}

	/* a row takes a byte per feature at least: no room for one, no row */
	if ((size_t) m->dim < in.len - in.pos)
	{
		x = calloc((size_t) m->dim, sizeof(double));
		/* the aggregate returns NULL for no row, or none learned */
		if (learn_rows(m, &in, text, x, &rows) && rows > 0 && m->rows_seen > 0)
			check_result(m, (flags & FLAG_MODEL) != 0, rows);
		free(x);
	}

	/*
	 * After an error the model may be half-way through a change: what the
	 * core holds is released wholesale, as the server resets the memory
	 * context, instead of by BkModelFree.
	 */
	BkStdReleaseAll();
	return 0;
}

/* ---- seeds for the standalone driver ---- */

size_t		FuzzSeeds(uint8_t **seeds, size_t *lens, size_t max);

#define MAX_SEEDS 16

typedef struct Seed
{
	uint8_t		buf[4096];
	size_t		len;
} Seed;

static void
put(Seed *s, uint8_t b)
{
	if (s->len < sizeof(s->buf))
		s->buf[s->len++] = b;
}

/* the 8 bytes of a double, as take_double reads them */
static void
put_double(Seed *s, double v)
{
	uint64_t	bits;

	memcpy(&bits, &v, sizeof(bits));
	for (int i = 0; i < 8; i++)
		put(s, (uint8_t) (bits >> (8 * i)));
}

/* a feature given as a raw double */
static void
put_raw(Seed *s, double v)
{
	put(s, FEATURE_RAW);
	put_double(s, v);
}

static int
find_name(const char *const *names, const char *name)
{
	for (int i = 0; names[i] != NULL; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	abort();
}

static int
find_key(const char *key)
{
	for (int i = 0; i < N_KEYS; i++)
		if (strcmp(keys[i].key, key) == 0)
			return i;
	abort();
}

/* A key and the byte of a value (index into its table or list, or raw). */
static void
put_key(Seed *s, const char *key, uint8_t value)
{
	put(s, (uint8_t) find_key(key));
	put(s, value);
}

static void
put_key_choice(Seed *s, const char *key, const char *choice)
{
	put_key(s, key, (uint8_t) find_name(BkParamChoices(keys[find_key(key)].choices), choice));
}

static void
put_key_number(Seed *s, const char *key, double v)
{
	const KeySpec *k = &keys[find_key(key)];

	for (int i = 0; i < k->n_values; i++)
		if (k->values[i] == v)
		{
			put_key(s, key, (uint8_t) i);
			return;
		}
	put_key(s, key, RAW_NUMBER);
	put_double(s, v);
}

/* rows of small numbers from a generator, labels cycling over nlabels */
static void
put_rows(Seed *s, BkRng *rng, int dim, int nrows, int nlabels)
{
	for (int r = 0; r < nrows; r++)
	{
		put(s, (uint8_t) (r % nlabels));
		for (int d = 0; d < dim; d++)
			put(s, (uint8_t) BkRngBelow(rng, FEATURE_EXTREME));
	}
}

static void
put_params(Seed *s, uint8_t flags, const char *alg, const char *kernel, int dim,
		   int npairs)
{
	init_names();
	put(s, flags);
	put(s, (uint8_t) find_name(algorithm_names, alg));
	put(s, kernel ? (uint8_t) (1 + find_name(kernel_names, kernel)) : 0);
	put(s, (uint8_t) (dim - 1));
	put(s, (uint8_t) npairs);
}

static size_t
param_seeds(Seed *seeds, BkRng *rng)
{
	Seed	   *s = seeds;

	/*
	 * BPA-NN and, last (before the budget makes it go), a feature of 1e200:
	 * its squared distance to another SV overflows (on 03044a0 the
	 * neighbour cache kept inf, and the model was invalid)
	 */
	put_params(s, 0, "bpa", "rbf", 2, 2);
	put_key_choice(s, "variant", "nn");
	put_key(s, "budget", 4);	/* 5 */
	put_rows(s, rng, 2, 3, 2);
	put(s, 0);
	put(s, FEATURE_EXTREME + 0);	/* 1e200 */
	put(s, 96);
	s++;

	/*
	 * Pegasos with lambda 1e-300 and budget maintenance by merging (on
	 * 03044a0 the weight degradation became NaN; infinite with the other
	 * strategies)
	 */
	put_params(s, 0, "pegasos", NULL, 3, 3);
	put_key_number(s, "lambda", 1e-300);
	put_key_choice(s, "maintenance", "merge");
	put_key(s, "budget", 3);	/* 4 */
	put_rows(s, rng, 3, 16, 3);
	s++;

	/* PA with the ramp loss, poly kernel of degree 3, five integer classes */
	put_params(s, 0, "pa", "poly", 4, 4);
	put_key_choice(s, "loss", "ramp");
	put_key_number(s, "C", 10);
	put_key_number(s, "degree", 3);
	put_key_number(s, "coef0", 1);
	put_rows(s, rng, 4, 20, 5);
	s++;

	/* Projectron++ on raw doubles and extreme values */
	put_params(s, 0, "projectron_pp", NULL, 2, 2);
	put_key(s, "budget", 4);	/* 5 */
	put_key_number(s, "eta", 0.1);
	for (int r = 0; r < 12; r++)
	{
		put(s, (uint8_t) (r % 2));
		put_raw(s, (double) r * 0.37 - 2.0);
		put(s, r % 3 == 0 ? FEATURE_EXTREME + (r % N_EXTREME) : 100);
	}
	s++;

	/* BDUOL "nearest" with three declared text classes, a NULL row */
	put_params(s, FLAG_TEXT | FLAG_DECLARE, "bduol", NULL, 3, 2);
	put_key_choice(s, "maintenance", "nearest");
	put_key(s, "budget", 3);	/* 4 */
	put(s, 2);					/* declare 3 classes: yes, no, maybe */
	put(s, 0);
	put(s, 1);
	put(s, 2);
	put_rows(s, rng, 3, 10, 3);
	put(s, NULL_LABEL);
	put_rows(s, rng, 3, 4, 3);
	s++;

	/* the tighter budget perceptron, evaluation set "flip", SVM update */
	put_params(s, 0, "tighter_budget_perceptron", "linear", 3, 5);
	put_key_choice(s, "eval_set", "flip");
	put_key(s, "eval_size", 4); /* 5 */
	put_key(s, "budget", 3);	/* 4 */
	put_key_choice(s, "update", "nobias_svm");
	put_key_number(s, "C", 0.5);
	put_rows(s, rng, 3, 16, 2);
	s++;

	/* SPA's averaged output; the Forgetron; BOGD */
	put_params(s, 0, "spa", NULL, 2, 1);
	put_key_choice(s, "output", "average");
	put_rows(s, rng, 2, 12, 2);
	s++;
	put_params(s, 0, "forgetron", NULL, 2, 1);
	put_key(s, "budget", 2);	/* 3 */
	put_rows(s, rng, 2, 12, 3);
	s++;
	put_params(s, 0, "bogd", NULL, 2, 3);
	put_key(s, "budget", 3);	/* 4 */
	put_key_number(s, "lambda", 0.01);
	put_key_number(s, "max_coef", 2);
	put_rows(s, rng, 2, 12, 2);
	s++;

	/*
	 * Regressors: BPA-P, standardised (the declare flag), with extreme
	 * targets last; PA unbudgeted
	 */
	put_params(s, FLAG_REGRESSION | FLAG_DECLARE, "bpa", NULL, 3, 2);
	put_key_choice(s, "variant", "p");
	put_key(s, "budget", 3);	/* 4 */
	put(s, 4);					/* epsilon: real_values[4], 1e-4 */
	put_rows(s, rng, 3, 14, 200);
	put(s, FEATURE_EXTREME + 0);	/* target 1e200 */
	put(s, 100);
	put(s, 100);
	put(s, 100);
	s++;
	put_params(s, FLAG_REGRESSION, "pa", "linear", 2, 0);
	put(s, 6);
	put_rows(s, rng, 2, 12, 160);
	s++;
	/* a one-class SVM on a budget (Pegasos, merging), nu 0.1 */
	put_params(s, FLAG_NOVELTY, "pegasos", NULL, 2, 1);
	put_key(s, "budget", 3);	/* 4 */
	put(s, 6);					/* nu: real_values[6], 0.1 */
	put_rows(s, rng, 2, 14, 3);
	s++;
	return (size_t) (s - seeds);
}

size_t
FuzzSeeds(uint8_t **seeds, size_t *lens, size_t max)
{
	/*
	 * base models (fuzz_seeds.c): BPA-S, Pegasos "projection_best" (text
	 * labels), the tighter budget perceptron "flip", BDUOL "projection"
	 */
	static const int model_seeds[] = {0, 6, 8, 16};
	Seed	   *s = calloc(MAX_SEEDS, sizeof(Seed));
	uint8_t    *models[32];
	size_t		model_lens[32];
	size_t		nmodels = FuzzModelSeeds(models, model_lens, 32);
	size_t		ns;
	size_t		n = 0;
	BkRng		rng;

	BkRngSeed(&rng, 4242);
	ns = param_seeds(s, &rng);
	if (ns + sizeof(model_seeds) / sizeof(model_seeds[0]) > MAX_SEEDS)
		abort();
	for (size_t i = 0; i < sizeof(model_seeds) / sizeof(model_seeds[0]); i++)
	{
		Seed	   *t = &s[ns++];
		size_t		len = model_lens[model_seeds[i]];

		if ((size_t) model_seeds[i] >= nmodels)
			abort();
		put(t, FLAG_MODEL | (i % 2 ? FLAG_FIX_CRC : 0));
		for (int k = 0; k < 4; k++)
			put(t, (uint8_t) (len >> (8 * k)));
		for (size_t j = 0; j < len; j++)
			put(t, models[model_seeds[i]][j]);
		put_rows(t, &rng, 3, 12, 3);
	}
	for (size_t i = 0; i < nmodels; i++)
		free(models[i]);
	for (size_t i = 0; i < ns && n < max; i++)
	{
		if (s[i].len == sizeof(s[i].buf))
			abort();			/* a seed outgrew its buffer */
		seeds[n] = malloc(s[i].len);
		memcpy(seeds[n], s[i].buf, s[i].len);
		lens[n] = s[i].len;
		n++;
	}
	free(s);
	return n;
}
