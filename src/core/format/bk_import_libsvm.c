/*
 * bk_import_libsvm.c
 *	  A model from LIBSVM's model text (what svm-train writes; svm.cpp's
 *	  svm_load_model reads it): a header of "keyword value..." lines up to
 *	  a line "SV", then total_sv lines of a coefficient and index:value
 *	  pairs.  svm-predict's decision value is sum_j coef_j k(x, sv_j) - rho.
 *
 *	  What it becomes (doc/export.md):
 *	  - c_svc or nu_svc of two classes: a classifier of learner "pa" of
 *	    the two labels (in ascending order, as learned classes), whose
 *	    binary machine's f is LIBSVM's decision value when label[0] is the
 *	    larger label and minus it otherwise, so that it predicts label[0]
 *	    where the decision value is positive, as svm-predict does; -rho
 *	    (times that sign) is its bias (bk_part_bias.c); probA and probB become
 *	    the model's calibration (the two classes' sigmoids, which sum to
 *	    1, LIBSVM's);
 *	  - epsilon_svr or nu_svr: a regressor of learner "pa" whose target's
 *	    mean is -rho and standard deviation 1 (its value f - rho);
 *	  - one_class: a novelty detector of learner "ogd" whose threshold is
 *	    rho (bk_novelty = rho - f, minus the decision value).
 *	  Its kernel is linear, polynomial (gamma > 0, coef0 >= 0, degree 1 to
 *	  100) or rbf; the sigmoid and precomputed kernels, and multi-class
 *	  models (one-vs-one), are refused.  It counts as many rows as it has
 *	  support vectors, at least one (LIBSVM does not record its training
 *	  rows), which weighs it in a merge.
 *
 *	  Hostile text: every malformed line is an error naming its line;
 *	  nothing is allocated beyond a copy of the text, its pairs (fewer than
 *	  one per 4 bytes), and the dense support vectors, which may hold at
 *	  most 16 values per byte of the text (plus 65,536).
 */
#include "bk_export.h"
#include "bk_linalg.h"
#include "bk_target.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* svm_type */
enum
{
	T_NONE, T_CSVC, T_NUSVC, T_EPSSVR, T_NUSVR, T_ONECLASS
};

typedef struct Parse
{
	const BkEnv *env;
	char	   *text;			/* a NUL-terminated copy, cut into lines */
	char	   *next;			/* the next line */
	int			line;			/* the current line's number */
	char	   *cur;			/* the current line's next token */
} Parse;

typedef struct Header
{
	int			type;
	int			kernel;			/* BkKernelType, or 0 */
	bool		has_gamma,
				has_degree,
				has_coef0,
				has_nr_class,
				has_total_sv,
				has_rho,
				has_label,
				has_nr_sv,
				has_prob_a,
				has_prob_b;
	double		gamma,
				coef0,
				rho,
				prob_a,
				prob_b;
	long long	degree,
				nr_class,
				total_sv,
				label[2],
				nr_sv[2];
} Header;

static void
fail(Parse *ps, const char *fmt,...) BK_PRINTF(2, 3) BK_NORETURN;

static void
fail(Parse *ps, const char *fmt,...)
{
	char		msg[BK_ERRMSG_LEN];
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	BkRaise(ps->env, BK_ERR_DATA, NULL, "invalid LIBSVM model at line %d: %s",
			ps->line, msg);
}

static void
refuse(const BkEnv *env, const char *fmt,...) BK_PRINTF(2, 3) BK_NORETURN;

static void
refuse(const BkEnv *env, const char *fmt,...)
{
	char		msg[BK_ERRMSG_LEN];
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	BkRaise(env, BK_ERR_UNSUPPORTED, NULL, "cannot import %s", msg);
}

/* the next line (false at the end of the text) */
static bool
next_line(Parse *ps)
{
	char	   *nl;
	size_t		n;

	/* the end of the text, or its final newline */
	if (ps->next == NULL || (*ps->next == '\0' && ps->next != ps->text))
		return false;
	ps->cur = ps->next;
	ps->line++;
	nl = strchr(ps->next, '\n');
	if (nl != NULL)
	{
		*nl = '\0';
		ps->next = nl + 1;
	}
	else
		ps->next = NULL;
	n = strlen(ps->cur);
	if (n > 0 && ps->cur[n - 1] == '\r')
		ps->cur[n - 1] = '\0';
	return true;
}

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* the line's next token, NUL-terminated, or NULL at its end */
static char *
token(Parse *ps)
{
	char	   *t;

	while (is_blank(*ps->cur))
		ps->cur++;
	if (*ps->cur == '\0')
		return NULL;
	t = ps->cur;
	while (*ps->cur != '\0' && !is_blank(*ps->cur))
		ps->cur++;
	if (*ps->cur != '\0')
		*ps->cur++ = '\0';
	return t;
}

