/*
 * bk_core_parts.h
 *	  The optional parts of a model as the caller uses them (parts layer):
 *	  calibration, learning curve, parents and base, the preparation of
 *	  the inputs.
 */
#ifndef BK_CORE_PARTS_H
#define BK_CORE_PARTS_H

#include "bk_core_model.h"

/* ---- bk_calibrate.c: probabilities by Platt scaling ---- */
/*
 * Fit P(pos | f) = 1 / (1 + exp(A f + B)) on n scores f and whether each
 * row is of the class (pos); false if no finite fit.
 */
extern bool BkPlattFit(const BkEnv *env, const double *f, const bool *pos,
					   int64_t n, double *A, double *B);
/* store one (A, B) per class (n_classes of each); learning drops them */
extern void BkModelSetCalibration(BkModel *m, const double *A, const double *B);
extern void BkModelClearCalibration(BkModel *m);
extern bool BkModelCalibrated(const BkModel *m);
/* class c's (A, B) of a calibrated model */
extern void BkModelCalibration(const BkModel *m, int c, double *A, double *B);
/* one probability per class, in class order, summing to 1 (calibrated) */
extern void BkModelProbabilities(BkModel *m, const double *x, double *prob);
/*
 * The learning curve: *points gets the online mistakes after 1, 2, 4, ...
 * rows (point i after 2^i rows); returns their number, 0 when the model
 * keeps none (merged, or stored before curves were kept)
 */
extern int	BkModelCurve(const BkModel *m, const uint64_t **points);
/*
 * Provenance: the fingerprints of the stored models this one comes from
 * (the caller computes them).  Set replaces, add appends (beyond
 * BK_MAX_PARENTS it is ignored); the count and the bytes (n x 32).
 */
extern void BkModelSetParent(BkModel *m, const uint8_t *fingerprint);
/*
 * Training goes on from the stored model of this fingerprint, which m
 * decodes: m keeps it and its counts as its base (bk_base.c), so that the
 * merge of models continued from it counts its rows once
 */
extern void BkModelSetBase(BkModel *m, const uint8_t *fingerprint);
extern void BkModelAddParent(BkModel *m, const uint8_t *fingerprint);
extern int	BkModelParents(const BkModel *m, const uint8_t **fingerprints);
/* the class index of a label, -1 if the model has no such class */
extern int	BkModelClassIndex(const BkModel *m, int64_t label, const char *text,
							  size_t len);

/* ------------------------------------------------------------------------
 * Feature preparation carried by the model (bk_prep.c)
 *
 * A model may hold the preparation of its inputs, fitted on the training
 * rows and replayed identically when it trains on and scores rows:
 * standardisation of numeric inputs, imputation of missing values, and
 * one-hot encoding of categorical (text) inputs with the training rows'
 * vocabulary.  Inputs are either the positions of a features array or the
 * named keys of a row (a JSON object, read by the caller).  The learner
 * sees the prepared vector of BkPrepDim columns, which is the model's dim.
 * ------------------------------------------------------------------------
 */
typedef enum BkScaleMode
{
	BK_SCALE_NONE = 0,			/* inputs as they are */
	BK_SCALE_STANDARD = 1		/* (x - mean) / standard deviation */
} BkScaleMode;

typedef enum BkImputeMode
{
	BK_IMPUTE_NONE = 0,			/* a missing value is an error */
	BK_IMPUTE_MEAN = 1			/* numeric: the training mean; text: no level */
} BkImputeMode;

typedef enum BkInputKind
{
	BK_INPUT_NUMERIC = 1,
	BK_INPUT_CATEGORICAL = 2
} BkInputKind;

/* the most named inputs (keys), and the levels of a categorical input */
#define BK_MAX_INPUTS		(1 << 16)
#define BK_DEFAULT_MAX_LEVELS 1000
#define BK_MAX_LEVELS		(1 << 16)

/* What the user asked for: the "scale", "impute" and "max_levels" parameters */
typedef struct BkPrepSpec
{
	int			scale;			/* BkScaleMode */
	int			impute;			/* BkImputeMode */
	int			max_levels;		/* distinct text values of one key */
	/*
	 * a regressor's target: BK_SCALE_STANDARD (the default) or
	 * BK_SCALE_NONE ("target_scale"); given: the user set it
	 */
	int			target_scale;
	bool		target_scale_given;
} BkPrepSpec;

/*
 * The defaults: nothing for a features array (its hot path stays as it
 * is), standardisation and imputation for named inputs.
 */
