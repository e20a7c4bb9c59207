/*
 * bk_activity.c
 *	  Training visible to other sessions: the slots of shared memory that
 *	  the view bk_training_progress reads (doc/progress.md).
 *
 * One slot per backend (MaxBackends of them, indexed by the backend's own
 * number, so that no two backends ever share one and the array is never
 * full), written only by its backend and read by any.  The writer brackets
 * each write with two increments of the slot's change counter, the reader
 * copies the slot and retries until the counter is even and the same
 * before and after the copy: the protocol of PgBackendStatus's
 * st_changecount, lock-free on both sides.
 *
 * The training loop pays a decrement and a test per row (BkPgProgress in
 * bk_pg.h); every BK_ACTIVITY_ROWS rows it reads the clock, and writes the
 * slot when BK_ACTIVITY_MS have passed since the last write.
 *
 * Where the memory comes from: with budgetkernel in
 * shared_preload_libraries, the main shared memory, asked for at start
 * (shmem_request_hook from PostgreSQL 15 on, shmem_startup_hook); without
 * it, on PostgreSQL 17 and later, a segment of the DSM registry made by the
 * first backend that needs it (GetNamedDSMSegment); on 15 and 16 without
 * it, none: training reports nothing and the view raises an error saying
 * so.
 *
 * A backend may hold several training states at once (a GROUP BY); the
 * slot shows the one that reported last, with the number of them.  Each
 * run is registered while it learns, and leaves the slot when its final
 * function ends it, when its memory context is reset or deleted (the end
 * of the query, an ERROR, a cancel: the executor's memory goes with them),
 * at the end of the transaction, and when the backend exits, whichever
 * comes first; the reader also skips a slot whose pid is no longer a live
 * backend's.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "commands/dbcommands.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "storage/shmem.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
#if PG_VERSION_NUM >= 170000
#include "storage/dsm_registry.h"
#endif

#include "bk_pg.h"

PG_FUNCTION_INFO_V1(bk_training_progress);
PG_FUNCTION_INFO_V1(bk_cv_activity);

/* what the slot's backend runs */
#define FN_TRAIN 1
#define FN_CONTINUE 2
#define FN_CROSS_VALIDATE 3

/* the task of the model learning */
#define TASK_CLASSIFICATION 1
#define TASK_REGRESSION 2
#define TASK_NOVELTY 3

/* its phase: the rows read and kept (the model is made after the last), or learned */
#define PHASE_NONE 0
#define PHASE_READING 1
#define PHASE_LEARNING 2

#define LEARNER_LEN 32

typedef struct BkSlot
{
	uint32		changecount;	/* odd while its backend writes */
	int32		pid;			/* 0: nothing running */
	int32		leader_pid;		/* a parallel worker's leader, else 0 */
	Oid			dbid;
	Oid			userid;			/* the session's user */
	int8		function;		/* FN_* */
	int8		task;			/* TASK_*, 0 when no model learns */
	int8		phase;			/* PHASE_* */
	int32		pass;
	int32		passes;
	int32		models;			/* training states of the backend alive */
	int32		models_done;	/* bk_cross_validate: models scored */
	int32		models_total;	/* bk_cross_validate: models it trains */
	int64		rows;
	int64		support_vectors;
	int64		mistakes;
	double		sq_error;		/* a regressor's prequential sum, this run's */
	TimestampTz started;
	char		learner[LEARNER_LEN];
} BkSlot;

typedef struct BkSlots
{
	int			n;
	BkSlot		slot[FLEXIBLE_ARRAY_MEMBER];
} BkSlots;

struct BkActivity
{
	int			function;		/* FN_TRAIN or FN_CONTINUE */
	uint64		generation;		/* of the transaction it registered in */
	bool		registered;		/* counted in live */
	uint64		base_rows;		/* the continued model's, before this run */
	uint64		base_mistakes;
	double		base_sq_error;
	int			epochs;
	TimestampTz started;
	char		learner[LEARNER_LEN];
	MemoryContextCallback cb;
};

