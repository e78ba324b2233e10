CREATE TABLE "kitchen_forecasts" (
	"mess_id" uuid DEFAULT current_setting('app.mess')::uuid NOT NULL,
	"date" date NOT NULL,
	"meal_type" text NOT NULL,
	"expected" integer NOT NULL,
	"low" integer NOT NULL,
	"high" integer NOT NULL,
	"made_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "kitchen_forecasts_range_check" CHECK (0 <= "kitchen_forecasts"."low" and "kitchen_forecasts"."low" <= "kitchen_forecasts"."expected" and "kitchen_forecasts"."expected" <= "kitchen_forecasts"."high")
);
--> statement-breakpoint
ALTER TABLE "kitchen_forecasts" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE TABLE "kitchen_waste" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"mess_id" uuid DEFAULT current_setting('app.mess')::uuid NOT NULL,
	"date" date NOT NULL,
	"meal_type" text NOT NULL,
	"prepared_plates" integer,
	"leftover_grams" integer NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"recorded_by" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "kitchen_waste_leftover_check" CHECK ("kitchen_waste"."leftover_grams" between 0 and 10000000),
	CONSTRAINT "kitchen_waste_prepared_check" CHECK ("kitchen_waste"."prepared_plates" is null or "kitchen_waste"."prepared_plates" between 0 and 100000),
	CONSTRAINT "kitchen_waste_note_check" CHECK (char_length("kitchen_waste"."note") <= 500)
);
--> statement-breakpoint
ALTER TABLE "kitchen_waste" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_entity_check";--> statement-breakpoint
ALTER TABLE "kitchen_forecasts" ADD CONSTRAINT "kitchen_forecasts_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kitchen_waste" ADD CONSTRAINT "kitchen_waste_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kitchen_waste" ADD CONSTRAINT "kitchen_waste_recorded_by_users_id_fk" FOREIGN KEY ("recorded_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "kitchen_forecasts_mess_date_meal_unique" ON "kitchen_forecasts" USING btree ("mess_id","date","meal_type");--> statement-breakpoint
CREATE UNIQUE INDEX "kitchen_waste_mess_date_meal_unique" ON "kitchen_waste" USING btree ("mess_id","date","meal_type");--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_entity_check" CHECK ("audit_events"."entity" in ('expense', 'account', 'month', 'extra', 'leave', 'user', 'config', 'attendance', 'rotation', 'window', 'waste'));--> statement-breakpoint
CREATE POLICY "kitchen_forecasts_one_mess" ON "kitchen_forecasts" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
CREATE POLICY "kitchen_forecasts_every_mess" ON "kitchen_forecasts" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
CREATE POLICY "kitchen_waste_one_mess" ON "kitchen_waste" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
CREATE POLICY "kitchen_waste_every_mess" ON "kitchen_waste" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
-- hand-written: row-level security forced, so the tables' owner is held to it too (decision 0008)
ALTER TABLE "kitchen_forecasts" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "kitchen_waste" FORCE ROW LEVEL SECURITY;
