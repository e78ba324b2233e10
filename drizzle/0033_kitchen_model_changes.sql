ALTER TABLE "kitchen_models" ADD COLUMN "changes" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "kitchen_models" ADD COLUMN "fitted_changes" integer DEFAULT 0 NOT NULL;