extern void BkPrepSpecInit(BkPrepSpec *s, bool named);
/*
 * Set key from a parameter value: 1 if key is a preparation parameter
 * (set), 0 if it is not one, -1 for an invalid value (message in err).
 */
extern int	BkPrepSpecSet(BkPrepSpec *s, const char *key, const BkParamInput *in,
						  char *err, size_t errlen);
/* whether a features array needs a preparation under s */
extern bool BkPrepSpecActive(const BkPrepSpec *s);

typedef struct BkPrep BkPrep;
typedef struct BkPrepFit BkPrepFit;

/*
 * Fitting a preparation on the training rows, one row at a time.  Array
 * rows give n values and NULL flags (isnull may be NULL); named rows give
 * their keys one by one (BkPrepFitKey returns the input's index, adding a
 * new key), then a number or a text value of that input (a JSON null
 * gives none).  Errors (a key that changes kind, too many levels or keys)
 * are reported through env.
 */
extern BkPrepFit *BkPrepFitNew(const BkEnv *env, const BkPrepSpec *s, bool named);
extern void BkPrepFitArray(BkPrepFit *f, const double *x, const bool *isnull, int n);
extern int	BkPrepFitKey(BkPrepFit *f, const char *key, size_t len);
/* the same, for the key at position pos of its row (a faster lookup) */
extern int	BkPrepFitKeyAt(BkPrepFit *f, int pos, const char *key, size_t len);
extern void BkPrepFitNumber(BkPrepFit *f, int input, double v);
extern void BkPrepFitText(BkPrepFit *f, int input, const char *s, size_t len);
/* the preparation fitted so far, allocated through env (the fit goes on) */
extern BkPrep *BkPrepFitFinish(const BkPrepFit *f, const BkEnv *env);
extern void BkPrepFree(const BkEnv *env, BkPrep *p);

/* A model's preparation, NULL if it has none; set (owned) before training */
extern const BkPrep *BkModelPrep(const BkModel *m);
extern void BkModelSetPrep(BkModel *m, BkPrep *p);

extern int	BkPrepDim(const BkPrep *p);		/* prepared columns */
extern int	BkPrepInputs(const BkPrep *p);	/* inputs (array length, keys) */
extern bool BkPrepNamed(const BkPrep *p);
extern int	BkPrepScale(const BkPrep *p);	/* BkScaleMode */
extern int	BkPrepImpute(const BkPrep *p);	/* BkImputeMode */
extern const char *BkPrepInputName(const BkPrep *p, int i, size_t *len);
extern int	BkPrepInputKind(const BkPrep *p, int i);
/* a numeric input: values seen, mean, what is subtracted and divided by, the fill */
extern void BkPrepNumeric(const BkPrep *p, int i, double *count, double *mean,
						  double *center, double *scale, double *fill);
extern int	BkPrepLevels(const BkPrep *p, int i);
extern const char *BkPrepLevel(const BkPrep *p, int i, int j, size_t *len);

/*
 * Applying it: out has BkPrepDim columns.  An array row of n values
 * (n must be BkPrepInputs; isnull may be NULL) in one call; a named row
 * starts with BkPrepRowBegin (zeroes out), then each input gets a number,
 * a text value or nothing (missing).  A missing value is imputed, or an
 * error when the preparation does not impute; a text value outside the
 * vocabulary sets no column, as one-hot encoding does; a number for a
 * categorical input or text for a numeric one is an error (BK_ERR_DATA).
 */
extern void BkPrepApplyArray(const BkModel *m, const double *x, const bool *isnull,
							 int n, double *out);
extern void BkPrepRowBegin(const BkModel *m, double *out);
/*
 * A named row's keys in the order the row lists them (pos from 0): the
 * input of the key, or -1 for a key the model does not know; then the
 * inputs the row did not give are missing values (BkPrepRowEnd).
 */
extern int	BkPrepKey(const BkModel *m, int pos, const char *key, size_t len);
/*
 * BkPrepRowEnd returns how many of the model's inputs the row did not
 * name (a key given a JSON null is named: missing on purpose);
 * BkPrepRowNamed tells whether it named one
 */
extern int	BkPrepRowEnd(const BkModel *m, double *out);
extern bool BkPrepRowNamed(const BkModel *m, int input);
extern void BkPrepPutNumber(const BkModel *m, int input, double v, double *out);
extern void BkPrepPutText(const BkModel *m, int input, const char *s, size_t len,
						  double *out);
extern void BkPrepPutMissing(const BkModel *m, int input, double *out);
/* whether two preparations take the same inputs to the same columns */
extern bool BkPrepSameLayout(const BkPrep *a, const BkPrep *b);

#endif							/* BK_CORE_PARTS_H */
