import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * Rules of the source that no type check or test of behaviour sees, read from the syntax tree of
 * every file under src/.
 *
 * No object literal defines a getter (or setter) of its own. V8 keeps such accessors in the object's
 * hidden class, so each evaluation makes a new hidden class, in the old generation, whose accessor
 * closures keep what they capture (a page's rows, the request's loaders) alive through every young
 * collection until a full one: the REST module items page's connection did so, and each scavenge copied
 * ten times the bytes (docs/PERFORMANCE.md, tenth round). Lazy values go in a class, with the getter on
 * its prototype (see LazyConnection in src/common/connection.ts).
 */
const SRC = path.join(__dirname, '..', 'src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return sourceFiles(p);
    return d.name.endsWith('.ts') && !d.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** `file:line` of every accessor declared in an object literal of `text`. */
function literalAccessors(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) && ts.isObjectLiteralExpression(node.parent)) {
      found.push(`${path.relative(SRC, file)}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

it('finds an accessor in an object literal, and none in a class', () => {
  const text = 'class A { get x() { return 1; } }\nconst o = {\n  get y() { return 2; },\n  set z(v: number) {},\n};';
  expect(literalAccessors(path.join(SRC, 'probe.ts'), text)).toEqual(['probe.ts:3', 'probe.ts:4']);
});

it('no object literal under src/ defines a getter or setter of its own', () => {
  const files = sourceFiles(SRC);
  expect(files.length).toBeGreaterThan(100);
  expect(files.flatMap((f) => literalAccessors(f, fs.readFileSync(f, 'utf8')))).toEqual([]);
});
