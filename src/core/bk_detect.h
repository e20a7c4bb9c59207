/*
 * bk_detect.h
 *	  The change detectors behind BkDrift (bk_drift.h), one file each in
 *	  src/core/base: bk_adwin.c, bk_page_hinkley.c, bk_ddm.c.  Each takes
 *	  one value at a time and says whether it raised a change, filling the
 *	  change's statistics (BkDriftChange.stat, in the order of its names).
 */
#ifndef BK_DETECT_H
#define BK_DETECT_H

#include "bk_internal.h"
#include "bk_drift.h"

/* ---- bk_adwin.c: ADWIN2 (Bifet and Gavaldà 2007) ---- */
typedef struct BkAdwin BkAdwin;
extern BkAdwin *BkAdwinNew(const BkEnv *env, double delta, int max_buckets,
						   int clock, int min_window);
extern void BkAdwinFree(const BkEnv *env, BkAdwin *a);
extern bool BkAdwinAdd(BkAdwin *a, double x, double *stat);
/* the window: its length, mean and the buckets that hold it */
extern int64_t BkAdwinWidth(const BkAdwin *a);
extern double BkAdwinMean(const BkAdwin *a);
extern int	BkAdwinBuckets(const BkAdwin *a);
/* the exponential histogram's invariants hold (the unit tests' check) */
extern bool BkAdwinCheck(const BkAdwin *a);
extern const char *const bk_adwin_change_stats[];
#define BK_ADWIN_CHANGE_STATS 4

/* ---- bk_page_hinkley.c: the Page-Hinkley test (Page 1954) ---- */
typedef struct BkPageHinkley
{
	double		delta;			/* tolerated change of the mean */
	double		lambda;			/* alarm threshold */
	double		alpha;			/* fading factor of the cumulative sum */
	int64_t		min_rows;
	int64_t		n;				/* values since the last change */
	double		mean;			/* their mean */
	double		sum;			/* m_T */
	double		min_sum;		/* M_T */
} BkPageHinkley;
extern void BkPageHinkleyInit(BkPageHinkley *ph, double delta, double lambda,
							  double alpha, int64_t min_rows);
extern bool BkPageHinkleyAdd(BkPageHinkley *ph, double x, double *stat);
extern const char *const bk_page_hinkley_change_stats[];
#define BK_PAGE_HINKLEY_CHANGE_STATS 3

/* ---- bk_ddm.c: the drift detection method (Gama et al. 2004) ---- */
typedef struct BkDdm
{
	int64_t		min_rows;
	int64_t		n;				/* values since the last change */
	int64_t		errors;			/* of them, 1s */
	double		p_min,			/* p_i and s_i where p_i + s_i was least */
				s_min;
	int64_t		warning_row;	/* position the warning zone began, or 0 */
} BkDdm;
extern void BkDdmInit(BkDdm *ddm, int64_t min_rows);
/* row: the value's position, kept as the start of a warning zone */
extern bool BkDdmAdd(BkDdm *ddm, double x, int64_t row, double *stat);
extern const char *const bk_ddm_change_stats[];
#define BK_DDM_CHANGE_STATS 5

#endif							/* BK_DETECT_H */
