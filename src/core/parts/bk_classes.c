/*
 * bk_classes.c
 *	  The class table of a model: integer or text labels, their canonical
 *	  order and their look-up.  It calls nothing of the model: putting a
 *	  row's label in the table, with the growth of the model when a class
 *	  is new, is bk_model_classes.c's.
 *
 *	  The canonical order is integers ascending, text by its bytes (a
 *	  prefix first), or the order of the declared "classes".  It does not
 *	  depend on which label a stream shows first, so two models trained on
 *	  the same labels agree on which class is positive (the last) and on
 *	  the order of their scores, and merging them aligns classes by label.
 *	  A class that arrives is put in its place at once (the machines follow,
 *	  BkModelPermuteClasses); models stored in order of first appearance by
 *	  earlier versions are put in order when decoded.
 */
#include "bk_internal.h"

#include <string.h>

void
BkModelFreeClasses(BkModel *m)
{
	if (m->class_names != NULL)
		for (int i = 0; i < m->n_classes; i++)
			BkFree(&m->env, m->class_names[i]);
	BkFree(&m->env, m->class_names);
	BkFree(&m->env, m->classes);
	BkFree(&m->env, m->scores);
	m->class_names = NULL;
	m->classes = NULL;
	m->scores = NULL;
	m->n_classes = m->class_cap = 0;
}

/* Append a class to the table (text when text != NULL). */
void
BkClassAppend(BkModel *m, int64_t label, const char *text, size_t len)
{
	if (m->n_classes == m->class_cap)
	{
		int			cap = m->class_cap < 4 ? 4 : 2 * m->class_cap;

		if (cap > BK_MAX_CLASSES)
			cap = BK_MAX_CLASSES;
		m->classes = BkReallocArray(&m->env, m->classes, cap, sizeof(int64_t));
		m->class_names = BkReallocArray(&m->env, m->class_names, cap, sizeof(char *));
		m->scores = BkReallocArray(&m->env, m->scores, cap, sizeof(double));
		m->class_cap = cap;
	}
	m->classes[m->n_classes] = text ? 0 : label;
	m->class_names[m->n_classes] = NULL;
	if (text)
	{
		char	   *s = BkAllocArray(&m->env, len + 1, 1);

		memcpy(s, text, len);
		s[len] = '\0';
		m->class_names[m->n_classes] = s;
	}
	m->n_classes++;
}

int
BkClassCompare(const BkModel *m, int i, int j)
{
	if (m->text_labels)
	{
		const char *a = m->class_names[i];
		const char *b = m->class_names[j];

		return BkBytesCompare(a, strlen(a), b, strlen(b));
	}
	return m->classes[i] < m->classes[j] ? -1 : (m->classes[i] > m->classes[j] ? 1 : 0);
}

int
BkModelClassIndex(const BkModel *m, int64_t label, const char *text, size_t len)
{
	return BkClassFind(m, label, text, len);
}

int
BkClassFind(const BkModel *m, int64_t label, const char *text, size_t len)
{
	for (int i = 0; i < m->n_classes; i++)
	{
		if (text == NULL ? m->classes[i] == label :
			(strlen(m->class_names[i]) == len &&
			 memcmp(m->class_names[i], text, len) == 0))
			return i;
	}
	return -1;
}
