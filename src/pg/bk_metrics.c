/*
 * bk_metrics.c
 *	  bk_metrics(actual, predicted [, score | probabilities]): a
 *	  classification report as jsonb — rows, accuracy, balanced accuracy,
 *	  macro precision, recall and F1, per-class precision, recall, F1 and
 *	  support, the confusion matrix; with a score the ROC AUC of two
 *	  classes; with one probability per class (bk_probabilities) the log
 *	  loss, the Brier score and the ROC AUC — for int8 or text labels.  PARALLEL SAFE: the state is a confusion matrix (and the
 *	  scores with their actual classes), which partial states add up
 *	  (combine), and which travels between processes as bytes (serialize,
 *	  deserialize).
 *
 *	  The state keeps the labels in order of first appearance with a
 *	  sorted index for lookup (binary search), and the matrix with a
 *	  capacity that doubles, so a row costs O(log classes) and a new class
 *	  O(classes) amortised.  The report lists the classes in canonical
 *	  order: integers ascending, text by bytes.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "libpq/pqformat.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "bk_pg.h"
#include "bk_label.h"

PG_FUNCTION_INFO_V1(bk_metrics_trans);
PG_FUNCTION_INFO_V1(bk_metrics_combine);
PG_FUNCTION_INFO_V1(bk_metrics_serialize);
PG_FUNCTION_INFO_V1(bk_metrics_deserialize);
PG_FUNCTION_INFO_V1(bk_metrics_final);

/* the most classes a report takes: its confusion matrix has n^2 cells */
#define BK_METRICS_MAX_CLASSES 1024

typedef struct MetricsState
{
	bool		text_labels;
	int			n;				/* classes seen */
	int			cap;			/* matrix capacity (cap x cap) */
	int64	   *ints;			/* labels in order of appearance (int8) */
	char	  **texts;			/* or (text), NUL-terminated */
	int		   *sorted;			/* class indexes in canonical order */
	int64	   *counts;			/* cap x cap: [actual * cap + predicted] */
	int64		rows;
	int64		skipped;		/* a NULL label (or score) */
	/* bk_metrics(actual, predicted, score): every score and its actual class */
	bool		scored;
	int64		n_scores;
	int64		cap_scores;
	double	   *scores;
	int32	   *score_class;
	/*
	 * bk_metrics(actual, predicted, probabilities): every row's prob_len
	 * probabilities (one per class, in canonical order) and actual class
	 */
	bool		probs_given;
	int			prob_len;
	int64		n_probs;
	int64		cap_probs;
	double	   *probs;
	int32	   *prob_class;
} MetricsState;

/* the most scores a report keeps: 12 bytes each, under 1 GB */
#define BK_METRICS_MAX_SCORES ((int64) (MaxAllocSize / sizeof(double)))

/* Keep one score with its actual class (in the state's context) */
static void
add_score(MetricsState *s, double score, int cls)
{
	if (s->n_scores == s->cap_scores)
	{
		int64		cap = s->cap_scores == 0 ? 1024 : 2 * s->cap_scores;

		if (s->n_scores >= BK_METRICS_MAX_SCORES)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("bk_metrics with scores takes at most %lld rows",
							(long long) BK_METRICS_MAX_SCORES),
					 errhint("Score a sample, or call bk_metrics without the score.")));
		if (cap > BK_METRICS_MAX_SCORES)
			cap = BK_METRICS_MAX_SCORES;
		s->scores = s->scores ? repalloc(s->scores, sizeof(double) * cap) :
			palloc(sizeof(double) * cap);
		s->score_class = s->score_class ? repalloc(s->score_class, sizeof(int32) * cap) :
			palloc(sizeof(int32) * cap);
		s->cap_scores = cap;
	}
	s->scores[s->n_scores] = score;
	s->score_class[s->n_scores] = cls;
	s->n_scores++;
}

