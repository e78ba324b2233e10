CREATE TABLE "outbox_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"mess_id" uuid DEFAULT current_setting('app.mess')::uuid NOT NULL,
	"name" text NOT NULL,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_until" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"done_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "outbox_events" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "outbox_events" ADD CONSTRAINT "outbox_events_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "outbox_events_pending_idx" ON "outbox_events" USING btree ("mess_id","id") WHERE "outbox_events"."done_at" is null;--> statement-breakpoint
CREATE INDEX "outbox_events_done_idx" ON "outbox_events" USING btree ("done_at");--> statement-breakpoint
CREATE POLICY "outbox_events_one_mess" ON "outbox_events" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
CREATE POLICY "outbox_events_every_mess" ON "outbox_events" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
ALTER TABLE "outbox_events" FORCE ROW LEVEL SECURITY;--> statement-breakpoint
COMMENT ON COLUMN "outbox_events"."name" IS '[no personal text] the event''s name';
