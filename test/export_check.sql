-- test/export_check.sql: the models and rows of test/export_check.sh, in
-- a schema bk_xc that the script drops at its end.
--
-- Every feature value is a multiple of 1/64 in [-2, 2], which float32
-- holds exactly, so that the ONNX graph's float input is the rows'
-- double value; held_b holds arbitrary doubles, which it rounds.
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS bk_xc CASCADE;
CREATE SCHEMA bk_xc;
SET search_path = bk_xc, public;

CREATE FUNCTION bk_xc.grid(g int, p int) RETURNS float8
	LANGUAGE sql IMMUTABLE AS $$ SELECT ((g * p) % 257 - 128) / 64.0 $$;

-- x: three features; xn: the same with a NULL now and then; j: a jsonb
-- row of two numeric keys (a missing now and then) and a text key (absent
-- now and then)
CREATE FUNCTION bk_xc.rows(first int, n int, arbitrary boolean)
	RETURNS TABLE (id int, x float8[], xn float8[], j jsonb)
	LANGUAGE sql IMMUTABLE AS $$
	SELECT g, v, CASE WHEN g % 11 = 0 THEN ARRAY[NULL, v[2], v[3]] ELSE v END,
	       jsonb_strip_nulls(jsonb_build_object(
	           'a', CASE WHEN g % 11 = 0 THEN NULL ELSE v[1] END, 'b', v[2],
	           'color', CASE WHEN g % 13 = 0 THEN NULL ELSE (ARRAY['red', 'green', 'blue'])[g % 3 + 1] END))
	FROM generate_series(first, first + n - 1) g,
	     LATERAL (SELECT CASE WHEN arbitrary
	                     THEN ARRAY[2 * sin(g * 1.37), 2 * cos(g * 0.71), sin(g * 2.9) + cos(g * 0.3)]
	                     ELSE ARRAY[bk_xc.grid(g, 7919), bk_xc.grid(g, 104729), bk_xc.grid(g, 6007)] END AS v) s
$$;

CREATE TABLE bk_xc.train AS SELECT * FROM bk_xc.rows(1, 600, false);
CREATE TABLE bk_xc.held AS SELECT * FROM bk_xc.rows(5001, 200, false);
CREATE TABLE bk_xc.held_b AS SELECT * FROM bk_xc.rows(9001, 200, true);

-- the labels and targets of a row
CREATE FUNCTION bk_xc.y2(x float8[]) RETURNS int8 LANGUAGE sql IMMUTABLE AS
	$$ SELECT CASE WHEN x[1] * x[1] + x[2] * x[2] < 1.5 + 0.3 * x[3] THEN 3 ELSE 7 END::int8 $$;
CREATE FUNCTION bk_xc.y3(x float8[]) RETURNS int8 LANGUAGE sql IMMUTABLE AS
	$$ SELECT CASE WHEN x[1] > 0.5 THEN 1 WHEN x[2] > 0 THEN 2 ELSE 3 END::int8 $$;
CREATE FUNCTION bk_xc.t(x float8[]) RETURNS float8 LANGUAGE sql IMMUTABLE AS
	$$ SELECT x[1] + 0.5 * x[2] * x[2] - 0.25 * x[3] $$;
