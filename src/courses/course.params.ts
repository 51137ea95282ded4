import { id } from '../rest/input';

/** A course as the course service looks one up: id or sis_course_id:. */
export const courseId = (opts: { nullable?: boolean } = {}) => id({ prefixes: ['sis_course_id'], ...opts });

/** A section as the section service looks one up within its course: id or sis_section_id:. */
export const sectionId = () => id({ prefixes: ['sis_section_id'] });