static BkSlots *slots = NULL;
static bool preloaded = false;
static bool exit_hooked = false;
static bool xact_hooked = false;

/* this backend's side */
static int	live = 0;			/* registered runs */
static BkActivity *shown = NULL;	/* whose numbers the slot holds */
static uint64 generation = 1;	/* bumped when a transaction ends */
static TimestampTz last_write = 0;
static bool slot_used = false;	/* the slot may hold something */
static TimestampTz search_started = 0;	/* bk_cross_validate, 0: none */
static int	search_level = 0;	/* its transaction nesting level */
static int	search_done = 0;
static int	search_total = 0;

#if PG_VERSION_NUM >= 150000
static shmem_request_hook_type prev_shmem_request_hook = NULL;
#endif
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static Size
slots_size(void)
{
	return add_size(offsetof(BkSlots, slot), mul_size(sizeof(BkSlot), MaxBackends));
}

static void
slots_init(void *ptr)
{
	BkSlots    *s = (BkSlots *) ptr;

	memset(s, 0, slots_size());
	s->n = MaxBackends;
}

#if PG_VERSION_NUM >= 150000
static void
bk_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(slots_size());
}
#endif

static void
bk_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	slots = ShmemInitStruct("budgetkernel training progress", slots_size(), &found);
	if (!found)
		slots_init(slots);
	LWLockRelease(AddinShmemInitLock);
}

void
BkPgActivityInit(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	preloaded = true;
#if PG_VERSION_NUM >= 150000
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = bk_shmem_request;
#else
	RequestAddinShmemSpace(slots_size());
#endif
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = bk_shmem_startup;
}

/* this backend's number among MaxBackends, -1 if it has none */
static int
my_index(void)
{
#if PG_VERSION_NUM >= 170000
	return MyProcNumber;
#else
	return MyBackendId - 1;
#endif
}

/*
 * The slots, or NULL where there are none (15 and 16 without preloading).
 * Without preloading, 17 and later make them in the DSM registry on first
 * use (create: a writer or the view; a clean-up never makes them).
 */
static BkSlots *
get_slots(bool create)
{
	if (slots != NULL || preloaded || !create)
		return slots;
#if PG_VERSION_NUM >= 170000
	{
		bool		found;

		slots = GetNamedDSMSegment("budgetkernel training progress", slots_size(),
								   slots_init, &found);
	}
#endif
	return slots;
}

static void clear_slot(void);

static void
bk_activity_exit(int code, Datum arg)
{
	live = 0;
	shown = NULL;
	search_started = 0;
	clear_slot();
}

/* the end of a transaction ends whatever it ran */
static void
bk_activity_xact(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_PREPARE:
			if (live > 0 || search_started != 0 || slot_used)
			{
				live = 0;
				shown = NULL;
				search_started = 0;
				generation++;
				clear_slot();
			}
			break;
		default:
			break;
	}
}

/* a subtransaction that aborts ends a search begun in it (an EXCEPTION block) */
static void
bk_activity_subxact(SubXactEvent event, SubTransactionId mySubid,
					SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB && search_started != 0 &&
		GetCurrentTransactionNestLevel() <= search_level)
	{
		search_started = 0;
		if (live == 0)
			clear_slot();
	}
}

/* this backend's slot, or NULL */
static volatile BkSlot *
my_slot(bool create)
{
	BkSlots    *s = get_slots(create);
	int			i = my_index();

	if (s == NULL || i < 0 || i >= s->n)
		return NULL;
	if (!exit_hooked)
	{
		before_shmem_exit(bk_activity_exit, (Datum) 0);
		exit_hooked = true;
	}
	return &s->slot[i];
}

static void
hook_xact(void)
{
	if (xact_hooked)
		return;
	RegisterXactCallback(bk_activity_xact, NULL);
	RegisterSubXactCallback(bk_activity_subxact, NULL);
	xact_hooked = true;
}

static inline void
write_begin(volatile BkSlot *s)
{
	s->changecount++;
	pg_write_barrier();
}

