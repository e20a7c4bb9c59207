/*
 * bk_model_classes.c
 *	  The classes of a model as rows bring them: a row's label to its class
 *	  (known, new, or refused when declared or frozen), the declared
 *	  classes, and the canonical order.
 *
 *	  The canonical order is integers ascending, text by its bytes (a
 *	  prefix first), or the order of the declared "classes".  It does not
 *	  depend on which label a stream shows first, so two models trained on
 *	  the same labels agree on which class is positive (the last) and on
 *	  the order of their scores, and merging them aligns classes by label.
 *	  A class that arrives is put in its place at once (the machines follow,
 *	  BkModelPermuteClasses); models stored in order of first appearance by
 *	  earlier versions are put in order when decoded.
 *
 *	  Above the model (bk_model.c: room for a class, the permutation of the
 *	  machines, learning a row of a class), the class table (bk_classes.c)
 *	  and the parts (bk_part.h), which it calls; none of them calls it.
 */
#include "bk_part.h"

#include <string.h>

/* Every label of a model has one type, fixed by the first one. */
static void
check_label_type(BkModel *m, bool text)
{
	/* class weights given per label fix the type too */
	if (m->n_classes == 0 && (m->weights == NULL || m->weights->n == 0))
	{
		m->text_labels = text;
		return;
	}
	if (m->text_labels != text)
		BkRaise(&m->env, BK_ERR_DATA,
				text ? "Integer-labelled models learn and predict integer labels." :
				"Text-labelled models learn and predict text labels.",
				"the model has %s labels, got a%s label",
				m->text_labels ? "text" : "integer", text ? " text" : "n integer");
}

/* Move the last class to its canonical place among the others (sorted). */
static int
place_last_class(BkModel *m)
{
	int			n = m->n_classes;
	int			p = n - 1;
	int		   *perm;

	if (m->classes_declared)
		return p;
	while (p > 0 && BkClassCompare(m, n - 1, p - 1) < 0)
		p--;
	if (p == n - 1)
		return p;
	perm = BkAllocArray(&m->env, (size_t) n, sizeof(int));
	for (int i = 0; i < n; i++)
		perm[i] = i < p ? i : (i == p ? n - 1 : i - 1);
	BkModelPermuteClasses(m, perm);
	BkFree(&m->env, perm);
	return p;
}

void
BkModelCanonicalClasses(BkModel *m)
{
	int			n = m->n_classes;
	int		   *perm;
	bool		sorted = true;

	if (m->classes_declared)
		return;
	for (int i = 1; i < n && sorted; i++)
		sorted = BkClassCompare(m, i - 1, i) < 0;
	if (sorted)
		return;
	/* insertion sort of the indices: n is small, and done once a decode */
	perm = BkAllocArray(&m->env, (size_t) n, sizeof(int));
	for (int i = 0; i < n; i++)
	{
		int			k = i;

		while (k > 0 && BkClassCompare(m, i, perm[k - 1]) < 0)
		{
			perm[k] = perm[k - 1];
			k--;
		}
		perm[k] = i;
	}
	BkModelPermuteClasses(m, perm);
	BkFree(&m->env, perm);
}

/*
 * Add a new class, give the model room for it, and put it in its place;
 * returns its index.
 */
static int
add_class(BkModel *m, int64_t label, const char *text, size_t len)
{
	if (m->n_classes >= BK_MAX_CLASSES)
		BkRaiseHint(&m->env, BK_ERR_LIMIT, NULL,
					"A label of that many values may be a number to predict: cast it to float8 to train a regressor (doc/regression.md).",
					"a model has at most %d classes", BK_MAX_CLASSES);
	/* the parts kept per class (a calibration: a new class ends it) */
	for (int i = 0; i < bk_n_parts; i++)
		if (bk_parts[i]->on_new_class)
			bk_parts[i]->on_new_class(m);
	BkModelCheckClassRoom(m, m->n_classes + 1);
	BkClassAppend(m, label, text, len);
	BkModelOnNewClass(m);
	return place_last_class(m);
}

int
BkClassAdd(BkModel *m, int64_t label, const char *text, size_t len)
{
	return add_class(m, label, text, len);
}

static void
check_text_label(BkModel *m, size_t len)
{
	if (len == 0)
		BkRaise(&m->env, BK_ERR_DATA, NULL, "a text label must not be empty");
	if (len > BK_MAX_LABEL_LEN)
		BkRaise(&m->env, BK_ERR_LIMIT, NULL,
				"a text label has at most %d bytes, got %zu", BK_MAX_LABEL_LEN, len);
}

/* The class of a row's label: known, new, or refused when declared. */
static void
learn_label(BkModel *m, const double *x, int64_t label, const char *text,
			size_t len)
{
	int			cls;
	bool		is_new = false;

	if (text)
		check_text_label(m, len);
	check_label_type(m, text != NULL);
	cls = BkClassFind(m, label, text, len);
	if (cls < 0)
	{
		if (m->classes_declared)
		{
			if (text)
				BkRaise(&m->env, BK_ERR_DATA,
						"The \"classes\" parameter lists every label the stream may hold.",
						"label \"%.*s\" is not among the declared classes",
						(int) (len > 64 ? 64 : len), text);
			BkRaise(&m->env, BK_ERR_DATA,
					"The \"classes\" parameter lists every label the stream may hold.",
					"label %lld is not among the declared classes", (long long) label);
		}
		if (m->classes_frozen)
		{
			const char *detail = "A model trained further keeps the classes it was trained with.";
			const char *hint = "To add a class, continue with the override {\"allow_new_classes\": true}.";

			if (text)
				BkRaiseHint(&m->env, BK_ERR_DATA, detail, hint,
							"label \"%.*s\" is not among the model's %d classes",
							(int) (len > 64 ? 64 : len), text, m->n_classes);
			BkRaiseHint(&m->env, BK_ERR_DATA, detail, hint,
						"label %lld is not among the model's %d classes",
						(long long) label, m->n_classes);
		}
		cls = add_class(m, label, text, len);
		is_new = true;
	}
	BkModelLearnClass(m, x, cls, is_new);
}

void
BkModelLearn(BkModel *m, const double *x, int64_t label)
{
	learn_label(m, x, label, NULL, 0);
}

void
BkModelLearnText(BkModel *m, const double *x, const char *label, size_t len)
{
	learn_label(m, x, 0, label, len);
}

static void
declare(BkModel *m, int64_t label, const char *text, size_t len)
{
	if (m->rows_seen > 0 || (m->n_classes > 0 && !m->classes_declared))
		BkRaise(&m->env, BK_ERR_INTERNAL, NULL, "classes must be declared before the first row");
	if (text)
		check_text_label(m, len);
	check_label_type(m, text != NULL);
	if (BkClassFind(m, label, text, len) >= 0)
		BkRaise(&m->env, BK_ERR_PARAM, NULL,
				"parameter \"classes\" lists a label twice");
	add_class(m, label, text, len);
	m->classes_declared = true;
}

void
BkModelDeclareClass(BkModel *m, int64_t label)
{
	declare(m, label, NULL, 0);
}

void
BkModelDeclareClassText(BkModel *m, const char *label, size_t len)
{
	declare(m, 0, label, len);
}