/* Keep one row's probabilities (n of them) with its actual class */
static void
add_probs(MetricsState *s, const double *p, int n, int cls, int64 row)
{
	if (s->prob_len == 0)
		s->prob_len = n;
	else if (n != s->prob_len)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("bk_metrics: row %lld has %d probabilities, the rows before %d",
						(long long) row, n, s->prob_len)));
	if (s->n_probs == s->cap_probs)
	{
		int64		cap = s->cap_probs == 0 ? 1024 : 2 * s->cap_probs;

		if ((s->n_probs + 1) * (int64) n > BK_METRICS_MAX_SCORES)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("bk_metrics with probabilities takes at most %lld values",
							(long long) BK_METRICS_MAX_SCORES),
					 errhint("Score a sample, or call bk_metrics without the probabilities.")));
		if (cap * (int64) n > BK_METRICS_MAX_SCORES)
			cap = BK_METRICS_MAX_SCORES / n;
		s->probs = s->probs ? repalloc(s->probs, sizeof(double) * cap * n) :
			palloc(sizeof(double) * cap * n);
		s->prob_class = s->prob_class ? repalloc(s->prob_class, sizeof(int32) * cap) :
			palloc(sizeof(int32) * cap);
		s->cap_probs = cap;
	}
	memcpy(s->probs + s->n_probs * n, p, sizeof(double) * n);
	s->prob_class[s->n_probs] = cls;
	s->n_probs++;
}

/* A row's probabilities: a one-dimensional float8[] of values in [0, 1] */
static const double *
read_probs(ArrayType *a, int64 row, int *n)
{
	const double *p;

	if (ARR_NDIM(a) != 1 || ARR_HASNULL(a) || ARR_ELEMTYPE(a) != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("bk_metrics: the probabilities of row %lld must be a one-dimensional float8[] without NULLs",
						(long long) row)));
	*n = ARR_DIMS(a)[0];
	/* no NULL bitmap: the data follow the header (ARR_DATA_PTR draws -Wsign-compare) */
	p = (const double *) ((const char *) a + ARR_OVERHEAD_NONULLS(1));
	for (int i = 0; i < *n; i++)
		if (!(p[i] >= 0.0 && p[i] <= 1.0))
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("bk_metrics: probability %d of row %lld is %g, not in [0, 1]",
							i + 1, (long long) row, p[i])));
	return p;
}

static int
compare_class(const MetricsState *s, int a, int64 ia, const char *ta)
{
	if (s->text_labels)
		return strcmp(s->texts[a], ta);
	return s->ints[a] < ia ? -1 : (s->ints[a] > ia ? 1 : 0);
}

