CREATE TABLE "month_close_log" (
	"id" serial PRIMARY KEY NOT NULL,
	"month" text NOT NULL,
	"action" text NOT NULL,
	"actor_id" uuid,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "month_close_log_action_check" CHECK ("month_close_log"."action" in ('close', 'reopen'))
);
--> statement-breakpoint
CREATE TABLE "month_closures" (
	"month" text PRIMARY KEY NOT NULL,
	"closed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"closed_by" uuid,
	"bill" jsonb NOT NULL,
	CONSTRAINT "month_closures_month_check" CHECK ("month_closures"."month" ~ '^[0-9]{4}-(0[1-9]|1[0-2])$')
);
--> statement-breakpoint
CREATE TABLE "month_member_meals" (
	"month" text NOT NULL,
	"user_id" uuid NOT NULL,
	"meals" integer NOT NULL,
	CONSTRAINT "month_member_meals_month_user_id_pk" PRIMARY KEY("month","user_id")
);
--> statement-breakpoint
CREATE TABLE "month_totals" (
	"month" text PRIMARY KEY NOT NULL,
	"total_paise" bigint NOT NULL,
	"computed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "month_totals_month_check" CHECK ("month_totals"."month" ~ '^[0-9]{4}-(0[1-9]|1[0-2])$')
);
--> statement-breakpoint
ALTER TABLE "month_close_log" ADD CONSTRAINT "month_close_log_actor_id_users_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "month_closures" ADD CONSTRAINT "month_closures_closed_by_users_id_fk" FOREIGN KEY ("closed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "month_member_meals" ADD CONSTRAINT "month_member_meals_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "month_close_log_month_idx" ON "month_close_log" USING btree ("month","at");--> statement-breakpoint
CREATE INDEX "month_member_meals_user_idx" ON "month_member_meals" USING btree ("user_id","month");