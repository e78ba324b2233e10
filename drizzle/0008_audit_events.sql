CREATE TABLE "audit_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"at" timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
	"actor_id" uuid,
	"action" text NOT NULL,
	"entity" text NOT NULL,
	"entity_id" text NOT NULL,
	"before" jsonb,
	"after" jsonb,
	"request_id" text,
	CONSTRAINT "audit_events_entity_check" CHECK ("audit_events"."entity" in ('expense', 'account', 'month', 'extra', 'leave', 'user', 'config')),
	CONSTRAINT "audit_events_action_check" CHECK (char_length("audit_events"."action") between 1 and 64),
	CONSTRAINT "audit_events_entity_id_check" CHECK (char_length("audit_events"."entity_id") between 1 and 100)
);
--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_actor_id_users_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_events_at_idx" ON "audit_events" USING btree ("at","id");--> statement-breakpoint
CREATE INDEX "audit_events_entity_at_idx" ON "audit_events" USING btree ("entity","at");--> statement-breakpoint
CREATE INDEX "audit_events_entity_id_at_idx" ON "audit_events" USING btree ("entity_id","at");--> statement-breakpoint
CREATE INDEX "audit_events_actor_at_idx" ON "audit_events" USING btree ("actor_id","at");