import { shape } from '../api/rest/response';

/** LOCK_FIELDS as lockKeys presents them: lock_info and lock_explanation only on a locked object. */
export const lockProps = {
  locked_for_user: 'bool',
  lock_info: shape({ asset_string: 'string', unlock_at: 'date', lock_at: 'date', can_view: 'bool' }, { optional: ['unlock_at', 'lock_at', 'can_view'] }),
  lock_explanation: 'string',
} as const;
export const LOCK_OPTIONAL = ['lock_info', 'lock_explanation'];
