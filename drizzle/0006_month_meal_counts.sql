CREATE TABLE "month_meal_counts" (
	"month" text NOT NULL,
	"meal_type" text NOT NULL,
	"present" integer NOT NULL,
	"absent" integer NOT NULL,
	"served_slots" integer NOT NULL,
	CONSTRAINT "month_meal_counts_month_meal_type_pk" PRIMARY KEY("month","meal_type")
);
