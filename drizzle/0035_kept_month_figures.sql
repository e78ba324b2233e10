-- hand-written (reordered from the generated statements): the stored month figures were a cache rebuilt from the
-- records; they are emptied here and filled again below, once, from the records, so the new columns need no default
-- and the new key can be added once they exist.
TRUNCATE "month_member_meals", "month_totals";--> statement-breakpoint
ALTER TABLE "month_meal_counts" DISABLE ROW LEVEL SECURITY;--> statement-breakpoint
DROP POLICY "month_meal_counts_one_mess" ON "month_meal_counts" CASCADE;--> statement-breakpoint
DROP POLICY "month_meal_counts_every_mess" ON "month_meal_counts" CASCADE;--> statement-breakpoint
DROP TABLE "month_meal_counts" CASCADE;--> statement-breakpoint
ALTER TABLE "month_member_meals" DROP CONSTRAINT "month_member_meals_mess_id_month_user_id_pk";--> statement-breakpoint
ALTER TABLE "month_member_meals" ADD COLUMN "meal_type" text NOT NULL;--> statement-breakpoint
ALTER TABLE "month_member_meals" ADD COLUMN "absent" integer NOT NULL;--> statement-breakpoint
ALTER TABLE "month_member_meals" ADD COLUMN "present_days" integer NOT NULL;--> statement-breakpoint
ALTER TABLE "month_member_meals" ADD CONSTRAINT "month_member_meals_mess_id_month_user_id_meal_type_pk" PRIMARY KEY("mess_id","month","user_id","meal_type");--> statement-breakpoint
ALTER TABLE "month_totals" DROP COLUMN "computed_at";
--> statement-breakpoint
-- hand-written below (decision 0011): the month's figures follow the records in the transaction that writes them.
-- Statement-level triggers with transition tables, set-based like account_balances (0020): a bulk mark of 500
-- members is one upsert, not 500. A mark re-stated with nothing the figures depend on changed (the counter's
-- take-over, a re-mark of the same status) touches no figure row, so it takes no lock there. Figure rows are per
-- member and meal type: two writers contend on one only when they write the same member's marks of one meal type
-- in one month (the row lock of the upsert then orders them; the deltas add up either way). They run as the writer,
-- under its row-level security: every record row is of the mess the statement runs in, and so is its figure row.
-- The closed-month guard (0004) is a BEFORE trigger: a refused write never reaches these.
CREATE FUNCTION month_figures_marks_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO month_member_meals AS k (mess_id, month, user_id, meal_type, meals, absent, present_days)
  SELECT a.mess_id, to_char(a.date, 'YYYY-MM'), a.user_id, a.meal_type,
         count(*) FILTER (WHERE a.status = 'present'), count(*) FILTER (WHERE a.status = 'absent'),
         coalesce(bit_or(1 << (extract(day FROM a.date)::int - 1)) FILTER (WHERE a.status = 'present'), 0)
  FROM added a
  GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (mess_id, month, user_id, meal_type) DO UPDATE SET
    meals = k.meals + EXCLUDED.meals, absent = k.absent + EXCLUDED.absent,
    present_days = k.present_days | EXCLUDED.present_days;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION month_figures_marks_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO month_member_meals AS k (mess_id, month, user_id, meal_type, meals, absent, present_days)
  SELECT d.mess_id, d.month, d.user_id, d.meal_type, -d.meals, -d.absent, d.present_days FROM (
    SELECT o.mess_id, to_char(o.date, 'YYYY-MM') AS month, o.user_id, o.meal_type,
           count(*) FILTER (WHERE o.status = 'present') AS meals, count(*) FILTER (WHERE o.status = 'absent') AS absent,
           coalesce(bit_or(1 << (extract(day FROM o.date)::int - 1)) FILTER (WHERE o.status = 'present'), 0) AS present_days
    FROM removed o
    GROUP BY 1, 2, 3, 4
  ) d
  WHERE EXISTS (SELECT 1 FROM month_member_meals f WHERE f.mess_id = d.mess_id AND f.month = d.month
    AND f.user_id = d.user_id AND f.meal_type = d.meal_type)
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (mess_id, month, user_id, meal_type) DO UPDATE SET
    meals = k.meals + EXCLUDED.meals, absent = k.absent + EXCLUDED.absent,
    present_days = k.present_days & ~EXCLUDED.present_days;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- A removal is an upsert too (of negative counts, clearing the days' bits), so that every statement locks its figure
-- rows in key order: two overlapping batches wait for each other rather than deadlock. It moves only rows that exist
-- (a member's rows go with the member). An update is the removal of the old rows and the addition of the new, in that
-- order (a day's bit cleared and set again stays set), of the rows whose member, date, meal or status changed. (A
-- transition table cannot serve a trigger of more than one event, hence a function per event.)
CREATE FUNCTION month_figures_marks_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO month_member_meals AS k (mess_id, month, user_id, meal_type, meals, absent, present_days)
  SELECT d.mess_id, d.month, d.user_id, d.meal_type, -d.meals, -d.absent, d.present_days FROM (
    SELECT o.mess_id, to_char(o.date, 'YYYY-MM') AS month, o.user_id, o.meal_type,
           count(*) FILTER (WHERE o.status = 'present') AS meals, count(*) FILTER (WHERE o.status = 'absent') AS absent,
           coalesce(bit_or(1 << (extract(day FROM o.date)::int - 1)) FILTER (WHERE o.status = 'present'), 0) AS present_days
    FROM removed o
    WHERE NOT EXISTS (SELECT 1 FROM added a WHERE o.id = a.id AND o.status = a.status AND o.date = a.date AND o.meal_type = a.meal_type
      AND o.user_id = a.user_id AND o.mess_id = a.mess_id)
    GROUP BY 1, 2, 3, 4
  ) d
  WHERE EXISTS (SELECT 1 FROM month_member_meals f WHERE f.mess_id = d.mess_id AND f.month = d.month
    AND f.user_id = d.user_id AND f.meal_type = d.meal_type)
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (mess_id, month, user_id, meal_type) DO UPDATE SET
    meals = k.meals + EXCLUDED.meals, absent = k.absent + EXCLUDED.absent,
    present_days = k.present_days & ~EXCLUDED.present_days;
  INSERT INTO month_member_meals AS k (mess_id, month, user_id, meal_type, meals, absent, present_days)
  SELECT a.mess_id, to_char(a.date, 'YYYY-MM'), a.user_id, a.meal_type,
         count(*) FILTER (WHERE a.status = 'present'), count(*) FILTER (WHERE a.status = 'absent'),
         coalesce(bit_or(1 << (extract(day FROM a.date)::int - 1)) FILTER (WHERE a.status = 'present'), 0)
  FROM added a
  WHERE NOT EXISTS (SELECT 1 FROM removed o WHERE o.id = a.id AND o.status = a.status AND o.date = a.date AND o.meal_type = a.meal_type
      AND o.user_id = a.user_id AND o.mess_id = a.mess_id)
  GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (mess_id, month, user_id, meal_type) DO UPDATE SET
    meals = k.meals + EXCLUDED.meals, absent = k.absent + EXCLUDED.absent,
    present_days = k.present_days | EXCLUDED.present_days;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER attendance_month_figures_added AFTER INSERT ON attendance
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION month_figures_marks_added();
--> statement-breakpoint
CREATE TRIGGER attendance_month_figures_removed AFTER DELETE ON attendance
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION month_figures_marks_removed();
--> statement-breakpoint
CREATE TRIGGER attendance_month_figures_changed AFTER UPDATE ON attendance
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION month_figures_marks_changed();
--> statement-breakpoint
-- The month's spending follows the expenses the same way: one upsert of each statement's net change per month, in
-- key order (an expense moved from one month to another and another moved back at once wait for each other rather
-- than deadlock).
CREATE FUNCTION month_totals_expenses_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO month_totals AS k (mess_id, month, total_paise)
  SELECT mess_id, to_char(date, 'YYYY-MM'), sum(amount_paise) FROM added GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (mess_id, month) DO UPDATE SET total_paise = k.total_paise + EXCLUDED.total_paise;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION month_totals_expenses_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO month_totals AS k (mess_id, month, total_paise)
  SELECT mess_id, to_char(date, 'YYYY-MM'), -sum(amount_paise) FROM removed GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (mess_id, month) DO UPDATE SET total_paise = k.total_paise + EXCLUDED.total_paise;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION month_totals_expenses_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO month_totals AS k (mess_id, month, total_paise)
  SELECT mess_id, month, sum(paise) FROM (
    SELECT mess_id, to_char(date, 'YYYY-MM') AS month, amount_paise::bigint AS paise FROM added
    UNION ALL
    SELECT mess_id, to_char(date, 'YYYY-MM'), -amount_paise::bigint FROM removed
  ) c GROUP BY 1, 2 HAVING sum(paise) <> 0 ORDER BY 1, 2
  ON CONFLICT (mess_id, month) DO UPDATE SET total_paise = k.total_paise + EXCLUDED.total_paise;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER expenses_month_totals_added AFTER INSERT ON expenses
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION month_totals_expenses_added();
--> statement-breakpoint
CREATE TRIGGER expenses_month_totals_removed AFTER DELETE ON expenses
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION month_totals_expenses_removed();
--> statement-breakpoint
CREATE TRIGGER expenses_month_totals_changed AFTER UPDATE ON expenses
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION month_totals_expenses_changed();
--> statement-breakpoint
-- The figures of the records already there, once, mess by mess under each mess's row-level security (the tables are
-- forced, so even their owner reads and writes one mess at a time).
DO $$
DECLARE
  m uuid;
BEGIN
  FOR m IN SELECT id FROM messes ORDER BY id LOOP
    PERFORM set_config('app.mess', m::text, true);
    INSERT INTO month_member_meals (mess_id, month, user_id, meal_type, meals, absent, present_days)
    SELECT mess_id, to_char(date, 'YYYY-MM'), user_id, meal_type,
           count(*) FILTER (WHERE status = 'present'), count(*) FILTER (WHERE status = 'absent'),
           coalesce(bit_or(1 << (extract(day FROM date)::int - 1)) FILTER (WHERE status = 'present'), 0)
    FROM attendance WHERE mess_id = m GROUP BY 1, 2, 3, 4;
    INSERT INTO month_totals (mess_id, month, total_paise)
    SELECT mess_id, to_char(date, 'YYYY-MM'), sum(amount_paise) FROM expenses WHERE mess_id = m GROUP BY 1, 2;
  END LOOP;
  PERFORM set_config('app.mess', '', true);
END $$;
