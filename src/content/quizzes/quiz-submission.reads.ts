import DataLoader from 'dataloader';
import { In } from 'typeorm';
import type { RequestContext } from '../../request/context';
import { QuizSubmission } from './quiz-submission.entity';

/**
 * The viewer's own submission for each quiz, batched (null when there is none). Quizzes need it for
 * their lock state and quiz submissions for their lists; kept below both so neither imports the other.
 */
export function ownQuizSubmissions(ctx: RequestContext): DataLoader<number, QuizSubmission | null> {
  return ctx.loaders.get('quizSubmissions:own', () =>
    new DataLoader<number, QuizSubmission | null>(async (quizIds) => {
      const viewer = ctx.viewer;
      if (!viewer) return quizIds.map(() => null);
      const rows = await ctx.ds.getRepository(QuizSubmission).findBy({ quizId: In([...quizIds]), userId: viewer.id });
      return quizIds.map((id) => rows.find((r) => r.quizId === id) ?? null);
    }),
  );
}
