/**
 * Throttle settings for a bucket two anonymous error reports fill: each costs 1.2 units (an expensive
 * route, nothing reserved up front), so a third would pass the high-water mark of 3; the leak, 0.01
 * units a second, is too slow to matter in a test.
 */
export const SMALL_BUCKET: Readonly<Record<string, string>> = {
  RATE_LIMIT: 'on',
  RATE_LIMIT_HWM: '3',
  RATE_LIMIT_MAX: '4',
  RATE_LIMIT_OUTFLOW: '0.01',
  RATE_LIMIT_UP_FRONT: '0',
  RATE_LIMIT_EXPENSIVE_COST: '1.2',
};

/**
 * Throttle settings for a bucket one error report fills: an expensive route costs 60 units, so a
 * second would pass the high-water mark of 100; for tests that share a bucket between processes.
 */
export const ONE_REPORT_BUCKET: Readonly<Record<string, string>> = {
  RATE_LIMIT: 'on',
  RATE_LIMIT_HWM: '100',
  RATE_LIMIT_MAX: '200',
  RATE_LIMIT_OUTFLOW: '0.01',
  RATE_LIMIT_UP_FRONT: '0',
  RATE_LIMIT_EXPENSIVE_COST: '60',
};