CREATE FUNCTION bk_xc.ytext(x float8[], j jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS
	$$ SELECT CASE WHEN bk_xc.y2(x) = 3 OR j->>'color' = 'red' THEN 'yes' ELSE 'no' END $$;
CREATE FUNCTION bk_xc.ytext3(x float8[]) RETURNS text LANGUAGE sql IMMUTABLE AS
	$$ SELECT (ARRAY['low', 'mid', 'high'])[bk_xc.y3(x)] $$;
CREATE FUNCTION bk_xc.sparse(x float8[]) RETURNS bk_sparse LANGUAGE sql IMMUTABLE AS
	$$ SELECT bk_sparse(ARRAY(SELECT i FROM generate_subscripts(x, 1) i WHERE x[i] <> 0 ORDER BY i),
	                    ARRAY(SELECT x[i] FROM generate_subscripts(x, 1) i WHERE x[i] <> 0 ORDER BY i), 3) $$;

-- name, what it scores (x, xn or j), whether LIBSVM can express it
CREATE TABLE bk_xc.models (name text PRIMARY KEY, input text, onnx boolean, libsvm boolean, m bk_model);

-- every learner: binary (Pegasos: two classes), one-vs-rest (Pegasos:
-- multi-class)
INSERT INTO bk_xc.models
SELECT 'binary_' || a, 'x', true, true,
       (SELECT bk_train(x, bk_xc.y2(x), jsonb_build_object('algorithm', a) ORDER BY bk_shuffle_key(id, 1)) FROM bk_xc.train)
FROM unnest(ARRAY['perceptron', 'pa', 'bpa', 'pegasos', 'stoptron', 'rbp', 'pa_random',
                  'budget_perceptron', 'tighter_budget_perceptron', 'spa', 'ogd', 'duol', 'bduol',
                  'bogd', 'forgetron', 'projectron', 'projectron_pp']) a;
INSERT INTO bk_xc.models
SELECT 'classes3_' || a, 'x', true, false,
       (SELECT bk_train(x, bk_xc.y3(x), jsonb_build_object('algorithm', a) ORDER BY bk_shuffle_key(id, 2)) FROM bk_xc.train)
FROM unnest(ARRAY['perceptron', 'pa', 'bpa', 'pegasos', 'stoptron', 'rbp', 'pa_random',
                  'budget_perceptron', 'tighter_budget_perceptron', 'spa', 'ogd', 'duol', 'bduol',
                  'bogd', 'forgetron', 'projectron', 'projectron_pp']) a;
-- every learner of regression and of novelty detection
INSERT INTO bk_xc.models
SELECT 'regression_' || a, 'x', true, true,
       (SELECT bk_train(x, bk_xc.t(x), jsonb_build_object('algorithm', a) ORDER BY bk_shuffle_key(id, 3)) FROM bk_xc.train)
FROM unnest(ARRAY['pa', 'pa_random', 'bpa', 'ogd', 'bogd', 'pegasos']) a;
INSERT INTO bk_xc.models
SELECT 'novelty_' || a, 'x', true, true,
       (SELECT bk_train(x, NULL, p::jsonb || '{"task": "novelty"}' ORDER BY bk_shuffle_key(id, 4)) FROM bk_xc.train)
FROM (VALUES ('ogd', '{"algorithm": "ogd"}'), ('bogd', '{"algorithm": "bogd", "budget": 60}'),
             ('pegasos', '{"algorithm": "pegasos", "budget": 60}')) v(a, p);
-- kernels, float4 support vectors, sparse rows
INSERT INTO bk_xc.models
SELECT 'binary_bpa_' || k, 'x', true, true,
       (SELECT bk_train(x, bk_xc.y2(x), p::jsonb ORDER BY bk_shuffle_key(id, 5)) FROM bk_xc.train)
FROM (VALUES ('linear', '{"kernel": "linear"}'), ('poly', '{"kernel": "poly", "degree": 2, "coef0": 1}'),
             ('poly3', '{"kernel": "poly", "degree": 3, "gamma": 0.5}'),
             ('float4', '{"sv_precision": "float4"}')) v(k, p);
INSERT INTO bk_xc.models
SELECT 'classes3_pegasos_float4', 'x', true, false,
       bk_train(x, bk_xc.y3(x), '{"algorithm": "pegasos", "sv_precision": "float4"}' ORDER BY bk_shuffle_key(id, 6))
FROM bk_xc.train;
INSERT INTO bk_xc.models
SELECT 'binary_bpa_sparse', 'x', true, true,
       bk_train(bk_xc.sparse(x), bk_xc.y2(x), '{"budget": 50}' ORDER BY bk_shuffle_key(id, 7))
FROM bk_xc.train;
-- merged, continued and calibrated
INSERT INTO bk_xc.models
SELECT 'binary_bpa_merged', 'x', true, true, bk_merge(m ORDER BY half)
FROM (SELECT id % 2 AS half, bk_train(x, bk_xc.y2(x), '{"budget": 40}' ORDER BY id) AS m
      FROM bk_xc.train GROUP BY id % 2) h;
INSERT INTO bk_xc.models
SELECT 'classes3_pa_merged', 'x', true, false, bk_merge(m ORDER BY half)
FROM (SELECT id % 2 AS half, bk_train(x, bk_xc.y3(x), '{"algorithm": "pa"}' ORDER BY id) AS m
      FROM bk_xc.train GROUP BY id % 2) h;
INSERT INTO bk_xc.models
SELECT 'binary_bpa_continued', 'x', true, true,
       (SELECT bk_continue(t.x, bk_xc.y2(t.x), b.m, '{}' ORDER BY t.id DESC) FROM bk_xc.train t)
FROM bk_xc.models b WHERE b.name = 'binary_bpa';
INSERT INTO bk_xc.models
SELECT 'binary_bpa_calibrated', 'x', true, true,
       (SELECT bk_calibrate(b.m, t.x, bk_xc.y2(t.x)) FROM bk_xc.train t WHERE t.id % 3 = 0)
FROM bk_xc.models b WHERE b.name = 'binary_bpa';
INSERT INTO bk_xc.models
SELECT 'classes3_pegasos_calibrated', 'x', true, false,
       (SELECT bk_calibrate(b.m, t.x, bk_xc.y3(t.x)) FROM bk_xc.train t WHERE t.id % 3 = 0)
FROM bk_xc.models b WHERE b.name = 'classes3_pegasos';
-- a prepared features array with missing values; jsonb rows with text keys
INSERT INTO bk_xc.models
SELECT 'binary_bpa_prepared', 'xn', true, false,
       bk_train(xn, bk_xc.y2(x), '{"scale": "standard", "impute": "mean"}' ORDER BY bk_shuffle_key(id, 8))
FROM bk_xc.train;
INSERT INTO bk_xc.models
SELECT 'jsonb_' || k, 'j', true, false, m FROM (
	SELECT 'binary_text' AS k, bk_train(j, bk_xc.ytext(x, j), '{}' ORDER BY bk_shuffle_key(id, 9)) AS m FROM bk_xc.train
	UNION ALL
	SELECT 'classes3_pegasos_text', bk_train(j, bk_xc.ytext3(x), '{"algorithm": "pegasos"}' ORDER BY bk_shuffle_key(id, 10)) FROM bk_xc.train
	UNION ALL
	SELECT 'classes3_bpa', bk_train(j, bk_xc.y3(x), '{}' ORDER BY bk_shuffle_key(id, 11)) FROM bk_xc.train
	UNION ALL
	SELECT 'regression_pa', bk_train(j, bk_xc.t(x), '{"algorithm": "pa"}' ORDER BY bk_shuffle_key(id, 12)) FROM bk_xc.train
	UNION ALL
	SELECT 'novelty_pegasos', bk_train(j, NULL, '{"task": "novelty", "budget": 60}' ORDER BY bk_shuffle_key(id, 13)) FROM bk_xc.train) s;

-- a model imported from LIBSVM text with a bias (rho), and that model
-- continued with a third class (one-vs-rest machines with a bias)
INSERT INTO bk_xc.models
SELECT 'imported_biased', 'x', true, true,
       bk_import(convert_to(regexp_replace(convert_from(bk_export(m, 'libsvm'), 'UTF8'), 'rho [^\n]*', 'rho 0.25'), 'UTF8'),
                 'libsvm', 3)
FROM bk_xc.models WHERE name = 'binary_pa';
INSERT INTO bk_xc.models
SELECT 'imported_biased_classes3', 'x', true, false,
       (SELECT bk_continue(t.x, CASE WHEN t.x[3] > 1 THEN 5 ELSE bk_xc.y2(t.x) END, b.m, '{"allow_new_classes": true}'
                           ORDER BY t.id) FROM bk_xc.train t WHERE t.id % 4 = 0)
FROM bk_xc.models b WHERE b.name = 'imported_biased';

-- models the graph cannot express: a key named as an output, a text key
-- whose values include the empty string
CREATE TABLE bk_xc.refused (name text, format text, m bk_model);
INSERT INTO bk_xc.refused
SELECT 'key_named_label', 'onnx', bk_train(jsonb_build_object('label', x[1], 'b', x[2]), bk_xc.y2(x), '{}' ORDER BY id)
FROM bk_xc.train;
INSERT INTO bk_xc.refused
SELECT 'empty_text_level', 'onnx',
       bk_train(jsonb_build_object('a', x[1], 'c', CASE WHEN id % 2 = 0 THEN '' ELSE 'x' END), bk_xc.y2(x), '{}' ORDER BY id)
FROM bk_xc.train;

-- the SQLSTATE of an export, or 'ok'
CREATE FUNCTION bk_xc.export_state(m bk_model, format text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM bk_export(m, format);
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE;
END $$;

-- the inputs of the ONNX graph for the rows of r, and the extension's outputs
CREATE FUNCTION bk_xc.onnx_case(model_name text, strict boolean) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	mo bk_xc.models;
	info jsonb;
	inputs jsonb;
	expected jsonb;
	n int;
BEGIN
	SELECT * INTO mo FROM bk_xc.models WHERE name = model_name;
	info := bk_info(mo.m);
	CREATE TEMP TABLE IF NOT EXISTS r (id int, x float8[], xn float8[], j jsonb);
	TRUNCATE r;
	IF strict THEN INSERT INTO r SELECT * FROM bk_xc.held; ELSE INSERT INTO r SELECT * FROM bk_xc.held_b; END IF;
	SELECT count(*) INTO n FROM r;
	IF mo.input = 'j' THEN
		SELECT jsonb_object_agg(k, jsonb_build_object(
		           'type', CASE WHEN k = 'color' THEN 'string' ELSE 'float' END,
		           'shape', jsonb_build_array(n, 1),
		           'data', (SELECT jsonb_agg(r.j->k ORDER BY r.id) FROM r)))
		INTO inputs FROM unnest(ARRAY['a', 'b', 'color']) k;
	ELSE
		SELECT jsonb_build_object('features', jsonb_build_object('type', 'float',
		           'shape', jsonb_build_array(n, 3),
		           'data', jsonb_agg(e ORDER BY r.id, o)))
		INTO inputs
		FROM r, LATERAL unnest(CASE WHEN mo.input = 'xn' THEN r.xn ELSE r.x END) WITH ORDINALITY u(e, o);
	END IF;
	IF info->>'task' = 'regression' THEN
		SELECT jsonb_build_object('value', jsonb_agg(jsonb_build_array(
		           CASE mo.input WHEN 'j' THEN bk_predict_value(mo.m, r.j) WHEN 'xn' THEN bk_predict_value(mo.m, r.xn)
		           ELSE bk_predict_value(mo.m, r.x) END) ORDER BY r.id))
		INTO expected FROM r;
	ELSIF info->>'task' = 'novelty' THEN
		SELECT jsonb_build_object('novelty', jsonb_agg(jsonb_build_array(
		           CASE mo.input WHEN 'j' THEN bk_novelty(mo.m, r.j) ELSE bk_novelty(mo.m, r.x) END) ORDER BY r.id))
		INTO expected FROM r;
	ELSE
		SELECT jsonb_build_object(
		           'label', jsonb_agg(to_jsonb(bk_predict_label(mo.m, f)) ORDER BY r.id),
		           'scores', jsonb_agg(to_jsonb(bk_scores(mo.m, f)) ORDER BY r.id),
		           'probabilities', CASE WHEN (info->>'calibrated')::boolean
		                            THEN jsonb_agg(to_jsonb(bk_probabilities(mo.m, f)) ORDER BY r.id) END)
		INTO expected
		FROM r, LATERAL (SELECT CASE mo.input WHEN 'j' THEN r.j::bk_features WHEN 'xn' THEN r.xn::bk_features
		                        ELSE r.x::bk_features END AS f) ff;
		IF info->>'label_type' <> 'text' THEN
			expected := jsonb_set(expected, '{label}', (SELECT jsonb_agg((l #>> '{}')::int8) FROM jsonb_array_elements(expected->'label') l));
		END IF;
	END IF;
	RETURN jsonb_build_object('strict', strict, 'inputs', inputs, 'expected', expected);
END $$;

-- the held-out rows as LIBSVM text (label 0)
CREATE FUNCTION bk_xc.libsvm_line(label text, x float8[]) RETURNS text LANGUAGE sql IMMUTABLE AS
	$$ SELECT label || ' ' || string_agg(i || ':' || x[i], ' ' ORDER BY i) FROM generate_subscripts(x, 1) i $$;
CREATE FUNCTION bk_xc.libsvm_rows() RETURNS SETOF text LANGUAGE sql AS
	$$ SELECT bk_xc.libsvm_line('0', x) FROM bk_xc.held ORDER BY id $$;
CREATE FUNCTION bk_xc.libsvm_train_rows() RETURNS SETOF text LANGUAGE sql AS
	$$ SELECT bk_xc.libsvm_line(bk_xc.y2(x)::text, x) FROM bk_xc.train ORDER BY id $$;
CREATE FUNCTION bk_xc.libsvm_target_rows() RETURNS SETOF text LANGUAGE sql AS
	$$ SELECT bk_xc.libsvm_line(bk_xc.t(x)::text, x) FROM bk_xc.train ORDER BY id $$;

-- "label decision" of a model on each held-out row, as svm-predict would
-- print them: a regressor's label is "-" (its value is compared), a
-- novelty detector's +1 or -1
CREATE FUNCTION bk_xc.svm_lines(m bk_model) RETURNS SETOF text LANGUAGE sql AS $$
	SELECT CASE bk_info(m)->>'task'
	       WHEN 'regression' THEN '- ' || bk_predict_value(m, x)
	       WHEN 'novelty' THEN CASE WHEN -bk_novelty(m, x) > 0 THEN '1' ELSE '-1' END || ' ' || -bk_novelty(m, x)
	       ELSE bk_predict(m, x) || ' ' || bk_decision(m, x) END
	FROM bk_xc.held ORDER BY id
$$;
CREATE FUNCTION bk_xc.libsvm_expected(model_name text) RETURNS SETOF text LANGUAGE sql AS
	$$ SELECT bk_xc.svm_lines(m) FROM bk_xc.models WHERE name = model_name $$;

-- a model of svm-train imported: bk_is_valid, then its lines
CREATE FUNCTION bk_xc.imported(b64 text) RETURNS SETOF text LANGUAGE sql AS $$
	SELECT bk_is_valid(bk_import(decode(b64, 'base64'), 'libsvm', 3)::bytea)::text
	UNION ALL
	SELECT * FROM (SELECT bk_xc.svm_lines(bk_import(decode(b64, 'base64'), 'libsvm', 3))) s
$$;

-- an imported model's probabilities on the held-out rows, in the order of
-- svm-predict -b 1's header ("labels L1 L2")
CREATE FUNCTION bk_xc.imported_probabilities(b64 text, header text) RETURNS SETOF text LANGUAGE sql AS $$
	SELECT string_agg(p[array_position(ARRAY(SELECT jsonb_array_elements_text(bk_info(m)->'classes')::int8), l::int8)]::text,
	                  ' ' ORDER BY o)
	FROM (SELECT bk_import(decode(b64, 'base64'), 'libsvm', 3) AS m) i, bk_xc.held h,
	     LATERAL (SELECT bk_probabilities(i.m, h.x) AS p) pp,
	     LATERAL unnest(string_to_array(split_part(header, ' ', 2) || ' ' || split_part(header, ' ', 3), ' ')) WITH ORDINALITY u(l, o)
	GROUP BY h.id ORDER BY h.id
$$;
