BEGIN;
WITH ordered AS MATERIALIZED (SELECT pg_advisory_xact_lock(7301041)), e AS (INSERT INTO events (name, kind, payload) SELECT 'Bench', 'telemetry', '{}'::jsonb FROM ordered RETURNING id, name, project) SELECT pg_notify('svc_events', json_build_object('type', 'event', 'id', e.id, 'name', e.name)::text) FROM e;
END;
