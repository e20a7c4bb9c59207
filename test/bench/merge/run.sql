-- Merge accuracy against the number of parts (doc/merge-accuracy.md).
--
-- The protocol of the measurement it answers: a9a and usps, the LIBSVM
-- files as they are (no standardisation: a9a's 0/1 indicators, usps' pixels
-- in [0, 1]), each part a bk_train(... ORDER BY id) over mod(id, P), the
-- parts merged by bk_merge(m ORDER BY part), B = 100, gamma 0.0625; BPA-NN
-- (C 0.1 on a9a, 1 on usps, one-vs-rest) and Pegasos with merging
-- maintenance (lambda 1e-4).  For each learner and P it records, on the
-- test split:
--
--   serial      P = 1, one model over every row (the target)
--   one part    part 0 alone
--   average     the exact average of the P parts' scores, weighted by rows
--               seen as bk_merge weights them, with NO reduction to the
--               budget (bk_scores of every part, summed, argmax): what a
--               perfect reduction would keep
--   merge       bk_merge(m ORDER BY part): the left fold the aggregate does
--   tree        the same parts merged pairwise, (0,1), (2,3), ..., then the
--               results pairwise, with bk_merge(a, b)
--   ipm r       iterative parameter mixing: round r continues every part
--               from the last merged model (bk_continue(... ORDER BY id))
--               and merges the parts again (ipm 0 = merge); "ipm avg r" is
--               the exact average of round r's parts
--   distil e    a fresh model (same learner, same B, e epochs) trained on
--               the distinct support vectors of all the parts, each
--               labelled by the exact average's prediction, in a seeded
--               shuffle: the averaged function compressed by the learner
--               itself instead of by the merge's projection
--   ipm-distil r  iterative parameter mixing with "distil 5" as the merge
--
-- "agree" is the share of test rows where the model predicts what the
-- exact average of the first parts predicts (for ipm, of round 0's parts);
-- "rows_seen" is bk_info's; "secs" the wall time of the merge step (of a
-- whole round for ipm, of labelling in SQL and training for distil),
-- training of the parts excluded.  Three diagnostic tables follow: for the
-- merged model at the largest P, how many of its support vectors come from
-- each part; the size of the union of the parts' SVs (all and distinct),
-- before and after one round of ipm; and, for the serial model's SVs, the
-- kernel value of each one's nearest other SV.
--
-- Run from the repository root (the data are read the way the tests read
-- them, from ../shared/data):
--   psql -f test/bench/merge/run.sql
--   psql -v only='a9a BPA-NN' -v ps='{1,2,4,8,16,32}' -f test/bench/merge/run.sql
-- (one setting; other part counts, in increasing order, the largest last)
-- About 16 minutes on one core (most of it labelling the union in SQL).
-- The results stay in schema bkm (bkm.results and the diagnostic tables).
\set ON_ERROR_STOP 1
\set schema bkm
\ir load.sql

CREATE TABLE bkm.setting (name text PRIMARY KEY, ds text, params jsonb, ps int[]);
INSERT INTO bkm.setting VALUES
  ('a9a BPA-NN', 'a9a', '{"algorithm": "bpa", "variant": "nn", "budget": 100, "gamma": 0.0625, "C": 0.1}', '{1,2,4,8,16,32}'),
  ('usps BPA-NN', 'usps', '{"algorithm": "bpa", "variant": "nn", "budget": 100, "gamma": 0.0625, "C": 1}', '{1,2,4,8,16,32}'),
  ('a9a Pegasos-merge', 'a9a', '{"algorithm": "pegasos", "maintenance": "merge", "budget": 100, "gamma": 0.0625, "lambda": 0.0001}', '{1,2,4,8,16,32}'),
  ('usps Pegasos-merge', 'usps', '{"algorithm": "pegasos", "maintenance": "merge", "budget": 100, "gamma": 0.0625, "lambda": 0.0001}', '{1,2,4,8,16,32}');
