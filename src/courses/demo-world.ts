import type { EntityManager } from 'typeorm';
import type { FileStore } from '../storage';
import type { User } from '../users/user.entity';
import type { Course } from './course.entity';
import type { Enrollment, EnrollmentType } from './enrollment.entity';
import type { CourseSection } from './section.entity';

/**
 * The demo world: what `npm run demo` seeds so a newcomer can try the API at once. It is data, so a
 * later feature area extends it by adding to the definition below or by adding a DemoExtension to the list in src/app/demos.ts.
 */
export interface DemoPerson {
  /** Stable key other entries (and extensions) refer to. */
  key: string;
  /** Label printed in the table. */
  role: string;
  enrollmentType: EnrollmentType;
  name: string;
  login: string;
  /** Name of one of `sections`, or null for the course's default section. */
  section: string | null;
  /** For observers: the key of the observed student. */
  observes?: string;
}

export interface DemoWorldDefinition {
  course: { name: string; courseCode: string };
  /** Sections besides the default one every course has. */
  sections: string[];
  /** In creation order; an observer must come after the student it observes. */
  people: DemoPerson[];
}

export const DEMO_TOKEN_PURPOSE = 'demo';

export const DEMO_WORLD: DemoWorldDefinition = {
  course: { name: 'Demo Biology 101', courseCode: 'BIO101' },
  sections: ['Section A', 'Section B'],
  people: [
    { key: 'teacher', role: 'teacher', enrollmentType: 'TeacherEnrollment', name: 'Tina Teacher', login: 'demo.teacher@example.com', section: null },
    { key: 'student1', role: 'student', enrollmentType: 'StudentEnrollment', name: 'Sam Student', login: 'demo.student1@example.com', section: 'Section A' },
    { key: 'student2', role: 'student', enrollmentType: 'StudentEnrollment', name: 'Sally Student', login: 'demo.student2@example.com', section: 'Section A' },
    { key: 'student3', role: 'student', enrollmentType: 'StudentEnrollment', name: 'Stan Student', login: 'demo.student3@example.com', section: 'Section B' },
    {
      key: 'observer',
      role: 'observer',
      enrollmentType: 'ObserverEnrollment',
      name: 'Olly Observer',
      login: 'demo.observer@example.com',
      // Observers sit in the section of the student they observe, as Canvas places them.
      section: 'Section A',
      observes: 'student1',
    },
  ],
};

/** What has been created, handed to extensions so they can hang their own rows off it. */
export interface SeededDemoWorld {
  course: Course;
  defaultSection: CourseSection;
  /** Extra sections by name. */
  sections: Map<string, CourseSection>;
  /** Users by DemoPerson key. */
  users: Map<string, User>;
  enrollments: Map<string, Enrollment>;
}

/** What an extension gets besides the world. */
export interface DemoContext {
  rootAccountId: number;
  /** The configured file store (FILES_DIR or the S3 bucket), for extensions that seed files with their bytes. */
  files?: FileStore;
  /** The server secret (app.tokenKey), for extensions that store secrets encrypted under it. */
  tokenKey: string;
}

/**
 * A later feature area (assignments, discussions…) seeds its demo rows here, inside the same
 * transaction. Lines an extension returns are printed after the logins table.
 */
export interface DemoExtension {
  name: string;
  seed(em: EntityManager, world: SeededDemoWorld, ctx: DemoContext): Promise<void | string[]>;
  /**
   * Optional: also run when the demo course exists already (a later `npm run demo`), so a database
   * seeded before the extension existed gains its rows. Must be idempotent.
   */
  reseed?(em: EntityManager, ctx: DemoContext): Promise<void | string[]>;
}

