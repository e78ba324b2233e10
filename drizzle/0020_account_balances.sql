CREATE TABLE "account_balances" (
	"mess_id" uuid DEFAULT current_setting('app.mess')::uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"balance_paise" bigint NOT NULL,
	CONSTRAINT "account_balances_mess_id_user_id_pk" PRIMARY KEY("mess_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "account_balances" ADD CONSTRAINT "account_balances_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_balances" ADD CONSTRAINT "account_balances_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- hand-written below: the balances follow the entries (one statement-level trigger, set-based), the balances of the
-- entries already recorded, and row-level security as on every record table.
CREATE FUNCTION account_balances_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO account_balances (mess_id, user_id, balance_paise)
  SELECT mess_id, user_id, sum(CASE WHEN direction = 'debit' THEN amount_paise ELSE -amount_paise END)
  FROM added GROUP BY mess_id, user_id ORDER BY mess_id, user_id
  ON CONFLICT (mess_id, user_id) DO UPDATE SET balance_paise = account_balances.balance_paise + EXCLUDED.balance_paise;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER account_entries_balances AFTER INSERT ON account_entries
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION account_balances_follow();
--> statement-breakpoint
INSERT INTO account_balances (mess_id, user_id, balance_paise)
SELECT mess_id, user_id, sum(CASE WHEN direction = 'debit' THEN amount_paise ELSE -amount_paise END)
FROM account_entries GROUP BY mess_id, user_id;
--> statement-breakpoint
ALTER TABLE "account_balances" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY "account_balances_one_mess" ON "account_balances" TO mess_app USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);
--> statement-breakpoint
CREATE POLICY "account_balances_every_mess" ON "account_balances" FOR SELECT TO mess_reader USING (true);
