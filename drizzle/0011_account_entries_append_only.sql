-- The accounts ledger is append-only in the database itself: an entry is never changed or deleted (a mistake is
-- undone by a reversal entry), whoever connects. The generic guard of migration 0009 refuses UPDATE and DELETE row
-- by row and TRUNCATE as a statement (SQLSTATE 42501).
CREATE TRIGGER account_entries_append_only BEFORE UPDATE OR DELETE ON account_entries
  FOR EACH ROW EXECUTE FUNCTION forbid_change();
--> statement-breakpoint
CREATE TRIGGER account_entries_no_truncate BEFORE TRUNCATE ON account_entries
  FOR EACH STATEMENT EXECUTE FUNCTION forbid_change();