/* the token shown in a message: its first 40 bytes */
#define SHOW "%.40s"

static double
number(Parse *ps, const char *what)
{
	char	   *t = token(ps);
	char	   *end;
	double		v;

	if (t == NULL)
		fail(ps, "%s expects a number", what);
	v = BkParseDouble(t, &end);
	if (end == t || *end != '\0')
		fail(ps, "%s: \"" SHOW "\" is not a number", what, t);
	if (!isfinite(v))
		fail(ps, "%s: \"" SHOW "\" is not finite", what, t);
	return v;
}

static long long
integer(Parse *ps, const char *what, long long lo, long long hi)
{
	char	   *t = token(ps);
	char	   *end;
	long long	v;

	if (t == NULL)
		fail(ps, "%s expects an integer", what);
	v = strtoll(t, &end, 10);
	if (end == t || *end != '\0')
		fail(ps, "%s: \"" SHOW "\" is not an integer", what, t);
	if (v < lo || v > hi)
		fail(ps, "%s: %lld is out of range [%lld, %lld]", what, v, lo, hi);
	return v;
}

static void
line_end(Parse *ps, const char *what)
{
	char	   *t = token(ps);

	if (t != NULL)
		fail(ps, "%s: unexpected \"" SHOW "\"", what, t);
}

static void
once(Parse *ps, bool *seen, const char *what)
{
	if (*seen)
		fail(ps, "\"%s\" given twice", what);
	*seen = true;
}

