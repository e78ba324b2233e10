CREATE TABLE "meal_rotations" (
	"mess_id" uuid DEFAULT current_setting('app.mess')::uuid NOT NULL,
	"starts_on" date NOT NULL,
	"weeks" integer NOT NULL,
	"entries" jsonb NOT NULL,
	"updated_by" uuid NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "meal_rotations_weeks_check" CHECK ("meal_rotations"."weeks" between 1 and 6)
);
--> statement-breakpoint
CREATE TABLE "meal_withdrawn_slots" (
	"mess_id" uuid DEFAULT current_setting('app.mess')::uuid NOT NULL,
	"date" date NOT NULL,
	"meal_type" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_entity_check";--> statement-breakpoint
ALTER TABLE "meals" ADD COLUMN "source" text DEFAULT 'manager' NOT NULL;--> statement-breakpoint
ALTER TABLE "meal_rotations" ADD CONSTRAINT "meal_rotations_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meal_rotations" ADD CONSTRAINT "meal_rotations_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meal_withdrawn_slots" ADD CONSTRAINT "meal_withdrawn_slots_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "meal_rotations_mess_unique" ON "meal_rotations" USING btree ("mess_id");--> statement-breakpoint
CREATE UNIQUE INDEX "meal_withdrawn_slots_mess_date_meal_type_unique" ON "meal_withdrawn_slots" USING btree ("mess_id","date","meal_type");--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_entity_check" CHECK ("audit_events"."entity" in ('expense', 'account', 'month', 'extra', 'leave', 'user', 'config', 'attendance', 'rotation'));--> statement-breakpoint
ALTER TABLE "meals" ADD CONSTRAINT "meals_source_check" CHECK ("meals"."source" in ('manager', 'rotation'));--> statement-breakpoint
-- hand-written below (re-append after regenerating)
ALTER TABLE "meal_rotations" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY "meal_rotations_one_mess" ON "meal_rotations" TO mess_app USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);
--> statement-breakpoint
CREATE POLICY "meal_rotations_every_mess" ON "meal_rotations" FOR SELECT TO mess_reader USING (true);
--> statement-breakpoint
ALTER TABLE "meal_withdrawn_slots" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY "meal_withdrawn_slots_one_mess" ON "meal_withdrawn_slots" TO mess_app USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);
--> statement-breakpoint
CREATE POLICY "meal_withdrawn_slots_every_mess" ON "meal_withdrawn_slots" FOR SELECT TO mess_reader USING (true);
