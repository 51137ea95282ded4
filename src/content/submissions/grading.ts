import type { GradingType } from '../assignments/assignment.entity';

/**
 * Canvas's grade arithmetic, without I/O: a posted grade becomes a score (in points) and the grade
 * string the assignment's grading type shows for it.
 */

/** Canvas's default grading scheme: a letter and the lowest percentage that earns it. */
export const DEFAULT_SCHEME: readonly [string, number][] = [
  ['A', 94],
  ['A-', 90],
  ['B+', 87],
  ['B', 84],
  ['B-', 80],
  ['C+', 77],
  ['C', 74],
  ['C-', 70],
  ['D+', 67],
  ['D', 64],
  ['D-', 61],
  ['F', 0],
];

export class GradeError extends Error {}

const usesScheme = (t: GradingType) => t === 'letter_grade' || t === 'gpa_scale';

/** Rounds to two places and drops a trailing ".0", as Canvas renders points. */
export function formatPoints(n: number): string {
  return String(Math.round(n * 100) / 100);
}

/** The high end of a letter's range, as Canvas takes it: the top letter is 100%, others one point under the next cutoff (B → 86). */
function letterToPercent(letter: string): number | null {
  const i = DEFAULT_SCHEME.findIndex(([l]) => l.toLowerCase() === letter.trim().toLowerCase());
  if (i < 0) return null;
  return i === 0 ? 100 : DEFAULT_SCHEME[i - 1][1] - 1;
}

function percentToLetter(pct: number): string {
  for (const [letter, min] of DEFAULT_SCHEME) if (pct >= min - 1e-9) return letter;
  return 'F';
}

/** The score a posted grade means; throws GradeError when it means nothing for this assignment. */
export function gradeToScore(posted: string, gradingType: GradingType, pointsPossible: number | null): number {
  const g = posted.trim();
  const pp = pointsPossible ?? 0;
  if (gradingType === 'not_graded') throw new GradeError('This assignment is not graded');
  let score: number | null = null;
  if (/^[+-]?(\d+(\.\d*)?|\.\d+)\s*%$/.test(g)) score = (pp * parseFloat(g)) / 100;
  else if (/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(g)) score = parseFloat(g);
  else if (/^(pass|complete)$/i.test(g)) score = pp;
  else if (/^(fail|incomplete)$/i.test(g)) score = 0;
  else if (usesScheme(gradingType)) {
    const pct = letterToPercent(g);
    if (pct != null) score = (pp * pct) / 100;
  }
  if (score == null || !Number.isFinite(score)) throw new GradeError(`Invalid grade "${posted}"`);
  if (gradingType === 'pass_fail' && Math.abs(score) > 1e-9 && Math.abs(score - pp) > 1e-9) {
    throw new GradeError('Assignments graded as pass/fail can only be given 0 or full points');
  }
  return score;
}

/** The grade string a score shows as, for the assignment's grading type. */
export function scoreToGrade(score: number, gradingType: GradingType, pointsPossible: number | null): string | null {
  const pp = pointsPossible ?? 0;
  switch (gradingType) {
    case 'percent':
      return pp > 0 ? `${formatPoints((score / pp) * 100)}%` : score > 0 ? '100%' : '0%';
    case 'pass_fail':
      return (pp > 0 ? score >= pp - 1e-9 : score > 0) ? 'complete' : 'incomplete';
    case 'letter_grade':
    case 'gpa_scale':
      return pp > 0 ? percentToLetter((score / pp) * 100) : score > 0 ? 'A' : 'F';
    case 'not_graded':
      return null;
    default:
      return formatPoints(score);
  }
}
