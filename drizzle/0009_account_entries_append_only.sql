-- The ledger is append-only in the database itself: an entry is never changed or deleted (a mistake is undone by
-- a reversal entry), whoever connects. UPDATE and DELETE fail row by row, TRUNCATE as a statement.
CREATE OR REPLACE FUNCTION mess_refuse_ledger_change() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'account_entries is append-only: % is refused; record a reversal instead', TG_OP
    USING ERRCODE = 'MS405';
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER account_entries_append_only BEFORE UPDATE OR DELETE ON account_entries
  FOR EACH ROW EXECUTE FUNCTION mess_refuse_ledger_change();
--> statement-breakpoint
CREATE TRIGGER account_entries_no_truncate BEFORE TRUNCATE ON account_entries
  FOR EACH STATEMENT EXECUTE FUNCTION mess_refuse_ledger_change();
