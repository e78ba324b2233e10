ALTER TABLE "attendance" ADD COLUMN "previous_status" text;--> statement-breakpoint
ALTER TABLE "attendance" ADD CONSTRAINT "attendance_previous_status_check" CHECK ("attendance"."previous_status" in ('present', 'absent'));--> statement-breakpoint
-- The leave module's lock-and-check for marks (LeaveRepository.lockSharedAndFindApproved): takes the members' leave
-- locks (shared, in one order) and then returns those whose approved leave covers `instant`. VOLATILE, so the
-- read takes its snapshot after the locks are held and sees an approval that committed while this waited for it.
CREATE OR REPLACE FUNCTION "leave_lock_shared_approved_at"("members" uuid[], "instant" timestamptz)
RETURNS SETOF uuid LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(hashtextextended('mess.leave:' || id::text, 0))
    FROM unnest(members) AS id ORDER BY id;
  RETURN QUERY SELECT DISTINCT l.user_id FROM leaves l
    WHERE l.status = 'approved' AND l.starts_at <= instant AND l.ends_at > instant AND l.user_id = ANY(members);
END
$$;
