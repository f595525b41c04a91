BEGIN;
WITH e AS (INSERT INTO events (name, kind, payload) VALUES ('Bench', 'telemetry', '{}'::jsonb) RETURNING id, name, project) SELECT svc_notice('svc_events', json_build_object('type', 'event', 'id', e.id, 'name', e.name)::text) FROM e;
END;
