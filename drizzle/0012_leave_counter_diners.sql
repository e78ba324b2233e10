CREATE TABLE "leaves" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"start_date" date NOT NULL,
	"end_date" date NOT NULL,
	"start_meal_type" text NOT NULL,
	"end_meal_type" text NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"days" integer NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"status" text NOT NULL,
	"requested_by" uuid,
	"decided_by" uuid,
	"decided_at" timestamp with time zone,
	"decision_note" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "leaves_status_check" CHECK ("leaves"."status" in ('pending', 'approved', 'rejected', 'cancelled')),
	CONSTRAINT "leaves_dates_check" CHECK ("leaves"."start_date" <= "leaves"."end_date" and "leaves"."starts_at" < "leaves"."ends_at"),
	CONSTRAINT "leaves_days_check" CHECK ("leaves"."days" >= 1)
);
--> statement-breakpoint
ALTER TABLE "notifications" DROP CONSTRAINT "notifications_type_check";--> statement-breakpoint
ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_entity_check";--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "dines" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "mess_config" ADD COLUMN "leave_policy" jsonb;--> statement-breakpoint
ALTER TABLE "mess_config" ADD COLUMN "marking_window" jsonb;--> statement-breakpoint
ALTER TABLE "attendance" ADD COLUMN "source" text DEFAULT 'member' NOT NULL;--> statement-breakpoint
ALTER TABLE "leaves" ADD CONSTRAINT "leaves_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leaves" ADD CONSTRAINT "leaves_requested_by_users_id_fk" FOREIGN KEY ("requested_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leaves" ADD CONSTRAINT "leaves_decided_by_users_id_fk" FOREIGN KEY ("decided_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "leaves_user_starts_idx" ON "leaves" USING btree ("user_id","starts_at");--> statement-breakpoint
CREATE INDEX "leaves_approved_span_idx" ON "leaves" USING btree ("starts_at","ends_at") WHERE "leaves"."status" = 'approved';--> statement-breakpoint
CREATE INDEX "leaves_status_created_idx" ON "leaves" USING btree ("status","created_at");--> statement-breakpoint
ALTER TABLE "attendance" ADD CONSTRAINT "attendance_source_check" CHECK ("attendance"."source" in ('member', 'mess', 'counter'));--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_type_check" CHECK ("notifications"."type" in ('MEAL_REMINDER', 'PAYMENT_DUE', 'COST_SUMMARY', 'DISCREPANCY_ALERT', 'MEAL_UPDATE', 'EXPENSE_ADDED', 'BUDGET_EXCEEDED', 'ATTENDANCE_CONFIRMATION', 'PAYMENT_RECEIVED', 'LEAVE_DECIDED'));--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_entity_check" CHECK ("audit_events"."entity" in ('expense', 'account', 'month', 'extra', 'leave', 'user', 'config', 'attendance'));