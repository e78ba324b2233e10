import { ThrottlerModule } from '@nestjs/throttler';
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { AccountsMemberData } from '../../../src/modules/accounts';
import { AccountsQueries } from '../../../src/modules/accounts/accounts.queries';
import { LedgerService } from '../../../src/modules/accounts/ledger.service';
import { feedback } from '../../../src/modules/feedback/feedback.schema';
import { CreateLeaveDto } from '../../../src/modules/leave/dto/leave.requests';
import { LeaveService } from '../../../src/modules/leave/leave.service';
import { LeaveRecords } from '../../../src/modules/leave-calendar';
import { MembershipsModule, MembershipsService } from '../../../src/modules/memberships';
import { PrivacyModule } from '../../../src/modules/privacy';
import { ErasureService } from '../../../src/modules/privacy/erasure.service';
import { MemberDataExport } from '../../../src/modules/privacy/member-data-export';
import { PrivacyErrors } from '../../../src/modules/privacy/privacy.errors';
import { pseudonymOf, UsersService } from '../../../src/modules/users';
import { type MediumContext, type MediumMember, MESS_B_SETUP, newMedium } from '../medium.factory';

/** The person this file exports and erases: values found nowhere else. */
const PERSON = {
  fullName: 'Ashwini Zorawar-Quill',
  email: 'ashwini.privacy@college.edu',
  phone: '9123456780',
};

/**
 * A member's data in two messes (extension 2.3): a member with history in A then B exports every record of theirs
 * from both and nobody else's; their erasure is refused while a balance in either mess is unpaid (naming that mess),
 * then removes their values (their own free text, their name in others' text, in both messes) while every ledger
 * entry, balance and total of both messes stays to the paisa, and B's other members' records are untouched. What
 * /users/me/data and /users/:id/erase answer over HTTP: test/e2e/member-data.e2e-spec.ts.
 */
