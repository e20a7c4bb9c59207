--
-- bk_training_progress: the running trainings of the cluster, one row per
-- backend.  The regression cluster does not preload budgetkernel, so that
-- the view has shared memory on PostgreSQL 17 and later (the DSM
-- registry) and none on 15 and 16, where it raises an error instead of
-- answering; what prints here is the same on each.  test/progress.sh
-- watches trainings from another session, preloaded and not.
--

-- the columns
SELECT a.attnum, a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod) AS type
FROM pg_attribute a
WHERE a.attrelid = 'bk_training_progress'::regclass AND a.attnum > 0
ORDER BY a.attnum;

-- every role may read it (the details of other roles' runs are NULL)
SELECT pg_catalog.array_to_string(c.relacl, ',') ~ '(^|,)=r/' AS public_select
FROM pg_class c WHERE c.oid = 'bk_training_progress'::regclass;
SELECT obj_description('bk_training_progress'::regclass, 'pg_class') IS NOT NULL AS commented;

-- the view answers, without a row for this backend before and after a
-- training; or, on 15 and 16 without preloading, raises the one error
-- that says what to do (55000, its message and hint checked), which
-- own_rows turns into the answer a working view gives
CREATE FUNCTION pg_temp.own_rows() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	n int8;
	msg text;
	hint text;
BEGIN
	SELECT count(*) INTO n FROM bk_training_progress WHERE pid = pg_backend_pid();
	RETURN n || ' rows of this backend';
EXCEPTION WHEN object_not_in_prerequisite_state THEN
	GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
	IF current_setting('server_version_num')::int < 170000
	   AND msg LIKE 'bk_training_progress needs budgetkernel in shared_preload_libraries%'
	   AND hint = 'Add budgetkernel to shared_preload_libraries and restart the server.' THEN
		RETURN '0 rows of this backend';
	END IF;
	RAISE;
END $$;
SELECT pg_temp.own_rows() AS before;
-- (rows made to count, not to learn from: the run's warnings are off)
SET budgetkernel.run_warnings = off;
SELECT bk_info(bk_train(ARRAY[i, i % 7]::float8[], (i % 2)::int8, '{}'))->>'rows_seen' AS rows_seen
FROM generate_series(1, 2000) AS i;
SELECT pg_temp.own_rows() AS after;
-- inside one transaction: the aggregate's end takes its row away, not the commit
BEGIN;
SELECT bk_info(bk_train(ARRAY[i, i % 7]::float8[], (i % 2)::int8, '{}'))->>'rows_seen' AS rows_seen
FROM generate_series(1, 2000) AS i;
SELECT pg_temp.own_rows() AS in_transaction;
COMMIT;
-- a search's marker begins and ends (bk_cross_validate calls it)
SELECT _bk_cv_activity(now());
SELECT _bk_cv_activity(NULL);
SELECT pg_temp.own_rows() AS search_ended;
-- an error ends a search (here the transaction's abort)
BEGIN;
SELECT _bk_cv_activity(now());
SELECT 1 / 0;
ROLLBACK;
SELECT pg_temp.own_rows() AS search_failed;
