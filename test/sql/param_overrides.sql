--
-- bk_continue(features, label, model, overrides): the parameters that only
-- shape the steps to come may change when a model is trained further
-- ("seed" for every learner; C of the PA learners and of the budget
-- perceptrons; eta of OGD, SPA and Projectron++; lambda of Pegasos and
-- BOGD; ...), and the model records the new values.  A parameter the
-- state holds to (a budget, DUOL's C, BOGD's eta) cannot.
--
\i test/fixtures/checkerboard.sql
CREATE TABLE po_rows AS SELECT * FROM bk_test.checkerboard(800);
CREATE TABLE po_models AS
SELECT (SELECT bk_train(features, label, '{"gamma": 20, "budget": 50}' ORDER BY id) FROM po_rows WHERE id <= 400) AS bpa,
       (SELECT bk_train(features, label, '{"algorithm": "rbp", "gamma": 20, "budget": 30}' ORDER BY id) FROM po_rows WHERE id <= 400) AS rbp,
       (SELECT bk_train(features, label, '{"algorithm": "duol", "gamma": 20}' ORDER BY id) FROM po_rows WHERE id <= 400) AS duol,
       (SELECT bk_train(features, label, '{"algorithm": "pegasos", "gamma": 20, "budget": 40}' ORDER BY id) FROM po_rows WHERE id <= 400) AS pegasos,
       (SELECT bk_train(features, label, '{"algorithm": "bogd", "gamma": 20, "budget": 40}' ORDER BY id) FROM po_rows WHERE id <= 400) AS bogd;

-- C of BPA: recorded in the model, and a different model than with the old C
SELECT bk_info(c)->'params'->>'C' AS new_c, c <> plain AS differs
FROM (SELECT bk_continue(features, label, bpa, '{"C": 0.05}' ORDER BY id) AS c,
             bk_continue(features, label, bpa ORDER BY id) AS plain
      FROM po_rows, po_models WHERE id > 400 GROUP BY bpa) s;
-- the same override twice gives the same model
SELECT (SELECT bk_continue(features, label, bpa, '{"C": 0.05}' ORDER BY id) FROM po_rows WHERE id > 400)
     = (SELECT bk_continue(features, label, bpa, '{"C": 0.05}' ORDER BY id) FROM po_rows WHERE id > 400) AS repeatable
FROM po_models;

-- a new seed restarts the random numbers: RBP removes other SVs
SELECT bk_info(s9)->'params'->>'seed' AS seed, s9 <> plain AS differs
FROM (SELECT bk_continue(features, label, rbp, '{"seed": 9}' ORDER BY id) AS s9,
             bk_continue(features, label, rbp ORDER BY id) AS plain
      FROM po_rows, po_models WHERE id > 400 GROUP BY rbp) s;

-- lambda of Pegasos and of BOGD
SELECT bk_info(bk_continue(features, label, pegasos, '{"lambda": 0.01}' ORDER BY id))->'params'->>'lambda' AS pegasos_lambda,
       bk_info(bk_continue(features, label, bogd, '{"lambda": 0.01}' ORDER BY id))->'params'->>'lambda' AS bogd_lambda
FROM po_rows, po_models WHERE id > 400 GROUP BY pegasos, bogd;

-- with the run's keys in the same document
SELECT (bk_info(m)->>'rows_seen')::int AS rows_seen, bk_info(m)->'params'->>'C' AS c
FROM (SELECT bk_continue(features, label, bpa, '{"C": 2, "epochs": 2}' ORDER BY id) AS m
      FROM po_rows, po_models WHERE id > 400 GROUP BY bpa) s;

-- refused: what the state holds to, what does not apply, bad values
SELECT bk_continue(features, label, bpa, '{"budget": 80}' ORDER BY id) FROM po_rows, po_models GROUP BY bpa;
SELECT bk_continue(features, label, duol, '{"C": 2}' ORDER BY id) FROM po_rows, po_models GROUP BY duol;
SELECT bk_continue(features, label, bogd, '{"eta": 0.5}' ORDER BY id) FROM po_rows, po_models GROUP BY bogd;
SELECT bk_continue(features, label, bpa, '{"lambda": 0.5}' ORDER BY id) FROM po_rows, po_models GROUP BY bpa;
SELECT bk_continue(features, label, bpa, '{"C": -1}' ORDER BY id) FROM po_rows, po_models GROUP BY bpa;
SELECT bk_continue(features, label, bpa, '{"C": "big"}' ORDER BY id) FROM po_rows, po_models GROUP BY bpa;
SELECT bk_continue(features, label, pegasos, '{"lambda": 1e-200}' ORDER BY id) FROM po_rows, po_models GROUP BY pegasos;
SELECT bk_continue(features, label, bpa, '{"gama": 1}' ORDER BY id) FROM po_rows, po_models GROUP BY bpa;

DROP TABLE po_rows, po_models;
