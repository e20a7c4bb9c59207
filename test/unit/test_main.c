/*
 * test_main.c
 *	  The unit tests of the learning core, run without a server: one
 *	  program, the modules in test_*.c (bk_test.h lists them).
 *	  BK_UNIT_ONLY=fingerprints runs the fingerprint test alone (under a
 *	  second of the suite's half minute on x86-64): test/cross.sh runs it
 *	  so under qemu, where the whole suite takes long.
 */
#include "bk_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	const char *only = getenv("BK_UNIT_ONLY");

	if (only != NULL && strcmp(only, "fingerprints") == 0)
	{
		test_fingerprints();
		goto done;
	}
	test_crc();
	test_sha256();
	test_rng();
	test_params();
	test_platt_fit();
	test_merge_pruning();
	test_merge_search();
	test_coef_sums_modest();
	test_merge_bound();
	test_legacy_ridge();
	test_parse_double();
	test_decimal_double();
	test_kernels();
	test_kernel_row();
	test_vector_paths();
	test_nearest_rbf();
	test_sv_stride();
	test_first_non_finite();
	test_gram();
	test_gram_border_remove();
	test_linalg_order();
	test_linalg_cholesky();
	test_refit_solve();
	test_refit_deterministic();
	test_fmath();
	test_libsvm();
	test_bpa_oracle("s", "hinge");
	test_bpa_oracle("s", "ramp");
	test_bpa_oracle("nn", "hinge");
	test_bpa_oracle("nn", "ramp");
	test_bpa_oracle("p", "hinge");
	test_bpa_oracle("p", "ramp");
	test_learners_and_format();
	test_validator();
	test_stoptron_stops();
	test_spa_sampling();
	test_spa_average();
	test_tighter_keeps_less_noise();
	test_errors();
	test_ovr_conversion();
	test_multiclass();
	test_pegasos_scores();
	test_text_labels();
	test_run_counts_follow_classes();
	test_projectron_low_rank();
	test_duol_double_update();
	test_bduol_box_qp();
	test_merge_large_union();
	test_merge_svs_eval_set();
	test_merge_identical_svs();
	test_sparse_rows();
	test_duol_invariants();
	test_ball_projection();
	test_forgetron_phi();
	test_forgetron();
	test_projectron("projectron");
	test_projectron("projectron_pp");
	test_projectron_pp_differs();
	test_new_learner_params();
	test_new_learners_deterministic();
	test_utf8();
	test_overflow_guards();
	test_validation_levels();
	test_decode_memory();
	test_canonical_class_order();
	test_prep_format();
	test_target_format();
	test_novelty_format();
	test_export();
	test_weights_format();
	test_weights_merge();
	test_prep_union();
	test_registry_ids();
	test_registry_format_doc();
	test_parts_format_doc();
	test_registry_learners();
	test_run_report();
	test_inputs();
	test_drift();
	test_distil();
	test_polish();
	test_base();
	test_float4();
	test_fingerprints();
done:
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail == 0 ? 0 : 1;
}
