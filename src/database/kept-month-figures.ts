/**
 * Billing's kept month figures of every record present, as SQL: for a bulk load that switched the record tables' triggers
 * off (the demo seed, the university bench), run once after it switched them on again, in the load's transaction,
 * as the tables' owner (each row names its mess). Migration 0035 fills an existing database the same way, and
 * `BillingService.rebuild` repairs one month under its lock (decision 0011).
 */
export const FILL_KEPT_FIGURES: readonly string[] = [
  `insert into month_member_meals (mess_id, month, user_id, meal_type, meals, absent, present_days)
    select mess_id, to_char(date, 'YYYY-MM'), user_id, meal_type,
           count(*) filter (where status = 'present'), count(*) filter (where status = 'absent'),
           coalesce(bit_or(1 << (extract(day from date)::int - 1)) filter (where status = 'present'), 0)
    from attendance group by 1, 2, 3, 4
    -- a month's rows together, as the triggers lay them down in a running mess (the month is what readers ask for)
    order by 2, 1, 3, 4
    on conflict (mess_id, month, user_id, meal_type) do update
      set meals = excluded.meals, absent = excluded.absent, present_days = excluded.present_days`,
  `insert into month_totals (mess_id, month, total_paise)
    select mess_id, to_char(date, 'YYYY-MM'), sum(amount_paise) from expenses group by 1, 2
    on conflict (mess_id, month) do update set total_paise = excluded.total_paise`,
];
