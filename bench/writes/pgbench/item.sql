\set id random(:first, :last)
BEGIN;
UPDATE items SET priority = (ARRAY['high','medium','low'])[1 + (:id % 3)], updated_at = now() WHERE id = :id;
END;