static void
parse_header(Parse *ps, Header *h)
{
	char	   *key;
	bool		type_seen = false,
				kernel_seen = false;

	memset(h, 0, sizeof(*h));
	for (;;)
	{
		if (!next_line(ps))
			fail(ps, "the text ends before the line \"SV\"");
		key = token(ps);
		if (key == NULL)
			fail(ps, "an empty line in the header");
		if (strcmp(key, "SV") == 0)
		{
			line_end(ps, "SV");
			break;
		}
		if (strcmp(key, "svm_type") == 0)
		{
			char	   *v = token(ps);

			once(ps, &type_seen, key);
			if (v == NULL)
				fail(ps, "svm_type expects a type");
			if (strcmp(v, "c_svc") == 0)
				h->type = T_CSVC;
			else if (strcmp(v, "nu_svc") == 0)
				h->type = T_NUSVC;
			else if (strcmp(v, "epsilon_svr") == 0)
				h->type = T_EPSSVR;
			else if (strcmp(v, "nu_svr") == 0)
				h->type = T_NUSVR;
			else if (strcmp(v, "one_class") == 0)
				h->type = T_ONECLASS;
			else
				fail(ps, "unknown svm_type \"" SHOW "\"", v);
		}
		else if (strcmp(key, "kernel_type") == 0)
		{
			char	   *v = token(ps);

			once(ps, &kernel_seen, key);
			if (v == NULL)
				fail(ps, "kernel_type expects a kernel");
			if (strcmp(v, "linear") == 0)
				h->kernel = BK_KERNEL_LINEAR;
			else if (strcmp(v, "polynomial") == 0)
				h->kernel = BK_KERNEL_POLY;
			else if (strcmp(v, "rbf") == 0)
				h->kernel = BK_KERNEL_RBF;
			else if (strcmp(v, "sigmoid") == 0 || strcmp(v, "precomputed") == 0)
				refuse(ps->env, "a LIBSVM model of the %s kernel: budgetkernel's kernels are linear, polynomial and rbf", v);
			else
				fail(ps, "unknown kernel_type \"" SHOW "\"", v);
		}
		else if (strcmp(key, "degree") == 0)
		{
			once(ps, &h->has_degree, key);
			h->degree = integer(ps, key, LLONG_MIN, LLONG_MAX);
		}
		else if (strcmp(key, "gamma") == 0)
		{
			once(ps, &h->has_gamma, key);
			h->gamma = number(ps, key);
		}
		else if (strcmp(key, "coef0") == 0)
		{
			once(ps, &h->has_coef0, key);
			h->coef0 = number(ps, key);
		}
		else if (strcmp(key, "nr_class") == 0)
		{
			once(ps, &h->has_nr_class, key);
			h->nr_class = integer(ps, key, 1, INT32_MAX);
			if (h->nr_class != 2)
				refuse(ps->env, "a LIBSVM model of %lld classes: LIBSVM's multi-class models are one-vs-one, which budgetkernel's models do not hold",
					   h->nr_class);
		}
		else if (strcmp(key, "total_sv") == 0)
		{
			once(ps, &h->has_total_sv, key);
			h->total_sv = integer(ps, key, 0, INT32_MAX);
		}
		else if (strcmp(key, "rho") == 0)
		{
			once(ps, &h->has_rho, key);
			h->rho = number(ps, key);
		}
		else if (strcmp(key, "label") == 0)
		{
			once(ps, &h->has_label, key);
			h->label[0] = integer(ps, key, INT32_MIN, INT32_MAX);
			h->label[1] = integer(ps, key, INT32_MIN, INT32_MAX);
		}
		else if (strcmp(key, "nr_sv") == 0)
		{
			once(ps, &h->has_nr_sv, key);
			h->nr_sv[0] = integer(ps, key, 0, INT32_MAX);
			h->nr_sv[1] = integer(ps, key, 0, INT32_MAX);
		}
		else if (strcmp(key, "probA") == 0)
		{
			once(ps, &h->has_prob_a, key);
			h->prob_a = number(ps, key);
		}
		else if (strcmp(key, "probB") == 0)
		{
			once(ps, &h->has_prob_b, key);
			h->prob_b = number(ps, key);
		}
		else if (strcmp(key, "prob_density_marks") == 0)
		{
			/* a one-class model's probability marks (LIBSVM 3.3x): not kept */
			while (token(ps) != NULL)
				;
			continue;
		}
		else
			fail(ps, "unknown keyword \"" SHOW "\"", key);
		line_end(ps, key);
	}

	if (!type_seen)
		fail(ps, "no svm_type before SV");
	if (!kernel_seen)
		fail(ps, "no kernel_type before SV");
	if (!h->has_total_sv)
		fail(ps, "no total_sv before SV");
	if (!h->has_rho)
		fail(ps, "no rho before SV");
	if ((h->kernel == BK_KERNEL_RBF || h->kernel == BK_KERNEL_POLY) && !h->has_gamma)
		fail(ps, "no gamma for the %s kernel", h->kernel == BK_KERNEL_RBF ? "rbf" : "polynomial");
	if (h->kernel == BK_KERNEL_POLY && !h->has_degree)
		fail(ps, "no degree for the polynomial kernel");
	if (h->type == T_CSVC || h->type == T_NUSVC)
	{
		if (!h->has_label)
			fail(ps, "no label before SV (a classifier's two labels)");
		if (h->label[0] == h->label[1])
			fail(ps, "the two labels are the same (%lld)", h->label[0]);
		if (h->has_nr_sv && h->nr_sv[0] + h->nr_sv[1] != h->total_sv)
			fail(ps, "nr_sv %lld %lld does not sum to total_sv %lld",
				 h->nr_sv[0], h->nr_sv[1], h->total_sv);
		if (h->has_prob_a != h->has_prob_b)
			fail(ps, "probA without probB, or probB without probA");
	}
}

/* the support vectors in sparse form */
typedef struct Svs
{
	int			n;
	double	   *coef;
	size_t	   *start;			/* n + 1 */
	int32_t    *idx;
	double	   *val;
	size_t		nnz;
	size_t		cap;
	int			max_idx;
} Svs;