-- psql -v only='usps BPA-NN' runs one setting, -v ps='{1,8}' other part counts
\if :{?only}
DELETE FROM bkm.setting WHERE name <> :'only';
\endif
\if :{?ps}
UPDATE bkm.setting SET ps = :'ps';
\endif
CREATE TABLE bkm.results (seq serial, setting text, p int, measure text, acc float8, agree float8, n_sv int, rows_seen int8, secs float8);
CREATE TABLE bkm.provenance (setting text, p int, part int, n_sv int);
CREATE TABLE bkm.cur (m bk_model);
CREATE TABLE bkm.serial (setting text, m bk_model);
CREATE TABLE bkm.union_size (setting text, p int, stage text, svs int, distinct_svs int);
CREATE FUNCTION bkm.union_size(p_setting text, p_p int, p_stage text, parts bk_model[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO bkm.union_size SELECT p_setting, p_p, p_stage, count(*), count(DISTINCT g.x)
  FROM unnest(parts) u(pm), bk_support_vectors(u.pm) g $$;

-- test accuracy of one model (a variable, so the model is decoded once)
CREATE FUNCTION bkm.acc(p_ds text, m bk_model) RETURNS float8 LANGUAGE sql STABLE AS $$
  SELECT avg((bk_predict(m, features) = label)::int) FROM bkm.data WHERE ds = p_ds AND part = 'test' $$;

-- the prediction of the rows-weighted average of the models' scores on the
-- rows (ds, part) of bkm.data, into bkm.avgpred (ds, tag, id, pred)
CREATE TABLE bkm.avgpred (ds text, tag text, id bigint, pred int8, PRIMARY KEY (ds, tag, id));
CREATE FUNCTION bkm.average(p_ds text, p_part text, models bk_model[], p_tag text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE i int; w float8; m bk_model; cls jsonb := bk_info(models[1])->'classes';
BEGIN
  CREATE TEMP TABLE IF NOT EXISTS bkm_scores (id bigint, k int, s float8);
  TRUNCATE bkm_scores;
  FOR i IN 1 .. cardinality(models) LOOP
    m := models[i];
    IF bk_info(m)->'classes' <> cls THEN RAISE EXCEPTION 'parts with different classes'; END IF;
    w := (bk_info(m)->>'rows_seen')::float8;
    INSERT INTO bkm_scores SELECT d.id, u.k, w * u.v
    FROM bkm.data d, unnest(bk_scores(m, d.features)) WITH ORDINALITY u(v, k) WHERE d.ds = p_ds AND d.part = p_part;
  END LOOP;
  DELETE FROM bkm.avgpred a WHERE a.ds = p_ds AND a.tag = p_tag;
  -- the first class of the largest score, as bk_predict
  INSERT INTO bkm.avgpred
  SELECT DISTINCT ON (s.id) p_ds, p_tag, s.id, (cls->>(s.k - 1))::int8
  FROM (SELECT b.id, b.k, sum(b.s) AS s FROM bkm_scores b GROUP BY 1, 2) s ORDER BY s.id, s.s DESC, s.k;
END $$;

-- accuracy and agreement with the exact average of the parts (tag 'test')
CREATE FUNCTION bkm.record(p_setting text, p_ds text, p_p int, p_measure text, m bk_model, p_secs float8) RETURNS void LANGUAGE sql AS $$
  INSERT INTO bkm.results (setting, p, measure, acc, agree, n_sv, rows_seen, secs)
  SELECT p_setting, p_p, p_measure, avg((pr = d.label)::int), avg((pr = a.pred)::int), (bk_info(m)->>'n_sv')::int,
         (bk_info(m)->>'rows_seen')::int8, p_secs
  FROM (SELECT id, label, bk_predict(m, features) AS pr FROM bkm.data WHERE ds = p_ds AND part = 'test') d
  LEFT JOIN bkm.avgpred a ON a.ds = p_ds AND a.tag = 'test' AND a.id = d.id $$;

CREATE FUNCTION bkm.record_average(p_setting text, p_ds text, p_p int, p_measure text, p_tag text) RETURNS void LANGUAGE sql AS $$
  INSERT INTO bkm.results (setting, p, measure, acc, agree, n_sv, secs)
  SELECT p_setting, p_p, p_measure, avg((a.pred = d.label)::int), avg((a.pred = t.pred)::int), NULL, NULL
  FROM bkm.avgpred a JOIN bkm.data d ON d.ds = a.ds AND d.part = 'test' AND d.id = a.id
  JOIN bkm.avgpred t ON t.ds = a.ds AND t.tag = 'test' AND t.id = a.id
  WHERE a.ds = p_ds AND a.tag = p_tag $$;

-- distillation: a fresh model of the learner (e epochs, seeded shuffle) on
-- the parts' distinct support vectors, each labelled by the prediction of
-- the exact average of the parts (kept as the rows of part 'union')
CREATE FUNCTION bkm.distil(p_ds text, p_params jsonb, parts bk_model[], e int) RETURNS bk_model LANGUAGE plpgsql AS $$
DECLARE m bk_model;
BEGIN
  DELETE FROM bkm.data WHERE ds = p_ds AND part = 'union';
  INSERT INTO bkm.data
  SELECT p_ds, 'union', row_number() OVER (ORDER BY x), NULL, x
  FROM (SELECT DISTINCT g.x FROM unnest(parts) u(pm), bk_support_vectors(u.pm) g) q;
  PERFORM bkm.average(p_ds, 'union', parts, 'union');
  UPDATE bkm.data d SET label = a.pred FROM bkm.avgpred a
  WHERE d.ds = p_ds AND d.part = 'union' AND a.ds = p_ds AND a.tag = 'union' AND a.id = d.id;
  SELECT bk_train(features, label, p_params || jsonb_build_object('epochs', e) ORDER BY bk_shuffle_key(id, 1)) INTO m
  FROM bkm.data WHERE ds = p_ds AND part = 'union';
  RETURN m;
END $$;

-- the models merged pairwise as a balanced tree
CREATE FUNCTION bkm.tree_merge(models bk_model[]) RETURNS bk_model LANGUAGE plpgsql AS $$
DECLARE cur bk_model[] := models; nxt bk_model[]; i int;
BEGIN
  WHILE cardinality(cur) > 1 LOOP
    nxt := '{}';
    FOR i IN 1 .. cardinality(cur) BY 2 LOOP
      IF i < cardinality(cur) THEN nxt := nxt || bk_merge(cur[i], cur[i + 1]);
      ELSE nxt := nxt || cur[i]; END IF;
    END LOOP;
    cur := nxt;
  END LOOP;
  RETURN cur[1];
END $$;

DO $$
DECLARE
  s record; np int; parts bk_model[]; merged bk_model; m bk_model; t0 timestamptz; r int; e int; n_union int;
BEGIN
  FOR s IN SELECT * FROM bkm.setting ORDER BY name LOOP
    FOREACH np IN ARRAY s.ps LOOP
      RAISE NOTICE '% P = %', s.name, np;
      SELECT array_agg(pm ORDER BY pt) INTO parts
      FROM (SELECT mod(id, np) AS pt, bk_train(features, label, s.params ORDER BY id) AS pm
            FROM bkm.data WHERE ds = s.ds AND part = 'train' GROUP BY 1) q;
      PERFORM bkm.average(s.ds, 'test', parts, 'test');
      IF np = 1 THEN
        PERFORM bkm.record(s.name, s.ds, np, 'serial', parts[1], 0);
        INSERT INTO bkm.serial VALUES (s.name, parts[1]);
        FOREACH e IN ARRAY ARRAY[3, 5] LOOP
          t0 := clock_timestamp();
          SELECT bk_train(features, label, s.params || jsonb_build_object('epochs', e) ORDER BY id) INTO m
          FROM bkm.data WHERE ds = s.ds AND part = 'train';
          PERFORM bkm.record(s.name, s.ds, np, 'serial ' || e || ' epochs', m, extract(epoch FROM clock_timestamp() - t0));
        END LOOP;
        CONTINUE;
      END IF;
      PERFORM bkm.record(s.name, s.ds, np, 'one part', parts[1], 0);
      PERFORM bkm.union_size(s.name, np, 'parts', parts);
      PERFORM bkm.record_average(s.name, s.ds, np, 'average', 'test');
      t0 := clock_timestamp();
      SELECT bk_merge(pm ORDER BY o) INTO merged FROM unnest(parts) WITH ORDINALITY u(pm, o);
      PERFORM bkm.record(s.name, s.ds, np, 'merge', merged, extract(epoch FROM clock_timestamp() - t0));
      t0 := clock_timestamp();
      m := bkm.tree_merge(parts);
      PERFORM bkm.record(s.name, s.ds, np, 'tree', m, extract(epoch FROM clock_timestamp() - t0));
      -- where the merged model's SVs come from
      IF np = s.ps[cardinality(s.ps)] THEN
        INSERT INTO bkm.provenance
        SELECT s.name, np, src.o - 1, count(DISTINCT f.sv)
        FROM bk_support_vectors(merged) f
        JOIN (SELECT g.x, min(u.o) AS o FROM unnest(parts) WITH ORDINALITY u(pm, o), bk_support_vectors(u.pm) g
              GROUP BY g.x) src ON src.x = f.x
        GROUP BY src.o;
      END IF;
      -- distillation: the parts' distinct SVs labelled by the exact average
      FOREACH e IN ARRAY ARRAY[1, 5, 20] LOOP
        t0 := clock_timestamp();
        m := bkm.distil(s.ds, s.params, parts, e);
        SELECT count(*) INTO n_union FROM bkm.data WHERE ds = s.ds AND part = 'union';
        PERFORM bkm.record(s.name, s.ds, np, 'distil ' || e || ' (' || n_union || ' rows)', m, extract(epoch FROM clock_timestamp() - t0));
      END LOOP;
      -- iterative parameter mixing.  The merged model is read from a table:
      -- an aggregate's arguments go through its ORDER BY sort with every
      -- row, and a table's model is a small TOAST pointer there, where a
      -- PL/pgSQL variable is the whole model (30 times slower on a9a)
      FOR r IN 1 .. 5 LOOP
        t0 := clock_timestamp();
        TRUNCATE bkm.cur;
        INSERT INTO bkm.cur VALUES (merged);
        SELECT array_agg(pm ORDER BY pt) INTO parts
        FROM (SELECT mod(id, np) AS pt, bk_continue(features, label, (SELECT c.m FROM bkm.cur c) ORDER BY id) AS pm
              FROM bkm.data WHERE ds = s.ds AND part = 'train' GROUP BY 1) q;
        SELECT bk_merge(pm ORDER BY o) INTO merged FROM unnest(parts) WITH ORDINALITY u(pm, o);
        PERFORM bkm.record(s.name, s.ds, np, 'ipm ' || r, merged, extract(epoch FROM clock_timestamp() - t0));
        IF r = 1 THEN PERFORM bkm.union_size(s.name, np, 'ipm 1 parts', parts); END IF;
        IF r IN (1, 5) THEN
          PERFORM bkm.average(s.ds, 'test', parts, 'ipm');
          PERFORM bkm.record_average(s.name, s.ds, np, 'ipm avg ' || r, 'ipm');
        END IF;
      END LOOP;
      -- iterative parameter mixing with distillation (5 epochs) as the merge
      SELECT array_agg(pm ORDER BY pt) INTO parts
      FROM (SELECT mod(id, np) AS pt, bk_train(features, label, s.params ORDER BY id) AS pm
            FROM bkm.data WHERE ds = s.ds AND part = 'train' GROUP BY 1) q;
      merged := bkm.distil(s.ds, s.params, parts, 5);
      FOR r IN 1 .. 3 LOOP
        t0 := clock_timestamp();
        TRUNCATE bkm.cur;
        INSERT INTO bkm.cur VALUES (merged);
        SELECT array_agg(pm ORDER BY pt) INTO parts
        FROM (SELECT mod(id, np) AS pt, bk_continue(features, label, (SELECT c.m FROM bkm.cur c) ORDER BY id) AS pm
              FROM bkm.data WHERE ds = s.ds AND part = 'train' GROUP BY 1) q;
        merged := bkm.distil(s.ds, s.params, parts, 5);
        PERFORM bkm.record(s.name, s.ds, np, 'ipm-distil ' || r, merged, extract(epoch FROM clock_timestamp() - t0));
      END LOOP;
    END LOOP;
  END LOOP;
END $$;

\pset footer off
SELECT setting, p, measure, round(100 * acc::numeric, 2) AS acc, round(100 * agree::numeric, 1) AS agree, n_sv,
       rows_seen, round(secs::numeric, 2) AS secs
FROM bkm.results ORDER BY setting, p, seq;
SELECT setting, p, count(*) AS parts_contributing, string_agg(part || ':' || n_sv, ' ' ORDER BY part) AS svs_by_part
FROM bkm.provenance GROUP BY 1, 2 ORDER BY 1, 2;
SELECT setting, p, stage, svs, distinct_svs FROM bkm.union_size ORDER BY 1, 2, 3;
-- how far apart the support vectors are: for each distinct SV of the serial
-- model, the kernel value of its nearest other SV (1 = a duplicate, near 0 =
-- alone); projecting an SV onto others keeps little of it when this is small
SELECT v.setting, count(*) AS svs,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY v.k_nearest)::numeric, 3) AS median_k_nearest,
       round(percentile_cont(0.1) WITHIN GROUP (ORDER BY v.k_nearest)::numeric, 3) AS p10_k_nearest
FROM (SELECT a.setting, a.x, max(exp(-(st.params->>'gamma')::float8 *
                                     (SELECT sum((u - w) ^ 2) FROM unnest(a.x, b.x) t(u, w)))) AS k_nearest
      FROM (SELECT DISTINCT s.setting, g.x FROM bkm.serial s, bk_support_vectors(s.m) g) a
      JOIN (SELECT DISTINCT s.setting, g.x FROM bkm.serial s, bk_support_vectors(s.m) g) b
        ON b.setting = a.setting AND b.x <> a.x
      JOIN bkm.setting st ON st.name = a.setting
      GROUP BY a.setting, a.x) v
GROUP BY v.setting ORDER BY v.setting;