describe('Privacy (medium): export and erasure across two messes', () => {
  let ctx: MediumContext;
  let inB: MediumContext;
  let aAdmin: MediumMember;
  let bAdmin: MediumMember;
  let person: MediumMember;
  let peer: MediumMember;
  let bStudent: MediumMember;
  const ids = {
    aMarks: [] as string[],
    bMarks: [] as string[],
    feedback: [] as string[],
    leave: '',
    aEntries: [] as string[],
    bEntries: [] as string[],
    /** Others' text naming the person, in A (the peer's) and in B (B's student's). */
    peerFeedback: '',
    bFeedback: '',
    /** B's student's own comment naming nobody. */
    bPlainFeedback: '',
  };
  /** Every ledger figure of both messes, before the erasure. */
  let before: Awaited<ReturnType<typeof ledgerFigures>>;

  beforeAll(async () => {
    ctx = await newMedium({
      // The app's rate-limit storage (notifications' limits) is the app module's: the in-memory one here.
      imports: [ThrottlerModule.forRoot([{ ttl: 60_000, limit: 100 }]), PrivacyModule, MembershipsModule],
      now: new Date('2030-01-15T04:00:00Z'),
    });
    inB = ctx.as(ctx.messes.b);
    aAdmin = await ctx.newMember('admin', { fullName: 'Anu Admin' });
    bAdmin = ctx.messes.b.admin!;
    person = await ctx.newMember('student', PERSON);
    peer = await ctx.newMember('student', { fullName: 'Pia Peer' });
    bStudent = await inB.newMember('student', { fullName: 'Bhanu Student' });

    // In A: two marks, a rating, a leave, a charge paid in full (balance 0); the peer owes ₹300 and names them.
    for (const date of ['2030-01-10', '2030-01-11'])
      ids.aMarks.push(
        (await ctx.newMark({ userId: person.id, date, mealType: 'Lunch', status: 'present' })).id,
      );
    ids.feedback.push(
      (
        await ctx.newFeedback({
          userId: person.id,
          date: '2030-01-10',
          mealType: 'Lunch',
          rating: 4,
          comment: 'Too salty for me',
        })
      ).id,
    );
    ids.leave = (
      await ctx.get(LeaveService).create(
        person.caller,
        await ctx.dto(CreateLeaveDto, {
          startDate: '2030-02-01',
          endDate: '2030-02-03',
          reason: 'Sister wedding',
        }),
      )
    ).id;
    const ledgerA = ctx.get(LedgerService);
    ids.aEntries.push(
      (
        await ledgerA.recordAdjustment(aAdmin.id, person.id, {
          direction: 'debit',
          amountPaise: 50000,
          note: 'Jan',
        })
      ).entry.id,
      (
        await ledgerA.recordPayment(aAdmin.id, person.id, {
          amountPaise: 50000,
          date: '2030-01-12',
          method: 'cash',
        })
      ).entry.id,
    );
    await ledgerA.recordAdjustment(aAdmin.id, peer.id, {
      direction: 'debit',
      amountPaise: 30000,
      note: 'Jan',
    });
    ids.peerFeedback = (
      await ctx.newFeedback({
        userId: peer.id,
        date: '2030-01-10',
        mealType: 'Lunch',
        rating: 2,
        comment: `Ask ${PERSON.fullName} (+91${PERSON.phone}) about the queue`,
      })
    ).id;

    // Moved to B, where they eat once more and owe ₹200; B's student owes ₹150 and names them too.
    await ctx.get(MembershipsService).move(aAdmin.caller, [person.id], 'mess-b');
    ids.bMarks.push(
      (await inB.newMark({ userId: person.id, date: '2030-01-14', mealType: 'Supper', status: 'present' }))
        .id,
    );
    const ledgerB = inB.get(LedgerService);
    ids.bEntries.push(
      (
        await ledgerB.recordAdjustment(bAdmin.id, person.id, {
          direction: 'debit',
          amountPaise: 20000,
          note: 'B',
        })
      ).entry.id,
    );
    await ledgerB.recordAdjustment(bAdmin.id, bStudent.id, {
      direction: 'debit',
      amountPaise: 15000,
      note: 'B',
    });
    ids.bFeedback = (
      await inB.newFeedback({
        userId: bStudent.id,
        date: '2030-01-14',
        mealType: 'Supper',
        rating: 5,
        comment: `Sat with ${PERSON.fullName}, mail ${PERSON.email}`,
      })
    ).id;
    ids.bPlainFeedback = (
      await inB.newFeedback({
        userId: bStudent.id,
        date: '2030-01-13',
        mealType: 'Supper',
        rating: 3,
        comment: 'Supper was late again',
      })
    ).id;
  });
  afterAll(() => ctx?.close());

  /** The member's data document, as GET /users/me/data streams it. */
  const exported = async (userId: string) => {
    const user = await ctx.get(ErasureService).member(userId);
    const stream = ctx.get(MemberDataExport).stream(user);
    const text = await ctx.inMess(ctx.messId, async () => {
      let all = '';
      for await (const chunk of stream) all += String(chunk);
      return all;
    });
    return { text, data: JSON.parse(text) as Record<string, any> };
  };
  const idsOf = (list: { _id: string }[]) => list.map((r) => r._id).sort();
  const feedbackComment = async (at: MediumContext, id: string) => {
    const [row] = await at.inMess(at.messId, async () =>
      ctx.db
        .select({ comment: feedback.comment, rating: feedback.rating })
        .from(feedback)
        .where(eq(feedback.id, id)),
    );
    return row;
  };
  /** Both messes' accounts lists (the person's line aside: an erased member is in none) and the person's entries. */
  async function ledgerFigures() {
    const figures = async (at: MediumContext) => {
      const list = await at.get(AccountsQueries).accounts(undefined, 1, 100);
      const entries = await at.get(AccountsMemberData).entries(person.id);
      return {
        others: list.rows
          .filter((r) => r.userId !== person.id)
          .map((r) => [r.userId, r.balancePaise])
          .sort(),
        duePaise: list.duePaise,
        creditPaise: list.creditPaise,
        personEntries: entries.records.map((e) => [e._id, e.kind, e.amount]),
      };
    };
    return { a: await figures(ctx), b: await figures(inB) };
  }

  it("exports every record of the member from both messes, and none of anyone else's", async () => {
    const { text, data } = await exported(person.id);
    expect(data.user).toMatchObject({ _id: person.id, email: PERSON.email, fullName: PERSON.fullName });
    expect(
      data.memberships.map((m: { mess: { slug: string }; to: unknown }) => [m.mess.slug, m.to === null]),
    ).toEqual([
      ['main', false],
      ['mess-b', true],
    ]);
    expect(data.memberships[1].mess).toEqual({
      _id: ctx.messes.b.id,
      slug: 'mess-b',
      messName: MESS_B_SETUP.messName,
    });
    expect(idsOf(data.attendance)).toEqual([...ids.aMarks, ...ids.bMarks].sort());
    expect(idsOf(data.feedback)).toEqual(ids.feedback);
    expect(idsOf(data.leaves)).toEqual([ids.leave]);
    expect(idsOf(data.accountEntries.main)).toEqual([...ids.aEntries].sort());
    expect(idsOf(data.accountEntries['mess-b'])).toEqual(ids.bEntries);
    expect(Object.keys(data.accountEntries)).toEqual(['main', 'mess-b']);
    // Nobody else's records, and no secret.
    for (const other of [ids.peerFeedback, ids.bFeedback, ids.bPlainFeedback, peer.id, bStudent.id])
      expect([other, text.includes(other)]).toEqual([other, false]);
    for (const word of ['passwordHash', 'password_hash', 'tokenVersion', '$2b$'])
      expect(text).not.toContain(word);
  });

  it("exports B's member with B's records alone: one membership, no entry of A", async () => {
    const { text, data } = await exported(bStudent.id);
    expect(data.memberships).toEqual([
      {
        mess: { _id: ctx.messes.b.id, slug: 'mess-b', messName: MESS_B_SETUP.messName },
        from: expect.any(String),
        to: null,
      },
    ]);
    expect(idsOf(data.feedback)).toEqual([ids.bFeedback, ids.bPlainFeedback].sort());
    expect(data.attendance).toEqual([]);
    expect(Object.keys(data.accountEntries)).toEqual(['mess-b']);
    expect(data.accountEntries['mess-b']).toHaveLength(1);
    expect(text).not.toContain(person.id);
  });

  it('takes one pending erasure request per member (409 for a second), listed with the name and reason', async () => {
    const asked = await ctx.get(ErasureService).request(person.caller, 'I left the hostel in May');
    expect([asked.userId, asked.status, asked.reason]).toEqual([
      person.id,
      'pending',
      'I left the hostel in May',
    ]);
    expect(await ctx.refusal(ctx.get(ErasureService).request(person.caller, undefined))).toEqual({
      status: 409,
      body: expect.objectContaining({ error: PrivacyErrors.requestPending }),
    });
    const pending = await inB.get(ErasureService).list('pending');
    expect(pending.map((r) => [r.userId, r.fullName, r.reason])).toEqual([
      [person.id, PERSON.fullName, 'I left the hostel in May'],
    ]);
    expect(await ctx.get(ErasureService).list('done')).toEqual([]);
  });

  it('refuses the erasure while the balance in B is unpaid, naming B and the amount, and changes nothing', async () => {
    const refused = await ctx.refusal(ctx.get(ErasureService).erase(aAdmin.caller, person.id));
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      error: PrivacyErrors.settleFirst({ messName: MESS_B_SETUP.messName, slug: 'mess-b' }, 20000),
    });
    expect((refused.body as { error: string }).error).toBe(
      `Settle the account first: the balance in ${MESS_B_SETUP.messName} (mess-b) is ₹200.00`,
    );
    const still = await ctx.get(UsersService).findById(person.id);
    expect([still?.fullName, still?.status, still?.messId]).toEqual([
      PERSON.fullName,
      'approved',
      ctx.messes.b.id,
    ]);
    expect((await feedbackComment(inB, ids.bFeedback))?.comment).toContain(PERSON.fullName);
    expect((await ctx.refusal(ctx.get(ErasureService).erase(aAdmin.caller, randomUUID()))).status).toBe(404);
  });

  describe('erased', () => {
    let erased: Awaited<ReturnType<ErasureService['erase']>>;

    beforeAll(async () => {
      // B's balance paid to zero: every mess they belonged to is settled.
      await inB
        .get(LedgerService)
        .recordPayment(bAdmin.id, person.id, { amountPaise: 20000, date: '2030-01-15', method: 'upi' })
        .then((r) => ids.bEntries.push(r.entry.id));
      before = await ledgerFigures();
      erased = await ctx.get(ErasureService).erase(aAdmin.caller, person.id);
    });

    it('pseudonymises the member: no email, phone, college id or room; erased', () => {
      expect(erased).toMatchObject({
        id: person.id,
        fullName: pseudonymOf(person.id),
        email: `${person.id}@erased.invalid`,
        phone: null,
        collegeId: '',
        room: '',
        passwordHash: null,
        status: 'erased',
        messId: ctx.messes.b.id,
      });
      expect(pseudonymOf(person.id)).toBe(`Former member ${person.id.slice(0, 6)}`);
      expect(erased.tokenVersion).toBeGreaterThan(0);
    });

    it('keeps every ledger entry, balance and total of both messes to the paisa', async () => {
      const after = await ledgerFigures();
      expect(after).toEqual(before);
      expect(after.a).toMatchObject({ duePaise: 30000, others: expect.arrayContaining([[peer.id, 30000]]) });
      expect(after.b).toMatchObject({
        duePaise: 15000,
        others: expect.arrayContaining([[bStudent.id, 15000]]),
      });
      expect(after.a.personEntries).toHaveLength(2);
      expect(after.b.personEntries.map((e) => e[0]).sort()).toEqual([...ids.bEntries].sort());
    });

    it('empties their own text but keeps their records: ratings, marks, leave dates', async () => {
      expect(await feedbackComment(ctx, ids.feedback[0])).toEqual({ comment: '', rating: 4 });
      const leave = await ctx.get(LeaveRecords).findById(ids.leave);
      expect([leave?.reason, leave?.startDate, leave?.endDate]).toEqual(['', '2030-02-01', '2030-02-03']);
      const { data } = await exported(person.id);
      expect(idsOf(data.attendance)).toEqual([...ids.aMarks, ...ids.bMarks].sort());
      expect(data.user).toMatchObject({ fullName: pseudonymOf(person.id), email: '', status: 'erased' });
    });

    it("replaces their name in others' text in both messes, removing their phone and email; other text stays", async () => {
      const pseudonym = pseudonymOf(person.id);
      expect(await feedbackComment(ctx, ids.peerFeedback)).toEqual({
        comment: expect.stringContaining(`Ask ${pseudonym}`),
        rating: 2,
      });
      const peerText = (await feedbackComment(ctx, ids.peerFeedback))!.comment!;
      expect(peerText).not.toContain(PERSON.phone);
      expect(peerText).not.toContain(PERSON.fullName);
      const bText = (await feedbackComment(inB, ids.bFeedback))!.comment!;
      expect(bText).toContain(`Sat with ${pseudonym}`);
      expect(bText).not.toContain(PERSON.email);
      expect(await feedbackComment(inB, ids.bPlainFeedback)).toEqual({
        comment: 'Supper was late again',
        rating: 3,
      });
    });

    it("marks their request done with its reason emptied; the others' accounts and rows untouched", async () => {
      const done = await ctx.get(ErasureService).list('done');
      expect(done.map((r) => [r.userId, r.fullName, r.reason, r.decidedBy])).toEqual([
        [person.id, pseudonymOf(person.id), '', aAdmin.id],
      ]);
      expect(await ctx.get(ErasureService).list('pending')).toEqual([]);
      const peerRow = await ctx.get(UsersService).findById(peer.id);
      const bRow = await inB.get(UsersService).findById(bStudent.id);
      expect([peerRow?.fullName, peerRow?.status, bRow?.fullName, bRow?.status]).toEqual([
        'Pia Peer',
        'approved',
        'Bhanu Student',
        'approved',
      ]);
    });

    it('refuses to erase them again (409)', async () => {
      expect(await ctx.refusal(ctx.get(ErasureService).erase(aAdmin.caller, person.id))).toEqual({
        status: 409,
        body: expect.objectContaining({ error: 'The member is already erased' }),
      });
    });
  });
});

