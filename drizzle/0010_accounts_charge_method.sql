CREATE TABLE "account_entries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seq" bigserial NOT NULL,
	"user_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"direction" text NOT NULL,
	"amount_paise" bigint NOT NULL,
	"month" text,
	"date" date NOT NULL,
	"method" text,
	"reference" text,
	"note" text,
	"reverses" uuid,
	"recorded_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "account_entries_kind_check" CHECK ("account_entries"."kind" in ('charge', 'payment', 'adjustment', 'reversal', 'opening')),
	CONSTRAINT "account_entries_direction_check" CHECK ("account_entries"."direction" in ('debit', 'credit')),
	CONSTRAINT "account_entries_amount_check" CHECK ("account_entries"."amount_paise" > 0),
	CONSTRAINT "account_entries_month_check" CHECK ("account_entries"."month" is null or "account_entries"."month" ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
	CONSTRAINT "account_entries_charge_month_check" CHECK ("account_entries"."kind" <> 'charge' or "account_entries"."month" is not null),
	CONSTRAINT "account_entries_payment_check" CHECK (("account_entries"."kind" = 'payment') = ("account_entries"."method" is not null) and ("account_entries"."method" is null or "account_entries"."method" in ('cash', 'upi', 'bank', 'card', 'other'))),
	CONSTRAINT "account_entries_reversal_check" CHECK (("account_entries"."kind" = 'reversal') = ("account_entries"."reverses" is not null)),
	CONSTRAINT "account_entries_reference_check" CHECK (char_length("account_entries"."reference") <= 100),
	CONSTRAINT "account_entries_note_check" CHECK (char_length("account_entries"."note") <= 500)
);
--> statement-breakpoint
CREATE TABLE "idempotent_requests" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"caller_id" uuid NOT NULL,
	"route" text NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"status" integer NOT NULL,
	"response" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "notifications" DROP CONSTRAINT "notifications_type_check";--> statement-breakpoint
ALTER TABLE "mess_config" ADD COLUMN "charge_method" text DEFAULT 'proportional' NOT NULL;--> statement-breakpoint
ALTER TABLE "account_entries" ADD CONSTRAINT "account_entries_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_entries" ADD CONSTRAINT "account_entries_reverses_account_entries_id_fk" FOREIGN KEY ("reverses") REFERENCES "public"."account_entries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_entries" ADD CONSTRAINT "account_entries_recorded_by_users_id_fk" FOREIGN KEY ("recorded_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "idempotent_requests" ADD CONSTRAINT "idempotent_requests_caller_id_users_id_fk" FOREIGN KEY ("caller_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "account_entries_seq_unique" ON "account_entries" USING btree ("seq");--> statement-breakpoint
CREATE UNIQUE INDEX "account_entries_reverses_unique" ON "account_entries" USING btree ("reverses");--> statement-breakpoint
CREATE UNIQUE INDEX "account_entries_opening_unique" ON "account_entries" USING btree ("user_id") WHERE "account_entries"."kind" = 'opening';--> statement-breakpoint
CREATE INDEX "account_entries_user_date_seq_idx" ON "account_entries" USING btree ("user_id","date","seq");--> statement-breakpoint
CREATE INDEX "account_entries_month_kind_idx" ON "account_entries" USING btree ("month","kind") WHERE "account_entries"."month" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "idempotent_requests_scope_unique" ON "idempotent_requests" USING btree ("caller_id","route","key");--> statement-breakpoint
ALTER TABLE "mess_config" ADD CONSTRAINT "mess_config_charge_method_check" CHECK ("mess_config"."charge_method" in ('spec', 'proportional'));--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_type_check" CHECK ("notifications"."type" in ('MEAL_REMINDER', 'PAYMENT_DUE', 'COST_SUMMARY', 'DISCREPANCY_ALERT', 'MEAL_UPDATE', 'EXPENSE_ADDED', 'BUDGET_EXCEEDED', 'ATTENDANCE_CONFIRMATION', 'PAYMENT_RECEIVED'));