/*
 * bk_input_warnings.c
 *	  The NOTICEs and WARNINGs of suspicious inputs to a training run: a
 *	  float8 target of a few integral values (classes given as numbers),
 *	  features far from standardised under a model near the majority, one
 *	  feature that alone gives the label (a leak), a text feature of one
 *	  value in every row.  The core decides (BkModelInputsReport,
 *	  bk_inputs.c); this says it in the user's terms, each with its fix.
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"

#include "bk_pg.h"
#include "bk_inputs.h"

/* a prepared input's name (a key, in the server encoding), or its position */
static char *
input_text(const BkPrep *p, int i)
{
	size_t		len;
	const char *u;

	if (!BkPrepNamed(p))
		return psprintf("position %d", i + 1);
	u = BkPrepInputName(p, i, &len);
	return psprintf("\"%s\"", pg_any_to_server(u, (int) len, PG_UTF8));
}

/* column col of the model as the user wrote it: a key (and its level), or a position */
static char *
column_text(const BkModel *m, int col)
{
	const BkPrep *p = BkModelPrep(m);
	int			level;
	int			i = BkModelColumnInput(m, col, &level);
	size_t		len;
	const char *u;

	if (p == NULL || i < 0)
		return psprintf("position %d", col + 1);
	if (level < 0)
		return input_text(p, i);
	u = BkPrepLevel(p, i, level, &len);
	return psprintf("%s = %s", input_text(p, i),
					quote_literal_cstr(pg_any_to_server(u, (int) len, PG_UTF8)));
}

/* the hint of a leak: leave the column out */
#define LEAK_HINT \
	"Leave the label and any id out of the features (for example to_jsonb(t) - 'label' - 'id'). " \
	"If the feature is truly known when the model predicts, SET budgetkernel.run_warnings = off silences this warning."

static void
warn_leak(BkModel *m, const BkInputsReport *r, const char *fname)
{
	BkModelInfo info;
	const char *col = column_text(m, r->leak_column);

	BkModelGetInfo(m, &info);
	if (r->leak == BK_LEAK_EQUAL)
		ereport(WARNING,
				(errmsg("%s: feature %s equals the %s in %.1f%% of the last %d training rows: the %s is among the features",
						fname, col, info.params->regression ? "target" : "label",
						100.0 * r->leak_accuracy, r->leak_window,
						info.params->regression ? "target" : "label"),
				 errdetail("A model that reads its answer from its features scores well in training and in cross-validation, and fails on rows whose answer is unknown."),
				 errhint(LEAK_HINT)));
	else if (r->leak == BK_LEAK_SEGMENTS)
		ereport(WARNING,
				(errmsg("%s: feature %s alone gives the label of %.1f%% of the last %d training rows: the label, or an id of rows stored in label order, may be among the features",
						fname, col, 100.0 * r->leak_accuracy, r->leak_window),
				 errdetail("Ranges of its values hold one class each. A model that reads its answer from its features scores well in training and in cross-validation, and fails on rows whose answer is unknown."),
				 errhint(LEAK_HINT)));
	else if (r->leak == BK_LEAK_LINEAR)
		ereport(WARNING,
				(errmsg("%s: feature %s alone is an affine function of the target over the last %d training rows (correlation %.4f): the target, or a copy of it, may be among the features",
						fname, col, r->leak_window, r->leak_accuracy),
				 errdetail("A model that reads its answer from its features scores well in training and in cross-validation, and fails on rows whose answer is unknown."),
				 errhint(LEAK_HINT)));
}

