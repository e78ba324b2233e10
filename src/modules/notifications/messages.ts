/** The words of each notification type, in one place. Plain text: the email template escapes it. */

import { formatRupees } from '../../common/money/money';

export { formatRupees };

export interface Message {
  title: string;
  content: string;
}

export const Messages = {
  leaveDecided: (leave: {
    status: 'approved' | 'rejected';
    startDate: string;
    endDate: string;
    startMealType: string;
    endMealType: string;
    note: string;
  }): Message => {
    const span = `${leave.startMealType} on ${leave.startDate} to ${leave.endMealType} on ${leave.endDate}`;
    return leave.status === 'approved'
      ? {
          title: `Leave approved: ${leave.startDate} to ${leave.endDate}`,
          content: `Your leave from ${span} is approved. The kitchen will not cook for you for those meals.`,
        }
      : {
          title: `Leave not approved: ${leave.startDate} to ${leave.endDate}`,
          content:
            `Your leave from ${span} was not approved${leave.note ? `: ${leave.note}` : '.'} ` +
            'Mark your meals as usual, or ask a manager.',
        };
  },

  mealReminder: (meal: { name: string; startTime: string; endTime: string }, date: string): Message => ({
    title: `${meal.name} at ${meal.startTime}: mark your attendance`,
    content:
      `You have not marked your attendance for ${meal.name} on ${date} (${meal.startTime}–${meal.endTime}). ` +
      'Mark present or absent in the app before the meal starts, so the kitchen cooks the right amount.',
  }),

  attendanceConfirmation: (
    meal: { name: string; startTime: string; endTime: string },
    date: string,
  ): Message => ({
    title: `Confirm your ${meal.name} attendance`,
    content:
      `You have marked your attendance for ${meal.name} on ${date} (${meal.startTime}–${meal.endTime}). ` +
      'If your plans changed, update the mark in the app before the meal starts.',
  }),

  mealUpdate: (
    meal: { date: string; mealType: string; dishes: string[] },
    change: 'published' | 'changed' | 'withdrawn',
  ): Message =>
    change === 'withdrawn'
      ? {
          title: `Menu withdrawn: ${meal.mealType} on ${meal.date}`,
          content: `The menu for ${meal.mealType} on ${meal.date} was withdrawn; watch for a new one.`,
        }
      : {
          title: `${change === 'published' ? 'Menu published' : 'Menu changed'}: ${meal.mealType} on ${meal.date}`,
          content: `${meal.mealType} on ${meal.date}: ${meal.dishes.length ? meal.dishes.join(', ') : 'no dishes listed'}.`,
        },

  /**
   * A meal's expected headcount for the managers: the first notice before the meal, then each change. The content
   * is the same for both, so an unchanged count is recognised by it.
   */
  headcount: (
    meal: { name: string; startTime: string; endTime: string },
    date: string,
    present: number,
    change: boolean,
  ): Message => ({
    title: `${change ? 'Headcount changed' : 'Expected headcount'}: ${meal.name} on ${date}: ${present}`,
    content: `${present} member${present === 1 ? ' is' : 's are'} marked present for ${meal.name} on ${date} (${meal.startTime}–${meal.endTime}).`,
  }),

  expenseAdded: (expense: {
    amountPaise: number;
    category: string;
    date: string;
    recordedBy: string;
  }): Message => ({
    title: `New expense: ${formatRupees(expense.amountPaise)} for ${expense.category}`,
    content: `${expense.recordedBy} recorded ${formatRupees(expense.amountPaise)} under ${expense.category} on ${expense.date}.`,
  }),

  budgetExceeded: (month: string, totalPaise: number, budgetPaise: number): Message => ({
    title: `Budget exceeded for ${month}`,
    content:
      `Spending for ${month} has reached ${formatRupees(totalPaise)}, over the monthly budget of ` +
      `${formatRupees(budgetPaise)} by ${formatRupees(totalPaise - budgetPaise)}.`,
  }),

  discrepancy: (
    mark: { memberName: string; date: string; mealType: string; status: string; previousStatus?: string },
    reasons: ('after-meal' | 'no-menu')[],
  ): Message => ({
    title: `Attendance discrepancy: ${mark.mealType} on ${mark.date}`,
    content: reasons
      .map((reason) =>
        reason === 'no-menu'
          ? `${mark.memberName} is marked ${mark.status} for ${mark.mealType} on ${mark.date}, but no menu was published for that meal.`
          : mark.previousStatus
            ? `${mark.memberName}'s attendance for ${mark.mealType} on ${mark.date} was changed from ${mark.previousStatus} to ${mark.status} after the meal ended.`
            : `${mark.memberName} was marked ${mark.status} for ${mark.mealType} on ${mark.date} after the meal ended.`,
      )
      .join('\n'),
  }),

  /** One alert for many marks of one slot (a bulk request): counts, then up to 20 names. */
  slotDiscrepancies: (
    slot: { date: string; mealType: string },
    marks: { memberName: string; status: string; previousStatus?: string }[],
    reasons: ('after-meal' | 'no-menu')[],
  ): Message => {
    const present = marks.filter((m) => m.status === 'present').length;
    const changed = marks.filter((m) => m.previousStatus).length;
    const listed = marks
      .slice(0, 20)
      .map((m) =>
        m.previousStatus
          ? `${m.memberName}: ${m.previousStatus} → ${m.status}`
          : `${m.memberName}: ${m.status}`,
      );
    const more = marks.length > 20 ? [`… and ${marks.length - 20} more`] : [];
    return {
      title: `Attendance discrepancy: ${marks.length} marks for ${slot.mealType} on ${slot.date}`,
      content: [
        ...reasons.map((reason) =>
          reason === 'no-menu'
            ? `${present} member${present === 1 ? ' is' : 's are'} marked present for ${slot.mealType} on ${slot.date}, but no menu was published for that meal.`
            : `${marks.length} marks for ${slot.mealType} on ${slot.date} were made or changed after the meal ended (${changed} changed, ${present} present, ${marks.length - present} absent).`,
        ),
        ...listed,
        ...more,
      ].join('\n'),
    };
  },

  costSummary: (
    month: string,
    line: { meals: number; sharePaise: number; extrasPaise: number; totalPaise: number },
    messTotalPaise: number,
  ): Message => ({
    title: `Your mess bill for ${month}: ${formatRupees(line.totalPaise)}`,
    content:
      `In ${month} you attended ${line.meals} meal${line.meals === 1 ? '' : 's'}. ` +
      `The mess spent ${formatRupees(messTotalPaise)} in total; your share is ${formatRupees(line.sharePaise)}` +
      (line.extrasPaise > 0
        ? `, your extras ${formatRupees(line.extrasPaise)}: ${formatRupees(line.totalPaise)} in all.`
        : '.'),
  }),

  paymentDue: (month: string, duePaise: number, dueDate: string): Message => ({
    title: `Payment due: ${formatRupees(duePaise)}`,
    content:
      `Your mess account shows ${formatRupees(duePaise)} due (bills up to ${month}, less what you have paid), ` +
      `due on ${dueDate}. Please pay the treasurer.`,
  }),

  paymentReceived: (payment: {
    amountPaise: number;
    date: string;
    method: string;
    reference: string | null;
    balancePaise: number;
  }): Message => ({
    title: `Payment received: ${formatRupees(payment.amountPaise)}`,
    content:
      `Receipt: the mess received ${formatRupees(payment.amountPaise)} from you on ${payment.date} ` +
      `(${payment.method}${payment.reference ? `, reference ${payment.reference}` : ''}). ` +
      (payment.balancePaise > 0
        ? `Your balance due is now ${formatRupees(payment.balancePaise)}.`
        : payment.balancePaise < 0
          ? `You are now ${formatRupees(-payment.balancePaise)} in credit.`
          : 'Your account is settled.'),
  }),

  /** The link carries the one-time token: the message is never logged (only its type and id are). */
  passwordReset: (link: string, ttlMinutes: number): Message => ({
    title: 'Set a new password',
    content:
      `Someone (hopefully you, or an admin of your mess for you) asked to set a new password for your mess account. ` +
      `Open this link within ${ttlMinutes} minutes to choose one; it works once:\n\n${link}\n\n` +
      'If you did not ask for this, ignore this mail: your password stays as it is.',
  }),

  /** The term lottery's result for one member, with what they need to check it (the seed and their place). */
  messAllocated: (
    window: { term: string; effectiveFrom: string; seed: string },
    result: {
      position: number;
      members: number;
      to: { slug: string; messName: string } | null;
      stays: boolean;
      rank: number | null;
    },
  ): Message => {
    const check =
      `You were number ${result.position} of ${result.members} in the draw (seed ${window.seed}); ` +
      'the published allocation and the lottery page of the service explain how to check it.';
    if (result.to === null)
      return {
        title: `${window.term}: no seat in the messes you chose`,
        content: `None of the messes you chose for ${window.term} had a seat left when your turn came: you stay in your mess. ${check}`,
      };
    const name = result.to.messName || result.to.slug;
    return result.stays
      ? {
          title: `${window.term}: you stay in ${name}`,
          content: `The lottery for ${window.term} gave you ${name}, your choice number ${result.rank}: you stay there. ${check}`,
        }
      : {
          title: `${window.term}: you move to ${name} on ${window.effectiveFrom}`,
          content:
            `The lottery for ${window.term} gave you ${name}, your choice number ${result.rank}. ` +
            `You are moved there on ${window.effectiveFrom}; from then on you mark your meals, ask for leave and are billed there. ${check}`,
        };
  },
};
