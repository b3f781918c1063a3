-- Written by hand (Prisma's schema has no triggers): issue 34, finding 7.
--
-- A window covers its range while it is done, and also while it is read again after it was done
-- (`--refetch`): `finished_at` is kept from its last complete read until the new read completes,
-- so the records of that read, all stored, stay covered. Before, a refetch reset the window first:
-- with the exchange failing, a month all of whose records were stored turned into a gap and its
-- export was refused. The functions and the update trigger of 20261126120642_sync_coverage, with
-- "done" read as "done, or finished once and being read again".

CREATE OR REPLACE FUNCTION sync_coverage_apply(p_account uuid, p_stream sync_stream, p_scope text, p_plus tstzmultirange,
                                    p_minus tstzmultirange, p_windows integer, p_longest_ms bigint)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_covered tstzmultirange;
  v_windows integer;
  v_longest bigint;
  v_still tstzmultirange;
BEGIN
  INSERT INTO sync_coverage (account_id, stream, scope) VALUES (p_account, p_stream, p_scope)
  ON CONFLICT DO NOTHING;
  -- The row lock puts every change of this stream scope in one order; each statement below takes a
  -- new snapshot (READ COMMITTED), so it sees all that the lock's last holder committed.
  SELECT covered, windows, greatest(longest_window_ms, p_longest_ms) INTO v_covered, v_windows, v_longest
    FROM sync_coverage WHERE account_id = p_account AND stream = p_stream AND scope = p_scope FOR UPDATE;
  IF NOT isempty(p_minus) THEN
    -- Outside p_minus nothing changed: every point there is still covered by a window that was not
    -- removed. Inside it, what the done windows now cover; a window reaching into it starts at most
    -- the longest window before it, so the index scan stays near p_minus.
    SELECT COALESCE(range_agg(tstzrange(window_start, window_end, '[)')), '{}') INTO v_still
      FROM sync_window
     WHERE account_id = p_account AND stream = p_stream AND scope = p_scope AND (status = 'done' OR finished_at IS NOT NULL)
       AND window_start >= lower(p_minus) - v_longest * interval '1 millisecond'
       AND window_start < upper(p_minus) AND window_end > lower(p_minus);
    v_covered := (v_covered - p_minus) + (v_still * p_minus);
  END IF;
  v_covered := v_covered + p_plus;
  v_windows := v_windows + p_windows;
  IF v_windows <= 0 THEN
    -- No window left: no row, as before the first one.
    DELETE FROM sync_coverage WHERE account_id = p_account AND stream = p_stream AND scope = p_scope;
  ELSE
    UPDATE sync_coverage SET covered = v_covered, windows = v_windows, longest_window_ms = v_longest, updated_at = now()
     WHERE account_id = p_account AND stream = p_stream AND scope = p_scope;
  END IF;
END $$;

-- Each statement trigger visits the stream scopes a statement touched in one order (account,
-- stream, scope), so two statements touching the same ones never wait for each other in a circle.
CREATE OR REPLACE FUNCTION sync_coverage_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  k record;
BEGIN
  FOR k IN
    SELECT account_id, stream, scope,
           COALESCE(range_agg(tstzrange(window_start, window_end, '[)')) FILTER (WHERE (status = 'done' OR finished_at IS NOT NULL)), '{}') AS plus,
           count(*)::integer AS n,
           max((extract(epoch from window_end - window_start) * 1000)::bigint) AS longest
      FROM new_rows GROUP BY account_id, stream, scope ORDER BY account_id, stream, scope
  LOOP
    PERFORM sync_coverage_apply(k.account_id, k.stream, k.scope, k.plus, '{}', k.n, k.longest);
  END LOOP;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION sync_coverage_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  k record;
BEGIN
  FOR k IN
    SELECT account_id, stream, scope,
           COALESCE(range_agg(tstzrange(window_start, window_end, '[)')) FILTER (WHERE (status = 'done' OR finished_at IS NOT NULL)), '{}') AS minus,
           count(*)::integer AS n
      FROM old_rows GROUP BY account_id, stream, scope ORDER BY account_id, stream, scope
  LOOP
    PERFORM sync_coverage_apply(k.account_id, k.stream, k.scope, '{}', k.minus, -k.n, 0);
  END LOOP;
  RETURN NULL;
END $$;

-- An update, row by row, and only of a window that became done, stopped being done, or changed
-- its range or stream scope (the trigger's WHEN): every page stored updates its window, and a
-- statement trigger would run (about 50 us of the backend's CPU) for each of them. The stream
-- scopes of the windows' accounts are locked first, all and in order, as the statement triggers
-- lock theirs, so two statements touching several of an account's stream scopes never wait for
-- each other in a circle (row triggers run in the order rows were updated).
CREATE OR REPLACE FUNCTION sync_coverage_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_old tstzmultirange := CASE WHEN OLD.status = 'done' OR OLD.finished_at IS NOT NULL
                               THEN tstzmultirange(tstzrange(OLD.window_start, OLD.window_end, '[)')) ELSE '{}' END;
  v_new tstzmultirange := CASE WHEN NEW.status = 'done' OR NEW.finished_at IS NOT NULL
                               THEN tstzmultirange(tstzrange(NEW.window_start, NEW.window_end, '[)')) ELSE '{}' END;
  v_longest bigint := (extract(epoch from NEW.window_end - NEW.window_start) * 1000)::bigint;
BEGIN
  PERFORM 1 FROM sync_coverage WHERE account_id IN (OLD.account_id, NEW.account_id)
    ORDER BY account_id, stream, scope FOR UPDATE;
  IF (OLD.account_id, OLD.stream, OLD.scope) IS DISTINCT FROM (NEW.account_id, NEW.stream, NEW.scope) THEN
    PERFORM sync_coverage_apply(OLD.account_id, OLD.stream, OLD.scope, '{}', v_old, -1, 0);
    PERFORM sync_coverage_apply(NEW.account_id, NEW.stream, NEW.scope, v_new, '{}', 1, v_longest);
  ELSE
    PERFORM sync_coverage_apply(NEW.account_id, NEW.stream, NEW.scope, v_new, v_old, 0, v_longest);
  END IF;
  RETURN NULL;
END $$;

DROP TRIGGER sync_coverage_update ON sync_window;
CREATE TRIGGER sync_coverage_update AFTER UPDATE ON sync_window FOR EACH ROW
  WHEN ((OLD.status = 'done' OR OLD.finished_at IS NOT NULL) <> (NEW.status = 'done' OR NEW.finished_at IS NOT NULL)
        OR (OLD.account_id, OLD.stream, OLD.scope, OLD.window_start, OLD.window_end)
           IS DISTINCT FROM (NEW.account_id, NEW.stream, NEW.scope, NEW.window_start, NEW.window_end))
  EXECUTE FUNCTION sync_coverage_after_update();

-- The summaries again from the windows (the same as before: until now finished_at was set only on
-- done windows), written over anything a trigger wrote meanwhile.
INSERT INTO sync_coverage (account_id, stream, scope, covered, windows, longest_window_ms, updated_at)
SELECT account_id, stream, scope,
       COALESCE(range_agg(tstzrange(window_start, window_end, '[)')) FILTER (WHERE (status = 'done' OR finished_at IS NOT NULL)), '{}'),
       count(*)::integer, max((extract(epoch from window_end - window_start) * 1000)::bigint), now()
  FROM sync_window GROUP BY account_id, stream, scope
ON CONFLICT (account_id, stream, scope) DO UPDATE
  SET covered = EXCLUDED.covered, windows = EXCLUDED.windows, longest_window_ms = EXCLUDED.longest_window_ms,
      updated_at = EXCLUDED.updated_at;
