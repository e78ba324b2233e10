CREATE TABLE "privacy_notices" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"version" text NOT NULL,
	"url" text NOT NULL,
	"grievance_officer_name" text NOT NULL,
	"grievance_officer_email" text NOT NULL,
	"set_by" uuid,
	"set_at" timestamp with time zone DEFAULT now() NOT NULL,
	"withdrawn_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "erasure_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp with time zone,
	"decided_by" uuid,
	CONSTRAINT "erasure_requests_status_check" CHECK ("erasure_requests"."status" in ('pending', 'done')),
	CONSTRAINT "erasure_requests_reason_check" CHECK (char_length("erasure_requests"."reason") <= 1000)
);
--> statement-breakpoint
ALTER TABLE "users" DROP CONSTRAINT "users_status_check";--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "notice_version" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "notice_accepted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "erasure_requests" ADD CONSTRAINT "erasure_requests_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "erasure_requests" ADD CONSTRAINT "erasure_requests_decided_by_users_id_fk" FOREIGN KEY ("decided_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "privacy_notices_in_force_unique" ON "privacy_notices" USING btree ((true)) WHERE "privacy_notices"."withdrawn_at" is null;--> statement-breakpoint
CREATE INDEX "privacy_notices_set_at_idx" ON "privacy_notices" USING btree ("set_at");--> statement-breakpoint
CREATE UNIQUE INDEX "erasure_requests_pending_unique" ON "erasure_requests" USING btree ("user_id") WHERE "erasure_requests"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "erasure_requests_status_created_idx" ON "erasure_requests" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "audit_events_after_user_idx" ON "audit_events" USING btree (("after" ->> 'userId'));--> statement-breakpoint
CREATE INDEX "audit_events_before_user_idx" ON "audit_events" USING btree (("before" ->> 'userId'));--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_status_check" CHECK ("users"."status" in ('pending', 'approved', 'rejected', 'erased'));--> statement-breakpoint
-- hand-written
-- Erasure (extension 2.3, decision 0010). The audit trail stays append-only: its guard lets exactly one kind of
-- UPDATE through, one that changes no column but `before`/`after`, and those only by replacing string leaves with
-- JSON null (a value removed, nothing rewritten), and only while erase_from_audit_trail() runs. Every other UPDATE,
-- every DELETE and TRUNCATE are refused as before (forbid_change()'s SQLSTATE 42501).
CREATE OR REPLACE FUNCTION audit_snapshot_only_nulled(old_value jsonb, new_value jsonb) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  k text;
  i integer;
BEGIN
  IF old_value IS NOT DISTINCT FROM new_value THEN RETURN true; END IF;
  IF old_value IS NULL OR new_value IS NULL THEN RETURN false; END IF;
  IF jsonb_typeof(old_value) = 'string' AND jsonb_typeof(new_value) = 'null' THEN RETURN true; END IF;
  IF jsonb_typeof(old_value) = 'object' AND jsonb_typeof(new_value) = 'object' THEN
    IF (SELECT array_agg(o ORDER BY o) FROM jsonb_object_keys(old_value) AS o)
       IS DISTINCT FROM (SELECT array_agg(n ORDER BY n) FROM jsonb_object_keys(new_value) AS n) THEN
      RETURN false;
    END IF;
    FOR k IN SELECT jsonb_object_keys(old_value) LOOP
      IF NOT audit_snapshot_only_nulled(old_value -> k, new_value -> k) THEN RETURN false; END IF;
    END LOOP;
    RETURN true;
  END IF;
  IF jsonb_typeof(old_value) = 'array' AND jsonb_typeof(new_value) = 'array' THEN
    IF jsonb_array_length(old_value) <> jsonb_array_length(new_value) THEN RETURN false; END IF;
    FOR i IN 0 .. jsonb_array_length(old_value) - 1 LOOP
      IF NOT audit_snapshot_only_nulled(old_value -> i, new_value -> i) THEN RETURN false; END IF;
    END LOOP;
    RETURN true;
  END IF;
  RETURN false;
END;
$$;
--> statement-breakpoint
-- A snapshot with every string leaf that holds one of `erased` (lower-cased) replaced by JSON null: a leaf equal to
-- one, or containing one of six characters or more.
CREATE OR REPLACE FUNCTION audit_snapshot_without(value jsonb, erased text[]) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  leaf text;
BEGIN
  IF value IS NULL THEN RETURN NULL; END IF;
  CASE jsonb_typeof(value)
    WHEN 'string' THEN
      leaf := lower(value #>> '{}');
      IF EXISTS (SELECT 1 FROM unnest(erased) AS e
                 WHERE leaf = e OR (char_length(e) >= 6 AND position(e IN leaf) > 0)) THEN
        RETURN 'null'::jsonb;
      END IF;
      RETURN value;
    WHEN 'object' THEN
      RETURN coalesce((SELECT jsonb_object_agg(key, audit_snapshot_without(v, erased))
                       FROM jsonb_each(value) AS t(key, v)), '{}'::jsonb);
    WHEN 'array' THEN
      RETURN coalesce((SELECT jsonb_agg(audit_snapshot_without(v, erased) ORDER BY n)
                       FROM jsonb_array_elements(value) WITH ORDINALITY AS t(v, n)), '[]'::jsonb);
    ELSE
      RETURN value;
  END CASE;
END;
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION audit_events_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE'
     AND current_setting('app.audit_erasure', true) = 'on'
     AND to_jsonb(NEW) - 'before' - 'after' = to_jsonb(OLD) - 'before' - 'after'
     AND audit_snapshot_only_nulled(OLD.before, NEW.before)
     AND audit_snapshot_only_nulled(OLD.after, NEW.after) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
    USING ERRCODE = 'insufficient_privilege',
          HINT = 'Record a correcting entry instead of changing or removing one; erasure removes values only.';
END;
$$;
--> statement-breakpoint
DROP TRIGGER audit_events_append_only ON audit_events;
--> statement-breakpoint
CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_guard();
--> statement-breakpoint
-- The one statement that removes a person's values from the trail of the mess the transaction acts in (row-level
-- security applies): values shorter than 3 characters are ignored. It reads the rows about the member (their
-- entity, or a snapshot naming them as `userId`: indexed) and the rows of entities whose snapshots may hold free text;
-- a mark's or an extra's snapshot holds none (ids, dates, statuses, the catalogue's item), so those about others are
-- passed over without reading their snapshots. Returns how many rows changed.
CREATE OR REPLACE FUNCTION erase_from_audit_trail(member uuid, values_to_erase text[]) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  erased text[];
  changed integer;
BEGIN
  erased := ARRAY(SELECT DISTINCT lower(v) FROM unnest(values_to_erase) AS v WHERE char_length(v) >= 3);
  IF cardinality(erased) = 0 THEN RETURN 0; END IF;
  PERFORM set_config('app.audit_erasure', 'on', true);
  UPDATE audit_events
     SET before = audit_snapshot_without(before, erased), after = audit_snapshot_without(after, erased)
   WHERE id IN (SELECT a.id FROM audit_events AS a
                 WHERE a.entity_id = member::text
                    OR a.after ->> 'userId' = member::text
                    OR a.before ->> 'userId' = member::text
                UNION
                SELECT a.id FROM audit_events AS a WHERE a.entity NOT IN ('attendance', 'extra'))
     AND EXISTS (SELECT 1 FROM unnest(erased) AS e
                 WHERE position(e IN lower(coalesce(before::text, '') || ' ' || coalesce(after::text, ''))) > 0);
  GET DIAGNOSTICS changed = ROW_COUNT;
  PERFORM set_config('app.audit_erasure', 'off', true);
  RETURN changed;
END;
$$;
--> statement-breakpoint
-- The ledger stays append-only the same way: the one UPDATE its guard lets through empties an entry's `note` and
-- changes nothing else, only while erase_ledger_notes() runs. An accepted payment claim's entry carries the member's
-- own note (copied from the claim); erasure removes it, and any note holding one of the person's values.
CREATE OR REPLACE FUNCTION account_entries_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE'
     AND current_setting('app.ledger_erasure', true) = 'on'
     AND NEW.note IS NULL
     AND to_jsonb(NEW) - 'note' = to_jsonb(OLD) - 'note' THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
    USING ERRCODE = 'insufficient_privilege',
          HINT = 'Record a correcting entry instead of changing or removing one; erasure removes notes only.';
END;
$$;
--> statement-breakpoint
DROP TRIGGER account_entries_append_only ON account_entries;
--> statement-breakpoint
CREATE TRIGGER account_entries_append_only BEFORE UPDATE OR DELETE ON account_entries
  FOR EACH ROW EXECUTE FUNCTION account_entries_guard();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION erase_ledger_notes(member uuid, values_to_erase text[]) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  erased text[];
  changed integer;
BEGIN
  erased := ARRAY(SELECT DISTINCT lower(v) FROM unnest(values_to_erase) AS v WHERE char_length(v) >= 3);
  PERFORM set_config('app.ledger_erasure', 'on', true);
  UPDATE account_entries AS e SET note = NULL
   WHERE e.user_id = member AND e.note IS NOT NULL
     AND (EXISTS (SELECT 1 FROM payment_claims AS c WHERE c.entry_id = e.id)
          OR EXISTS (SELECT 1 FROM unnest(erased) AS x
                     WHERE lower(e.note) = x OR (char_length(x) >= 6 AND position(x IN lower(e.note)) > 0)));
  GET DIAGNOSTICS changed = ROW_COUNT;
  PERFORM set_config('app.ledger_erasure', 'off', true);
  RETURN changed;
END;
$$;
