DROP INDEX "notifications_dedupe_key_unique";--> statement-breakpoint
ALTER TABLE "mess_config" ALTER COLUMN "mess_id" SET DEFAULT current_setting('app.mess')::uuid;--> statement-breakpoint
CREATE UNIQUE INDEX "notifications_mess_dedupe_key_unique" ON "notifications" USING btree ("mess_id","dedupe_key");