/* position in s->sorted where the label is or would go; *found */
static int
search(const MetricsState *s, int64 ia, const char *ta, bool *found)
{
	int			lo = 0,
				hi = s->n;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;
		int			c = compare_class(s, s->sorted[mid], ia, ta);

		if (c == 0)
		{
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

/* The class index of a label, added if new (in the state's context) */
static int
class_of(MetricsState *s, int64 ia, const char *ta)
{
	bool		found;
	int			pos = search(s, ia, ta, &found);
	int			idx;

	if (found)
		return s->sorted[pos];
	if (s->n >= BK_METRICS_MAX_CLASSES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bk_metrics takes at most %d classes", BK_METRICS_MAX_CLASSES),
				 errhint("For numbers, cast both columns to float8: bk_metrics(actual::float8, predicted::float8) is a regression report.")));
	if (s->n == s->cap)
	{
		int			cap = s->cap == 0 ? 4 : 2 * s->cap;
		int64	   *counts = palloc0(sizeof(int64) * (Size) cap * cap);

		for (int a = 0; a < s->n; a++)
			memcpy(counts + (Size) a * cap, s->counts + (Size) a * s->cap,
				   sizeof(int64) * s->n);
		if (s->counts)
			pfree(s->counts);
		s->counts = counts;
		if (s->text_labels)
			s->texts = s->texts ? repalloc(s->texts, sizeof(char *) * cap) :
				palloc(sizeof(char *) * cap);
		else
			s->ints = s->ints ? repalloc(s->ints, sizeof(int64) * cap) :
				palloc(sizeof(int64) * cap);
		s->sorted = s->sorted ? repalloc(s->sorted, sizeof(int) * cap) :
			palloc(sizeof(int) * cap);
		s->cap = cap;
	}
	idx = s->n++;
	if (s->text_labels)
		s->texts[idx] = pstrdup(ta);
	else
		s->ints[idx] = ia;
	memmove(s->sorted + pos + 1, s->sorted + pos, sizeof(int) * (idx - pos));
	s->sorted[pos] = idx;
	return idx;
}

static MetricsState *
new_state(MemoryContext agg, bool text_labels)
{
	MetricsState *s = MemoryContextAllocZero(agg, sizeof(MetricsState));

	s->text_labels = text_labels;
	return s;
}

/* A label argument as the state keeps it */
static void
read_label(const MetricsState *s, Datum d, int64 *ia, char **ta)
{
	if (s->text_labels)
		*ta = text_to_cstring(DatumGetTextPP(d));
	else
		*ia = DatumGetInt64(d);
}

/*
 * Count one row with non-NULL labels (int8 Datums or text) and, when the
 * report is scored or has probabilities, its extra argument
 */
static void
metrics_row(MetricsState *s, MemoryContext agg, Datum actual, Datum predicted, Datum extra)
{
	MemoryContext old;
	int64		ia = 0,
				ip = 0;
	char	   *ta = NULL,
			   *tp = NULL;
	int			a,
				p;

	if (s->scored && isnan(DatumGetFloat8(extra)))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("bk_metrics: a score is NaN"),
				 errdetail("Row %lld of the report.", (long long) (s->rows + s->skipped + 1))));
	old = MemoryContextSwitchTo(agg);
	read_label(s, actual, &ia, &ta);
	read_label(s, predicted, &ip, &tp);
	a = class_of(s, ia, ta);
	p = class_of(s, ip, tp);
	MemoryContextSwitchTo(old);
	if (ta)
		pfree(ta);
	if (tp)
		pfree(tp);
	s->counts[(Size) a * s->cap + p]++;
	s->rows++;
	if (s->scored)
	{
		old = MemoryContextSwitchTo(agg);
		add_score(s, DatumGetFloat8(extra), a);
		MemoryContextSwitchTo(old);
	}
	if (s->probs_given)
	{
		int			n;
		const double *pr = read_probs(DatumGetArrayTypeP(extra), s->rows + s->skipped, &n);

		old = MemoryContextSwitchTo(agg);
		add_probs(s, pr, n, a, s->rows + s->skipped);
		MemoryContextSwitchTo(old);
	}
}


/*
 * bk_metrics over bk_label (bk_metrics_label.c): a new state, one row, or
 * rows skipped; extra is 0 (none), 1 (a score) or 2 (probabilities)
 */
void *
BkPgMetricsNew(MemoryContext agg, bool text_labels, int extra)
{
	MetricsState *s = new_state(agg, text_labels);

	s->scored = extra == 1;
	s->probs_given = extra == 2;
	return s;
}

void
BkPgMetricsRow(void *state, MemoryContext agg, Datum actual, Datum predicted, Datum extra)
{
	metrics_row((MetricsState *) state, agg, actual, predicted, extra);
}

void
BkPgMetricsSkip(void *state, int64 n)
{
	((MetricsState *) state)->skipped += n;
}

/*
 * bk_metrics(actual, predicted [, score]) transition function: count the
 * pair (and keep the score); a row with a NULL label or score is skipped
 * and counted
 */
Datum
bk_metrics_trans(PG_FUNCTION_ARGS)
{
	MemoryContext agg;
	MetricsState *s;

	if (!AggCheckCallContext(fcinfo, &agg))
		elog(ERROR, "bk_metrics_trans called in non-aggregate context");
	/* the actual and predicted labels at least (a generic caller may pass fewer) */
	if (PG_ARGISNULL(0))
		BkPgCheckNargs(fcinfo, "bk_metrics");
	if (PG_NARGS() < 3)
		elog(ERROR, "bk_metrics_trans: called with %d arguments", PG_NARGS());
	s = PG_ARGISNULL(0) ? new_state(agg, BkPgArgType(fcinfo, 1) == TEXTOID) :
		(MetricsState *) PG_GETARG_POINTER(0);
	if (PG_NARGS() > 3)
	{
		if (BkPgArgType(fcinfo, 3) == FLOAT8ARRAYOID)
			s->probs_given = true;
		else
			s->scored = true;
	}
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || (PG_NARGS() > 3 && PG_ARGISNULL(3)))
	{
		s->skipped++;
		PG_RETURN_POINTER(s);
	}
	if (BkPgArgType(fcinfo, 1) == INT4OID)
		metrics_row(s, agg, Int64GetDatum(PG_GETARG_INT32(1)), Int64GetDatum(PG_GETARG_INT32(2)),
					PG_NARGS() > 3 ? PG_GETARG_DATUM(3) : (Datum) 0);
	else
		metrics_row(s, agg, PG_GETARG_DATUM(1), PG_GETARG_DATUM(2),
					PG_NARGS() > 3 ? PG_GETARG_DATUM(3) : (Datum) 0);
	PG_RETURN_POINTER(s);
}

