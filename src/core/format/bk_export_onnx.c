/*
 * bk_export_onnx.c
 *	  A model as an ONNX graph that scores raw rows as the model does
 *	  (doc/export.md), in plain ai.onnx operators, computed in double:
 *
 *	  1. the inputs: a model of features arrays (or bk_sparse rows) takes
 *	     one float tensor "features" [N, d]; a model of named inputs (jsonb
 *	     rows) one tensor per key, [N, 1], float for a numeric key and
 *	     string for a text key.  A missing value is NaN, or "".
 *	  2. the preparation (bk_prep.c, BkPrepApplyArray and BkPrepPut*):
 *	     a numeric input (x - center) / scale, or its fill where x is NaN
 *	     and the model imputes; a text input one column per level of its
 *	     vocabulary, 1 where the value is that level (ai.onnx.ml's
 *	     LabelEncoder gives the level's index, -1 outside it), the columns
 *	     in the model's order (Concat);
 *	  3. the kernel against every support vector of every machine, from
 *	     the dot products as the model computes it (BkKernelFromDot):
 *	     linear x.s; polynomial (gamma x.s + coef0)^degree; Gaussian
 *	     exp(-gamma max(||s||^2 + ||x||^2 - 2 x.s, 0)), ||s||^2 as the model
 *	     keeps it;
 *	  4. the outputs, one matrix product with the coefficients of each
 *	     output column (bk_expansion.c), plus a classifier's bias if it has
 *	     one: a classifier's "scores" [N, C] in
 *	     class order (bk_scores), "label" [N], the first class of the
 *	     largest score (ArgMax, then the class's label: int64 or string),
 *	     and "probabilities" [N, C] of a calibrated model (each class's
 *	     sigmoid 1 / (1 + exp(A s + B)), normalised: BkPlattProbabilities);
 *	     a regressor's "value" [N, 1], mean + sd f (sd folded into the
 *	     coefficients); a novelty detector's
 *	     "novelty" [N, 1], rho - f.  The outputs are float.
 *
 *	  The features arrive as float (ONNX's usual input type), are cast to
 *	  double, and every step after runs in double; the outputs are rounded
 *	  to float once.  No scalar multiplies a matrix product: ONNX Runtime's
 *	  extended optimisations fuse that pair into a FusedMatMul whose alpha
 *	  is a float, which would round gamma or sd to float.  Refused, with what is named: text labels not known
 *	  to be UTF-8 (a model of 0.1.0), a text input whose vocabulary holds
 *	  the empty string (the graph's missing text), a key named as one of
 *	  the graph's outputs, empty or starting with "_bk_" (the graph's own
 *	  names).
 */
#include "bk_export.h"
#include "bk_onnx.h"
#include "bk_target.h"

#include <stdio.h>

#include <string.h>

static void
refuse(const BkModel *m, const char *fmt, const char *what)
{
	char		msg[BK_ERRMSG_LEN];

	snprintf(msg, sizeof(msg), fmt, what);
	BkRaise(&m->env, BK_ERR_UNSUPPORTED, NULL, "format \"onnx\" cannot express %s", msg);
}

/* a scalar double constant */
static void
scalar(BkOnnx *g, BkOnnxName name, double v)
{
	BkOnnxTemp(g, name);
	BkOnnxDoubles(g, name, NULL, 0, &v);
}

/* a row [1, n] of doubles */
static void
row_const(BkOnnx *g, BkOnnxName name, const double *v, int n)
{
	int64_t		dims[2] = {1, n};

	BkOnnxTemp(g, name);
	BkOnnxDoubles(g, name, dims, 2, v);
}

/* out = op(a, b), a fresh name */
static void
binary(BkOnnx *g, const char *op, BkOnnxName out, const char *a, const char *b)
{
	BkOnnxTemp(g, out);
	BkOnnxNode(g, op, "", NULL, out, a, b, NULL);
}

