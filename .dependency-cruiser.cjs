/**
 * The dependency rule (docs/ARCHITECTURE.md): imports point down this list of layers, never up, and never
 * in a circle. Type-only imports count: a type import is still a dependency a reader has to follow.
 * `npm run deps` checks it in CI; `npm run deps:graph` draws docs/dependencies.svg from the same rules.
 */
const LAYERS = [
  ['composition root', '^src/app/'],
  ['doors', '^src/(rest|graphql|http|graphiql|metrics|cli|event-catalog)/'],
  ['feature areas', '^src/(planner|modules|webhooks|discussions|quiz-extensions|blackout-dates|error-reports|calendar-events|todo)/'],
  ['shared areas', '^src/(content|groups|files)/'],
  ['platform areas', '^src/(courses|users|accounts|lti|auth)/'],
  ['kernel', '^src/(request|events|messaging|api|storage)/'],
  ['ground', '^src/(db|common|tracing)/|^src/config[.]ts$'],
];

const upward = LAYERS.slice(1).map(([name, path], i) => ({
  name: `no-upward-from-${name.replace(/ /g, '-')}`,
  comment: `${name} may import only the layers below it`,
  severity: 'error',
  from: { path },
  to: { path: LAYERS.slice(0, i + 1).map(([, p]) => `(${p})`).join('|') },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'an import cycle hides which part depends on which; break it with a domain event or a registry owned by the lower part',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...upward,
    {
      name: 'every-file-in-a-layer',
      comment: 'a new top-level folder under src/ must be placed in a layer in .dependency-cruiser.cjs',
      severity: 'error',
      from: { path: '^src/', pathNot: LAYERS.map(([, p]) => `(${p})`).join('|') },
      to: {},
    },
    {
      name: 'not-to-test',
      comment: 'production code never imports tests or benches',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    reporterOptions: {
      dot: {
        collapsePattern: '^src/[^/]+',
        theme: { graph: { rankdir: 'TB', splines: 'ortho' } },
      },
    },
  },
};
