/*
 * bk_inspect.c
 *	  bk_info (jsonb description of a model) and bk_support_vectors.
 */
#include "postgres.h"

#include <math.h>
#include <string.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/tuplestore.h"

#include "bk_pg.h"

PG_FUNCTION_INFO_V1(bk_info);

/* a fingerprint in lower-case hex, palloc'd */
static char *
fingerprint_hex(const uint8 *fp)
{
	char	   *s = palloc(2 * BK_FINGERPRINT_LEN + 1);

	for (int i = 0; i < BK_FINGERPRINT_LEN; i++)
		snprintf(s + 2 * i, 3, "%02x", fp[i]);
	return s;
}
PG_FUNCTION_INFO_V1(bk_support_vectors);

/* ------------------------------------------------------------------------
 * bk_info
 * ------------------------------------------------------------------------
 */

/* a key or level of the model (UTF-8) in the database's encoding */
static const char *
server_string(const char *s, size_t len)
{
	return pg_any_to_server(s, (int) len, PG_UTF8);
}

/*
 * The preparation: its form and modes, and per input its name (named
 * inputs), kind, prepared columns (1-based) and what they are made from:
 * a numeric input's count, mean and divisor, a text input's levels.
 */
static void
push_preparation(JsonbParseState **ps, const BkPrep *p)
{
	pushJsonbValue(ps, WJB_BEGIN_OBJECT, NULL);
	bk_push_key(ps, "features");
	bk_push_string(ps, WJB_VALUE, BkPrepNamed(p) ? "named" : "array");
	bk_push_key(ps, "scale");
	bk_push_string(ps, WJB_VALUE, BkPrepScale(p) == BK_SCALE_STANDARD ? "standard" : "none");
	bk_push_key(ps, "impute");
	bk_push_string(ps, WJB_VALUE, BkPrepImpute(p) == BK_IMPUTE_MEAN ? "mean" : "none");
	bk_push_key(ps, "inputs");
	pushJsonbValue(ps, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0, col = 1; i < BkPrepInputs(p); i++)
	{
		size_t		len;
		const char *name = BkPrepInputName(p, i, &len);

		pushJsonbValue(ps, WJB_BEGIN_OBJECT, NULL);
		if (name != NULL)
		{
			bk_push_key(ps, "name");
			bk_push_string(ps, WJB_VALUE, server_string(name, len));
		}
		bk_push_key(ps, "column");
		bk_push_int64(ps, WJB_VALUE, col);
		if (BkPrepInputKind(p, i) == BK_INPUT_NUMERIC)
		{
			double		count,
						mean,
						center,
						scale,
						fill;

			BkPrepNumeric(p, i, &count, &mean, &center, &scale, &fill);
			bk_push_key(ps, "kind");
			bk_push_string(ps, WJB_VALUE, "numeric");
			bk_push_key(ps, "count");
			bk_push_double(ps, WJB_VALUE, count);
			bk_push_key(ps, "mean");
			bk_push_double(ps, WJB_VALUE, mean);
			bk_push_key(ps, "center");
			bk_push_double(ps, WJB_VALUE, center);
			bk_push_key(ps, "scale");
			bk_push_double(ps, WJB_VALUE, scale);
			col++;
		}
		else
		{
			bk_push_key(ps, "kind");
			bk_push_string(ps, WJB_VALUE, "categorical");
			bk_push_key(ps, "levels");
			pushJsonbValue(ps, WJB_BEGIN_ARRAY, NULL);
			for (int j = 0; j < BkPrepLevels(p, i); j++)
			{
				const char *lv = BkPrepLevel(p, i, j, &len);

				bk_push_string(ps, WJB_ELEM, server_string(lv, len));
			}
			pushJsonbValue(ps, WJB_END_ARRAY, NULL);
			col += BkPrepLevels(p, i);
		}
		pushJsonbValue(ps, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(ps, WJB_END_ARRAY, NULL);
	pushJsonbValue(ps, WJB_END_OBJECT, NULL);
}

/*
 * bk_info(model): jsonb description of the model
 */
Datum
bk_info(PG_FUNCTION_ARGS)
{
	MemoryContext tmp;
	BkModel    *m;
	JsonbParseState *ps = NULL;
	JsonbValue *res;
	BkParamValue pv[BK_MAX_PARAM_VALUES];
	int			npv;
	const char *kernel = NULL;
	BkModelInfo info;
	BkTargetInfo target;
	int			i;

	tmp = AllocSetContextCreate(CurrentMemoryContext, "budgetkernel bk_info",
								ALLOCSET_DEFAULT_SIZES);
	m = BkPgDecodeDatum(PG_GETARG_DATUM(0), tmp, false);
	BkModelGetInfo(m, &info);

	npv = BkParamsList(info.params, pv, BK_MAX_PARAM_VALUES);
	if (npv > BK_MAX_PARAM_VALUES)
		npv = BK_MAX_PARAM_VALUES;

	pushJsonbValue(&ps, WJB_BEGIN_OBJECT, NULL);

	bk_push_key(&ps, "format_version");
	bk_push_int64(&ps, WJB_VALUE, info.format_version);

	bk_push_key(&ps, "algorithm");
	bk_push_string(&ps, WJB_VALUE, BkAlgorithmName(info.params));

	bk_push_key(&ps, "params");
	pushJsonbValue(&ps, WJB_BEGIN_OBJECT, NULL);
	for (i = 0; i < npv; i++)
	{
		bk_push_key(&ps, pv[i].key);
		if (pv[i].is_string)
			bk_push_string(&ps, WJB_VALUE, pv[i].string ? pv[i].string : "");
		else if (pv[i].is_boolean)
			bk_push_bool(&ps, WJB_VALUE, pv[i].number != 0.0);
		else if (pv[i].is_integer)
			bk_push_integer_param(&ps, WJB_VALUE, pv[i].number);
		else
			bk_push_double(&ps, WJB_VALUE, pv[i].number);

		if (pv[i].is_string && strcmp(pv[i].key, "kernel") == 0)
			kernel = pv[i].string;
	}
	/* the class weights, when the model has them */
	if (BkModelWeightMode(m) != BK_WEIGHT_NONE)
	{
		bk_push_key(&ps, "class_weight");
		BkPgPushClassWeights(&ps, m);
	}
	pushJsonbValue(&ps, WJB_END_OBJECT, NULL);

	bk_push_key(&ps, "kernel");
	if (kernel != NULL)
		bk_push_string(&ps, WJB_VALUE, kernel);
	else
		bk_push_null(&ps, WJB_VALUE);

	bk_push_key(&ps, "dim");
	bk_push_int64(&ps, WJB_VALUE, info.dim);

	/* the preparation of the inputs, replayed at scoring */
	bk_push_key(&ps, "preparation");
	if (BkModelPrep(m) == NULL)
		bk_push_null(&ps, WJB_VALUE);
	else
		push_preparation(&ps, BkModelPrep(m));

	bk_push_key(&ps, "task");
	bk_push_string(&ps, WJB_VALUE, info.params->regression ? "regression" :
				   info.params->novelty ? "novelty" : "classification");

	bk_push_key(&ps, "label_type");
	if (info.params->novelty)
		bk_push_null(&ps, WJB_VALUE);
	else
		bk_push_string(&ps, WJB_VALUE, info.params->regression ? "float8" :
					   info.text_labels ? "text" : "int8");

	/* a novelty detector's threshold, and the share of rows it flagged online */
	{
		double		rho;

		if (BkModelNoveltyRho(m, &rho))
		{
			bk_push_key(&ps, "rho");
			bk_push_double(&ps, WJB_VALUE, rho);
			bk_push_key(&ps, "online_flag_rate");
			if (info.rows_seen > 0)
				bk_push_double(&ps, WJB_VALUE, (double) info.mistakes / (double) info.rows_seen);
			else
				bk_push_null(&ps, WJB_VALUE);
		}
	}

	/* a classifier's bias (an imported LIBSVM model's), per class */
	{
		double		b;

		if (BkModelBias(m, 0, &b))
		{
			bk_push_key(&ps, "bias");
			pushJsonbValue(&ps, WJB_BEGIN_ARRAY, NULL);
			for (int c = 0; BkModelBias(m, c, &b); c++)
				bk_push_double(&ps, WJB_ELEM, b);
			pushJsonbValue(&ps, WJB_END_ARRAY, NULL);
		}
	}

	/* a regressor's target: its standardisation, and its online errors */
	if (BkModelTargetInfo(m, &target))
	{
		bk_push_key(&ps, "target");
		pushJsonbValue(&ps, WJB_BEGIN_OBJECT, NULL);
		bk_push_key(&ps, "scale");
		bk_push_string(&ps, WJB_VALUE, target.standardised ? "standard" : "none");
		bk_push_key(&ps, "mean");
		bk_push_double(&ps, WJB_VALUE, target.mean);
		bk_push_key(&ps, "sd");
		bk_push_double(&ps, WJB_VALUE, target.sd);
		pushJsonbValue(&ps, WJB_END_OBJECT, NULL);
		bk_push_key(&ps, "online_rmse");
		if (info.rows_seen > 0)
			bk_push_double(&ps, WJB_VALUE, sqrt(target.sq_error / (double) info.rows_seen));
		else
			bk_push_null(&ps, WJB_VALUE);
		bk_push_key(&ps, "online_mae");
		if (info.rows_seen > 0)
			bk_push_double(&ps, WJB_VALUE, target.abs_error / (double) info.rows_seen);
		else
			bk_push_null(&ps, WJB_VALUE);
		/* 1 - the online squared error over that of the targets' own mean */
		bk_push_key(&ps, "online_r2");
		if (info.rows_seen > 0 && target.seen_var > 0.0)
			bk_push_double(&ps, WJB_VALUE,
						   1.0 - target.sq_error / ((double) info.rows_seen * target.seen_var));
		else
			bk_push_null(&ps, WJB_VALUE);
	}

	bk_push_key(&ps, "classes");
	pushJsonbValue(&ps, WJB_BEGIN_ARRAY, NULL);
	for (i = 0; i < info.n_classes; i++)
	{
		if (info.text_labels)
			bk_push_string(&ps, WJB_ELEM, BkPgClassName(m, i));
		else
			bk_push_int64(&ps, WJB_ELEM, BkModelClassLabel(m, i));
	}
	pushJsonbValue(&ps, WJB_END_ARRAY, NULL);

	bk_push_key(&ps, "n_classes");
	bk_push_int64(&ps, WJB_VALUE, info.n_classes);

	bk_push_key(&ps, "classes_declared");
	bk_push_bool(&ps, WJB_VALUE, info.classes_declared);

	/* one expansion, one per class (one-vs-rest), or one multi-class one */
	bk_push_key(&ps, "n_machines");
	bk_push_int64(&ps, WJB_VALUE, info.n_machines);

	bk_push_key(&ps, "budget");
	if (BkParamsBudgeted(info.params))
		bk_push_int64(&ps, WJB_VALUE, info.params->budget);
	else
		bk_push_null(&ps, WJB_VALUE);

	bk_push_key(&ps, "n_sv");
	bk_push_uint64(&ps, WJB_VALUE, BkModelSvTotal(m));

	bk_push_key(&ps, "rows_seen");
	bk_push_uint64(&ps, WJB_VALUE, info.rows_seen);
	bk_push_key(&ps, "rows_skipped");
	bk_push_uint64(&ps, WJB_VALUE, info.rows_skipped);
	bk_push_key(&ps, "rows_updated");
	bk_push_uint64(&ps, WJB_VALUE, info.rows_updated);
	bk_push_key(&ps, "online_mistakes");
	bk_push_uint64(&ps, WJB_VALUE, info.mistakes);
	bk_push_key(&ps, "online_mistake_rate");
	if (info.rows_seen > 0)
		bk_push_double(&ps, WJB_VALUE,
					   (double) info.mistakes / (double) info.rows_seen);
	else
		bk_push_null(&ps, WJB_VALUE);
	bk_push_key(&ps, "maintenance_events");
	bk_push_uint64(&ps, WJB_VALUE, info.maintenance);

	bk_push_key(&ps, "merged_models");
	bk_push_uint64(&ps, WJB_VALUE, info.parts);

	/* provenance: this value's fingerprint, and those it comes from */
	{
		uint8		fp[BK_FINGERPRINT_LEN];
		const uint8_t *parents;
		int			np = BkModelParents(m, &parents);

		BkPgFingerprint(PG_GETARG_DATUM(0), fp);
		bk_push_key(&ps, "fingerprint");
		bk_push_string(&ps, WJB_VALUE, fingerprint_hex(fp));
		bk_push_key(&ps, "parents");
		pushJsonbValue(&ps, WJB_BEGIN_ARRAY, NULL);
		for (int k = 0; k < np; k++)
			bk_push_string(&ps, WJB_ELEM, fingerprint_hex(parents + (size_t) k * BK_FINGERPRINT_LEN));
		pushJsonbValue(&ps, WJB_END_ARRAY, NULL);
	}

	/* Platt's sigmoid of each class, when bk_calibrate fitted them */
	bk_push_key(&ps, "calibrated");
	bk_push_bool(&ps, WJB_VALUE, BkModelCalibrated(m));
	if (BkModelCalibrated(m))
	{
		bk_push_key(&ps, "calibration");
		pushJsonbValue(&ps, WJB_BEGIN_ARRAY, NULL);
		for (int c = 0; c < info.n_classes; c++)
		{
			double		A,
						B;

			BkModelCalibration(m, c, &A, &B);
			pushJsonbValue(&ps, WJB_BEGIN_OBJECT, NULL);
			bk_push_key(&ps, "class");
			if (info.text_labels)
				bk_push_string(&ps, WJB_VALUE, BkPgClassName(m, c));
			else
				bk_push_int64(&ps, WJB_VALUE, BkModelClassLabel(m, c));
			bk_push_key(&ps, "A");
			bk_push_double(&ps, WJB_VALUE, A);
			bk_push_key(&ps, "B");
			bk_push_double(&ps, WJB_VALUE, B);
			pushJsonbValue(&ps, WJB_END_OBJECT, NULL);
		}
		pushJsonbValue(&ps, WJB_END_ARRAY, NULL);
	}

	/* the damage of budget maintenance, where the learner reports it */
	{
		double		deg;
		const char *key = BkModelDegradationKey(m, &deg);

		if (key != NULL)
		{
			bk_push_key(&ps, key);
			bk_push_double(&ps, WJB_VALUE, deg);
		}
	}

	if (info.n_classes == 1)
	{
		bk_push_key(&ps, "note");
		bk_push_string(&ps, WJB_VALUE,
					   "only one class was seen: the model always predicts it");
	}

	res = pushJsonbValue(&ps, WJB_END_OBJECT, NULL);

	/*
	 * The jsonb copies every string and numeric, so the model can go.  The
	 * result is built in the caller's context.
	 */
	{
		Jsonb	   *result = JsonbValueToJsonb(res);

		MemoryContextDelete(tmp);
		PG_RETURN_JSONB_P(result);
	}
}

/* ------------------------------------------------------------------------
 * bk_support_vectors
 * ------------------------------------------------------------------------
 */

/*
 * bk_support_vectors(model): one row (sv, x, coef) per support vector of
 * every machine, numbered from 1 across machines.  coef holds what the SV
 * adds to each class's score, scale included: one value for a binary
 * expansion (its f, the second class's score), one per class for Pegasos,
 * and for one-vs-rest one per class with only its machine's class non-zero.
 */
Datum
bk_support_vectors(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext tmp;
	BkModel    *m;
	int32		sv = 0;
	int			k;
	int			ncoef;
	double	   *cbuf;
	BkModelInfo info;

	InitMaterializedSRF(fcinfo, 0);

	tmp = AllocSetContextCreate(CurrentMemoryContext,
								"budgetkernel bk_support_vectors",
								ALLOCSET_DEFAULT_SIZES);
	m = BkPgDecodeDatum(PG_GETARG_DATUM(0), tmp, false);
	BkModelGetInfo(m, &info);
	ncoef = info.n_machines > 1 ? info.n_classes : BkModelCoefCount(m, 0);
	cbuf = palloc0(sizeof(double) * (Size) Max(ncoef, 1));

	for (k = 0; k < info.n_machines; k++)
	{
		int			i;

		for (i = 0; i < BkModelSvCount(m, k); i++)
		{
			Datum		values[3];
			bool		nulls[3] = {false, false, false};
			ArrayType  *x;
			ArrayType  *coef;

			CHECK_FOR_INTERRUPTS();

			x = BkPgFloat8Array(BkModelSv(m, k, i), info.dim);
			if (info.n_machines > 1)
				cbuf[k] = BkModelSvCoef(m, k, i, 0);
			else
				for (int c = 0; c < ncoef; c++)
					cbuf[c] = BkModelSvCoef(m, k, i, c);
			coef = BkPgFloat8Array(cbuf, ncoef);
			if (info.n_machines > 1)
				cbuf[k] = 0.0;
			values[0] = Int32GetDatum(++sv);
			values[1] = PointerGetDatum(x);
			values[2] = PointerGetDatum(coef);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc,
								 values, nulls);
			pfree(x);
			pfree(coef);
		}
	}

	MemoryContextDelete(tmp);
	return (Datum) 0;
}

/*
 * bk_learning_curve(model): the online (prequential) mistakes of the
 * model's training stream over doubling windows: one row after 1, 2, 4,
 * ... rows, and one after every row seen, with the mistake rate so far and
 * over the window since the row before; for a regressor also the root mean
 * squared error so far and over the window (null for other models).  A
 * merged model, or one stored before curves were kept, has only the last
 * row.
 */
PG_FUNCTION_INFO_V1(bk_learning_curve);
Datum
bk_learning_curve(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext tmp;
	BkModel    *m;
	BkModelInfo info;
	BkTargetInfo target;
	bool		regressor;
	const uint64_t *pts;
	const double *sq_pts = NULL;
	int			n,
				n_sq;
	uint64		prev_rows = 0,
				prev_mistakes = 0;
	double		prev_sq = 0.0;

	InitMaterializedSRF(fcinfo, 0);
	tmp = AllocSetContextCreate(CurrentMemoryContext, "budgetkernel bk_learning_curve",
								ALLOCSET_DEFAULT_SIZES);
	m = BkPgDecodeDatum(PG_GETARG_DATUM(0), tmp, false);
	BkModelGetInfo(m, &info);
	regressor = BkModelTargetInfo(m, &target);
	n = BkModelCurve(m, &pts);
	n_sq = BkModelTargetCurve(m, &sq_pts);
	for (int i = 0; i <= n; i++)
	{
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, true, true};
		uint64		rows = i < n ? (UINT64CONST(1) << i) : info.rows_seen;
		uint64		mistakes = i < n ? pts[i] : info.mistakes;
		/* the two curves have a point at the same rows (else only the total) */
		bool		same = regressor && n_sq == n;
		double		sq = i < n ? (same ? sq_pts[i] : 0.0) : target.sq_error;

		/* the last row repeats the last point when rows_seen is a power of two */
		if (i == n && n > 0 && rows == prev_rows)
			break;
		if (rows == 0)
			break;
		values[0] = Int64GetDatum((int64) rows);
		values[1] = Int64GetDatum((int64) mistakes);
		values[2] = Float8GetDatum((double) mistakes / (double) rows);
		/* the window since the row before (without points: the whole stream) */
		values[3] = Float8GetDatum((double) (mistakes - prev_mistakes) /
								   (double) (rows - prev_rows));
		if (same || (regressor && i == n))
		{
			nulls[4] = false;
			values[4] = Float8GetDatum(sqrt(sq / (double) rows));
		}
		if (same)
		{
			nulls[5] = false;
			values[5] = Float8GetDatum(sqrt(Max(sq - prev_sq, 0.0) /
											(double) (rows - prev_rows)));
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		prev_rows = rows;
		prev_mistakes = mistakes;
		prev_sq = sq;
	}
	MemoryContextDelete(tmp);
	return (Datum) 0;
}
