-- 0007_code_inferred_outbox: derived code edges (pm_code_inferred, 0005) are projected into the
-- graph slice like the extracted ones, as (:CodeSymbol)-[:DERIVED {id, kind, confidence}]->
-- (:CodeSymbol). The same capture trigger as every projected table writes one outbox event per
-- insert, update and delete in the same transaction (a cascade from a removed symbol included),
-- so memory_infer's conclusions and their withdrawal reach the slice like any other change.
-- Conclusions stored before this migration get one upsert event each.

ALTER TABLE pm_outbox DROP CONSTRAINT pm_outbox_entity_type_check;
ALTER TABLE pm_outbox ADD CONSTRAINT pm_outbox_entity_type_check CHECK (
    entity_type IN ('atom', 'link', 'code_symbol', 'code_dependency', 'trace', 'code_inferred')
);

CREATE TRIGGER pm_code_inferred_outbox AFTER INSERT OR DELETE OR UPDATE
    ON pm_code_inferred FOR EACH ROW EXECUTE FUNCTION pm_outbox_capture('code_inferred');

INSERT INTO pm_outbox (entity_type, entity_id, op)
SELECT 'code_inferred', id, 'upsert' FROM pm_code_inferred ORDER BY id;
