--
-- The aggregates' support functions called as a distributed engine calls
-- them (Citus's worker_partial_agg and coord_combine_agg): through a
-- fresh FmgrInfo with no call expression, inside another aggregate.
-- test/fixtures/bk_generic_caller.c does it; loaded by its path.  Every
-- form of bk_train and bk_metrics that has a combine function gives the
-- answer it gives when PostgreSQL calls it, and nothing crashes.  (Before
-- the fix, the transition function read the label's type as unknown,
-- took the row for a novelty detector's and the int8 label for the
-- parameters document: the backend died.)
--
SET client_min_messages = warning;
\i test/fixtures/checkerboard.sql
-- (the test module's objects in a schema of their own, dropped at the end)
CREATE SCHEMA bk_caller;
\set ECHO none
\set caller `pwd`/test/fixtures/bk_generic_caller.so
CREATE FUNCTION bk_caller.partial_trans(internal, regprocedure, "any", "any", "any")
	RETURNS internal AS :'caller', 'bk_generic_partial_trans' LANGUAGE C;
CREATE FUNCTION bk_caller.partial_trans(internal, regprocedure, "any", "any")
	RETURNS internal AS :'caller', 'bk_generic_partial_trans' LANGUAGE C;
CREATE FUNCTION bk_caller.partial_trans(internal, regprocedure, "any")
	RETURNS internal AS :'caller', 'bk_generic_partial_trans' LANGUAGE C;
CREATE FUNCTION bk_caller.partial_final(internal)
	RETURNS bytea AS :'caller', 'bk_generic_partial_final' LANGUAGE C;
CREATE FUNCTION bk_caller.combine_trans(internal, regprocedure, bytea)
	RETURNS internal AS :'caller', 'bk_generic_combine_trans' LANGUAGE C;
CREATE FUNCTION bk_caller.partial_trans_nooid(internal, regprocedure, "any", "any", "any")
	RETURNS internal AS :'caller', 'bk_generic_partial_trans_nooid' LANGUAGE C;
CREATE FUNCTION bk_caller.partial_trans_nooid(internal, regprocedure, "any", "any")
	RETURNS internal AS :'caller', 'bk_generic_partial_trans_nooid' LANGUAGE C;
CREATE FUNCTION bk_caller.combine_trans_nooid(internal, regprocedure, bytea)
	RETURNS internal AS :'caller', 'bk_generic_combine_trans_nooid' LANGUAGE C;
CREATE FUNCTION bk_caller.combine_model_final(internal)
	RETURNS bk_model AS :'caller', 'bk_generic_combine_final' LANGUAGE C;
CREATE FUNCTION bk_caller.combine_jsonb_final(internal)
	RETURNS jsonb AS :'caller', 'bk_generic_combine_final' LANGUAGE C;
\set ECHO all
CREATE AGGREGATE bk_caller.partial(regprocedure, "any", "any", "any") (
	SFUNC = bk_caller.partial_trans, STYPE = internal, FINALFUNC = bk_caller.partial_final);
CREATE AGGREGATE bk_caller.partial(regprocedure, "any", "any") (
	SFUNC = bk_caller.partial_trans, STYPE = internal, FINALFUNC = bk_caller.partial_final);
CREATE AGGREGATE bk_caller.partial(regprocedure, "any") (
	SFUNC = bk_caller.partial_trans, STYPE = internal, FINALFUNC = bk_caller.partial_final);
CREATE AGGREGATE bk_caller.partial_nooid(regprocedure, "any", "any", "any") (
	SFUNC = bk_caller.partial_trans_nooid, STYPE = internal, FINALFUNC = bk_caller.partial_final);
CREATE AGGREGATE bk_caller.partial_nooid(regprocedure, "any", "any") (
	SFUNC = bk_caller.partial_trans_nooid, STYPE = internal, FINALFUNC = bk_caller.partial_final);
CREATE AGGREGATE bk_caller.combine_model_nooid(regprocedure, bytea) (
	SFUNC = bk_caller.combine_trans_nooid, STYPE = internal, FINALFUNC = bk_caller.combine_model_final);
CREATE AGGREGATE bk_caller.combine_jsonb_nooid(regprocedure, bytea) (
	SFUNC = bk_caller.combine_trans_nooid, STYPE = internal, FINALFUNC = bk_caller.combine_jsonb_final);
CREATE AGGREGATE bk_caller.combine_model(regprocedure, bytea) (
	SFUNC = bk_caller.combine_trans, STYPE = internal, FINALFUNC = bk_caller.combine_model_final);
CREATE AGGREGATE bk_caller.combine_jsonb(regprocedure, bytea) (
	SFUNC = bk_caller.combine_trans, STYPE = internal, FINALFUNC = bk_caller.combine_jsonb_final);

CREATE TABLE pts AS
SELECT id, features::bk_features AS features, label, features[1] AS x, features[1] + features[2] AS target,
       CASE WHEN label > 0 THEN 'plus' ELSE 'minus' END AS name
FROM bk_test.checkerboard(1200);
SET max_parallel_workers_per_gather = 0;

-- one part: the serialised state deserialised and finalised gives the
-- bytes of serial training over the same rows
CREATE FUNCTION bk_caller.one_part(agg regprocedure, q text) RETURNS bk_model
LANGUAGE plpgsql AS $$
DECLARE part bytea;
BEGIN
	EXECUTE format('SELECT bk_caller.partial(%L::regprocedure, %s) FROM (SELECT * FROM pts ORDER BY id) t', agg, q) INTO part;
	RETURN (SELECT bk_caller.combine_model(agg, p) FROM (VALUES (part)) v(p));
END $$;

WITH forms(form, agg, args, serial) AS (VALUES
	('int8 labels', 'bk_train(bk_features, bk_label, jsonb)', 'features, label::bk_label, ''{"budget": 40, "gamma": 20}''::jsonb',
	 (SELECT bk_train(features, label, '{"budget": 40, "gamma": 20}' ORDER BY id) FROM pts)),
	('int4 labels', 'bk_train(bk_features, bk_label, jsonb)', 'features, label::int4::bk_label, ''{"budget": 40, "gamma": 20}''::jsonb',
	 (SELECT bk_train(features, label::int4, '{"budget": 40, "gamma": 20}' ORDER BY id) FROM pts)),
	('text labels', 'bk_train(bk_features, bk_label, jsonb)', 'features, name::bk_label, ''{"budget": 40, "gamma": 20}''::jsonb',
	 (SELECT bk_train(features, name, '{"budget": 40, "gamma": 20}' ORDER BY id) FROM pts)),
	('regression', 'bk_train(bk_features, bk_label, jsonb)', 'features, target::bk_label, ''{"budget": 40}''::jsonb',
	 (SELECT bk_train(features, target, '{"budget": 40}' ORDER BY id) FROM pts)),
	('novelty', 'bk_train(bk_features, bk_label, jsonb)', 'features, NULL::bk_label, ''{"task": "novelty", "budget": 40}''::jsonb',
	 (SELECT bk_train(features, NULL, '{"task": "novelty", "budget": 40}' ORDER BY id) FROM pts)))
SELECT form, md5(m::bytea) = md5(serial::bytea) AS same_bytes, bk_is_valid(m::bytea) AS valid
FROM forms, LATERAL (SELECT bk_caller.one_part(agg::regprocedure, args) AS m) p
ORDER BY form;

-- two parts, combined as a coordinator combines them: a valid merged model
-- of the same classes, as accurate as the parallel plan's merge
CREATE TABLE parts AS
SELECT part, bk_caller.partial('bk_train(bk_features, bk_label, jsonb)'::regprocedure,
                             features, label::bk_label, '{"budget": 40, "gamma": 20}'::jsonb) AS state
FROM (SELECT *, id % 2 AS part FROM pts ORDER BY id) t GROUP BY part;
SELECT bk_is_valid(m::bytea) AS valid, bk_info(m)->'classes' AS classes,
       (SELECT avg((bk_predict(m, features) = label)::int) FROM pts) > 0.85 AS accurate
FROM (SELECT bk_caller.combine_model('bk_train(bk_features, bk_label, jsonb)'::regprocedure, state ORDER BY part) AS m
      FROM parts) c;

-- bk_merge over the two parts' models: a valid model, as accurate; not
-- the bytes of bk_merge(m): its serialised state, like a parallel plan's,
-- keeps the merged model but not the union of the parts it distils from
-- (bk_merge_agg.c)
SELECT bk_is_valid(m::bytea) AS valid,
       (SELECT avg((bk_predict(m, features) = label)::int) FROM pts) > 0.85 AS accurate
FROM (SELECT bk_caller.combine_model('bk_merge(bk_model)'::regprocedure, p) AS m
      FROM (SELECT bk_caller.partial('bk_merge(bk_model)'::regprocedure, m) AS p FROM
            (SELECT part, bk_caller.combine_model('bk_train(bk_features, bk_label, jsonb)'::regprocedure, state) AS m
             FROM parts GROUP BY part ORDER BY part) q) t) c;

-- bk_metrics: text and integer labels, scores and probabilities, a
-- regression report: the whole report equals the one PostgreSQL computes
CREATE TABLE reports AS
SELECT 'text labels' AS form,
       (SELECT bk_caller.combine_jsonb('bk_metrics(bk_label, bk_label)'::regprocedure, p)
        FROM (SELECT bk_caller.partial('bk_metrics(bk_label, bk_label)'::regprocedure, name::bk_label,
                                     (CASE WHEN id % 4 = 0 THEN 'plus' ELSE name END)::bk_label) AS p FROM pts) t) AS generic,
       (SELECT bk_metrics(name, CASE WHEN id % 4 = 0 THEN 'plus' ELSE name END) FROM pts) AS expected
UNION ALL
SELECT 'int8 labels and scores',
       (SELECT bk_caller.combine_jsonb('bk_metrics(bk_label, bk_label, float8)'::regprocedure, p)
        FROM (SELECT bk_caller.partial('bk_metrics(bk_label, bk_label, float8)'::regprocedure, label::bk_label, label::bk_label, x) AS p FROM pts) t),
       (SELECT bk_metrics(label, label, x) FROM pts)
UNION ALL
SELECT 'int8 labels and probabilities',
       (SELECT bk_caller.combine_jsonb('bk_metrics(bk_label, bk_label, float8[])'::regprocedure, p)
        FROM (SELECT bk_caller.partial('bk_metrics(bk_label, bk_label, float8[])'::regprocedure, label::bk_label, label::bk_label,
                                     ARRAY[0.3, 0.7]::float8[]) AS p FROM pts) t),
       (SELECT bk_metrics(label, label, ARRAY[0.3, 0.7]::float8[]) FROM pts)
UNION ALL
SELECT 'int4 labels',
       (SELECT bk_caller.combine_jsonb('bk_metrics(bk_label, bk_label)'::regprocedure, p)
        FROM (SELECT bk_caller.partial('bk_metrics(bk_label, bk_label)'::regprocedure, label::int4::bk_label, 1::bk_label) AS p FROM pts) t),
       (SELECT bk_metrics(label::int4, 1) FROM pts)
UNION ALL
SELECT 'regression',
       (SELECT bk_caller.combine_jsonb('bk_metrics(bk_label, bk_label)'::regprocedure, p)
        FROM (SELECT bk_caller.partial('bk_metrics(bk_label, bk_label)'::regprocedure, target::bk_label, (target * 0.9)::bk_label) AS p FROM pts) t),
       (SELECT bk_metrics(target, target * 0.9) FROM pts);
SELECT form, generic IS NOT NULL AND generic = expected AS same_report,
       coalesce(generic->'accuracy', generic->'r2') AS accuracy_or_r2, generic->'roc_auc' AS roc_auc,
       generic->'log_loss' AS log_loss
FROM reports ORDER BY form;

-- A fuzz of the argument forms a generic caller may present: too few
-- or too many arguments, NULLs in every place, partial states cut short,
-- of another aggregate, of another version or plain noise.  Each gives a
-- clean error or the answer PostgreSQL's own call gives; the backend
-- survives every one (the last query proves it).  Errors print their
-- SQLSTATE and message (OIDs masked).
CREATE FUNCTION bk_caller.outcome(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
	IF q IS NULL THEN
		RETURN NULL;
	END IF;
	EXECUTE q INTO r;
	RETURN 'result ' || coalesce(r, 'NULL');
EXCEPTION WHEN OTHERS THEN
	RETURN 'ERROR ' || SQLSTATE || ': ' || regexp_replace(SQLERRM, '[0-9]{5,}', 'N', 'g');
END $$;
CREATE TABLE states AS
SELECT (SELECT state FROM parts WHERE part = 0) AS train,
       (SELECT bk_caller.partial('bk_metrics(bk_label, bk_label)'::regprocedure, label::bk_label, label::bk_label) FROM pts) AS metrics,
       (SELECT bk_caller.partial('bk_metrics(bk_label, bk_label)'::regprocedure, target::bk_label, target::bk_label) FROM pts) AS regression;
-- argument counts and NULLs: the generic call against PostgreSQL's own
SELECT form, bk_caller.outcome(generic) AS generic, bk_caller.outcome(own) AS own
FROM (VALUES
	('train: features only', $$SELECT md5(bk_caller.partial('bk_train(bk_features, bk_label, jsonb)'::regprocedure, features)) FROM pts$$, NULL),
	('train: no params', $$SELECT md5(bk_caller.partial('bk_train(bk_features, bk_label, jsonb)'::regprocedure, features, label::bk_label)) FROM pts$$, NULL),
	('merge: one argument too many', $$SELECT md5(bk_caller.partial('bk_merge(bk_model)'::regprocedure, NULL::bk_model, label)) FROM pts$$, NULL),
	('metrics: one label only', $$SELECT md5(bk_caller.partial('bk_metrics(bk_label, bk_label)'::regprocedure, label::bk_label)) FROM pts$$, NULL),
	('train: NULL features', $$SELECT md5(bk_caller.combine_model('bk_train(bk_features, bk_label, jsonb)'::regprocedure, p)::bytea) FROM (SELECT bk_caller.partial('bk_train(bk_features, bk_label, jsonb)'::regprocedure, NULL::bk_features, label::bk_label, '{"budget": 40}'::jsonb) p FROM pts) t$$,
	 $$SELECT md5(bk_train(NULL::bk_features, label, '{"budget": 40}')::bytea) FROM pts$$),
	('train: NULL labels', $$SELECT md5(bk_caller.combine_model('bk_train(bk_features, bk_label, jsonb)'::regprocedure, p)::bytea) FROM (SELECT bk_caller.partial('bk_train(bk_features, bk_label, jsonb)'::regprocedure, features, NULL::bk_label, '{"budget": 40}'::jsonb) p FROM pts) t$$,
	 $$SELECT md5(bk_train(features, NULL::int8, '{"budget": 40}')::bytea) FROM pts$$),
	('train: NULL params', $$SELECT md5(bk_caller.combine_model('bk_train(bk_features, bk_label, jsonb)'::regprocedure, p)::bytea) FROM (SELECT bk_caller.partial('bk_train(bk_features, bk_label, jsonb)'::regprocedure, features, label::bk_label, NULL::jsonb) p FROM pts) t$$,
	 $$SELECT md5(bk_train(features, label, NULL::jsonb)::bytea) FROM pts$$),
	('novelty: NULL params', $$SELECT md5(bk_caller.combine_model('bk_train(bk_features, bk_label, jsonb)'::regprocedure, p)::bytea) FROM (SELECT bk_caller.partial('bk_train(bk_features, bk_label, jsonb)'::regprocedure, features, NULL::bk_label, NULL::jsonb) p FROM pts) t$$,
	 $$SELECT md5(bk_train(features, NULL, NULL::jsonb)::bytea) FROM pts$$),
	('merge: NULL models', $$SELECT md5(bk_caller.combine_model('bk_merge(bk_model)'::regprocedure, p)::bytea) FROM (SELECT bk_caller.partial('bk_merge(bk_model)'::regprocedure, NULL::bk_model) p FROM pts) t$$,
	 $$SELECT md5(bk_merge(NULL::bk_model)::bytea) FROM pts$$),
	('metrics: NULL predictions', $$SELECT bk_caller.combine_jsonb('bk_metrics(bk_label, bk_label)'::regprocedure, p) FROM (SELECT bk_caller.partial('bk_metrics(bk_label, bk_label)'::regprocedure, label::bk_label, NULL::bk_label) p FROM pts) t$$,
	 $$SELECT bk_metrics(label, NULL::int8) FROM pts$$),
	('regression metrics: NULL targets', $$SELECT bk_caller.combine_jsonb('bk_metrics(bk_label, bk_label)'::regprocedure, p) FROM (SELECT bk_caller.partial('bk_metrics(bk_label, bk_label)'::regprocedure, NULL::bk_label, target::bk_label) p FROM pts) t$$,
	 $$SELECT bk_metrics(NULL::float8, target) FROM pts$$),
	('no function OID: train', $$SELECT md5(bk_caller.partial_nooid('bk_train(bk_features, bk_label, jsonb)'::regprocedure, features, label::bk_label, '{"budget": 40}'::jsonb)) FROM pts$$, NULL),
	('no function OID: metrics', $$SELECT md5(bk_caller.partial_nooid('bk_metrics(bk_label, bk_label)'::regprocedure, label::bk_label, label::bk_label)) FROM pts$$, NULL),
	('no function OID: combine and final of bk_train', $$SELECT md5(bk_caller.combine_model_nooid('bk_train(bk_features, bk_label, jsonb)'::regprocedure, state ORDER BY part)::bytea) = md5(bk_caller.combine_model('bk_train(bk_features, bk_label, jsonb)'::regprocedure, state ORDER BY part)::bytea) FROM parts$$, NULL),
	('no function OID: combine and final of bk_metrics', $$SELECT (SELECT bk_caller.combine_jsonb_nooid('bk_metrics(bk_label, bk_label)'::regprocedure, metrics) FROM states) = (SELECT bk_metrics(label, label) FROM pts)$$, NULL),
	('combine: no state at all', $$SELECT md5(bk_caller.combine_model('bk_train(bk_features, bk_label, jsonb)'::regprocedure, NULL::bytea)::bytea)$$,
	 $$SELECT md5(bk_train(features, label, '{}')::bytea) FROM pts WHERE false$$)
) f(form, generic, own) ORDER BY form;
-- partial states that are not a state of the aggregate: each an error
SELECT form, bk_caller.outcome(format('SELECT md5(bk_caller.%s(%L::regprocedure, %L::bytea)::text)', final, agg, state)) AS outcome
FROM states, LATERAL (VALUES
	('train: empty', 'combine_model', 'bk_train(bk_features, bk_label, jsonb)', ''::bytea),
	('train: one byte', 'combine_model', 'bk_train(bk_features, bk_label, jsonb)', substr(train, 1, 1)),
	('train: header cut', 'combine_model', 'bk_train(bk_features, bk_label, jsonb)', substr(train, 1, 9)),
	('train: model cut to a byte', 'combine_model', 'bk_train(bk_features, bk_label, jsonb)', substr(train, 1, 11)),
	('train: model cut in half', 'combine_model', 'bk_train(bk_features, bk_label, jsonb)', substr(train, 1, length(train) / 2)),
	('train: model a byte short', 'combine_model', 'bk_train(bk_features, bk_label, jsonb)', substr(train, 1, length(train) - 1)),
	('train: another version', 'combine_model', 'bk_train(bk_features, bk_label, jsonb)', set_byte(train, 0, 2)),
	('train: a byte too many', 'combine_model', 'bk_train(bk_features, bk_label, jsonb)', train || '\x00'::bytea),
	('train: noise', 'combine_model', 'bk_train(bk_features, bk_label, jsonb)', '\x01'::bytea || decode(repeat(md5('noise'), 8), 'hex')),
	('train: a metrics state', 'combine_model', 'bk_train(bk_features, bk_label, jsonb)', metrics),
	('merge: a metrics state', 'combine_model', 'bk_merge(bk_model)', metrics),
	('metrics: empty', 'combine_jsonb', 'bk_metrics(bk_label, bk_label)', ''::bytea),
	('metrics: cut in half', 'combine_jsonb', 'bk_metrics(bk_label, bk_label)', substr(metrics, 1, length(metrics) / 2)),
	('metrics: a byte short', 'combine_jsonb', 'bk_metrics(bk_label, bk_label)', substr(metrics, 1, length(metrics) - 1)),
	('metrics: a byte too many', 'combine_jsonb', 'bk_metrics(bk_label, bk_label)', metrics || '\x00'::bytea),
	('metrics: noise', 'combine_jsonb', 'bk_metrics(bk_label, bk_label)', decode(repeat(md5('noise'), 8), 'hex')),
	('metrics: a regression state', 'combine_jsonb', 'bk_metrics(bk_label, bk_label)', regression),
	('regression metrics: a byte short', 'combine_jsonb', 'bk_metrics(bk_label, bk_label)', substr(regression, 1, length(regression) - 1)),
	('regression metrics: a byte too many', 'combine_jsonb', 'bk_metrics(bk_label, bk_label)', regression || '\x00'::bytea),
	('regression metrics: its report cut', 'combine_jsonb', 'bk_metrics(bk_label, bk_label)', substr(regression, 1, 12))
) c(form, final, agg, state) ORDER BY form;
-- the backend is the same one: nothing above took it down
SELECT count(*) AS rows_after_the_fuzz FROM pts;

RESET max_parallel_workers_per_gather;
DROP TABLE pts, parts, reports, states;
DROP SCHEMA bk_caller CASCADE;
