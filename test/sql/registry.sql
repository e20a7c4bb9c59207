--
-- The model registry pattern of the README ("Versions, deploy and
-- rollback"): every trained model is a row, one row per name says which
-- version is deployed, scoring goes through a view of the deployed
-- model; deploy and rollback are one statement each, and the scoring view
-- follows them with no change of its own.
--
\i test/fixtures/checkerboard.sql
CREATE TABLE reg_rows AS SELECT * FROM bk_test.checkerboard(1200);

CREATE TABLE model_registry (
	name		text NOT NULL,
	version		int NOT NULL,
	model		bk_model NOT NULL,
	parent		int,
	trained_at	timestamptz NOT NULL DEFAULT now(),
	fingerprint	text GENERATED ALWAYS AS (encode(sha256(model::bytea), 'hex')) STORED,
	params		jsonb GENERATED ALWAYS AS (bk_info(model)->'params') STORED,
	PRIMARY KEY (name, version)
);
CREATE TABLE model_deployment (
	name		text PRIMARY KEY,
	version		int NOT NULL,
	FOREIGN KEY (name, version) REFERENCES model_registry
);
CREATE VIEW deployed_model AS
SELECT r.name, r.version, r.model FROM model_deployment d JOIN model_registry r USING (name, version);
CREATE VIEW scored AS
SELECT t.id, t.label, bk_predict(m.model, t.features) AS predicted
FROM reg_rows t, deployed_model m WHERE m.name = 'board';

-- version 1, deployed
INSERT INTO model_registry (name, version, model)
SELECT 'board', 1, bk_train(features, label, '{"gamma": 20, "budget": 20}' ORDER BY bk_shuffle_key(id, 1))
FROM reg_rows WHERE id <= 600;
INSERT INTO model_deployment VALUES ('board', 1)
ON CONFLICT (name) DO UPDATE SET version = EXCLUDED.version;

-- version 2: version 1 trained further, with its parent recorded; deployed
INSERT INTO model_registry (name, version, model, parent)
SELECT 'board', 2, bk_continue(t.features, t.label, r.model ORDER BY bk_shuffle_key(t.id, 2)), 1
FROM reg_rows t, (SELECT model FROM model_registry WHERE name = 'board' AND version = 1) r
WHERE t.id > 600;
INSERT INTO model_deployment VALUES ('board', 2)
ON CONFLICT (name) DO UPDATE SET version = EXCLUDED.version;
SELECT version, parent, params->>'budget' AS budget,
       (bk_info(model)->>'rows_seen')::int AS rows_seen, length(fingerprint) AS fingerprint_length
FROM model_registry ORDER BY version;
SELECT d.version, bool_and(s.predicted = bk_predict(r.model, t.features)) AS scores_with_deployed
FROM scored s JOIN reg_rows t USING (id), deployed_model d, model_registry r
WHERE r.name = 'board' AND r.version = 2 GROUP BY d.version;

-- rollback to the previous version: one statement
UPDATE model_deployment d SET version = (SELECT max(version) FROM model_registry r
                                         WHERE r.name = d.name AND r.version < d.version)
WHERE name = 'board';
SELECT d.version, bool_and(s.predicted = bk_predict(r.model, t.features)) AS scores_with_deployed
FROM scored s JOIN reg_rows t USING (id), deployed_model d, model_registry r
WHERE r.name = 'board' AND r.version = 1 GROUP BY d.version;

-- a version that does not exist cannot be deployed; a deployed one cannot be deleted
INSERT INTO model_deployment VALUES ('board', 9)
ON CONFLICT (name) DO UPDATE SET version = EXCLUDED.version;
DELETE FROM model_registry WHERE name = 'board' AND version = 1;

-- the same model twice is the same fingerprint (the encoding is canonical)
SELECT count(DISTINCT fingerprint) = count(DISTINCT model) AS one_fingerprint_per_model FROM model_registry;
-- and it is bk_info's
SELECT bool_and(fingerprint = bk_info(model)->>'fingerprint') AS fingerprint_is_bk_infos FROM model_registry;

DROP VIEW scored;
DROP VIEW deployed_model;
DROP TABLE model_deployment, model_registry, reg_rows;