static void
parse_svs(Parse *ps, const Header *h, size_t text_len, Svs *s)
{
	const BkEnv *env = ps->env;

	/* each line takes at least 2 bytes ("0\n"), each pair 4 ("1:0 ") */
	if ((size_t) h->total_sv > text_len / 2 + 1)
		fail(ps, "total_sv %lld is more than the text's lines", h->total_sv);
	s->n = (int) h->total_sv;
	s->coef = BkAllocArray(env, (size_t) s->n + 1, sizeof(double));
	s->start = BkAllocArray(env, (size_t) s->n + 1, sizeof(size_t));
	s->cap = 16;
	s->idx = BkAllocArray(env, s->cap, sizeof(int32_t));
	s->val = BkAllocArray(env, s->cap, sizeof(double));
	s->nnz = 0;
	s->max_idx = 0;
	for (int j = 0; j < s->n; j++)
	{
		char	   *t;
		long		last = 0;

		if (!next_line(ps))
			fail(ps, "the text ends after %d of total_sv %lld support vectors",
				 j, h->total_sv);
		s->start[j] = s->nnz;
		s->coef[j] = number(ps, "a support vector's coefficient");
		while ((t = token(ps)) != NULL)
		{
			char	   *end;
			long		i;
			double		v;

			i = strtol(t, &end, 10);
			if (end == t || *end != ':' || t[0] == '-' || t[0] == '+')
				fail(ps, "\"" SHOW "\" is not index:value", t);
			if (i < 1 || i > BK_MAX_DIM)
				fail(ps, "index %ld is not between 1 and %d", i, BK_MAX_DIM);
			if (i <= last)
				fail(ps, "index %ld follows index %ld: the indices must ascend", i, last);
			v = BkParseDouble(end + 1, &end);
			if (end == t + 1 || *end != '\0' || !isfinite(v))
				fail(ps, "\"" SHOW "\" is not index:value, a finite value", t);
			last = i;
			if (s->nnz == s->cap)
			{
				s->cap *= 2;
				s->idx = BkReallocArray(env, s->idx, s->cap, sizeof(int32_t));
				s->val = BkReallocArray(env, s->val, s->cap, sizeof(double));
			}
			s->idx[s->nnz] = (int32_t) i;
			s->val[s->nnz] = v;
			s->nnz++;
			if (i > s->max_idx)
				s->max_idx = (int) i;
		}
	}
	s->start[s->n] = s->nnz;
	while (next_line(ps))
		if (token(ps) != NULL)
			fail(ps, "text after the total_sv %lld support vectors", h->total_sv);
}

static void
set_param(const BkEnv *env, BkParams *p, const char *key, const char *s, double v)
{
	BkParamInput in;
	char		err[BK_ERRMSG_LEN];

	memset(&in, 0, sizeof(in));
	if (s != NULL)
	{
		in.type = BK_IN_STRING;
		in.string = s;
	}
	else
	{
		in.type = BK_IN_NUMBER;
		in.number = v;
	}
	if (!BkParamsSet(p, key, &in, err, sizeof(err)))
		refuse(env, "a LIBSVM model whose %s budgetkernel cannot take: %s", key, err);
}

static const char *const kernel_names[] = {NULL, "rbf", "linear", "poly"};

