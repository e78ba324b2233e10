CREATE TABLE "extras" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"date" date NOT NULL,
	"meal_type" text,
	"item" text NOT NULL,
	"unit_price_paise" integer NOT NULL,
	"quantity" integer NOT NULL,
	"amount_paise" integer NOT NULL,
	"recorded_by" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "extras_quantity_check" CHECK ("extras"."quantity" between 1 and 20),
	CONSTRAINT "extras_unit_price_check" CHECK ("extras"."unit_price_paise" > 0 and "extras"."unit_price_paise" <= 1000000),
	CONSTRAINT "extras_amount_check" CHECK ("extras"."amount_paise" = "extras"."unit_price_paise" * "extras"."quantity"),
	CONSTRAINT "extras_item_check" CHECK (char_length("extras"."item") between 1 and 50)
);
--> statement-breakpoint
ALTER TABLE "mess_config" ADD COLUMN "extra_items" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "extras" ADD CONSTRAINT "extras_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "extras" ADD CONSTRAINT "extras_recorded_by_users_id_fk" FOREIGN KEY ("recorded_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "extras_user_date_idx" ON "extras" USING btree ("user_id","date");--> statement-breakpoint
CREATE INDEX "extras_date_idx" ON "extras" USING btree ("date");--> statement-breakpoint
-- Extras of a closed month are frozen like its expenses and attendance: the same guard (0004), SQLSTATE MS409.
CREATE TRIGGER extras_month_open BEFORE INSERT OR UPDATE OR DELETE ON extras
  FOR EACH ROW EXECUTE FUNCTION mess_refuse_closed_month();
