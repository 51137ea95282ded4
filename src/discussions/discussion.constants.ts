/** Canvas's maximum_string_length; and the most a TEXT column holds on MySQL. */
export const TITLE_MAX = 255;
export const MESSAGE_MAX_BYTES = 65_535;
export const DEFAULT_TITLE = 'No Title';

/** Field errors Canvas's controller (not the model) reports: rendered as plain strings, as Canvas does. */
export const CONTROLLER_ERROR = 'unauthorized';

export const ORDERS = ['position', 'recent_activity', 'title'] as const;
