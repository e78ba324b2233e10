-- Extension 2.2: many messes. Every record belongs to a mess; what existed goes to the first mess.
SELECT 1;
--> statement-breakpoint
CREATE TABLE "messes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"slug" text NOT NULL,
	"capacity" integer,
	"upi" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "messes_slug_check" CHECK ("messes"."slug" ~ '^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$'),
	CONSTRAINT "messes_capacity_check" CHECK ("messes"."capacity" is null or "messes"."capacity" between 1 and 100000)
);
--> statement-breakpoint
INSERT INTO "messes" ("id", "slug") VALUES ('00000000-0000-4000-8000-000000000001', 'main');
--> statement-breakpoint
ALTER TABLE "account_entries" ADD COLUMN "mess_id" uuid DEFAULT '00000000-0000-4000-8000-000000000001'::uuid NOT NULL;
--> statement-breakpoint
ALTER TABLE "account_entries" ALTER COLUMN "mess_id" SET DEFAULT current_setting('app.mess')::uuid;
--> statement-breakpoint
ALTER TABLE "idempotent_requests" ADD COLUMN "mess_id" uuid DEFAULT '00000000-0000-4000-8000-000000000001'::uuid NOT NULL;
--> statement-breakpoint
ALTER TABLE "idempotent_requests" ALTER COLUMN "mess_id" SET DEFAULT current_setting('app.mess')::uuid;
--> statement-breakpoint
ALTER TABLE "attendance" ADD COLUMN "mess_id" uuid DEFAULT '00000000-0000-4000-8000-000000000001'::uuid NOT NULL;
--> statement-breakpoint
ALTER TABLE "attendance" ALTER COLUMN "mess_id" SET DEFAULT current_setting('app.mess')::uuid;
--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "mess_id" uuid DEFAULT '00000000-0000-4000-8000-000000000001'::uuid NOT NULL;
--> statement-breakpoint
ALTER TABLE "audit_events" ALTER COLUMN "mess_id" SET DEFAULT current_setting('app.mess')::uuid;
--> statement-breakpoint
ALTER TABLE "month_close_log" ADD COLUMN "mess_id" uuid DEFAULT '00000000-0000-4000-8000-000000000001'::uuid NOT NULL;
--> statement-breakpoint
ALTER TABLE "month_close_log" ALTER COLUMN "mess_id" SET DEFAULT current_setting('app.mess')::uuid;
--> statement-breakpoint
ALTER TABLE "month_closures" ADD COLUMN "mess_id" uuid DEFAULT '00000000-0000-4000-8000-000000000001'::uuid NOT NULL;
--> statement-breakpoint
ALTER TABLE "month_closures" ALTER COLUMN "mess_id" SET DEFAULT current_setting('app.mess')::uuid;
--> statement-breakpoint
ALTER TABLE "month_meal_counts" ADD COLUMN "mess_id" uuid DEFAULT '00000000-0000-4000-8000-000000000001'::uuid NOT NULL;
--> statement-breakpoint
ALTER TABLE "month_meal_counts" ALTER COLUMN "mess_id" SET DEFAULT current_setting('app.mess')::uuid;
--> statement-breakpoint
ALTER TABLE "month_member_meals" ADD COLUMN "mess_id" uuid DEFAULT '00000000-0000-4000-8000-000000000001'::uuid NOT NULL;
--> statement-breakpoint
ALTER TABLE "month_member_meals" ALTER COLUMN "mess_id" SET DEFAULT current_setting('app.mess')::uuid;
--> statement-breakpoint
ALTER TABLE "month_totals" ADD COLUMN "mess_id" uuid DEFAULT '00000000-0000-4000-8000-000000000001'::uuid NOT NULL;
--> statement-breakpoint
ALTER TABLE "month_totals" ALTER COLUMN "mess_id" SET DEFAULT current_setting('app.mess')::uuid;
--> statement-breakpoint
ALTER TABLE "expenses" ADD COLUMN "mess_id" uuid DEFAULT '00000000-0000-4000-8000-000000000001'::uuid NOT NULL;
--> statement-breakpoint
ALTER TABLE "expenses" ALTER COLUMN "mess_id" SET DEFAULT current_setting('app.mess')::uuid;
--> statement-breakpoint
ALTER TABLE "extras" ADD COLUMN "mess_id" uuid DEFAULT '00000000-0000-4000-8000-000000000001'::uuid NOT NULL;
--> statement-breakpoint
ALTER TABLE "extras" ALTER COLUMN "mess_id" SET DEFAULT current_setting('app.mess')::uuid;
--> statement-breakpoint
ALTER TABLE "feedback" ADD COLUMN "mess_id" uuid DEFAULT '00000000-0000-4000-8000-000000000001'::uuid NOT NULL;
--> statement-breakpoint
ALTER TABLE "feedback" ALTER COLUMN "mess_id" SET DEFAULT current_setting('app.mess')::uuid;
--> statement-breakpoint
ALTER TABLE "leaves" ADD COLUMN "mess_id" uuid DEFAULT '00000000-0000-4000-8000-000000000001'::uuid NOT NULL;
--> statement-breakpoint
ALTER TABLE "leaves" ALTER COLUMN "mess_id" SET DEFAULT current_setting('app.mess')::uuid;
--> statement-breakpoint
ALTER TABLE "meals" ADD COLUMN "mess_id" uuid DEFAULT '00000000-0000-4000-8000-000000000001'::uuid NOT NULL;
--> statement-breakpoint
ALTER TABLE "meals" ALTER COLUMN "mess_id" SET DEFAULT current_setting('app.mess')::uuid;
--> statement-breakpoint
ALTER TABLE "mess_config" ADD COLUMN "mess_id" uuid DEFAULT '00000000-0000-4000-8000-000000000001'::uuid NOT NULL;
--> statement-breakpoint
ALTER TABLE "mess_config" ALTER COLUMN "mess_id" SET DEFAULT current_setting('app.mess')::uuid;
--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "mess_id" uuid DEFAULT '00000000-0000-4000-8000-000000000001'::uuid NOT NULL;
--> statement-breakpoint
ALTER TABLE "notifications" ALTER COLUMN "mess_id" SET DEFAULT current_setting('app.mess')::uuid;
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "mess_id" uuid DEFAULT '00000000-0000-4000-8000-000000000001'::uuid NOT NULL;
--> statement-breakpoint
ALTER TABLE "month_closures" DROP CONSTRAINT "month_closures_pkey";
--> statement-breakpoint
ALTER TABLE "month_totals" DROP CONSTRAINT "month_totals_pkey";
--> statement-breakpoint
ALTER TABLE "mess_config" DROP CONSTRAINT "mess_config_singleton_check";
--> statement-breakpoint
DROP INDEX "account_entries_opening_unique";
--> statement-breakpoint
DROP INDEX "account_entries_month_kind_idx";
--> statement-breakpoint
DROP INDEX "idempotent_requests_scope_unique";
--> statement-breakpoint
DROP INDEX "attendance_user_date_meal_unique";
--> statement-breakpoint
DROP INDEX "attendance_date_meal_idx";
--> statement-breakpoint
DROP INDEX "attendance_date_status_idx";
--> statement-breakpoint
DROP INDEX "audit_events_at_idx";
--> statement-breakpoint
DROP INDEX "month_close_log_month_idx";
--> statement-breakpoint
DROP INDEX "expenses_date_created_id_idx";
--> statement-breakpoint
DROP INDEX "extras_date_idx";
--> statement-breakpoint
DROP INDEX "feedback_user_date_meal_unique";
--> statement-breakpoint
DROP INDEX "feedback_date_idx";
--> statement-breakpoint
DROP INDEX "leaves_status_created_idx";
--> statement-breakpoint
DROP INDEX "meals_date_meal_type_unique";
--> statement-breakpoint
DROP INDEX "mess_config_singleton_unique";
--> statement-breakpoint
DROP INDEX "users_status_role_idx";
--> statement-breakpoint
ALTER TABLE "month_meal_counts" DROP CONSTRAINT "month_meal_counts_month_meal_type_pk";
--> statement-breakpoint
ALTER TABLE "month_member_meals" DROP CONSTRAINT "month_member_meals_month_user_id_pk";
--> statement-breakpoint
ALTER TABLE "mess_config" DROP COLUMN "singleton";
--> statement-breakpoint
ALTER TABLE "month_closures" ADD CONSTRAINT "month_closures_mess_id_month_pk" PRIMARY KEY("mess_id","month");
--> statement-breakpoint
ALTER TABLE "month_meal_counts" ADD CONSTRAINT "month_meal_counts_mess_id_month_meal_type_pk" PRIMARY KEY("mess_id","month","meal_type");
--> statement-breakpoint
ALTER TABLE "month_member_meals" ADD CONSTRAINT "month_member_meals_mess_id_month_user_id_pk" PRIMARY KEY("mess_id","month","user_id");
--> statement-breakpoint
ALTER TABLE "month_totals" ADD CONSTRAINT "month_totals_mess_id_month_pk" PRIMARY KEY("mess_id","month");
--> statement-breakpoint
CREATE UNIQUE INDEX "messes_slug_unique" ON "messes" USING btree ("slug");
--> statement-breakpoint
ALTER TABLE "account_entries" ADD CONSTRAINT "account_entries_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "idempotent_requests" ADD CONSTRAINT "idempotent_requests_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "attendance" ADD CONSTRAINT "attendance_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "month_close_log" ADD CONSTRAINT "month_close_log_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "month_closures" ADD CONSTRAINT "month_closures_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "month_meal_counts" ADD CONSTRAINT "month_meal_counts_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "month_member_meals" ADD CONSTRAINT "month_member_meals_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "month_totals" ADD CONSTRAINT "month_totals_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "expenses" ADD CONSTRAINT "expenses_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "extras" ADD CONSTRAINT "extras_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "feedback" ADD CONSTRAINT "feedback_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "leaves" ADD CONSTRAINT "leaves_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "meals" ADD CONSTRAINT "meals_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "mess_config" ADD CONSTRAINT "mess_config_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_mess_id_messes_id_fk" FOREIGN KEY ("mess_id") REFERENCES "public"."messes"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX "account_entries_mess_opening_unique" ON "account_entries" USING btree ("mess_id","user_id") WHERE "account_entries"."kind" = 'opening';
--> statement-breakpoint
CREATE INDEX "account_entries_mess_month_kind_idx" ON "account_entries" USING btree ("mess_id","month","kind") WHERE "account_entries"."month" is not null;
--> statement-breakpoint
CREATE UNIQUE INDEX "idempotent_requests_mess_scope_unique" ON "idempotent_requests" USING btree ("mess_id","caller_id","route","key");
--> statement-breakpoint
CREATE UNIQUE INDEX "attendance_mess_user_date_meal_unique" ON "attendance" USING btree ("mess_id","user_id","date","meal_type");
--> statement-breakpoint
CREATE INDEX "attendance_mess_date_meal_idx" ON "attendance" USING btree ("mess_id","date","meal_type");
--> statement-breakpoint
CREATE INDEX "attendance_mess_date_status_idx" ON "attendance" USING btree ("mess_id","date","status");
--> statement-breakpoint
CREATE INDEX "audit_events_mess_at_idx" ON "audit_events" USING btree ("mess_id","at","id");
--> statement-breakpoint
CREATE INDEX "month_close_log_mess_month_idx" ON "month_close_log" USING btree ("mess_id","month","at");
--> statement-breakpoint
CREATE INDEX "expenses_mess_date_created_id_idx" ON "expenses" USING btree ("mess_id","date","created_at","id");
--> statement-breakpoint
CREATE INDEX "extras_mess_date_idx" ON "extras" USING btree ("mess_id","date");
--> statement-breakpoint
CREATE UNIQUE INDEX "feedback_mess_user_date_meal_unique" ON "feedback" USING btree ("mess_id","user_id","date","meal_type");
--> statement-breakpoint
CREATE INDEX "feedback_mess_date_idx" ON "feedback" USING btree ("mess_id","date");
--> statement-breakpoint
CREATE INDEX "leaves_mess_status_created_idx" ON "leaves" USING btree ("mess_id","status","created_at");
--> statement-breakpoint
CREATE UNIQUE INDEX "meals_mess_date_meal_type_unique" ON "meals" USING btree ("mess_id","date","meal_type");
--> statement-breakpoint
CREATE UNIQUE INDEX "mess_config_mess_unique" ON "mess_config" USING btree ("mess_id");
--> statement-breakpoint
CREATE UNIQUE INDEX "mess_config_name_unique" ON "mess_config" USING btree (lower("mess_name"));
--> statement-breakpoint
CREATE INDEX "users_mess_status_role_idx" ON "users" USING btree ("mess_id","status","role");
--> statement-breakpoint
-- A closed month is closed in its own mess only.
CREATE OR REPLACE FUNCTION mess_refuse_closed_month() RETURNS trigger AS $$
DECLARE
  touched text[];
  m text;
  mess uuid;
