-- Row-level security for every table with a mess_id, declared with the schema (sealedByMess in messes.schema.ts)
-- so that drizzle-kit keeps it. The policies of 0017-0022 are replaced by the same ones as generated (the
-- notifications table gets its first), and row-level security is forced, so the tables' owner is held to it too.
ALTER TABLE "account_balances" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "account_balances" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "account_entries" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "account_entries" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "idempotent_requests" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "idempotent_requests" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "gateway_orders" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "gateway_orders" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "payment_claims" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "payment_claims" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "payment_references" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "payment_references" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "attendance" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "attendance" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "audit_events" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "audit_events" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "month_close_log" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "month_close_log" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "month_closures" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "month_closures" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "month_meal_counts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "month_meal_counts" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "month_member_meals" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "month_member_meals" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "month_totals" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "month_totals" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "expenses" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "expenses" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "extras" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "extras" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "feedback" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "feedback" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "leaves" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "leaves" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "meal_rotations" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "meal_rotations" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "meal_withdrawn_slots" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "meal_withdrawn_slots" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "meals" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "meals" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "mess_config" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "mess_config" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "notifications" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "notifications" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
DROP POLICY IF EXISTS "account_balances_one_mess" ON "account_balances";--> statement-breakpoint
CREATE POLICY "account_balances_one_mess" ON "account_balances" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
DROP POLICY IF EXISTS "account_balances_every_mess" ON "account_balances";--> statement-breakpoint
CREATE POLICY "account_balances_every_mess" ON "account_balances" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
DROP POLICY IF EXISTS "account_entries_one_mess" ON "account_entries";--> statement-breakpoint
CREATE POLICY "account_entries_one_mess" ON "account_entries" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
DROP POLICY IF EXISTS "account_entries_every_mess" ON "account_entries";--> statement-breakpoint
CREATE POLICY "account_entries_every_mess" ON "account_entries" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
DROP POLICY IF EXISTS "idempotent_requests_one_mess" ON "idempotent_requests";--> statement-breakpoint
CREATE POLICY "idempotent_requests_one_mess" ON "idempotent_requests" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
DROP POLICY IF EXISTS "idempotent_requests_every_mess" ON "idempotent_requests";--> statement-breakpoint
CREATE POLICY "idempotent_requests_every_mess" ON "idempotent_requests" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
DROP POLICY IF EXISTS "gateway_orders_one_mess" ON "gateway_orders";--> statement-breakpoint
CREATE POLICY "gateway_orders_one_mess" ON "gateway_orders" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
DROP POLICY IF EXISTS "gateway_orders_every_mess" ON "gateway_orders";--> statement-breakpoint
CREATE POLICY "gateway_orders_every_mess" ON "gateway_orders" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
DROP POLICY IF EXISTS "payment_claims_one_mess" ON "payment_claims";--> statement-breakpoint
CREATE POLICY "payment_claims_one_mess" ON "payment_claims" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
DROP POLICY IF EXISTS "payment_claims_every_mess" ON "payment_claims";--> statement-breakpoint
CREATE POLICY "payment_claims_every_mess" ON "payment_claims" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
DROP POLICY IF EXISTS "payment_references_one_mess" ON "payment_references";--> statement-breakpoint
CREATE POLICY "payment_references_one_mess" ON "payment_references" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
DROP POLICY IF EXISTS "payment_references_every_mess" ON "payment_references";--> statement-breakpoint
CREATE POLICY "payment_references_every_mess" ON "payment_references" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
DROP POLICY IF EXISTS "attendance_one_mess" ON "attendance";--> statement-breakpoint
CREATE POLICY "attendance_one_mess" ON "attendance" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
DROP POLICY IF EXISTS "attendance_every_mess" ON "attendance";--> statement-breakpoint
CREATE POLICY "attendance_every_mess" ON "attendance" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
DROP POLICY IF EXISTS "audit_events_one_mess" ON "audit_events";--> statement-breakpoint
CREATE POLICY "audit_events_one_mess" ON "audit_events" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
DROP POLICY IF EXISTS "audit_events_every_mess" ON "audit_events";--> statement-breakpoint
CREATE POLICY "audit_events_every_mess" ON "audit_events" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
DROP POLICY IF EXISTS "month_close_log_one_mess" ON "month_close_log";--> statement-breakpoint
CREATE POLICY "month_close_log_one_mess" ON "month_close_log" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
DROP POLICY IF EXISTS "month_close_log_every_mess" ON "month_close_log";--> statement-breakpoint
CREATE POLICY "month_close_log_every_mess" ON "month_close_log" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
DROP POLICY IF EXISTS "month_closures_one_mess" ON "month_closures";--> statement-breakpoint
CREATE POLICY "month_closures_one_mess" ON "month_closures" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
DROP POLICY IF EXISTS "month_closures_every_mess" ON "month_closures";--> statement-breakpoint
CREATE POLICY "month_closures_every_mess" ON "month_closures" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
DROP POLICY IF EXISTS "month_meal_counts_one_mess" ON "month_meal_counts";--> statement-breakpoint
CREATE POLICY "month_meal_counts_one_mess" ON "month_meal_counts" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
DROP POLICY IF EXISTS "month_meal_counts_every_mess" ON "month_meal_counts";--> statement-breakpoint
CREATE POLICY "month_meal_counts_every_mess" ON "month_meal_counts" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
DROP POLICY IF EXISTS "month_member_meals_one_mess" ON "month_member_meals";--> statement-breakpoint
CREATE POLICY "month_member_meals_one_mess" ON "month_member_meals" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
DROP POLICY IF EXISTS "month_member_meals_every_mess" ON "month_member_meals";--> statement-breakpoint
CREATE POLICY "month_member_meals_every_mess" ON "month_member_meals" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
DROP POLICY IF EXISTS "month_totals_one_mess" ON "month_totals";--> statement-breakpoint
CREATE POLICY "month_totals_one_mess" ON "month_totals" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
DROP POLICY IF EXISTS "month_totals_every_mess" ON "month_totals";--> statement-breakpoint
CREATE POLICY "month_totals_every_mess" ON "month_totals" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
DROP POLICY IF EXISTS "expenses_one_mess" ON "expenses";--> statement-breakpoint
CREATE POLICY "expenses_one_mess" ON "expenses" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
DROP POLICY IF EXISTS "expenses_every_mess" ON "expenses";--> statement-breakpoint
CREATE POLICY "expenses_every_mess" ON "expenses" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
DROP POLICY IF EXISTS "extras_one_mess" ON "extras";--> statement-breakpoint
CREATE POLICY "extras_one_mess" ON "extras" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
DROP POLICY IF EXISTS "extras_every_mess" ON "extras";--> statement-breakpoint
CREATE POLICY "extras_every_mess" ON "extras" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
DROP POLICY IF EXISTS "feedback_one_mess" ON "feedback";--> statement-breakpoint
CREATE POLICY "feedback_one_mess" ON "feedback" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
DROP POLICY IF EXISTS "feedback_every_mess" ON "feedback";--> statement-breakpoint
CREATE POLICY "feedback_every_mess" ON "feedback" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
DROP POLICY IF EXISTS "leaves_one_mess" ON "leaves";--> statement-breakpoint
CREATE POLICY "leaves_one_mess" ON "leaves" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
DROP POLICY IF EXISTS "leaves_every_mess" ON "leaves";--> statement-breakpoint
CREATE POLICY "leaves_every_mess" ON "leaves" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
DROP POLICY IF EXISTS "meal_rotations_one_mess" ON "meal_rotations";--> statement-breakpoint
CREATE POLICY "meal_rotations_one_mess" ON "meal_rotations" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
DROP POLICY IF EXISTS "meal_rotations_every_mess" ON "meal_rotations";--> statement-breakpoint
CREATE POLICY "meal_rotations_every_mess" ON "meal_rotations" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
DROP POLICY IF EXISTS "meal_withdrawn_slots_one_mess" ON "meal_withdrawn_slots";--> statement-breakpoint
CREATE POLICY "meal_withdrawn_slots_one_mess" ON "meal_withdrawn_slots" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
DROP POLICY IF EXISTS "meal_withdrawn_slots_every_mess" ON "meal_withdrawn_slots";--> statement-breakpoint
CREATE POLICY "meal_withdrawn_slots_every_mess" ON "meal_withdrawn_slots" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
DROP POLICY IF EXISTS "meals_one_mess" ON "meals";--> statement-breakpoint
CREATE POLICY "meals_one_mess" ON "meals" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
DROP POLICY IF EXISTS "meals_every_mess" ON "meals";--> statement-breakpoint
CREATE POLICY "meals_every_mess" ON "meals" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
DROP POLICY IF EXISTS "mess_config_one_mess" ON "mess_config";--> statement-breakpoint
CREATE POLICY "mess_config_one_mess" ON "mess_config" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
DROP POLICY IF EXISTS "mess_config_every_mess" ON "mess_config";--> statement-breakpoint
CREATE POLICY "mess_config_every_mess" ON "mess_config" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
DROP POLICY IF EXISTS "notifications_one_mess" ON "notifications";--> statement-breakpoint
CREATE POLICY "notifications_one_mess" ON "notifications" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
DROP POLICY IF EXISTS "notifications_every_mess" ON "notifications";--> statement-breakpoint
CREATE POLICY "notifications_every_mess" ON "notifications" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);
