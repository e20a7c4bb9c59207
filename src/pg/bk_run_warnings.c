/*
 * bk_run_warnings.c
 *	  The WARNINGs of a suspicious training run: rows of one class only,
 *	  rows that came in runs of one label, and a model that ends predicting
 *	  one class or no better than the most frequent one.  The core decides (BkModelRunReport); this
 *	  says it in the user's terms, with the labels in the database encoding.
 */
#include "postgres.h"

#include <string.h>

#include "utils/builtins.h"

#include "bk_pg.h"

/* label of class c as the user wrote it */
static const char *
label_text(const BkModel *m, int c)
{
	BkModelInfo info;

	BkModelGetInfo(m, &info);
	if (info.text_labels)
		return quote_literal_cstr(BkPgClassName(m, c));
	return psprintf(INT64_FORMAT, (int64) BkModelClassLabel(m, c));
}

#define COLLAPSE_HINT \
	"Check C and gamma (a C too small, or a gamma far from 1/dim on standardised features), " \
	"the class weights (\"class_weight\": \"balanced\" for imbalanced classes, smaller ones if " \
	"a rare class is predicted everywhere), and that the rows are shuffled."

/* integer labels of many values: perhaps a quantity, meant as a target */
#define MANY_INTEGER_CLASSES 20
#define QUANTITY_HINT \
	"If the label is a quantity (a count, a price, a year), cast it to float8 to train a regressor: bk_train(features, label::float8, params)."

/* a useless classifier's hint; of many integer classes, the float8 cast first */
static const char *
collapse_hint(const BkModelInfo *info)
{
	if (!info->text_labels && info->n_classes >= MANY_INTEGER_CLASSES)
		return QUANTITY_HINT " " COLLAPSE_HINT;
	return COLLAPSE_HINT;
}

/* what to change for a regressor that learned nothing, by its learner and target */
static const char *
regression_hint(const BkModel *m)
{
	BkModelInfo info;
	BkTargetInfo t;
	BkParamValue pv[BK_MAX_PARAM_VALUES];
	int			npv;
	bool		has_c = false,
				has_eta = false;
	const char *step;

	BkModelGetInfo(m, &info);
	(void) BkModelTargetInfo(m, &t);
	/* the learner's step size, among the parameters it takes */
	npv = BkParamsList(info.params, pv, BK_MAX_PARAM_VALUES);
	for (int i = 0; i < npv && i < BK_MAX_PARAM_VALUES; i++)
	{
		has_c |= strcmp(pv[i].key, "C") == 0;
		has_eta |= strcmp(pv[i].key, "eta") == 0;
	}
	step = has_c ? "raise C" : has_eta ? "raise eta" : "lower lambda";
	return psprintf("%sCheck gamma (about 1/dim on standardised features), %s or lower epsilon, and shuffle the rows.",
					t.standardised ? "" :
					"Standardise the target (\"target_scale\": \"standard\", the default). ",
					step);
}

/*
 * A regressor that predicts a constant: it never stepped (every target lay
 * within epsilon of its prediction), or the finished model's predictions
 * of the last training rows are no better than their own mean (the
 * online predictions when the rows were too wide to keep: Pegasos' first
 * steps are large, so its online predictions are poor while the finished
 * model may be good).  Judged on 100 rows or more.
 */
static void
warn_regression(BkModel *first_pass, BkModel *m, const char *fname)
{
	BkModelInfo info;
	BkTargetInfo t;
	BkRunReport r;

	BkModelGetInfo(m, &info);
	if (!BkModelTargetInfo(m, &t) || info.rows_seen < 100 || t.seen_var <= 0.0)
		return;
	/* the order is the first pass's; the model judged the one returned */
	BkModelRunReport(first_pass, &r);
	if (r.sorted)
	{
		ereport(WARNING,
				(errmsg("%s: the rows came in the order of their targets: successive targets differ by %.2g of what a shuffled order of them gives",
						fname, r.value_order_ratio),
				 errdetail("An online learner trained on rows sorted by their target ends fitted to the last ones, and its online_rmse and online_r2 are no estimate of its error."),
				 errhint("Shuffle the rows: ORDER BY bk_shuffle_key(id, 42), with id a unique column and 42 any seed.")));
		return;
	}
	if (m != first_pass)
		BkModelRunReport(m, &r);
	if (info.rows_updated == 0)
		ereport(WARNING,
				(errmsg("%s: the regressor never updated: each of its %llu targets lay within epsilon of its prediction, so it predicts %g for every row",
						fname, (unsigned long long) info.rows_seen, t.mean),
				 errdetail("epsilon is in units of the target after its standardisation."),
				 errhint("%s", regression_hint(m))));
	else if (r.finished && r.value_useless)
		ereport(WARNING,
				(errmsg("%s: on the last %d training rows the finished regressor's predictions are no better than their mean (R^2 %.3f)",
						fname, r.window, r.value_r2),
				 errdetail("It has learnt nothing that generalises to the next rows."),
				 errhint("%s", regression_hint(m))));
	else if (!r.finished && t.sq_error >= (double) info.rows_seen * t.seen_var)
		ereport(WARNING,
				(errmsg("%s: the regressor's online predictions were no better than the mean of its targets (online R^2 %.3f over %llu rows)",
						fname, 1.0 - t.sq_error / ((double) info.rows_seen * t.seen_var),
						(unsigned long long) info.rows_seen),
				 errdetail("Each row was predicted before it was learned; score the finished model on held-out rows with bk_metrics(actual, bk_predict_value(model, features))."),
				 errhint("%s", regression_hint(m))));
}

