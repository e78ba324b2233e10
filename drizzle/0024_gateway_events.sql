CREATE TABLE "gateway_events" (
	"payment_id" text PRIMARY KEY NOT NULL,
	"order_id" text NOT NULL,
	"amount_paise" bigint NOT NULL,
	"method" text,
	"captured_at" timestamp with time zone,
	"rrn" text,
	"payload" jsonb NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_until" timestamp with time zone,
	"processed_at" timestamp with time zone,
	"outcome" text,
	"mess_id" uuid,
	"entry_id" uuid,
	CONSTRAINT "gateway_events_amount_check" CHECK ("gateway_events"."amount_paise" > 0),
	CONSTRAINT "gateway_events_outcome_check" CHECK ("gateway_events"."outcome" is null or "gateway_events"."outcome" in ('recorded', 'already-recorded', 'not-ours'))
);
--> statement-breakpoint
CREATE INDEX "gateway_events_pending_idx" ON "gateway_events" USING btree ("received_at") WHERE "gateway_events"."processed_at" is null;