/* a float8 target of few integral values: classes, perhaps */
static void
warn_few_targets(const BkInputsReport *r, const char *fname)
{
	StringInfoData values;

	initStringInfo(&values);
	for (int i = 0; i < r->n_targets; i++)
		appendStringInfo(&values, "%s%g", i > 0 ? ", " : "", r->targets[i]);
	/* two values are almost surely classes; a few more may be a count */
	ereport(r->n_targets <= 2 ? WARNING : NOTICE,
			(errmsg("%s: the float8 target holds only %d distinct %s, all integral (%s): the model is a regressor",
					fname, r->n_targets, r->n_targets == 1 ? "value" : "values", values.data),
			 errdetail("A float8, float4 or numeric label trains a regressor, which predicts numbers between and beyond these; bk_cross_validate scores it by R^2, not by accuracy."),
			 errhint("If the values are classes, cast the label to train a classifier: bk_train(features, label::int8, params), or label::text.")));
}

/* text inputs of one value in every row: their column is constant */
static void
notice_constant(BkModel *m, const BkInputsReport *r, const char *fname)
{
	const BkPrep *p = BkModelPrep(m);
	StringInfoData names;
	bool		one = r->n_constant == 1 && !r->more_constant;

	if (r->n_constant == 0)
		return;
	initStringInfo(&names);
	for (int k = 0; k < r->n_constant; k++)
	{
		size_t		len;
		const char *u = BkPrepLevel(p, r->constant[k], 0, &len);

		appendStringInfo(&names, "%s%s (always %s)", k > 0 ? ", " : "",
						 input_text(p, r->constant[k]),
						 quote_literal_cstr(pg_any_to_server(u, (int) len, PG_UTF8)));
	}
	if (r->more_constant)
		appendStringInfoString(&names, ", ...");
	ereport(NOTICE,
			(errmsg("%s: %s %s %s one value in every training row: %s",
					fname, one ? "the text feature" : "the text features", names.data,
					one ? "has" : "have", one ? "the model learns nothing from it" :
					"the model learns nothing from them"),
			 errdetail("A text feature is one column per value it takes; one value in every row is a constant column."),
			 errhint("Check the WHERE clause, or leave the feature out (for example to_jsonb(t) - 'label' - 'key').")));
}

void
BkPgWarnInputs(BkModel *first_pass, BkModel *m, const char *fname)
{
	BkInputsReport r;

	/* called by BkPgWarnRun, under budgetkernel.run_warnings */
	BkModelInputsReport(first_pass, &r);
	if (r.few_targets)
		warn_few_targets(&r, fname);
	if (r.leak != BK_LEAK_NONE)
		warn_leak(m, &r, fname);
	notice_constant(m, &r, fname);
}

/*
 * Features far from standardised, and a finished classifier near the
 * majority (run: its report): a WARNING that names the fix, which stands
 * for the generic ones of a useless model (true: said).
 */
bool
BkPgWarnUnscaled(BkModel *first_pass, const BkRunReport *run, const char *fname,
				 const char *majority_label)
{
	BkInputsReport r;

	BkModelInputsReport(first_pass, &r);
	if (!r.columns || !r.unscaled || !BkInputsNearMajority(run))
		return false;
	ereport(WARNING,
			(errmsg("%s: the features are far from standardised (%s has standard deviation %.3g, %s %.3g; the largest root mean square is %.3g, of %s), and on the last %d training rows the finished model errs on %.1f%% of them, nearly as often as always predicting the class %s (%.1f%%)",
					fname, column_text(first_pass, r.widest), r.widest_sd,
					r.narrowest >= 0 ? column_text(first_pass, r.narrowest) : "the narrowest",
					r.narrowest >= 0 ? r.narrowest_sd : 0.0,
					r.largest_rms, column_text(first_pass, r.largest),
					run->window, 100.0 * run->window_error, majority_label,
					100.0 * run->majority_error),
			 errdetail("On raw features the widest ones decide a Gaussian kernel's distances and drown the others, and with a gamma made for standardised features every two rows look far apart."),
			 errhint("Standardise the features: \"scale\": \"standard\" in the parameters (the model keeps each position's mean and standard deviation and applies them when it scores), or train on named features (jsonb), standardised by default.")));
	return true;
}
