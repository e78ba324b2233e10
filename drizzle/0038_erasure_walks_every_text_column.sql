-- hand-written (issue 44, decision 0010): erasure removes a person's name, email and phone from every text, varchar,
-- json and jsonb column of every table, found from the catalogue, so a future module's table is covered without code
-- changes; and takes the erased off the daily rate's rolls.
--
-- The columns erasure rewrites in a table: every column of type text, varchar, json, jsonb or an array of text that
-- is not generated, not part of a primary key, unique index or foreign key (identifiers, not prose) and not marked
-- `[no personal text]` in its comment (codes a module declares, so erasure does not read a large table for nothing).
CREATE OR REPLACE FUNCTION erasure_columns(rel oid) RETURNS TABLE (name text, sql_type text, kind text)
LANGUAGE sql STABLE AS $$
  SELECT a.attname::text, format_type(a.atttypid, a.atttypmod),
         CASE WHEN a.atttypid = 'jsonb'::regtype THEN 'jsonb'
              WHEN a.atttypid = 'json'::regtype THEN 'json'
              WHEN a.atttypid IN ('text[]'::regtype, 'varchar[]'::regtype) THEN 'array'
              ELSE 'text' END
    FROM pg_attribute AS a
   WHERE a.attrelid = rel AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
     AND a.atttypid IN ('text'::regtype, 'varchar'::regtype, 'json'::regtype, 'jsonb'::regtype,
                        'text[]'::regtype, 'varchar[]'::regtype)
     AND coalesce(col_description(rel, a.attnum), '') NOT LIKE '%[no personal text]%'
     AND NOT EXISTS (SELECT 1 FROM pg_constraint AS k
                      WHERE k.conrelid = rel AND k.contype IN ('p', 'u', 'f') AND a.attnum = ANY (k.conkey))
     AND NOT EXISTS (SELECT 1 FROM pg_index AS i
                      WHERE i.indrelid = rel AND i.indisunique AND a.attnum = ANY (i.indkey::smallint[]))
   ORDER BY a.attnum
