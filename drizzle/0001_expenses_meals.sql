CREATE TABLE "expenses" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"category" text NOT NULL,
	"amount_paise" integer NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"date" date NOT NULL,
	"recorded_by" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "expenses_amount_check" CHECK ("expenses"."amount_paise" > 0 and "expenses"."amount_paise" <= 1000000000),
	CONSTRAINT "expenses_category_check" CHECK (char_length("expenses"."category") between 1 and 50),
	CONSTRAINT "expenses_description_check" CHECK (char_length("expenses"."description") <= 500)
);
--> statement-breakpoint
CREATE TABLE "meals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"date" date NOT NULL,
	"meal_type" text NOT NULL,
	"dishes" text[] NOT NULL,
	"notes" text DEFAULT '' NOT NULL,
	"created_by" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "meals_dishes_check" CHECK (cardinality("meals"."dishes") between 1 and 30 and array_position("meals"."dishes", null) is null),
	CONSTRAINT "meals_meal_type_check" CHECK (char_length("meals"."meal_type") between 1 and 30),
	CONSTRAINT "meals_notes_check" CHECK (char_length("meals"."notes") <= 500)
);
--> statement-breakpoint
ALTER TABLE "expenses" ADD CONSTRAINT "expenses_recorded_by_users_id_fk" FOREIGN KEY ("recorded_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meals" ADD CONSTRAINT "meals_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "expenses_date_created_idx" ON "expenses" USING btree ("date" DESC NULLS LAST,"created_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "expenses_category_date_idx" ON "expenses" USING btree ("category","date" DESC NULLS LAST,"created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "expenses_recorded_by_idx" ON "expenses" USING btree ("recorded_by");--> statement-breakpoint
CREATE UNIQUE INDEX "meals_date_meal_type_unique" ON "meals" USING btree ("date","meal_type");--> statement-breakpoint
CREATE INDEX "meals_meal_type_date_idx" ON "meals" USING btree ("meal_type","date");--> statement-breakpoint
CREATE INDEX "meals_created_by_idx" ON "meals" USING btree ("created_by");