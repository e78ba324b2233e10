-- Months closed before the close stored their figures kept stale stored figures. Drop the stored figures of every
-- closed month: a missing month_totals row makes the next read rebuild them from the month's (frozen) expenses
-- and attendance. The frozen bills in month_closures are left alone.
DELETE FROM "month_meal_counts" WHERE "month" IN (SELECT "month" FROM "month_closures");
--> statement-breakpoint
DELETE FROM "month_member_meals" WHERE "month" IN (SELECT "month" FROM "month_closures");
--> statement-breakpoint
DELETE FROM "month_totals" WHERE "month" IN (SELECT "month" FROM "month_closures");
