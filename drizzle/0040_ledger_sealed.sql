-- hand-written (issue 45, decisions 0010 and 0012): the ledger and the audit trail are sealed by privileges too. The
-- service's role keeps SELECT and INSERT on them and loses UPDATE, DELETE and TRUNCATE; erasure's one allowed change
-- (a note emptied, a snapshot's string leaf replaced by null) is made by two SECURITY DEFINER functions owned by the
-- owner of the tables, which take only the member's id, read the person's values from their own row, act only in the
-- mess the transaction acts in (`app.mess`, the setting of row-level security's policies, decision 0007) and refuse
-- a member who never belonged to it. The guards (0031) stay: they still refuse every other change, to the owner too.
--
-- The mess the transaction acts in, and whether `member` belongs or belonged to it: their users row names it, or the
-- trail of another mess records a move out of it (what the service's PastMesses reads). Refused (42501) otherwise:
-- no mess set, no such member, or a mess that was never theirs. SECURITY DEFINER, so it reads every mess's moves (a
-- superuser owner bypasses row-level security; a least-privilege owner reads them through mess_reader's policy).
CREATE OR REPLACE FUNCTION erasure_mess_of(member uuid) RETURNS uuid
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  mess uuid := nullif(current_setting('app.mess', true), '')::uuid;
BEGIN
  IF mess IS NULL THEN
    RAISE EXCEPTION 'erasure acts in a mess: app.mess is not set' USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM users AS u WHERE u.id = member) THEN
    RAISE EXCEPTION 'erasure refused: no member %', member USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM users AS u WHERE u.id = member AND u.mess_id = mess)
     AND NOT EXISTS (SELECT 1 FROM audit_events AS a
                      WHERE a.entity = 'user' AND a.action = 'moved' AND a.entity_id = member::text
                        AND a.before ->> 'mess' = mess::text) THEN
    RAISE EXCEPTION 'erasure refused: member % never belonged to mess %', member, mess
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN mess;
END;
$$;
--> statement-breakpoint
-- A person's values as erasure removes them (what the service listed before: name, email, phone and its last ten
-- digits, college id, room, identity-provider subject), the non-blank ones, read from their row before it is
-- pseudonymised (the erasure's transaction holds it locked).
CREATE OR REPLACE FUNCTION erasure_values_of(member uuid) RETURNS text[]
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  SELECT coalesce(array_agg(v ORDER BY n), '{}')
    FROM users AS u,
         unnest(ARRAY[u.full_name, u.email, u.phone, right(u.phone, 10), u.college_id, u.room, u.idp_id])
           WITH ORDINALITY AS x(v, n)
   WHERE u.id = member AND v IS NOT NULL AND btrim(v) <> ''
$$;
--> statement-breakpoint
DROP FUNCTION IF EXISTS erase_from_audit_trail(uuid, text[]);
--> statement-breakpoint
DROP FUNCTION IF EXISTS erase_ledger_notes(uuid, text[]);
--> statement-breakpoint
-- The person's values removed from the trail of the current mess: every string leaf that equals one (3 characters or
-- more) or contains one of 6 or more becomes null, in the rows about them and the rows of entities whose snapshots
-- may hold free text (0031). Nothing else of a row can change: the guard lets only that through.
CREATE FUNCTION erase_from_audit_trail(member uuid) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  mess uuid := erasure_mess_of(member);
  erased text[];
  changed integer;
BEGIN
  erased := ARRAY(SELECT DISTINCT lower(v) FROM unnest(erasure_values_of(member)) AS v WHERE char_length(v) >= 3);
  IF cardinality(erased) = 0 THEN RETURN 0; END IF;
  PERFORM set_config('app.audit_erasure', 'on', true);
  UPDATE audit_events
     SET before = audit_snapshot_without(before, erased), after = audit_snapshot_without(after, erased)
   WHERE mess_id = mess
     AND id IN (SELECT a.id FROM audit_events AS a
                 WHERE a.mess_id = mess
                   AND (a.entity_id = member::text
                        OR a.after ->> 'userId' = member::text
                        OR a.before ->> 'userId' = member::text)
                UNION
                SELECT a.id FROM audit_events AS a
                 WHERE a.mess_id = mess AND a.entity NOT IN ('attendance', 'extra'))
     AND EXISTS (SELECT 1 FROM unnest(erased) AS e
                 WHERE position(e IN lower(coalesce(before::text, '') || ' ' || coalesce(after::text, ''))) > 0);
  GET DIAGNOSTICS changed = ROW_COUNT;
  PERFORM set_config('app.audit_erasure', 'off', true);
  RETURN changed;
