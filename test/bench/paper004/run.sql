-- Paper 004 Table 1 on our data: gamma from {2^0, 2^2, 2^4, 2^6}/dim chosen
-- with merge at B = 100 on a validation fifth of the training part, then
-- every maintenance strategy at B = 100 and 500 over 3 seeded permutations,
-- and the unbudgeted Pegasos once.  Needs test/bench/paper004/load.sql first.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP TABLE IF EXISTS p004.gamma_search, p004.results;
CREATE TABLE p004.gamma_search (ds text, mult int, gamma float8, acc float8);
CREATE TABLE p004.results (ds text, budget int, maintenance text, perm int, gamma float8, acc float8, n_sv int, train_s float8, online_err float8);
DO $$
DECLARE d record; mult int; g float8; a float8; m bk_model;
BEGIN
  -- gamma: the paper's grid {2^0, 2^2, 2^4, 2^6} / dim, chosen with merge at
  -- B = 100 on a validation fifth of the training part
  FOR d IN SELECT ds, max(array_length(features, 1)) AS dim FROM p004.data GROUP BY ds LOOP
    FOREACH mult IN ARRAY ARRAY[1, 4, 16, 64] LOOP
      g := mult::float8 / d.dim;
      SELECT bk_train(features, label, jsonb_build_object('algorithm', 'pegasos', 'maintenance', 'merge', 'budget', 100, 'gamma', g, 'lambda', 0.0001)
                      ORDER BY md5('0:' || id)) INTO m
      FROM p004.data WHERE ds = d.ds AND part = 'train' AND ('x' || substr(md5('val:' || id), 1, 8))::bit(32)::int % 5 <> 0;
      SELECT avg((bk_predict(m, features) = label)::int) INTO a
      FROM p004.data WHERE ds = d.ds AND part = 'train' AND ('x' || substr(md5('val:' || id), 1, 8))::bit(32)::int % 5 = 0;
      INSERT INTO p004.gamma_search VALUES (d.ds, mult, g, a);
    END LOOP;
  END LOOP;
END $$;
SELECT * FROM p004.gamma_search ORDER BY ds, mult;
DO $$
DECLARE d record; b int; meth text; p int; t0 timestamptz; secs float8; m bk_model; a float8;
BEGIN
  FOR d IN SELECT DISTINCT ON (ds) ds, gamma FROM p004.gamma_search ORDER BY ds, acc DESC, mult LOOP
    FOREACH b IN ARRAY ARRAY[100, 500] LOOP
      FOREACH meth IN ARRAY ARRAY['random', 'smallest', 'projection', 'merge'] LOOP
        FOR p IN 1..3 LOOP
          t0 := clock_timestamp();
          SELECT bk_train(features, label, jsonb_build_object('algorithm', 'pegasos', 'maintenance', meth, 'budget', b,
                                                              'gamma', d.gamma, 'lambda', 0.0001, 'seed', p)
                          ORDER BY md5(p || ':' || id)) INTO m
          FROM p004.data WHERE ds = d.ds AND part = 'train';
          secs := extract(epoch FROM clock_timestamp() - t0);
          SELECT avg((bk_predict(m, features) = label)::int) INTO a FROM p004.data WHERE ds = d.ds AND part = 'test';
          INSERT INTO p004.results VALUES (d.ds, b, meth, p, d.gamma, a, (bk_info(m)->>'n_sv')::int, secs,
                                           (bk_info(m)->>'online_mistake_rate')::float8);
        END LOOP;
      END LOOP;
    END LOOP;
    -- the unbudgeted PegasosM, one stream
    t0 := clock_timestamp();
    SELECT bk_train(features, label, jsonb_build_object('algorithm', 'pegasos', 'maintenance', 'none', 'max_sv', 20000,
                                                        'gamma', d.gamma, 'lambda', 0.0001) ORDER BY md5(1 || ':' || id)) INTO m
    FROM p004.data WHERE ds = d.ds AND part = 'train';
    secs := extract(epoch FROM clock_timestamp() - t0);
    SELECT avg((bk_predict(m, features) = label)::int) INTO a FROM p004.data WHERE ds = d.ds AND part = 'test';
    INSERT INTO p004.results VALUES (d.ds, NULL, 'none', 1, d.gamma, a, (bk_info(m)->>'n_sv')::int, secs,
                                     (bk_info(m)->>'online_mistake_rate')::float8);
  END LOOP;
END $$;
SELECT ds, budget, maintenance, round(100 * avg(acc)::numeric, 1) AS acc, round(100 * stddev_samp(acc)::numeric, 1) AS sd,
       round(avg(n_sv)) AS n_sv, round(avg(train_s)::numeric, 2) AS train_s, round(100 * avg(online_err)::numeric, 1) AS online_err
FROM p004.results GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
