CREATE TABLE "password_reset_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "notifications" DROP CONSTRAINT "notifications_type_check";--> statement-breakpoint
ALTER TABLE "account_entries" ADD COLUMN "items" jsonb;--> statement-breakpoint
ALTER TABLE "password_reset_tokens" ADD CONSTRAINT "password_reset_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "password_reset_tokens_user_idx" ON "password_reset_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "password_reset_tokens_expires_at_idx" ON "password_reset_tokens" USING btree ("expires_at");--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_type_check" CHECK ("notifications"."type" in ('MEAL_REMINDER', 'PAYMENT_DUE', 'COST_SUMMARY', 'DISCREPANCY_ALERT', 'MEAL_UPDATE', 'EXPENSE_ADDED', 'BUDGET_EXCEEDED', 'ATTENDANCE_CONFIRMATION', 'PAYMENT_RECEIVED', 'LEAVE_DECIDED', 'PASSWORD_RESET'));--> statement-breakpoint
-- hand-written below (re-append after regenerating)
-- password_reset_tokens is global on purpose, like users and revoked_tokens: no mess_id, no row-level security.
-- The public forgot/reset routes act before any mess is known; a row names its member, who names the mess.
-- (Grants come from the default privileges, as for every table.)