BkModel *
BkImportLibsvm(const BkEnv *env, const char *text, size_t len, int dim)
{
	Parse		ps;
	Header		h;
	Svs			s;
	BkParams	p;
	BkModel    *m;
	BkMachine  *mach;
	double	   *x;
	char		err[BK_ERRMSG_LEN];
	bool		classifier;
	double		sign = 1.0;
	size_t		dense;

	if (len == 0)
		BkRaise(env, BK_ERR_DATA, NULL, "invalid LIBSVM model: the text is empty");
	if (memchr(text, '\0', len) != NULL)
		BkRaise(env, BK_ERR_DATA, NULL, "invalid LIBSVM model: the text holds a NUL byte");
	memset(&ps, 0, sizeof(ps));
	ps.env = env;
	ps.text = BkCopyBytes(env, text, len);
	ps.next = ps.text;
	parse_header(&ps, &h);
	parse_svs(&ps, &h, len, &s);
	classifier = h.type == T_CSVC || h.type == T_NUSVC;

	if (dim == 0)
		dim = s.max_idx > 0 ? s.max_idx : 1;
	else if (dim < s.max_idx)
		BkRaise(env, BK_ERR_PARAM, NULL,
				"dim %d is below the largest index %d of the model's support vectors",
				dim, s.max_idx);

	BkParamsInit(&p);
	set_param(env, &p, "algorithm", classifier || h.type == T_EPSSVR || h.type == T_NUSVR ? "pa" : "ogd", 0);
	set_param(env, &p, "kernel", kernel_names[h.kernel], 0);
	if (h.kernel != BK_KERNEL_LINEAR)
		set_param(env, &p, "gamma", NULL, h.gamma);
	if (h.kernel == BK_KERNEL_POLY)
	{
		set_param(env, &p, "degree", NULL, (double) h.degree);
		set_param(env, &p, "coef0", NULL, h.coef0);
	}
	set_param(env, &p, "max_sv", NULL,
			  s.n > BK_DEFAULT_MAX_SV ? (double) s.n : BK_DEFAULT_MAX_SV);
	p.regression = h.type == T_EPSSVR || h.type == T_NUSVR;
	p.novelty = h.type == T_ONECLASS;
	if (!BkParamsFinish(&p, dim, err, sizeof(err)))
		refuse(env, "a LIBSVM model budgetkernel cannot hold: %s", err);

	/* memory bounded by the text: the dense support vectors */
	if (!BkMulSize((size_t) s.n, (size_t) dim, &dense) ||
		dense / 16 > len + 4096)
		BkRaiseHint(env, BK_ERR_LIMIT, NULL,
					"Give a smaller dim, or import a model of fewer features.",
					"the LIBSVM model's %d support vectors of %d features would take more than 16 dense values per byte of its text",
					s.n, dim);
	if (!BkModelCheckSize(&p, dim, env->max_alloc, err, sizeof(err)))
		BkRaise(env, BK_ERR_LIMIT, NULL, "%s", err);

	m = BkModelCreate(env, &p, dim);
	if (classifier)
	{
		/*
		 * the classes in their canonical (ascending) order, as if learned;
		 * the machine's f is positive for the second, so it is LIBSVM's
		 * decision value when label[0] is the larger label, else minus it
		 */
		BkClassAdd(m, h.label[0], NULL, 0);
		BkClassAdd(m, h.label[1], NULL, 0);
		if (h.label[0] < h.label[1])
			sign = -1.0;
	}
	mach = &m->machines[0];
	if (mach->capacity < s.n)
		BkMachineGrow(env, mach, dim, s.n);
	x = BkAllocArray(env, (size_t) dim, sizeof(double));
	for (int j = 0; j < s.n; j++)
	{
		double		sqx,
					coef;

		memset(x, 0, sizeof(double) * (size_t) dim);
		for (size_t q = s.start[j]; q < s.start[j + 1]; q++)
			x[s.idx[q] - 1] = s.val[q];
		coef = sign * s.coef[j];
		sqx = BkDot(x, x, dim);
		if (!(sqx <= BK_MAX_SQNORM) || !isfinite(BkKernelSelf(&p, sqx)) || !isfinite(coef))
			BkRaise(env, BK_ERR_OVERFLOW, NULL,
					"support vector %d of the LIBSVM model is too large for its kernel", j + 1);
		BkMachineAppend(mach, dim, x, sqx, coef);
	}
	BkFree(env, x);
	if (m->target != NULL)
		BkModelSetTargetScale(m, -h.rho, 1.0);
	if (m->novelty != NULL)
		m->novelty->rho = h.rho;
	/* a classifier's bias, -rho (its f is the decision value times sign) */
	if (classifier && h.rho != 0.0)
	{
		m->bias = BkAllocArray(env, 2, sizeof(double));
		m->bias[1] = -sign * h.rho;
		m->bias[0] = -m->bias[1];
	}
	/* the rows it counts: its SVs, at least one (a classifier's classes are learned) */
	mach->updates = (uint64_t) s.n;
	m->rows_seen = m->rows_updated = (uint64_t) (s.n > 0 ? s.n : 1);
	if (classifier && h.has_prob_a)
	{
		/*
		 * label[0]'s class, whose score is the decision value: LIBSVM's
		 * sigmoid 1 / (1 + exp(A dec + B)); the other's score is -dec,
		 * and (A, -B) gives it the complement
		 */
		int			c0 = sign > 0.0 ? 1 : 0;
		double		A[2] = {h.prob_a, h.prob_a};
		double		B[2];

		B[c0] = h.prob_b;
		B[1 - c0] = -h.prob_b;

		BkModelSetCalibration(m, A, B);
	}

	BkFree(env, s.coef);
	BkFree(env, s.start);
	BkFree(env, s.idx);
	BkFree(env, s.val);
	BkFree(env, ps.text);
	return m;
}