static void
unary(BkOnnx *g, const char *op, BkOnnxName out, const char *a)
{
	BkOnnxTemp(g, out);
	BkOnnxNode(g, op, "", NULL, out, a, NULL);
}

static void
cast(BkOnnx *g, const char *out, const char *in, int to)
{
	BkPb		attrs;

	BkPbInit(&attrs, g->env);
	BkOnnxAttrInt(&attrs, "to", to);
	BkOnnxNode(g, "Cast", "", &attrs, out, in, NULL);
}

/* out = sum of in over axis 1, kept as a column [N, 1] */
static void
row_sum(BkOnnx *g, BkOnnxName out, const char *in)
{
	BkOnnxName	axes;
	int64_t		one = 1,
				dims[1] = {1};
	BkPb		attrs;

	BkOnnxTemp(g, axes);
	BkOnnxInt64s(g, axes, dims, 1, &one);
	BkPbInit(&attrs, g->env);
	BkOnnxAttrInt(&attrs, "keepdims", 1);
	BkOnnxTemp(g, out);
	BkOnnxNode(g, "ReduceSum", "", &attrs, out, in, axes, NULL);
}

/*
 * Numeric columns x (double [N, n]) prepared: (x - center) / scale, the
 * fill where x is NaN when the model imputes
 */
static void
prepare_numeric(BkOnnx *g, const BkPrep *p, BkOnnxName out, const char *x,
				const double *center, const double *scale, const double *fill,
				int n)
{
	BkOnnxName	c,
				s,
				d,
				z;

	row_const(g, c, center, n);
	row_const(g, s, scale, n);
	binary(g, "Sub", d, x, c);
	binary(g, "Div", z, d, s);
	if (p->impute == BK_IMPUTE_NONE)
	{
		memcpy(out, z, sizeof(BkOnnxName));
		return;
	}
	{
		BkOnnxName	f,
					nan;

		row_const(g, f, fill, n);
		unary(g, "IsNaN", nan, x);
		BkOnnxTemp(g, out);
		BkOnnxNode(g, "Where", "", NULL, out, nan, f, z, NULL);
	}
}

/* a features array's inputs: "features" [N, inputs], prepared into out */
static void
array_inputs(BkOnnx *g, const BkModel *m, BkOnnxName out)
{
	const BkPrep *p = m->prep;
	int			n = p ? p->n_inputs : m->dim;
	BkOnnxName	x;

	BkOnnxInput(g, "features", BK_ONNX_FLOAT, n);
	BkOnnxTemp(g, x);
	cast(g, x, "features", BK_ONNX_DOUBLE);
	if (p == NULL)
	{
		memcpy(out, x, sizeof(BkOnnxName));
		return;
	}
	{
		double	   *v = BkAllocArray(&m->env, 3 * (size_t) n, sizeof(double));

		for (int i = 0; i < n; i++)
		{
			if (p->inputs[i].kind != BK_INPUT_NUMERIC || p->inputs[i].offset != i)
				BkRaise(&m->env, BK_ERR_INTERNAL, NULL,
						"an array input that is not column %d", i);
			v[i] = p->inputs[i].center;
			v[n + i] = p->inputs[i].scale;
			v[2 * n + i] = p->inputs[i].fill;
		}
		prepare_numeric(g, p, out, x, v, v + n, v + 2 * n, n);
		BkFree(&m->env, v);
	}
}

static const char *const outputs[] = {"label", "scores", "probabilities", "value", "novelty"};

/* a key that cannot be an input's name in the graph */
static void
check_key(const BkModel *m, const BkPrepInput *in)
{
	if (in->name_len == 0)
		refuse(m, "%s", "a model with an empty key (ONNX's name of an absent input)");
	if (strlen(in->name) != in->name_len)
		refuse(m, "%s", "a key holding a NUL byte");
	if (strncmp(in->name, "_bk_", 4) == 0)
		refuse(m, "the key \"%s\" (the graph's own names start with \"_bk_\")", in->name);
	for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++)
		if (strcmp(in->name, outputs[i]) == 0)
			refuse(m, "the key \"%s\" (the name of one of the graph's outputs)", in->name);
}

