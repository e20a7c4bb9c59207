/*
 * bk_test.h
 *	  Shared by the unit tests of the learning core (test/unit): the check
 *	  macro and its counters, the C library environment (errors jump back
 *	  when bk_std_jump is set, see test/common/bk_stdenv.h), data sets and
 *	  training helpers, and the test functions of each module.
 */
#ifndef BK_TEST_H
#define BK_TEST_H

#include "bk_internal.h"
#include "bk_stdenv.h"

#include <setjmp.h>
#include <stdio.h>

extern int	n_pass;
extern int	n_fail;

#define CHECK(cond, ...) \
	do { \
		if (cond) n_pass++; \
		else { n_fail++; printf("not ok: "); printf(__VA_ARGS__); \
			   printf("  (%s:%d)\n", __FILE__, __LINE__); } \
	} while (0)

/* ---- bk_test.c: data and helpers ---- */
extern void checkerboard(BkRng *rng, int n, double *x, int64_t *y, double noise);
extern void make_params(BkParams *p, const char *json_like[][2], int n, int dim);
/* the same for a regressor (regression true) or a classifier */
extern void make_task_params(BkParams *p, const char *json_like[][2], int n, int dim,
							 bool regression);
/* the keys set into p, whose task fields are kept (BkParamsInit'ed by the caller) */
extern void make_task_params_into(BkParams *p, const char *json_like[][2], int n, int dim);
extern double accuracy(BkModel *m, const double *x, const int64_t *y, int n);
extern uint8_t *encode(BkModel *m, size_t *len);
/* a copy of m through its bytes, decoded for training */
extern BkModel *copy_model(BkModel *m);
extern void sha_hex(const void *data, size_t n, char *hex);
/*
 * parts[0 .. n_parts): *fold: folded by BkModelMerge, *u: kept whole by
 * BkModelMergeUnion (both from copies of the parts)
 */
extern void merge_parts(BkModel **parts, int n_parts, BkModel **fold, BkModel **u);
extern BkModel *train(const char *pp[][2], int np, const double *x, const int64_t *y, int from, int to,
	  BkModel *start);
extern void three_class(BkRng *rng, int n, double *x, int64_t *y);
extern double accuracy_mc(BkModel *m, const double *x, const int64_t *y, int n);
extern BkModel *train_mc(const char *pp[][2], int np, const double *x, const int64_t *y,
		 int from, int to, BkModel *m);
/* the bytes after a version 2 model's last section: its digest and CRC */
#define BK_TRAILER (BK_DIGEST_LEN + 4)
extern void fix_crc(uint8_t *buf, size_t len);
extern bool learn_fails(BkModel *m, const double *x, int64_t y, BkErrCode code);
extern bool merge_fails(BkModel *a, BkModel *b, BkErrCode code);

/* ---- test_bpa_oracle.c ---- */
extern void test_bpa_oracle(const char *variant, const char *loss);

/* ---- test_forgetron_projectron.c ---- */
extern void test_forgetron_phi(void);
extern void test_forgetron(void);
extern void test_projectron(const char *alg);
extern void test_projectron_pp_differs(void);
extern void test_projectron_low_rank(void);

/* ---- test_drift.c ---- */
extern void test_drift(void);
/* ---- test_export.c ---- */
extern void test_export(void);

/* ---- test_format.c ---- */
extern void test_validator(void);
extern void test_errors(void);
extern void test_utf8(void);
extern void test_overflow_guards(void);
extern void test_validation_levels(void);
extern void test_decode_memory(void);
extern void test_canonical_class_order(void);
extern void test_target_format(void);
extern void test_novelty_format(void);
extern void test_prep_format(void);
extern void test_weights_format(void);
extern void test_weights_merge(void);

/* ---- test_learners.c ---- */
extern void test_learners_and_format(void);
extern void test_tighter_keeps_less_noise(void);
extern void test_spa_sampling(void);
extern void test_spa_average(void);
extern void test_stoptron_stops(void);
extern void test_duol_double_update(void);
extern void test_duol_invariants(void);
extern void test_new_learners_deterministic(void);
extern void test_bduol_box_qp(void);
extern void test_merge_large_union(void);
extern void test_merge_svs_eval_set(void);
extern void test_merge_identical_svs(void);
extern void test_sparse_rows(void);

/* ---- test_fingerprint.c ---- */
extern void test_fingerprints(void);
extern void test_float4(void);
extern void test_distil(void);
extern void test_polish(void);
extern void test_base(void);

/* ---- test_linalg.c ---- */
extern void test_linalg_order(void);
extern void test_linalg_cholesky(void);
extern void test_refit_solve(void);
extern void test_refit_deterministic(void);
extern void test_fmath(void);

/* ---- test_multiclass.c ---- */
extern void test_ovr_conversion(void);
extern void test_multiclass(void);
extern void test_ball_projection(void);
extern void test_text_labels(void);
extern void test_run_counts_follow_classes(void);

/* ---- test_params.c ---- */
extern void test_params(void);
extern void test_platt_fit(void);
extern void test_merge_pruning(void);
extern void test_merge_search(void);
extern void test_coef_sums_modest(void);
extern void test_merge_bound(void);
extern void test_pegasos_scores(void);
extern void test_legacy_ridge(void);
extern void test_parse_double(void);
extern void test_decimal_double(void);
extern void test_new_learner_params(void);

/* ---- test_prep_union.c ---- */
extern void test_prep_union(void);

/* ---- test_primitives.c ---- */
extern void test_crc(void);
extern void test_sha256(void);
extern void test_rng(void);
extern void test_kernels(void);
extern void test_kernel_row(void);
extern void test_vector_paths(void);
extern void test_nearest_rbf(void);
extern void test_sv_stride(void);
extern void test_first_non_finite(void);
extern void test_gram(void);
extern void test_gram_border_remove(void);
extern void test_libsvm(void);

/* ---- test_parts.c ---- */
extern void test_parts_format_doc(void);

/* ---- test_registry.c ---- */
extern void test_registry_ids(void);
extern void test_registry_format_doc(void);
extern void test_registry_learners(void);

/* ---- test_run_report.c ---- */
extern void test_run_report(void);

/* ---- test_inputs.c ---- */
extern void test_inputs(void);

#endif							/* BK_TEST_H */
