-- A closed month's bill is frozen: refuse any write to that month's expenses or attendance, whoever writes it.
-- Raised as SQLSTATE MS409, which the service answers with 409 and this message.
CREATE OR REPLACE FUNCTION mess_refuse_closed_month() RETURNS trigger AS $$
DECLARE
  touched text[];
  m text;
BEGIN
  IF TG_OP = 'INSERT' THEN
    touched := ARRAY[to_char(NEW.date, 'YYYY-MM')];
  ELSIF TG_OP = 'UPDATE' THEN
    touched := ARRAY[to_char(OLD.date, 'YYYY-MM'), to_char(NEW.date, 'YYYY-MM')];
  ELSE
    touched := ARRAY[to_char(OLD.date, 'YYYY-MM')];
  END IF;
  FOREACH m IN ARRAY touched LOOP
    IF EXISTS (SELECT 1 FROM month_closures WHERE month = m) THEN
      RAISE EXCEPTION 'Month % is closed: its bill is frozen. An admin can reopen it.', m USING ERRCODE = 'MS409';
    END IF;
  END LOOP;
  IF TG_OP = 'DELETE' THEN
    RETURN OLD;
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER expenses_month_open BEFORE INSERT OR UPDATE OR DELETE ON expenses
  FOR EACH ROW EXECUTE FUNCTION mess_refuse_closed_month();
--> statement-breakpoint
CREATE TRIGGER attendance_month_open BEFORE INSERT OR UPDATE OR DELETE ON attendance
  FOR EACH ROW EXECUTE FUNCTION mess_refuse_closed_month();
