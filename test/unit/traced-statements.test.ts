import { statementOf } from '../../src/db/traced-queries';

/** SQL span names: the statement's kind and first table, never a literal or parameter. */
describe('statementOf', () => {
  it.each([
    ['SELECT "c"."id" AS "c_id" FROM "courses" "c" WHERE "c"."id" = ?', 'SELECT', 'courses'],
    ['SELECT `m`.`id` AS `id` FROM `outbox_messages` `m` WHERE `m`.`status` = ? FOR UPDATE SKIP LOCKED', 'SELECT', 'outbox_messages'],
    ["INSERT INTO `users`(`id`, `name`) VALUES (DEFAULT, 'Ada')", 'INSERT', 'users'],
    ["UPDATE \"groups\" SET \"name\" = 'secret' WHERE \"id\" IN (1, 2)", 'UPDATE', 'groups'],
    ['DELETE FROM "attachments" WHERE "id" = ?', 'DELETE', 'attachments'],
    ['  (SELECT x FROM planner_notes WHERE user_id = 5) UNION (SELECT y FROM planner_overrides)', 'SELECT', 'planner_notes'],
    ['BEGIN IMMEDIATE TRANSACTION', 'BEGIN', null],
    ['SELECT VERSION() AS v', 'SELECT', null],
  ])('%s', (sql, kind, table) => {
    expect(statementOf(sql)).toEqual({ kind, table });
  });
});