static inline void
write_end(volatile BkSlot *s)
{
	pg_write_barrier();
	s->changecount++;
}

/* the slot's header: who runs what (the numbers are the caller's) */
static void
write_header(volatile BkSlot *s)
{
	PGPROC	   *leader = MyProc != NULL ? MyProc->lockGroupLeader : NULL;

	s->pid = MyProcPid;
	s->leader_pid = leader != NULL && leader != MyProc ? leader->pid : 0;
	s->dbid = MyDatabaseId;
	s->userid = GetSessionUserId();
	s->models = live;
	s->models_done = search_done;
	s->models_total = search_total;
	slot_used = true;
}

/* the slot when no run of this backend is shown: a search's, or nothing */
static void
clear_slot(void)
{
	volatile BkSlot *s;

	if (!slot_used)
		return;
	s = my_slot(false);
	if (s == NULL)
		return;
	write_begin(s);
	if (search_started != 0)
	{
		write_header(s);
		s->function = FN_CROSS_VALIDATE;
		s->task = 0;
		s->phase = PHASE_NONE;
		s->learner[0] = '\0';
		s->started = search_started;
	}
	else
	{
		s->pid = 0;
		slot_used = false;
	}
	write_end(s);
}

/* take the run off this backend's count */
static void
unregister(BkActivity *a)
{
	if (!a->registered)
		return;
	a->registered = false;
	if (a->generation != generation)
		return;					/* the transaction's end did it */
	live--;
	if (shown == a)
		shown = NULL;
	if (live <= 0)
	{
		live = 0;
		clear_slot();
	}
}

static void
activity_reset(void *arg)
{
	unregister((BkActivity *) arg);
}

BkActivity *
BkPgActivityBegin(MemoryContext cxt, const char *fname, const BkModel *m,
				  const BkParams *params, int epochs, TimestampTz start)
{
	BkActivity *a = (BkActivity *) MemoryContextAllocZero(cxt, sizeof(BkActivity));

	a->function = strcmp(fname, "bk_continue") == 0 ? FN_CONTINUE : FN_TRAIN;
	a->epochs = Max(epochs, 1);
	a->started = start;
	if (m != NULL)
	{
		BkModelInfo info;
		BkTargetInfo target;

		BkModelGetInfo(m, &info);
		a->base_rows = info.rows_seen;
		a->base_mistakes = info.mistakes;
		if (BkModelTargetInfo(m, &target))
			a->base_sq_error = target.sq_error;
	}
	if (params != NULL && params->algorithm >= 1)
		strlcpy(a->learner, BkAlgorithmName(params), LEARNER_LEN);
	a->cb.func = activity_reset;
	a->cb.arg = a;
	MemoryContextRegisterResetCallback(cxt, &a->cb);
	return a;
}

void
BkPgActivityTick(BkActivity *a, const BkModel *m, int64 rows_read, int pass)
{
	volatile BkSlot *s;
	TimestampTz now;
	bool		fresh = false;

	if (a == NULL)
		return;
	if (!a->registered || a->generation != generation)
	{
		hook_xact();
		a->registered = true;
		a->generation = generation;
		live++;
		fresh = true;
	}
	now = GetCurrentTimestamp();
	if (!fresh && shown == a && now - last_write < BK_ACTIVITY_MS * 1000)
		return;
	s = my_slot(true);
	if (s == NULL)
		return;
	shown = a;
	last_write = now;

	write_begin(s);
	write_header(s);
	s->function = search_started != 0 ? FN_CROSS_VALIDATE : a->function;
	s->started = search_started != 0 ? search_started : a->started;
	s->passes = a->epochs;
	s->pass = Max(pass, 1);
	s->sq_error = -1.0;
	if (m == NULL)
	{
		s->phase = PHASE_READING;
		s->task = 0;
		s->rows = rows_read;
		s->support_vectors = -1;
		s->mistakes = -1;
		strlcpy((char *) s->learner, a->learner, LEARNER_LEN);
	}
	else
	{
		BkModelInfo info;
		BkTargetInfo target;

		BkModelGetInfo(m, &info);
		s->phase = PHASE_LEARNING;
		s->task = info.params->regression ? TASK_REGRESSION :
			info.params->novelty ? TASK_NOVELTY : TASK_CLASSIFICATION;
		s->rows = (int64) (info.rows_seen - Min(info.rows_seen, a->base_rows));
		s->mistakes = (int64) (info.mistakes - Min(info.mistakes, a->base_mistakes));
		s->support_vectors = (int64) BkModelSvTotal(m);
		if (BkModelTargetInfo(m, &target))
			s->sq_error = Max(target.sq_error - a->base_sq_error, 0.0);
		strlcpy((char *) s->learner, BkAlgorithmName(info.params), LEARNER_LEN);
	}
	write_end(s);
}