/* Add partial state b to a (both in the aggregate's context) */
Datum
bk_metrics_combine(PG_FUNCTION_ARGS)
{
	MemoryContext agg;
	MemoryContext old;
	MetricsState *a,
			   *b;
	int		   *map;

	if (!AggCheckCallContext(fcinfo, &agg))
		elog(ERROR, "bk_metrics_combine called in non-aggregate context");
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	b = (MetricsState *) PG_GETARG_POINTER(1);
	old = MemoryContextSwitchTo(agg);
	if (PG_ARGISNULL(0))
		a = new_state(agg, b->text_labels);
	else
		a = (MetricsState *) PG_GETARG_POINTER(0);
	map = palloc(sizeof(int) * Max(b->n, 1));
	for (int i = 0; i < b->n; i++)
		map[i] = class_of(a, b->text_labels ? 0 : b->ints[i],
						  b->text_labels ? b->texts[i] : NULL);
	for (int i = 0; i < b->n; i++)
		for (int j = 0; j < b->n; j++)
			a->counts[(Size) map[i] * a->cap + map[j]] += b->counts[(Size) i * b->cap + j];
	a->rows += b->rows;
	a->skipped += b->skipped;
	a->scored |= b->scored;
	for (int64 i = 0; i < b->n_scores; i++)
		add_score(a, b->scores[i], map[b->score_class[i]]);
	a->probs_given |= b->probs_given;
	for (int64 i = 0; i < b->n_probs; i++)
		add_probs(a, b->probs + i * b->prob_len, b->prob_len, map[b->prob_class[i]],
				  a->rows + a->skipped);
	pfree(map);
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(a);
}

