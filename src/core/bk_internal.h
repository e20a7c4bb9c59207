/*
 * bk_internal.h
 *	  Declarations shared between the modules of the learning core.
 *	  Not included by the PostgreSQL layer.
 */
#ifndef BK_INTERNAL_H
#define BK_INTERNAL_H

#include "bk_internal_types.h"	/* the model's structs */
#include "bk_internal_base.h"	/* errors, allocation, parameters, rng */
#include "bk_internal_kernel.h"	/* kernels, SV stores, caches */
#include "bk_internal_learners.h"	/* learner steps */
#include "bk_internal_model.h"	/* layouts, classes, weights, run */

#endif							/* BK_INTERNAL_H */