/**
 * A member who only ever belonged to A, named in a comment written in B: their erasure changes nothing in B. What it
 * rewrites is sealed to the messes the person belonged to (migration 0040: the database refuses the trail's and the
 * ledger's erasure in any other), and the route's description says so.
 */
describe('Privacy (medium): erasure stays in the messes the member belonged to', () => {
  let ctx: MediumContext;

  beforeAll(async () => {
    ctx = await newMedium({
      imports: [ThrottlerModule.forRoot([{ ttl: 60_000, limit: 100 }]), PrivacyModule],
      now: new Date('2030-01-15T04:00:00Z'),
    });
  });
  afterAll(() => ctx?.close());

  it("replaces their name in A's text and leaves B's, where they never were, as written", async () => {
    const inB = ctx.as(ctx.messes.b);
    const admin = await ctx.newMember('admin', { fullName: 'Anu Admin' });
    const onlyInA = await ctx.newMember('student', { fullName: 'Gitanjali Quorrel-Vance', phone: '9123400077' });
    const peerInA = await ctx.newMember('student', { fullName: 'Pia Peer' });
    const writer = await inB.newMember('student', { fullName: 'Bela Writer' });
    const text = 'Met Gitanjali Quorrel-Vance here, call 9123400077';
    const inAText = await ctx.newFeedback({
      userId: peerInA.id,
      date: '2030-01-14',
      mealType: 'Dinner',
      rating: 4,
      comment: text,
    });
    const inBText = await inB.newFeedback({
      userId: writer.id,
      date: '2030-01-14',
      mealType: 'Supper',
      rating: 4,
      comment: text,
    });
    const comment = (at: MediumContext, id: string) =>
      at.inMess(at.messId, async () => {
        const [row] = await ctx.db.select({ comment: feedback.comment }).from(feedback).where(eq(feedback.id, id));
        return row?.comment;
      });

    await ctx.get(ErasureService).erase(admin.caller, onlyInA.id);

    expect(await comment(ctx, inAText.id)).toBe(`Met ${pseudonymOf(onlyInA.id)} here, call `);
    expect(await comment(inB, inBText.id)).toBe(text);
  });
});
