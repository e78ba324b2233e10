CREATE TABLE "mess_window_allocations" (
	"window_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"hash" text NOT NULL,
	"from_mess_id" uuid NOT NULL,
	"to_mess_id" uuid,
	"rank" integer,
	"preferences" jsonb NOT NULL,
	"outcome" text,
	"applied_at" timestamp with time zone,
	CONSTRAINT "mess_window_allocations_window_id_user_id_pk" PRIMARY KEY("window_id","user_id"),
	CONSTRAINT "mess_window_allocations_outcome_check" CHECK ("mess_window_allocations"."outcome" is null or "mess_window_allocations"."outcome" in ('moved', 'stayed', 'moved-by-hand', 'full', 'left'))
);
--> statement-breakpoint
CREATE TABLE "mess_window_choices" (
	"window_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"preferences" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mess_window_choices_window_id_user_id_pk" PRIMARY KEY("window_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "mess_windows" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"term" text NOT NULL,
	"opens_at" timestamp with time zone NOT NULL,
	"closes_at" timestamp with time zone NOT NULL,
	"effective_from" date NOT NULL,
	"max_preferences" integer NOT NULL,
	"mess_ids" jsonb NOT NULL,
	"seed" text,
	"seats" jsonb,
	"allocated_at" timestamp with time zone,
	"applied_at" timestamp with time zone,
	"cancelled_at" timestamp with time zone,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mess_windows_span_check" CHECK ("mess_windows"."opens_at" < "mess_windows"."closes_at"),
	CONSTRAINT "mess_windows_max_preferences_check" CHECK ("mess_windows"."max_preferences" between 1 and 10),
	CONSTRAINT "mess_windows_seed_check" CHECK ("mess_windows"."seed" is null or "mess_windows"."seed" ~ '^[0-9a-f]{32}$')
);
--> statement-breakpoint
ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_entity_check";--> statement-breakpoint
ALTER TABLE "notifications" DROP CONSTRAINT "notifications_type_check";--> statement-breakpoint
ALTER TABLE "mess_window_allocations" ADD CONSTRAINT "mess_window_allocations_window_id_mess_windows_id_fk" FOREIGN KEY ("window_id") REFERENCES "public"."mess_windows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mess_window_allocations" ADD CONSTRAINT "mess_window_allocations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mess_window_allocations" ADD CONSTRAINT "mess_window_allocations_from_mess_id_messes_id_fk" FOREIGN KEY ("from_mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mess_window_allocations" ADD CONSTRAINT "mess_window_allocations_to_mess_id_messes_id_fk" FOREIGN KEY ("to_mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mess_window_choices" ADD CONSTRAINT "mess_window_choices_window_id_mess_windows_id_fk" FOREIGN KEY ("window_id") REFERENCES "public"."mess_windows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mess_window_choices" ADD CONSTRAINT "mess_window_choices_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mess_windows" ADD CONSTRAINT "mess_windows_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "mess_window_allocations_position_unique" ON "mess_window_allocations" USING btree ("window_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "mess_windows_term_unique" ON "mess_windows" USING btree ("term") WHERE "mess_windows"."cancelled_at" is null;--> statement-breakpoint
CREATE INDEX "mess_windows_pending_idx" ON "mess_windows" USING btree ("closes_at") WHERE "mess_windows"."applied_at" is null and "mess_windows"."cancelled_at" is null;--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_entity_check" CHECK ("audit_events"."entity" in ('expense', 'account', 'month', 'extra', 'leave', 'user', 'config', 'attendance', 'rotation', 'window'));--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_type_check" CHECK ("notifications"."type" in ('MEAL_REMINDER', 'PAYMENT_DUE', 'COST_SUMMARY', 'DISCREPANCY_ALERT', 'MEAL_UPDATE', 'EXPENSE_ADDED', 'BUDGET_EXCEEDED', 'ATTENDANCE_CONFIRMATION', 'PAYMENT_RECEIVED', 'LEAVE_DECIDED', 'PASSWORD_RESET', 'MESS_ALLOCATED'));