void
BkPgActivityEnd(BkActivity *a)
{
	if (a != NULL)
		unregister(a);
}

void
BkPgActivitySearch(TimestampTz started)
{
	volatile BkSlot *s;

	if (started == 0)
	{
		search_started = 0;
		if (live == 0)
			clear_slot();
		return;
	}
	if (search_started != 0)
		return;					/* a search within a search: the outer one's */
	hook_xact();
	search_started = started;
	search_level = GetCurrentTransactionNestLevel();
	search_done = 0;
	search_total = 0;
	s = my_slot(true);
	if (s == NULL)
		return;
	slot_used = true;
	if (live == 0)
		clear_slot();			/* writes the search's header */
}

/* the search's counts into the slot, when it shows */
static void
write_search_counts(void)
{
	volatile BkSlot *s = my_slot(false);

	if (s == NULL || !slot_used)
		return;
	write_begin(s);
	s->models_done = search_done;
	s->models_total = search_total;
	write_end(s);
}

void
BkPgActivitySearchTotal(TimestampTz started, int total)
{
	if (search_started == 0 || started != search_started)
		return;
	search_total = total;
	write_search_counts();
}

void
BkPgActivitySearchModelScored(void)
{
	if (search_started == 0)
		return;
	search_done++;
	write_search_counts();
}

/*
 * _bk_cv_activity(started timestamptz, total int4): bk_cross_validate's
 * search begins (its start time) or ends (NULL); with a total, the models
 * it will have scored by the end of its next round
 */
Datum
bk_cv_activity(PG_FUNCTION_ARGS)
{
	TimestampTz started = PG_ARGISNULL(0) ? 0 : PG_GETARG_TIMESTAMPTZ(0);

	BkPgActivitySearch(started);
	if (started != 0 && PG_NARGS() > 1 && !PG_ARGISNULL(1))
		BkPgActivitySearchTotal(started, PG_GETARG_INT32(1));
	PG_RETURN_VOID();
}

static const char *
function_name(int f)
{
	return f == FN_TRAIN ? "train" : f == FN_CONTINUE ? "continue" : "cross_validate";
}

#define PROGRESS_COLS 20

/*
 * _bk_training_progress(): one row for each backend of the cluster that
 * runs a training aggregate or bk_cross_validate.  The details of another
 * role's run are NULL unless the caller has the privileges of that role or
 * of pg_read_all_stats (as pg_stat_activity's).
 */
