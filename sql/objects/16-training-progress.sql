-- ------------------------------------------------------------------------
-- Training progress (availability: 0.4.0)
-- ------------------------------------------------------------------------
--
-- bk_training_progress: one row for each backend of the cluster that runs
-- bk_train, bk_continue or bk_cross_validate, read from a slot of shared
-- memory per backend that the training writes as it learns, at most
-- every 100 ms (doc/progress.md).  The shared memory comes with budgetkernel in
-- shared_preload_libraries, or on PostgreSQL 17 and later from the DSM
-- registry; on 15 and 16 without preloading the view raises an error that
-- says so (55000).  Another role's run shows its pid, database, user and
-- function only, unless the caller has the privileges of that role or of
-- pg_read_all_stats (as pg_stat_activity).

-- Availability: 0.4.0
CREATE FUNCTION @extschema@._bk_training_progress(
	OUT pid int4, OUT leader_pid int4, OUT datname name, OUT usename name,
	OUT function text, OUT learner text, OUT task text, OUT phase text,
	OUT pass int4, OUT passes int4, OUT rows int8, OUT support_vectors int8,
	OUT online_mistakes int8, OUT online_mistake_rate float8, OUT online_rmse float8,
	OUT models int4, OUT models_done int4, OUT models_total int4,
	OUT started timestamptz, OUT elapsed float8)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'bk_training_progress'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@._bk_training_progress() IS
	'the rows of bk_training_progress: the training runs of the cluster''s backends, from shared memory';

-- Availability: 0.4.0
CREATE VIEW @extschema@.bk_training_progress AS
	SELECT p.pid, p.leader_pid, p.datname, p.usename, p.function, p.learner, p.task,
	       p.phase, p.pass, p.passes, p.rows, p.support_vectors, p.online_mistakes,
	       p.online_mistake_rate, p.online_rmse, p.models, p.models_done,
	       p.models_total, p.started, p.elapsed
	FROM @extschema@._bk_training_progress() AS p;

COMMENT ON VIEW @extschema@.bk_training_progress IS
	'running bk_train, bk_continue and bk_cross_validate of the cluster, one row per backend: rows, support vectors and online errors so far (needs budgetkernel in shared_preload_libraries before PostgreSQL 17)';

GRANT SELECT ON @extschema@.bk_training_progress TO PUBLIC;
