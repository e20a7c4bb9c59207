/*
 * bk_drift.h
 *	  Change detection over a stream of values (bk_drift.c and the
 *	  detectors bk_adwin.c, bk_page_hinkley.c, bk_ddm.c), and feature drift
 *	  of rows against the preparation a model stores (bk_data_drift.c).
 *	  Part of the core's public interface: bk_core.h includes it, and the
 *	  glue reaches it through bk_core.h.  Plain C99, as the core.
 */
#ifndef BK_DRIFT_H
#define BK_DRIFT_H

#include "bk_core.h"

/* ------------------------------------------------------------------------
 * Change detectors (src/core/base/bk_drift.c)
 * ------------------------------------------------------------------------
 */
typedef enum BkDriftMethod
{
	BK_DRIFT_ADWIN = 1,			/* Bifet and Gavaldà 2007, ADWIN2 */
	BK_DRIFT_PAGE_HINKLEY = 2,	/* Page 1954 */
	BK_DRIFT_DDM = 3			/* Gama et al. 2004 */
} BkDriftMethod;

/* the most changes a report keeps (each BkDriftChange is 56 bytes) */
#define BK_DRIFT_MAX_KEPT		100000
#define BK_DRIFT_DEFAULT_KEPT	1000
/* ADWIN's buckets of one size, at most */
#define BK_ADWIN_MAX_BUCKETS	100

/* The parameters of a detector: the jsonb document's keys, then defaults */
typedef struct BkDriftParams
{
	int			method;			/* BkDriftMethod */
	double		delta;			/* adwin: confidence; page_hinkley: tolerance */
	int			clock;			/* adwin: test every clock values */
	int			max_buckets;	/* adwin: M, buckets of each size */
	int			min_window;		/* adwin: the shortest sub-window a cut leaves */
	double		lambda;			/* page_hinkley: the alarm threshold */
	double		alpha;			/* page_hinkley: the fading factor */
	int			min_rows;		/* page_hinkley, ddm: values before a test */
	int			max_changes;	/* changes kept for the report */
	unsigned	given;			/* bit k: key k of the table was set */
} BkDriftParams;

extern void BkDriftParamsInit(BkDriftParams *p);
/*
 * Set one key; false with a message naming the key and what it takes on
 * an unknown key, a wrong type or a value out of range.
 */
extern bool BkDriftParamsSet(BkDriftParams *p, const char *key,
							 const BkParamInput *in, char *err, size_t errlen);
/* after every key: refuse keys of another method, fill in the defaults */
extern bool BkDriftParamsFinish(BkDriftParams *p, char *err, size_t errlen);
/* the method's name ("adwin", ...) */
extern const char *BkDriftMethodName(int method);
/* the parameters of p's method, defaults filled in ("method" excluded) */
extern int	BkDriftParamsList(const BkDriftParams *p, BkParamValue *out, int maxout);

/* the most statistics a change or a detector's state reports */
#define BK_DRIFT_MAX_STATS 6

/* A change: the 1-based position of the value that raised it, its figures */
typedef struct BkDriftChange
{
	int64_t		row;
	double		stat[BK_DRIFT_MAX_STATS];	/* not finite: null */
} BkDriftChange;

typedef struct BkDrift BkDrift;

extern BkDrift *BkDriftNew(const BkEnv *env, const BkDriftParams *p);
extern void BkDriftFree(BkDrift *d);
/*
 * The next value of the stream: true when it raises a change.  A value
 * that is not finite, or that the method does not take (ddm: 0 or 1), is
 * an error (BK_ERR_DATA) naming its row.
 */
extern bool BkDriftAdd(BkDrift *d, double x);
/* the next position holds no value (SQL NULL): counted, not tested */
extern void BkDriftSkip(BkDrift *d);
extern int64_t BkDriftRows(const BkDrift *d);		/* positions, NULLs included */
extern int64_t BkDriftSkipped(const BkDrift *d);
extern int64_t BkDriftDetected(const BkDrift *d);	/* changes raised */
extern int	BkDriftKept(const BkDrift *d);			/* of them, kept */
extern const BkDriftChange *BkDriftChangeAt(const BkDrift *d, int i);
/* the names of a change's statistics for the method (their number) */
extern int	BkDriftChangeStats(int method, const char *const **names);
/* the detector's state now: names and values (their number) */
extern int	BkDriftState(const BkDrift *d, const char *const **names, double *vals);

/* ------------------------------------------------------------------------
 * Feature drift against a model's preparation (src/core/parts/bk_data_drift.c)
 * ------------------------------------------------------------------------
 */
typedef struct BkDataDriftParams
{
	double		mean_shift;		/* |standardised mean shift| that flags a numeric input */
	double		sd_ratio;		/* sd ratio beyond [1/r, r] that flags it */
	double		z;				/* ... when its z statistic is beyond z too */
	double		unseen;			/* share of text values outside the levels that flags */
} BkDataDriftParams;

/* the thresholds of "moved" (fixed: bk_data_drift reports every statistic) */
extern void BkDataDriftParamsInit(BkDataDriftParams *p);

typedef struct BkDataDrift BkDataDrift;

/* statistics of rows against p (copied: the drift owns what it needs) */
extern BkDataDrift *BkDataDriftNew(const BkEnv *env, const BkPrep *p);
extern void BkDataDriftFree(BkDataDrift *d);
/* one more row; then each of its inputs gets a number, a text or nothing */
extern void BkDataDriftRow(BkDataDrift *d);
extern void BkDataDriftNumber(BkDataDrift *d, int input, double v);
extern void BkDataDriftText(BkDataDrift *d, int input, const char *s, size_t len);
extern void BkDataDriftMissing(BkDataDrift *d, int input);

/* One input's comparison (numbers not finite: null) */
typedef struct BkDataDriftInput
{
	int			kind;			/* BkInputKind */
	int64_t		values;			/* values the rows gave */
	int64_t		missing;		/* rows without one (null, or the key absent) */
	/* numeric: the model's statistics and the rows' */
	double		train_count,	/* training values of the input */
				train_mean,
				train_sd,
				mean,
				sd;
	double		mean_shift;		/* (mean - train_mean) / train_sd */
	double		z;				/* mean_shift * sqrt(values) */
	double		sd_ratio;		/* sd / train_sd */
	double		sd_z;			/* ln(sd_ratio) sqrt(2 (values - 1)) */
	/* categorical */
	int			n_levels;
	const int64_t *level_counts;	/* per training level, in its order */
	int64_t		unseen;			/* values outside the training levels */
	double		unseen_share;	/* unseen / values */
	bool		moved;
} BkDataDriftInput;

extern int64_t BkDataDriftRows(const BkDataDrift *d);
extern void BkDataDriftResult(const BkDataDrift *d, const BkDataDriftParams *p,
							  int input, BkDataDriftInput *out);

#endif							/* BK_DRIFT_H */
