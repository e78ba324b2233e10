CREATE TABLE "kitchen_models" (
	"mess_id" uuid DEFAULT current_setting('app.mess')::uuid NOT NULL,
	"cutoff" date NOT NULL,
	"model" jsonb NOT NULL,
	"made_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "kitchen_models" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "kitchen_models" ADD CONSTRAINT "kitchen_models_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "kitchen_models_mess_unique" ON "kitchen_models" USING btree ("mess_id");--> statement-breakpoint
CREATE POLICY "kitchen_models_one_mess" ON "kitchen_models" AS PERMISSIVE FOR ALL TO "mess_app" USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);--> statement-breakpoint
CREATE POLICY "kitchen_models_every_mess" ON "kitchen_models" AS PERMISSIVE FOR SELECT TO "mess_reader" USING (true);--> statement-breakpoint
-- hand-written: row-level security forced, so the table's owner is held to it too (decision 0008)
ALTER TABLE "kitchen_models" FORCE ROW LEVEL SECURITY;