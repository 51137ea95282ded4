import { Foundation1732000000000 } from './1732000000000-Foundation';
import { Groups1732000001000 } from './1732000001000-Groups';

/** The migration set, in order. Listed explicitly so compiled and ts-jest runs load the same classes. */
export const migrations = [Foundation1732000000000, Groups1732000001000];
