CREATE TABLE "membership_periods" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"mess_id" uuid DEFAULT current_setting('app.mess')::uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	"dines" boolean NOT NULL,
	CONSTRAINT "membership_periods_span_check" CHECK ("membership_periods"."ended_at" is null or "membership_periods"."ended_at" >= "membership_periods"."started_at")
);
--> statement-breakpoint
ALTER TABLE "membership_periods" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "mess_config" DROP CONSTRAINT "mess_config_charge_method_check";--> statement-breakpoint
ALTER TABLE "mess_config" ADD COLUMN "daily_rate_paise" integer;--> statement-breakpoint
ALTER TABLE "mess_config" ADD COLUMN "rebate_bands" jsonb;--> statement-breakpoint
ALTER TABLE "mess_config" ADD COLUMN "rebate_days_per_term" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "mess_config" ADD COLUMN "term_start_months" jsonb;--> statement-breakpoint
ALTER TABLE "membership_periods" ADD CONSTRAINT "membership_periods_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "membership_periods" ADD CONSTRAINT "membership_periods_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "membership_periods_mess_started_idx" ON "membership_periods" USING btree ("mess_id","started_at");--> statement-breakpoint
CREATE INDEX "membership_periods_user_idx" ON "membership_periods" USING btree ("user_id","started_at");--> statement-breakpoint
CREATE UNIQUE INDEX "membership_periods_open_unique" ON "membership_periods" USING btree ("user_id") WHERE "membership_periods"."ended_at" is null;--> statement-breakpoint
ALTER TABLE "mess_config" ADD CONSTRAINT "mess_config_daily_rate_check" CHECK ("mess_config"."daily_rate_paise" is null or "mess_config"."daily_rate_paise" between 1 and 1000000);--> statement-breakpoint
ALTER TABLE "mess_config" ADD CONSTRAINT "mess_config_daily_needs_rate_check" CHECK ("mess_config"."charge_method" <> 'daily' or "mess_config"."daily_rate_paise" is not null);--> statement-breakpoint
ALTER TABLE "mess_config" ADD CONSTRAINT "mess_config_rebate_days_check" CHECK ("mess_config"."rebate_days_per_term" between 0 and 366);--> statement-breakpoint
ALTER TABLE "mess_config" ADD CONSTRAINT "mess_config_charge_method_check" CHECK ("mess_config"."charge_method" in ('spec', 'proportional', 'daily'));--> statement-breakpoint
CREATE POLICY "membership_periods_one_mess" ON "membership_periods" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
CREATE POLICY "membership_periods_every_mess" ON "membership_periods" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
-- hand-written
-- Every approved member is on their mess's rolls from their approval or their move into it, whichever came last (the
-- audit trail's rows), else from their registration (the users row): one open stretch each. Before row-level security
-- is forced, so the table's owner writes every mess's rows.
INSERT INTO "membership_periods" ("mess_id", "user_id", "started_at", "dines")
SELECT u."mess_id", u."id",
       coalesce((SELECT max(a."at") FROM "audit_events" a
                 WHERE a."entity" = 'user' AND a."entity_id" = u."id"::text AND a."mess_id" = u."mess_id"
                   AND a."action" IN ('approved', 'moved')), u."created_at"),
       u."dines"
FROM "users" u WHERE u."status" = 'approved';--> statement-breakpoint
ALTER TABLE "membership_periods" FORCE ROW LEVEL SECURITY;