$$;
--> statement-breakpoint
-- A value as a regular expression that finds it as whole words (not inside a longer word or number): every character
-- but letters, digits and spaces escaped.
CREATE OR REPLACE FUNCTION erasure_word_pattern(value text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT '(?<![[:alnum:]_])' || regexp_replace(value, '([^[:alnum:][:space:]])', '\\\1', 'g') || '(?![[:alnum:]_])'
$$;
--> statement-breakpoint
-- Text with every whole-word occurrence of patterns[i] replaced by replacements[i], case aside, in order.
CREATE OR REPLACE FUNCTION erasure_scrub_text(value text, patterns text[], replacements text[]) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  i integer;
BEGIN
  IF value IS NULL THEN RETURN NULL; END IF;
  FOR i IN 1 .. coalesce(array_length(patterns, 1), 0) LOOP
    value := regexp_replace(value, patterns[i], replacements[i], 'gi');
  END LOOP;
  RETURN value;
END;
$$;
--> statement-breakpoint
-- The same in every string of a JSON document (its keys are left as they are: ids and field names).
CREATE OR REPLACE FUNCTION erasure_scrub_jsonb(value jsonb, patterns text[], replacements text[]) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF value IS NULL THEN RETURN NULL; END IF;
  CASE jsonb_typeof(value)
    WHEN 'string' THEN
      RETURN to_jsonb(erasure_scrub_text(value #>> '{}', patterns, replacements));
    WHEN 'object' THEN
      RETURN coalesce((SELECT jsonb_object_agg(key, erasure_scrub_jsonb(v, patterns, replacements))
                       FROM jsonb_each(value) AS t(key, v)), '{}'::jsonb);
    WHEN 'array' THEN
      RETURN coalesce((SELECT jsonb_agg(erasure_scrub_jsonb(v, patterns, replacements) ORDER BY n)
                       FROM jsonb_array_elements(value) WITH ORDINALITY AS t(v, n)), '[]'::jsonb);
    ELSE
      RETURN value;
  END CASE;
END;
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION erasure_scrub_array(value text[], patterns text[], replacements text[]) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN value IS NULL OR cardinality(value) = 0 THEN value
              ELSE ARRAY(SELECT erasure_scrub_text(x, patterns, replacements)
                           FROM unnest(value) WITH ORDINALITY AS u(x, n) ORDER BY n) END
$$;
--> statement-breakpoint
-- The one routine of erasure's text (decision 0010): in the mess the transaction acts in (row-level security applies)
-- and, with `shared_tables`, in the tables of the whole deployment (those without row-level security), it replaces
-- every whole-word occurrence of the person's name by `pseudonym` and removes every occurrence of the `removed`
-- values of 6 characters or more (email, phone, college id, ...), case aside, in every column erasure_columns()
-- lists of every table the caller may update, but three:
--   * users: the users module pseudonymises the person's own row; another row holding the same name is another person;
--   * audit_events: its guard lets through only string leaves replaced by null, through erase_from_audit_trail();
--   * account_entries: its guard lets through only an emptied note: a note holding a value is emptied.
-- A closed month's expenses, marks and extras keep their figures: their guard lets this routine's change through
-- (below). Returns how many rows changed.
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
  changed := erase_from_audit_trail(member, array_prepend(person_name, removed));
  IF found_values IS NULL THEN RETURN changed; END IF;
  patterns := ARRAY(SELECT erasure_word_pattern(v) FROM unnest(found_values) WITH ORDINALITY AS u(v, i) ORDER BY i);
  likes := ARRAY(SELECT '%' || replace(replace(replace(v, '\', '\\'), '%', '\%'), '_', '\_') || '%'
                   FROM unnest(found_values) AS v);
  any_pattern := '(' || array_to_string(patterns, '|') || ')';
  removals := array_fill(''::text, ARRAY[cardinality(found_values)]);

  PERFORM set_config('app.ledger_erasure', 'on', true);
  UPDATE account_entries SET note = NULL
   WHERE note IS NOT NULL AND note ILIKE ANY (likes) AND note ~* any_pattern;
  GET DIAGNOSTICS n = ROW_COUNT;
  changed := changed + n;
  PERFORM set_config('app.ledger_erasure', 'off', true);

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
-- A closed month's expenses, marks and extras stay frozen (decision 0003), but for erasure's text: while
-- erase_personal_text() runs, an UPDATE that changes nothing but the columns erasure rewrites is let through (no date,
-- amount, member or code changes; the month's figures do not move).
CREATE OR REPLACE FUNCTION mess_refuse_closed_month() RETURNS trigger AS $$
DECLARE
  touched text[];
  m text;
  prose text[];
BEGIN
  IF TG_OP = 'UPDATE' AND current_setting('app.personal_erasure', true) = 'on' THEN
    prose := ARRAY(SELECT name FROM erasure_columns(TG_RELID));
    IF to_jsonb(NEW) - prose = to_jsonb(OLD) - prose THEN
      RETURN NEW;
    END IF;
  END IF;
  IF TG_OP = 'INSERT' THEN
    touched := ARRAY[to_char(NEW.date, 'YYYY-MM')];
  ELSIF TG_OP = 'UPDATE' THEN
    touched := ARRAY[to_char(OLD.date, 'YYYY-MM'), to_char(NEW.date, 'YYYY-MM')];
  ELSE
    touched := ARRAY[to_char(OLD.date, 'YYYY-MM')];
  END IF;
  FOREACH m IN ARRAY touched LOOP
    IF EXISTS (SELECT 1 FROM month_closures WHERE month = m) THEN
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
-- Codes, not prose: erasure need not read the marks and extras (the largest tables) for a person's values.
COMMENT ON COLUMN attendance.status IS 'present or absent [no personal text]';
--> statement-breakpoint
COMMENT ON COLUMN attendance.previous_status IS 'the status before the last change [no personal text]';
--> statement-breakpoint
COMMENT ON COLUMN attendance.source IS 'who marked: member, staff, counter [no personal text]';
--> statement-breakpoint
COMMENT ON COLUMN attendance.meal_type IS 'a configured meal name [no personal text]';
--> statement-breakpoint
COMMENT ON COLUMN extras.meal_type IS 'a configured meal name [no personal text]';
--> statement-breakpoint
COMMENT ON COLUMN extras.item IS 'an item of the mess''s catalogue [no personal text]';
--> statement-breakpoint
-- Those erased before this migration leave the daily rate's rolls at their erasure (its audit row's instant; the
-- time zone that would end them at the next midnight is the service's setting, not the database's), mess by mess.
DO $$
DECLARE
  m uuid;
BEGIN
  FOR m IN SELECT id FROM messes ORDER BY id LOOP
    PERFORM set_config('app.mess', m::text, true);
    UPDATE membership_periods AS p
       SET ended_at = greatest(coalesce((SELECT max(a.at) FROM audit_events AS a
                                          WHERE a.entity = 'user' AND a.action = 'erased'
                                            AND a.entity_id = p.user_id::text), now()), p.started_at)
      FROM users AS u
     WHERE u.id = p.user_id AND u.status = 'erased' AND p.ended_at IS NULL;
  END LOOP;
  PERFORM set_config('app.mess', '', true);
END $$;