/* a text input: one column per level, 1 where the value is that level */
static void
one_hot(BkOnnx *g, const BkModel *m, const BkPrepInput *in, BkOnnxName out)
{
	int			L = in->n_levels;
	int64_t    *index = BkAllocArray(&m->env, (size_t) L, sizeof(int64_t));
	size_t	   *len = BkAllocArray(&m->env, (size_t) L, sizeof(size_t));
	BkOnnxName	code,
				levels,
				eq;
	BkPb		attrs;
	int64_t		dims[2] = {1, L};

	for (int j = 0; j < L; j++)
	{
		if (in->level_len[j] == 0)
			refuse(m, "the text key \"%s\" whose values include the empty string (the graph's missing text)",
				   in->name);
		index[j] = j;
		len[j] = in->level_len[j];
	}
	BkPbInit(&attrs, g->env);
	BkOnnxAttrStrings(&attrs, "keys_strings", L, (const char *const *) in->levels, len);
	BkOnnxAttrInts(&attrs, "values_int64s", L, index);
	BkOnnxAttrInt(&attrs, "default_int64", -1);
	BkOnnxTemp(g, code);
	BkOnnxNode(g, "LabelEncoder", BK_ONNX_ML, &attrs, code, in->name, NULL);
	BkOnnxTemp(g, levels);
	BkOnnxInt64s(g, levels, dims, 2, index);
	binary(g, "Equal", eq, code, levels);
	BkOnnxTemp(g, out);
	cast(g, out, eq, BK_ONNX_DOUBLE);
	BkFree(&m->env, index);
	BkFree(&m->env, len);
}

/* named inputs, one per key, prepared and concatenated into out */
static void
named_inputs(BkOnnx *g, const BkModel *m, BkOnnxName out)
{
	const BkPrep *p = m->prep;
	BkOnnxName *cols = BkAllocArray(&m->env, (size_t) p->n_inputs, sizeof(BkOnnxName));
	BkPb		node;
	int			n = 0;

	for (int i = 0; i < p->n_inputs; i++)
	{
		const BkPrepInput *in = &p->inputs[i];

		check_key(m, in);
		if (in->kind == BK_INPUT_NUMERIC)
		{
			BkOnnxName	x;

			BkOnnxInput(g, in->name, BK_ONNX_FLOAT, 1);
			BkOnnxTemp(g, x);
			cast(g, x, in->name, BK_ONNX_DOUBLE);
			prepare_numeric(g, p, cols[n++], x, &in->center, &in->scale, &in->fill, 1);
		}
		else
		{
			BkOnnxInput(g, in->name, BK_ONNX_STRING, 1);
			if (in->n_levels > 0)
				one_hot(g, m, in, cols[n++]);
		}
	}
	/* the inputs in name order are the columns in order (their offsets) */
	{
		const char **in = BkAllocArray(&m->env, (size_t) n + 1, sizeof(char *));

		for (int i = 0; i < n; i++)
			in[i] = cols[i];
		BkPbInit(&node, g->env);
		BkOnnxAttrInt(&node, "axis", 1);
		BkOnnxTemp(g, out);
		BkOnnxNodeList(g, "Concat", "", &node, out, n, in);
		BkFree(&m->env, in);
	}
	BkFree(&m->env, cols);
}

