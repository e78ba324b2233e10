-- History is append-only: refuse UPDATE, DELETE and TRUNCATE on the table this guards, whoever runs them (the
-- service, a console, a script). Generic, so every append-only table (audit_events, the accounts ledger) attaches
-- the same function:
--   CREATE TRIGGER <table>_append_only BEFORE UPDATE OR DELETE ON <table> FOR EACH ROW EXECUTE FUNCTION forbid_change();
--   CREATE TRIGGER <table>_no_truncate BEFORE TRUNCATE ON <table> FOR EACH STATEMENT EXECUTE FUNCTION forbid_change();
-- SQLSTATE 42501 (insufficient_privilege): no role may rewrite history; the service answers it as a 500, since
-- no code path of its own ever tries.
CREATE OR REPLACE FUNCTION forbid_change() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
    USING ERRCODE = 'insufficient_privilege',
          HINT = 'Record a correcting entry instead of changing or removing one.';
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION forbid_change();
--> statement-breakpoint
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION forbid_change();
