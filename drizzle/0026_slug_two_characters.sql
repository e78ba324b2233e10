-- A slug is 2–40 characters (extension 2.2); the old check admitted one. Not valid: a slug stored before stays as it
-- is (the API refuses new ones), and an upgrade never fails on existing data.
ALTER TABLE "messes" DROP CONSTRAINT "messes_slug_check";--> statement-breakpoint
ALTER TABLE "messes" ADD CONSTRAINT "messes_slug_check" CHECK ("messes"."slug" ~ '^[a-z0-9][a-z0-9-]{0,38}[a-z0-9]$') NOT VALID;