/* The state as bytes: label kind, counts, labels, the n x n matrix */
Datum
bk_metrics_serialize(PG_FUNCTION_ARGS)
{
	MetricsState *s = (MetricsState *) PG_GETARG_POINTER(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbyte(&buf, s->text_labels ? 1 : 0);
	pq_sendint32(&buf, s->n);
	pq_sendint64(&buf, s->rows);
	pq_sendint64(&buf, s->skipped);
	for (int i = 0; i < s->n; i++)
	{
		if (s->text_labels)
			pq_sendstring(&buf, s->texts[i]);
		else
			pq_sendint64(&buf, s->ints[i]);
	}
	for (int i = 0; i < s->n; i++)
		for (int j = 0; j < s->n; j++)
			pq_sendint64(&buf, s->counts[(Size) i * s->cap + j]);
	pq_sendbyte(&buf, s->scored ? 1 : 0);
	pq_sendint64(&buf, s->n_scores);
	for (int64 i = 0; i < s->n_scores; i++)
	{
		pq_sendfloat8(&buf, s->scores[i]);
		pq_sendint32(&buf, s->score_class[i]);
	}
	pq_sendbyte(&buf, s->probs_given ? 1 : 0);
	pq_sendint32(&buf, s->prob_len);
	pq_sendint64(&buf, s->n_probs);
	for (int64 i = 0; i < s->n_probs; i++)
	{
		for (int k = 0; k < s->prob_len; k++)
			pq_sendfloat8(&buf, s->probs[i * s->prob_len + k]);
		pq_sendint32(&buf, s->prob_class[i]);
	}
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
bk_metrics_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *bytes = PG_GETARG_BYTEA_PP(0);
	MemoryContext agg;
	MemoryContext old;
	StringInfoData buf;
	MetricsState *s;
	int			n;

	if (!AggCheckCallContext(fcinfo, &agg))
		elog(ERROR, "bk_metrics_deserialize called in non-aggregate context");
	initStringInfo(&buf);
	appendBinaryStringInfo(&buf, VARDATA_ANY(bytes), VARSIZE_ANY_EXHDR(bytes));
	old = MemoryContextSwitchTo(agg);
	s = new_state(agg, pq_getmsgbyte(&buf) == 1);
	n = pq_getmsgint(&buf, 4);
	s->rows = pq_getmsgint64(&buf);
	s->skipped = pq_getmsgint64(&buf);
	for (int i = 0; i < n; i++)
	{
		if (s->text_labels)
			(void) class_of(s, 0, pq_getmsgstring(&buf));
		else
			(void) class_of(s, pq_getmsgint64(&buf), NULL);
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			s->counts[(Size) i * s->cap + j] = pq_getmsgint64(&buf);
	s->scored = pq_getmsgbyte(&buf) == 1;
	{
		int64		ns = pq_getmsgint64(&buf);

		for (int64 i = 0; i < ns; i++)
		{
			double		sc = pq_getmsgfloat8(&buf);
			int32		c = pq_getmsgint(&buf, 4);

			if (c < 0 || c >= s->n)
				elog(ERROR, "invalid partial bk_metrics state");
			add_score(s, sc, c);
		}
	}
	s->probs_given = pq_getmsgbyte(&buf) == 1;
	{
		int			len = pq_getmsgint(&buf, 4);
		int64		np = pq_getmsgint64(&buf);
		double	   *p;

		if (len < 0 || len > BK_METRICS_MAX_CLASSES || (np > 0 && len == 0))
			elog(ERROR, "invalid partial bk_metrics state");
		p = palloc(sizeof(double) * Max(len, 1));
		for (int64 i = 0; i < np; i++)
		{
			int32		c;

			for (int k = 0; k < len; k++)
				p[k] = pq_getmsgfloat8(&buf);
			c = pq_getmsgint(&buf, 4);
			if (c < 0 || c >= s->n)
				elog(ERROR, "invalid partial bk_metrics state");
			add_probs(s, p, len, c, s->rows);
		}
		pfree(p);
	}
	pq_getmsgend(&buf);
	MemoryContextSwitchTo(old);
	pfree(buf.data);
	PG_RETURN_POINTER(s);
}

static void
push_label(JsonbParseState **ps, JsonbIteratorToken tok, const MetricsState *s, int c)
{
	if (s->text_labels)
		bk_push_string(ps, tok, s->texts[c]);
	else
		bk_push_int64(ps, tok, s->ints[c]);
}

/* num / den, or null when den is 0 (an undefined ratio) */
static void
push_ratio(JsonbParseState **ps, double num, double den)
{
	if (den > 0)
		bk_push_double(ps, WJB_VALUE, num / den);
	else
		bk_push_null(ps, WJB_VALUE);
}

/* a score and whether its row's actual class is the positive one */
typedef struct ScoredRow
{
	double		score;
	bool		positive;
} ScoredRow;

static int
cmp_scored(const void *a, const void *b)
{
	double		x = ((const ScoredRow *) a)->score;
	double		y = ((const ScoredRow *) b)->score;

	return x < y ? -1 : (x > y ? 1 : 0);
}

/*
 * ROC AUC of the scores for the positive class pos (the Mann-Whitney U
 * statistic): the probability that a positive row scores above a negative
 * one, ties counting one half (mid-ranks), as scikit-learn's
 * roc_auc_score.  -1 if either class has no row.
 */
static double
roc_auc(const double *scores, const int32 *classes, int64 n, int64 stride, int pos)
{
	ScoredRow  *r = palloc(sizeof(ScoredRow) * Max(n, 1));
	double		rank_sum = 0.0;
	int64		n_pos = 0,
				n_neg;
	int64		i = 0;

	for (int64 k = 0; k < n; k++)
	{
		r[k].score = scores[k * stride];
		r[k].positive = classes[k] == pos;
		n_pos += r[k].positive;
	}
	n_neg = n - n_pos;
	if (n_pos == 0 || n_neg == 0)
	{
		pfree(r);
		return -1.0;
	}
	qsort(r, n, sizeof(ScoredRow), cmp_scored);
	/* ranks from 1; a run of equal scores shares its mean rank */
	while (i < n)
	{
		int64		j = i;
		int64		pos_in_run = 0;

		while (j < n && r[j].score == r[i].score)
			pos_in_run += r[j++].positive;
		rank_sum += pos_in_run * ((double) (i + 1 + j) / 2.0);
		i = j;
	}
	pfree(r);
	return (rank_sum - (double) n_pos * (n_pos + 1) / 2.0) / ((double) n_pos * n_neg);
}

/*
 * The report, with scikit-learn's definitions (classification_report and
 * balanced_accuracy_score, zero_division = 0): per class, precision =
 * TP / (TP + FP) and recall = TP / (TP + FN), null where undefined (a
 * class never predicted, or that never occurs), F1 = 2 TP / (2 TP + FP +
 * FN); the macro averages are over every class of the report, an
 * undefined precision or recall counting as 0; balanced accuracy is the
 * mean recall over the classes that occur.
 */
Datum
bk_metrics_final(PG_FUNCTION_ARGS)
{
	MetricsState *s;
	JsonbParseState *ps = NULL;
	JsonbValue *res;
	int64	   *actual,
			   *predicted;
	int64		correct = 0;
	double		sum_p = 0,
				sum_r = 0,
				sum_f = 0;
	int			n_occur = 0;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	s = (MetricsState *) PG_GETARG_POINTER(0);
	if (s->rows == 0)
		PG_RETURN_NULL();

	actual = palloc0(sizeof(int64) * s->n);
	predicted = palloc0(sizeof(int64) * s->n);
	for (int i = 0; i < s->n; i++)
		for (int j = 0; j < s->n; j++)
		{
			int64		c = s->counts[(Size) i * s->cap + j];

			actual[i] += c;
			predicted[j] += c;
			if (i == j)
				correct += c;
		}

	pushJsonbValue(&ps, WJB_BEGIN_OBJECT, NULL);
	bk_push_key(&ps, "rows");
	bk_push_int64(&ps, WJB_VALUE, s->rows);
	bk_push_key(&ps, "rows_skipped");
	bk_push_int64(&ps, WJB_VALUE, s->skipped);
	bk_push_key(&ps, "accuracy");
	push_ratio(&ps, (double) correct, (double) s->rows);

	bk_push_key(&ps, "classes");
	pushJsonbValue(&ps, WJB_BEGIN_ARRAY, NULL);
	for (int k = 0; k < s->n; k++)
		push_label(&ps, WJB_ELEM, s, s->sorted[k]);
	pushJsonbValue(&ps, WJB_END_ARRAY, NULL);

	/* per class, in canonical order: precision, recall, F1, support */
	bk_push_key(&ps, "per_class");
	pushJsonbValue(&ps, WJB_BEGIN_ARRAY, NULL);
	for (int k = 0; k < s->n; k++)
	{
		int			c = s->sorted[k];
		int64		tp = s->counts[(Size) c * s->cap + c];
		bool		has_r = actual[c] > 0;
		double		prec = predicted[c] > 0 ? (double) tp / predicted[c] : 0,
					rec = has_r ? (double) tp / actual[c] : 0,
					f1;

		pushJsonbValue(&ps, WJB_BEGIN_OBJECT, NULL);
		bk_push_key(&ps, "class");
		push_label(&ps, WJB_VALUE, s, c);
		bk_push_key(&ps, "precision");
		push_ratio(&ps, (double) tp, (double) predicted[c]);
		bk_push_key(&ps, "recall");
		push_ratio(&ps, (double) tp, (double) actual[c]);
		bk_push_key(&ps, "f1");
		/* 2 TP + FP + FN = support + predicted > 0: the class is in the report */
		f1 = 2.0 * tp / (double) (actual[c] + predicted[c]);
		bk_push_double(&ps, WJB_VALUE, f1);
		bk_push_key(&ps, "support");
		bk_push_int64(&ps, WJB_VALUE, actual[c]);
		pushJsonbValue(&ps, WJB_END_OBJECT, NULL);
		sum_p += prec;
		sum_r += rec;
		sum_f += f1;
		n_occur += has_r;
	}
	pushJsonbValue(&ps, WJB_END_ARRAY, NULL);

	bk_push_key(&ps, "balanced_accuracy");
	/* the sum of recalls is over the classes that occur: 0 for the others */
	push_ratio(&ps, sum_r, (double) n_occur);
	bk_push_key(&ps, "macro_precision");
	bk_push_double(&ps, WJB_VALUE, sum_p / s->n);
	bk_push_key(&ps, "macro_recall");
	bk_push_double(&ps, WJB_VALUE, sum_r / s->n);
	bk_push_key(&ps, "macro_f1");
	bk_push_double(&ps, WJB_VALUE, sum_f / s->n);

	/* rows: actual class, columns: predicted class, both in "classes" order */
	bk_push_key(&ps, "confusion");
	pushJsonbValue(&ps, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < s->n; i++)
	{
		pushJsonbValue(&ps, WJB_BEGIN_ARRAY, NULL);
		for (int j = 0; j < s->n; j++)
			bk_push_int64(&ps, WJB_ELEM,
						  s->counts[(Size) s->sorted[i] * s->cap + s->sorted[j]]);
		pushJsonbValue(&ps, WJB_END_ARRAY, NULL);
	}
	pushJsonbValue(&ps, WJB_END_ARRAY, NULL);

	/*
	 * With scores: the ROC AUC for the last class of "classes" as the
	 * positive one (the class bk_decision is positive for), defined for two
	 * classes that both occur; null otherwise
	 */
	if (s->scored)
	{
		double		auc = s->n == 2 ?
			roc_auc(s->scores, s->score_class, s->n_scores, 1, s->sorted[1]) : -1.0;

		bk_push_key(&ps, "roc_auc");
		if (auc >= 0.0)
			bk_push_double(&ps, WJB_VALUE, auc);
		else
			bk_push_null(&ps, WJB_VALUE);
		bk_push_key(&ps, "positive_class");
		if (s->n == 2)
			push_label(&ps, WJB_VALUE, s, s->sorted[1]);
		else
			bk_push_null(&ps, WJB_VALUE);
	}

	/*
	 * With probabilities (one per class of the report, in "classes" order):
	 * the log loss, mean -log p(actual class), p clipped to [1e-15, 1] as
	 * scikit-learn's log_loss; the Brier score, mean (p(positive) - y)^2
	 * for two classes (scikit-learn's brier_score_loss) and the mean over
	 * rows of the sum over classes of (p_c - y_c)^2 for more; and for two
	 * classes the ROC AUC of p(positive)
	 */
	if (s->probs_given && s->n_probs > 0)
	{
		int			K = s->prob_len;
		int		   *canon = palloc(sizeof(int) * s->n);
		double		ll = 0.0,
					brier = 0.0;
		int32	   *cls;

		if (K != s->n)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("bk_metrics: the rows have %d probabilities each, and show %d classes",
							K, s->n),
					 errhint("Pass one probability per class, in the order of the classes of the report (bk_probabilities gives the model's); every class of the model must occur among the actual or predicted labels.")));
		for (int k = 0; k < s->n; k++)
			canon[s->sorted[k]] = k;
		cls = palloc(sizeof(int32) * Max(s->n_probs, 1));
		for (int64 i = 0; i < s->n_probs; i++)
		{
			const double *p = s->probs + i * K;
			int			y = canon[s->prob_class[i]];

			cls[i] = y;
			ll -= BkLog(Max(p[y], 1e-15));	/* the same bits on every CPU */
			if (K == 2)
				brier += (p[1] - (y == 1)) * (p[1] - (y == 1));
			else
				for (int c = 0; c < K; c++)
					brier += (p[c] - (c == y)) * (p[c] - (c == y));
		}
		bk_push_key(&ps, "log_loss");
		bk_push_double(&ps, WJB_VALUE, ll / s->n_probs);
		bk_push_key(&ps, "brier_score");
		bk_push_double(&ps, WJB_VALUE, brier / s->n_probs);
		if (!s->scored)
		{
			double		auc = K == 2 ? roc_auc(s->probs + 1, cls, s->n_probs, K, 1) : -1.0;

			bk_push_key(&ps, "roc_auc");
			if (auc >= 0.0)
				bk_push_double(&ps, WJB_VALUE, auc);
			else
				bk_push_null(&ps, WJB_VALUE);
			bk_push_key(&ps, "positive_class");
			if (K == 2)
				push_label(&ps, WJB_VALUE, s, s->sorted[1]);
			else
				bk_push_null(&ps, WJB_VALUE);
		}
	}

	res = pushJsonbValue(&ps, WJB_END_OBJECT, NULL);
	PG_RETURN_JSONB_P(JsonbValueToJsonb(res));
}
