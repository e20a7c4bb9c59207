/*
 * bk_core.h
 *	  Public interface of the budgetkernel learning core.
 *
 * The core is plain C99: it includes no PostgreSQL header and never calls
 * the server.  Memory, error reporting and interrupt checks go through the
 * hooks of a BkEnv that the caller supplies (in the server: palloc, ereport
 * and CHECK_FOR_INTERRUPTS; in a test or benchmark program: malloc and
 * print-and-exit).  This is the only header the PostgreSQL layer includes.
 */
#ifndef BK_CORE_H
#define BK_CORE_H

/* the layers' public headers, lowest first */
#include "bk_core_env.h"		/* base: BkEnv, errors */
#include "bk_core_params.h"	/* learners: parameters, limits */
#include "bk_core_model.h"	/* model: train, score, inspect */
#include "bk_core_merge.h"	/* model: merging */
#include "bk_core_parts.h"	/* parts: calibration, preparation, ... */
#include "bk_core_format.h"	/* format: encode, validate, decode */
#include "bk_drift.h"			/* change and feature drift */
#include "bk_formats.h"		/* other formats: BkModelExport, BkModelImport */

#endif							/* BK_CORE_H */
