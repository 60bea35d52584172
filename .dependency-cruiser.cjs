// The layers of src/ (docs/development.md draws them): a folder imports only folders below it
// in the pipeline, never one above, and no module imports itself back through others.
//
//   commands → pipeline → incremental (the build state) → publish → render → evaluate → load
//   → config, then errors.ts, io/ and s3/ (file and S3 helpers), then model/ at the very bottom
//   (facts every stage shares; it imports nothing). resolver/ stands beside them and uses only
//   model/. The upstream stages: scan → measure, store (and config, model, load
//   for the record schema); measure → config, model; store → load, config, model, io, s3.
//
// `npm run lint:layers` runs it (scripts/lint-layers.mjs names the files).

/** Folders of src/ each folder may import, besides itself and the bottom (errors.ts, io/, s3/). */
const MAY_IMPORT = {
  commands: ['pipeline', 'incremental', 'publish', 'render', 'evaluate', 'load', 'config', 'model', 'resolver', 'scan', 'measure', 'store'],
  pipeline: ['incremental', 'publish', 'render', 'evaluate', 'load', 'config', 'model'],
  incremental: ['publish', 'render', 'evaluate', 'load', 'config', 'model'],
  publish: ['render', 'evaluate', 'load', 'config', 'model'],
  render: ['evaluate', 'load', 'config', 'model'],
  evaluate: ['load', 'config', 'model'],
  load: ['config', 'model'],
  config: ['model'],
  model: [],
  resolver: ['model'],
  scan: ['measure', 'store', 'load', 'config', 'model'],
  measure: ['config', 'model'],
  store: ['load', 'config', 'model'],
};
const BOTTOM = ['io', 's3'];

const layerRules = Object.entries(MAY_IMPORT).map(([folder, allowed]) => ({
  name: `layer-${folder}`,
  comment: `src/${folder}/ may import only ${[...allowed, ...BOTTOM].join(', ') || 'nothing else'} (and errors.ts)`,
  severity: 'error',
  from: { path: `^src/${folder}/` },
  to: { path: '^src/', pathNot: [`^src/(${[folder, ...allowed, ...BOTTOM].join('|')})/`, '^src/errors\\.ts$'] },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'bottom',
      comment: 'io/, s3/ and errors.ts are near the bottom: they import nothing of src/ but each other and model/',
      severity: 'error',
      from: { path: '^src/(io/|s3/|errors\\.ts$)' },
      to: { path: '^src/', pathNot: ['^src/(io|s3|model)/', '^src/errors\\.ts$'] },
    },
    {
      name: 'model-imports-nothing',
      comment: 'model/ is the very bottom: the facts every stage shares, importing nothing else of src/',
      severity: 'error',
      from: { path: '^src/model/' },
      to: { path: '^src/', pathNot: ['^src/model/'] },
    },
    {
      name: 'render-reads-no-file',
      comment: 'render/ turns data into bytes: it reads no file (its templates come with the resolved config)',
      severity: 'error',
      from: { path: '^src/render/' },
      to: { dependencyTypes: ['core'], path: '^(node:)?fs(/promises)?$' },
    },
    {
      name: 'no-circular',
      comment: 'no module imports itself back through others',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
  },
};