/*
 * A novelty detector that flags every row or none of the last training
 * rows (the finished model's scores of the rows kept): its threshold and
 * its expansion did not meet, so it says nothing of a row.
 */
static void
warn_novelty(BkModel *m, const char *fname)
{
	BkModelInfo info;
	BkRunReport r;

	BkModelGetInfo(m, &info);
	if (info.rows_seen < 100)
		return;
	BkModelRunReport(m, &r);
	if (!r.finished || (r.flag_rate > 0.0 && r.flag_rate < 0.99))
		return;
	ereport(WARNING,
			(errmsg("%s: the finished novelty detector flags %s of the last %d training rows, where nu = %g bounds the share it flags",
					fname, r.flag_rate > 0.0 ? "all" : "none", r.window, info.params->nu),
			 errdetail("Its scores do not separate the rows: the threshold rho lies beyond every row's score."),
			 errhint("Check gamma (about 1/dim on standardised features; scale the features), use more rows or passes (\"epochs\"), or a larger lambda (smaller steps).")));
}

bool		bk_run_warnings = true;

void
BkPgWarnRun(BkModel *first_pass, BkModel *m, const char *fname)
{
	BkRunReport r;
	BkModelInfo info;

	if (!bk_run_warnings)
		return;
	BkPgWarnInputs(first_pass, m, fname);
	BkModelGetInfo(m, &info);
	if (info.params->regression)
	{
		warn_regression(first_pass, m, fname);
		return;
	}
	if (info.params->novelty)
	{
		warn_novelty(m, fname);
		return;
	}
	/*
	 * a label of many values over few rows each: likely a number (a
	 * price, a count) that was meant as a regression target; integers
	 * more likely so than text, and warned of at more rows a class
	 */
	{
		int			per_class = info.text_labels ? 10 : 30;

		if (info.n_classes >= 100 &&
			(uint64) info.n_classes * (uint64) per_class > info.rows_seen)
			ereport(WARNING,
					(errmsg("%s: the label has %d distinct values over %llu rows, fewer than %d rows a class",
							fname, info.n_classes, (unsigned long long) info.rows_seen, per_class),
					 errdetail("Each value is a class of its own: a classifier predicts one of them, and learns each from few rows."),
					 errhint(info.text_labels ?
							 "If the label is a number to predict, cast it to float8 to train a regressor: bk_train(features, label::float8, params)." :
							 QUANTITY_HINT)));
	}
	/* one class: the model can only predict it */
	if (info.n_classes == 1)
	{
		ereport(WARNING,
				(errmsg("%s: every labelled row was of the class %s, so the model predicts it for every row",
						fname, label_text(m, 0)),
				 errdetail("bk_info(model) shows one class in \"classes\", and bk_predict returns it for every row."),
				 errhint("Train on rows of at least two classes (check the WHERE clause and the label column); continuing the model with rows of another class adds it.")));
		return;
	}
	BkModelRunReport(first_pass, &r);
	if (r.sorted)
	{
		ereport(WARNING,
				(errmsg("%s: the rows came in runs of one label: %llu label %s in %llu rows, where a shuffled order of the same labels gives about %.0f",
						fname, (unsigned long long) r.label_changes,
						r.label_changes == 1 ? "change" : "changes",
						(unsigned long long) r.rows, r.expected_changes),
				 errdetail("An online learner trained on rows sorted or grouped by label ends biased towards the last labels, and its online_mistake_rate is no estimate of its error."),
				 errhint("Shuffle the rows: ORDER BY bk_shuffle_key(id, 42), with id a unique column and 42 any seed.")));
		return;
	}
	if (m != first_pass)
		BkModelRunReport(m, &r);
	/* raw features under a model near the majority: the likely cause named */
	if (r.majority_class >= 0 &&
		BkPgWarnUnscaled(first_pass, &r, fname, label_text(m, r.majority_class)))
		return;
	/* judged on the finished model's predictions, or else the online ones */
	if (r.collapsed)
		ereport(WARNING,
				(errmsg(r.finished ?
						"%s: the finished model predicts the class %s for each of the last %d training rows, where %.1f%% of the labels are other classes" :
						"%s: the model predicted the class %s for each of its last %d training rows, where %.1f%% of the labels were other classes",
						fname, label_text(m, r.constant_class), r.window,
						100.0 * r.window_error),
				 errdetail("It is probably a constant classifier."),
				 errhint("%s", collapse_hint(&info))));
	if (r.no_better)
		ereport(WARNING,
				(errmsg(r.finished ?
						"%s: on the last %d training rows the finished model errs on %.1f%% of them, no fewer than always predicting the class %s would (%.1f%%)" :
						"%s: over its last %d training rows the model erred on %.1f%% of them, no fewer than always predicting the class %s would (%.1f%%)",
						fname, r.window, 100.0 * r.window_error,
						label_text(m, r.majority_class), 100.0 * r.majority_error),
				 errdetail("It has learnt nothing that generalises to the next rows."),
				 errhint("%s", collapse_hint(&info))));
}
