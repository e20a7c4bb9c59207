/*
 * bk_compat.h
 *	  What differs between the PostgreSQL majors the glue builds against:
 *	  15, 17 and 18, each tested by bash test/check.sh (17 and 18 in
 *	  Debian roots).  Only the glue (src/pg)
 *	  includes it, through bk_pg.h; the core knows no PostgreSQL.
 *
 *	  Every difference is one macro here, named by the newest major's
 *	  spelling, so that the glue's code reads as the newest server's.
 */
#ifndef BK_COMPAT_H
#define BK_COMPAT_H

#include "postgres.h"

#include "utils/guc.h"

/* The extension's version, from budgetkernel.control (Makefile). */
#ifndef BK_EXTVERSION
#define BK_EXTVERSION "unknown"
#endif

/*
 * 18: PG_MODULE_MAGIC_EXT names the module and its version, which
 * pg_get_loaded_modules() shows; before 18, the plain magic block.
 */
#ifdef PG_MODULE_MAGIC_EXT
#define BK_MODULE_MAGIC PG_MODULE_MAGIC_EXT(.name = "budgetkernel", .version = BK_EXTVERSION)
#else
#define BK_MODULE_MAGIC PG_MODULE_MAGIC
#endif

/*
 * 15 renamed EmitWarningsOnPlaceholders, which reserves a prefix of
 * custom settings, to MarkGUCPrefixReserved.
 */
#if PG_VERSION_NUM < 150000
#define MarkGUCPrefixReserved(prefix) EmitWarningsOnPlaceholders(prefix)
#endif

#endif							/* BK_COMPAT_H */
