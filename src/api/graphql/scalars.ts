import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { parseCanvasDate } from '../../common/dates';
import { formatDateTime } from '../../common/dates';

/**
 * DateTime as Canvas renders it: UTC at second precision with `Z`. Input accepts ISO 8601 (with or
 * without offset) and `YYYY-MM-DD`.
 */
export const DateTimeScalar = new GraphQLScalarType<Date | null, string>({
  name: 'DateTime',
  description: 'ISO 8601 date-time in UTC, rendered as YYYY-MM-DDTHH:MM:SSZ; input also accepts YYYY-MM-DD.',
  serialize(value) {
    if (value instanceof Date) return formatDateTime(value)!;
    if (typeof value === 'string') return formatDateTime(new Date(value))!;
    throw new GraphQLError('DateTime cannot represent a non-date value');
  },
  parseValue(value) {
    if (typeof value !== 'string') throw new GraphQLError('DateTime must be a string');
    const d = parseCanvasDate(value);
    if (!d) throw new GraphQLError(`DateTime cannot represent "${value}": expected ISO 8601 or YYYY-MM-DD`);
    return d;
  },
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('DateTime must be a string');
    const d = parseCanvasDate(ast.value);
    if (!d) throw new GraphQLError(`DateTime cannot represent "${ast.value}"`);
    return d;
  },
});
