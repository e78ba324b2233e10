CREATE TABLE "gateway_orders" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"mess_id" uuid DEFAULT current_setting('app.mess')::uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"gateway_order_id" text NOT NULL,
	"amount_paise" bigint NOT NULL,
	"status" text DEFAULT 'created' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "gateway_orders_amount_check" CHECK ("gateway_orders"."amount_paise" > 0)
);
--> statement-breakpoint
CREATE TABLE "payment_claims" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"mess_id" uuid DEFAULT current_setting('app.mess')::uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"amount_paise" bigint NOT NULL,
	"date" date NOT NULL,
	"utr" text NOT NULL,
	"note" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"entry_id" uuid,
	"decided_by" uuid,
	"decided_at" timestamp with time zone,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_claims_status_check" CHECK ("payment_claims"."status" in ('pending', 'accepted', 'rejected')),
	CONSTRAINT "payment_claims_utr_check" CHECK ("payment_claims"."utr" ~ '^[0-9]{12}$'),
	CONSTRAINT "payment_claims_amount_check" CHECK ("payment_claims"."amount_paise" > 0),
	CONSTRAINT "payment_claims_note_check" CHECK (char_length("payment_claims"."note") <= 500),
	CONSTRAINT "payment_claims_reason_check" CHECK (char_length("payment_claims"."reason") <= 500)
);
--> statement-breakpoint
CREATE TABLE "payment_references" (
	"mess_id" uuid DEFAULT current_setting('app.mess')::uuid NOT NULL,
	"reference" text NOT NULL,
	"entry_id" uuid NOT NULL,
	"source" text NOT NULL,
	"source_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_references_pkey" PRIMARY KEY("mess_id","reference"),
	CONSTRAINT "payment_references_source_check" CHECK ("payment_references"."source" in ('claim', 'statement', 'gateway'))
);
--> statement-breakpoint
ALTER TABLE "gateway_orders" ADD CONSTRAINT "gateway_orders_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gateway_orders" ADD CONSTRAINT "gateway_orders_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_claims" ADD CONSTRAINT "payment_claims_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_claims" ADD CONSTRAINT "payment_claims_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_claims" ADD CONSTRAINT "payment_claims_entry_id_account_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."account_entries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_claims" ADD CONSTRAINT "payment_claims_decided_by_users_id_fk" FOREIGN KEY ("decided_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_references" ADD CONSTRAINT "payment_references_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_references" ADD CONSTRAINT "payment_references_entry_id_account_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."account_entries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "gateway_orders_gateway_order_id_unique" ON "gateway_orders" USING btree ("gateway_order_id");--> statement-breakpoint
CREATE UNIQUE INDEX "payment_claims_mess_utr_unique" ON "payment_claims" USING btree ("mess_id","utr");--> statement-breakpoint
CREATE INDEX "payment_claims_mess_created_idx" ON "payment_claims" USING btree ("mess_id","created_at");--> statement-breakpoint
CREATE INDEX "payment_claims_user_idx" ON "payment_claims" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "payment_references_entry_idx" ON "payment_references" USING btree ("entry_id");--> statement-breakpoint
CREATE INDEX "account_entries_mess_reference_idx" ON "account_entries" USING btree ("mess_id","reference") WHERE "account_entries"."reference" is not null;--> statement-breakpoint
-- hand-written below (re-append after regenerating)
ALTER TABLE "payment_claims" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY "payment_claims_one_mess" ON "payment_claims" TO mess_app USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);
--> statement-breakpoint
CREATE POLICY "payment_claims_every_mess" ON "payment_claims" FOR SELECT TO mess_reader USING (true);
--> statement-breakpoint
ALTER TABLE "payment_references" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY "payment_references_one_mess" ON "payment_references" TO mess_app USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);
--> statement-breakpoint
CREATE POLICY "payment_references_every_mess" ON "payment_references" FOR SELECT TO mess_reader USING (true);
--> statement-breakpoint
ALTER TABLE "gateway_orders" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY "gateway_orders_one_mess" ON "gateway_orders" TO mess_app USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);
--> statement-breakpoint
CREATE POLICY "gateway_orders_every_mess" ON "gateway_orders" FOR SELECT TO mess_reader USING (true);
--> statement-breakpoint
-- A reference is inserted before its entry (it claims the key first; the entry follows in the same transaction).
ALTER TABLE "payment_references" ALTER CONSTRAINT "payment_references_entry_id_account_entries_id_fk" DEFERRABLE INITIALLY DEFERRED;
