-- Marks written before 0012 by someone other than the member (a manager or an admin, alone or in bulk) are the
-- kitchen's record. Closed months keep their frozen rows' meaning too, so the month-close guard is lifted for this
-- one statement: the change touches who made a mark, never its status.
ALTER TABLE "attendance" DISABLE TRIGGER "attendance_month_open";
--> statement-breakpoint
UPDATE "attendance" SET "source" = 'mess' WHERE "marked_by" IS NOT NULL AND "marked_by" <> "user_id";
--> statement-breakpoint
ALTER TABLE "attendance" ENABLE TRIGGER "attendance_month_open";