END;
$$;
--> statement-breakpoint
-- The person's values removed from the ledger of the current mess: a note is emptied (set to null), nothing else of
-- an entry changes (the guard lets only that through). Emptied: the notes of the member's own entries that came from
-- their payment claims or hold one of their values (equal to one of 3 characters or more, or containing one of 6 or
-- more, case aside), and any entry's note that names them as whole words (their name of 3 characters or more, their
-- other values of 6 or more: what erase_personal_text removes elsewhere).
CREATE FUNCTION erase_ledger_notes(member uuid) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  mess uuid := erasure_mess_of(member);
  person_name text;
  personal text[] := erasure_values_of(member);
  erased text[];
  found_values text[];
  likes text[];
  any_pattern text;
  changed integer;
BEGIN
  SELECT u.full_name INTO person_name FROM users AS u WHERE u.id = member;
  erased := ARRAY(SELECT DISTINCT lower(v) FROM unnest(personal) AS v WHERE char_length(v) >= 3);
  found_values := ARRAY(SELECT DISTINCT btrim(v) FROM unnest(personal) AS v
                         WHERE char_length(btrim(v)) >= 6
                            OR (v = person_name AND char_length(btrim(v)) >= 3));
  likes := ARRAY(SELECT '%' || replace(replace(replace(v, '\', '\\'), '%', '\%'), '_', '\_') || '%'
                   FROM unnest(found_values) AS v);
  any_pattern := CASE WHEN cardinality(found_values) = 0 THEN NULL
                      ELSE '(' || array_to_string(ARRAY(SELECT erasure_word_pattern(v) FROM unnest(found_values) AS v),
                                                  '|') || ')' END;
  PERFORM set_config('app.ledger_erasure', 'on', true);
  UPDATE account_entries AS e SET note = NULL
   WHERE e.mess_id = mess AND e.note IS NOT NULL
     AND ((e.user_id = member
           AND (EXISTS (SELECT 1 FROM payment_claims AS c WHERE c.entry_id = e.id AND c.mess_id = mess)
                OR EXISTS (SELECT 1 FROM unnest(erased) AS x
                            WHERE lower(e.note) = x OR (char_length(x) >= 6 AND position(x IN lower(e.note)) > 0))))
          OR (any_pattern IS NOT NULL AND e.note ILIKE ANY (likes) AND e.note ~* any_pattern));
  GET DIAGNOSTICS changed = ROW_COUNT;
  PERFORM set_config('app.ledger_erasure', 'off', true);
  RETURN changed;
END;
$$;
--> statement-breakpoint
-- Erasure's walk over every text column (0038), unchanged but for the two tables it may no longer write itself: the
-- trail's and the ledger's values go through the two functions above (for a member the deployment has; a name given
-- for nobody, as a test of the walk does, leaves them alone).
CREATE OR REPLACE FUNCTION erase_personal_text(member uuid, person_name text, removed text[], pseudonym text,
                                               shared_tables boolean) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  found_values text[];
  replacements text[];
  patterns text[];
  likes text[];
  any_pattern text;
  removals text[];
  t record;
  statement text;
  assignments text;
  haystack text;
  n integer;
  changed integer := 0;
BEGIN
  -- The name first, then the removed values longest first (a phone as +91… before its ten digits).
  SELECT array_agg(v ORDER BY o, char_length(v) DESC, v), array_agg(r ORDER BY o, char_length(v) DESC, v)
    INTO found_values, replacements
    FROM (SELECT btrim(person_name) AS v, 0 AS o, pseudonym AS r WHERE char_length(btrim(person_name)) >= 3
          UNION
          SELECT DISTINCT btrim(x), 1, '' FROM unnest(removed) AS x WHERE char_length(btrim(x)) >= 6) AS s;
  IF EXISTS (SELECT 1 FROM users WHERE id = member) THEN
    changed := erase_from_audit_trail(member) + erase_ledger_notes(member);
  END IF;
  IF found_values IS NULL THEN RETURN changed; END IF;
  patterns := ARRAY(SELECT erasure_word_pattern(v) FROM unnest(found_values) WITH ORDINALITY AS u(v, i) ORDER BY i);
  likes := ARRAY(SELECT '%' || replace(replace(replace(v, '\', '\\'), '%', '\%'), '_', '\_') || '%'
                   FROM unnest(found_values) AS v);
  any_pattern := '(' || array_to_string(patterns, '|') || ')';
  removals := array_fill(''::text, ARRAY[cardinality(found_values)]);

  PERFORM set_config('app.personal_erasure', 'on', true);
  FOR t IN
    SELECT c.oid, s.nspname, c.relname
      FROM pg_class AS c JOIN pg_namespace AS s ON s.oid = c.relnamespace
     WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
       AND s.nspname NOT IN ('pg_catalog', 'information_schema') AND s.nspname NOT LIKE 'pg\_%'
       AND c.oid NOT IN ('users'::regclass, 'audit_events'::regclass, 'account_entries'::regclass)
       AND (c.relrowsecurity OR shared_tables)
       AND has_schema_privilege(s.oid, 'USAGE')
       AND has_table_privilege(c.oid, 'SELECT') AND has_table_privilege(c.oid, 'UPDATE')
       AND EXISTS (SELECT 1 FROM erasure_columns(c.oid))
     ORDER BY s.nspname, c.relname
  LOOP
    SELECT string_agg(format('%I = %s', e.name,
             CASE e.kind
               WHEN 'jsonb' THEN format('erasure_scrub_jsonb(%I, $3, $4)', e.name)
               WHEN 'json' THEN format('erasure_scrub_jsonb(%I::jsonb, $3, $4)::json', e.name)
               WHEN 'array' THEN format('erasure_scrub_array(%I::text[], $3, $4)::%s', e.name, e.sql_type)
               ELSE format('erasure_scrub_text(%I::text, $3, $4)::%s', e.name, e.sql_type) END), ', '),
           'concat_ws('' '', ' || string_agg(format('%I::text', e.name), ', ') || ')'
      INTO assignments, haystack
      FROM erasure_columns(t.oid) AS e;
    statement := format('UPDATE %I.%I SET %s WHERE %s ILIKE ANY ($1) AND %s ~* $2',
                        t.nspname, t.relname, assignments, haystack, haystack);
    BEGIN
      EXECUTE statement USING likes, any_pattern, patterns, replacements;
      GET DIAGNOSTICS n = ROW_COUNT;
    EXCEPTION WHEN check_violation THEN
      -- A text at its column's limit that the pseudonym would lengthen: in this table the name is removed instead.
      EXECUTE statement USING likes, any_pattern, patterns, removals;
      GET DIAGNOSTICS n = ROW_COUNT;
    END;
    changed := changed + n;
  END LOOP;
  PERFORM set_config('app.personal_erasure', 'off', true);
  RETURN changed;
END;
$$;
--> statement-breakpoint
-- Only the service's writing role runs the two (and the owner, who owns them): not PUBLIC, not mess_reader. The two
-- helpers are for them alone.
REVOKE ALL ON FUNCTION erasure_mess_of(uuid), erasure_values_of(uuid), erase_from_audit_trail(uuid),
  erase_ledger_notes(uuid) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION erase_from_audit_trail(uuid), erase_ledger_notes(uuid) TO mess_app;
--> statement-breakpoint
-- History is written once: the service's roles may read and append, never change, remove or empty it.
REVOKE UPDATE, DELETE, TRUNCATE ON account_entries, audit_events FROM PUBLIC, mess_app, mess_reader;