BEGIN
  IF TG_OP = 'INSERT' THEN
    touched := ARRAY[to_char(NEW.date, 'YYYY-MM')];
    mess := NEW.mess_id;
  ELSIF TG_OP = 'UPDATE' THEN
    touched := ARRAY[to_char(OLD.date, 'YYYY-MM'), to_char(NEW.date, 'YYYY-MM')];
    mess := OLD.mess_id;
  ELSE
    touched := ARRAY[to_char(OLD.date, 'YYYY-MM')];
    mess := OLD.mess_id;
  END IF;
  FOREACH m IN ARRAY touched LOOP
    IF EXISTS (SELECT 1 FROM month_closures WHERE mess_id = mess AND month = m) THEN
      RAISE EXCEPTION 'Month % is closed: its bill is frozen. An admin can reopen it.', m USING ERRCODE = 'MS409';
    END IF;
  END LOOP;
  IF TG_OP = 'DELETE' THEN
    RETURN OLD;
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
-- The roles the service's statements run under (cluster-wide, so created once; concurrent creators race harmlessly).
-- mess_app sees and writes one mess's rows: the one its connection's app.mess names. mess_reader reads every mess.
-- A role that exists is left alone without CREATE ROLE, which PostgreSQL refuses a user without CREATEROLE before it
-- looks whether the role exists: a least-privilege owner is given the roles by a superuser beforehand (decision 0009;
-- edited after release, with the same effect wherever it had run).
DO $$
DECLARE
  r text;
