import { healthScore, jainIndex, mealSpread } from './health-score';

describe('healthScore', () => {
  it('matches a hand-computed month', () => {
    // ratings average 4.2 → (3.2/4)×100 = 80; 3 approved members × 10 slots = 30 possible, 24 present → 80;
    // meals 10, 8, 6 → (24²)/(3 × (100+64+36)) = 576/600 = 0.96 → 96; overall 0.4×80 + 0.4×80 + 0.2×96 = 83.2
    expect(
      healthScore({
        averageRating: 4.2,
        presentMarks: 24,
        approvedMembers: 3,
        servedSlots: 10,
        mealSpread: mealSpread([10, 8, 6]),
      }),
    ).toEqual({ mealQuality: 80, attendanceRate: 80, fairShareIndex: 96, overallScore: 83.2 });
  });

  it('is neutral on quality without ratings and zero on attendance without served slots', () => {
    expect(
      healthScore({
        averageRating: null,
        presentMarks: 0,
        approvedMembers: 5,
        servedSlots: 0,
        mealSpread: mealSpread([]),
      }),
    ).toEqual({ mealQuality: 50, attendanceRate: 0, fairShareIndex: 100, overallScore: 40 });
  });

  it('stays within 0..100', () => {
    const score = healthScore({
      averageRating: 5,
      presentMarks: 99,
      approvedMembers: 1,
      servedSlots: 3,
      mealSpread: mealSpread([3]),
    });
    expect(score).toEqual({ mealQuality: 100, attendanceRate: 100, fairShareIndex: 100, overallScore: 100 });
    expect(
      healthScore({
        averageRating: 1,
        presentMarks: 0,
        approvedMembers: 4,
        servedSlots: 3,
        mealSpread: mealSpread([]),
      }).overallScore,
    ).toBe(20);
  });

  it('computes Jain’s index', () => {
    expect(jainIndex([5, 5, 5])).toBe(1);
    expect(jainIndex([9, 1])).toBeCloseTo(100 / 164, 10);
    expect(jainIndex([0, 4])).toBe(1); // inactive members do not count
  });
});
