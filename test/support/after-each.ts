import { takeDrift } from './drift';

/**
 * Runs around every test file (jest.config.js setupFilesAfterEnv): a delivery or subscription result
 * that drifted from the event catalog fails the test during which it arrived (or the file's last hook).
 */
function failOnDrift(): void {
  const problems = takeDrift();
  if (problems.length) throw new Error(`${problems.length} event(s) do not match the event catalog (/api/asyncapi.json):\n${problems.slice(0, 10).join('\n')}`);
}

afterEach(failOnDrift);
afterAll(failOnDrift);