/* the kernel values of the prepared rows x against e's SVs, [N, n_sv] */
static void
kernel(BkOnnx *g, const BkModel *m, const BkExpansion *e, const char *x,
	   BkOnnxName out)
{
	const BkParams *p = &m->params;
	int			n = e->n_sv > 0 ? e->n_sv : 1;
	int64_t		dims[2] = {e->dim, n};
	double	   *st = BkAllocArray(&m->env, (size_t) e->dim * (size_t) n, sizeof(double));
	BkOnnxName	svt,
				dots;

	/* the SVs transposed, [dim, n]; no SV: one of zeros, coefficient 0 */
	for (int j = 0; j < e->n_sv; j++)
		for (int i = 0; i < e->dim; i++)
			st[(size_t) i * (size_t) n + (size_t) j] = e->sv[j][i];
	BkOnnxTemp(g, svt);
	BkOnnxDoubles(g, svt, dims, 2, st);
	BkFree(&m->env, st);
	binary(g, "MatMul", dots, x, svt);

	switch (p->kernel)
	{
		case BK_KERNEL_LINEAR:
			memcpy(out, dots, sizeof(BkOnnxName));
			return;
		case BK_KERNEL_POLY:
			{
				BkOnnxName	gm,
							c0,
							deg,
							a,
							b;
				double	   *gv = BkAllocArray(&m->env, (size_t) n, sizeof(double));

				/*
				 * gamma as a row, not a scalar: ONNX Runtime fuses a
				 * matrix product times a scalar into FusedMatMul, whose
				 * alpha is a float
				 */
				for (int j = 0; j < n; j++)
					gv[j] = p->gamma;
				row_const(g, gm, gv, n);
				BkFree(&m->env, gv);
				scalar(g, c0, p->coef0);
				scalar(g, deg, (double) p->degree);
				binary(g, "Mul", a, dots, gm);
				binary(g, "Add", b, a, c0);
				binary(g, "Pow", out, b, deg);
				return;
			}
		case BK_KERNEL_RBF:
			{
				BkOnnxName	sq,
							xx,
							sqx,
							twodot,
							s,
							d,
							zero,
							d0,
							ng,
							z;

				row_const(g, sq, e->sqnorm, n);
				binary(g, "Mul", xx, x, x);
				row_sum(g, sqx, xx);
				/* 2 x.s as x.s + x.s, the same value (no scalar product fused) */
				binary(g, "Add", twodot, dots, dots);
				binary(g, "Add", s, sq, sqx);
				binary(g, "Sub", d, s, twodot);
				scalar(g, zero, 0.0);
				binary(g, "Max", d0, d, zero);
				scalar(g, ng, -p->gamma);
				binary(g, "Mul", z, ng, d0);
				unary(g, "Exp", out, z);
				return;
			}
	}
	refuse(m, "%s", "the model's kernel");
}

/* a classifier's outputs from its class scores s (double [N, C]) */
static void
classifier_outputs(BkOnnx *g, const BkModel *m, const char *s)
{
	int			C = m->n_classes;
	BkOnnxName	idx,
				labels;
	BkPb		attrs;

	BkOnnxOutput(g, "label", m->text_labels ? BK_ONNX_STRING : BK_ONNX_INT64, -1);
	BkOnnxOutput(g, "scores", BK_ONNX_FLOAT, C);
	cast(g, "scores", s, BK_ONNX_FLOAT);

	/* the first class of the largest score */
	BkPbInit(&attrs, g->env);
	BkOnnxAttrInt(&attrs, "axis", 1);
	BkOnnxAttrInt(&attrs, "keepdims", 0);
	BkOnnxAttrInt(&attrs, "select_last_index", 0);
	BkOnnxTemp(g, idx);
	BkOnnxNode(g, "ArgMax", "", &attrs, idx, s, NULL);
	BkOnnxTemp(g, labels);
	if (m->text_labels)
	{
		size_t	   *len = BkAllocArray(&m->env, (size_t) C, sizeof(size_t));

		for (int c = 0; c < C; c++)
			len[c] = strlen(m->class_names[c]);
		BkOnnxStrings(g, labels, C, (const char *const *) m->class_names, len);
		BkFree(&m->env, len);
	}
	else
	{
		int64_t		dims[1] = {C};

		BkOnnxInt64s(g, labels, dims, 1, m->classes);
	}
	BkPbInit(&attrs, g->env);
	BkOnnxAttrInt(&attrs, "axis", 0);
	BkOnnxNode(g, "Gather", "", &attrs, "label", labels, idx, NULL);

	if (m->platt != NULL)
	{
		double	   *ab = BkAllocArray(&m->env, 2 * (size_t) C, sizeof(double));
		BkOnnxName	a,
					b,
					as,
					z,
					nz,
					sig,
					sum,
					prob;

		for (int c = 0; c < C; c++)
		{
			ab[c] = m->platt[2 * c];
			ab[C + c] = m->platt[2 * c + 1];
		}
		row_const(g, a, ab, C);
		row_const(g, b, ab + C, C);
		BkFree(&m->env, ab);
		binary(g, "Mul", as, a, s);
		binary(g, "Add", z, as, b);
		unary(g, "Neg", nz, z);
		unary(g, "Sigmoid", sig, nz);
		row_sum(g, sum, sig);
		binary(g, "Div", prob, sig, sum);
		BkOnnxOutput(g, "probabilities", BK_ONNX_FLOAT, C);
		cast(g, "probabilities", prob, BK_ONNX_FLOAT);
	}
}

