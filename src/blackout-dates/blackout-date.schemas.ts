import { arr, defineSchema, shape } from '../api/rest/response';

export const BlackoutDateSchema = defineSchema(
  'BlackoutDate',
  shape({
    id: 'id', context_id: 'id', context_type: 'string', start_date: 'string', end_date: 'string', event_title: 'string',
    root_account_id: 'id', created_at: 'date', updated_at: 'date',
  }),
);

export const BlackoutDatesSchema = defineSchema('BlackoutDates', arr(BlackoutDateSchema));

/** Canvas wraps one blackout date under `blackout_date`. */
export const WrappedBlackoutDateSchema = defineSchema('WrappedBlackoutDate', shape({ blackout_date: BlackoutDateSchema }));

/** The form's starting values (GET …/blackout_dates/new): nothing is stored yet. */
export const NewBlackoutDateSchema = defineSchema(
  'NewBlackoutDate',
  shape({
    blackout_date: shape({
      id: 'id?', context_id: 'id', context_type: 'string', start_date: 'string?', end_date: 'string?', event_title: 'string?',
      root_account_id: 'id?', created_at: 'date?', updated_at: 'date?',
    }),
  }),
);