Datum
bk_training_progress(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	BkSlots    *s = get_slots(true);
	TimestampTz now = GetCurrentTimestamp();
	bool		all_stats;

	if (s == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("bk_training_progress needs budgetkernel in shared_preload_libraries on PostgreSQL %d",
						PG_VERSION_NUM / 10000),
				 errdetail("Training reports its progress in shared memory, which PostgreSQL before 17 gives a library only when it is loaded at server start."),
				 errhint("Add budgetkernel to shared_preload_libraries and restart the server.")));

	InitMaterializedSRF(fcinfo, 0);
	all_stats = has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);

	for (int i = 0; i < s->n; i++)
	{
		volatile BkSlot *vs = &s->slot[i];
		BkSlot		c;
		Datum		values[PROGRESS_COLS];
		bool		nulls[PROGRESS_COLS];
		int			k = 0;
		char	   *name;

		if (vs->pid == 0)
			continue;
		/* a consistent copy: the counter even and unchanged across it */
		for (;;)
		{
			uint32		before = vs->changecount;

			pg_read_barrier();
			memcpy(&c, (const void *) vs, sizeof(BkSlot));
			pg_read_barrier();
			if (before == vs->changecount && (before & 1) == 0)
				break;
			CHECK_FOR_INTERRUPTS();
		}
		/* nothing running, or a backend gone (its slot not yet reused) */
		if (c.pid == 0 || BackendPidGetProc(c.pid) == NULL)
			continue;
		c.learner[LEARNER_LEN - 1] = '\0';

		memset(nulls, true, sizeof(nulls));
		values[k] = Int32GetDatum(c.pid);
		nulls[k++] = false;
		values[k] = Int32GetDatum(c.leader_pid);
		nulls[k++] = c.leader_pid == 0;
		name = get_database_name(c.dbid);
		if (name != NULL)
		{
			values[k] = DirectFunctionCall1(namein, CStringGetDatum(name));
			nulls[k] = false;
		}
		k++;
		name = GetUserNameFromId(c.userid, true);
		if (name != NULL)
		{
			values[k] = DirectFunctionCall1(namein, CStringGetDatum(name));
			nulls[k] = false;
		}
		k++;
		values[k] = CStringGetTextDatum(function_name(c.function));
		nulls[k++] = false;

		/* the details: the run's own role's, or with its privileges */
		if (all_stats || has_privs_of_role(GetUserId(), c.userid))
		{
			if (c.learner[0] != '\0')
			{
				values[k] = CStringGetTextDatum(c.learner);
				nulls[k] = false;
			}
			k++;
			if (c.task != 0)
			{
				values[k] = CStringGetTextDatum(c.task == TASK_REGRESSION ? "regression" :
												c.task == TASK_NOVELTY ? "novelty" :
												"classification");
				nulls[k] = false;
			}
			k++;
			if (c.phase != PHASE_NONE)
			{
				values[k] = CStringGetTextDatum(c.phase == PHASE_READING ? "reading" : "learning");
				nulls[k] = false;
				values[k + 1] = Int32GetDatum(c.pass);
				nulls[k + 1] = false;
				values[k + 2] = Int32GetDatum(c.passes);
				nulls[k + 2] = false;
				values[k + 3] = Int64GetDatum(c.rows);
				nulls[k + 3] = false;
			}
			k += 4;
			if (c.phase == PHASE_LEARNING)
			{
				values[k] = Int64GetDatum(c.support_vectors);
				nulls[k] = false;
				values[k + 1] = Int64GetDatum(c.mistakes);
				nulls[k + 1] = false;
				if (c.rows > 0)
				{
					values[k + 2] = Float8GetDatum((double) c.mistakes / (double) c.rows);
					nulls[k + 2] = false;
				}
				if (c.rows > 0 && c.sq_error >= 0.0)
				{
					values[k + 3] = Float8GetDatum(sqrt(c.sq_error / (double) c.rows));
					nulls[k + 3] = false;
				}
			}
			k += 4;
			values[k] = Int32GetDatum(c.models);
			nulls[k++] = false;
			if (c.function == FN_CROSS_VALIDATE)
			{
				values[k] = Int32GetDatum(c.models_done);
				nulls[k] = false;
				if (c.models_total > 0)
				{
					values[k + 1] = Int32GetDatum(c.models_total);
					nulls[k + 1] = false;
				}
			}
			k += 2;
			values[k] = TimestampTzGetDatum(c.started);
			nulls[k++] = false;
			values[k] = Float8GetDatum((double) (now - c.started) / USECS_PER_SEC);
			nulls[k++] = false;
		}
		else
			k = PROGRESS_COLS;
		Assert(k == PROGRESS_COLS);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
