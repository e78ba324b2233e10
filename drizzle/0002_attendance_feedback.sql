CREATE TABLE "attendance" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"date" date NOT NULL,
	"meal_type" text NOT NULL,
	"status" text NOT NULL,
	"marked_by" uuid,
	"marked_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "attendance_status_check" CHECK ("attendance"."status" in ('present', 'absent'))
);
--> statement-breakpoint
CREATE TABLE "feedback" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"date" date NOT NULL,
	"meal_type" text NOT NULL,
	"rating" smallint NOT NULL,
	"comment" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "feedback_rating_check" CHECK ("feedback"."rating" between 1 and 5),
	CONSTRAINT "feedback_comment_length_check" CHECK (char_length("feedback"."comment") <= 1000)
);
--> statement-breakpoint
DROP INDEX "expenses_date_created_idx";--> statement-breakpoint
DROP INDEX "expenses_category_date_idx";--> statement-breakpoint
ALTER TABLE "attendance" ADD CONSTRAINT "attendance_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attendance" ADD CONSTRAINT "attendance_marked_by_users_id_fk" FOREIGN KEY ("marked_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "feedback" ADD CONSTRAINT "feedback_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "attendance_user_date_meal_unique" ON "attendance" USING btree ("user_id","date","meal_type");--> statement-breakpoint
CREATE INDEX "attendance_date_meal_idx" ON "attendance" USING btree ("date","meal_type");--> statement-breakpoint
CREATE INDEX "attendance_date_status_idx" ON "attendance" USING btree ("date","status");--> statement-breakpoint
CREATE UNIQUE INDEX "feedback_user_date_meal_unique" ON "feedback" USING btree ("user_id","date","meal_type");--> statement-breakpoint
CREATE INDEX "feedback_date_idx" ON "feedback" USING btree ("date");--> statement-breakpoint
CREATE INDEX "feedback_meal_type_date_idx" ON "feedback" USING btree ("meal_type","date");--> statement-breakpoint
CREATE INDEX "feedback_rating_idx" ON "feedback" USING btree ("rating");--> statement-breakpoint
CREATE INDEX "expenses_date_created_id_idx" ON "expenses" USING btree ("date","created_at","id");--> statement-breakpoint
CREATE INDEX "expenses_category_date_created_id_idx" ON "expenses" USING btree ("category","date","created_at","id");