BEGIN
  FOREACH r IN ARRAY ARRAY['mess_app', 'mess_reader'] LOOP
    CONTINUE WHEN EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r);
    BEGIN
      EXECUTE format('CREATE ROLE %I NOLOGIN', r);
    EXCEPTION
      WHEN duplicate_object OR unique_violation THEN NULL;
      WHEN insufficient_privilege THEN
        RAISE EXCEPTION 'the role % does not exist and % may not create it: as a superuser, once per cluster, '
          'CREATE ROLE mess_app NOLOGIN; CREATE ROLE mess_reader NOLOGIN; GRANT mess_app, mess_reader TO %; '
          '(docs/operations.md)', r, current_user, quote_ident(current_user)
          USING ERRCODE = 'insufficient_privilege';
    END;
  END LOOP;
END
$$;
--> statement-breakpoint
DO $$
BEGIN
  EXECUTE format('GRANT mess_app, mess_reader TO %I', current_user);
EXCEPTION WHEN OTHERS THEN NULL;
END
$$;
--> statement-breakpoint
GRANT USAGE ON SCHEMA public TO mess_app, mess_reader;
--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO mess_app;
--> statement-breakpoint
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO mess_app;
--> statement-breakpoint
GRANT SELECT ON ALL TABLES IN SCHEMA public TO mess_reader;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO mess_app;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO mess_app;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO mess_reader;
--> statement-breakpoint
ALTER TABLE "account_entries" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY "account_entries_one_mess" ON "account_entries" TO mess_app USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);
--> statement-breakpoint
CREATE POLICY "account_entries_every_mess" ON "account_entries" FOR SELECT TO mess_reader USING (true);
--> statement-breakpoint
ALTER TABLE "idempotent_requests" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY "idempotent_requests_one_mess" ON "idempotent_requests" TO mess_app USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);
--> statement-breakpoint
CREATE POLICY "idempotent_requests_every_mess" ON "idempotent_requests" FOR SELECT TO mess_reader USING (true);
--> statement-breakpoint
ALTER TABLE "attendance" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY "attendance_one_mess" ON "attendance" TO mess_app USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);
--> statement-breakpoint
CREATE POLICY "attendance_every_mess" ON "attendance" FOR SELECT TO mess_reader USING (true);
--> statement-breakpoint
ALTER TABLE "audit_events" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY "audit_events_one_mess" ON "audit_events" TO mess_app USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);
--> statement-breakpoint
CREATE POLICY "audit_events_every_mess" ON "audit_events" FOR SELECT TO mess_reader USING (true);
--> statement-breakpoint
ALTER TABLE "month_close_log" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY "month_close_log_one_mess" ON "month_close_log" TO mess_app USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);
--> statement-breakpoint
CREATE POLICY "month_close_log_every_mess" ON "month_close_log" FOR SELECT TO mess_reader USING (true);
--> statement-breakpoint
ALTER TABLE "month_closures" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY "month_closures_one_mess" ON "month_closures" TO mess_app USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);
--> statement-breakpoint
CREATE POLICY "month_closures_every_mess" ON "month_closures" FOR SELECT TO mess_reader USING (true);
--> statement-breakpoint
ALTER TABLE "month_meal_counts" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY "month_meal_counts_one_mess" ON "month_meal_counts" TO mess_app USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);
--> statement-breakpoint
CREATE POLICY "month_meal_counts_every_mess" ON "month_meal_counts" FOR SELECT TO mess_reader USING (true);
--> statement-breakpoint
ALTER TABLE "month_member_meals" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY "month_member_meals_one_mess" ON "month_member_meals" TO mess_app USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);
--> statement-breakpoint
CREATE POLICY "month_member_meals_every_mess" ON "month_member_meals" FOR SELECT TO mess_reader USING (true);
--> statement-breakpoint
ALTER TABLE "month_totals" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY "month_totals_one_mess" ON "month_totals" TO mess_app USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);
--> statement-breakpoint
CREATE POLICY "month_totals_every_mess" ON "month_totals" FOR SELECT TO mess_reader USING (true);
--> statement-breakpoint
ALTER TABLE "expenses" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY "expenses_one_mess" ON "expenses" TO mess_app USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);
--> statement-breakpoint
CREATE POLICY "expenses_every_mess" ON "expenses" FOR SELECT TO mess_reader USING (true);
--> statement-breakpoint
ALTER TABLE "extras" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY "extras_one_mess" ON "extras" TO mess_app USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);
--> statement-breakpoint
CREATE POLICY "extras_every_mess" ON "extras" FOR SELECT TO mess_reader USING (true);
--> statement-breakpoint
ALTER TABLE "feedback" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY "feedback_one_mess" ON "feedback" TO mess_app USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);
--> statement-breakpoint
CREATE POLICY "feedback_every_mess" ON "feedback" FOR SELECT TO mess_reader USING (true);
--> statement-breakpoint
ALTER TABLE "leaves" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY "leaves_one_mess" ON "leaves" TO mess_app USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);
--> statement-breakpoint
CREATE POLICY "leaves_every_mess" ON "leaves" FOR SELECT TO mess_reader USING (true);
--> statement-breakpoint
ALTER TABLE "mess_config" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY "mess_config_one_mess" ON "mess_config" TO mess_app USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);
--> statement-breakpoint
CREATE POLICY "mess_config_every_mess" ON "mess_config" FOR SELECT TO mess_reader USING (true);
--> statement-breakpoint
ALTER TABLE "meals" ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY "meals_one_mess" ON "meals" TO mess_app USING (mess_id = current_setting('app.mess')::uuid) WITH CHECK (mess_id = current_setting('app.mess')::uuid);
--> statement-breakpoint
CREATE POLICY "meals_every_mess" ON "meals" FOR SELECT TO mess_reader USING (true);