uint8_t *
BkExportOnnx(BkModel *m, size_t *len)
{
	BkOnnx		g;
	BkExpansion e;
	BkOnnxName	x,
				k,
				w,
				f;
	int64_t		dims[2];
	uint8_t    *out;
	bool		classifier = m->target == NULL && m->novelty == NULL;

	if (classifier && m->n_classes == 0)
		refuse(m, "%s", "a classifier trained on no labelled row");
	if (classifier && m->text_labels && !m->labels_utf8)
		refuse(m, "%s", "text labels in the encoding of the database that trained the model (a model of 0.1.0): ONNX strings are UTF-8");

	BkOnnxInit(&g, &m->env);
	if (m->prep != NULL && m->prep->named)
	{
		if (m->prep->dim == 0)
			refuse(m, "%s", "a model of no prepared column");
		named_inputs(&g, m, x);
	}
	else
		array_inputs(&g, m, x);

	BkExpansionOf(m, &e);
	/*
	 * a regressor's value is mean + sd f: sd is folded into the
	 * coefficients rather than multiplied after the matrix product, which
	 * ONNX Runtime would fuse into a FusedMatMul of float alpha
	 */
	if (m->target != NULL)
		for (int j = 0; j < e.n_sv; j++)
			e.coef[j] *= m->target->sd;
	kernel(&g, m, &e, x, k);
	dims[0] = e.n_sv > 0 ? e.n_sv : 1;
	dims[1] = e.n_out;
	BkOnnxTemp(&g, w);
	BkOnnxDoubles(&g, w, dims, 2, e.coef);
	binary(&g, "MatMul", f, k, w);
	if (e.offset != NULL)
	{
		/* a classifier's bias: each class's score adds its own */
		BkOnnxName	b,
					fb;

		row_const(&g, b, e.offset, e.n_out);
		binary(&g, "Add", fb, f, b);
		memcpy(f, fb, sizeof(BkOnnxName));
	}
	BkExpansionFree(m, &e);

	if (classifier)
		classifier_outputs(&g, m, f);
	else if (m->target != NULL)
	{
		BkOnnxName	mean,
					v;

		/* the target's sd is in the coefficients (BkExpansionOf's caller) */
		scalar(&g, mean, m->target->mean);
		binary(&g, "Add", v, mean, f);
		BkOnnxOutput(&g, "value", BK_ONNX_FLOAT, 1);
		cast(&g, "value", v, BK_ONNX_FLOAT);
	}
	else
	{
		BkOnnxName	rho,
					v;

		scalar(&g, rho, m->novelty->rho);
		binary(&g, "Sub", v, rho, f);
		BkOnnxOutput(&g, "novelty", BK_ONNX_FLOAT, 1);
		cast(&g, "novelty", v, BK_ONNX_FLOAT);
	}
	out = BkOnnxFinish(&g, "budgetkernel model: doc/export.md", len);
	BkOnnxFree(&g);
	return out;
}
