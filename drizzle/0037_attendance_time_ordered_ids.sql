-- UUID version 7 (RFC 9562): the Unix time in milliseconds in the first 48 bits, then a random v4's bits with the
-- version nibble made 7 (bits 52 and 53 set: 0100 becomes 0111); the variant bits stay the v4's.
CREATE OR REPLACE FUNCTION "uuid_v7"() RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
  SELECT encode(
    set_bit(set_bit(
      overlay(uuid_send(gen_random_uuid())
        PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
        FROM 1 FOR 6),
      52, 1), 53, 1),
    'hex')::uuid
$$;--> statement-breakpoint
ALTER TABLE "attendance" ALTER COLUMN "id" SET DEFAULT uuid_v7();
