CREATE TABLE "email_collisions" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"normalized_email" text NOT NULL,
	"collides_with" uuid NOT NULL,
	"found_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "email_collisions" ADD CONSTRAINT "email_collisions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_collisions" ADD CONSTRAINT "email_collisions_collides_with_users_id_fk" FOREIGN KEY ("collides_with") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Every address in one spelling (NFKC, lower case), as the service now writes them. Where two accounts' addresses
-- become one, the account that already had the normalized spelling (else the older) keeps it; the others keep their
-- old spelling and are reported in email_collisions, never merged.
WITH normalized AS (
  SELECT id, email, lower(normalize(email, NFKC)) AS spelled, created_at FROM users
), ranked AS (
  SELECT id, email, spelled,
         first_value(id) OVER (PARTITION BY spelled ORDER BY (email = spelled) DESC, created_at, id) AS keeper
  FROM normalized
)
INSERT INTO email_collisions (user_id, email, normalized_email, collides_with)
SELECT id, email, spelled, keeper FROM ranked WHERE id <> keeper;
--> statement-breakpoint
UPDATE users SET email = lower(normalize(email, NFKC))
WHERE email <> lower(normalize(email, NFKC))
  AND id NOT IN (SELECT user_id FROM email_collisions);
